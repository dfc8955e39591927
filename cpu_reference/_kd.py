"""K-D xOrder: the DP over the whole K-dimensional lattice.

docs/design.md, section 4.

Cell ``x = (x_0, ..., x_{K-1})``: the first ``x_g`` items of every group g are placed.
The hyperplanes ``sum(x) = d`` play the role of the anti-diagonals: a cell needs only its
predecessors ``x - e_g`` on hyperplane ``d - 1``. One state buffer over the box positions
holds the counters of hyperplane d - 1 while d is decided (its new states are staged and
written back once the hyperplane is done: its cells still read positions it overwrites).

Layout: one axis, ``last`` (the largest group), is implicit. The cells of the box of the
other K - 1 axes are sorted once by their coordinate sum ``s`` (stable); on hyperplane d
the cell with box coordinates of sum s has ``x_last = d - s``, so hyperplane d is the
contiguous run of sorted box cells with ``d - n_last <= s <= d``. Counter buffers are
indexed by the sorted box position: the predecessor along ``last`` sits at the same
position, the one along another axis g at the precomputed position of the box cell minus
``e_g``. Nothing is searched per hyperplane.

Decisions: the axis of the chosen predecessor, ``0..K-1``, in ``ceil(log2 K)`` bit planes
per hyperplane, each packed with ``np.packbits`` (bit b of the axis in plane b).
Tie rule (docs/design.md, section 3.3): axes are scanned in increasing order and a
later axis replaces the best on ``>=``, so the highest group index wins equal G-hat.
"""

import numpy as np

from . import _kgroups as kg
from ._kobjective import KdObjective
from ._lattice import COUNTER_KINDS

#: Bytes of the candidates of the cells decided together on a hyperplane: small enough
#: for the CPU's cache (one pass over a whole hyperplane's candidates was slower).
CHUNK_BYTES = 2**20


def n_cells(sizes):
    """``prod(n_g + 1)``, as a Python int."""
    total = 1
    for n in sizes:
        total *= n + 1
    return total


class KdLayout:
    """Sorted box cells of the non-``last`` axes and their predecessor positions."""

    def __init__(self, sizes):
        k = len(sizes)
        self.last = int(np.argmax(sizes))
        self.axes = [g for g in range(k) if g != self.last]
        dims = [sizes[g] + 1 for g in self.axes]
        grids = np.indices(dims).reshape(len(dims), -1).astype(np.int64)
        sums = grids.sum(axis=0)
        order = np.argsort(sums, kind="stable")
        self.coords = {g: grids[a][order] for a, g in enumerate(self.axes)}
        self.sums = sums[order]
        rank = np.empty(order.size, dtype=np.int64)
        rank[order] = np.arange(order.size)
        self.rank = rank
        self.strides = {}
        stride = 1
        for a in range(len(dims) - 1, -1, -1):
            self.strides[self.axes[a]] = stride
            stride *= dims[a]
        flat_sorted = order
        # Position of the predecessor along axis g (clamped where x_g = 0; masked later).
        self.pred = {
            g: rank[np.maximum(flat_sorted - self.strides[g], 0)] for g in self.axes
        }
        self.n_last = sizes[self.last]

    def span(self, d):
        """Sorted positions ``[lo, hi)`` of hyperplane d."""
        lo = np.searchsorted(self.sums, d - self.n_last, side="left")
        hi = np.searchsorted(self.sums, d, side="right")
        return int(lo), int(hi)

    def box_position(self, x):
        flat = sum(int(x[g]) * self.strides[g] for g in self.axes)
        return int(self.rank[flat])


def _decide(prev, new, lo, hi, d, lay, obj, ys, negleft):
    """Decide the cells at sorted positions ``[lo, hi)`` of hyperplane d: write their
    states to ``new`` and return the chosen axes."""
    k, length = len(lay.axes) + 1, hi - lo
    x = [None] * k
    for g in lay.axes:
        x[g] = lay.coords[g][lo:hi]
    x[lay.last] = d - lay.sums[lo:hi]
    src = np.empty((k, length), dtype=np.int64)
    for g in range(k):
        src[g] = np.arange(lo, hi) if g == lay.last else lay.pred[g][lo:hi]
    # (rows, K, L) in C order: the predecessors (indices are valid: "clip" skips checks)
    cand = np.take(prev, src, axis=1, mode="clip")
    obj.add_gains(cand, x, ys, negleft)
    value = obj.values(cand)
    for g in range(k):
        np.copyto(value[g], -np.inf, where=x[g] < 1)  # no step along an axis at 0
    # the best; equal G-hat: the highest axis (a later axis wins on >=)
    choice = np.zeros(length, dtype=np.int64)
    best = value[0]
    for g in range(1, k):
        np.copyto(choice, g, where=value[g] >= best)
        np.maximum(best, value[g], out=best)
    np.take(cand.reshape(cand.shape[0], -1), choice * length + np.arange(length), axis=1,
            out=new, mode="clip")
    return choice


