"""The objective of K groups: G-hat on dicts of pair counters (:func:`kgroup_ghat`,
:func:`kgroup_values`) and over the K-D hyperplanes (:class:`KdObjective`).

docs/design.md, section 4. The disparity term is ``_objective``'s (``PAIR_TERM``,
``prf_share``), and so are the rules of exactness (its module docstring).
"""

import numpy as np

from ._kgroups import ordered_pairs
from ._lattice import COUNTER_KINDS
from ._objective import PAIR_TERM, prf_share, term_operands


# ------------------------------------------------------------------ K groups, counters


def pair_terms(C, U, cs, metric, pairs):
    """The signed disparity term of every unordered pair ``g < h`` in ``pairs``
    (``PAIR_TERM``)."""
    term, out = PAIR_TERM[metric], []
    for g, h in pairs:
        if metric == "xauc":
            t = term(C[(g, h)], C[(h, g)], cs.inv_x[(g, h)], cs.inv_x[(h, g)])
        elif metric == "prf":  # P_g - P_h
            t = term(np.add(_row_sum(C, g, cs.members), cs.w_g[g]),
                     np.add(_row_sum(C, h, cs.members), cs.w_g[h]),
                     cs.inv_p[g], cs.inv_p[h])
        else:
            t = term(np.subtract(U[(g, h)], U[(h, g)]), None, cs.inv_u[(g, h)], None)
        out.append(t)
    return out


def _row_sum(C, g, members):
    """R_g = sum over h != g of C[g][h], an exact integer."""
    total = 0
    for h in members:
        if h != g:
            total = np.add(total, C[(g, h)])
    return total


def kgroup_disparity(C, U, cs, metric, mode, pairs=None):
    """D: the maximum over the pairs of ``|term|`` (``signed``: the one pair's term);
    ``pairs`` defaults to every pair ``g < h`` of ``cs.members``."""
    if pairs is None:
        pairs = [(g, h) for g, h in ordered_pairs(cs.members) if g < h]
    terms = pair_terms(C, U, cs, metric, pairs)
    if mode == "signed":
        return terms[0]
    d = None
    for t in terms:
        d = np.abs(t) if d is None else np.maximum(d, np.abs(t))
    return d


def kgroup_auc(C, cs):
    """auc = ((double)(sum of all C) + w) * inv_auc."""
    total = 0
    for pair in ordered_pairs(cs.members):
        total = np.add(total, C[pair])
    return np.add(total, cs.w) * cs.inv_auc


def kgroup_ghat(C, U, cs, lam, metric, mode):
    """g = auc - lam * D, elementwise over the cells."""
    d = kgroup_disparity(C, U, cs, metric, mode)
    return kgroup_auc(C, cs) - np.multiply(d, lam)


def kgroup_values(C, U, cs, lam, metric, mode):
    """``(objective, auc, |D|)`` of one cell's (int) counters."""
    a = float(kgroup_auc(C, cs))
    g = float(kgroup_ghat(C, U, cs, lam, metric, mode))
    return g, a, float(kgroup_disparity(C, U, cs, metric, "absolute"))


