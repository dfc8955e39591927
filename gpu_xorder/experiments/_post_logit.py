"""PostLogit (Kallus and Zhou 2019): post-processing of some groups' scores by a
sigmoid, chosen on training scores (``baselines``: the searches)."""

import itertools

import numpy as np

from ..utils import _params as params
from ..utils._metrics import METRIC_NAMES
from ..utils._validation import group_position
from ._baseline_common import (
    MSG_METRIC,
    MSG_TWO_GROUPS,
    auc_and_disparity,
    logit,
    sigmoid,
    two_groups,
)

SEARCHES = ("public", "coordinate", "joint", "logit-alpha")
#: The searches of one alpha per shifted group through the public code's transform.
PUBLIC_TRANSFORM = ("public", "coordinate")
MSG_SEARCH = ("search must be one of 'public', 'coordinate', 'joint', 'logit-alpha', "
              "got {value!r}")
MSG_SEARCH_ALPHA = (
    "search='alpha' is gone: it transformed logit(s), unlike the public code; use "
    "search='public' (the public code: sigmoid(alpha * s - 2) on the probability s) or "
    "search='logit-alpha' (the former 'alpha')"
)
MSG_PUBLIC_SIZE = (
    "the public search would try {n} combinations of alpha ({k} shifted groups, {a} "
    "alphas each), more than {limit}; {advice}"
)
#: What the fit's caller may do about it (``PostLogit``'s: its ``alphas``).
ADVICE_ALPHAS = "pass a coarser alphas grid"
MSG_GROUP_MANY = "group names the one shifted group of two; with {n} groups leave it None"
MSG_ONE_LAM = "PostLogit picks by one lam, got a sequence of {k}"
ALPHAS = np.round(np.arange(0.0, 10.0, 0.1), 1)
BETAS = np.arange(-4.0, 4.01, 1.0)
#: The public search's beta (github.com/cuis15/xorder, experiment.py: ``beta = -2.0``).
PUBLIC_BETA = -2.0
#: Most alpha combinations the public search evaluates (100 ** 2 with three groups).
MAX_COMBINATIONS = 200_000
#: Most sweeps over the shifted groups of the coordinate search.
COORDINATE_SWEEPS = 20
#: How much wider each widening of the alpha grid is (same number of points).
WIDEN_FACTOR = 3.0
MSG_WIDEN = "widen must be an integer >= 0, got {value!r}"


def check_public_size(shifted, n_alphas=ALPHAS.size, advice=ADVICE_ALPHAS):
    """``ValueError`` (``MSG_PUBLIC_SIZE``) where the public search's every combination
    of ``n_alphas`` alphas for ``shifted`` groups exceeds ``MAX_COMBINATIONS``: asked by
    the fit and, before any repetition, by ``compare_methods``; ``advice``: what the
    caller can do (``compare_methods`` has no alphas grid)."""
    if n_alphas ** shifted > MAX_COMBINATIONS:
        raise ValueError(MSG_PUBLIC_SIZE.format(n=n_alphas ** shifted, k=shifted,
                                                a=n_alphas, limit=MAX_COMBINATIONS,
                                                advice=advice))


def public_transform(scores, alpha, beta=PUBLIC_BETA):
    """The public code's map of a shifted group's probabilities,
    ``1 / (1 + exp(-(alpha * s + beta)))``, in its own formula."""
    return 1.0 / (1.0 + np.exp(-(alpha * np.asarray(scores, dtype=np.float64) + beta)))


def _shifted(part, alpha, beta):
    """A group's sorted (positives, negatives, everyone) through the public transform."""
    return tuple(np.sort(public_transform(x, alpha, beta)) for x in part)


