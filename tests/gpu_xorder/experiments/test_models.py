"""Base models: the logistic regression of the paper's protocol, the paper's linear
model, and bipartite RankBoost against a slow pairwise reference."""

import numpy as np
import pytest

from gpu_xorder import metrics
from gpu_xorder.experiments.models import (
    LogisticModel,
    PaperLinear,
    RankBoost,
    make_model,
    stump_bins,
)


def _data(n=300, p=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n) > 0.3).astype(int)
    return X, y


def _slow_rankboost(X, y, n_rounds, n_thresholds):
    """RankBoost.B written over explicit (negative, positive) pairs and every stump."""
    thresholds, _ = stump_bins(X, n_thresholds)
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    D = np.full((neg.size, pos.size), 1.0 / (neg.size * pos.size))
    stumps = []
    for _ in range(n_rounds):
        best = None
        for j, cuts in enumerate(thresholds):
            for theta in cuts:
                h = (X[:, j] > theta).astype(float)
                r = sum(D[a, b] * (h[pos[b]] - h[neg[a]])
                        for a in range(neg.size) for b in range(pos.size))
                if best is None or abs(r) > abs(best[0]) + 1e-15:
                    best = (r, j, theta)
        r, j, theta = best
        direction = 1.0 if r > 0 else -1.0
        h = ((X[:, j] > theta) if direction > 0 else (X[:, j] <= theta)).astype(float)
        alpha = 0.5 * np.log((1 + abs(r)) / (1 - abs(r)))
        D = D * np.exp(alpha * (h[neg][:, None] - h[pos][None, :]))
        D /= D.sum()
        stumps.append((j, theta, direction, alpha))
    return stumps


def test_rankboost_equals_the_slow_reference():
    X, y = _data(n=24, p=3, seed=1)
    fast = RankBoost(n_rounds=6, n_thresholds=5).fit(X, y)
    slow = _slow_rankboost(X, y, 6, 5)
    assert [s[:3] for s in fast.stumps_] == [s[:3] for s in slow]
    np.testing.assert_allclose([s[3] for s in fast.stumps_], [s[3] for s in slow],
                               rtol=1e-10)


def test_rankboost_training_auc_rises_over_rounds():
    X, y = _data()
    model = RankBoost(n_rounds=40).fit(X, y)
    assert np.all(np.diff(model.loss_) < 0)  # the exponential pairwise loss falls
    staged = model.staged_decision_function(X)
    aucs = [metrics.auc(y, staged[t]) for t in (0, 4, 39)]
    assert aucs[0] < aucs[1] < aucs[2]
    np.testing.assert_array_equal(staged[-1], model.decision_function(X))
    proba = model.predict_proba(X)
    assert proba.shape == (300, 2) and np.allclose(proba.sum(axis=1), 1)


def _hand_descent(X, y, steps, rate):
    """Full-batch gradient descent on the mean cross-entropy from zero, written out:
    every iterate's ``(w, b, loss)``."""
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    w, b, out = np.zeros(Z.shape[1]), 0.0, []
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(Z @ w + b)))
        w, b = w - rate * Z.T @ (p - y) / y.size, b - rate * np.mean(p - y)
        m = Z @ w + b
        out.append((w, b, np.mean(np.log1p(np.exp(m)) - y * m)))
    return out


def test_paper_linear_is_the_public_codes_gradient_descent():
    """github.com/cuis15/xorder, experiment.py: zero start, steps of 0.1, at most 99,
    the lowest-loss iterate kept, stopped after 5 steps without a lower loss."""
    X, y = _data()
    one = PaperLinear(n_steps=1).fit(X, y)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    np.testing.assert_allclose(one.coef_, 0.1 * Z.T @ (y - 0.5) / y.size)
    assert one.intercept_ == pytest.approx(0.1 * np.mean(y - 0.5))
    model = PaperLinear().fit(X, y)
    hand = _hand_descent(X, y, 99, 0.1)
    assert model.n_steps_ == 99 and np.all(np.diff(model.loss_) < 0)
    np.testing.assert_allclose(model.coef_, hand[-1][0], rtol=1e-10)
    np.testing.assert_allclose(model.loss_, [h[2] for h in hand], rtol=1e-10)
    # a step so large that the loss rises: the best iterate is kept, 5 later ones seen
    big = PaperLinear(learning_rate=20.0, n_steps=200).fit(X, y)
    hand = _hand_descent(X, y, 200, 20.0)
    best = int(np.argmin([h[2] for h in hand[:big.n_steps_]]))
    assert big.n_steps_ == best + 1 + 5 < 200
    np.testing.assert_allclose(big.coef_, hand[best][0], rtol=1e-10)
    assert PaperLinear(learning_rate=20.0, n_steps=200, patience=None).fit(X, y).n_steps_ \
        == 200
    # near the unregularised optimum only after many more steps
    from sklearn.linear_model import LogisticRegression

    optimum = LogisticRegression(C=1e6, max_iter=1000).fit(Z, y).coef_.ravel()
    many = PaperLinear(n_steps=3000, learning_rate=0.5, patience=None).fit(X, y)
    assert np.linalg.norm(many.coef_ - optimum) < 0.05 * np.linalg.norm(optimum)
    assert np.linalg.norm(model.coef_ - optimum) > 0.2 * np.linalg.norm(optimum)


def test_logistic_model_is_the_protocols_model():
    from gpu_xorder.datasets import load_german
    from gpu_xorder.experiments._experiment import split_scores
    from gpu_xorder.experiments._studies import _split

    data = load_german()
    train, test = _split(data, data.sensitive, 0.3, 3)
    expected = split_scores(data, data.sensitive, seed=3)
    model = LogisticModel(random_state=3).fit(*train[:2])
    np.testing.assert_array_equal(model.predict_proba(test[0])[:, 1], expected[1][0])


def test_make_model():
    assert isinstance(make_model("rankboost", n_rounds=3), RankBoost)
    assert isinstance(make_model("paper-linear"), PaperLinear)
    with pytest.raises(ValueError, match="unknown model 'svm'"):
        make_model("svm")
    with pytest.raises(ValueError, match="not fitted"):
        RankBoost().decision_function(np.zeros((2, 2)))
