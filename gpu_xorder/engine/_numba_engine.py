"""The numba engine: the compiled CPU fill of ``_numba_kernels`` behind the interface of
``_cupy_engine``.

docs/design.md, section 9.6. numba is imported only here, in ``_numba_kernels`` and
``_numba_tiles``, and only when a function of this module runs (``import gpu_xorder``
never loads it). The decisions, paths and counters are ``cpu_reference``'s, bit for bit;
what differs is speed. ``numba.get_num_threads()`` threads (``NUMBA_NUM_THREADS``,
``numba.set_num_threads``; Python threads, not numba's threading layer) fill the strips
of a lattice, and of a lam batch, each strip following the strip above
(:class:`_Wavefront`); the kernels release the GIL.

``progress(done, total)`` counts the cells of every lattice of the call (of both passes
for bands).
"""

import contextlib
import contextvars
import functools
import math
import threading
import time

import numpy as np

import cpu_reference as cr

from . import _plan
from ._kernel_source import METRIC_CODE

# The capabilities of ``_interface.Engine``.
NAME = "numba"
BATCHED_FILLS = True
WORKER_PROCESSES = False
OWN_MEMORY = False
MAX_OLD_GROUPS = None
MAX_KD_GROUPS = None
#: ``solver="auto"`` certifies lattices up to this many cells (about ten times the NumPy
#: fill's pace: ``_numpy_engine.CERTIFIED_CELLS``).
CERTIFIED_CELLS = 2.5e9
#: One fill with decision bits and its traceback, per cell, on one core of the 2-core
#: development machine (benchmarks/cpu_engines.py: 0.6-1.2 ns per cell filled, plus
#: the traceback).
FILL_SECONDS_PER_CELL = 1.5e-9

MSG_NO_NUMBA = "numba is not installed (pip install 'gpu-xorder[numba]'): {error}"
MSG_EDGES = ("edges of shapes {col0} and {row0}: expected ({k}, {n_a} + 1) and ({k}, {n_b} "
             "+ 1) or ({B}, {k}, {n_b} + 1)")

#: Rows per strip of a two-group lattice (or a first iterative step): one vectorised
#: loop covers a step's lanes; fewer lanes spend more of each step on its fixed cost,
#: more lanes more steps in each strip's ramps and fewer strips to share among threads
#: (benchmarks/RESULTS.md, issue #47: of 256 to 2048 rows, 512 ran fastest on one
#: thread).
LANES = 512

#: Rows per strip of a step with old groups: its lane passes keep ``3 m`` state rows
#: and 8 rows of scratch per lane, which should stay in the core's caches.
BLOCK_LANES = 128

#: Least cells of a batch filled by more than one thread.
PARALLEL_CELLS = 2 * 10**6

#: Steps of a strip per chunk when threads share the strips: a thread publishes its
#: progress after each chunk, and the strip below starts ``lanes + TILE_STEPS`` steps
#: behind it (fewer steps: more flag traffic and per-chunk cost; more: a longer start
#: and end of the pipeline).
TILE_STEPS = 128

#: Cells per kernel call, about (progress and interrupts are seen between calls; a
#: smaller lattice is one call).
CALL_CELLS = 5 * 10**7


@functools.lru_cache(maxsize=None)
def status():
    """``(usable, reason)``: whether numba imports (probed once per process)."""
    try:
        import numba
    except Exception as exc:  # ImportError, or a broken install
        return False, MSG_NO_NUMBA.format(error=exc)
    return True, f"numba {numba.__version__}"


def available():
    """Whether numba imports (``status``)."""
    return status()[0]


def smoke_test():
    """Compile the two-group fill and traceback (or load them from numba's cache) and
    solve a 2 x 2 lattice; raises if the engine cannot run here."""
    lat = cr.build_lattice(np.array([0.9, 0.8, 0.7, 0.6]), np.array([1, 0, 1, 0]),
                           np.array([0, 0, 1, 1]), "xauc", "absolute")
    solve(lat, [0.5])


def _kernels():
    from . import _numba_kernels

    return _numba_kernels


def _tiles():
    from . import _numba_tiles

    return _numba_tiles


def n_threads():
    """Threads a fill may use: ``numba.get_num_threads()``."""
    import numba

    return numba.get_num_threads()


# ------------------------------------------------------------------ inputs


