"""Tests of gpu_xorder.XOrder: fit/transform agree with the learned ordering and the DP."""

import re
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from gpu_xorder import XOrder, fair_order, metrics, xorder_path
from gpu_xorder.postprocessing._estimator import MSG_LAM_SEQUENCE
from gpu_xorder.postprocessing._fitted import MSG_REFERENCE, MSG_UNSEEN
from gpu_xorder.postprocessing._path import MSG_PATH_LAM
from gpu_xorder.utils import _validation as v
from support.oracles import equal_pairs, pair_frac, within_group_changes

TOL = dict(rel=1e-12, abs=1e-12)


def make_data(n_a=30, n_b=20, seed=0, labels=(0, 1), logit=False):
    """Continuous scores (distinct), group b shifted down, both labels in both groups."""
    rng = np.random.default_rng(seed)
    n = n_a + n_b
    groups = np.array([labels[0]] * n_a + [labels[1]] * n_b)
    y = rng.integers(0, 2, n)
    y[[0, 1, n_a, n_a + 1]] = [0, 1, 0, 1]
    logits = rng.normal(size=n) + 1.2 * y - 0.8 * (groups == labels[1])
    scores = logits if logit else 1 / (1 + np.exp(-logits))
    perm = rng.permutation(n)
    return scores[perm], y[perm], groups[perm]


def fitted(scores, y, groups, **params):
    params.setdefault("backend", "numpy")
    return XOrder(**params).fit(scores, y, sensitive_features=groups)


# ---------------------------------------------------------------------------------------
# The adjusted scores realise the learned ordering.


@pytest.mark.parametrize("metric", ["xauc", "prf", "urf"])
@pytest.mark.parametrize("lam", [0.0, 0.3, 2.0])
def test_transform_on_training_data_matches_the_learned_order(metric, lam):
    scores, y, groups = make_data(seed=int(lam * 10))
    xo = fitted(scores, y, groups, metric=metric, lam=lam)
    out = xo.transform(scores, sensitive_features=groups)
    assert metrics.auc(y, out) == pytest.approx(xo.result_.auc, **TOL)
    assert metrics.disparity(y, out, sensitive_features=groups,
                             metric=metric) == pytest.approx(
        xo.result_.disparity, **TOL)
    np.testing.assert_array_equal(out, xo.train_scores_adjusted_)
    assert np.array_equal(np.argsort(-out, kind="stable"), xo.order_)
    assert np.array_equal(np.argsort(-xo.train_scores_adjusted_, kind="stable"), xo.order_)


def test_result_is_that_of_fair_order():
    scores, y, groups = make_data(seed=3)
    xo = fitted(scores, y, groups, metric="prf", lam=0.5)
    res = fair_order(scores, y, groups, metric="prf", lam=0.5, backend="numpy")
    assert np.array_equal(xo.order_, res.order)
    assert xo.result_.objective == res.objective
    assert xo.n_features_in_ == 1
    assert list(xo.groups_) == [0, 1]


def test_large_lam_reduces_disparity_of_transformed_test_scores():
    scores, y, groups = make_data(n_a=60, n_b=60, seed=5)
    xo = fitted(scores, y, groups, metric="xauc", lam=5.0)
    before = metrics.disparity(y, scores, sensitive_features=groups, metric="xauc")
    after = metrics.disparity(y, xo.fit_transform(scores, y, sensitive_features=groups),
                              sensitive_features=groups, metric="xauc")
    assert after <= before
    assert after <= max(1 / np.sum((groups == 0) & (y == 1)),
                        1 / np.sum((groups == 1) & (y == 1))) + 1e-12


# ---------------------------------------------------------------------------------------
# Transform on new scores.


@pytest.mark.parametrize("logit", [False, True])
def test_transform_monotone_and_reference_untouched(logit):
    scores, y, groups = make_data(seed=7, logit=logit)
    xo = fitted(scores, y, groups, lam=1.0)
    rng = np.random.default_rng(1)
    lo, hi = scores.min(), scores.max()
    span = hi - lo
    new = np.concatenate((rng.uniform(lo - span, hi + span, 200),
                          [hi + 1e3 if logit else 1.0, lo - 1e3 if logit else 0.0]))
    if not logit:
        new = np.clip(new, 0, 1)
    new_groups = np.resize([0, 1], new.size)
    out = xo.transform(new, sensitive_features=new_groups)
    assert out.dtype == np.float64 and out is not new
    ref = new_groups == xo.reference_group_
    assert np.array_equal(out[ref], new[ref])
    # strictly increasing within each group: no new ties, none reversed
    assert within_group_changes(new, out, new_groups) == (0, 0, 0)
    assert xo.clip_ is None
    lo, hi = xo.bounds_
    if logit:
        # beyond the bounds the map is the identity
        far = (new < lo) | (new > hi)
        assert far.any() and np.array_equal(out[far], new[far])
    else:
        # inside (0, 1), no clipping; only the bounds themselves map to the bounds
        assert xo.bounds_ == (0.0, 1.0)
        assert np.all(((out > 0) & (out < 1)) | ref | (new == 0) | (new == 1))