def _from_counts(c2, u2, pos, neg, size, metric, among=None):
    """AUC and ``D`` (the largest over pairs of groups) of candidates from their pair
    counts ``c2[c, g, h]`` (``2 #{positive of g > negative of h} + ties``) and, for
    Δ-URF, ``u2[c, g, h]`` (everyone of g against everyone of h, g < h). ``among``:
    the groups counted (AUC and ``D`` of those groups' items alone; default all)."""
    groups = list(range(pos.size)) if among is None else list(among)
    c2 = c2[:, groups][:, :, groups]
    pos, neg, size = pos[groups], neg[groups], size[groups]
    auc = c2.sum(axis=(1, 2)) / (2 * int(pos.sum()) * int(neg.sum()))
    disparity = np.zeros(c2.shape[0])
    for a in range(len(groups)):
        for b in range(a + 1, len(groups)):
            if metric == "xauc":
                d = np.abs(c2[:, a, b] / (2 * int(pos[a]) * int(neg[b]))
                           - c2[:, b, a] / (2 * int(pos[b]) * int(neg[a])))
            elif metric == "prf":
                n0 = int(neg.sum())
                d = np.abs(c2[:, a, :].sum(axis=1) / (2 * int(pos[a]) * n0)
                           - c2[:, b, :].sum(axis=1) / (2 * int(pos[b]) * n0))
            else:
                pairs = int(size[a]) * int(size[b])
                d = np.abs(u2[:, groups[a], groups[b]] - pairs) / pairs
            disparity = np.maximum(disparity, d)
    return auc, disparity


def _wins2(upper_sorted, lower_sorted):
    """``2 #{u > l} + #{u == l}`` of two sorted samples (as :func:`metrics.auc` counts)."""
    return int(np.searchsorted(lower_sorted, upper_sorted, side="left").sum(dtype=np.int64)
               + np.searchsorted(lower_sorted, upper_sorted, side="right").sum(
                   dtype=np.int64))


