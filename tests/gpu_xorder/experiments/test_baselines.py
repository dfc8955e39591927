"""The baselines do what they claim on small synthetic data."""

import itertools
import math

import numpy as np
import pytest

from gpu_xorder import metrics
from gpu_xorder.experiments.baselines import (
    ALPHAS,
    MSG_SEARCH_ALPHA,
    PUBLIC_BETA,
    ConstrainedRanker,
    CorrReg,
    PostLogit,
    metric_pairs,
    public_transform,
)
from support.oracles import pair_frac, pair_term


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
    before = metrics.disparity(y, s, sensitive_features=a, metric=metric)
    for search in ("public", "logit-alpha", "joint") if metric == "xauc" else (
            "public", "logit-alpha"):
        fitted = PostLogit(lam=1.0, metric=metric, search=search).fit(
            s, y, sensitive_features=a)
        after = metrics.disparity(y, fitted.transform(s, sensitive_features=a),
                                  sensitive_features=a, metric=metric)
        assert after < 0.5 * before
        # the kept candidate is the best of its grid, on the training scores
        objective = fitted.table_[:, -2] - fitted.table_[:, -1]
        assert metrics.auc(y, fitted.transform(s, sensitive_features=a)) - after \
            == pytest.approx(objective.max())
    assert fitted.select(0.0).alpha_ >= 0  # lam 0: the grid's best AUC
    assert fitted.table_[:, -2].max() == pytest.approx(
        metrics.auc(y, fitted.transform(s, sensitive_features=a)))


