"""Groups of a problem: their sorted orders, prefix counts and the G-hat constants.

docs/design.md, sections 3.1 and 4. G-hat itself is ``_objective``'s (``kgroup_ghat``,
``KdObjective``, ``StepObjective``).

Shared by every lattice: the two-group lattice (``_lattice.build_lattice``), the
K-dimensional DP (``_kd``) and iterative xOrder (``_iterative``).
Groups are indices ``0..K-1`` (sorted group labels). Counters are held in dicts keyed by
ordered pairs ``(g, h)``: ``C[(g, h)]`` positives of g above negatives of h, ``U[(g, h)]``
any item of g above any item of h (URF only). A value is an int64 array (one entry per
cell) or a Python int (a counter that is the same in every cell).
"""

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ._counting import half_wins2_within


def dp_order(scores):
    """Indices that sort ``scores`` descending, equal scores keeping input order."""
    return np.argsort(-scores, kind="stable")


def _inv(den):
    # A zero denominator belongs to a metric term the chosen metric never reads
    # (validation rejects the others), so 0.0 keeps the constant finite.
    return 1.0 / den if den else 0.0


@dataclass(frozen=True, eq=False)
class KProblem:
    """Per-group data of a K-group problem, each group in DP (descending score) order.

    A *problem of runs* (:func:`runs_problem`) has one row per run of equal scores of a
    group: ``ys[g][x]`` counts the positives of run x, ``weights[g][x]`` its items (the
    weight on U, ``_lattice``), ``negleft`` counts negatives of items at every run
    boundary; ``sizes`` are the runs, ``n_items`` the items, ``perms`` the items' input
    indices (:func:`expand_runs` turns a path of runs into one of items). ``weights``
    None: a problem of items, every weight 1.
    """

    metric: str
    mode: str
    perms: tuple       # input indices of every group, DP order
    ys: tuple          # int64 labels (positives per row) of every group, DP order
    negleft: tuple     # negleft[g][x] = n_g0 - Q_g(x), length sizes[g] + 1
    w2: tuple          # twice the within-group positive-above-negative pairs (ties 1/2)
    weights: tuple = None  # items per row of every group (a problem of runs)

    @property
    def k(self):
        return len(self.perms)

    @property
    def sizes(self):
        """Rows of every group's axis: items, or runs in a problem of runs."""
        return tuple(y.size for y in self.ys)

    def weight(self, g):
        """The items of every row of group g (int64; ones for a problem of items)."""
        if self.weights is None:
            return np.ones(self.ys[g].size, dtype=np.int64)
        return self.weights[g]

    def n_items(self, g):
        return int(self.perms[g].size)

    def n1(self, g):
        return int(self.ys[g].sum())

    def n0(self, g):
        return self.n_items(g) - self.n1(g)


def build_problem(scores, y, group_index, k, metric, mode, perms=None):
    """Sort every group and precompute its prefix counts (inputs assumed validated).

    ``perms``: the input indices of every group in DP order, where the caller has sorted
    them already (the GPU engine sorts on the device); they must be ``dp_order``'s.
    """
    given, perms, ys, negleft, w2 = perms, [], [], [], []
    for g in range(k):
        if given is None:
            m = np.flatnonzero(group_index == g)
            perm = m[dp_order(scores[m])]
        else:
            perm = np.asarray(given[g])
        yg = y[perm].astype(np.int64)
        n0 = yg.size - int(yg.sum())
        perms.append(perm)
        ys.append(yg)
        negleft.append((n0 - np.concatenate(([0], np.cumsum(1 - yg)))).astype(np.int64))
        s = scores[perm]
        w2.append(half_wins2_within(s, yg))  # s: descending
    return KProblem(metric=metric, mode=mode, perms=tuple(perms), ys=tuple(ys),
                    negleft=tuple(negleft), w2=tuple(w2))


