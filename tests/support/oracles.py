"""Independent O(n^2) and exhaustive oracles for the tests (never used by the library)."""

import itertools

import numpy as np


def pair_frac(upper, lower):
    """P(U > L) with ties 1/2, by the double loop's definition (broadcasting)."""
    upper, lower = np.asarray(upper, float), np.asarray(lower, float)
    if upper.size == 0 or lower.size == 0:
        return np.nan
    diff = upper[:, None] - lower[None, :]
    return float(((diff > 0) + 0.5 * (diff == 0)).mean())


def brute_terms(scores, y, groups, metric):
    """``(auc, signed D, |D|)`` of two groups 0 and 1 by pair definitions."""
    s, y, g = np.asarray(scores, float), np.asarray(y), np.asarray(groups)
    auc = pair_frac(s[y == 1], s[y == 0])
    d = pair_term(s, y, g == 0, g == 1, metric)
    return auc, d, abs(d)


def pair_term(s, y, a, b, metric):
    """Signed disparity term of the groups masked by ``a`` and ``b`` (docs/design.md,
    section 2)."""
    if metric == "xauc":
        return pair_frac(s[a & (y == 1)], s[b & (y == 0)]) - pair_frac(
            s[b & (y == 1)], s[a & (y == 0)])
    if metric == "prf":
        return pair_frac(s[a & (y == 1)], s[y == 0]) - pair_frac(s[b & (y == 1)], s[y == 0])
    return pair_frac(s[a], s[b]) - pair_frac(s[b], s[a])


def order_scores(order):
    """Strictly decreasing scores that realise ``order`` (top first)."""
    out = np.empty(len(order))
    out[np.asarray(order)] = np.arange(len(order), 0, -1, dtype=float)
    return out


def interleaving_ranks(n_a, n_b):
    """Rank scores of every merge of two ordered sequences, vectorised.

    Returns ``(ra, rb)`` of shapes ``(M, n_a)`` and ``(M, n_b)``: in merge ``m`` the
    k-th item of a (b) gets the strictly decreasing score ``ra[m, k]`` (``rb[m, k]``).
    """
    n = n_a + n_b
    combos = np.array(list(itertools.combinations(range(n), n_a)), dtype=int).reshape(-1, n_a)
    mask = np.ones((combos.shape[0], n), dtype=bool)
    np.put_along_axis(mask, combos, False, axis=1)
    rest = np.nonzero(mask)[1].reshape(combos.shape[0], n_b)
    return (n - combos).astype(float), (n - rest).astype(float)


def _frac(upper, lower):
    """Row-wise P(U > L), ties 1/2: ``upper`` (M, p), ``lower`` (M, q)."""
    if upper.shape[1] == 0 or lower.shape[1] == 0:
        return np.full(upper.shape[0], np.nan)
    diff = upper[:, :, None] - lower[:, None, :]
    return ((diff > 0) + 0.5 * (diff == 0)).mean(axis=(1, 2))


def best_objective(scores, y, groups, metric, lam, mode):
    """Maximum of the objective over all interleavings of the two groups' orders,
    each evaluated by the pair definitions of docs/design.md, section 2."""
    auc, d = interleavings_auc_d(scores, y, groups, metric)
    return float(np.max(auc - lam * (d if mode == "signed" else np.abs(d))))


def interleavings_auc_d(scores, y, groups, metric):
    """``(auc, d)``: AUC and the signed disparity of every interleaving of the two
    groups' orders (groups 0 and 1, each by descending score, ties in input order), by
    the pair definitions of docs/design.md, section 2."""
    s, y, g = np.asarray(scores, float), np.asarray(y), np.asarray(groups)
    ys = []
    for k in (0, 1):
        idx = np.flatnonzero(g == k)
        ys.append(y[idx[np.argsort(-s[idx], kind="stable")]])
    ya, yb = ys
    ra, rb = interleaving_ranks(ya.size, yb.size)
    pos = np.concatenate((ra[:, ya == 1], rb[:, yb == 1]), axis=1)
    neg = np.concatenate((ra[:, ya == 0], rb[:, yb == 0]), axis=1)
    auc = _frac(pos, neg)
    if metric == "xauc":
        d = _frac(ra[:, ya == 1], rb[:, yb == 0]) - _frac(rb[:, yb == 1], ra[:, ya == 0])
    elif metric == "prf":
        d = _frac(ra[:, ya == 1], neg) - _frac(rb[:, yb == 1], neg)
    else:
        d = _frac(ra, rb) - _frac(rb, ra)
    return auc, d


def reference_fills(lat, weights):
    """``[(path, final), ...]``: the reference's fill of ``lat`` with decision bits at
    every weight, traced back (the solvers' ``fills``)."""
    import cpu_reference as cr

    out = []
    for w in weights:
        words, final = cr.fill(lat, float(w))
        out.append((cr.traceback(words, lat.n_a, lat.n_b), final))
    return out


