"""K-D xOrder: the exact DP over the K-dimensional lattice (DESIGN section 4).

Cell ``x = (x_0, ..., x_{K-1})``: the first ``x_g`` items of every group g are placed.
The hyperplanes ``sum(x) = d`` play the role of the anti-diagonals: a cell needs only its
predecessors ``x - e_g`` on hyperplane ``d - 1``, so counters of two hyperplanes are kept.

Layout: one axis, ``last`` (the largest group), is implicit. The cells of the box of the
other K - 1 axes are sorted once by their coordinate sum ``s`` (stable); on hyperplane d
the cell with box coordinates of sum s has ``x_last = d - s``, so hyperplane d is the
contiguous run of sorted box cells with ``d - n_last <= s <= d``. Counter buffers are
indexed by the sorted box position: the predecessor along ``last`` sits at the same
position, the one along another axis g at the precomputed position of the box cell minus
``e_g``. Nothing is searched per hyperplane.

Decisions: the axis of the chosen predecessor, ``0..K-1``, in ``ceil(log2 K)`` bit planes
per hyperplane, each packed with ``np.packbits`` (bit b of the axis in plane b).
Tie rule (DESIGN section 3): axes are scanned in increasing order and a later axis
replaces the best on ``>=``, so the highest group index wins equal G-hat.
"""

import numpy as np

from . import _kgroups as kg


def n_cells(sizes):
    """``prod(n_g + 1)``, as a Python int."""
    total = 1
    for n in sizes:
        total *= n + 1
    return total


class _Layout:
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


def fill_kd(prob, lam, progress=None):
    """Fill the K-D lattice; return ``(planes, final_C, final_U, layout)``."""
    k, sizes, metric, mode = prob.k, prob.sizes, prob.metric, prob.mode
    members = tuple(range(k))
    cs = kg.build_constants(prob, members)
    pairs = kg.ordered_pairs(members)
    lay = _Layout(sizes)
    nbits = max(1, (k - 1).bit_length())
    box = lay.sums.size
    urf = metric == "urf"
    prev_c = {p: np.zeros(box, dtype=np.int64) for p in pairs}
    prev_u = {p: np.zeros(box, dtype=np.int64) for p in pairs} if urf else {}
    planes = [None]
    total = n_cells(sizes)
    done = 1
    n_planes = sum(sizes)
    every = max(1, n_planes // 200)
    for d in range(1, n_planes + 1):
        lo, hi = lay.span(d)
        x = {g: lay.coords[g][lo:hi] for g in lay.axes}
        x[lay.last] = d - lay.sums[lo:hi]
        best = np.full(hi - lo, -np.inf)
        dec = np.zeros(hi - lo, dtype=np.uint8)
        new_c = {p: np.empty(hi - lo, dtype=np.int64) for p in pairs}
        new_u = {p: np.empty(hi - lo, dtype=np.int64) for p in pairs} if urf else {}
        for g in range(k):
            valid = x[g] >= 1
            src = (np.arange(lo, hi) if g == lay.last else lay.pred[g][lo:hi])
            cand_c = {p: v[src] for p, v in prev_c.items()}
            cand_u = {p: v[src] for p, v in prev_u.items()}
            # Step along g places item x_g - 1 of g above every item not yet placed.
            y_item = prob.ys[g][np.maximum(x[g] - 1, 0)]
            for h in members:
                if h == g:
                    continue
                cand_c[(g, h)] += y_item * prob.negleft[h][x[h]]
                if urf:
                    cand_u[(g, h)] += sizes[h] - x[h]
            value = kg.ghat(cand_c, cand_u, cs, lam, metric, mode)
            take = valid & (value >= best)
            best = np.where(take, value, best)
            dec[take] = g
            for p in pairs:
                np.copyto(new_c[p], cand_c[p], where=take)
                if urf:
                    np.copyto(new_u[p], cand_u[p], where=take)
        planes.append(tuple(np.packbits((dec >> b) & 1) for b in range(nbits)))
        for p in pairs:
            prev_c[p][lo:hi] = new_c[p]
            if urf:
                prev_u[p][lo:hi] = new_u[p]
        done += hi - lo
        if progress is not None and (d % every == 0 or d == n_planes):
            progress(done, total)
    end = lay.box_position([n for n in sizes])
    final_c = {p: int(v[end]) for p, v in prev_c.items()}
    final_u = {p: int(v[end]) for p, v in prev_u.items()}
    return planes, final_c, final_u, lay


def traceback_kd(planes, lay, sizes):
    """Group index of every rank, top first, read back from the last cell."""
    x = list(sizes)
    n = sum(sizes)
    path = np.empty(n, dtype=np.int8)
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
    """``(path, C, U, constants)`` of the exact K-D DP."""
    planes, final_c, final_u, lay = fill_kd(prob, lam, progress)
    path = traceback_kd(planes, lay, prob.sizes)
    return path, final_c, final_u, kg.build_constants(prob, range(prob.k))
