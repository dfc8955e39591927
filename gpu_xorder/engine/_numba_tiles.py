"""The tiled wavefront of the compiled CPU fill: tile diagonals of a batch of lattices
in one call, on numba's threads or in the calling thread.

docs/design.md, section 9.6. A tile is a range of steps of one strip, run by
``_numba_kernels.SEGMENTS``; ``_numba_engine._Wavefront`` plans the tiles (tile ``(s,
k)`` on diagonal ``k + skew s``) and calls ``TILES`` (the tiles of a diagonal in a
``prange``: numba's threads meet once per diagonal) or ``TILES_SERIAL`` (a plain loop
that never enters numba's threading layer: one thread, or a forked child). Imported
only by ``_numba_engine``, and only when that engine runs.
"""

from numba import njit, prange

from ..utils._metrics import METRIC_NAMES
from ._numba_kernels import SEGMENTS


@njit(nogil=True)
def tile_diagonal(d, n_strips, n_tiles, skew):
    """``(s_lo, count)``: the tiles ``(s, d - skew s)`` of tile diagonal ``d``, ``s =
    s_lo .. s_lo + count - 1`` (tile ``(s, k)``: steps ``k width + 1 .. (k + 1) width``
    of strip ``s``)."""
    s_lo = max(0, -((n_tiles - 1 - d) // skew))
    s_hi = min(n_strips - 1, d // skew)
    return s_lo, max(0, s_hi - s_lo + 1)


def _tile_rounds(segment, parallel, name):
    """The tile diagonals of a batch of lattices around one kind's segment function:
    the tiles of a diagonal in a ``prange`` (``parallel``: numba's threads, meeting once
    per diagonal), else in a plain loop that never enters numba's threading layer.

    Named ``name``: numba names a function's machine code by its qualified name, which
    every closure of this factory would share, and a process loading the cached
    callers of two of them linked one kind's rounds to the other's (wrong counters, a
    corrupted heap)."""

    def rounds(d_lo, d_hi, n_strips, n_tiles, skew, width, lanes, n_a, n_b, m, metric,
               absolute, ge, ypos, isq, nla, la, a_wins, ybr, nlb, lbr, ubr, scalars,
               per_q, lams, col0, tops, words, bits, state):
        n_lat = lams.size
        for d in range(d_lo, d_hi):
            s_lo, count = tile_diagonal(d, n_strips, n_tiles, skew)
            for x in prange(n_lat * count):
                b = x // count
                s = s_lo + x % count
                c_lo = 1 + (d - skew * s) * width
                c_hi = min(c_lo + width, n_b + min(lanes, n_a - s * lanes))
                if c_lo < c_hi:
                    segment(s, c_lo, c_hi, lanes, n_a, n_b, m, metric, absolute, ge, ypos,
                            isq, nla, la, a_wins, ybr, nlb, lbr, ubr, scalars, per_q,
                            lams[b], col0, tops[b], words[b], bits, state[b, s])

    rounds.__name__ = rounds.__qualname__ = name
    return njit(parallel=parallel, nogil=True, boundscheck=False)(rounds)


_KINDS = ("lean_2", "lean_3") + METRIC_NAMES  # the order of SEGMENTS
(_rounds_lean_2, _rounds_lean_3, _rounds_xauc, _rounds_prf, _rounds_urf) = (
    _tile_rounds(f, True, f"_rounds_{kind}") for f, kind in zip(SEGMENTS, _KINDS))
(_serial_lean_2, _serial_lean_3, _serial_xauc, _serial_prf, _serial_urf) = (
    _tile_rounds(f, False, f"_serial_{kind}") for f, kind in zip(SEGMENTS, _KINDS))


# Compiled, cached functions per kind of lattice, on numba's threads (``TILES``) or in
# the calling thread (``TILES_SERIAL``, which never enters numba's threading layer and
# compiles only where it runs): ``sched`` is ``(d_lo, d_hi, n_strips, n_tiles, skew,
# width, lanes)``, ``lattice`` the lattice's arguments (``_numba_engine._Inputs.args``).


@njit(nogil=True, cache=True)
def _tiles_lean_2(sched, lattice, lams, col0, tops, words, bits, state):
    _rounds_lean_2(*sched, *lattice, lams, col0, tops, words, bits, state)


@njit(nogil=True, cache=True)
def _serial_tiles_lean_2(sched, lattice, lams, col0, tops, words, bits, state):
    _serial_lean_2(*sched, *lattice, lams, col0, tops, words, bits, state)


@njit(nogil=True, cache=True)
def _tiles_lean_3(sched, lattice, lams, col0, tops, words, bits, state):
    _rounds_lean_3(*sched, *lattice, lams, col0, tops, words, bits, state)


@njit(nogil=True, cache=True)
def _serial_tiles_lean_3(sched, lattice, lams, col0, tops, words, bits, state):
    _serial_lean_3(*sched, *lattice, lams, col0, tops, words, bits, state)


@njit(nogil=True, cache=True)
def _tiles_xauc(sched, lattice, lams, col0, tops, words, bits, state):
    _rounds_xauc(*sched, *lattice, lams, col0, tops, words, bits, state)


@njit(nogil=True, cache=True)
def _serial_tiles_xauc(sched, lattice, lams, col0, tops, words, bits, state):
    _serial_xauc(*sched, *lattice, lams, col0, tops, words, bits, state)


@njit(nogil=True, cache=True)
def _tiles_prf(sched, lattice, lams, col0, tops, words, bits, state):
    _rounds_prf(*sched, *lattice, lams, col0, tops, words, bits, state)


@njit(nogil=True, cache=True)
def _serial_tiles_prf(sched, lattice, lams, col0, tops, words, bits, state):
    _serial_prf(*sched, *lattice, lams, col0, tops, words, bits, state)


@njit(nogil=True, cache=True)
def _tiles_urf(sched, lattice, lams, col0, tops, words, bits, state):
    _rounds_urf(*sched, *lattice, lams, col0, tops, words, bits, state)


@njit(nogil=True, cache=True)
def _serial_tiles_urf(sched, lattice, lams, col0, tops, words, bits, state):
    _serial_urf(*sched, *lattice, lams, col0, tops, words, bits, state)


#: ``TILES[kind](sched, lattice, lams, col0, tops, words, bits, state)``: tile diagonals
#: ``d_lo .. d_hi - 1`` of a batch of lattices, one per lam (``_tile_rounds``), the tiles
#: of a diagonal on numba's threads; ``TILES_SERIAL[kind]``: the same in this thread.
TILES = (_tiles_lean_2, _tiles_lean_3, _tiles_xauc, _tiles_prf, _tiles_urf)
TILES_SERIAL = (_serial_tiles_lean_2, _serial_tiles_lean_3, _serial_tiles_xauc,
                _serial_tiles_prf, _serial_tiles_urf)
