"""K-group xOrder: per-group prefix counts and the G-hat constants.

docs/design.md, section 4. G-hat itself is ``_objective``'s (``kgroup_ghat``,
``KdObjective``, ``StepObjective``).

Shared by the K-dimensional DP (``_kd``) and iterative xOrder (``_iterative``).
Groups are indices ``0..K-1`` (sorted group labels). Counters are held in dicts keyed by
ordered pairs ``(g, h)``: ``C[(g, h)]`` positives of g above negatives of h, ``U[(g, h)]``
any item of g above any item of h (URF only). A value is an int64 array (one entry per
cell) or a Python int (a counter that is the same in every cell).
"""

from dataclasses import dataclass

import numpy as np

from ._counting import half_wins2_within
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
        w2.append(half_wins2_within(s, yg))  # s: descending
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
