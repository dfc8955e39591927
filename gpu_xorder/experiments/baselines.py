"""The paper's baselines, NumPy and SciPy only.

- :class:`PostLogit` (Kallus and Zhou 2019), post-processing: some groups' scores through
  a sigmoid. ``search="public"`` is the paper's public code (github.com/cuis15/xorder,
  ``experiment.py``): ``sigmoid(alpha * s - 2)`` on the probability ``s`` of every
  group but one, alpha in 0, 0.1, ..., 9.9, and the candidate of the least training
  disparity (more than two groups: every combination of one alpha per shifted group).
  ``search="joint"`` transforms ``logit(s)``, ``sigmoid(alpha * logit(s) + beta)``, of
  either group over a grid of alpha and beta; ``search="logit-alpha"`` the same with beta
  fixed (what ``search="alpha"`` computed before it was found to differ from the public
  code). A weight ``lam`` instead picks the best ``AUC - lam * D`` of the same table.
- :class:`CorrReg` (Beutel et al. 2019), in-processing: a linear model trained on the
  mean cross-entropy plus ``weight * |corr(A, r)|``, with ``r`` the score margin of
  sampled (upper, lower) pairs of the disparity and ``A`` which side of the disparity a
  pair counts for.
- :class:`ConstrainedRanker` (in the spirit of TFCO, Narasimhan et al. 2020): a linear
  scorer trained on a pairwise logistic loss subject to ``|D| <= max_disparity`` by
  gradient descent on the weights (sigmoid surrogate of ``D``) and ascent on a Lagrange
  multiplier (the disparity itself); the kept iterate is the best-AUC one among those
  meeting the constraint on the training data.

``D`` is the disparity of ``metric`` (``"xauc"``, ``"prf"`` or ``"urf"``) between the
groups, as :func:`gpu_xorder.metrics.disparity` measures it (more than two groups: the
largest over pairs).
"""

import itertools

import numpy as np

from .. import metrics
from ..utils import _params as params
from ..utils._validation import group_position

MSG_TWO_GROUPS = "the baselines handle two groups, got {n}"
SEARCHES = ("public", "joint", "logit-alpha")
MSG_SEARCH = "search must be one of 'public', 'joint', 'logit-alpha', got {value!r}"
MSG_SEARCH_ALPHA = (
    "search='alpha' is gone: it transformed logit(s), unlike the public code; use "
    "search='public' (the public code: sigmoid(alpha * s - 2) on the probability s) or "
    "search='logit-alpha' (the former 'alpha')"
)
MSG_PUBLIC_SIZE = (
    "the public search would try {n} combinations of alpha ({k} shifted groups, {a} "
    "alphas each), more than {limit}; pass a coarser alphas grid"
)
MSG_GROUP_MANY = "group names the one shifted group of two; with {n} groups leave it None"
MSG_METRIC = "unknown metric {value!r}; expected one of xauc, prf, urf"
MSG_ONE_LAM = "PostLogit picks by one lam, got a sequence of {k}"
MSG_NO_CEILING = "ConstrainedRanker needs max_disparity, a number in [0, 1], not None"
ALPHAS = np.round(np.arange(0.0, 10.0, 0.1), 1)
BETAS = np.arange(-4.0, 4.01, 1.0)
#: The public search's beta (github.com/cuis15/xorder, experiment.py: ``beta = -2.0``).
PUBLIC_BETA = -2.0
#: Most alpha combinations the public search evaluates (100 ** 2 with three groups).
MAX_COMBINATIONS = 200_000
#: How much wider each widening of the alpha grid is (same number of points).
WIDEN_FACTOR = 3.0
MSG_WIDEN = "widen must be an integer >= 0, got {value!r}"


def _logit(p):
    p = np.clip(np.asarray(p, dtype=np.float64), 1e-12, 1.0 - 1e-12)
    return np.log(p) - np.log1p(-p)


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def public_transform(scores, alpha, beta=PUBLIC_BETA):
    """The public code's map of a shifted group's probabilities,
    ``1 / (1 + exp(-(alpha * s + beta)))``, in its own formula."""
    return 1.0 / (1.0 + np.exp(-(alpha * np.asarray(scores, dtype=np.float64) + beta)))


def _two_groups(groups):
    groups = np.asarray(groups)
    labels = np.unique(groups)
    if labels.size != 2:
        raise ValueError(MSG_TWO_GROUPS.format(n=labels.size))
    return groups, labels


