"""Base models for the paper's experiments: scikit-learn style ``fit`` /
``decision_function`` / ``predict_proba``.

- :class:`LogisticModel`: the package's default, a scikit-learn logistic regression
  (L2, lbfgs) on standardised features.
- :class:`PaperLinear`: a linear model trained as the paper's public code trains it:
  full-batch gradient descent (step 0.1, at most 99 steps, early stopping) on the mean
  cross-entropy, no regularisation, zero initialisation.
- :class:`RankBoost`: bipartite RankBoost (RankBoost.B of Freund, Iyer, Schapire and
  Singer 2003) with decision stumps ``1[x_j > theta]`` on quantile thresholds of every
  feature; one round is a weighted histogram of every feature (``np.bincount``).
  ``"rankboost"`` is 200 rounds scored by a sigmoid of the margin; ``"rankboost-public"``
  is the authors' public code's variant: 50 rounds, the score the alpha-weighted vote
  ``sum alpha_t h_t / sum alpha_t`` in [0, 1] (``score="vote"``).

:func:`make_model` builds one by name (:data:`MODELS`).
"""

import numpy as np

MODELS = ("lr", "paper-linear", "rankboost", "rankboost-public")
#: The public code's RankBoost: its rounds and its score.
PUBLIC_RANKBOOST = {"n_rounds": 50, "score": "vote"}
#: The vote scores of ``score="vote"`` are kept inside [VOTE_EPS, 1 - VOTE_EPS] as
#: probabilities (a logit of them stays finite; the order is unchanged).
VOTE_EPS = 1e-9
MSG_MODEL = "unknown model {name!r}; expected one of {choices}"
MSG_NOT_FITTED = "this {name} is not fitted yet; call fit first"
MSG_LABELS = "y must hold both labels 0 and 1 and nothing else"


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # overflow-free


def _labels(y):
    y = np.asarray(y)
    if not np.isin(y, (0, 1)).all() or np.unique(y).size != 2:
        raise ValueError(MSG_LABELS)
    return y.astype(np.int64)


class _Scorer:
    """``predict_proba`` from ``decision_function`` (a sigmoid of the margin)."""

    def predict_proba(self, X):
        p = _sigmoid(self.decision_function(X))
        return np.column_stack((1.0 - p, p))

    def _check_fitted(self):
        if not hasattr(self, "coef_") and not hasattr(self, "stumps_"):
            raise ValueError(MSG_NOT_FITTED.format(name=type(self).__name__))


class LogisticModel(_Scorer):
    """A scikit-learn logistic regression on standardised features.

    ``C=1``, lbfgs, ``max_iter=1000``: the base model of ``gpu-xorder paper`` before this
    module.

    Parameters
    ----------
    random_state : int, default=0
        Passed to the logistic regression.
    """

    def __init__(self, *, random_state=0):
        self.random_state = random_state

    def fit(self, X, y):
        """Fit the model.

        Parameters
        ----------
        X : array-like of shape (n, p)
            Features.
        y : array-like of shape (n,)
            0/1 labels, both present.

        Returns
        -------
        LogisticModel
            The fitted model itself.
        """
        from sklearn.linear_model import LogisticRegression
        from sklearn.preprocessing import StandardScaler

        self.scaler_ = StandardScaler().fit(X)
        self.model_ = LogisticRegression(max_iter=1000, random_state=self.random_state)
        self.model_.fit(self.scaler_.transform(X), _labels(y))
        self.coef_ = self.model_.coef_.ravel()
        return self

    def decision_function(self, X):
        """The margin of every row: higher ranked first.

        Parameters
        ----------
        X : array-like of shape (n, p)
            Features.

        Returns
        -------
        ndarray of shape (n,)
            One score per row.
        """
        self._check_fitted()
        return self.model_.decision_function(self.scaler_.transform(X))

    def predict_proba(self, X):
        """The probability of each label, the logistic regression's.

        Parameters
        ----------
        X : array-like of shape (n, p)
            Features.

        Returns
        -------
        ndarray of shape (n, 2)
            The probabilities of labels 0 and 1.
        """
        self._check_fitted()
        return self.model_.predict_proba(self.scaler_.transform(X))


