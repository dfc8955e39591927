"""Iterative xOrder: merge the groups one at a time by 2-D DPs.

docs/design.md, section 4.

Merge order: largest group first, equal sizes in increasing group index
(:func:`merge_order`). Step t is a 2-D lattice (``_lattice.StepLattice``) whose first axis is
the sequence merged so far (its items keep their group and label) and whose second axis
is the next group ``b``, filled by the one 2-D fill (``_fill``). Its objective
(``_objective.StepObjective``) is the K-group G-hat restricted to the groups merged so
far plus ``b``: pairs decided inside the merged sequence are constants from the first
cell, only the counters ``C/U[g][b]`` and ``C/U[b][g]`` vary over the lattice.

Tie rule: on equal G-hat the step that places the item of the higher group index wins,
the rule of the 2-D and K-D DPs; with two groups the iteration therefore is exactly the
2-D DP (same decisions, same counters) whichever group is merged first.
"""

import functools

import numpy as np

from . import _kgroups as kg
from ._fill import fill
from ._kobjective import kgroup_disparity
from ._lattice import COUNTER_KINDS, step_of
from ._traceback import traceback


def merge_order(sizes):
    """Group indices, largest group first; equal sizes: lower group index first."""
    return sorted(range(len(sizes)), key=lambda g: (-sizes[g], g))


def step_shapes(sizes):
    """``[(merged, n_b), ...]``: the lattice of every step, ``merged`` items of the
    groups merged so far against the ``n_b`` items of the group merged next."""
    order = merge_order(sizes)
    shapes, merged = [], sizes[order[0]]
    for b in order[1:]:
        shapes.append((merged, sizes[b]))
        merged += sizes[b]
    return shapes


def total_cells(sizes):
    """Cells of all steps together (for progress reports)."""
    return sum((m + 1) * (n + 1) for m, n in step_shapes(sizes))


class MergedSums:
    """What a step reads of the pairs among the groups merged so far, kept up to date
    step by step (O(K) per step; summing all their counters anew costs O(K^2) a step):
    ``total``, the sum of their C; ``row[g]``, R_g = sum over merged h of C[g][h]
    (exact ints); ``floor``, the largest |term| of those pairs (xAUC and URF; 0.0 for
    PRF, whose terms all move with b)."""

    def __init__(self, prob, cs, old, const_c, const_u):
        self.metric = prob.metric
        self.total = sum(const_c[(g, h)] for g in old for h in old if g != h)
        self.row = {g: sum(const_c[(g, h)] for h in old if h != g) for g in old}
        pairs = [(g, h) for g, h in kg.ordered_pairs(old) if g < h]
        self.floor = (float(kgroup_disparity(const_c, const_u, cs, prob.metric, "absolute",
                                             pairs))
                      if pairs and prob.metric != "prf" else 0.0)

    def add(self, cs, old, b, fc, fu):
        """Take in the pairs of ``b`` with the groups ``old`` (their final counters
        ``fc``/``fu``, constants ``cs``) after the step that merged b."""
        self.total += sum(fc.values())
        for q in old:
            self.row[q] += fc[(q, b)]
        self.row[b] = sum(fc[(b, q)] for q in old)
        if self.metric != "prf":
            pairs = [(min(q, b), max(q, b)) for q in old]
            # the maximum of the same terms as MergedSums(...) computes: the same float
            self.floor = max(self.floor, float(kgroup_disparity(
                fc, fu, cs, self.metric, "absolute", pairs)))


