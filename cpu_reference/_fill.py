"""The anti-diagonal fill of a 2-D lattice (docs/design.md, section 3.6).

One fill serves every 2-D lattice: the two-group lattice and every step of iterative
xOrder (``_lattice.StepLattice``); what differs, the state a cell keeps, its step gains
and G-hat, is the lattice's objective (``_objective.StepObjective``).

Layout
------
The state rows of diagonal ``d`` live in a buffer row indexed by ``i - max(0, d - n_b)``,
edge cells included, so that the a-predecessors ``(i - 1, j)`` and b-predecessors
``(i, j - 1)`` of the next diagonal are two overlapping windows of it: one strided view
of shape ``(R, 2, L)`` reads both. The objective writes the candidates of every cell
into a view of the same shape whose b-candidates are the next diagonal's row and whose
a-candidates lie just before it (each row has a lead of scratch columns), so each row's
two candidates are one contiguous block and choosing the winners is one masked copy of
the a-candidates.

Diagonal lengths are rounded up to a multiple of ``PAD`` (or of the longest diagonal,
when shorter) so that every view the step needs is made once per rounded length, not
once per diagonal: NumPy's fixed cost per
call, not arithmetic, limits the fill at these diagonal lengths. The padded lanes
compute on finite leftovers and are never read back: their decisions are cleared and
their counters lie beyond the cells the next diagonal reads.
"""

import numpy as np

from ._bits import DiagonalPacker
from ._lattice import edge_counters
from ._objective import PAD, StepObjective


def fill(lat, lam, progress=None, *, edges=None, bits=True, bottom=False):
    """Fill the lattice; return ``(words, final_counters)`` (and the bottom row).

    Parameters
    ----------
    lat : StepLattice
    lam : float
    progress : callable(done_cells, total_cells), optional
        Called every few diagonals.
    edges : (col0, row0), optional
        int64 counters of the cells ``(i, 0)`` (shape ``(K, n_a + 1)``) and ``(0, j)``
        (shape ``(K, n_b + 1)``); default ``edge_counters(lat)``. A band of rows of a
        larger lattice (``_banded``) passes its first column and the bottom row of the
        band above.
    bits : bool, default=True
        False: decide every cell but keep no decision bits (``words`` is None).
    bottom : bool, default=False
        Also return the int64 counters of the last row, cells ``(n_a, j)``, shape
        ``(K, n_b + 1)``.

    Returns
    -------
    words : ndarray of uint32 or None
        Decision bits (layout of ``_bits``).
    final : ndarray of int64, shape (K,)
        Counters of the last cell ``(n_a, n_b)``.
    last_row : ndarray of int64, shape (K, n_b + 1)
        Only with ``bottom=True``.
    """
    n_a, n_b = lat.n_a, lat.n_b
    if edges is None:
        edges = edge_counters(lat)
    obj = StepObjective(lat, lam)
    col0, row0 = (np.ascontiguousarray(obj.to_state(e).T) for e in edges)
    longest = min(n_a, n_b)
    # a lattice whose diagonals are shorter than PAD pads them to its longest, not to
    # PAD: a narrow iterative step (a small group against a long sequence) would
    # otherwise compute PAD lanes for a handful of cells
    pad = min(PAD, max(1, longest))
    decide = obj.decider(longest)
    r = obj.rows
    width = longest + 2 + PAD
    lead = longest + PAD  # at least any padded diagonal length
    item = 8
    # Row k of bufs[p] holds, from column ``lead`` on, state row k of a diagonal; the
    # a-candidates of the next one are written just before it, so that each row's two
    # candidates form one contiguous block (a-candidates, then the new state).
    bufs = [np.zeros((r, lead + width)) for _ in range(2)]
    bufs[0][:, lead] = row0[0]  # cell (0, 0)
    states = [b[:, lead:] for b in bufs]
    preds = [np.ndarray((r, 2, width - 1), dtype=np.float64, buffer=b,
                        offset=lead * item, strides=(b.strides[0], item, item))
             for b in bufs]
    # views[parity][off]: padded length -> (predecessors, candidate views)
    views = [[{}, {}], [{}, {}]]
    packer = DiagonalPacker(n_a, n_b, pad=PAD) if bits else _Discard(longest + PAD)
    last = np.empty((n_b + 1, r)) if bottom else None
    stage_row, end_diagonal = packer.row, packer.end_diagonal
    n_diag = n_a + n_b
    every = max(1, n_diag // 200)
    cur = 0
    for d in range(1, n_diag + 1):
        # diagonal d - 1 is in bufs[cur]; diagonal d goes to bufs[1 - cur], cell (i, d - i)
        # at column i - max(0, d - n_b)
        off = 1 if d <= n_b else 0
        i_lo = d - n_b if d > n_b else 1
        length = (n_a if d > n_a else d - 1) - i_lo + 1
        nxt = states[1 - cur]
        if length > 0:
            padded = -(-length // pad) * pad
            v = views[cur][off].get(padded)
            if v is None:
                # cand[k, 1] = nxt[k, off:off + padded], cand[k, 0] just before it
                buf = bufs[1 - cur]
                cand = np.ndarray((r, 2, padded), dtype=np.float64, buffer=buf,
                                  offset=(lead + off - padded) * item,
                                  strides=(buf.strides[0], padded * item, item))
                v = (obj.pred_views(preds[cur][:, :, :padded]), obj.candidate_views(cand))
                views[cur][off][padded] = v
            dec = stage_row(d, i_lo, i_lo + padded - 1)
            decide(v[0], v[1], i_lo, n_b - d + i_lo, padded, dec)
            dec[length:] = False
            end_diagonal()
        if off:
            nxt[:, 0] = row0[d]
        if d <= n_a:
            nxt[:, off + length] = col0[d]
        if last is not None and d >= n_a:
            last[d - n_a] = nxt[:, n_a - (d - n_b if d > n_b else 0)]
        cur = 1 - cur
        if progress is not None and (d % every == 0 or d == n_diag):
            progress(_cells_through(d, n_a, n_b), lat.n_cells)
    packer.flush()
    final = obj.from_state(states[cur][:, 0])
    if last is None:
        return packer.words, final
    return packer.words, final, obj.from_state(last.T, np.arange(n_b + 1))


class _Discard:
    """Packer interface of ``DiagonalPacker`` that keeps no bits (``fill(bits=False)``)."""

    words = None

    def __init__(self, length):
        self._row = np.zeros(length, dtype=bool)

    def row(self, d, i_lo, i_hi):
        return self._row[:i_hi - i_lo + 1]

    def end_diagonal(self):
        pass

    def flush(self):
        pass


def _cells_through(d, n_a, n_b):
    """Cells on the anti-diagonals ``0..d`` of an ``(n_a + 1) x (n_b + 1)`` lattice."""
    i = np.arange(n_a + 1)
    return int(np.clip(d - i + 1, 0, n_b + 1).sum())