def runs_problem(prob, scores):
    """The problem of runs of ``prob`` (a problem of items; ``scores`` its input scores):
    every run of equal scores of a group is one row (:class:`KProblem`), so that a path
    of it keeps each group's equal scores together; ``prob`` itself where every group's
    scores are distinct. The counters of a path are those of its items (exact)."""
    runs = [tie_runs(scores, perm) for perm in prob.perms]
    if all(r.size == p.size for r, p in zip(runs, prob.perms)):
        return prob
    ys, negleft = [], []
    for g, r in enumerate(runs):
        starts = np.concatenate(([0], np.cumsum(r)[:-1])).astype(np.int64)
        ys.append(np.add.reduceat(prob.ys[g], starts).astype(np.int64))
        negleft.append(prob.negleft[g][np.append(starts, prob.perms[g].size)])
    return KProblem(metric=prob.metric, mode=prob.mode, perms=prob.perms, ys=tuple(ys),
                    negleft=tuple(negleft), w2=prob.w2,
                    weights=tuple(r.astype(np.int64) for r in runs))


def tie_runs(scores, perm):
    """Lengths of the runs of equal scores of one group in DP order (``perm``: its
    items in DP order, by score descending, so equal scores are consecutive)."""
    x = np.asarray(scores)[perm]
    starts = np.flatnonzero(np.concatenate(([True], x[1:] != x[:-1])))
    return np.diff(np.append(starts, x.size))


def expand_runs(path, prob):
    """The path of items (group of every rank, top first) of a path of ``prob``'s rows:
    each row repeated by its items (the path itself for a problem of items)."""
    path = np.asarray(path)
    if prob.weights is None:
        return path
    counts = np.empty(path.size, dtype=np.int64)
    for g in range(prob.k):
        at = path == g
        counts[at] = prob.weights[g][:int(at.sum())]
    return np.repeat(path, counts)


@dataclass(frozen=True)
class KConstants:
    """G-hat constants of the groups ``members`` (sorted), the denominators as
    reciprocals (``_inv``); ``inv_x[(g, h)] = 1 / (n_g1 n_h0)``,
    ``inv_p[g] = 1 / (n_g1 n_0)``, ``inv_u[(g, h)] = 1 / (n_g n_h)``."""

    members: tuple
    w: float
    w_g: dict
    inv_auc: float
    inv_x: Mapping
    inv_p: dict
    inv_u: Mapping


def build_constants(prob, members):
    """Constants of G-hat restricted to the groups ``members`` (iterative xOrder's
    objective after merging them; all groups for the K-D DP)."""
    members = tuple(sorted(members))
    n1 = {g: prob.n1(g) for g in members}
    n0 = {g: prob.n0(g) for g in members}
    size = {g: n1[g] + n0[g] for g in members}
    tot1, tot0 = sum(n1.values()), sum(n0.values())
    return KConstants(
        members=members,
        w=sum(prob.w2[g] for g in members) / 2.0,
        w_g={g: prob.w2[g] / 2.0 for g in members},
        inv_auc=_inv(tot1 * tot0),
        inv_x=PairReciprocals(n1, n0, ordered=True),
        inv_p={g: _inv(n1[g] * tot0) for g in members},
        inv_u=PairReciprocals(size, size, ordered=False),
    )


class PairReciprocals(Mapping):
    """``{(g, h): 1 / (left[g] * right[h])}`` over the pairs of distinct members (only
    ``g < h`` unless ``ordered``), each computed when read: iterative xOrder reads the
    pairs of one group per step, and a dict of all K(K - 1) pairs per step would cost
    O(K^3) over the steps."""

    def __init__(self, left, right, ordered):
        self._left, self._right, self._ordered = left, right, ordered

    def _pairs(self):
        return ((g, h) for g in self._left for h in self._left
                if g != h and (self._ordered or g < h))

    def __getitem__(self, pair):
        g, h = pair
        if g == h or (not self._ordered and g > h) or g not in self._left or (
                h not in self._left):
            raise KeyError(pair)
        return _inv(self._left[g] * self._right[h])

    def __iter__(self):
        return self._pairs()

    def __len__(self):
        k = len(self._left)
        return k * (k - 1) // (1 if self._ordered else 2)


def group_dtype(k):
    """The smallest signed integer type holding the group indices ``0..k-1`` (int8 up to
    128 groups, so paths of few groups keep their one byte per rank)."""
    for dtype in (np.int8, np.int16, np.int32):
        if k - 1 <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int64)


def ordered_pairs(members):
    """Ordered pairs ``(g, h)``, ``g != h``, lexicographic: the counter layout."""
    return [(g, h) for g in members for h in members if g != h]
