"""Iterative xOrder: merge the groups one at a time by 2-D DPs (DESIGN section 4).

Merge order: largest group first, equal sizes in increasing group index
(:func:`merge_order`). Step t runs an anti-diagonal DP whose first axis is the sequence
merged so far (its items keep their group and label) and whose second axis is the next
group ``b``. Its objective is the K-group G-hat (``_kgroups``) restricted to the groups
merged so far plus ``b``: pairs decided inside the merged sequence are constants from the
first cell, only the counters ``C/U[g][b]`` and ``C/U[b][g]`` vary over the lattice.

Tie rule: on equal G-hat the step that places the item of the higher group index wins,
the rule of the 2-D and K-D DPs; with two groups the iteration therefore is exactly the
2-D DP (same decisions, same counters) whichever group is merged first.
"""

from dataclasses import dataclass

import numpy as np

from . import _kgroups as kg


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


@dataclass(frozen=True, eq=False)
class StepInputs:
    """What one iterative step needs besides its lattice: the old groups' prefix counts
    over the merged sequence, and the maximum |term| of the pairs that do not move.
    Shared by the NumPy step and the CUDA launcher (``gpu_xorder._multi_inputs``)."""

    old: list          # groups merged so far (b excluded), increasing
    negleft_a: dict    # h -> n_h0 - Q_h(i), negatives of h among the first i merged items
    left_a: dict       # h -> n_h - count_h(i)
    ypos_a: dict       # h -> 1 where merged item i is a positive of h
    is_h: dict         # h -> 1 where merged item i belongs to h
    floor: object      # maximum |term| of the other pairs (None when there are none)


def step_inputs(prob, cs, seq_g, seq_y, b, const_c, const_u):
    """Prefix counts and fixed-pair floor of the step merging ``b`` (DESIGN section 4)."""
    old = [g for g in cs.members if g != b]
    is_h = {h: (seq_g == h).astype(np.int64) for h in old}
    negleft_a = {h: prob.n0(h) - np.concatenate(([0], np.cumsum(is_h[h] * (1 - seq_y))))
                 for h in old}
    left_a = {h: prob.sizes[h] - np.concatenate(([0], np.cumsum(is_h[h]))) for h in old}
    ypos_a = {h: is_h[h] * seq_y for h in old}
    # xAUC and URF terms of pairs without b are the same in every cell: their maximum is
    # computed once. A PRF term reads R_g, which includes C[g][b], so every pair moves.
    pairs = [(g, h) for g, h in kg.ordered_pairs(cs.members) if g < h]
    fixed = [] if prob.metric == "prf" else [p for p in pairs if b not in p]
    floor = (kg.disparity(const_c, const_u, cs, prob.metric, "absolute", fixed)
             if fixed else None)
    return StepInputs(old=old, negleft_a=negleft_a, left_a=left_a, ypos_a=ypos_a,
                      is_h=is_h, floor=floor)