class PostLogit:
    """Post-processing of some groups' scores by a sigmoid, chosen on training scores.

    Kallus and Zhou 2019.

    Parameters
    ----------
    lam : float or None, default=None
        None: keep the candidate of the least training disparity (the public code's
        rule; the first in the table on ties); a number: the best ``AUC - lam * D``.
    metric : {"xauc", "prf", "urf"}, default="xauc"
        The disparity ``D``.
    search : {"public", "coordinate", "joint", "logit-alpha"}, default="public"
        ``"public"``: every group but the last (sorted labels) through
        ``sigmoid(alpha * s + beta)`` of its probability ``s``, beta fixed at ``beta``
        (the public code: -2), alpha over ``alphas``, every combination of one alpha per
        shifted group (two groups: the first label is shifted, which is the group the
        public code shifts on all four bundled data sets). ``"coordinate"``: the same
        transform and grid, but the alphas found by coordinate descent on the training
        ``D`` (each shifted group from its own best alpha against the last group, then
        one group at a time with the others held), for many groups, where every
        combination (``len(alphas) ** (groups - 1)``) does not fit; ``lam`` picks among
        the candidates it evaluated, and it may stop above the grid's least ``D``.
        ``"joint"``: one of two groups
        through ``sigmoid(alpha * logit(s) + beta)``, alpha over ``alphas`` and beta over
        :data:`BETAS`; ``"logit-alpha"``: the same with beta fixed at ``beta``.
    beta : float, default=-2.0
        The fixed beta of ``"public"`` and ``"logit-alpha"``.
    group : label, optional
        Two groups only: the group whose scores are transformed (default: ``"public"``
        the first label; the others: either, whichever scores higher).
    alphas : sequence of float, optional
        The alpha grid (default :data:`ALPHAS`, 0 to 9.9 by 0.1).
    widen : int, default=0
        Most times the alpha grid is widened: while a chosen alpha (of the candidate
        ``lam`` picks) is the grid's largest, the search runs again on the grid times
        :data:`WIDEN_FACTOR` (the same number of points, so the same cost, spaced that
        much wider). 0: the grid as given (the public code).

    Attributes
    ----------
    shifts_ : dict
        ``{label: (alpha, beta)}`` of every transformed group.
    table_ : ndarray
        Every candidate on the training scores, AUC and ``D`` its last two columns;
        before them ``alpha, beta, group index`` for ``"joint"`` and ``"logit-alpha"``,
        one alpha per shifted group for ``"public"`` and ``"coordinate"`` (its rows
        the candidates it evaluated, in order).
    shifted_ : list
        The labels a ``"public"`` or ``"coordinate"`` candidate shifts.
    alphas_ : ndarray
        The grid of the last search; its edges are ``alphas_[0]`` and ``alphas_[-1]``.
    widenings_ : int
        How often the grid was widened.
    interior_ : bool
        Whether every chosen alpha lies below the grid's largest (alpha below 0 would
        reverse a group's order, so 0 is the method's own edge, not the grid's).
    alpha_, beta_, group_ : float, float, label
        With two groups: the one transformed group's parameters.

    Notes
    -----
    ``scores`` are probabilities in (0, 1). :meth:`select` picks again from ``table_``
    without refitting.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 400); y = rng.integers(0, 2, 400)
    >>> s = 1 / (1 + np.exp(-(2 * y + a + rng.normal(size=400))))
    >>> fitted = PostLogit().fit(s, y, sensitive_features=a)
    >>> fitted.group_, fitted.alpha_, fitted.beta_
    (0, 5.3, -2.0)
    """

    def __init__(self, *, lam=None, metric="xauc", search="public", beta=PUBLIC_BETA,
                 group=None, alphas=None, widen=0):
        self.lam = lam
        self.metric = metric
        self.search = search
        self.beta = beta
        self.group = group
        self.alphas = alphas
        self.widen = widen

    def fit(self, scores, y, *, sensitive_features):
        """Score every candidate on the training scores and keep the one ``lam`` picks.

        Parameters
        ----------
        scores : array-like of shape (n,)
            Probabilities in (0, 1).
        y : array-like of shape (n,)
            0/1 labels.
        sensitive_features : array-like of shape (n,)
            The group of every item.

        Returns
        -------
        PostLogit
            The fitted baseline itself.
        """
        if self.search == "alpha":
            raise ValueError(MSG_SEARCH_ALPHA)
        if self.search not in SEARCHES:
            raise ValueError(MSG_SEARCH.format(value=self.search))
        if self.metric not in METRIC_NAMES:
            raise ValueError(MSG_METRIC.format(value=self.metric))
        if (isinstance(self.widen, bool) or not isinstance(self.widen, (int, np.integer))
                or self.widen < 0):
            raise ValueError(MSG_WIDEN.format(value=self.widen))
        alphas = ALPHAS if self.alphas is None else np.asarray(self.alphas, np.float64)
        for widenings in range(int(self.widen) + 1):
            self._fit_grid(scores, y, sensitive_features, alphas)
            top = alphas.max()
            self.interior_ = all(a < top for a, _ in self.shifts_.values())
            if self.interior_ or top <= 0 or widenings == self.widen:
                break
            alphas = np.round(alphas * WIDEN_FACTOR, 12)  # 3 * 9.9 reads 29.7
        self.alphas_, self.widenings_ = alphas, widenings
        return self

    def _fit_grid(self, scores, y, sensitive_features, alphas):
        """One search over the grid ``alphas``: ``table_`` and the choice of ``lam``."""
        scores = np.asarray(scores, dtype=np.float64)
        if self.search in PUBLIC_TRANSFORM:
            fit = self._fit_public if self.search == "public" else self._fit_coordinate
            fit(scores, np.asarray(y), np.asarray(sensitive_features), alphas)
            return self.select(self.lam)
        groups, labels = two_groups(sensitive_features)
        betas = np.array([self.beta]) if self.search == "logit-alpha" else BETAS
        rows = []
        for g, group in enumerate(labels if self.group is None else [self.group]):
            moved = groups == group
            z = logit(scores[moved])
            for alpha in alphas:
                for beta in betas:
                    adjusted = scores.copy()
                    adjusted[moved] = sigmoid(alpha * z + beta)
                    rows.append((alpha, beta, g)
                                + auc_and_disparity(adjusted, y, groups, self.metric))
        self.labels_ = labels if self.group is None else [self.group]
        self.table_ = np.array(rows)
        return self.select(self.lam)

    def _groups(self, scores, y, groups):
        """What both searches over one alpha per shifted group share: the labels, the
        shifted ones, every item's group index, each group's positives, negatives and
        members sorted (raw scores), and the groups' counts."""
        labels = np.unique(groups)
        if labels.size < 2:
            raise ValueError(MSG_TWO_GROUPS.format(n=labels.size))
        if self.group is not None and labels.size != 2:
            raise ValueError(MSG_GROUP_MANY.format(n=labels.size))
        # the errors of the metrics (a group without the positives or negatives the
        # metric divides by) before any work
        auc_and_disparity(scores, y, groups, self.metric)
        shifted = list(labels[:-1]) if self.group is None else [
            labels[group_position(labels, self.group)]]
        index = np.searchsorted(labels, groups)
        parts = []
        for g in range(labels.size):
            members, labels_g = scores[index == g], y[index == g]
            parts.append((np.sort(members[labels_g == 1]), np.sort(members[labels_g == 0]),
                          np.sort(members)))
        pos = np.array([p.size for p, _, _ in parts], dtype=np.int64)
        size = np.array([m.size for _, _, m in parts], dtype=np.int64)
        self.labels_ = labels
        self.shifted_ = [g.item() if hasattr(g, "item") else g for g in shifted]
        slot = {int(np.searchsorted(labels, g)): i for i, g in enumerate(shifted)}
        return slot, parts, pos, size - pos, size

    def _fit_public(self, scores, y, groups, alphas):
        """Every combination of one alpha per shifted group: AUC and ``D`` from the
        pair counts of every two groups, each count computed once per alpha pair that
        changes it (the same integers, and so the same floats, as
        :func:`gpu_xorder.metrics.disparity` computes)."""
        slot, parts, pos, neg, size = self._groups(scores, y, groups)
        k, m = len(parts), len(slot)
        check_public_size(m, alphas.size)
        # versions[g][v]: group g's (positives, negatives, everyone) sorted, for alpha
        # index v (one version for an unshifted group)
        versions = [[_shifted(part, a, self.beta) for a in alphas] if g in slot else [part]
                    for g, part in enumerate(parts)]
        combos = np.array(list(itertools.product(range(alphas.size), repeat=m)),
                          dtype=np.int64).reshape(-1, m)
        version = np.zeros((combos.shape[0], k), dtype=np.int64)
        for g, i in slot.items():
            version[:, g] = combos[:, i]
        # positives of g against negatives of h
        c2 = np.zeros((combos.shape[0], k, k), dtype=np.int64)
        u2 = np.zeros_like(c2)  # everyone of g vs everyone of h (URF)
        for g in range(k):
            for h in range(k):
                table_c = np.empty((len(versions[g]), len(versions[h])), dtype=np.int64)
                table_u = np.zeros_like(table_c)
                for vg, part_g in enumerate(versions[g]):
                    for vh, part_h in enumerate(versions[h]):
                        if g == h and vg != vh:
                            continue  # a group has one alpha at a time
                        table_c[vg, vh], table_u[vg, vh] = self._pair_counts(
                            part_g, part_h, g < h)
                c2[:, g, h] = table_c[version[:, g], version[:, h]]
                u2[:, g, h] = table_u[version[:, g], version[:, h]]
        auc, disparity = _from_counts(c2, u2, pos, neg, size, self.metric)
        self.table_ = np.column_stack((alphas[combos], auc, disparity))

    def _pair_counts(self, part_g, part_h, upper):
        """``2 #{positive of g > negative of h} + ties``, and (Δ-URF, ``upper``: g
        before h) the same of everyone of g against everyone of h."""
        return (_wins2(part_g[0], part_h[1]),
                _wins2(part_g[2], part_h[2]) if self.metric == "urf" and upper else 0)

    def _fit_coordinate(self, scores, y, groups, alphas):
        """One alpha per shifted group by coordinate descent on the training ``D``:
        each shifted group starts at the alpha of the least ``D`` against the last
        (unshifted) group alone, then, group after group, moves to the alpha of the
        least largest-pair ``D`` with the others held, until a sweep moves none (at
        most :data:`COORDINATE_SWEEPS` sweeps). Every candidate evaluated is a row of
        ``table_``, with the same AUC and ``D`` as the public search's row of those
        alphas."""
        slot, parts, pos, neg, size = self._groups(scores, y, groups)
        k = len(parts)
        cache = {}

        def version(g, v):  # group g's sorted parts at alpha index v (v None: raw)
            if v is None:
                return parts[g]
            if (g, v) not in cache:
                cache[g, v] = _shifted(parts[g], alphas[v], self.beta)
            return cache[g, v]

        def tries(g, state, among):
            """``(v, AUC, D)`` of every alpha index v of group g, the other groups of
            ``among`` held at ``state`` (only g's row and column of counts change)."""
            c2, u2 = np.zeros((1, k, k), np.int64), np.zeros((1, k, k), np.int64)
            for h in among:
                for j in among:
                    if g not in (h, j):
                        c2[0, h, j], u2[0, h, j] = self._pair_counts(
                            version(h, state.get(h)), version(j, state.get(j)), h < j)
            out = []
            for v in range(alphas.size):
                mine = version(g, v)
                for h in among:
                    other = mine if h == g else version(h, state.get(h))
                    c2[0, g, h], u2[0, g, h] = self._pair_counts(mine, other, g < h)
                    c2[0, h, g], u2[0, h, g] = self._pair_counts(other, mine, h < g)
                auc, d = _from_counts(c2, u2, pos, neg, size, self.metric, among=among)
                out.append((v, float(auc[0]), float(d[0])))
            return out

        rows, state, last, every = [], {}, k - 1, tuple(range(k))
        for g in slot:  # the start: each shifted group against the unshifted one alone
            state[g] = min(tries(g, {}, (g, last)), key=lambda r: r[2])[0]
        for _ in range(COORDINATE_SWEEPS):
            moved = False
            for g in slot:
                tried = tries(g, state, every)
                rows += [[alphas[v if h == g else state[h]] for h in slot] + [auc, d]
                         for v, auc, d in tried]
                v = min(tried, key=lambda r: r[2])[0]
                if tried[v][2] < tried[state[g]][2]:
                    state[g], moved = v, True
            if not moved:
                break
        self.table_ = np.array(rows, dtype=np.float64)

    def select(self, lam):
        """Keep the candidate of ``table_`` that ``lam`` picks, without refitting.

        Parameters
        ----------
        lam : float or None
            None: the candidate of the least ``D``; a number: the best
            ``AUC - lam * D``.

        Returns
        -------
        PostLogit
            The baseline itself, its ``shifts_`` set to the candidate picked.
        """
        auc, d = self.table_[:, -2], self.table_[:, -1]
        if lam is not None:  # any real number type, by the parameter table
            values, batch = params.check("lam", lam)
            if batch:
                raise ValueError(MSG_ONE_LAM.format(k=values.size))
            lam = float(values[0])
        best = int(np.argmin(d) if lam is None else np.argmax(auc - lam * d))
        self.lam_ = lam
        row = self.table_[best]
        if self.search in PUBLIC_TRANSFORM:
            self.shifts_ = {g: (float(row[i]), float(self.beta))
                            for i, g in enumerate(self.shifted_)}
        else:
            group = np.asarray(self.labels_)[int(row[2])].item()
            self.shifts_ = {group: (float(row[0]), float(row[1]))}
        if len(self.shifts_) == 1:
            (self.group_, (self.alpha_, self.beta_)), = self.shifts_.items()
        return self

    def transform(self, scores, *, sensitive_features):
        """Map the scores of the transformed groups through their fitted sigmoids.

        Parameters
        ----------
        scores : array-like of shape (n,)
            Probabilities in (0, 1).
        sensitive_features : array-like of shape (n,)
            The group of every item.

        Returns
        -------
        ndarray of shape (n,)
            The adjusted scores (a new array; the others' scores unchanged).
        """
        scores = np.array(scores, dtype=np.float64)
        groups = np.asarray(sensitive_features)
        for group, (alpha, beta) in self.shifts_.items():
            moved = groups == group
            if self.search in PUBLIC_TRANSFORM:
                scores[moved] = public_transform(scores[moved], alpha, beta)
            else:
                scores[moved] = sigmoid(alpha * logit(scores[moved]) + beta)
        return scores
