"""The objective of K groups, in one form (:class:`KTerms`): G-hat of one cell's pair
counters (:func:`kgroup_ghat`, :func:`kgroup_values`) and over the K-D hyperplanes
(:class:`KdObjective`).

docs/design.md, section 4. The disparity term is ``_objective``'s (``PAIR_TERM``,
``prf_share``), and so are the rules of exactness (its module docstring).
"""

import numpy as np

from ._kgroups import ordered_pairs
from ._lattice import COUNTER_KINDS
from ._objective import PAIR_TERM, prf_share, term_operands

# ------------------------------------------------------------------ K groups


class KTerms:
    """G-hat of K groups on state rows, the one form of it: of one cell's counters
    (:func:`kgroup_values`) and of the K candidates of every cell of a K-D hyperplane
    (:class:`KdObjective`).

    State rows (float64 holding exact integers), every row of shape ``(K, L)``:
    ``C[g][h]`` for the pairs ``g < h`` of ``pairs`` (rows ``0..P-1``; default every
    pair of ``cs.members`` in ``ordered_pairs`` order), then ``C[h][g]`` in the same pair
    order (rows ``P..2P-1``), and for URF ``U[g][h] - U[h][g]`` (rows ``2P..3P-1``; the
    final ``U`` follow from ``U[g][h] + U[h][g] = n_g n_h``). A subset of the pairs
    serves :meth:`disparity` of xAUC and URF only (PRF's shares need every pair of a
    group, AUC every pair).
    """

    def __init__(self, cs, metric, mode, pairs=None):
        members = cs.members
        every = [(g, h) for g, h in ordered_pairs(members) if g < h]
        assert pairs is None or metric != "prf", "PRF's D needs every pair"
        self.metric, self.signed = metric, mode == "signed"
        self.pairs = every if pairs is None else list(pairs)
        n_p = len(self.pairs)
        self.row = {}
        for p, (g, h) in enumerate(self.pairs):
            self.row[(g, h)], self.row[(h, g)] = p, n_p + p
        kinds = COUNTER_KINDS[metric]
        self.has_u = kinds.has_u
        self.n_rows = kinds.state_rows * n_p

        def col(values):  # one value per pair, against (pairs, K, L) candidate rows
            return np.array(values, dtype=np.float64)[:, None, None]

        self.inv_lo = col([cs.inv_x[(g, h)] for g, h in self.pairs])
        self.inv_hi = col([cs.inv_x[(h, g)] for g, h in self.pairs])
        self.inv_u = col([cs.inv_u[(g, h)] for g, h in self.pairs])
        if metric == "prf":
            self.own_rows = [[self.row[(g, h)] for h in members if h != g]
                             for g in members]
        self.w_g = [cs.w_g[g] for g in members]
        self.inv_p = [cs.inv_p[g] for g in members]
        self.w, self.inv_auc = cs.w, cs.inv_auc

    def state(self, C, U):
        """The state rows ``(rows, 1, 1)`` of one cell's int counters ``C[(g, h)]``,
        ``U[(g, h)]`` (dicts of the ordered pairs)."""
        rows = [C[(g, h)] for g, h in self.pairs] + [C[(h, g)] for g, h in self.pairs]
        if self.has_u:
            rows += [U[(g, h)] - U[(h, g)] for g, h in self.pairs]
        return np.array(rows, dtype=np.float64).reshape(-1, 1, 1)

    def auc(self, cand):
        """auc = ((double)(sum of every C) + w) * inv_auc, of the rows ``cand``: a new
        array."""
        n_p = len(self.pairs)
        auc = np.add(cand[0], cand[1])  # exact integer: every C (row by row: NumPy's
        for row in cand[2:2 * n_p]:      # reductions over an outer axis are slow here)
            np.add(auc, row, auc)
        np.add(auc, self.w, auc)
        return np.multiply(auc, self.inv_auc, auc)

    def disparity(self, cand, signed=None):
        """D of the rows ``cand``: the largest ``|term|`` over the pairs, or (signed)
        the first pair's term; ``signed`` defaults to the mode's."""
        signed = self.signed if signed is None else signed
        n_p = len(self.pairs)
        if self.metric == "prf":
            # P_g of every group (R_g: the sum of its rows C[g][h])
            p = []
            for g, rows in enumerate(self.own_rows):
                r = np.add(cand[rows[0]], cand[rows[1]]) if len(rows) > 1 else (
                    cand[rows[0]].copy())
                for row in rows[2:]:
                    np.add(r, cand[row], r)
                p.append(prf_share(r, self.w_g[g], self.inv_p[g], r))
            if signed:  # P_0 - P_1
                return np.subtract(p[0], p[1])
            # the largest |P_g - P_h| is P_max - P_min: rounding is monotone
            high, low = p[0].copy(), p[0].copy()
            for q in p[1:]:
                np.maximum(high, q, out=high)
                np.minimum(low, q, out=low)
            return np.subtract(high, low, high)
        # the term of every pair g < h: rows by kind, (kinds, pairs, K, L)
        first, second = term_operands(cand.reshape((-1, n_p) + cand.shape[1:]),
                                      self.metric)
        scale_first = self.inv_u if self.has_u else self.inv_lo
        terms = PAIR_TERM[self.metric](first, second, scale_first, self.inv_hi)
        if signed:
            return terms[0]
        np.abs(terms, terms)
        d = terms[0]
        for term in terms[1:]:
            np.maximum(d, term, out=d)
        return d

    def ghat(self, cand, lam):
        """G-hat ``auc - lam * D`` of the rows ``cand``, ``(K, L)``."""
        auc = self.auc(cand)
        if lam:  # else auc - 0 * d = auc exactly (d is finite)
            np.subtract(auc, np.multiply(self.disparity(cand), lam), auc)
        return auc


def kgroup_disparity(C, U, cs, metric, mode, pairs=None):
    """D of one cell's int counters: the largest ``|term|`` over ``pairs`` (default
    every pair ``g < h`` of ``cs.members``; a subset: xAUC and URF), signed: the first
    pair's term."""
    terms = KTerms(cs, metric, mode, pairs)
    return float(terms.disparity(terms.state(C, U))[0, 0])


def kgroup_ghat(C, U, cs, lam, metric, mode):
    """G-hat ``auc - lam * D`` of one cell's int counters."""
    terms = KTerms(cs, metric, mode)
    return float(terms.ghat(terms.state(C, U), lam)[0, 0])


def kgroup_values(C, U, cs, lam, metric, mode):
    """``(objective, auc, |D|)`` of one cell's int counters."""
    terms = KTerms(cs, metric, mode)
    state = terms.state(C, U)
    auc = float(terms.auc(state)[0, 0])
    return (float(terms.ghat(state, lam)[0, 0]), auc,
            float(terms.disparity(state, signed=False)[0, 0]))


class KdObjective(KTerms):
    """State, step gains and G-hat of the K candidates of every cell of a K-D
    hyperplane, all at once (``_kd``): :class:`KTerms`' rows and G-hat at ``lam``, and
    the gains of a step along each axis."""

    def __init__(self, prob, cs, lam):
        super().__init__(cs, prob.metric, prob.mode)
        k, n_p, self.lam = prob.k, len(self.pairs), lam
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
        """G-hat of ``cand`` (rows, K candidates, L cells) at ``lam``: ``(K, L)``."""
        return self.ghat(cand, self.lam)