def reference_finals(lat, weights):
    """``[final, ...]``: the reference's bitless fills (the solvers' ``finals``)."""
    import cpu_reference as cr

    return [cr.fill(lat, float(w), bits=False)[1] for w in weights]


def cellwise_fill(lat, lam, every_cell=False):
    """The two-group DP cell by cell, by the letter of docs/design.md, sections 3.2
    and 3.3.

    int64 counters ``cab, cba[, uab, uba]`` per cell, the step gains written out from the
    group orders, and G-hat by ``cpu_reference.cell_values`` (the documented operation
    sequence of ``_ghat``, shared with the CUDA kernels). Returns the decision matrix
    (True: the step along a wins, strictly) and the counters of the last cell, or with
    ``every_cell`` those of every cell, shape ``(n_a + 1, n_b + 1, K)``. O(n_a n_b)
    Python steps: small lattices only.
    """
    from cpu_reference import cell_values  # the contract under test, not the fill

    y_a = lat.y_a
    y_b = lat.y_b_rev[:-1][::-1]
    n_a, n_b, k = lat.n_a, lat.n_b, lat.n_counters
    n_a0, n_b0 = n_a - int(y_a.sum()), n_b - int(y_b.sum())
    q_a = np.concatenate(([0], np.cumsum(1 - y_a)))  # negatives among the first i of a
    q_b = np.concatenate(([0], np.cumsum(1 - y_b)))

    def a_step(c, i, j):  # place a[i-1] below everything placed, reaching (i, j)
        c = c.copy()
        c[0] += y_a[i - 1] * (n_b0 - q_b[j])
        if k == 4:
            c[2] += n_b - j
        return c

    def b_step(c, i, j):
        c = c.copy()
        c[1] += y_b[j - 1] * (n_a0 - q_a[i])
        if k == 4:
            c[3] += n_a - i
        return c

    def a_wins(via_a, via_b, i, j):
        g_a = cell_values(via_a, lat.consts, lam, lat.metric, lat.mode)[0]
        g_b = cell_values(via_b, lat.consts, lam, lat.metric, lat.mode)[0]
        return g_a > g_b

    dec, cells = cell_by_cell(n_a, n_b, np.zeros(k, dtype=np.int64), a_step, b_step,
                              a_wins)
    if not every_cell:
        return dec, cells[n_a, n_b]
    return dec, np.array([[cells[i, j] for j in range(n_b + 1)] for i in range(n_a + 1)])


def cell_by_cell(n_a, n_b, origin, a_step, b_step, a_wins):
    """A 2-D lattice DP visited cell by cell: ``(i, 0)`` is reached along a, ``(0, j)``
    along b, any other cell from the candidate ``a_step(cell above, i, j)`` when
    ``a_wins(via_a, via_b, i, j)``, else from ``b_step(cell to the left, i, j)``.
    Returns the decisions ``(n_a, n_b)`` (True: along a) and every cell's state."""
    cells = {(0, 0): origin}
    dec = np.zeros((n_a, n_b), dtype=bool)
    for i in range(n_a + 1):
        for j in range(n_b + 1):
            if i == 0 and j == 0:
                continue
            if j == 0:
                cells[i, j] = a_step(cells[i - 1, j], i, j)
            elif i == 0:
                cells[i, j] = b_step(cells[i, j - 1], i, j)
            else:
                via_a, via_b = a_step(cells[i - 1, j], i, j), b_step(cells[i, j - 1], i, j)
                dec[i - 1, j - 1] = a_wins(via_a, via_b, i, j)
                cells[i, j] = via_a if dec[i - 1, j - 1] else via_b
    return dec, cells


