"""The paper's baselines, two groups, NumPy and SciPy only.

- :class:`PostLogit` (Kallus and Zhou 2019), post-processing: the scores of one group
  through ``sigmoid(alpha * logit(s) + beta)``, the parameters chosen on training scores
  to maximise ``AUC - lam * D``. ``search="alpha"`` is the paper's public code (beta
  fixed at -2, alpha in 0, 0.1, ..., 9.9); ``search="joint"`` adds a grid of beta.
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
two groups, as :func:`gpu_xorder.metrics.disparity` measures it.
"""

import numpy as np

from .. import metrics

MSG_TWO_GROUPS = "the baselines handle two groups, got {n}"
MSG_SEARCH = "search must be 'alpha' or 'joint', got {value!r}"
MSG_METRIC = "unknown metric {value!r}; expected one of xauc, prf, urf"
ALPHAS = np.round(np.arange(0.0, 10.0, 0.1), 1)
BETAS = np.arange(-4.0, 4.01, 1.0)


def _logit(p):
    p = np.clip(np.asarray(p, dtype=np.float64), 1e-12, 1.0 - 1e-12)
    return np.log(p) - np.log1p(-p)


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def _two_groups(groups):
    groups = np.asarray(groups)
    labels = np.unique(groups)
    if labels.size != 2:
        raise ValueError(MSG_TWO_GROUPS.format(n=labels.size))
    return groups, labels


def _auc_and_disparity(scores, y, groups, metric):
    return metrics.auc(scores, y), metrics.disparity(scores, y, groups, metric)


class PostLogit:
    """Post-processing of one group's scores by ``sigmoid(alpha * logit(s) + beta)``.

    Parameters
    ----------
    lam : float, default=0.0
        Weight of the disparity in the training objective ``AUC - lam * D``.
    metric : {"xauc", "prf", "urf"}
    search : {"alpha", "joint"}
        ``"alpha"``: beta fixed at ``beta`` (the public code: -2), alpha over
        :data:`ALPHAS`; ``"joint"``: alpha over :data:`ALPHAS` and beta over
        :data:`BETAS`.
    group : label, optional
        The group whose scores are transformed (default: either, whichever scores
        higher).

    ``scores`` are probabilities in (0, 1). Attributes after ``fit``: ``alpha_``,
    ``beta_``, ``group_`` and ``table_`` (every candidate, ``alpha, beta, group index,
    AUC, D`` on the training scores), which :meth:`select` reuses for another ``lam``
    without refitting.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 400); y = rng.integers(0, 2, 400)
    >>> s = 1 / (1 + np.exp(-(2 * y + a + rng.normal(size=400))))
    >>> fitted = PostLogit(lam=1.0).fit(s, y, sensitive_features=a)
    >>> fitted.group_, fitted.alpha_, fitted.beta_
    (0, 3.9, -2.0)
    """

    def __init__(self, *, lam=0.0, metric="xauc", search="alpha", beta=-2.0, group=None):
        self.lam = lam
        self.metric = metric
        self.search = search
        self.beta = beta
        self.group = group

    def fit(self, scores, y, *, sensitive_features):
        groups, labels = _two_groups(sensitive_features)
        scores = np.asarray(scores, dtype=np.float64)
        if self.search not in ("alpha", "joint"):
            raise ValueError(MSG_SEARCH.format(value=self.search))
        betas = np.array([self.beta]) if self.search == "alpha" else BETAS
        rows = []
        for g, group in enumerate(labels if self.group is None else [self.group]):
            moved = groups == group
            z = _logit(scores[moved])
            for alpha in ALPHAS:
                for beta in betas:
                    adjusted = scores.copy()
                    adjusted[moved] = _sigmoid(alpha * z + beta)
                    rows.append((alpha, beta, g)
                                + _auc_and_disparity(adjusted, y, groups, self.metric))
        self.labels_ = labels if self.group is None else [self.group]
        self.table_ = np.array(rows)
        return self.select(self.lam)

    def select(self, lam):
        """Keep the candidate of the best ``AUC - lam * D`` in ``table_``; returns self."""
        objective = self.table_[:, 3] - lam * self.table_[:, 4]
        best = int(np.argmax(objective))
        self.lam_ = lam
        self.alpha_, self.beta_ = float(self.table_[best, 0]), float(self.table_[best, 1])
        self.group_ = np.asarray(self.labels_)[int(self.table_[best, 2])].item()
        return self

    def transform(self, scores, *, sensitive_features):
        scores = np.array(scores, dtype=np.float64)
        moved = np.asarray(sensitive_features) == self.group_
        scores[moved] = _sigmoid(self.alpha_ * _logit(scores[moved]) + self.beta_)
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

    Parameters
    ----------
    weight : float, default=1.0
        Weight of the correlation penalty.
    metric : {"xauc", "prf", "urf"}
        Whose pairs are sampled (:func:`metric_pairs`): ``A`` is 1 for the first side,
        0 for the second; ``r`` is the logit of the upper item minus that of the lower.
    n_pairs : int, default=5000
        Pairs sampled per side (once, with ``random_state``).
    l2 : float, default=1e-4
        A small ridge term, so that separable data keep finite weights.
    init : (coef, intercept), optional
        The unpenalised optimum on the same data (``weight=0``), where the penalised
        search starts (|corr| is undefined at zero weights); default: fitted first.

    Attributes after ``fit``: ``coef_``, ``intercept_``, ``penalty_`` (``|corr|`` on
    the sampled pairs at the optimum) and ``loss_`` (the mean cross-entropy).
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
    metric : {"xauc", "prf", "urf"}
    n_steps : int, default=200
        Steps of gradient descent on the weights and ascent on the multiplier.
    learning_rate, multiplier_rate : float
        Step sizes of the weights (Adam) and of the multiplier.
    temperature : float, default=0.5
        Of the sigmoid surrogate ``P(s_u > s_l) ~ sigmoid((s_u - s_l) / temperature)``.
    n_pairs : int, default=2000
        Pairs sampled per side of the disparity and for the loss, afresh every step.

    Attributes after ``fit``: ``coef_``, ``intercept_``, ``multiplier_``, ``history_``
    (per checkpoint: step, training AUC, training ``|D|``) and ``feasible_`` (whether
    the kept iterate meets the constraint on the training data; when none does, the
    one of the smallest ``|D|`` is kept).
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
            mu = max(0.0, mu + self.multiplier_rate * (abs(hard) - self.max_disparity))
            if step % self.check_every == 0 or step == self.n_steps:
                s = Z @ w
                auc, disp = _auc_and_disparity(s, y, groups, self.metric)
                history.append((step, auc, disp))
                feasible = disp <= self.max_disparity
                key = (feasible, auc if feasible else -disp)
                if best is None or key > best[0]:
                    best = (key, w.copy())
        self.coef_, self.intercept_ = best[1], 0.0
        self.feasible_ = bool(best[0][0])
        self.multiplier_ = mu
        self.history_ = np.array(history)
        return self