def test_default_reference_is_the_group_with_highest_mean_score():
    scores, y, groups = make_data(seed=2)
    assert scores[groups == 0].mean() > scores[groups == 1].mean()
    assert fitted(scores, y, groups).reference_group_ == 0
    xo = fitted(scores, y, groups, reference_group=1, lam=1.0)
    assert xo.reference_group_ == 1
    out = xo.transform(scores, sensitive_features=groups)
    assert np.array_equal(out[groups == 1], scores[groups == 1])
    assert np.array_equal(np.argsort(-out, kind="stable"), xo.order_)


def test_string_labels_and_unbalanced_groups():
    scores, y, groups = make_data(n_a=70, n_b=6, seed=4, labels=("white", "black"))
    xo = fitted(scores, y, groups, metric="xauc", lam=1.0, reference_group="white")
    assert list(xo.groups_) == ["black", "white"] and xo.reference_group_ == "white"
    assert sorted(xo.maps_) == [0]
    out = xo.transform(scores, sensitive_features=list(groups))
    assert metrics.disparity(y, out,
                             sensitive_features=groups) == pytest.approx(xo.result_.disparity,
                                                                         **TOL)
    assert metrics.auc(y, out) == pytest.approx(xo.result_.auc, **TOL)
    assert np.array_equal(out[groups == "white"], scores[groups == "white"])


def test_intersectional_groups(tmp_path):
    """Two attribute columns: four intersections, fitted, transformed, saved and loaded
    as their joined labels."""
    rng = np.random.default_rng(11)
    n = 120
    race = rng.choice(["black", "white"], n)
    sex = rng.choice(["female", "male"], n)
    scores = np.clip(rng.random(n) + 0.2 * (race == "white"), 0.0, 1.0)
    y = (rng.random(n) < scores).astype(int)
    columns = np.column_stack([race, sex])
    joined = np.char.add(np.char.add(race, " & "), sex)
    xo = fitted(scores, y, columns, lam=2.0, reference_group="white & male")
    want = fitted(scores, y, joined, lam=2.0, reference_group="white & male")
    assert xo.groups_.tolist() == ["black & female", "black & male", "white & female",
                                   "white & male"]
    np.testing.assert_array_equal(xo.train_scores_adjusted_, want.train_scores_adjusted_)
    new = rng.random(30)
    new_columns = columns[rng.integers(0, n, 30)]
    out = xo.transform(new, sensitive_features=new_columns)
    new_joined = np.char.add(np.char.add(new_columns[:, 0], " & "), new_columns[:, 1])
    np.testing.assert_array_equal(out, want.transform(new, sensitive_features=new_joined))
    path = tmp_path / "model.json"
    xo.save(path)
    np.testing.assert_array_equal(
        XOrder.load(path).transform(new, sensitive_features=new_columns), out)
    labels = (new > 0.5).astype(int)
    assert metrics.disparity_pairs(labels, out, sensitive_features=new_columns,
                                   metric="urf") == (
        metrics.disparity_pairs(labels, out, sensitive_features=new_joined, metric="urf"))


def test_one_item_group():
    scores = np.array([0.9, 0.7, 0.6, 0.4, 0.2, 0.1, 0.55])
    y = np.array([1, 0, 1, 0, 1, 0, 1])
    groups = np.array(["a", "a", "a", "a", "a", "a", "b"])
    xo = fitted(scores, y, groups, metric="urf", lam=1.0, reference_group="a")
    assert xo.reference_group_ == "a"
    train = xo.transform(scores, sensitive_features=groups)
    assert metrics.disparity(y, train, sensitive_features=groups,
                             metric="urf") == pytest.approx(
        xo.result_.disparity, **TOL)
    x, knots_y = xo.maps_[1]
    assert x.tolist() == [0.0, 0.55, 1.0] and knots_y[[0, 2]].tolist() == [0.0, 1.0]
    new = np.array([0.55, 0.65, 0.3, 0.0, 1.0])
    out = xo.transform(new, sensitive_features=["b"] * 5)
    np.testing.assert_allclose(out, np.interp(new, x, knots_y), rtol=0, atol=1e-15)
    assert 0 < out[2] < out[0] < out[1] < 1 and out[3] == 0.0 and out[4] == 1.0
    assert np.array_equal(np.argsort(-xo.train_scores_adjusted_, kind="stable"), xo.order_)


def test_ties_in_scores():
    rng = np.random.default_rng(11)
    n = 40
    scores = rng.integers(0, 6, n) / 5
    y = rng.integers(0, 2, n)
    groups = np.resize([0, 1], n)
    y[:4] = [0, 0, 1, 1]
    xo = fitted(scores, y, groups, lam=0.5)
    adjusted = xo.train_scores_adjusted_
    # The reference keeps its scores; every group keeps its ties and its strict order.
    assert np.array_equal(adjusted[groups == xo.reference_group_],
                          scores[groups == xo.reference_group_])
    assert within_group_changes(scores, adjusted, groups) == (0, 0, 0)
    out = xo.transform(scores, sensitive_features=groups)
    np.testing.assert_array_equal(out, adjusted)


def test_fit_transform_returns_a_copy_of_the_training_scores():
    scores, y, groups = make_data(seed=8)
    xo = XOrder(lam=1.0, backend="numpy")
    out = xo.fit_transform(scores, y, sensitive_features=groups)
    assert np.array_equal(out, xo.train_scores_adjusted_)
    out[:] = -1
    assert not np.array_equal(out, xo.train_scores_adjusted_)