def step_lattice(prob, cs, seq_g, seq_y, b, const_c, const_u, sums=None, seq_w=None):
    """The :class:`~._lattice.StepLattice` of the step merging group ``b`` into the
    sequence ``(seq_g, seq_y)`` (``cs``: constants of the groups merged so far plus b;
    ``const_c``/``const_u``: final counters of the pairs among the old groups, or
    ``sums``, their :class:`MergedSums`; ``seq_w``: the items of every entry of the
    sequence, a problem of runs; docs/design.md, section 4)."""
    if sums is None:
        sums = MergedSums(prob, cs, [g for g in cs.members if g != b], const_c, const_u)
    # xAUC and URF terms of pairs without b are the same in every cell: their maximum
    # (sums.floor) is computed once. A PRF term reads R_g, which includes C[g][b], so
    # every pair moves.
    return step_of(prob, cs, seq_g, seq_y, b, sums.total, sums.row, sums.floor, seq_w)


def step_counters(lat, final):
    """``(C, U)`` dicts of the pairs with b from a step's final counters (the
    ``StepLattice`` layout)."""
    m, values = lat.m, [int(v) for v in np.asarray(final)]
    c, u = {}, {}
    for q, g in enumerate(lat.old):
        c[(g, lat.b)], c[(lat.b, g)] = values[q], values[m + q]
        if COUNTER_KINDS[lat.metric].has_u:
            u[(g, lat.b)], u[(lat.b, g)] = values[2 * m + q], values[3 * m + q]
    return c, u


def solve_lattice(lat, lam, progress=None):
    """``(path, final)`` of one 2-D lattice by the NumPy fill and traceback."""
    words, final = fill(lat, lam, progress)
    return traceback(words, lat.n_a, lat.n_b), final


def merge_step(seq_g, seq_y, steps, b, y_b, seq_w=None, w_b=None):
    """The merged sequence after a step: ``steps`` True takes the next merged item;
    with ``seq_w`` and ``w_b`` (the items of every row, a problem of runs) also the
    merged weights, as a third array."""
    new_g = np.empty(steps.size, dtype=np.int64)
    new_y = np.empty(steps.size, dtype=np.int64)
    new_g[steps], new_y[steps] = seq_g, seq_y
    new_g[~steps], new_y[~steps] = b, y_b
    if seq_w is None:
        return new_g, new_y
    new_w = np.empty(steps.size, dtype=np.int64)
    new_w[steps], new_w[~steps] = seq_w, w_b
    return new_g, new_y, new_w


def solve_iterative(prob, lam, progress=None, solve=None):
    """``(path, C, U, constants, merge_order)`` of iterative xOrder.

    Every step is a 2-D lattice (:func:`step_lattice`) solved by ``solve(lat, lam,
    progress)``, which returns its path (0 = along the merged sequence) and final
    counters: by default the NumPy fill and traceback (:func:`solve_lattice`); the GPU
    passes its tiled kernel's solve.
    """
    solve = solve_lattice if solve is None else solve
    sizes = prob.sizes
    order = merge_order(sizes)
    total = total_cells(sizes)
    first = order[0]
    seq_g = np.full(sizes[first], first, dtype=np.int64)
    seq_y, seq_w = prob.ys[first], prob.weight(first)
    const_c, const_u = {}, {}
    merged = [first]
    sums = MergedSums(prob, None, [first], {}, {})
    offset = 0
    for b in order[1:]:
        merged.append(b)
        cs = kg.build_constants(prob, merged)
        lat = step_lattice(prob, cs, seq_g, seq_y, b, const_c, const_u, sums, seq_w)
        report = None if progress is None else functools.partial(_report, progress,
                                                                   offset, total)
        path, final = solve(lat, lam, report)
        fc, fu = step_counters(lat, final)
        offset += lat.n_cells
        const_c.update(fc)
        const_u.update(fu)
        sums.add(cs, lat.old, b, fc, fu)
        seq_g, seq_y, seq_w = merge_step(seq_g, seq_y, np.asarray(path) == 0, b,
                                         prob.ys[b], seq_w, prob.weight(b))
    return (seq_g.astype(kg.group_dtype(prob.k)), const_c, const_u,
            kg.build_constants(prob, range(prob.k)), order)


def _report(progress, offset, total, done, _):
    progress(offset + done, total)