def _auc_and_disparity(scores, y, groups, metric):
    return metrics.auc(scores, y), metrics.disparity(scores, y, groups, metric)


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
    search : {"public", "joint", "logit-alpha"}, default="public"
        ``"public"``: every group but the last (sorted labels) through
        ``sigmoid(alpha * s + beta)`` of its probability ``s``, beta fixed at ``beta``
        (the public code: -2), alpha over ``alphas``, every combination of one alpha per
        shifted group (two groups: the first label is shifted, which is the group the
        public code shifts on all four bundled data sets). ``"joint"``: one of two groups
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
        one alpha per shifted group for ``"public"``.
    shifted_ : list
        The labels a ``"public"`` candidate shifts.
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
        if self.metric not in ("xauc", "prf", "urf"):
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
        if self.search == "public":
            self._fit_public(scores, np.asarray(y), np.asarray(sensitive_features), alphas)
            return self.select(self.lam)
        groups, labels = _two_groups(sensitive_features)
        betas = np.array([self.beta]) if self.search == "logit-alpha" else BETAS
        rows = []
        for g, group in enumerate(labels if self.group is None else [self.group]):
            moved = groups == group
            z = _logit(scores[moved])
            for alpha in alphas:
                for beta in betas:
                    adjusted = scores.copy()
                    adjusted[moved] = _sigmoid(alpha * z + beta)
                    rows.append((alpha, beta, g)
                                + _auc_and_disparity(adjusted, y, groups, self.metric))
        self.labels_ = labels if self.group is None else [self.group]
        self.table_ = np.array(rows)
        return self.select(self.lam)

    def _fit_public(self, scores, y, groups, alphas):
        """Every combination of one alpha per shifted group: AUC and ``D`` from the
        pair counts of every two groups, each count computed once per alpha pair that
        changes it (the same integers, and so the same floats, as
        :func:`gpu_xorder.metrics.disparity` computes)."""
        labels = np.unique(groups)
        if labels.size < 2:
            raise ValueError(MSG_TWO_GROUPS.format(n=labels.size))
        if self.group is not None and labels.size != 2:
            raise ValueError(MSG_GROUP_MANY.format(n=labels.size))
        # the errors of the metrics (a group without the positives or negatives the
        # metric divides by) before any work
        _auc_and_disparity(scores, y, groups, self.metric)
        shifted = list(labels[:-1]) if self.group is None else [
            labels[group_position(labels, self.group)]]
        k, m = labels.size, len(shifted)
        if alphas.size ** m > MAX_COMBINATIONS:
            raise ValueError(MSG_PUBLIC_SIZE.format(n=alphas.size ** m, k=m, a=alphas.size,
                                                    limit=MAX_COMBINATIONS))
        index = np.searchsorted(labels, groups)
        slot = {int(np.searchsorted(labels, g)): i for i, g in enumerate(shifted)}
        # versions[g][v]: group g's (positives, negatives, everyone) sorted, for alpha
        # index v (one version for an unshifted group)
        versions = []
        for g in range(k):
            members = scores[index == g]
            pos, neg = np.sort(members[y[index == g] == 1]), np.sort(members[y[index == g] == 0])
            if g in slot:
                versions.append([tuple(np.sort(public_transform(part, a, self.beta))
                                       for part in (pos, neg, members)) for a in alphas])
            else:
                versions.append([(pos, neg, np.sort(members))])
        combos = np.array(list(itertools.product(range(alphas.size), repeat=m)),
                          dtype=np.int64).reshape(-1, m)
        version = np.zeros((combos.shape[0], k), dtype=np.int64)
        for g, i in slot.items():
            version[:, g] = combos[:, i]
        pos = np.array([np.sum((index == g) & (y == 1)) for g in range(k)], dtype=np.int64)
        size = np.bincount(index, minlength=k)
        neg = size - pos
        c2 = np.zeros((combos.shape[0], k, k), dtype=np.int64)  # positives of g vs negatives of h
        u2 = np.zeros_like(c2)  # everyone of g vs everyone of h (URF)
        for g in range(k):
            for h in range(k):
                table_c = np.empty((len(versions[g]), len(versions[h])), dtype=np.int64)
                table_u = np.zeros_like(table_c)
                for vg, part_g in enumerate(versions[g]):
                    for vh, part_h in enumerate(versions[h]):
                        if g == h and vg != vh:
                            continue  # a group has one alpha at a time
                        table_c[vg, vh] = _wins2(part_g[0], part_h[1])
                        if self.metric == "urf" and g < h:
                            table_u[vg, vh] = _wins2(part_g[2], part_h[2])
                c2[:, g, h] = table_c[version[:, g], version[:, h]]
                if self.metric == "urf" and g < h:
                    u2[:, g, h] = table_u[version[:, g], version[:, h]]
        auc = c2.sum(axis=(1, 2)) / (2 * int(pos.sum()) * int(neg.sum()))
        disparity = np.zeros(combos.shape[0])
        for a in range(k):
            for b in range(a + 1, k):
                if self.metric == "xauc":
                    d = np.abs(c2[:, a, b] / (2 * int(pos[a]) * int(neg[b]))
                               - c2[:, b, a] / (2 * int(pos[b]) * int(neg[a])))
                elif self.metric == "prf":
                    n0 = int(neg.sum())
                    d = np.abs(c2[:, a, :].sum(axis=1) / (2 * int(pos[a]) * n0)
                               - c2[:, b, :].sum(axis=1) / (2 * int(pos[b]) * n0))
                else:
                    pairs = int(size[a]) * int(size[b])
                    d = np.abs(u2[:, a, b] - pairs) / pairs
                disparity = np.maximum(disparity, d)
        self.labels_ = labels
        self.shifted_ = [g.item() if hasattr(g, "item") else g for g in shifted]
        self.table_ = np.column_stack((alphas[combos], auc, disparity))

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
        if self.search == "public":
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
            if self.search == "public":
                scores[moved] = public_transform(scores[moved], alpha, beta)
            else:
                scores[moved] = _sigmoid(alpha * _logit(scores[moved]) + beta)
        return scores