def cellwise_iterative_step(prob, lam, cs, seq_g, seq_y, b, const_c, const_u):
    """One step of iterative xOrder cell by cell, by the letter of docs/design.md,
    section 4.

    Every cell holds the int counters of all ordered pairs of the groups merged so far
    plus b (the pairs without b start at their final values ``const_c``/``const_u``);
    the step gains are written out from the sequences, G-hat is ``kgroup_ghat`` over
    all pairs, and on equal G-hat the item of the higher group index wins. Returns the
    decision matrix ``(n_a, n_b)`` (True: the step along the merged sequence) and the
    final counters of the pairs with b. Small lattices only.
    """
    from cpu_reference import _kgroups as kg
    from cpu_reference._kobjective import kgroup_ghat

    n_a, n_b = len(seq_g), prob.sizes[b]
    old = [g for g in cs.members if g != b]
    y_b = prob.ys[b]
    neg_b_before = np.concatenate(([0], np.cumsum(1 - y_b)))  # Q_b(j)

    def placed(h, i):  # (items, negatives) of h among the first i merged items
        items = seq_g[:i] == h
        return int(items.sum()), int((items & (seq_y[:i] == 0)).sum())

    def step_a(cell, i, j):  # place merged item i - 1 below everything placed
        C, U = dict(cell[0]), dict(cell[1])
        g, y = int(seq_g[i - 1]), int(seq_y[i - 1])
        C[(g, b)] += y * (prob.n0(b) - int(neg_b_before[j]))
        U[(g, b)] += n_b - j
        return C, U

    def step_b(cell, i, j):  # place item j - 1 of b
        C, U = dict(cell[0]), dict(cell[1])
        for h in old:
            items, negatives = placed(h, i)
            C[(b, h)] += int(y_b[j - 1]) * (prob.n0(h) - negatives)
            U[(b, h)] += prob.sizes[h] - items
        return C, U

    def a_wins(via_a, via_b, i, j):  # equal G-hat: the higher group index wins
        g_a = kgroup_ghat(*via_a, cs, lam, prob.metric, prob.mode)
        g_b = kgroup_ghat(*via_b, cs, lam, prob.metric, prob.mode)
        return g_a > g_b or (g_a == g_b and seq_g[i - 1] > b)

    pairs = kg.ordered_pairs(cs.members)
    origin = ({p: const_c.get(p, 0) for p in pairs}, {p: const_u.get(p, 0) for p in pairs})
    dec, cells = cell_by_cell(n_a, n_b, origin, step_a, step_b, a_wins)
    C, U = cells[n_a, n_b]
    final_c = {p: C[p] for p in pairs if b in p}
    final_u = {p: U[p] for p in pairs if b in p} if prob.metric == "urf" else {}
    return dec, final_c, final_u


def weighted_pair_frac(upper, upper_weight, lower, lower_weight):
    """Weighted P(U > L), ties 1/2: every pair weighs the product of its items' weights,
    summed over the double loop and divided by the sum of the pair weights."""
    upper, lower = np.asarray(upper, float), np.asarray(lower, float)
    pair = np.outer(np.asarray(upper_weight, float), np.asarray(lower_weight, float))
    diff = upper[:, None] - lower[None, :]
    return float((((diff > 0) + 0.5 * (diff == 0)) * pair).sum() / pair.sum())


def weighted_metric(s, y, grp, w, name, g=None, h=None):
    """The weighted AUC, xAUC(g, h), PRF(g) or signed URF(g, h) by the double loop."""
    s, y, grp, w = (np.asarray(a) for a in (s, y, grp, w))
    if name == "auc":
        return weighted_pair_frac(s[y == 1], w[y == 1], s[y == 0], w[y == 0])
    if name == "xauc":
        up, lo = (grp == g) & (y == 1), (grp == h) & (y == 0)
    elif name == "prf":
        up, lo = (grp == g) & (y == 1), y == 0
    else:  # urf: P(S^g > S^h) - P(S^h > S^g)
        up, lo = grp == g, grp == h
        return (weighted_pair_frac(s[up], w[up], s[lo], w[lo])
                - weighted_pair_frac(s[lo], w[lo], s[up], w[up]))
    return weighted_pair_frac(s[up], w[up], s[lo], w[lo])


def weighted_delta(s, y, grp, w, metric, g, h):
    """The weighted Delta of ``metric`` for the pair (g, h), by the double loop."""
    if metric == "xauc":
        return abs(weighted_metric(s, y, grp, w, "xauc", g, h)
                   - weighted_metric(s, y, grp, w, "xauc", h, g))
    if metric == "prf":
        return abs(weighted_metric(s, y, grp, w, "prf", g)
                   - weighted_metric(s, y, grp, w, "prf", h))
    return abs(weighted_metric(s, y, grp, w, "urf", g, h))


def within_group_changes(before, after, groups, chunk=512):
    """Pairs of items of one group whose order ``after`` differs from ``before``, by the
    pair definition: ``(new_ties, broken_ties, reversed)`` summed over the groups (sign
    of every within-group difference compared, in row chunks)."""
    before, after = np.asarray(before, float), np.asarray(after, float)
    groups = np.asarray(groups)
    new = broken = flipped = 0
    for g in np.unique(groups):
        b, a = before[groups == g], after[groups == g]
        for start in range(0, b.size, chunk):
            sb = np.sign(b[start:start + chunk, None] - b[None, :])
            sa = np.sign(a[start:start + chunk, None] - a[None, :])
            new += int(((sa == 0) & (sb != 0)).sum())
            broken += int(((sa != 0) & (sb == 0)).sum())
            flipped += int((sa * sb < 0).sum())
    # every unordered pair was seen twice
    return new // 2, broken // 2, flipped // 2


def equal_pairs(scores, groups):
    """Number of pairs of items of one group with equal scores, by the pair definition."""
    scores, groups = np.asarray(scores, float), np.asarray(groups)
    total = 0
    for g in np.unique(groups):
        s = scores[groups == g]
        total += int((s[:, None] == s[None, :]).sum() - s.size) // 2
    return total