class PaperLinear(_Scorer):
    """Unregularised logistic regression trained as the paper's public code trains it.

    The public code (github.com/cuis15/xorder, ``experiment.py``: ``MODEL`` and
    ``train``): zero initial weights, full-batch gradient descent (SGD, step 0.1) on the
    mean cross-entropy for at most 99 steps, keeping the iterate of the lowest training
    loss and stopping once ``patience`` steps in a row found none lower.

    Parameters
    ----------
    n_steps : int, default=99
        Most gradient steps (the public code: ``range(1, 100)``).
    learning_rate : float, default=0.1
        Step size on the mean cross-entropy of standardised features.
    patience : int or None, default=5
        Steps without a lower training loss before stopping (None: never stop early).

    Attributes
    ----------
    coef_, intercept_ : ndarray, float
        The weights (of the standardised features) and intercept of the kept iterate.
    loss_ : ndarray
        The training loss after every step taken.
    n_steps_ : int
        Steps taken.
    """

    def __init__(self, *, n_steps=99, learning_rate=0.1, patience=5):
        self.n_steps = n_steps
        self.learning_rate = learning_rate
        self.patience = patience

    def fit(self, X, y):
        """Fit the model.

        Parameters
        ----------
        X : array-like of shape (n, p)
            Features.
        y : array-like of shape (n,)
            0/1 labels, both present.

        Returns
        -------
        PaperLinear
            The fitted model itself.
        """
        X = np.asarray(X, dtype=np.float64)
        y = _labels(y).astype(np.float64)
        self.mean_ = X.mean(axis=0)
        scale = X.std(axis=0)
        self.scale_ = np.where(scale > 0, scale, 1.0)
        Z = (X - self.mean_) / self.scale_
        w = np.zeros(Z.shape[1])
        b = 0.0
        best, losses, stale = (np.inf, w, b), [], 0
        for _ in range(int(self.n_steps)):
            residual = _sigmoid(Z @ w + b) - y
            w = w - self.learning_rate * (Z.T @ residual) / y.size
            b = b - self.learning_rate * residual.mean()
            margin = Z @ w + b
            losses.append(float(np.mean(np.logaddexp(0.0, margin) - y * margin)))
            if losses[-1] < best[0]:
                best, stale = (losses[-1], w, b), 0
            else:
                stale += 1
                if self.patience is not None and stale >= self.patience:
                    break
        _, self.coef_, self.intercept_ = best
        self.loss_ = np.array(losses)
        self.n_steps_ = len(losses)
        return self

    def decision_function(self, X):
        """The margin of every row: higher ranked first.

        Parameters
        ----------
        X : array-like of shape (n, p)
            Features.

        Returns
        -------
        ndarray of shape (n,)
            One score per row.
        """
        self._check_fitted()
        Z = (np.asarray(X, dtype=np.float64) - self.mean_) / self.scale_
        return Z @ self.coef_ + self.intercept_


def stump_bins(X, n_thresholds):
    """Quantile thresholds of every feature and the bin of every value.

    Returns ``(thresholds, codes)``: ``thresholds[j]`` the increasing cut points of
    feature ``j`` (at most ``n_thresholds``, between distinct values), and ``codes[i, j]``
    the number of cut points of feature ``j`` strictly below ``X[i, j]``, so that the
    stump ``x_j > thresholds[j][k]`` is ``codes[:, j] > k``.
    """
    X = np.asarray(X, dtype=np.float64)
    thresholds, codes = [], np.empty(X.shape, dtype=np.int64)
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        if values.size > n_thresholds + 1:
            values = np.unique(np.quantile(X[:, j], np.linspace(0, 1, n_thresholds + 2)))
        cuts = (values[:-1] + values[1:]) / 2.0
        thresholds.append(cuts)
        codes[:, j] = np.searchsorted(cuts, X[:, j], side="left")
    return thresholds, codes


