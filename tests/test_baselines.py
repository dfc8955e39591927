"""The baselines do what they claim on small synthetic data."""

import numpy as np
import pytest

from gpu_xorder import metrics
from gpu_xorder.experiments.baselines import ConstrainedRanker, CorrReg, PostLogit, metric_pairs


def _biased(n=600, seed=0):
    """Features that rank group 1's positives above group 0's negatives more often."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    y = (rng.random(n) < 0.4).astype(int)
    X = np.column_stack((y + 0.8 * a + rng.normal(size=n), a + rng.normal(scale=0.3, size=n),
                         rng.normal(size=n)))
    return X, y, a


def _sigmoid(z):
    return 1 / (1 + np.exp(-z))


@pytest.mark.parametrize("metric", ["xauc", "prf", "urf"])
def test_post_logit_lowers_the_disparity_it_optimises(metric):
    X, y, a = _biased()
    s = _sigmoid(X[:, 0])
    before = metrics.disparity(s, y, a, metric)
    for search in ("alpha", "joint") if metric == "xauc" else ("alpha",):
        fitted = PostLogit(lam=1.0, metric=metric, search=search).fit(
            s, y, sensitive_features=a)
        after = metrics.disparity(fitted.transform(s, sensitive_features=a), y, a, metric)
        assert after < 0.5 * before
        # the kept candidate is the best of its grid, on the training scores
        objective = fitted.table_[:, 3] - fitted.table_[:, 4]
        assert metrics.auc(fitted.transform(s, sensitive_features=a), y) - after \
            == pytest.approx(objective.max())
    assert fitted.select(0.0).alpha_ >= 0  # lam 0: the grid's best AUC
    assert fitted.table_[:, 3].max() == pytest.approx(
        metrics.auc(fitted.transform(s, sensitive_features=a), y))


def test_corr_reg_penalty_falls_as_its_weight_rises():
    X, y, a = _biased()
    fits = [CorrReg(weight=w, n_pairs=2000).fit(X, y, sensitive_features=a)
            for w in (0.0, 0.003, 0.03, 1.0)]
    penalties = [f.penalty_ for f in fits]
    assert all(p1 >= p2 for p1, p2 in zip(penalties, penalties[1:]))
    assert penalties[-1] < 0.1 * penalties[0]
    losses = [f.loss_ for f in fits]
    assert losses[0] <= min(losses[1:]) + 1e-9  # the penalty costs cross-entropy
    s = fits[-1].decision_function(X)
    assert metrics.disparity(s, y, a) < metrics.disparity(fits[0].decision_function(X), y, a)


@pytest.mark.parametrize("bound", [0.02, 0.1])
def test_constrained_ranker_meets_its_constraint_on_training_data(bound):
    X, y, a = _biased()
    free = metrics.disparity(X @ np.array([1.0, 0, 0]), y, a)
    fitted = ConstrainedRanker(max_disparity=bound, n_steps=150, n_pairs=500).fit(
        X, y, sensitive_features=a)
    assert free > 0.2 and fitted.feasible_
    s = fitted.decision_function(X)
    assert metrics.disparity(s, y, a) <= bound
    assert metrics.auc(s, y) > 0.6


def test_metric_pairs_sides():
    y = np.array([1, 0, 1, 0, 1, 0])
    a = np.array([0, 0, 0, 1, 1, 1])
    rng = np.random.default_rng(0)
    u1, l1, u2, l2 = metric_pairs(y, a, "xauc", 50, rng)
    assert set(a[u1]) == {0} and set(y[u1]) == {1} and set(a[l1]) == {1} \
        and set(y[l1]) == {0}
    assert set(a[u2]) == {1} and set(y[u2]) == {1} and set(a[l2]) == {0}
    u1, l1, u2, l2 = metric_pairs(y, a, "prf", 50, rng)
    assert set(y[l1]) == set(y[l2]) == {0} and set(a[l1]) == {0, 1}
    with pytest.raises(ValueError, match="two groups"):
        metric_pairs(y, np.arange(6) % 3, "xauc", 5, rng)