def test_progress_is_passed_on():
    scores, y, groups = make_data(seed=9)
    calls = []
    XOrder(backend="numpy").fit(scores, y, sensitive_features=groups,
                                progress=lambda done, total: calls.append((done, total)))
    assert calls


# ---------------------------------------------------------------------------------------
# No clumps: every group's order kept strictly (issue #22, item 3), by pair oracles.


def _compas_scores(protocol):
    """COMPAS training and test scores of a logistic regression: on all features, split
    seed 0 (the README's former quick start), or the paper's protocol (standardised
    features; many equal scores)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split

    from gpu_xorder.datasets import load_compas
    from gpu_xorder.experiments._experiment import split_scores

    data = load_compas()
    if protocol == "paper":
        return split_scores(data, data.sensitive)
    X_tr, X_te, y_tr, y_te, a_tr, a_te = train_test_split(
        data.X, data.y, data.sensitive, test_size=0.3, stratify=data.y, random_state=0)
    model = LogisticRegression(max_iter=1000).fit(X_tr, y_tr)
    return ((model.predict_proba(X_tr)[:, 1], y_tr, a_tr),
            (model.predict_proba(X_te)[:, 1], y_te, a_te))


def _assert_no_clumps(xo, train, test):
    """The transfer keeps each group's order, ties and within-group AUC, on the
    training and on the test scores, and clips nothing to a bound."""
    for (s, y, a), out in ((train, xo.train_scores_adjusted_),
                           (test, xo.transform(test[0], sensitive_features=test[2]))):
        assert within_group_changes(s, out, a) == (0, 0, 0)
        assert equal_pairs(out, a) == equal_pairs(s, a)
        for g in np.unique(a):
            m = a == g
            assert pair_frac(out[m & (y == 1)], out[m & (y == 0)]) == pair_frac(
                s[m & (y == 1)], s[m & (y == 0)])
        moved = a != xo.reference_group_
        lo, hi = xo.bounds_
        assert np.all((out[moved] > lo) & (out[moved] < hi))


@pytest.mark.parametrize("protocol", [pytest.param("quick start", marks=pytest.mark.slow),
                                      "paper"])
def test_compas_scores_keep_every_group_order(protocol):
    train, test = _compas_scores(protocol)
    xo = XOrder(metric="xauc", lam=0.5, backend="numpy").fit(
        train[0], train[1], sensitive_features=train[2])
    _assert_no_clumps(xo, train, test)
    np.testing.assert_array_equal(xo.transform(train[0], sensitive_features=train[2]),
                                  xo.train_scores_adjusted_)
    # Scores one and two floats beside every test score: the map's slope is far below
    # one ulp per ulp in its narrow gaps, so the straight line puts many of them on one
    # float (on any CPU, not only where BLAS rounding gives such test scores; issue #31)
    # and transform keeps them apart.
    s = test[0]
    near = np.concatenate([s, np.nextafter(s, 0), np.nextafter(s, 1),
                           np.nextafter(np.nextafter(s, 1), 1)])
    groups = np.tile(test[2], 4)
    out = xo.transform(near, sensitive_features=groups)
    assert within_group_changes(near, out, groups) == (0, 0, 0)
    assert equal_pairs(out, groups) == equal_pairs(near, groups)
    # the map of the adjusted group has a knot per end of its runs, not per score
    (x, _), = xo.maps_.values()
    assert x.size < 0.1 * np.unique(train[0][train[2] != xo.reference_group_]).size


def test_many_equal_reference_scores():
    """Reference scores on a grid of nine values, the other group's scores with ties
    of their own: a strong lam moves many items between equal reference scores."""
    rng = np.random.default_rng(3)
    n = 400
    groups = np.repeat([0, 1], n // 2)
    y = rng.integers(0, 2, n)
    scores = np.clip(0.5 + 0.25 * (y - 0.5) + rng.normal(0, 0.15, n) + 0.1 * (groups == 0),
                     0.01, 0.99)
    scores[groups == 0] = np.round(scores[groups == 0], 1)
    scores[groups == 1] = np.round(scores[groups == 1], 3)
    test = (rng.permutation(scores), y, rng.permutation(groups))
    for lam in (0.0, 1.0, 10.0):
        xo = fitted(scores, y, groups, lam=lam, reference_group=0)
        _assert_no_clumps(xo, (scores, y, groups), test)


def test_scores_near_the_float64_limit_give_finite_results(tmp_path):
    """Six finite scores in 1e308..1.6e308, two tied in one group (issue #25): fit,
    transform, save and load give finite numbers only."""
    scores = np.array([1.6e308, 1.2e308, 1.0e308, 1.5e308, 1.5e308, 1.1e308])
    y = np.array([1, 0, 1, 0, 1, 0])
    groups = np.array([0, 0, 0, 1, 1, 1])
    xo = fitted(scores, y, groups, lam=1.0, reference_group=0)
    adjusted = xo.train_scores_adjusted_
    assert np.isfinite(adjusted).all() and adjusted[3] == adjusted[4]
    assert all(np.isfinite(knots).all() for knots in xo.maps_[1])
    new = np.array([-1.7e308, 1.79e308, 0.0, 1.3e308, 1.5e308])
    out = xo.transform(new, sensitive_features=np.ones(5, dtype=int))
    assert np.isfinite(out).all() and np.all(np.diff(out[np.argsort(new)]) > 0)
    xo.save(tmp_path / "m.json")
    np.testing.assert_array_equal(
        XOrder.load(tmp_path / "m.json").transform(new, sensitive_features=[1] * 5), out)


@pytest.mark.parametrize("subsample", [None, 3])
def test_training_metrics_are_those_of_the_adjusted_scores(subsample):
    """``train_auc_``/``train_disparity_`` (what `fit` prints and the model file keeps)
    are the metrics of ``train_scores_adjusted_`` on all training items."""
    scores, y, groups = make_data(n_a=90, n_b=60, seed=12)
    xo = fitted(scores, y, groups, metric="prf", lam=2.0, subsample=subsample)
    assert xo.train_auc_ == metrics.auc(y, xo.train_scores_adjusted_)
    assert xo.train_disparity_ == metrics.disparity(y, xo.train_scores_adjusted_,
                                                    sensitive_features=groups, metric="prf")
    if subsample is None:  # distinct scores: the learned ordering's own values
        assert xo.train_auc_ == pytest.approx(xo.result_.auc, **TOL)
        assert xo.train_disparity_ == pytest.approx(xo.result_.disparity, **TOL)


# ---------------------------------------------------------------------------------------
# scikit-learn conventions.


def test_not_fitted():
    with pytest.raises(NotFittedError):
        XOrder().transform([0.1, 0.2], sensitive_features=[0, 1])


def test_clone_get_params_set_params():
    xo = XOrder(metric="prf", lam=0.25, disparity="signed", reference_group="b",
                backend="numpy", method="iterative", subsample=3, memory_limit=2**30,
                solver="paper")
    params = xo.get_params()
    assert params == dict(metric="prf", lam=0.25, disparity="signed", reference_group="b",
                          backend="numpy", method="iterative", subsample=3,
                          memory_limit=2**30, solver="paper", max_disparity=None,
                          validation=None, exact_budget=2.0)
    twin = clone(xo)
    assert twin is not xo and twin.get_params() == params
    assert twin.set_params(lam=3.0, metric="urf") is twin
    assert twin.lam == 3.0 and twin.metric == "urf" and xo.lam == 0.25
    scores, y, groups = make_data(seed=1)
    xo.set_params(reference_group=None).fit(scores, y, sensitive_features=groups)
    fresh = clone(xo)
    assert not hasattr(fresh, "order_")
    with pytest.raises(NotFittedError):
        fresh.transform(scores, sensitive_features=groups)


def test_init_stores_parameters_unchanged_and_is_keyword_only():
    lam = [0.1, 0.2]
    xo = XOrder(lam=lam, metric="nonsense")
    assert xo.lam is lam and xo.metric == "nonsense"
    with pytest.raises(TypeError):
        XOrder("xauc")


# ---------------------------------------------------------------------------------------
# Bad inputs.


def test_sequence_lam_is_rejected():
    scores, y, groups = make_data()
    with pytest.raises(ValueError, match=re.escape(MSG_LAM_SEQUENCE.format(k=2))):
        fitted(scores, y, groups, lam=[0.1, 0.2])


@pytest.mark.parametrize("name, value", [("metric", "auc"), ("disparity", "abs"),
                                         ("backend", "gpu")])
def test_unknown_choices(name, value):
    scores, y, groups = make_data()
    with pytest.raises(ValueError, match=f"unknown {name} '{value}'"):
        XOrder(**{name: value}).fit(scores, y, sensitive_features=groups)


def test_unknown_reference_group():
    scores, y, groups = make_data(labels=("a", "b"))
    with pytest.raises(ValueError, match=re.escape(MSG_REFERENCE.format(
            value="c", labels=["a", "b"]))):
        fitted(scores, y, groups, reference_group="c")
    with pytest.raises(ValueError, match="reference_group 0 is not one of the groups"):
        fitted(scores, y, groups, reference_group=0)


def test_unseen_group_at_transform():
    scores, y, groups = make_data(labels=("a", "b"))
    xo = fitted(scores, y, groups)
    with pytest.raises(ValueError, match=re.escape(MSG_UNSEEN.format(
            label="z", labels=["a", "b"]))):
        xo.transform([0.5, 0.6], sensitive_features=["a", "z"])


def test_mismatched_lengths_and_nan():
    scores, y, groups = make_data()
    with pytest.raises(ValueError, match="y has length"):
        fitted(scores, y[:-1], groups)
    with pytest.raises(ValueError, match="sensitive features has length"):
        fitted(scores, y, groups[:-1])
    bad = scores.copy()
    bad[3] = np.nan
    with pytest.raises(ValueError, match=re.escape(v.MSG_NOT_FINITE.format(
            name="scores", index=3))):
        fitted(bad, y, groups)
    xo = fitted(scores, y, groups)
    with pytest.raises(ValueError, match="sensitive features has length"):
        xo.transform(scores, sensitive_features=groups[:-1])
    with pytest.raises(ValueError, match="contains NaN"):
        xo.transform([np.nan, 0.5], sensitive_features=[0, 1])
    with pytest.raises(ValueError, match="missing values"):
        xo.transform([0.2, 0.5], sensitive_features=np.array([0, None], dtype=object))
    with pytest.raises(TypeError, match="scores must be numeric"):
        xo.transform(["x", "y"], sensitive_features=[0, 1])


def test_one_group_is_rejected():
    with pytest.raises(ValueError, match="need at least two groups"):
        fitted([0.1, 0.9], [0, 1], ["a", "a"])


def test_inputs_not_modified():
    scores, y, groups = make_data(seed=6, labels=("a", "b"))
    originals = [scores.copy(), y.copy(), groups.copy()]
    xo = XOrder(lam=1.0, metric="xauc", backend="numpy")
    xo.fit(scores, y, sensitive_features=groups)
    xo.fit_transform(scores, y, sensitive_features=groups)
    out = xo.transform(scores, sensitive_features=groups)
    assert out is not scores
    for a, c in zip((scores, y, groups), originals):
        assert np.array_equal(a, c)
    out[:] = 0
    assert np.array_equal(scores, originals[0])
    assert xo.get_params()["lam"] == 1.0


# ------------------------------------------- subsampling (docs/design.md, section 6)

def test_subsample_one_is_no_subsample():
    scores, y, groups = make_data(n_a=60, n_b=40, seed=4)
    full = XOrder(lam=2.0, backend="numpy").fit(scores, y, sensitive_features=groups)
    one = XOrder(lam=2.0, backend="numpy", subsample=1).fit(scores, y,
                                                             sensitive_features=groups)
    np.testing.assert_array_equal(one.order_, full.order_)
    np.testing.assert_array_equal(one.train_scores_adjusted_, full.train_scores_adjusted_)
    np.testing.assert_array_equal(full.subsample_indices_, np.arange(scores.size))


@pytest.mark.parametrize("step", [2, 5])
def test_subsample_learns_on_every_kth_item_and_transfers(step):
    scores, y, groups = make_data(n_a=300, n_b=200, seed=5)
    xo = XOrder(lam=5.0, backend="numpy", subsample=step, solver="paper").fit(
        scores, y, sensitive_features=groups)
    keep = xo.subsample_indices_
    # every step-th item of each group's descending order, the top one first
    for g in np.unique(groups):
        members = np.flatnonzero(groups == g)
        ranked = members[np.argsort(-scores[members], kind="stable")]
        np.testing.assert_array_equal(np.intersect1d(keep, members), np.sort(ranked[::step]))
    # the learned order covers exactly the subsample; the DP ran on it alone
    np.testing.assert_array_equal(np.sort(xo.order_), keep)
    assert xo.result_.order.size == keep.size
    # the learned items keep the scores the ordering gave them, and these realise it
    sub = XOrder(lam=5.0, backend="numpy", solver="paper").fit(
        scores[keep], y[keep], sensitive_features=groups[keep])
    np.testing.assert_array_equal(xo.train_scores_adjusted_[keep],
                                  sub.train_scores_adjusted_)
    # all training items are adjusted by the monotone maps; the reference is untouched
    adjusted = xo.train_scores_adjusted_
    ref = groups == xo.reference_group_
    np.testing.assert_array_equal(adjusted[ref], scores[ref])
    for g in np.unique(groups):
        m = groups == g
        order = np.argsort(scores[m], kind="stable")
        assert np.all(np.diff(adjusted[m][order]) >= 0)
    # and the fairness gained on the subsample carries over to all training items
    before = metrics.disparity(y, scores, sensitive_features=groups, metric="xauc")
    after = metrics.disparity(y, adjusted, sensitive_features=groups, metric="xauc")
    assert after < 0.5 * before


def test_subsample_rejects_bad_values():
    scores, y, groups = make_data(seed=6)
    for bad, exc in ((0, ValueError), (-2, ValueError), (2.5, TypeError), (True, TypeError),
                     ("3", TypeError)):
        with pytest.raises(exc, match="subsample must be None or an integer >= 1"):
            XOrder(subsample=bad, backend="numpy").fit(scores, y, sensitive_features=groups)


# ---------------------------------------------------------------------------------------
# xorder_path: one batched DP, the very models of separate fits.


def _same_model(a, b):
    assert a.get_params() == b.get_params()
    assert np.array_equal(a.order_, b.order_)
    assert np.array_equal(a.subsample_indices_, b.subsample_indices_)
    np.testing.assert_array_equal(a.train_scores_adjusted_, b.train_scores_adjusted_)
    assert a.reference_group_ == b.reference_group_ and a.bounds_ == b.bounds_
    assert a.clip_ == b.clip_ and a.maps_.keys() == b.maps_.keys()
    for key in a.maps_:
        for x, y in zip(a.maps_[key], b.maps_[key]):
            np.testing.assert_array_equal(x, y)
    assert (a.result_.auc, a.result_.disparity, a.result_.objective) == (
        b.result_.auc, b.result_.disparity, b.result_.objective)
    assert a.result_.counters == b.result_.counters


@pytest.mark.parametrize("params", [
    dict(metric="xauc"),
    dict(metric="urf", disparity="signed", reference_group="b"),
    dict(metric="prf", subsample=3),
])
def test_xorder_path_equals_separate_fits(params):
    scores, y, groups = make_data(n_a=40, n_b=25, seed=7, labels=("a", "b"))
    lams = [0.0, 0.05, 0.5, 5.0]
    models = xorder_path(scores, y, sensitive_features=groups, lams=lams, backend="numpy",
                         **params)
    assert [m.lam for m in models] == lams
    for lam, model in zip(lams, models):
        _same_model(model, fitted(scores, y, groups, lam=lam, **params))
    test_scores = np.linspace(0.0, 1.0, 11)
    for model in models:
        alone = fitted(scores, y, groups, lam=model.lam, **params)
        np.testing.assert_array_equal(
            model.transform(test_scores, sensitive_features=["b"] * 11),
            alone.transform(test_scores, sensitive_features=["b"] * 11))
    if params.get("disparity", "absolute") == "absolute":
        # the path trades AUC for disparity (signed mode drives D below zero instead);
        # the exact optimum may keep the lam = 0 ordering when its |D| is already small
        assert models[-1].result_.disparity <= models[0].result_.disparity
        assert models[-1].result_.auc <= models[0].result_.auc


def test_xorder_path_three_groups_and_models_are_independent():
    rng = np.random.default_rng(5)
    groups = np.repeat(np.array(["x", "y", "z"]), [12, 9, 7])
    y = rng.integers(0, 2, groups.size)
    y[[0, 1, 12, 13, 21, 22]] = [0, 1, 0, 1, 0, 1]
    scores = rng.random(groups.size)
    models = xorder_path(scores, y, sensitive_features=groups, lams=(0.0, 1.0),
                         backend="numpy", method="kd")
    for model in models:
        _same_model(model, fitted(scores, y, groups, lam=model.lam, method="kd"))
    models[0].groups_[0] = "changed"  # fitted arrays are not shared between models
    models[0].subsample_indices_[0] = -1
    assert models[1].groups_[0] == "x" and models[1].subsample_indices_[0] == 0


def test_xorder_path_progress_counts_every_lattice():
    scores, y, groups = make_data(n_a=10, n_b=6)
    calls = []
    xorder_path(scores, y, sensitive_features=groups, lams=[0.0, 1.0, 2.0],
                backend="numpy", solver="paper",
                progress=lambda done, total: calls.append((done, total)))
    assert calls and calls[-1][0] == calls[-1][1] == 3 * 11 * 7


def test_xorder_path_rejects_bad_arguments():
    scores, y, groups = make_data(n_a=10, n_b=6)
    kw = dict(sensitive_features=groups, backend="numpy")
    with pytest.raises(TypeError, match=re.escape(MSG_PATH_LAM)):
        xorder_path(scores, y, lams=[0.0], lam=1.0, **kw)
    with pytest.raises(TypeError, match="alpha"):
        xorder_path(scores, y, lams=[0.0], alpha=1.0, **kw)
    with pytest.raises(ValueError, match=re.escape(v.MSG_LAM_EMPTY)):
        xorder_path(scores, y, lams=[], **kw)
    with pytest.raises(ValueError, match="lam"):
        xorder_path(scores, y, lams=[0.0, -1.0], **kw)
    with pytest.raises(ValueError, match="metric"):
        xorder_path(scores, y, lams=[0.0], metric="auc", **kw)
    with pytest.raises(ValueError, match="subsample"):
        xorder_path(scores, y, lams=[0.0], subsample=0, **kw)


def test_xorder_path_does_not_modify_inputs():
    scores, y, groups = make_data(n_a=10, n_b=6)
    copies = scores.copy(), y.copy(), groups.copy()
    lams = np.array([0.0, 0.5])
    xorder_path(scores, y, sensitive_features=groups, lams=lams, backend="numpy")
    for before, after in zip(copies, (scores, y, groups)):
        np.testing.assert_array_equal(before, after)
    np.testing.assert_array_equal(lams, [0.0, 0.5])


def test_the_data_are_validated_and_encoded_once(monkeypatch):
    """``fit`` and ``xorder_path`` encode the groups once and hand the encoded data to
    the core of ``fair_order``, which does not validate them again."""
    from gpu_xorder.utils import _validation

    scores, y, groups = make_data(n_a=30, n_b=20)
    real, calls = _validation.encode_groups, []

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(_validation, "encode_groups", counting)
    XOrder(lam=1.0, backend="numpy").fit(scores, y, sensitive_features=groups)
    assert len(calls) == 1
    xorder_path(scores, y, sensitive_features=groups, lams=[0.0, 1.0], backend="numpy")
    assert len(calls) == 2


def test_a_subsample_too_coarse_for_a_group_is_named():
    scores, y, groups = make_data(n_a=60, n_b=12, seed=3)
    with pytest.raises(ValueError, match=r"subsample=20 keeps \d+ of the 72 items \(the "
                                         r"smallest group, .* with 12 items, keeps 1\)"):
        XOrder(subsample=20, backend="numpy").fit(scores, y, sensitive_features=groups)


# ---------------------------------------------------------------------------------------
# Orders no scores realise: fit says when its adjusted scores break what it promised.

# URF on a coarse grid of scores: orderings over all interleavings would split a group's
# ties (fair_order's, |D| 0 where the written scores have |D| 0.5); XOrder's keep every
# run of equal scores whole (URF's lattice of runs weighs a run's U by its items), so its
# adjusted scores give what result_ claims and nothing warns
URF_TIED = {
    "eps": (np.array([0.6, 0.1, 0.1, 0.1, 0.35, 0.6, 0.35, 0.1]),
            np.array([0, 1, 1, 1, 1, 0, 1, 0]), np.array(list("aaaabbbb"))),
    "lam": (np.array([0.6, 0.6, 0.1, 0.6, 0.1, 0.35]), np.array([1, 0, 1, 0, 0, 1]),
            np.array(list("aaabbb"))),
    "zero": (np.array([0.1, 0.6, 0.1, 0.6, 0.35, 0.6]), np.array([1, 1, 0, 1, 1, 0]),
             np.array(list("aaabbb"))),
}


@pytest.mark.parametrize("case, params", [("eps", dict(max_disparity=0.5)),
                                          ("lam", dict(lam=5.0)), ("zero", dict(lam=0.0))])
def test_urf_orderings_keep_ties_whole_so_scores_realise_them(case, params):
    s, y, g = URF_TIED[case]
    if case == "eps":  # |D| 0 only by splitting a run: proven out of reach, and said so
        assert fair_order(s, y, g, metric="urf", max_disparity=0.0,
                          backend="numpy").disparity == 0.0
        with pytest.raises(ValueError, match="no ordering has .D. <= 0 .urf.: the exact "
                           "constrained solver found none among the interleavings that "
                           "keep each group's equal scores together"):
            fitted(s, y, g, metric="urf", max_disparity=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        xo = fitted(s, y, g, metric="urf", **params)
        xorder_path(s, y, sensitive_features=g, lams=[0.0, 5.0], metric="urf",
                    backend="numpy")
    r = xo.result_
    assert "tie_runs" in r.extra
    assert xo.train_auc_ == pytest.approx(r.auc, abs=1e-12)
    assert xo.train_disparity_ == pytest.approx(r.disparity, abs=1e-12)


def test_fit_warns_where_its_adjusted_scores_miss_what_result_claims():
    # a's 0.5 and the double just below it leave no room for b's positive, which the
    # ordering of |D| 0 puts between them: the adjusted scores tie it with an a negative
    # (half a pair), and the warning names the cause after the transfer's own
    x = 0.5
    s = np.array([0.9, x, np.nextafter(x, 0), 0.1, 0.7, 0.45, 0.3, 0.2])
    y, g = np.array([1, 0, 0, 1, 0, 1, 0, 0]), np.array(list("aaaabbbb"))
    with pytest.warns(UserWarning, match=re.escape(
            "result_ claims AUC 0.5333 and |D| 0 (xauc), but the adjusted training scores "
            "give AUC 0.5667 and |D| 0.25: the adjusted scores tie items of different "
            "groups that the ordering separates")) as record:
        xo = fitted(s, y, g, lam=2.0, reference_group="a")
    assert record[-1].filename == __file__  # points at the caller's fit
    assert xo.train_disparity_ == metrics.disparity(y, xo.train_scores_adjusted_,
                                                    sensitive_features=g, metric="xauc")
    assert xo.train_disparity_ != pytest.approx(xo.result_.disparity, abs=1e-9)


def test_fit_warns_where_the_learned_ordering_itself_falls_below_the_scores_given():
    # distinct scores: every ordering is realised; the cell rule's at lam 0.5 scores
    # 0.2 where the scores given score 0.3167, and the message says why (the default
    # solver does better: no warning)
    s = np.array([0.9, 0.7, 0.29, 0.32, 0.12, 0.24, 0.6, 0.73])
    y, g = np.array([0, 0, 1, 0, 0, 1, 0, 1]), np.array(list("aaaabbbb"))
    with pytest.warns(UserWarning, match=re.escape(
            "the adjusted training scores reach 0.2 in AUC - 0.5 |D|, below the scores "
            "given (0.3167), as the learned ordering does: the cell rule "
            "(solver='paper') is a heuristic for |D|")):
        xo = fitted(s, y, g, lam=0.5, solver="paper")
    assert xo.train_auc_ - 0.5 * xo.train_disparity_ == pytest.approx(xo.result_.objective)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        fitted(s, y, g, lam=0.5)
    # scores that tie across groups count half a pair each, which no ordering does: the
    # certified default's answer falls below them, and the message says why
    s2 = np.array([0.45, 0.45, 0.7, 0.7, 0.45, 0.2])
    y2, g2 = np.array([0, 1, 1, 0, 1, 0]), np.array(list("aaabbb"))
    with pytest.warns(UserWarning, match=re.escape(
            "reach 0.4722 in AUC - 1 |D|, below the scores given (0.4861), as the learned "
            "ordering does: the scores given tie items of different groups")):
        xo = fitted(s2, y2, g2, lam=1.0)
    assert xo.result_.gap == 0  # the best ordering, proven
    # two causes at once: both said, joined by "and" (they were joined by "or", which
    # read as a choice between facts that both hold)
    with pytest.warns(UserWarning, match=re.escape(
            "the scores given tie items of different groups (half a pair each, which no "
            "ordering realises) and the cell rule (solver='paper') is a heuristic")):
        fitted(s2, y2, g2, lam=1.0, solver="paper")


# b's tied 0.6 run: the ordering of |D| = 0 over all interleavings puts b's positive
# above a and its negatives below (written scores |D| = 1); XOrder's orderings keep
# every run of equal scores whole for xAUC and PRF, so the scores realise them
TIED = (np.array([0.4, 0.4, 0.7, 0.6, 0.6, 0.6]), np.array([1, 1, 0, 1, 0, 0]),
        np.array(list("aaabbb")))


@pytest.mark.parametrize("metric", ["xauc", "prf"])
@pytest.mark.parametrize("params", [dict(max_disparity=0.4), dict(lam=5.0),
                                    dict(lam=5.0, solver="paper"), dict(lam=0.0)])
def test_xauc_and_prf_orderings_keep_ties_whole_so_scores_realise_them(metric, params):
    s, y, g = TIED
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        xo = fitted(s, y, g, metric=metric, **params)
    r = xo.result_
    assert r.extra["tie_runs"] == [2, 1]  # a: {0.7}, {0.4, 0.4}; b: {0.6 x 3}
    position = np.argsort(r.order)
    for run in ([0, 1], [3, 4, 5]):  # no other group's item inside a run
        inside = range(position[run].min(), position[run].max() + 1)
        assert {int(r.order[k]) for k in inside} <= set(run)
    assert xo.train_auc_ == pytest.approx(r.auc, abs=1e-12)
    assert xo.train_disparity_ == pytest.approx(r.disparity, abs=1e-12)
    if "max_disparity" in params:  # xAUC reaches |D| 0; PRF's fairest keeping the ties: 1/3
        assert xo.train_disparity_ == (0.0 if metric == "xauc" else pytest.approx(1 / 3))
        if metric == "prf":  # proven, and said to be among the orderings keeping ties
            with pytest.raises(ValueError, match=re.escape(
                    "the exact constrained solver found none among the interleavings "
                    "that keep each group's equal scores together")):
                fitted(s, y, g, metric=metric, max_disparity=0.3)
    # fair_order orders items, not scores: its orderings may split a run
    direct = fair_order(s, y, g, metric=metric, backend="numpy", **params)
    assert "tie_runs" not in direct.extra


@pytest.mark.parametrize("seed", range(12))
def test_no_such_warning_where_scores_are_distinct(seed):
    # distinct scores: every ordering is realised, so the written scores keep the
    # promise (the fit's objective at least the input's, the constraint met)
    s, y, g = make_data(12, 10, seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        assert fitted(s, y, g, lam=0.0).train_auc_ >= metrics.auc(y, s)
        xo = fitted(s, y, g, lam=5.0)
        assert xo.train_auc_ - 5 * xo.train_disparity_ >= (
            metrics.auc(y, s) - 5 * metrics.disparity(y, s, sensitive_features=g) - 1e-12)
        xo = fitted(s, y, g, max_disparity=0.1)
        assert xo.train_disparity_ <= 0.1 + 1e-12


@pytest.mark.parametrize("metric", ["xauc", "prf"])
@pytest.mark.parametrize("solver", ["paper", "auto"])
def test_runs_kept_whole_on_every_engine_and_realised(metric, solver):
    """Scores on a grid of 12 values (long runs in both groups): the ordering keeps
    every run whole, the adjusted training scores have the ordering's metrics, and the
    numba engine's fit is the reference's, bit for bit."""
    pytest.importorskip("numba")
    rng = np.random.default_rng(5)
    g = np.repeat(["p", "q"], [160, 140])
    y = (rng.random(300) < 0.4 + 0.2 * (g == "p")).astype(int)
    s = np.round(np.clip(0.3 * y + rng.normal(0.4, 0.2, 300), 0, 1) * 11) / 11
    fits = [fitted(s, y, g, metric=metric, lam=0.5, solver=solver, backend=b)
            for b in ("numpy", "numba")]
    for xo in fits:
        r = xo.result_
        assert r.extra["tie_runs"][0] < 160 and r.extra["tie_runs"][1] < 140
        key = list(zip(g[r.order], s[r.order]))  # (group, score) along the ordering
        for run in set(key):
            at = [k for k, v in enumerate(key) if v == run]
            assert at == list(range(at[0], at[-1] + 1))
        assert xo.train_auc_ == pytest.approx(r.auc, abs=1e-12)
        assert xo.train_disparity_ == pytest.approx(r.disparity, abs=1e-12)
    assert np.array_equal(fits[0].result_.order, fits[1].result_.order)
    assert np.array_equal(fits[0].train_scores_adjusted_, fits[1].train_scores_adjusted_)
    assert fits[0].result_.upper_bound == fits[1].result_.upper_bound


def test_a_share_held_out_refits_on_all_the_data_and_keeps_the_table():
    """``validation=0.3``: the chosen weight is refitted on all the data, and the fitted
    model is that refit (its maps, ordering and scores) with the held-out table as
    ``validation_`` (the refit itself has none)."""
    from gpu_xorder.postprocessing._held_out import VALIDATION_LAMS

    scores, y, groups = make_data(n_a=24, n_b=16, seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        xo = XOrder(lam=1.0, validation=0.3, backend="numpy", solver="paper").fit(
            scores, y, sensitive_features=groups)
        refit = XOrder(lam=xo.lam_, backend="numpy", solver="paper").fit(
            scores, y, sensitive_features=groups)
    assert xo.validation_["lams"] == list(VALIDATION_LAMS)
    assert xo.validation_["chosen"] == xo.lam_ and len(xo.validation_["auc"]) == 11
    assert refit.validation_ is None
    assert xo.order_.size == scores.size
    assert np.array_equal(xo.order_, refit.order_)
    assert np.array_equal(xo.train_scores_adjusted_, refit.train_scores_adjusted_)
    assert xo.maps_.keys() == refit.maps_.keys() and xo.bounds_ == refit.bounds_
    new = np.linspace(0.05, 0.95, 7)
    assert np.array_equal(xo.transform(new, sensitive_features=[1] * 7),
                          refit.transform(new, sensitive_features=[1] * 7))
