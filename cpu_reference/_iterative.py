"""Iterative xOrder: merge the groups one at a time by 2-D DPs.

docs/design.md, section 4.

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
from ._bits import DiagonalPacker
from ._fill import fill
from ._lattice import GhatConstants, Lattice
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
    """Prefix counts and fixed-pair floor of the step merging ``b`` (docs/design.md,
    section 4)."""
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

    Returns ``(words, final_c, final_u)``: the decision bits of the interior cells in the
    2-D layout of ``_bits`` (set where a cell is entered by a step along the merged
    sequence; the GPU step writes the same words), and the final counters of the pairs
    with b.

    Exact float64 state, as in the 2-D fill (``_fill``): the counters of the pairs with
    b are integers below 2**53, kept per old group q as the rows ``C[q][b]``,
    ``C[b][q]`` and, for URF, ``U[q][b] - U[b][q]`` (the only form G-hat reads; the final
    ``U`` follow from ``U[q][b] + U[b][q] = n_q n_b``). Both candidates of every cell of
    an anti-diagonal sit side by side in one contiguous array, so that each NumPy call of
    ``StepGhat.fill_values`` serves all old groups and both candidates at once.
    """
    inp = step_inputs(prob, cs, seq_g, seq_y, b, const_c, const_u)
    old = inp.old
    m, n_a, n_b = len(old), seq_g.size, prob.sizes[b]
    urf = prob.metric == "urf"
    kinds = 3 if urf else 2
    f8 = np.float64

    def shifted(rows):  # column i holds the value of merged item i - 1 (column 0: 0)
        out = np.zeros((m, n_a + 1))
        out[:, 1:] = np.stack(rows)
        return out

    # i-indexed inputs of the merged axis, k-indexed (k = n_b - j) inputs of b
    ypos = shifted([inp.ypos_a[h] for h in old])
    is_h = shifted([inp.is_h[h] for h in old])
    negleft_a = np.stack([inp.negleft_a[h] for h in old]).astype(f8)
    minus_left_a = -np.stack([inp.left_a[h] for h in old]).astype(f8)
    y_b = np.concatenate(([0], prob.ys[b])).astype(f8)      # y_b[j]: label of item j - 1
    y_b_rev, neg_b_rev = y_b[::-1].copy(), prob.negleft[b][::-1].astype(f8)
    left_b_rev = np.arange(n_b + 1, dtype=f8)                # n_b - j at k
    a_wins_ties = np.concatenate(([False], seq_g > b))       # item i - 1 outranks b
    any_a_wins = bool(a_wins_ties.any())

    # state of the edge cells: (i, 0) after i merged items, (0, j) after j items of b
    col0 = np.zeros((kinds, m, n_a + 1))
    row0 = np.zeros((kinds, m, n_b + 1))
    col0[0] = np.cumsum(ypos, axis=1) * float(prob.negleft[b][0])
    row0[1] = np.cumsum(y_b)[None, :] * negleft_a[:, :1]
    if urf:
        col0[2] = np.cumsum(is_h, axis=1) * float(n_b)
        row0[2] = np.arange(n_b + 1)[None, :] * minus_left_a[:, :1]

    ghat = StepGhat(prob, cs, b, old, const_c, inp, lam)
    longest = max(1, min(n_a, n_b))
    cand_buf = np.empty(kinds * m * 2 * longest)
    gain_buf = np.empty(2 * m * longest)
    # counter states of two anti-diagonals, cell (i, d - i) at column i
    prev, nxt = np.zeros((kinds, m, n_a + 1)), np.zeros((kinds, m, n_a + 1))
    prev[:, :, 0] = row0[:, :, 0]
    packer = DiagonalPacker(n_a, n_b)
    fill_values = ghat.fill_values
    add, mul, copyto = np.add, np.multiply, np.copyto
    total = (n_a + 1) * (n_b + 1) if total is None else total
    every = max(1, (n_a + n_b) // 200)
    done = 1
    for d in range(1, n_a + n_b + 1):
        lo, hi = max(1, d - n_b), min(n_a, d - 1)
        length = hi - lo + 1
        if length > 0:
            k_lo = n_b - d + lo
            cells, a_pred = slice(lo, hi + 1), slice(lo - 1, hi)
            ks = slice(k_lo, k_lo + length)
            cand = cand_buf[:kinds * m * 2 * length].reshape(kinds, m, 2, length)
            gain_a, gain_b = gain_buf[:2 * m * length].reshape(2, m, length)
            # a-step into (i, j): item i - 1 (old group q) gains y (n_b0 - Q_b(j)) on
            # C[q][b] and n_b - j on U[q][b]
            mul(ypos[:, cells], neg_b_rev[ks], gain_a)
            add(prev[0, :, a_pred], gain_a, cand[0, :, 0])
            copyto(cand[1, :, 0], prev[1, :, a_pred])
            # b-step into (i, j): item j - 1 of b gains y (n_q0 - Q_q(i)) on C[b][q] and
            # n_q - count_q(i) on U[b][q]
            copyto(cand[0, :, 1], prev[0, :, cells])
            mul(negleft_a[:, cells], y_b_rev[ks], gain_b)
            add(prev[1, :, cells], gain_b, cand[1, :, 1])
            if urf:
                mul(is_h[:, cells], left_b_rev[ks], gain_a)
                add(prev[2, :, a_pred], gain_a, cand[2, :, 0])
                add(prev[2, :, cells], minus_left_a[:, cells], cand[2, :, 1])
            value_a, value_b = fill_values(cand)
            dec = packer.row(d, lo, hi)
            np.greater(value_a, value_b, dec)
            if any_a_wins:  # equal G-hat: the item of the higher group index wins
                tie = np.equal(value_a, value_b)
                np.logical_and(tie, a_wins_ties[cells], tie)
                np.logical_or(dec, tie, dec)
            for k in range(kinds):
                copyto(nxt[k, :, cells], cand[k, :, 1])
                copyto(nxt[k, :, cells], cand[k, :, 0], where=dec)
            packer.end_diagonal()
        if d <= n_b:
            nxt[:, :, 0] = row0[:, :, d]
        if d <= n_a:
            nxt[:, :, d] = col0[:, :, d]
        prev, nxt = nxt, prev
        done += length + (d <= n_b) + (d <= n_a)
        if progress is not None and (d % every == 0 or d == n_a + n_b):
            progress(offset + done, total)
    packer.flush()
    final = prev[:, :, n_a].astype(np.int64)
    final_c, final_u = {}, {}
    for q, g in enumerate(old):
        final_c[(g, b)], final_c[(b, g)] = int(final[0, q]), int(final[1, q])
        if urf:
            both = prob.sizes[g] * n_b  # every pair of g and b is decided at the end
            final_u[(g, b)] = (both + int(final[2, q])) // 2
            final_u[(b, g)] = both - final_u[(g, b)]
    return packer.words, final_c, final_u


class StepGhat:
    """G-hat of the candidates of an iterative step (``fill_values``).

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
        # shaped for the (m, 2, L) candidate blocks of step_fill
        self._inv_qb, self._inv_bq, self._inv_u = (x[:, :, None] for x in (
            self.inv_qb, self.inv_bq, self.inv_u))
        self._row_const = self.row_const[:, :, None].astype(np.float64)
        self._w_q, self._inv_p = self.w_q[:, :, None], self.inv_p[:, :, None]
        self._sign = np.where(self.old_first, 1.0, -1.0)[:, :, None]

    def fill_values(self, cand):
        """G-hat of every candidate of ``step_fill``'s state array ``cand``, shape
        ``(kinds, m, 2, L)`` (rows ``C[q][b]``, ``C[b][q]`` and, for URF,
        ``U[q][b] - U[b][q]``; axis 2: the a- and the b-candidate); returns ``(2, L)``.
        """
        c_qb, c_bq = cand[0], cand[1]
        m = c_qb.shape[0]
        # exact integer: the C of all pairs of the groups merged so far plus b
        total = np.add(c_qb[0], c_bq[0]) if m == 1 else cand[:2].sum(axis=(0, 1))
        if self.s_const:
            np.add(total, self.s_const, total)
        auc = np.add(total, self.w, total)
        np.multiply(auc, self.inv_auc, auc)
        if self.metric == "prf":
            # ((double)R_g + w_g) * inv_p[g], for the old groups and for b
            p_old = np.add(c_qb, self._row_const)
            np.add(p_old, self._w_q, p_old)
            np.multiply(p_old, self._inv_p, p_old)
            p_b = np.add(c_bq[0] if m == 1 else c_bq.sum(axis=0), self.w_b)
            np.multiply(p_b, self.inv_p_b, p_b)
            if self.signed:  # two groups: the one pair (g < h)
                d = np.subtract(p_old[0], p_b) if self._sign[0, 0, 0] > 0 else \
                    np.subtract(p_b, p_old[0])
            else:  # max over pairs of |P_g - P_h| is P_max - P_min: rounding is monotone
                high = np.maximum(p_old[0] if m == 1 else p_old.max(axis=0), p_b)
                low = np.minimum(p_old[0] if m == 1 else p_old.min(axis=0), p_b)
                d = np.subtract(high, low, high)
        else:
            # pairs (q, b), oriented by the sign below where it matters
            terms = kg.row_terms(self.metric, c_qb, c_bq, cand[2] if self.metric == "urf"
                                 else None, self._inv_qb, self._inv_bq, self._inv_u)
            if self.signed:  # negation is exact: the orientation of the pair g < h
                d = terms[0] if self._sign[0, 0, 0] > 0 else np.negative(terms[0])
            else:
                np.abs(terms, terms)
                d = terms[0] if m == 1 else terms.max(axis=0)
                if self.floor is not None:
                    d = np.maximum(d, self.floor)
        if self.lam:  # else auc - 0 * d = auc exactly (d is finite)
            np.subtract(auc, np.multiply(d, self.lam), auc)
        return auc


def pair_lattice(prob, g, h):
    """The 2-D lattice (``_lattice.Lattice``) of groups ``g < h`` of ``prob``: a = g."""
    y_a, y_b = prob.ys[g], prob.ys[h]
    n_a, n_b = y_a.size, y_b.size
    cs = kg.build_constants(prob, (g, h))
    consts = GhatConstants(
        w=cs.w, w_a=cs.w_g[g], w_b=cs.w_g[h], inv_auc=cs.inv_auc,
        inv_ab=cs.inv_x[(g, h)], inv_ba=cs.inv_x[(h, g)], inv_pa=cs.inv_p[g],
        inv_pb=cs.inv_p[h], inv_u=cs.inv_u[(g, h)])
    return Lattice(
        metric=prob.metric, mode=prob.mode, n_a=n_a, n_b=n_b,
        perm_a=np.arange(n_a), perm_b=np.arange(n_b), y_a=y_a,
        y_b_rev=np.concatenate((y_b[::-1], [0])), negleft_a=prob.negleft[g],
        negleft_b_rev=prob.negleft[h][::-1].copy(),
        left_a=np.arange(n_a, -1, -1, dtype=np.int64),
        left_b_rev=np.arange(n_b + 1, dtype=np.int64), consts=consts)


def pair_step(prob, lam, first, b, progress=None, offset=0, total=None, solve=None):
    """The first step, merging ``b`` into group ``first``, by the 2-D fill.

    With two groups merged, the step's G-hat is the 2-D one bit for bit: the same
    constants, ``cab + cba`` the one exact sum, and the disparity term up to its sign,
    which the absolute value (or, signed, the orientation g < h) settles; the tie rule
    (the higher group index wins) is the 2-D rule on the lattice oriented a = the lower
    index, the transpose of the step's when ``first > b``. So the path is the step's,
    for about half the NumPy work per cell (and, on the GPU, the tiled 2-D kernel).
    ``solve(lat, lam, progress)`` returns the 2-D ``(path, final counters)``; default:
    the NumPy fill and traceback. Returns ``(steps, C, U)`` as ``solve_iterative`` wants
    them (steps True = along ``first``).
    """
    g, h = min(first, b), max(first, b)
    lat = pair_lattice(prob, g, h)
    report = None
    if progress is not None:
        def report(done, _):
            progress(offset + done, total)
    if solve is None:
        words, final = fill(lat, lam, report)
        path = traceback(words, lat.n_a, lat.n_b)
    else:
        path, final = solve(lat, lam, report)
    path = np.asarray(path)
    final = [int(v) for v in final]
    c = {(g, h): final[0], (h, g): final[1]}
    u = {(g, h): final[2], (h, g): final[3]} if prob.metric == "urf" else {}
    return path == (0 if first == g else 1), c, u


def step_path(words, n_a, n_b):
    """Steps of the path of a step's lattice, top first (True = along the merged
    sequence): the 2-D traceback of its decision words."""
    return traceback(words, n_a, n_b) == 0


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
    (:func:`step_fill`; the first step, two groups, by the 2-D fill, :func:`pair_step`);
    the GPU passes its own (``gpu_xorder._multi_launch``).
    """
    if step is None:
        def step(cs, seq_g, seq_y, b, const_c, const_u, progress, offset, total):
            if len(cs.members) == 2:
                return pair_step(prob, lam, int(seq_g[0]), b, progress, offset, total)
            words, fc, fu = step_fill(prob, lam, cs, seq_g, seq_y, b, const_c, const_u,
                                      progress, offset, total)
            return step_path(words, seq_g.size, prob.sizes[b]), fc, fu

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