class RankBoost:
    """Bipartite RankBoost (RankBoost.B, Freund et al. 2003) with decision stumps.

    Parameters
    ----------
    n_rounds : int, default=200
        Boosting rounds, one stump each.
    n_thresholds : int, default=32
        Candidate thresholds per feature (quantiles; every midpoint between distinct
        values when a feature has fewer).
    score : {"margin", "vote"}, default="margin"
        What ``predict_proba`` gives as the positive class's probability: a sigmoid of
        the margin ``sum alpha_t h_t``, or (the public code's) the weighted vote
        ``sum alpha_t h_t / sum alpha_t`` in [0, 1] (kept within ``VOTE_EPS`` of its
        ends). ``decision_function`` is the margin either way: the two rank alike.

    Attributes
    ----------
    stumps_ : list of tuple
        ``(feature, threshold, direction, alpha)`` of every round.
    loss_ : ndarray
        The pairwise exponential loss after every round.

    Notes
    -----
    The distribution on (negative, positive) pairs is ``v0(x0) v1(x1)``; a stump
    ``h in {0, 1}`` scores ``r = sum_pos v1 h - sum_neg v0 h`` (both weights summing to
    1), the round takes the stump of the largest ``|r|`` (its complement when ``r < 0``),
    weight ``alpha = ln((1 + r) / (1 - r)) / 2``, and reweights ``v1 *= exp(-alpha h)``,
    ``v0 *= exp(alpha h)``, each renormalised. ``loss_[t]`` is the pairwise exponential
    loss ``sum v0 exp(f) * sum v1 exp(-f)`` (uniform initial weights) after round ``t``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3)); y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    >>> model = RankBoost(n_rounds=20).fit(X, y)
    >>> model.decision_function(X).shape
    (200,)
    """

    def __init__(self, *, n_rounds=200, n_thresholds=32, score="margin"):
        self.n_rounds = n_rounds
        self.n_thresholds = n_thresholds
        self.score = score

    def fit(self, X, y):
        """Fit the model.

        Parameters
        ----------
        X : array-like of shape (n, p)
            Features.
        y : array-like of shape (n,)
            0/1 labels, both present.

        Returns
        -------
        RankBoost
            The fitted model itself.
        """
        if self.score not in ("margin", "vote"):
            raise ValueError(f"score must be 'margin' or 'vote', got {self.score!r}")
        y = _labels(y)
        thresholds, codes = stump_bins(X, self.n_thresholds)
        n, p = codes.shape
        width = max(len(t) for t in thresholds) + 1
        flat = (codes + width * np.arange(p)).ravel()  # (feature, bin) of every value
        pos = y == 1
        v = np.where(pos, 1.0 / pos.sum(), 1.0 / (~pos).sum())
        sign = np.where(pos, 1.0, -1.0)
        valid = np.arange(width - 1)[None, :] < np.array([len(t) for t in thresholds])[:, None]
        margin = np.zeros(n)
        stumps, loss = [], []
        for _ in range(int(self.n_rounds)):
            # sum over items above each cut of (v1 h for positives - v0 h for negatives)
            hist = np.bincount(flat, weights=np.repeat(sign * v, p), minlength=p * width)
            above = np.cumsum(hist.reshape(p, width)[:, ::-1], axis=1)[:, ::-1]
            r = np.where(valid, above[:, 1:], 0.0)  # r[j, k]: the stump codes > k
            j, k = np.unravel_index(np.argmax(np.abs(r)), r.shape)
            rj = float(r[j, k])
            if rj == 0.0:
                break
            rj = float(np.clip(rj, -1.0 + 1e-12, 1.0 - 1e-12))  # separable data
            direction = 1.0 if rj > 0 else -1.0  # -1: the stump x_j <= theta
            h = (codes[:, j] > k).astype(np.float64)
            if direction < 0:
                h = 1.0 - h
            alpha = 0.5 * np.log((1.0 + abs(rj)) / (1.0 - abs(rj)))
            margin += alpha * h
            v = v * np.exp(-alpha * h * sign)
            v[pos] /= v[pos].sum()
            v[~pos] /= v[~pos].sum()
            stumps.append((int(j), float(thresholds[j][k]), direction, float(alpha)))
            loss.append(float(np.mean(np.exp(margin[~pos])) * np.mean(np.exp(-margin[pos]))))
        self.stumps_ = stumps
        self.loss_ = np.array(loss)
        return self

    def decision_function(self, X):
        """The score of every row after the last round: higher ranked first.

        Parameters
        ----------
        X : array-like of shape (n, p)
            Features.

        Returns
        -------
        ndarray of shape (n,)
            One score per row.
        """
        staged = self._staged(X)
        return staged[-1] if len(staged) else np.zeros(len(X))

    def staged_decision_function(self, X):
        """The scores after each round.

        Parameters
        ----------
        X : array-like of shape (n, p)
            Features.

        Returns
        -------
        ndarray of shape (rounds, n)
            Row ``t``: the scores after round ``t``.
        """
        return self._staged(X)

    def predict_proba(self, X):
        """The probability of each label: a sigmoid of the margin, or (``score="vote"``)
        the weighted vote.

        Parameters
        ----------
        X : array-like of shape (n, p)
            Features.

        Returns
        -------
        ndarray of shape (n, 2)
            The probabilities of labels 0 and 1.
        """
        margin = self.decision_function(X)
        if self.score == "vote":
            total = sum(alpha for *_, alpha in self.stumps_)
            p = np.clip(margin / total if total > 0 else np.full(margin.shape, 0.5),
                        VOTE_EPS, 1.0 - VOTE_EPS)
        else:
            p = _sigmoid(margin)
        return np.column_stack((1.0 - p, p))

    def _staged(self, X):
        if not hasattr(self, "stumps_"):
            raise ValueError(MSG_NOT_FITTED.format(name=type(self).__name__))
        X = np.asarray(X, dtype=np.float64)
        terms = np.empty((len(self.stumps_), X.shape[0]))
        for t, (j, theta, direction, alpha) in enumerate(self.stumps_):
            h = X[:, j] > theta
            terms[t] = alpha * (h if direction > 0 else ~h)
        return np.cumsum(terms, axis=0)


def make_model(name, *, random_state=0, **params):
    """A fresh base model by name.

    Parameters
    ----------
    name : {"lr", "paper-linear", "rankboost", "rankboost-public"}
        ``"lr"`` (:class:`LogisticModel`), ``"paper-linear"`` (:class:`PaperLinear`),
        ``"rankboost"`` (:class:`RankBoost`) or ``"rankboost-public"`` (:class:`RankBoost`
        with :data:`PUBLIC_RANKBOOST`: 50 rounds, the weighted vote); :data:`MODELS`
        lists them.
    random_state : int, default=0
        Passed to :class:`LogisticModel` (the other two are deterministic).
    **params
        The model's other keyword arguments.

    Returns
    -------
    LogisticModel, PaperLinear or RankBoost
        An unfitted model.
    """
    if name == "lr":
        return LogisticModel(random_state=random_state, **params)
    if name == "paper-linear":
        return PaperLinear(**params)
    if name == "rankboost":
        return RankBoost(**params)
    if name == "rankboost-public":
        return RankBoost(**{**PUBLIC_RANKBOOST, **params})
    raise ValueError(MSG_MODEL.format(name=name, choices=MODELS))