def test_public_transform_and_grid_by_hand():
    """The public code's map, sigmoid(alpha * s - 2) of the probability s, its grid
    0, 0.1, ..., 9.9 and beta -2 (github.com/cuis15/xorder, experiment.py)."""
    assert PUBLIC_BETA == -2.0
    assert ALPHAS.size == 100 and ALPHAS[0] == 0.0 and ALPHAS[-1] == 9.9
    np.testing.assert_allclose(np.diff(ALPHAS), 0.1, atol=1e-12)
    # 2.5 * 0.4 - 2 = -1: 1 / (1 + e); alpha 0: sigmoid(-2) = 1 / (1 + e^2), whatever s
    assert public_transform(0.4, 2.5) == pytest.approx(1 / (1 + math.e), abs=1e-15)
    np.testing.assert_allclose(public_transform([0.1, 0.9], 0.0), 1 / (1 + math.e ** 2))
    s = np.array([0.4, 0.4, 0.7, 0.2])
    a = np.array([0, 1, 0, 1])
    fitted = PostLogit(alphas=[2.5]).fit(s, [1, 0, 0, 1], sensitive_features=a)
    assert fitted.shifts_ == {0: (2.5, -2.0)} and fitted.group_ == 0  # the first label
    np.testing.assert_allclose(fitted.transform(s, sensitive_features=a),
                               [1 / (1 + math.e), 0.4, 1 / (1 + math.e ** 0.25), 0.2])
    with pytest.raises(ValueError, match="group names the one shifted group of two"):
        PostLogit(group=0).fit(s, [1, 0, 0, 1], sensitive_features=[0, 1, 2, 2])
    with pytest.raises(ValueError, match="would try 1000000 combinations"):
        PostLogit().fit(np.tile(s, 2), [1, 0] * 4, sensitive_features=np.arange(8) // 2)
    with pytest.raises(ValueError, match="'alpha' is gone"):
        PostLogit(search="alpha").fit(s, [1, 0, 0, 1], sensitive_features=a)
    assert "search='public'" in MSG_SEARCH_ALPHA


def _slow_public(s, y, a, alphas, metric):
    """Every combination of one alpha per group but the last, AUC and D by the pair
    definitions (tests/oracles.py): ``[(combination, auc, D)]``."""
    labels = np.unique(a)
    rows = []
    for combo in itertools.product(alphas, repeat=labels.size - 1):
        t = s.copy()
        for g, alpha in zip(labels[:-1], combo):
            t[a == g] = 1 / (1 + np.exp(-(alpha * s[a == g] - 2)))
        d = max(abs(pair_term(t, y, a == g, a == h, metric))
                for g, h in itertools.combinations(labels, 2))
        rows.append((combo, pair_frac(t[y == 1], t[y == 0]), d))
    return rows


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("metric", ["xauc", "prf", "urf"])
def test_public_choice_is_the_brute_force_optimum_of_its_grid(k, metric):
    """Two groups and three (one alpha per shifted group, every combination): the
    least training D (the public rule) and the best AUC - lam * D, against the pair
    definitions over the whole grid; ties in the scores included."""
    rng = np.random.default_rng(k)
    n = 90
    a = rng.integers(0, k, n)
    y = (rng.random(n) < 0.45).astype(int)
    s = np.round(1 / (1 + np.exp(-(1.5 * y + 0.8 * a + rng.normal(size=n)))), 2)
    alphas = [0.0, 0.7, 2.0, 6.5]
    slow = _slow_public(s, y, a, alphas, metric)
    fitted = PostLogit(metric=metric, alphas=alphas).fit(s, y, sensitive_features=a)
    assert fitted.shifted_ == list(range(k - 1))
    np.testing.assert_allclose(fitted.table_[:, :-2], [row[0] for row in slow])
    np.testing.assert_allclose(fitted.table_[:, -2:], [row[1:] for row in slow],
                               atol=1e-12)
    for lam in (None, 0.0, 0.5, 3.0):
        fitted.select(lam)
        chosen = tuple(fitted.shifts_[g][0] for g in range(k - 1))
        value = {row[0]: (row[2] if lam is None else row[1] - lam * row[2])
                 for row in slow}
        best = min(value.values()) if lam is None else max(value.values())
        assert value[chosen] == pytest.approx(best, abs=1e-12)
        t = fitted.transform(s, sensitive_features=a)
        assert metrics.disparity(y, t, sensitive_features=a, metric=metric) == pytest.approx(
            {row[0]: row[2] for row in slow}[chosen], abs=1e-12)


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
    assert metrics.disparity(y, s, sensitive_features=a) < metrics.disparity(y,
                                                                             fits[0].decision_function(X),
                                                          sensitive_features=a)


@pytest.mark.parametrize("bound", [0.02, 0.1])
def test_constrained_ranker_meets_its_constraint_on_training_data(bound):
    X, y, a = _biased()
    free = metrics.disparity(y, X @ np.array([1.0, 0, 0]), sensitive_features=a)
    fitted = ConstrainedRanker(max_disparity=bound, n_steps=150, n_pairs=500).fit(
        X, y, sensitive_features=a)
    assert free > 0.2 and fitted.feasible_
    s = fitted.decision_function(X)
    assert metrics.disparity(y, s, sensitive_features=a) <= bound
    assert metrics.auc(y, s) > 0.6


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


@pytest.mark.parametrize("k", [2, 3])
def test_widened_public_grid_until_the_choice_is_interior(k):
    """``widen``: the grid times 3 while a chosen alpha is the grid's top, at most
    ``widen`` times; each search the brute-force optimum of its own grid (the first of
    the least D, the public rule), and the grid edges and interiority reported."""
    rng = np.random.default_rng(10 + k)
    n = 80
    a = rng.integers(0, k, n)
    y = (rng.random(n) < 0.45).astype(int)
    # the shifted groups score far lower: small alphas leave them below the last group
    s = np.round(1 / (1 + np.exp(-(1.5 * y + (a == k - 1) - 2
                                   + rng.normal(size=n)))), 2)
    grid = np.array([0.0, 0.2, 0.4])
    expected = []  # (grid, choice, interior) of each search the oracle makes
    for _ in range(6):
        slow = _slow_public(s, y, a, grid, "xauc")
        choice = min(slow, key=lambda row: row[2])[0]  # min keeps the first of ties
        expected.append((grid, choice, max(choice) < grid[-1]))
        if expected[-1][2]:
            break
        grid = np.round(grid * 3, 12)
    # the data push the choice to the grid's top at least three times, then within it
    assert len(expected) >= 4 and [e[2] for e in expected] == [False] * (
        len(expected) - 1) + [True]
    for widen in range(len(expected) + 1):
        fitted = PostLogit(alphas=[0.0, 0.2, 0.4], widen=widen).fit(
            s, y, sensitive_features=a)
        grid, choice, interior = expected[min(widen, len(expected) - 1)]
        np.testing.assert_allclose(fitted.alphas_, grid)
        assert fitted.widenings_ == min(widen, len(expected) - 1)
        assert fitted.interior_ == interior
        assert tuple(fitted.shifts_[g][0] for g in range(k - 1)) == pytest.approx(choice)
    assert PostLogit().fit(s, y, sensitive_features=a).widenings_ == 0
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="widen must be an integer"):
            PostLogit(widen=bad).fit(s, y, sensitive_features=a)