class KdObjective:
    """State, step gains and G-hat of the K candidates of every cell of a K-D
    hyperplane, all at once (``_kd``).

    State rows (float64 holding exact integers): ``C[g][h]`` for the pairs ``g < h``
    (rows ``0..P-1``, in ``ordered_pairs`` order), then ``C[h][g]`` in the same pair
    order (rows ``P..2P-1``), and for URF ``U[g][h] - U[h][g]`` (rows ``2P..3P-1``; the
    final ``U`` follow from ``U[g][h] + U[h][g] = n_g n_h``). The operation sequence is
    :func:`kgroup_ghat`'s.
    """

    def __init__(self, prob, cs, lam):
        k = prob.k
        self.metric, self.signed, self.lam = prob.metric, prob.mode == "signed", lam
        self.pairs = [(g, h) for g, h in ordered_pairs(range(k)) if g < h]
        n_p = len(self.pairs)
        self.row = {}
        for p, (g, h) in enumerate(self.pairs):
            self.row[(g, h)], self.row[(h, g)] = p, n_p + p
        kinds = COUNTER_KINDS[self.metric]
        self.has_u = kinds.has_u
        self.n_rows = kinds.state_rows * n_p

        def col(values):  # one value per pair, against (pairs, K, L) candidate rows
            return np.array(values, dtype=np.float64)[:, None, None]

        self.inv_lo = col([cs.inv_x[(g, h)] for g, h in self.pairs])
        self.inv_hi = col([cs.inv_x[(h, g)] for g, h in self.pairs])
        self.inv_u = col([cs.inv_u[(g, h)] for g, h in self.pairs])
        self.own_rows = [[self.row[(g, h)] for h in range(k) if h != g] for g in range(k)]
        self.w_g = [cs.w_g[g] for g in range(k)]
        self.inv_p = [cs.inv_p[g] for g in range(k)]
        self.w, self.inv_auc = cs.w, cs.inv_auc
        # the gains of a step along g: C[g][h] += y * (n_h0 - Q_h(x_h)); U[g][h] +=
        # r_g (n_h - x_h) (r_g: the row's items, its weight on U; n_h - x_h: the items
        # of h not yet placed), which moves U[g][h] - U[h][g] up (g < h) or down (g > h)
        self.gain_rows = [[(h, self.row[(g, h)], 2 * n_p + self.row[(min(g, h), max(g, h))],
                            1.0 if g < h else -1.0) for h in range(k) if h != g]
                          for g in range(k)]
        # weight[g][x]: the items of row x - 1 of g; items_left[g][x]: those of g below
        # its first x rows (a problem of items: 1 and n_g - x)
        self.weight = [np.concatenate(([0.0], prob.weight(g))) for g in range(k)]
        self.items_left = [prob.n_items(g) - np.concatenate(([0], np.cumsum(prob.weight(g))))
                           .astype(np.float64) for g in range(k)]

    def add_gains(self, cand, x, ys, negleft):
        """Add to the candidates ``cand`` (rows, K, L) the gains of the step along each
        axis into cells with coordinates ``x`` (``ys[g][x]``: label of item x - 1)."""
        k, length = len(x), cand.shape[2]
        left = [negleft[h][x[h]] for h in range(k)]
        gain = np.empty(length)
        urf = self.has_u
        if urf:
            items_left = [self.items_left[h][x[h]] for h in range(k)]
        for g in range(k):
            y_item = ys[g][x[g]]
            if urf:
                r_item = self.weight[g][x[g]]
            for h, row, u_row, sign in self.gain_rows[g]:
                np.add(cand[row, g], np.multiply(y_item, left[h], gain), cand[row, g])
                if urf:
                    cand[u_row, g] += np.multiply(r_item, items_left[h], gain) * sign

    def values(self, cand):
        """G-hat of ``cand`` (rows, K candidates, L cells); returns ``(K, L)``."""
        n_p = len(self.pairs)
        auc = np.add(cand[0], cand[1])  # exact integer: every C (row by row: NumPy's
        for row in cand[2:2 * n_p]:      # reductions over an outer axis are slow here)
            np.add(auc, row, auc)
        np.add(auc, self.w, auc)
        np.multiply(auc, self.inv_auc, auc)
        metric = self.metric
        if metric == "prf":
            # P_g of every group (R_g: the sum of its rows C[g][h])
            p = []
            for g, rows in enumerate(self.own_rows):
                r = np.add(cand[rows[0]], cand[rows[1]]) if len(rows) > 1 else (
                    cand[rows[0]].copy())
                for row in rows[2:]:
                    np.add(r, cand[row], r)
                p.append(prf_share(r, self.w_g[g], self.inv_p[g], r))
            if self.signed:  # P_0 - P_1
                d = np.subtract(p[0], p[1])
            else:
                high, low = p[0].copy(), p[0].copy()
                for q in p[1:]:
                    np.maximum(high, q, out=high)
                    np.minimum(low, q, out=low)
                d = np.subtract(high, low, high)
        else:
            # the term of every pair g < h: rows by kind, (kinds, pairs, K, L)
            first, second = term_operands(cand.reshape((-1, n_p) + cand.shape[1:]), metric)
            scale_first = self.inv_u if self.has_u else self.inv_lo
            terms = PAIR_TERM[metric](first, second, scale_first, self.inv_hi)
            if self.signed:
                d = terms[0]
            else:
                np.abs(terms, terms)
                d = terms[0]
                for term in terms[1:]:
                    np.maximum(d, term, out=d)
        if self.lam:  # else auc - 0 * d = auc exactly (d is finite)
            np.subtract(auc, np.multiply(d, self.lam), auc)
        return auc
