"""K-group xOrder: per-group prefix counts, G-hat constants and G-hat.

docs/design.md, section 4.

Shared by the K-dimensional DP (``_kd``) and iterative xOrder (``_iterative``).
Groups are indices ``0..K-1`` (sorted group labels). Counters are held in dicts keyed by
ordered pairs ``(g, h)``: ``C[(g, h)]`` positives of g above negatives of h, ``U[(g, h)]``
any item of g above any item of h (URF only). A value is an int64 array (one entry per
cell) or a Python int (a counter that is the same in every cell).

G-hat is one fixed float64 operation sequence; for two groups it is exactly the sequence
of ``_ghat.ghat`` (integer counter sums are exact, so their order does not matter; every
float operation is the two-group one), hence both give the same decisions.
"""

from dataclasses import dataclass

import numpy as np

from ._counting import half_wins2
from ._lattice import _inv, dp_order


@dataclass(frozen=True, eq=False)
class KProblem:
    """Per-group data of a K-group problem, each group in DP (descending score) order."""

    metric: str
    mode: str
    perms: tuple       # input indices of every group, DP order
    ys: tuple          # int64 labels of every group, DP order
    negleft: tuple     # negleft[g][x] = n_g0 - Q_g(x), length n_g + 1
    w2: tuple          # twice the within-group positive-above-negative pairs (ties 1/2)

    @property
    def k(self):
        return len(self.perms)

    @property
    def sizes(self):
        return tuple(p.size for p in self.perms)

    def n1(self, g):
        return int(self.ys[g].sum())

    def n0(self, g):
        return self.ys[g].size - self.n1(g)


def build_problem(scores, y, group_index, k, metric, mode):
    """Sort every group and precompute its prefix counts (inputs assumed validated)."""
    perms, ys, negleft, w2 = [], [], [], []
    for g in range(k):
        m = np.flatnonzero(group_index == g)
        perm = m[dp_order(scores[m])]
        yg = y[perm].astype(np.int64)
        n0 = yg.size - int(yg.sum())
        perms.append(perm)
        ys.append(yg)
        negleft.append((n0 - np.concatenate(([0], np.cumsum(1 - yg)))).astype(np.int64))
        s = scores[perm]
        w2.append(half_wins2(s[yg == 1], s[yg == 0]))
    return KProblem(metric=metric, mode=mode, perms=tuple(perms), ys=tuple(ys),
                    negleft=tuple(negleft), w2=tuple(w2))


@dataclass(frozen=True)
class KConstants:
    """G-hat constants of the groups ``members`` (sorted), reciprocals as in
    ``_lattice.build_lattice``; ``inv_x[(g, h)] = 1 / (n_g1 n_h0)``,
    ``inv_p[g] = 1 / (n_g1 n_0)``, ``inv_u[(g, h)] = 1 / (n_g n_h)``."""

    members: tuple
    w: float
    w_g: dict
    inv_auc: float
    inv_x: dict
    inv_p: dict
    inv_u: dict


def build_constants(prob, members):
    """Constants of G-hat restricted to the groups ``members`` (iterative xOrder's
    objective after merging them; all groups for the K-D DP)."""
    members = tuple(sorted(members))
    n1 = {g: prob.n1(g) for g in members}
    n0 = {g: prob.n0(g) for g in members}
    size = {g: n1[g] + n0[g] for g in members}
    tot1, tot0 = sum(n1.values()), sum(n0.values())
    pairs = [(g, h) for g in members for h in members if g != h]
    return KConstants(
        members=members,
        w=sum(prob.w2[g] for g in members) / 2.0,
        w_g={g: prob.w2[g] / 2.0 for g in members},
        inv_auc=_inv(tot1 * tot0),
        inv_x={(g, h): _inv(n1[g] * n0[h]) for g, h in pairs},
        inv_p={g: _inv(n1[g] * tot0) for g in members},
        inv_u={(g, h): _inv(size[g] * size[h]) for g, h in pairs if g < h},
    )