def fill_kd(prob, lam, progress=None):
    """Fill the K-D lattice; return ``(planes, final_C, final_U, layout)``.

    On hyperplane d every cell's K candidates (its predecessors along every axis, the
    step's gains added) are gathered side by side, ``(rows, K, cells)``, so that each
    NumPy call serves all axes and pairs; the chosen candidate's state is gathered back.
    """
    k, sizes = prob.k, prob.sizes
    cs = kg.build_constants(prob, tuple(range(k)))
    obj = KdObjective(prob, cs, lam)
    urf = COUNTER_KINDS[prob.metric].has_u
    n_p = len(obj.pairs)
    lay = KdLayout(sizes)
    nbits = max(1, (k - 1).bit_length())
    box = lay.sums.size
    prev = np.zeros((obj.n_rows, box))
    ys = [np.concatenate(([0.0], y.astype(np.float64))) for y in prob.ys]  # ys[g][x]: item x-1
    negleft = [nl.astype(np.float64) for nl in prob.negleft]
    planes = [None]
    total = n_cells(sizes)
    done = 1
    n_planes = sum(sizes)
    every = max(1, n_planes // 200)
    chunk = max(1, CHUNK_BYTES // (8 * obj.n_rows * k))
    widest = max(hi - lo for lo, hi in map(lay.span, range(1, n_planes + 1)))
    new = np.empty((obj.n_rows, widest))  # one hyperplane's states, staged
    for d in range(1, n_planes + 1):
        lo, hi = lay.span(d)
        choice = np.empty(hi - lo, dtype=np.int64)
        # chunks of cells keep the candidates in cache; the states go to `new` first,
        # as later chunks still read predecessors the hyperplane overwrites
        for c_lo in range(lo, hi, chunk):
            c_hi = min(hi, c_lo + chunk)
            out = slice(c_lo - lo, c_hi - lo)
            choice[out] = _decide(prev, new[:, out], c_lo, c_hi, d, lay, obj, ys, negleft)
        prev[:, lo:hi] = new[:, :hi - lo]
        planes.append(tuple(np.packbits(((choice >> b) & 1).astype(np.uint8))
                            for b in range(nbits)))
        done += hi - lo
        if progress is not None and (d % every == 0 or d == n_planes):
            progress(done, total)
    end = prev[:, lay.box_position(list(sizes))].astype(np.int64)
    final_c = {pair: int(end[row]) for pair, row in obj.row.items()}
    final_u = {}
    if urf:
        for p, (g, h) in enumerate(obj.pairs):
            # every pair of items of g and h is decided at the end
            both = prob.n_items(g) * prob.n_items(h)
            final_u[(g, h)] = (both + int(end[2 * n_p + p])) // 2
            final_u[(h, g)] = both - final_u[(g, h)]
    return planes, dict(sorted(final_c.items())), dict(sorted(final_u.items())), lay


def traceback_kd(planes, lay, sizes):
    """Group index of every rank, top first, read back from the last cell."""
    x = list(sizes)
    n = sum(sizes)
    path = np.empty(n, dtype=kg.group_dtype(len(sizes)))
    for d in range(n, 0, -1):
        lo, _ = lay.span(d)
        pos = lay.box_position(x) - lo
        byte, bit = divmod(pos, 8)
        g = 0
        for b, plane in enumerate(planes[d]):
            g |= ((int(plane[byte]) >> (7 - bit)) & 1) << b
        path[d - 1] = g
        x[g] -= 1
    return path


def solve_kd(prob, lam, progress=None):
    """``(path, C, U, constants)`` of the K-D DP."""
    planes, final_c, final_u, lay = fill_kd(prob, lam, progress)
    path = traceback_kd(planes, lay, prob.sizes)
    return path, final_c, final_u, kg.build_constants(prob, range(prob.k))