@pytest.mark.parametrize("metric", ["xauc", "prf", "urf"])
def test_coordinate_search_evaluates_the_public_grids_rows(metric):
    """Three groups: every candidate the coordinate search evaluates has the public
    search's AUC and D for those alphas, bit for bit; it keeps the least D it met,
    never below the public grid's least (the whole grid is the oracle); with two
    groups it tries the whole grid, so it picks what the public search picks."""
    rng = np.random.default_rng(3)
    n = 300
    a = rng.integers(0, 3, n)
    y = (rng.random(n) < 0.4).astype(int)
    s = np.round(1 / (1 + np.exp(-(1.5 * y + 0.8 * a + rng.normal(size=n)))), 2)
    alphas = np.round(np.arange(0.0, 8.0, 0.4), 1)
    public = PostLogit(metric=metric, alphas=alphas).fit(s, y, sensitive_features=a)
    coord = PostLogit(metric=metric, alphas=alphas, search="coordinate").fit(
        s, y, sensitive_features=a)
    grid = {tuple(row[:-2]): tuple(row[-2:]) for row in public.table_}
    assert len(coord.table_) >= 2 * alphas.size
    for row in coord.table_:
        assert grid[tuple(row[:-2])] == tuple(row[-2:])
    chosen = tuple(coord.shifts_[g][0] for g in (0, 1))
    assert grid[chosen][1] == coord.table_[:, -1].min() >= public.table_[:, -1].min()
    t = coord.transform(s, sensitive_features=a)
    assert metrics.disparity(y, t, sensitive_features=a, metric=metric) == pytest.approx(
        grid[chosen][1], abs=1e-12)
    two = np.where(a == 2, 1, 0)
    assert PostLogit(metric=metric, alphas=alphas, search="coordinate").fit(
        s, y, sensitive_features=two).shifts_ == PostLogit(
        metric=metric, alphas=alphas).fit(s, y, sensitive_features=two).shifts_


def test_coordinate_search_stops_where_no_single_alpha_lowers_d():
    """Five groups (every combination of a grid of 30 alphas would be 30 ** 4): the
    coordinate search's choice is a coordinate-wise minimum of the training D, each
    shifted group's alpha moved alone over the grid and measured by
    :func:`metrics.disparity` (the oracle), and refused by the public search."""
    rng = np.random.default_rng(5)
    n = 500
    a = rng.integers(0, 5, n)
    y = (rng.random(n) < 0.4).astype(int)
    s = 1 / (1 + np.exp(-(1.5 * y + 0.5 * a + rng.normal(size=n))))
    alphas = np.round(np.arange(0.0, 10.0, 0.5), 1)
    coord = PostLogit(alphas=alphas, search="coordinate").fit(s, y, sensitive_features=a)
    assert coord.shifted_ == [0, 1, 2, 3]
    chosen = {g: alpha for g, (alpha, _) in coord.shifts_.items()}

    def d_of(shifts):
        t = s.copy()
        for g, alpha in shifts.items():
            t[a == g] = public_transform(s[a == g], alpha)
        return metrics.disparity(y, t, sensitive_features=a)

    at = d_of(chosen)
    assert at == pytest.approx(coord.table_[:, -1].min(), abs=1e-12)
    assert at < metrics.disparity(y, s, sensitive_features=a)
    for g in chosen:
        for alpha in alphas:
            assert d_of({**chosen, g: alpha}) >= at - 1e-12
    with pytest.raises(ValueError, match="would try 810000 combinations"):
        PostLogit(alphas=np.arange(0.0, 30.0)).fit(s, y, sensitive_features=a)