def ordered_pairs(members):
    """Ordered pairs ``(g, h)``, ``g != h``, lexicographic: the counter layout."""
    return [(g, h) for g in members for h in members if g != h]


def counter_names(metric, members):
    """``[("C", g, h), ...]`` (then ``("U", g, h)`` for URF) in layout order."""
    pairs = ordered_pairs(members)
    names = [("C", g, h) for g, h in pairs]
    if metric == "urf":
        names += [("U", g, h) for g, h in pairs]
    return names


def pair_terms(C, U, cs, metric, pairs):
    """The signed disparity term of every unordered pair ``g < h`` in ``pairs``."""
    out = []
    for g, h in pairs:
        if metric == "xauc":
            # C[g][h] * inv(n_g1 n_h0) - C[h][g] * inv(n_h1 n_g0)
            t = np.multiply(C[(g, h)], cs.inv_x[(g, h)]) - np.multiply(C[(h, g)],
                                                                       cs.inv_x[(h, g)])
        elif metric == "prf":
            # ((double)R_g + w_g) * inv_p[g] - ((double)R_h + w_h) * inv_p[h]
            t = (np.add(_row_sum(C, g, cs.members), cs.w_g[g]) * cs.inv_p[g]
                 - np.add(_row_sum(C, h, cs.members), cs.w_g[h]) * cs.inv_p[h])
        else:
            # (double)(U[g][h] - U[h][g]) * inv(n_g n_h)
            t = np.multiply(np.subtract(U[(g, h)], U[(h, g)]), cs.inv_u[(g, h)])
        out.append(t)
    return out


def row_terms(metric, c_gh, c_hg, u_diff, inv_gh, inv_hg, inv_u):
    """Disparity terms of pairs held as state rows (float64 exact integers), the
    operation sequence of :func:`pair_terms`: xAUC ``C[g][h] * inv_x[(g, h)] - C[h][g] *
    inv_x[(h, g)]``, URF ``(U[g][h] - U[h][g]) * inv_u`` (``u_diff`` holds the
    difference). Shared by the K-D fill and the iterative step."""
    if metric == "xauc":
        terms = np.multiply(c_gh, inv_gh)
        return np.subtract(terms, np.multiply(c_hg, inv_hg), terms)
    return np.multiply(u_diff, inv_u)


def _row_sum(C, g, members):
    """R_g = sum over h != g of C[g][h], an exact integer."""
    total = 0
    for h in members:
        if h != g:
            total = np.add(total, C[(g, h)])
    return total


def disparity(C, U, cs, metric, mode, pairs=None, floor=None):
    """D: the maximum over the pairs of ``|term|`` (``signed``: the one pair's term).

    ``pairs`` defaults to every pair of ``cs.members``; ``floor`` is the already computed
    maximum of the pairs left out (constant over the cells; the maximum is exact, so
    splitting it changes no bit).
    """
    if pairs is None:
        pairs = [(g, h) for g, h in ordered_pairs(cs.members) if g < h]
    terms = pair_terms(C, U, cs, metric, pairs)
    if mode == "signed":
        return terms[0]
    d = None
    for t in terms:
        d = np.abs(t) if d is None else np.maximum(d, np.abs(t))
    if floor is not None:
        d = floor if d is None else np.maximum(d, floor)
    return d


def auc(C, cs):
    """auc = ((double)(sum of all C) + w) * inv_auc."""
    total = 0
    for pair in ordered_pairs(cs.members):
        total = np.add(total, C[pair])
    return np.add(total, cs.w) * cs.inv_auc


def ghat(C, U, cs, lam, metric, mode, pairs=None, floor=None):
    """g = auc - lam * D, elementwise over the cells."""
    d = disparity(C, U, cs, metric, mode, pairs, floor)
    return auc(C, cs) - np.multiply(d, lam)


def final_values(C, U, cs, lam, metric, mode):
    """``(objective, auc, |D|)`` of one cell's (int) counters."""
    a = float(auc(C, cs))
    g = float(ghat(C, U, cs, lam, metric, mode))
    return g, a, float(disparity(C, U, cs, metric, "absolute"))