def step_fill(prob, lam, cs, seq_g, seq_y, b, const_c, const_u, progress=None, offset=0,
              total=None):
    """Fill the lattice of the step merging ``b`` into ``(seq_g, seq_y)``.

    Returns ``(dec, final_c, final_u)``: ``dec[i, j]`` True where cell (i, j) is entered
    by a step along the merged sequence, and the final counters of the pairs with b.

    The counters of the pairs with b are stacked, one row per old group: ``C[q][b]``,
    ``C[b][q]`` (and ``U``), so every anti-diagonal costs a fixed number of NumPy calls
    whatever the number of groups.
    """
    inp = step_inputs(prob, cs, seq_g, seq_y, b, const_c, const_u)
    old = inp.old
    n_a, n_b = seq_g.size, prob.sizes[b]
    urf = prob.metric == "urf"

    def shifted(rows):  # column i holds the value of merged item i - 1 (column 0: 0)
        return np.concatenate([np.zeros((len(rows), 1), dtype=np.int64),
                               np.stack(rows)], axis=1)

    ypos = shifted([inp.ypos_a[h] for h in old])       # (m, n_a + 1)
    is_h = shifted([inp.is_h[h] for h in old])
    group_of = np.concatenate(([-1], seq_g))            # group of merged item i - 1
    negleft_a = np.stack([inp.negleft_a[h] for h in old])  # (m, n_a + 1), by i
    left_a = np.stack([inp.left_a[h] for h in old])
    y_b = np.concatenate(([0], prob.ys[b]))             # y_b[j] = label of b item j - 1
    neg_b = prob.negleft[b]                             # by j
    left_b = n_b - np.arange(n_b + 1)                   # n_b - j, by j
    ghat = StepGhat(prob, cs, b, old, const_c, inp, lam)
    rows = 4 if urf else 2  # C[q][b], C[b][q], U[q][b], U[b][q]
    # counter buffers of two anti-diagonals; column i + 1 holds cell (i, d - i), so the
    # a-predecessors of cells i_lo..i_hi are columns i_lo..i_hi (column 0: never used)
    prev = np.zeros((rows, len(old), n_a + 2), dtype=np.int64)
    cur = np.zeros_like(prev)
    dec = np.zeros((n_a + 1, n_b + 1), dtype=bool)
    total = (n_a + 1) * (n_b + 1) if total is None else total
    every = max(1, (n_a + n_b) // 200)
    done = 1
    for d in range(1, n_a + n_b + 1):
        i_lo, i_hi = max(0, d - n_b), min(n_a, d)
        cells = slice(i_lo, i_hi + 1)                   # by i
        by_j = slice(d - i_lo, (d - i_hi - 1) if d - i_hi > 0 else None, -1)  # j = d - i
        # Step along the merged sequence into (i, j): item i - 1, of old group q, gains
        # y * (n_b0 - Q_b(j)) on C[q][b] and n_b - j on U[q][b].
        cand_a = prev[:, :, i_lo:i_hi + 1].copy()
        cand_a[0] += ypos[:, cells] * neg_b[by_j]
        if urf:
            cand_a[2] += is_h[:, cells] * left_b[by_j]
        # Step along b into (i, j): item j - 1 of b gains on C[b][q] and U[b][q].
        cand_b = prev[:, :, i_lo + 1:i_hi + 2].copy()
        cand_b[1] += y_b[by_j] * negleft_a[:, cells]
        if urf:
            cand_b[3] += left_a[:, cells]
        g_a, g_b = ghat(cand_a), ghat(cand_b)
        i = np.arange(i_lo, i_hi + 1)
        take_a = (i >= 1) & ((i == d) | (g_a > g_b) | ((g_a == g_b) & (group_of[cells] > b)))
        dec[i, d - i] = take_a
        cur[:, :, i_lo + 1:i_hi + 2] = np.where(take_a, cand_a, cand_b)
        prev, cur = cur, prev
        done += i.size
        if progress is not None and (d % every == 0 or d == n_a + n_b):
            progress(offset + done, total)
    final = prev[:, :, n_a + 1]
    final_c = {}
    final_u = {}
    for q, g in enumerate(old):
        final_c[(g, b)], final_c[(b, g)] = int(final[0, q]), int(final[1, q])
        if urf:
            final_u[(g, b)], final_u[(b, g)] = int(final[2, q]), int(final[3, q])
    return dec, final_c, final_u


class StepGhat:
    """G-hat of candidates of an iterative step, stacked counters ``(rows, m, L)``.

    Also the one place the step's per-group constants are made: the CUDA input packer
    (``gpu_xorder._multi_inputs``) reads them from here.

    The operation sequence of ``_kgroups.ghat`` over the groups merged so far plus b:
    the C of the pairs without b enter the AUC sum as one exact integer, their xAUC/URF
    terms through ``floor`` (their maximum |term|, constant over the lattice). Integer
    sums are exact in any order and the maximum is exact, so the values are those of
    ``_kgroups.ghat`` bit for bit; for PRF, the maximum over pairs of |P_g - P_h| is
    taken as P_max - P_min, the same double because rounding is monotone.
    """

    def __init__(self, prob, cs, b, old, const_c, inp, lam):
        self.metric, self.signed, self.lam = prob.metric, prob.mode == "signed", lam
        self.s_const = sum(const_c[(g, h)] for g in old for h in old if g != h)  # exact
        self.w, self.inv_auc = cs.w, cs.inv_auc
        col = np.array
        self.inv_qb = col([cs.inv_x[(g, b)] for g in old])[:, None]
        self.inv_bq = col([cs.inv_x[(b, g)] for g in old])[:, None]
        self.inv_u = col([cs.inv_u[(min(g, b), max(g, b))] for g in old])[:, None]
        self.old_first = col([g < b for g in old])[:, None]  # pair (g, b) is ordered g < b
        self.row_const = col([sum(const_c[(g, h)] for h in old if h != g)
                              for g in old], dtype=np.int64)[:, None]
        self.w_q = col([cs.w_g[g] for g in old])[:, None]
        self.inv_p = col([cs.inv_p[g] for g in old])[:, None]
        self.w_b, self.inv_p_b = cs.w_g[b], cs.inv_p[b]
        self.floor = inp.floor

    def __call__(self, c):
        c_qb, c_bq = c[0], c[1]
        total = c_qb.sum(axis=0) + c_bq.sum(axis=0) + self.s_const
        auc = np.add(total, self.w) * self.inv_auc
        # Terms of the pairs (q, b), each for g < h; rounding is symmetric, so for |term|
        # the orientation matters only to the signed disparity (two groups).
        if self.metric == "xauc":
            # C[g][h] * inv(n_g1 n_h0) - C[h][g] * inv(n_h1 n_g0)
            a, z = np.multiply(c_qb, self.inv_qb), np.multiply(c_bq, self.inv_bq)
            terms = np.where(self.old_first, a - z, z - a) if self.signed else a - z
        elif self.metric == "urf":
            # (double)(U[g][h] - U[h][g]) * inv(n_g n_h)
            diff = c[2] - c[3]
            if self.signed:
                diff = np.where(self.old_first, diff, -diff)
            terms = np.multiply(diff, self.inv_u)
        else:
            # ((double)R_g + w_g) * inv_p[g], for the old groups and for b
            p_old = np.add(self.row_const + c_qb, self.w_q) * self.inv_p
            p_b = np.add(c_bq.sum(axis=0), self.w_b) * self.inv_p_b
            if self.signed:  # two groups: the one pair (g < h)
                terms = np.where(self.old_first, p_old - p_b, p_b - p_old)
            else:
                high = np.maximum(p_old.max(axis=0), p_b)
                low = np.minimum(p_old.min(axis=0), p_b)
                return auc - np.multiply(high - low, self.lam)
        if self.signed:
            d = terms[0]
        else:
            d = np.abs(terms).max(axis=0)
            if self.floor is not None:
                d = np.maximum(d, self.floor)
        return auc - np.multiply(d, self.lam)


def _walk(dec):
    """Steps of the path read back from the last cell (True = along the merged axis)."""
    n_a, n_b = dec.shape[0] - 1, dec.shape[1] - 1
    steps = np.empty(n_a + n_b, dtype=bool)
    i, j = n_a, n_b
    for r in range(n_a + n_b - 1, -1, -1):
        a_step = bool(dec[i, j])
        steps[r] = a_step
        if a_step:
            i -= 1
        else:
            j -= 1
    return steps


def merge_step(seq_g, seq_y, steps, b, y_b):
    """The merged sequence after a step: ``steps`` True takes the next merged item."""
    new_g = np.empty(steps.size, dtype=np.int64)
    new_y = np.empty(steps.size, dtype=np.int64)
    new_g[steps], new_y[steps] = seq_g, seq_y
    new_g[~steps], new_y[~steps] = b, y_b
    return new_g, new_y


def solve_iterative(prob, lam, progress=None, step=None):
    """``(path, C, U, constants, merge_order)`` of iterative xOrder.

    ``step(cs, seq_g, seq_y, b, const_c, const_u, progress, offset, total)`` merges group
    ``b`` and returns ``(steps, C, U)``: the path of the step (True = along the merged
    sequence) and the final counters of the pairs with b. Default: the NumPy step
    (:func:`step_fill`); the GPU passes its own (``gpu_xorder._multi_launch``).
    """
    if step is None:
        def step(cs, seq_g, seq_y, b, const_c, const_u, progress, offset, total):
            dec, fc, fu = step_fill(prob, lam, cs, seq_g, seq_y, b, const_c, const_u,
                                    progress, offset, total)
            return _walk(dec), fc, fu

    sizes = prob.sizes
    order = merge_order(sizes)
    total = total_cells(sizes)
    first = order[0]
    seq_g = np.full(sizes[first], first, dtype=np.int64)
    seq_y = prob.ys[first]
    const_c, const_u = {}, {}
    merged = [first]
    offset = 0
    for b in order[1:]:
        merged.append(b)
        cs = kg.build_constants(prob, merged)
        steps, fc, fu = step(cs, seq_g, seq_y, b, const_c, const_u, progress, offset, total)
        offset += (seq_g.size + 1) * (sizes[b] + 1)
        const_c.update(fc)
        const_u.update(fu)
        seq_g, seq_y = merge_step(seq_g, seq_y, steps, b, prob.ys[b])
    return (seq_g.astype(np.int8), const_c, const_u, kg.build_constants(prob, range(prob.k)),
            order)