def metric_pairs(y, groups, metric, n_pairs, rng):
    """Sampled pairs of the two sides of a disparity: ``(upper1, lower1, upper2,
    lower2)``, index arrays of ``n_pairs`` each, so that ``D`` is estimated by
    ``P(s[upper1] > s[lower1]) - P(s[upper2] > s[lower2])``.

    xauc: (positive of a, negative of b) against (positive of b, negative of a); prf:
    (positive of a, any negative) against (positive of b, any negative); urf: (a, b)
    against (b, a).
    """
    out = []
    for upper, lower in _sides(y, groups, metric):
        out += [rng.choice(upper, n_pairs), rng.choice(lower, n_pairs)]
    return tuple(out)


def _sides(y, groups, metric):
    """The index pools of :func:`metric_pairs`: ``((upper1, lower1), (upper2, lower2))``."""
    groups, (a, b) = _two_groups(groups)
    y = np.asarray(y)
    idx = {(g, lab): np.flatnonzero((groups == g) & (y == lab)) for g in (a, b)
           for lab in (0, 1)}
    everyone = {g: np.flatnonzero(groups == g) for g in (a, b)}
    negatives = np.flatnonzero(y == 0)
    if metric == "xauc":
        sides = ((idx[a, 1], idx[b, 0]), (idx[b, 1], idx[a, 0]))
    elif metric == "prf":
        sides = ((idx[a, 1], negatives), (idx[b, 1], negatives))
    elif metric == "urf":
        sides = ((everyone[a], everyone[b]), (everyone[b], everyone[a]))
    else:
        raise ValueError(MSG_METRIC.format(value=metric))
    return sides


class _Linear:
    """Standardised features and a linear score ``Z @ w + b``."""

    def _standardise(self, X, fit=False):
        X = np.asarray(X, dtype=np.float64)
        if fit:
            self.mean_ = X.mean(axis=0)
            scale = X.std(axis=0)
            self.scale_ = np.where(scale > 0, scale, 1.0)
        return (X - self.mean_) / self.scale_

    def decision_function(self, X):
        return self._standardise(X) @ self.coef_ + self.intercept_

    def predict_proba(self, X):
        p = _sigmoid(self.decision_function(X))
        return np.column_stack((1.0 - p, p))