class _Inputs:
    """The kernels' view of a lattice: float64 rows, constants, the state conversion
    (``StepObjective.to_state`` / ``from_state``) and the lam of each lattice with the
    signed term's orientation folded into its sign."""

    def __init__(self, lat):
        self.lat = lat
        # StepObjective refuses what the reference refuses (signed with m > 1); the state
        # conversion does not depend on lam
        self.obj = cr.StepObjective(lat, 0.0)
        m, n_a = lat.m, lat.n_a
        self.m, self.n_a, self.n_b = m, n_a, lat.n_b
        self.rows = self.obj.rows
        f = np.float64
        is_q = (lat.seq_q[None, :] == np.arange(m)[:, None]).astype(f)
        self.isq = np.zeros((m, n_a + 1))  # the row's weight on U in its group's row
        self.isq[:, 1:] = is_q * lat.u_a
        self.ypos = np.zeros((m, n_a + 1))  # column i: item i - 1
        self.ypos[:, 1:] = is_q * lat.y_a
        self.nla = np.ascontiguousarray(lat.negleft_a, dtype=f)
        self.la = np.ascontiguousarray(lat.left_a, dtype=f)
        self.a_wins = np.concatenate(([False], lat.a_wins_ties)).astype(np.bool_)
        self.ybr = np.ascontiguousarray(lat.y_b_rev, dtype=f)
        self.nlb = np.ascontiguousarray(lat.negleft_b_rev, dtype=f)
        self.lbr = np.ascontiguousarray(lat.left_b_rev, dtype=f)
        self.ubr = np.ascontiguousarray(lat.u_b_rev, dtype=f)
        c, k = lat.consts, _kernels()
        self.metric = METRIC_CODE[lat.metric]
        self.absolute = lat.mode == "absolute"
        self.ge = bool(lat.a_wins_ties.any())
        scalars = np.zeros(8)
        scalars[k.INV_AUC], scalars[k.S_CONST] = c.inv_auc, c.s_const
        scalars[k.W_B], scalars[k.INV_P_B], scalars[k.FLOOR] = c.w_b, c.inv_p_b, c.floor
        # m = 1 (StepObjective._lean): PRF state rows already hold w_a, w_b
        scalars[k.W] = 0.0 if m == 1 and lat.metric == "prf" else c.w
        if m == 1:  # the pair term's scales
            scalars[k.I_0], scalars[k.I_1] = self.obj.scales
        self.scalars = scalars
        self.per_q = np.ascontiguousarray(np.stack(
            [c.inv_qb, c.inv_bq, c.inv_u, c.row_const, c.w_q, c.inv_p]).astype(f))
        self.flip = self.obj.flip  # the signed term's orientation, carried by lam
        if m == 1:
            self.kind = k.LEAN_3 if cr.COUNTER_KINDS[lat.metric].has_u else k.LEAN_2
        else:
            self.kind = {"xauc": k.BLOCK_XAUC, "prf": k.BLOCK_PRF,
                         "urf": k.BLOCK_URF}[lat.metric]

    def lams(self, lams):
        lams = np.asarray(lams, dtype=np.float64).reshape(-1)
        return -lams if self.flip else lams.copy()

    def args(self):
        """The lattice arguments of the kernels, after the schedule's."""
        return (self.n_a, self.n_b, self.m, self.metric, self.absolute, self.ge,
                self.ypos, self.isq, self.nla, self.la, self.a_wins, self.ybr, self.nlb,
                self.lbr, self.ubr, self.scalars, self.per_q)

    def to_state(self, counters):
        return np.ascontiguousarray(self.obj.to_state(counters))

    @functools.cached_property
    def edges(self):
        """The states of the default edges (``edge_counters``): the first column
        ``(rows, n_a + 1)`` and the row above ``(rows, n_b + 1)``; the kernels only read
        them."""
        col0, row0 = cr.edge_counters(self.lat)
        return self.to_state(col0), self.to_state(row0)


#: Lattices whose inputs a session keeps, at most (a solve of the |D| solvers fills the
#: lattice, its signed twin and a few block lattices of the coarse start; a constrained
#: solve makes new ones for every lam it tries).
SESSION_LATTICES = 8

#: Within a :func:`session`: the kernels' inputs of every lattice filled (lattices are
#: frozen and hash by identity) and the host budgets read; None outside one.
_SESSION = contextvars.ContextVar("numba_engine_session", default=None)


@contextlib.contextmanager
def session():
    """Within it the fills of a lattice share its kernels' inputs (built once, with its
    edge states) and the host budget is read once: the many small fills of one solve
    of the |D| solvers paid both on every fill. Nested sessions share the outer one."""
    if _SESSION.get() is not None:
        yield
        return
    token = _SESSION.set(({}, {}))
    try:
        yield
    finally:
        _SESSION.reset(token)


