"""The strip pipeline of the compiled CPU fill: the strips of a batch of lattices handed
out in order to Python threads (or walked by the calling thread), each strip waiting on
the progress of the strip above, as the GPU's strip kernel does.

docs/design.md, section 9.6. ``STRIPS[kind]`` takes strips from a ticket counter and
runs each in chunks of ``width`` steps (``_numba_kernels.SEGMENTS``, inlined): before a
chunk it waits until the strip above (of the same lattice) has published the steps that
write the row-buffer columns the chunk reads; after it, it publishes its own. Strips
are taken in order, so a strip only ever waits on one taken earlier, by a thread that
is running it: no deadlock, whatever the number of threads and however the system
schedules them. Progress and the ticket are atomic (acquire / release), so the plain
loads and stores of the lattice's arrays that they order are free of data races.

A wait spins a while (``SPINS`` loads of the flag) and then returns to its Python
caller, which sleeps (``_numba_engine._Wavefront``) and calls again: on a machine
with more runnable threads than cores a waiting thread gives its core to the one it
waits for. numba's threading layer is not used (no OpenMP threads, which spin between
parallel regions or sleep through every barrier). Imported only by ``_numba_engine``,
and only when that engine runs.
"""

import platform

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from ._numba_kernels import SEGMENTS, scratch

#: ``control``'s slots (int64, 64 bytes apart): the next strip's ticket, the stop flag.
TICKET, STOP = 0, 8

#: Slots per strip in ``progress`` (a cache line each).
SLOT = 8

_PAUSE = "llvm.x86.sse2.pause" if platform.machine().lower() in ("x86_64", "amd64") else None


def _pointer(context, builder, arr_type, arr, index):
    ary = context.make_array(arr_type)(context, builder, arr)
    return cgutils.get_item_pointer(context, builder, arr_type, ary, [index])


@intrinsic
def load_acquire(typingctx, arr, index):
    """``arr[index]`` (int64), an atomic load with acquire order."""
    def codegen(context, builder, sig, args):
        ptr = _pointer(context, builder, sig.args[0], args[0], args[1])
        return builder.load_atomic(ptr, "acquire", 8)
    return types.int64(arr, index), codegen


@intrinsic
def store_release(typingctx, arr, index, value):
    """``arr[index] = value`` (int64), an atomic store with release order."""
    def codegen(context, builder, sig, args):
        ptr = _pointer(context, builder, sig.args[0], args[0], args[1])
        value = context.cast(builder, args[2], sig.args[2], types.int64)
        builder.store_atomic(value, ptr, "release", 8)
        return context.get_dummy_value()
    return types.void(arr, index, value), codegen


@intrinsic
def fetch_add(typingctx, arr, index):
    """``arr[index] += 1`` (int64), atomic (acquire and release); the value before."""
    def codegen(context, builder, sig, args):
        ptr = _pointer(context, builder, sig.args[0], args[0], args[1])
        return builder.atomic_rmw("add", ptr, ir.Constant(ir.IntType(64), 1), "acq_rel")
    return types.int64(arr, index), codegen


@intrinsic
def spin_pause(typingctx):
    """The CPU's spin-wait hint (x86 ``pause``; nothing elsewhere)."""
    def codegen(context, builder, sig, args):
        if _PAUSE is not None:
            fn = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), []), _PAUSE)
            builder.call(fn, [])
        return context.get_dummy_value()
    return types.void(), codegen


@njit(nogil=True, cache=True)
def stop(control):
    """Tell every thread of a fill to return (Ctrl-C, or an error in one of them)."""
    store_release(control, STOP, 1)


@njit(nogil=True, cache=True)
def steps_done(progress, n_items):
    """Steps published by the strips ``0 .. n_items - 1`` (for progress reports)."""
    done = 0
    for x in range(n_items):
        done += load_acquire(progress, x * SLOT)
    return done


@njit(nogil=True, inline="always")
def needed_step(c_hi, n_b, lanes, lead):
    """The step of the strip above that steps ``.. c_hi - 1`` of a strip wait for: the
    one that writes the last row-buffer column they read (column ``j`` at step ``j +
    lanes - 1``), ``lead`` steps more (a margin: a strip that follows the one above
    with none waits at almost every chunk), at most the last step of the strip above
    (a full one)."""
    return min(min(c_hi - 1, n_b) + lanes - 1 + lead, n_b + lanes - 1)