class CorrReg(_Linear):
    """Linear model: cross-entropy + ``weight * |corr(A, r)|`` over sampled pairs.

    Beutel et al. 2019; L-BFGS from the unpenalised optimum.

    Parameters
    ----------
    weight : float, default=1.0
        Weight of the correlation penalty.
    metric : {"xauc", "prf", "urf"}, default="xauc"
        Whose pairs are sampled (:func:`metric_pairs`): ``A`` is 1 for the first side,
        0 for the second; ``r`` is the logit of the upper item minus that of the lower.
    n_pairs : int, default=5000
        Pairs sampled per side (once, with ``random_state``).
    l2 : float, default=1e-4
        A small ridge term, so that separable data keep finite weights.
    init : (coef, intercept), optional
        The unpenalised optimum on the same data (``weight=0``), where the penalised
        search starts (``|corr|`` is undefined at zero weights); default: fitted first.
    random_state : int, default=0
        Seed of the pair sampling.

    Attributes
    ----------
    coef_, intercept_ : ndarray, float
        The linear score's weights (of the standardised features) and intercept.
    penalty_ : float
        ``|corr|`` on the sampled pairs at the optimum.
    loss_ : float
        The mean cross-entropy.
    """

    def __init__(self, *, weight=1.0, metric="xauc", n_pairs=5000, l2=1e-4, init=None,
                 random_state=0):
        self.weight = weight
        self.init = init
        self.metric = metric
        self.n_pairs = n_pairs
        self.l2 = l2
        self.random_state = random_state

    def fit(self, X, y, *, sensitive_features):
        """Fit the weights on features, labels and groups.

        Parameters
        ----------
        X : array-like of shape (n, p)
            Features (standardised inside).
        y : array-like of shape (n,)
            0/1 labels.
        sensitive_features : array-like of shape (n,)
            The group of every row.

        Returns
        -------
        CorrReg
            The fitted model itself.
        """
        from scipy.optimize import minimize

        Z = self._standardise(X, fit=True)
        y = np.asarray(y, dtype=np.float64)
        rng = np.random.default_rng(self.random_state)
        u1, l1, u2, l2 = metric_pairs(y, sensitive_features, self.metric, self.n_pairs, rng)
        D = np.vstack((Z[u1] - Z[l1], Z[u2] - Z[l2]))  # pair differences: the margin is D @ w
        A = np.repeat([1.0, 0.0], len(u1))
        A_c = A - A.mean()
        sd_a = A_c.std()
        D_c = D - D.mean(axis=0)
        n, p = Z.shape

        def corr_and_grad(w):
            r_c = D_c @ w
            sd_r = max(r_c.std(), 1e-12)
            c = (A_c @ r_c) / (len(A) * sd_a * sd_r)
            grad = (A_c @ D_c) / (len(A) * sd_a * sd_r) - c * (r_c @ D_c) / (len(A) * sd_r**2)
            return c, grad

        def objective(theta):
            w, b = theta[:p], theta[p]
            margin = Z @ w + b
            loss = np.mean(np.logaddexp(0.0, margin) - y * margin)
            residual = (_sigmoid(margin) - y) / n
            grad = np.concatenate((Z.T @ residual + self.l2 * w, [residual.sum()]))
            loss += 0.5 * self.l2 * (w @ w)
            if self.weight > 0:
                c, g = corr_and_grad(w)
                loss += self.weight * abs(c)
                grad[:p] += self.weight * np.sign(c) * g
            return loss, grad

        weight = self.weight
        if self.init is None:
            self.weight = 0.0
            start = minimize(objective, np.zeros(p + 1), jac=True, method="L-BFGS-B",
                             options={"maxiter": 500}).x
            self.weight = weight
        else:
            start = np.append(self.init[0], self.init[1])
        result = minimize(objective, start, jac=True, method="L-BFGS-B",
                          options={"maxiter": 200}) if weight > 0 else None
        result = start if result is None else result.x
        self.coef_, self.intercept_ = result[:p], float(result[p])
        self.penalty_ = abs(float(corr_and_grad(self.coef_)[0]))
        margin = Z @ self.coef_ + self.intercept_
        self.loss_ = float(np.mean(np.logaddexp(0.0, margin) - y * margin))
        return self