def _inputs(lat):
    """``_Inputs(lat)``, built once per session."""
    cache = _SESSION.get()
    if cache is None:
        return _Inputs(lat)
    inputs = cache[0]
    if lat not in inputs:
        if len(inputs) >= SESSION_LATTICES:  # the oldest goes
            del inputs[next(iter(inputs))]
        inputs[lat] = _Inputs(lat)
    return inputs[lat]


def _host_budget(memory_limit):
    """``_plan.host_budget(memory_limit)``, read once per session."""
    cache = _SESSION.get()
    if cache is None:
        return _plan.host_budget(memory_limit)
    budgets = cache[1]
    if memory_limit not in budgets:
        budgets[memory_limit] = _plan.host_budget(memory_limit)
    return budgets[memory_limit]


# ------------------------------------------------------------------ fills


def fill(lat, lams, progress=None, *, edges=None, bits=True, bottom=False):
    """``cpu_reference.fill`` for a batch of lam values in one call.

    Parameters
    ----------
    lat : StepLattice
    lams : sequence of float
    progress : callable(done_cells, total_cells), optional
    edges : (col0, row0), optional
        int64 counters of the first column ``(K, n_a + 1)`` and of the row above
        ``(K, n_b + 1)`` or one per lam ``(B, K, n_b + 1)``; default
        ``edge_counters(lat)``.
    bits, bottom : bool
        As in ``cpu_reference.fill``.

    Returns
    -------
    words : ndarray of uint32, shape (B, n_words), or None
    final : ndarray of int64, shape (B, K)
    last_row : ndarray of int64, shape (B, K, n_b + 1)
        Only with ``bottom=True``.
    """
    # a band (edges given) is not kept: a session would hold every band's inputs
    inp = _Inputs(lat) if edges is not None else _inputs(lat)
    lam_values = inp.lams(lams)
    words, tops = _fill(inp, lam_values, edges, bits, progress)
    finals = np.stack([inp.obj.from_state(top[:, -1]) for top in tops])
    if not bottom:
        return words, finals
    j = np.arange(inp.n_b + 1)
    return words, finals, np.stack([inp.obj.from_state(top, j) for top in tops])


def final_counters(lat, lams):
    """int64 ``(len(lams), K)``: the counters of the last cell of each lam's fill, no
    decision bits kept (what the solvers' searches need)."""
    return fill(lat, lams, bits=False)[1]


def _fill(inp, lams, edges, bits, progress):
    """Decision words ``(B, n_words)`` (None without ``bits``) and the state of the last
    row of every lattice ``(B, rows, n_b + 1)``."""
    n_a, n_b, B = inp.n_a, inp.n_b, lams.size
    if edges is None:
        col0, top = inp.edges
        tops = np.repeat(top[None], B, axis=0)
    else:
        col0, row0 = np.asarray(edges[0]), np.asarray(edges[1])
        k = inp.lat.n_counters
        # the kernels index without bounds checks
        if col0.shape != (k, n_a + 1) or row0.shape not in ((k, n_b + 1),
                                                              (B, k, n_b + 1)):
            raise ValueError(MSG_EDGES.format(col0=col0.shape, row0=row0.shape, k=k,
                                              n_a=n_a, n_b=n_b, B=B))
        col0 = inp.to_state(col0)
        if row0.ndim == 2:
            tops = np.repeat(inp.to_state(row0)[None], B, axis=0)
        else:
            tops = np.ascontiguousarray(np.stack([inp.to_state(r) for r in row0]))
    words = np.zeros((B, cr.n_words(n_a, n_b) if bits else 1), dtype=np.uint32)
    big = B * (n_a + 1) * (n_b + 1) >= PARALLEL_CELLS
    threads = n_threads() if big else 1
    _Wavefront(inp, lams, threads).run(col0, tops, words, bits, progress)
    tops[:, :, 0] = col0[None, :, n_a]
    return (words if bits else None), tops