def _strip_loop(segment, name):
    """The strip pipeline around one kind's segment function (one compiled function
    per kind), named ``name``: numba names a function's machine code by its qualified
    name, which every closure of this factory would share, and a process loading the
    cached callers of two of them linked one kind's code to the other's (wrong
    counters, a corrupted heap)."""

    def strips(sched, lattice, lams, col0, tops, words, bits, state, progress, control, x,
               c):
        x_hi, width, lanes, spins, lead = sched
        (n_a, n_b, m, metric, absolute, ge, ypos, isq, nla, la, a_wins, ybr, nlb, lbr, ubr,
         scalars, per_q) = lattice
        n_lat = lams.size
        dec, acc = scratch(lanes, m)
        while True:
            if x < 0:  # the next strip
                if load_acquire(control, STOP):
                    return -1, 0
                x = fetch_add(control, TICKET)
                c = 1
                if x >= x_hi:
                    return -1, 0
            s = x // n_lat
            b = x - s * n_lat
            last = n_b + min(lanes, n_a - s * lanes) - 1  # the strip's last step
            while c <= last:
                c_hi = min(c + width, last + 1)
                if s > 0:
                    need = needed_step(c_hi, n_b, lanes, lead)
                    tries = 0
                    while load_acquire(progress, (x - n_lat) * SLOT) < need:
                        tries += 1
                        if tries > spins:
                            return x, c  # the caller sleeps, then calls again
                        spin_pause()
                    if load_acquire(control, STOP):
                        return -1, 0
                segment(s, c, c_hi, lanes, n_a, n_b, m, metric, absolute, ge, ypos, isq,
                        nla, la, a_wins, ybr, nlb, lbr, ubr, scalars, per_q, lams[b], col0,
                        tops[b], words[b], bits, state[b, s], dec, acc)
                store_release(progress, x * SLOT, c_hi - 1)
                c = c_hi
            x = -1

    strips.__name__ = strips.__qualname__ = name
    return njit(nogil=True, boundscheck=False, inline="always")(strips)


_LOOPS = {kind: _strip_loop(f, f"_strips_{kind}") for kind, f in SEGMENTS.items()}
_loop_lean_2, _loop_lean_3 = _LOOPS["lean_2"], _LOOPS["lean_3"]
_loop_xauc, _loop_prf, _loop_urf = _LOOPS["xauc"], _LOOPS["prf"], _LOOPS["urf"]


# Compiled, cached functions per kind of lattice (each compiles only where it runs),
# written out at module level: numba saves a closure to its cache but never loads it
# back in a new process (measured: the key holds the closure's cells), so the closures
# above are inlined into these. ``sched`` is ``(x_hi, width, lanes, spins, lead)``
# (``spins``: loads of the flag before a wait returns; ``lead``: see ``needed_step``),
# ``lattice`` the lattice's arguments (``_numba_engine._Inputs.args``), ``(x, c)``
# where to resume (``x = -1``: take a ticket).


@njit(nogil=True, cache=True)
def _strips_lean_2(sched, lattice, lams, col0, tops, words, bits, state, progress,
                   control, x, c):
    return _loop_lean_2(sched, lattice, lams, col0, tops, words, bits, state, progress,
                        control, x, c)


@njit(nogil=True, cache=True)
def _strips_lean_3(sched, lattice, lams, col0, tops, words, bits, state, progress,
                   control, x, c):
    return _loop_lean_3(sched, lattice, lams, col0, tops, words, bits, state, progress,
                        control, x, c)


@njit(nogil=True, cache=True)
def _strips_xauc(sched, lattice, lams, col0, tops, words, bits, state, progress, control,
                 x, c):
    return _loop_xauc(sched, lattice, lams, col0, tops, words, bits, state, progress,
                        control, x, c)


@njit(nogil=True, cache=True)
def _strips_prf(sched, lattice, lams, col0, tops, words, bits, state, progress, control,
                x, c):
    return _loop_prf(sched, lattice, lams, col0, tops, words, bits, state, progress,
                        control, x, c)


@njit(nogil=True, cache=True)
def _strips_urf(sched, lattice, lams, col0, tops, words, bits, state, progress, control,
                x, c):
    return _loop_urf(sched, lattice, lams, col0, tops, words, bits, state, progress,
                        control, x, c)


#: ``STRIPS[kind](sched, lattice, lams, col0, tops, words, bits, state, progress,
#: control, x, c)``: strips of a batch of lattices, one per lam (strip ``s`` of lattice
#: ``b`` is item ``x = s B + b``), taken from ``control[TICKET]`` until the ticket
#: reaches ``x_hi``; returns ``(-1, 0)`` when done or stopped, else ``(x, c)``: item
#: ``x`` waits at step ``c`` for the strip above.
STRIPS = (_strips_lean_2, _strips_lean_3, _strips_xauc, _strips_prf, _strips_urf)