class ConstrainedRanker(_Linear):
    """Linear scorer: pairwise logistic loss subject to ``|D| <= max_disparity``.

    Parameters
    ----------
    max_disparity : float, default=0.05
        The constraint on the training data's disparity.
    metric : {"xauc", "prf", "urf"}, default="xauc"
        The disparity ``D``.
    n_steps : int, default=200
        Steps of gradient descent on the weights and ascent on the multiplier.
    learning_rate, multiplier_rate : float, default=0.05, 2.0
        Step sizes of the weights (Adam) and of the multiplier.
    temperature : float, default=0.5
        Of the sigmoid surrogate ``P(s_u > s_l) ~ sigmoid((s_u - s_l) / temperature)``.
    n_pairs : int, default=2000
        Pairs sampled per side of the disparity and for the loss, afresh every step.
    check_every : int, default=10
        Steps between checkpoints (the training AUC and ``|D|`` measured exactly).
    random_state : int, default=0
        Seed of the pair sampling.

    Attributes
    ----------
    coef_, intercept_ : ndarray, float
        The linear score's weights (of the standardised features) and intercept.
    multiplier_ : float
        The Lagrange multiplier at the end.
    history_ : ndarray of shape (checkpoints, 3)
        Per checkpoint: step, training AUC, training ``|D|``.
    feasible_ : bool
        Whether the kept iterate meets the constraint on the training data; when none
        does, the one of the smallest ``|D|`` is kept.
    """

    def __init__(self, *, max_disparity=0.05, metric="xauc", n_steps=200,
                 learning_rate=0.05, multiplier_rate=2.0, temperature=0.5, n_pairs=2000,
                 check_every=10, random_state=0):
        self.max_disparity = max_disparity
        self.metric = metric
        self.n_steps = n_steps
        self.learning_rate = learning_rate
        self.multiplier_rate = multiplier_rate
        self.temperature = temperature
        self.n_pairs = n_pairs
        self.check_every = check_every
        self.random_state = random_state

    def fit(self, X, y, *, sensitive_features):
        """Fit the weights on features, labels and groups.

        Parameters
        ----------
        X : array-like of shape (n, p)
            Features (standardised inside).
        y : array-like of shape (n,)
            0/1 labels.
        sensitive_features : array-like of shape (n,)
            The group of every row.

        Returns
        -------
        ConstrainedRanker
            The fitted model itself.
        """
        eps = params.check("max_disparity", self.max_disparity)  # any real number type
        if eps is None:
            raise TypeError(MSG_NO_CEILING)
        Z = self._standardise(X, fit=True)
        y = np.asarray(y)
        groups = np.asarray(sensitive_features)
        rng = np.random.default_rng(self.random_state)
        pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
        p = Z.shape[1]
        w = np.zeros(p)
        m1 = np.zeros(p)
        m2 = np.zeros(p)
        mu = 0.0
        tau = self.temperature
        best, history = None, []
        sides = _sides(y, groups, self.metric)
        n = Z.shape[0]
        for step in range(1, int(self.n_steps) + 1):
            # every pair's gradient is Z[upper] - Z[lower]: gather the pair weights per
            # item (bincount) and multiply by Z once
            s = Z @ w
            i, j = rng.choice(pos, self.n_pairs), rng.choice(neg, self.n_pairs)
            weights = [(i, j, -_sigmoid(-(s[i] - s[j])) / self.n_pairs)]  # pairwise loss
            sides_hard, surrogate, parts = [], 0.0, []
            for k, (upper, lower) in enumerate(sides):
                u, l = rng.choice(upper, self.n_pairs), rng.choice(lower, self.n_pairs)
                margin = s[u] - s[l]
                sig = _sigmoid(margin / tau)
                surrogate += (1 if k == 0 else -1) * sig.mean()
                sides_hard.append(np.mean(margin > 0))
                parts.append((u, l, (1 if k == 0 else -1) * sig * (1 - sig)
                              / (tau * self.n_pairs)))
            for u, l, c in parts:
                weights.append((u, l, mu * np.sign(surrogate) * c))
            g = np.zeros(n)
            for u, l, c in weights:
                g += np.bincount(u, c, minlength=n) - np.bincount(l, c, minlength=n)
            grad = Z.T @ g
            m1 = 0.9 * m1 + 0.1 * grad
            m2 = 0.999 * m2 + 0.001 * grad**2
            w -= self.learning_rate * (m1 / (1 - 0.9**step)) / (
                np.sqrt(m2 / (1 - 0.999**step)) + 1e-8)
            hard = sides_hard[0] - sides_hard[1]  # the multiplier sees D itself
            mu = max(0.0, mu + self.multiplier_rate * (abs(hard) - eps))
            if step % self.check_every == 0 or step == self.n_steps:
                s = Z @ w
                auc, disp = _auc_and_disparity(s, y, groups, self.metric)
                history.append((step, auc, disp))
                feasible = disp <= eps
                key = (feasible, auc if feasible else -disp)
                if best is None or key > best[0]:
                    best = (key, w.copy())
        self.coef_, self.intercept_ = best[1], 0.0
        self.feasible_ = bool(best[0][0])
        self.multiplier_ = mu
        self.history_ = np.array(history)
        return self