def _round_up(n, k):
    return -(-n // k) * k


def _on_lines(shape, dtype, line=64):
    """``np.zeros(shape, dtype)`` starting on a cache line (of ``line`` bytes)."""
    n = math.prod(shape) if isinstance(shape, tuple) else int(shape)
    item = np.dtype(dtype).itemsize
    buf = np.zeros(n + line // item, dtype=dtype)
    skip = (-buf.__array_interface__["data"][0] % line) // item
    return buf[skip:skip + n].reshape(shape)


class _Wavefront:
    """The strip pipeline of a batch of lattices (docs/design.md, section 9.6).

    Strip ``s`` (rows ``s lanes + 1 ..``) of lattice ``b`` is item ``x = s B + b``;
    the items are taken in order from a ticket (``_numba_tiles.STRIPS``). One thread
    walks whole strips, in calls of about ``CALL_CELLS`` cells (progress and interrupts
    are seen between calls). ``threads`` threads run the strips in chunks of
    ``width = TILE_STEPS`` steps: chunk ``[c, c + width)`` of strip ``s`` waits until
    strip ``s - 1`` has published step ``min(c + width - 1, n_b) + lanes - 1`` (which
    writes the last row-buffer column the chunk reads). A strip only writes columns
    ``lanes - 1`` steps behind the ones it reads, and the strip below reads a column
    only after it is written, so each column is written, read, overwritten in order.
    """

    def __init__(self, inp, lams, threads):
        self.inp, self.lams = inp, lams
        self.lanes = lanes = LANES if inp.m == 1 else BLOCK_LANES
        self.n_strips = -(-inp.n_a // lanes)
        self.n_items = self.n_strips * lams.size
        self.threads = max(1, min(threads, self.n_items))
        steps = inp.n_b + min(lanes, inp.n_a) - 1  # of the longest strip
        self.width = steps if self.threads == 1 else min(steps, TILE_STEPS)
        self.kernel = _tiles().STRIPS[inp.kind]

    def run(self, col0, tops, words, bits, progress):
        inp, B, tiles = self.inp, self.lams.size, _tiles()
        # each strip's lane buffer on cache lines of its own: the threads write the
        # ends of neighbouring strips' buffers at every step, and a line shared by two
        # of them bounced between their cores (benchmarks/RESULTS.md, issue #47)
        state = _on_lines((B, self.n_strips, 2, inp.rows, _round_up(self.lanes + 1, 8)),
                          np.float64)
        # a strip's published step, one cache line per strip; the ticket, the stop flag
        flags = _on_lines(self.n_items * tiles.SLOT, np.int64)
        control = _on_lines(2 * tiles.SLOT, np.int64)
        args = (self.inp.args(), self.lams, col0, tops, words, bits, state, flags, control)
        cells = (inp.n_a + 1) * (inp.n_b + 1) * B
        if self.threads == 1:
            per_call = max(1, int(self.n_items * CALL_CELLS // cells))
            for lo in range(0, self.n_items, per_call):
                hi = min(lo + per_call, self.n_items)
                control[tiles.TICKET] = lo  # before the call: no thread runs
                self.kernel((hi, self.width, self.lanes, SPINS, 0), *args, -1, 0)
                if progress is not None:
                    progress(cells * hi // self.n_items, cells)
            return
        sched = (self.n_items, self.width, self.lanes, SPINS, LEAD_STEPS)
        errors = []
        workers = [threading.Thread(target=_work, args=(self.kernel, sched, args, errors),
                                    daemon=True) for _ in range(self.threads)]
        steps = B * sum(inp.n_b + min(self.lanes, inp.n_a - s * self.lanes) - 1
                        for s in range(self.n_strips))
        try:
            for worker in workers:
                worker.start()
            for worker in workers:
                while worker.is_alive():
                    worker.join(PROGRESS_SECONDS)
                    if progress is not None and worker.is_alive():
                        done = tiles.steps_done(flags, self.n_items)
                        progress(cells * done // steps, cells)
        except BaseException:  # Ctrl-C: the threads stop after their chunk
            tiles.stop(control)
            for worker in workers:
                if worker.ident is not None:
                    worker.join()
            raise
        if errors:
            raise errors[0]
        if progress is not None:
            progress(cells, cells)


#: Steps a strip stays behind what it needs of the strip above (``_numba_tiles.
#: needed_step``): with none, the strip below waits at almost every chunk (its start
#: leaves it no margin) and spins; two chunks absorb the threads' jitter.
LEAD_STEPS = 2 * TILE_STEPS

#: Loads of the flag of the strip above a waiting thread spins on before it returns to
#: sleep (``NAPS``): a few microseconds (a chunk of 128 steps of 512 lanes is about
#: 30 us on one core).
SPINS = 2000

#: Seconds between progress reports of a threaded fill.
PROGRESS_SECONDS = 0.05

#: Sleeps of a thread waiting for the strip above, after its spin (seconds): short
#: first, longer while the wait goes on (a machine with more runnable threads than
#: cores), back to short once it moved on.
NAPS = (0.0, 2e-5, 5e-5, 1e-4, 2e-4)


def _work(kernel, sched, args, errors):
    """One thread of a threaded fill: strips until none is left (sleeping between the
    kernel's spins while it waits for the strip above)."""
    try:
        x, c = -1, 0
        naps = 0
        while True:
            at = (x, c)
            x, c = kernel(sched, *args, x, c)
            if x < 0:
                return
            naps = naps + 1 if (x, c) == at else 0
            time.sleep(NAPS[min(naps, len(NAPS) - 1)])
    except BaseException as exc:  # the others must not wait for this thread's strips
        errors.append(exc)
        _tiles().stop(args[-1])


# ------------------------------------------------------------------ solves


def traceback(words, n_a, n_b):
    """``cpu_reference.traceback``, compiled."""
    return _kernels().traceback(np.ascontiguousarray(words, dtype=np.uint32), n_a, n_b)


class _Walker(cr.HostWalker):
    """``cpu_reference._banded.HostWalker`` on the compiled walk."""

    def walk_band(self, words, rows, j, path, k):
        _, j, k = _kernels().walk(words, rows, self.n_b, j, path, k)
        return j, k


def band_fill(lams):
    """The ``fill_band`` of ``cpu_reference.solve_banded``: every lam's band in one
    call."""
    def fill_band(band, col0, top, bits):
        words, final, last = fill(band, lams, edges=(col0, top), bits=bits, bottom=True)
        return words, final, last
    return fill_band


def solve(lat, lams, progress=None, memory_limit=None, n_jobs=None):
    """``([(path, final_counters), ...], band_rows)``, one per lam value, of a
    ``StepLattice`` (two groups, or an iterative step). ``n_jobs`` is the NumPy engine's:
    this one fills with ``n_threads()`` threads.

    Whole lattices, as many at once as their decision bits fit the host budget
    (``memory_limit`` bytes, default a share of the available memory,
    ``_plan.host_budget``); else bands of rows with counter checkpoints
    (``cpu_reference.solve_banded``), ``band_rows`` then not None. ``MemoryError`` when
    not even 32-row bands fit.
    """
    lams = np.asarray(lams, dtype=np.float64).reshape(-1)
    n_a, n_b, B = lat.n_a, lat.n_b, lams.size
    budget, source = _host_budget(memory_limit)
    per_lattice = cr.n_words(n_a, n_b) * 4
    if budget is None or per_lattice <= budget:
        at_once = B if budget is None else max(1, min(B, budget // per_lattice))
        out = []
        for start in range(0, B, at_once):
            part = lams[start:start + at_once]
            report = _offset(progress, start * lat.n_cells, B * lat.n_cells)
            words, finals = fill(lat, part, report)
            out += [(traceback(w, n_a, n_b), f) for w, f in zip(words, finals)]
        return out, None
    for at_once in range(B, 0, -1):
        band_rows = cr.plan_bands(n_a, n_b, budget, lat.n_counters, at_once)
        if band_rows is not None:
            break
    else:
        least = cr.least_banded_bytes(n_a, n_b, lat.n_counters)
        raise MemoryError(_plan.MSG_HOST_MEMORY.format(
            n_a=n_a, n_b=n_b, budget=budget / 2**30, source=source, least=least / 2**30))
    out = []
    for start in range(0, B, at_once):
        part = lams[start:start + at_once]
        report = None if progress is None else _Scaled(progress, start, part.size, B)
        out += cr.solve_banded(lat, part.size, band_rows, band_fill(part), report,
                               _Walker(lat, part.size))
    return out, band_rows


def _offset(progress, offset, total):
    if progress is None:
        return None
    return lambda done, _: progress(offset + done, total)


class _Scaled:
    """Progress of ``solve_banded`` on lattices ``start .. start + n - 1`` of ``B``
    (it counts the cells of one lattice; every lattice of its batch moves together)."""

    def __init__(self, progress, start, n, B):
        self.progress, self.start, self.n, self.B = progress, start, n, B

    def __call__(self, done, total):
        self.progress(self.start * total + self.n * done, self.B * total)


def solve_step(lat, lam, progress=None):
    """``(path, final)`` of one lattice (an iterative step): the ``solve`` of
    ``cpu_reference.solve_iterative``."""
    (solution,), _ = solve(lat, [lam], progress)
    return solution


def dp_orders(scores, group_index, k):
    """None: ``cpu_reference.build_lattice`` sorts the groups itself."""
    return None


def solve_multi(prob, lam, method, progress=None):
    """K-D (``method="kd"``, on the NumPy reference) or iterative xOrder of ``prob`` (its
    steps on the compiled fill), returned as the NumPy solvers return them."""
    if method == "kd":
        return cr.solve_kd(prob, lam, progress)
    return cr.solve_iterative(prob, lam, progress, solve=solve_step)
