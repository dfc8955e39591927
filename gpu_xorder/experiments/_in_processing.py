"""The in-processing baselines (``baselines``): CorrReg (Beutel et al. 2019) and
ConstrainedRanker (in the spirit of TFCO, Narasimhan et al. 2020), linear scorers
trained on features, and the sampled pairs of a disparity they train on."""

import numpy as np

from ..utils import _params as params
from ._baseline_common import MSG_METRIC, auc_and_disparity, sigmoid, two_groups

MSG_NO_CEILING = "ConstrainedRanker needs max_disparity, a number in [0, 1], not None"


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
    groups, (a, b) = two_groups(groups)
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
        p = sigmoid(self.decision_function(X))
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
            residual = (sigmoid(margin) - y) / n
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
            weights = [(i, j, -sigmoid(-(s[i] - s[j])) / self.n_pairs)]  # pairwise loss
            sides_hard, surrogate, parts = [], 0.0, []
            for k, (upper, lower) in enumerate(sides):
                u, v = rng.choice(upper, self.n_pairs), rng.choice(lower, self.n_pairs)
                margin = s[u] - s[v]
                sig = sigmoid(margin / tau)
                surrogate += (1 if k == 0 else -1) * sig.mean()
                sides_hard.append(np.mean(margin > 0))
                parts.append((u, v, (1 if k == 0 else -1) * sig * (1 - sig)
                              / (tau * self.n_pairs)))
            for u, v, c in parts:
                weights.append((u, v, mu * np.sign(surrogate) * c))
            g = np.zeros(n)
            for u, v, c in weights:
                g += np.bincount(u, c, minlength=n) - np.bincount(v, c, minlength=n)
            grad = Z.T @ g
            m1 = 0.9 * m1 + 0.1 * grad
            m2 = 0.999 * m2 + 0.001 * grad**2
            w -= self.learning_rate * (m1 / (1 - 0.9**step)) / (
                np.sqrt(m2 / (1 - 0.999**step)) + 1e-8)
            hard = sides_hard[0] - sides_hard[1]  # the multiplier sees D itself
            mu = max(0.0, mu + self.multiplier_rate * (abs(hard) - eps))
            if step % self.check_every == 0 or step == self.n_steps:
                s = Z @ w
                auc, disp = auc_and_disparity(s, y, groups, self.metric)
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
