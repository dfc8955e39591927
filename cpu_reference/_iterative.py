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


def total_cells(sizes):
    """Cells of all steps together (for progress reports)."""
    order = merge_order(sizes)
    merged, total = sizes[order[0]], 0
    for b in order[1:]:
        total += (merged + 1) * (sizes[b] + 1)
        merged += sizes[b]
    return total


@dataclass(frozen=True, eq=False)
class StepInputs:
    """What one iterative step needs besides its lattice: the old groups' prefix counts
    over the merged sequence, and the split of the pairs into moving and fixed ones.
    Shared by the NumPy step and the CUDA launcher (``gpu_xorder._multi_inputs``)."""

    old: list          # groups merged so far (b excluded), increasing
    negleft_a: dict    # h -> n_h0 - Q_h(i), negatives of h among the first i merged items
    left_a: dict       # h -> n_h - count_h(i)
    ypos_a: dict       # h -> 1 where merged item i is a positive of h
    is_h: dict         # h -> 1 where merged item i belongs to h
    moving: list       # unordered pairs (g < h) whose term varies over the lattice
    floor: object      # maximum |term| of the other pairs (None when there are none)


def step_inputs(prob, cs, seq_g, seq_y, b, const_c, const_u):
    """Prefix counts and pair split of the step merging group ``b`` (DESIGN section 4)."""
    old = [g for g in cs.members if g != b]
    is_h = {h: (seq_g == h).astype(np.int64) for h in old}
    negleft_a = {h: prob.n0(h) - np.concatenate(([0], np.cumsum(is_h[h] * (1 - seq_y))))
                 for h in old}
    left_a = {h: prob.sizes[h] - np.concatenate(([0], np.cumsum(is_h[h]))) for h in old}
    ypos_a = {h: is_h[h] * seq_y for h in old}
    # xAUC and URF terms of pairs without b are the same in every cell: their maximum is
    # computed once. A PRF term reads R_g, which includes C[g][b], so every pair moves.
    pairs = [(g, h) for g, h in kg.ordered_pairs(cs.members) if g < h]
    if prob.metric == "prf":
        moving, fixed = pairs, []
    else:
        moving = [p for p in pairs if b in p]
        fixed = [p for p in pairs if b not in p]
    floor = (kg.disparity(const_c, const_u, cs, prob.metric, "absolute", fixed)
             if fixed else None)
    return StepInputs(old=old, negleft_a=negleft_a, left_a=left_a, ypos_a=ypos_a,
                      is_h=is_h, moving=moving, floor=floor)


def step_fill(prob, lam, cs, seq_g, seq_y, b, const_c, const_u, progress=None, offset=0,
              total=None):
    """Fill the lattice of the step merging ``b`` into ``(seq_g, seq_y)``.

    Returns ``(dec, final_c, final_u)``: ``dec[i, j]`` True where cell (i, j) is entered
    by a step along the merged sequence, and the final counters of the pairs with b.
    """
    metric, mode = prob.metric, prob.mode
    urf = metric == "urf"
    inp = step_inputs(prob, cs, seq_g, seq_y, b, const_c, const_u)
    old = inp.old
    n_a, n_b = seq_g.size, prob.sizes[b]
    y_b = prob.ys[b]
    neg_b = prob.negleft[b]
    var_pairs = [(g, b) for g in old] + [(b, g) for g in old]
    prev_c = {p: np.zeros(n_a + 1, dtype=np.int64) for p in var_pairs}
    prev_u = {p: np.zeros(n_a + 1, dtype=np.int64) for p in var_pairs} if urf else {}
    dec = np.zeros((n_a + 1, n_b + 1), dtype=bool)
    total = (n_a + 1) * (n_b + 1) if total is None else total
    every = max(1, (n_a + n_b) // 200)
    done = 1
    for d in range(1, n_a + n_b + 1):
        i_lo, i_hi = max(0, d - n_b), min(n_a, d)
        i = np.arange(i_lo, i_hi + 1)
        j = d - i
        ia = np.maximum(i - 1, 0)
        jb = np.maximum(j - 1, 0)
        # Step along the merged sequence into (i, j): item i - 1 of group g_item.
        cand_a = {p: v[ia] for p, v in prev_c.items()}
        cand_au = {p: v[ia] for p, v in prev_u.items()}
        for g in old:
            cand_a[(g, b)] += inp.ypos_a[g][ia] * neg_b[j]
            if urf:
                cand_au[(g, b)] += inp.is_h[g][ia] * (n_b - j)
        # Step along b into (i, j): item j - 1 of b.
        cand_b = {p: v[i] for p, v in prev_c.items()}
        cand_bu = {p: v[i] for p, v in prev_u.items()}
        yb = y_b[jb]
        for h in old:
            cand_b[(b, h)] += yb * inp.negleft_a[h][i]
            if urf:
                cand_bu[(b, h)] += inp.left_a[h][i]
        g_a = _ghat(cand_a, cand_au, const_c, const_u, cs, lam, metric, mode, inp.moving,
                    inp.floor)
        g_b = _ghat(cand_b, cand_bu, const_c, const_u, cs, lam, metric, mode, inp.moving,
                    inp.floor)
        item_group = seq_g[ia]
        take_a = (i >= 1) & ((j == 0) | (g_a > g_b) | ((g_a == g_b) & (item_group > b)))
        dec[i, j] = take_a
        for p in var_pairs:
            prev_c[p] = np.zeros(n_a + 1, dtype=np.int64)
            prev_c[p][i] = np.where(take_a, cand_a[p], cand_b[p])
            if urf:
                prev_u[p] = np.zeros(n_a + 1, dtype=np.int64)
                prev_u[p][i] = np.where(take_a, cand_au[p], cand_bu[p])
        done += i.size
        if progress is not None and (d % every == 0 or d == n_a + n_b):
            progress(offset + done, total)
    final_c = {p: int(v[n_a]) for p, v in prev_c.items()}
    final_u = {p: int(v[n_a]) for p, v in prev_u.items()}
    return dec, final_c, final_u


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


def _ghat(var_c, var_u, const_c, const_u, cs, lam, metric, mode, moving, floor):
    c = {**const_c, **var_c}
    u = {**const_u, **var_u}
    d = kg.disparity(c, u, cs, metric, mode, moving, floor)
    return kg.auc(c, cs) - np.multiply(d, lam)


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
