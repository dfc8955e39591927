"""Tests of gpu_xorder.metrics against O(n^2) brute-force definitions and scikit-learn."""

import itertools
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score

from gpu_xorder.metrics._counts import MSG_Y_LACKS
from gpu_xorder.metrics._curves import xroc_curve
from gpu_xorder.metrics._ranking import (
    MSG_Y_REQUIRED,
    auc,
    disparity,
    disparity_pairs,
    prf,
    urf,
    xauc,
)
from gpu_xorder.utils import _validation as v
from support.properties import examples

TOL = dict(rel=1e-12, abs=1e-12)


# ---------------------------------------------------------------------------------------
# Brute-force oracles: every pair, 1 for a win, 1/2 for a tie, 0 for a loss.


def p_above(upper, lower):
    upper, lower = np.asarray(upper, float), np.asarray(lower, float)
    wins = (upper[:, None] > lower[None, :]) + 0.5 * (upper[:, None] == lower[None, :])
    return wins.mean()


def brute_auc(s, y):
    return p_above(s[y == 1], s[y == 0])


def brute_xauc(s, y, grp, g, h):
    return p_above(s[(grp == g) & (y == 1)], s[(grp == h) & (y == 0)])


def brute_prf(s, y, grp, g):
    return p_above(s[(grp == g) & (y == 1)], s[y == 0])


def brute_urf(s, grp, g, h):
    return abs(p_above(s[grp == g], s[grp == h]) - p_above(s[grp == h], s[grp == g]))


def brute_delta(s, y, grp, g, h, metric):
    if metric == "xauc":
        return abs(brute_xauc(s, y, grp, g, h) - brute_xauc(s, y, grp, h, g))
    if metric == "prf":
        return abs(brute_prf(s, y, grp, g) - brute_prf(s, y, grp, h))
    return brute_urf(s, grp, g, h)


def brute_pairs(s, y, grp, metric):
    return {
        (g, h): brute_delta(s, y, grp, g, h, metric)
        for g, h in itertools.combinations(sorted(set(grp.tolist())), 2)
    }


# ---------------------------------------------------------------------------------------
# Random inputs: 2..4 groups with int or string labels, every group holding at least one
# positive and one negative, scores with many ties or (almost surely) none.

INT_LABELS = [7, -3, 12, 0]
STR_LABELS = ["m", "f", "x", "b"]


@st.composite
def ranking_data(draw):
    k = draw(st.integers(2, 4))
    extra = draw(st.integers(0, 30))
    ids = list(range(k)) * 2 + draw(st.lists(st.integers(0, k - 1), min_size=extra,
                                             max_size=extra))
    y = [1] * k + [0] * k + draw(st.lists(st.integers(0, 1), min_size=extra, max_size=extra))
    n = len(ids)
    tied = st.integers(0, 4).map(float)
    spread = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
    scores = draw(st.lists(draw(st.sampled_from([tied, spread])), min_size=n, max_size=n))
    names = draw(st.sampled_from([INT_LABELS, STR_LABELS]))
    perm = np.array(draw(st.permutations(range(n))), dtype=int)
    return (
        np.array(scores, dtype=float)[perm],
        np.array(y)[perm],
        np.array([names[i] for i in ids])[perm],
    )


def two_groups(data, draw):
    present = sorted(set(data[2].tolist()))
    return draw(st.sampled_from(present)), draw(st.sampled_from(present))


# ---------------------------------------------------------------------------------------
# Hand-computed cases.

S4 = np.array([3.0, 2.0, 1.0, 0.0])
Y4 = np.array([1, 0, 1, 0])
G4 = np.array(["a", "a", "b", "b"])


def test_auc_hand():
    # positives {3, 1}, negatives {2, 0}: 3>2, 3>0, 1<2, 1>0.
    assert auc(Y4, S4) == 0.75
    assert auc([1, 0, 1, 0], [1, 1, 1, 1]) == 0.5
    assert auc([0, 1], [0, 1]) == 1.0
    assert auc([1, 1, 0], [2, 1, 1]) == 0.75


def test_xauc_hand():
    assert xauc(Y4, S4, sensitive_features=G4, g="a", h="b") == 1.0  # 3 > 0
    assert xauc(Y4, S4, sensitive_features=G4, g="b", h="a") == 0.0  # 1 < 2
    assert xauc(Y4, S4, sensitive_features=G4, g="a", h="a") == 1.0  # 3 > 2
    assert xauc(Y4, [1, 1, 2, 0], sensitive_features=G4, g="b", h="a") == 1.0  # 2 > 1
    assert xauc(Y4, [1, 1, 1, 0], sensitive_features=G4, g="b", h="a") == 0.5  # tie


def test_prf_hand():
    assert prf(Y4, S4, sensitive_features=G4, g="a") == 1.0  # 3 above {2, 0}
    assert prf(Y4, S4, sensitive_features=G4, g="b") == 0.5  # 1 below 2, above 0


def test_urf_hand():
    assert urf(None, S4, sensitive_features=G4, g="a", h="b") == 1.0
    assert urf(None, S4, sensitive_features=G4, g="b", h="a") == 1.0
    assert urf(None, S4, sensitive_features=["a", "b", "b", "a"], g="a", h="b") == 0.0
    # a = {3, 1}, b = {2, 0}: a above b in 3 of 4 pairs -> |3/4 - 1/4|.
    assert urf(None, S4, sensitive_features=["a", "b", "a", "b"], g="a", h="b") == 0.5
    assert urf(None, [1, 1, 1, 1], sensitive_features=G4, g="a", h="b") == 0.0


def test_disparity_hand():
    assert disparity(Y4, S4, sensitive_features=G4) == 1.0
    assert disparity(Y4, S4, sensitive_features=G4, metric="prf") == 0.5
    assert disparity(None, S4, sensitive_features=G4, metric="urf") == 1.0
    assert disparity(Y4, S4, sensitive_features=G4, metric="urf") == 1.0


def test_disparity_three_groups_hand():
    s = [5, 4, 3, 2, 1, 0]
    y = [1, 0, 1, 0, 1, 0]
    grp = [2, 2, 0, 0, 1, 1]
    # xAUC(g, h) rows g, columns h: group 2 wins everything, 0 beats 1, 1 loses to all.
    expected = {(0, 1): 1.0, (0, 2): 1.0, (1, 2): 1.0}
    assert disparity_pairs(y, s, sensitive_features=grp) == expected
    assert disparity(y, s, sensitive_features=grp) == 1.0
    # PRF: group 2 -> 1, group 0 -> 2/3, group 1 -> 1/3.
    got = disparity_pairs(y, s, sensitive_features=grp, metric="prf")
    assert got == pytest.approx({(0, 1): 1 / 3, (0, 2): 1 / 3, (1, 2): 2 / 3}, **TOL)
    assert disparity(y, s, sensitive_features=grp, metric="prf") == pytest.approx(2 / 3, **TOL)
    # URF: every pair is perfectly separated.
    assert disparity_pairs(None, s, sensitive_features=grp, metric="urf") == {
        (0, 1): 1.0, (0, 2): 1.0, (1, 2): 1.0}


def test_disparity_pairs_keys_sorted_python_labels():
    s = np.arange(8.0)
    y = np.array([0, 1] * 4)
    got = disparity_pairs(y, s,
                          sensitive_features=np.array(["z", "a", "m", "a", "z", "m", "a",
                                                       "z"]))
    assert list(got) == [("a", "m"), ("a", "z"), ("m", "z")]
    assert all(type(g) is str and type(h) is str for g, h in got)
    got = disparity_pairs(y, s, sensitive_features=np.array([9, 9, -1, -1, 3, 3, 9, -1]))
    assert list(got) == [(-1, 3), (-1, 9), (3, 9)]
    assert all(type(g) is int for pair in got for g in pair)
    assert all(type(value) is float for value in got.values())


def test_xroc_curve_hand():
    fpr, tpr, thresholds = xroc_curve(Y4, S4, sensitive_features=G4, g="b", h="a")
    # positive of b: {1}; negative of a: {2}.
    np.testing.assert_array_equal(fpr, [0.0, 1.0, 1.0])
    np.testing.assert_array_equal(tpr, [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(thresholds[1:], [2.0, 1.0])
    assert np.isinf(thresholds[0])


# ---------------------------------------------------------------------------------------
# Random inputs against the oracles.


@settings(max_examples=examples(150), deadline=None)
@given(data=ranking_data())
def test_auc_matches_oracle_and_sklearn(data):
    s, y, _ = data
    assert auc(y, s) == pytest.approx(brute_auc(s, y), **TOL)
    assert auc(y, s) == pytest.approx(roc_auc_score(y, s), **TOL)


@settings(max_examples=examples(150), deadline=None)
@given(data=ranking_data(), choice=st.data())
def test_pair_metrics_match_oracles(data, choice):
    s, y, grp = data
    g, h = two_groups(data, choice.draw)
    expected = brute_xauc(s, y, grp, g, h)
    assert xauc(y, s, sensitive_features=grp, g=g, h=h) == pytest.approx(expected, **TOL)
    sub = ((grp == g) & (y == 1)) | ((grp == h) & (y == 0))
    if g != h:
        assert xauc(y, s, sensitive_features=grp, g=g,
                    h=h) == pytest.approx(roc_auc_score(y[sub], s[sub]), **TOL)
    assert prf(y, s, sensitive_features=grp, g=g) == pytest.approx(brute_prf(s, y, grp, g),
                                                                   **TOL)
    assert urf(None, s, sensitive_features=grp, g=g, h=h) == pytest.approx(
        brute_urf(s, grp, g, h), **TOL)
    assert urf(None, s, sensitive_features=grp, g=g, h=h) == urf(
        None, s, sensitive_features=grp, g=h, h=g)


@settings(max_examples=examples(150), deadline=None)
@given(data=ranking_data(), metric=st.sampled_from(v.METRICS))
def test_disparity_matches_oracle(data, metric):
    s, y, grp = data
    expected = brute_pairs(s, y, grp, metric)
    got = disparity_pairs(y, s, sensitive_features=grp, metric=metric)
    assert list(got) == list(expected)
    assert got == pytest.approx(expected, **TOL)
    assert disparity(y, s, sensitive_features=grp, metric=metric) == max(got.values())
    assert disparity(y, s, sensitive_features=grp,
                     metric=metric) == pytest.approx(max(expected.values()), **TOL)


@settings(max_examples=examples(100), deadline=None)
@given(data=ranking_data(), metric=st.sampled_from(v.METRICS))
def test_disparity_pairs_agree_with_single_pair_functions(data, metric):
    # Two code paths (one sort for all groups, one half_wins2 per pair) give equal floats.
    s, y, grp = data
    for (g, h), value in disparity_pairs(y, s, sensitive_features=grp, metric=metric).items():
        if metric == "xauc":
            single = abs(xauc(y, s, sensitive_features=grp, g=g, h=h)
                         - xauc(y, s, sensitive_features=grp, g=h, h=g))
        elif metric == "prf":
            single = abs(prf(y, s, sensitive_features=grp, g=g)
                         - prf(y, s, sensitive_features=grp, g=h))
        else:
            single = urf(None, s, sensitive_features=grp, g=g, h=h)
        assert value == single


@settings(max_examples=examples(100), deadline=None)
@given(data=ranking_data(), choice=st.data())
def test_xroc_curve(data, choice):
    s, y, grp = data
    g, h = two_groups(data, choice.draw)
    fpr, tpr, thresholds = xroc_curve(y, s, sensitive_features=grp, g=g, h=h)
    assert (fpr[0], tpr[0]) == (0.0, 0.0)
    assert (fpr[-1], tpr[-1]) == (1.0, 1.0)
    assert np.all(np.diff(fpr) >= 0) and np.all(np.diff(tpr) >= 0)
    assert np.all(np.diff(thresholds) < 0)
    positives, negatives = s[(grp == g) & (y == 1)], s[(grp == h) & (y == 0)]
    finite = thresholds[1:]
    np.testing.assert_allclose(tpr[1:], (positives[:, None] >= finite).mean(axis=0))
    np.testing.assert_allclose(fpr[1:], (negatives[:, None] >= finite).mean(axis=0))
    assert np.trapezoid(tpr, fpr) == pytest.approx(xauc(y, s, sensitive_features=grp, g=g,
                                                        h=h), **TOL)


def test_larger_input_matches_sklearn():
    rng = np.random.default_rng(0)
    n = 100_000
    s = np.round(rng.normal(size=n), 2)  # many ties
    grp = rng.integers(0, 3, size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-s - 0.3 * grp))).astype(int)
    assert auc(y, s) == pytest.approx(roc_auc_score(y, s), **TOL)
    for g, h in itertools.permutations(range(3), 2):
        sub = ((grp == g) & (y == 1)) | ((grp == h) & (y == 0))
        assert xauc(y, s, sensitive_features=grp, g=g,
                    h=h) == pytest.approx(roc_auc_score(y[sub], s[sub]), **TOL)
    pairs = disparity_pairs(y, s, sensitive_features=grp)
    for g, h in itertools.combinations(range(3), 2):
        assert pairs[(g, h)] == abs(xauc(y, s, sensitive_features=grp, g=g, h=h) - xauc(y, s,
                                                                                        sensitive_features=grp,
                                                                 g=h, h=g))


# ---------------------------------------------------------------------------------------
# Inputs: accepted forms, never modified.


def test_accepts_lists_bool_labels_and_int_scores():
    assert auc([True, False, True, False], [3, 2, 1, 0]) == 0.75
    assert xauc(Y4, np.array([3, 2, 1, 0], dtype=np.int32), sensitive_features=[0, 0, 1, 1],
                g=0, h=1) == 1.0
    assert disparity(list(Y4), list(S4), sensitive_features=list(G4)) == 1.0


def test_inputs_not_modified_and_read_only_accepted():
    rng = np.random.default_rng(1)
    s = rng.normal(size=40)
    y = np.tile([0, 1], 20)
    grp = np.repeat(["a", "b", "c", "d"], 10)
    copies = s.copy(), y.copy(), grp.copy()
    for arr in (s, y, grp):
        arr.flags.writeable = False
    auc(y, s)
    xauc(y, s, sensitive_features=grp, g="a", h="c")
    prf(y, s, sensitive_features=grp, g="b")
    urf(None, s, sensitive_features=grp, g="a", h="d")
    for metric in v.METRICS:
        disparity(y, s, sensitive_features=grp, metric=metric)
        disparity_pairs(y, s, sensitive_features=grp, metric=metric)
    xroc_curve(y, s, sensitive_features=grp, g="d", h="a")
    for arr, copy in zip((s, y, grp), copies):
        np.testing.assert_array_equal(arr, copy)


# ---------------------------------------------------------------------------------------
# Errors.


def msg(template, **fields):
    return re.escape(template.format(**fields))


def test_unknown_group():
    expected = msg(v.MSG_UNKNOWN_GROUP, label="q")
    with pytest.raises(ValueError, match=expected):
        xauc(Y4, S4, sensitive_features=G4, g="q", h="a")
    with pytest.raises(ValueError, match=expected):
        xauc(Y4, S4, sensitive_features=G4, g="a", h="q")
    with pytest.raises(ValueError, match=expected):
        prf(Y4, S4, sensitive_features=G4, g="q")
    with pytest.raises(ValueError, match=expected):
        urf(None, S4, sensitive_features=G4, g="a", h="q")
    with pytest.raises(ValueError, match=expected):
        xroc_curve(Y4, S4, sensitive_features=G4, g="q", h="b")
    with pytest.raises(ValueError, match=msg(v.MSG_UNKNOWN_GROUP, label=1)):
        xauc(Y4, S4, sensitive_features=G4, g=1, h="a")
    with pytest.raises(ValueError, match=msg(v.MSG_UNKNOWN_GROUP, label="0")):
        xauc(Y4, S4, sensitive_features=[0, 0, 1, 1], g="0", h=1)


def test_group_lacking_positives_or_negatives():
    y = np.array([1, 1, 0, 0])  # a: positives only, b: negatives only
    lacks = v.MSG_GROUP_LACKS
    with pytest.raises(ValueError, match=msg(lacks, label="b",
                                             what="positives", metric="xauc")):
        xauc(y, S4, sensitive_features=G4, g="b", h="b")
    with pytest.raises(ValueError, match=msg(lacks, label="a",
                                             what="negatives", metric="xauc")):
        xauc(y, S4, sensitive_features=G4, g="a", h="a")
    with pytest.raises(ValueError, match=msg(lacks, label="b",
                                             what="positives", metric="xauc")):
        xroc_curve(y, S4, sensitive_features=G4, g="b", h="a")
    with pytest.raises(ValueError, match=msg(lacks, label=1, what="positives", metric="prf")):
        prf(y, S4, sensitive_features=[0, 0, 1, 1], g=1)
    with pytest.raises(ValueError, match=msg(lacks, label="b",
                                             what="positives", metric="xauc")):
        disparity(y, S4, sensitive_features=G4)
    with pytest.raises(ValueError, match=msg(lacks, label="b",
                                             what="positives", metric="prf")):
        disparity_pairs(y, S4, sensitive_features=G4, metric="prf")
    y = np.array([1, 0, 1, 1])  # b: positives only
    with pytest.raises(ValueError, match=msg(lacks, label="b",
                                             what="negatives", metric="xauc")):
        disparity(y, S4, sensitive_features=G4)
    # URF needs no labels, PRF no negatives inside the group: PRF(a) = 1, PRF(b) = 0.
    assert disparity(y, S4, sensitive_features=G4, metric="urf") == 1.0
    assert disparity(y, S4, sensitive_features=G4, metric="prf") == 1.0


def test_no_positives_or_negatives_overall():
    with pytest.raises(ValueError, match=msg(MSG_Y_LACKS, what="positives", metric="auc")):
        auc([0, 0, 0, 0], S4)
    with pytest.raises(ValueError, match=msg(MSG_Y_LACKS, what="negatives", metric="auc")):
        auc([1, 1, 1, 1], S4)
    with pytest.raises(ValueError, match=msg(MSG_Y_LACKS, what="negatives", metric="prf")):
        prf([1, 1, 1, 1], S4, sensitive_features=G4, g="a")
    with pytest.raises(ValueError, match=msg(MSG_Y_LACKS, what="negatives", metric="prf")):
        disparity([1, 1, 1, 1], S4, sensitive_features=G4, metric="prf")


def test_disparity_arguments():
    with pytest.raises(ValueError, match=msg(v.MSG_ONE_GROUP, label="a")):
        disparity(Y4, S4, sensitive_features=["a"] * 4)
    with pytest.raises(ValueError, match=msg(v.MSG_ONE_GROUP, label="a")):
        disparity_pairs(None, S4, sensitive_features=["a"] * 4, metric="urf")
    unknown = msg(v.MSG_UNKNOWN, name="metric", value="auc", choices=v.METRICS)
    with pytest.raises(ValueError, match=unknown):
        disparity(Y4, S4, sensitive_features=G4, metric="auc")
    with pytest.raises(ValueError, match=msg(MSG_Y_REQUIRED, metric="xauc")):
        disparity(None, S4, sensitive_features=G4)
    with pytest.raises(ValueError, match=msg(MSG_Y_REQUIRED, metric="prf")):
        disparity_pairs(None, S4, sensitive_features=G4, metric="prf")


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_scores(bad):
    s = np.array([3.0, bad, 1.0, 0.0])
    expected = msg(v.MSG_NOT_FINITE, name="scores", index=1)
    with pytest.raises(ValueError, match=expected):
        auc(Y4, s)
    with pytest.raises(ValueError, match=expected):
        xauc(Y4, s, sensitive_features=G4, g="a", h="b")
    with pytest.raises(ValueError, match=expected):
        prf(Y4, s, sensitive_features=G4, g="a")
    with pytest.raises(ValueError, match=expected):
        urf(None, s, sensitive_features=G4, g="a", h="b")
    with pytest.raises(ValueError, match=expected):
        disparity(Y4, s, sensitive_features=G4)
    with pytest.raises(ValueError, match=expected):
        xroc_curve(Y4, s, sensitive_features=G4, g="a", h="b")


def test_invalid_scores():
    with pytest.raises(TypeError, match=msg(v.MSG_NOT_NUMERIC, name="scores", dtype="<U1")):
        auc(Y4, ["a", "b", "c", "d"])
    with pytest.raises(ValueError, match=msg(v.MSG_NOT_1D, name="scores", shape=(2, 2))):
        auc(Y4, S4.reshape(2, 2))
    with pytest.raises(ValueError, match=msg(v.MSG_EMPTY, name="scores")):
        urf(None, [], sensitive_features=[], g="a", h="b")


def test_non_binary_labels():
    with pytest.raises(ValueError, match=msg(v.MSG_LABELS, values=[0, 1, 2])):
        auc([0, 1, 2, 1], S4)
    with pytest.raises(ValueError, match=re.escape("y must be binary")):
        xauc([-1, 1, -1, 1], S4, sensitive_features=G4, g="a", h="b")
    # a fraction among the labels reads as scores given first (the earlier order)
    with pytest.raises(TypeError, match=re.escape("disparity() takes disparity(y_true, ")):
        disparity([0, 1, 0.5, 1], S4, sensitive_features=G4, metric="prf")
    with pytest.raises(TypeError, match=msg(v.MSG_NOT_NUMERIC, name="y", dtype="<U1")):
        prf(["1", "0", "1", "0"], S4, sensitive_features=G4, g="a")


def test_mismatched_lengths():
    with pytest.raises(ValueError, match=msg(v.MSG_LENGTH, name="y", got=3, expected=4)):
        auc([1, 0, 1], S4)
    with pytest.raises(ValueError, match=msg(v.MSG_LENGTH, name="y", got=5, expected=4)):
        xauc([1, 0, 1, 0, 1], S4, sensitive_features=G4, g="a", h="b")
    groups_length = msg(v.MSG_LENGTH, name="sensitive features", got=3, expected=4)
    with pytest.raises(ValueError, match=groups_length):
        urf(None, S4, sensitive_features=["a", "b", "a"], g="a", h="b")
    with pytest.raises(ValueError, match=groups_length):
        disparity(Y4, S4, sensitive_features=["a", "b", "a"])
    with pytest.raises(ValueError, match=groups_length):
        xroc_curve(Y4, S4, sensitive_features=["a", "b", "a"], g="a", h="b")


def test_missing_group_labels():
    with pytest.raises(ValueError, match=re.escape(v.MSG_GROUPS_NULL)):
        disparity(Y4, S4, sensitive_features=["a", None, "b", "b"])
    with pytest.raises(ValueError, match=re.escape(v.MSG_GROUPS_NULL)):
        urf(None, S4, sensitive_features=[0.0, np.nan, 1.0, 1.0], g=0.0, h=1.0)


# ---------------------------------------------------------------------------------------
# Weighted metrics (a pair weighs w_i w_j) and scikit-learn's call order.


def _weighted_data(seed, n=40, k=3):
    rng = np.random.default_rng(seed)
    grp = np.array(["a", "b", "c"][:k])[rng.integers(0, k, n)]
    y = rng.integers(0, 2, n)
    s = np.round(y + rng.normal(0, 1, n) + (grp == "a"), 1)  # ties within and across
    w = rng.choice([0.0, 0.5, 1.0, 2.5, 4.0], n)
    for g in np.unique(grp):  # every group keeps weighted positives and negatives
        for label in (0, 1):
            members = np.flatnonzero((grp == g) & (y == label))
            assert members.size, "regenerate: a stratum is empty"
            w[members[0]] = 1.0
    return s, y, grp, w


@pytest.mark.parametrize("seed", range(4))
def test_weighted_metrics_equal_weighted_pair_sums(seed):
    from support.oracles import weighted_delta, weighted_metric

    s, y, grp, w = _weighted_data(seed)
    assert auc(y, s, sample_weight=w) == pytest.approx(
        weighted_metric(s, y, grp, w, "auc"), **TOL)
    assert auc(y, s, sample_weight=w) == pytest.approx(
        roc_auc_score(y, s, sample_weight=w), **TOL)
    labels = ["a", "b", "c"]
    for g, h in itertools.product(labels, labels):
        assert xauc(y, s, sensitive_features=grp, g=g, h=h, sample_weight=w) == pytest.approx(
            weighted_metric(s, y, grp, w, "xauc", g, h), **TOL)
        if g != h:
            assert urf(None, s, sensitive_features=grp, g=g, h=h,
                       sample_weight=w) == pytest.approx(
                abs(weighted_metric(s, y, grp, w, "urf", g, h)), **TOL)
    for g in labels:
        assert prf(y, s, sensitive_features=grp, g=g, sample_weight=w) == pytest.approx(
            weighted_metric(s, y, grp, w, "prf", g), **TOL)
    for metric in ("xauc", "prf", "urf"):
        pairs = disparity_pairs(y, s, sensitive_features=grp, metric=metric, sample_weight=w)
        want = {(g, h): weighted_delta(s, y, grp, w, metric, g, h)
                for g, h in itertools.combinations(labels, 2)}
        assert pairs.keys() == want.keys()
        for pair, value in want.items():
            assert pairs[pair] == pytest.approx(value, **TOL)
        assert disparity(y, s, sensitive_features=grp, metric=metric,
                         sample_weight=w) == pytest.approx(
            max(want.values()), **TOL)


def test_integer_weights_equal_repeated_items():
    """Frequency weights: weight 3 is the item three times (weight 0: left out)."""
    s, y, grp, w = _weighted_data(7)
    counts = np.round(w).astype(int)
    rep = lambda a: np.repeat(a, counts)  # noqa: E731
    for metric in ("xauc", "prf", "urf"):
        assert disparity(y, s, sensitive_features=grp, metric=metric,
                         sample_weight=counts) == pytest.approx(
            disparity(rep(y), rep(s), sensitive_features=rep(grp), metric=metric), **TOL)
    assert auc(y, s, sample_weight=counts) == pytest.approx(auc(rep(y), rep(s)), **TOL)
    # equal weights: the unweighted values
    ones = np.full(s.size, 3.0)
    assert disparity(y, s, sensitive_features=grp,
                     sample_weight=ones) == pytest.approx(disparity(y, s,
                                                                               sensitive_features=grp),
                                                                      **TOL)


def test_bad_weights_are_named():
    s, y, grp, w = _weighted_data(1)
    with pytest.raises(ValueError, match=r"sample_weight must be None or 40 finite .* "
                                         r"got -1\.0 at index 3"):
        auc(y, s, sample_weight=np.where(np.arange(40) == 3, -1.0, w))
    with pytest.raises(ValueError, match=r"got shape \(39,\)"):
        disparity(y, s, sensitive_features=grp, sample_weight=w[:39])
    with pytest.raises(TypeError, match="got dtype <U1"):
        disparity(y, s, sensitive_features=grp, sample_weight=["a"] * 40)
    with pytest.raises(ValueError, match=v.MSG_SAMPLE_WEIGHT_ZERO):
        auc(y, s, sample_weight=np.zeros(40))
    zero_b_positives = np.where((grp == "b") & (y == 1), 0.0, w)
    with pytest.raises(ValueError, match="sample_weight is 0 on all the positives of "
                                         "group 'b', which metric 'xauc' divides by"):
        disparity(y, s, sensitive_features=grp, sample_weight=zero_b_positives)
    with pytest.raises(ValueError, match="sample_weight is 0 on all the positives of g"):
        xauc(y, s, sensitive_features=grp, g="b", h="a", sample_weight=zero_b_positives)


# Every public function of labels and scores, with its further keywords.
CONVENTION = {
    "auc": {}, "auc_variance": {},
    "xauc": {"g": "a", "h": "b"}, "xauc_variance": {"g": "a", "h": "b"},
    "xroc_curve": {"g": "a", "h": "b"}, "xroc_band": {"g": "a", "h": "b"},
    "prf": {"g": "a"}, "urf": {"g": "a", "h": "b"},
    "disparity": {}, "disparity_pairs": {}, "confidence_intervals": {"method": "delong"},
    "decision_rates": {"top_k": 5}, "disadvantaged_group": {},
}
UNGROUPED = ("auc", "auc_variance")


def _convention_call(name, y_true, y_score, grp, **extra):
    from gpu_xorder import metrics

    groups = {} if name in UNGROUPED else {"sensitive_features": grp}
    return getattr(metrics, name)(y_true, y_score, **groups, **CONVENTION[name], **extra)


@pytest.mark.parametrize("name", sorted(CONVENTION))
def test_one_calling_convention(name):
    """(y_true, y_score, *, sensitive_features=..., ...): labels first, then scores,
    everything else by keyword, as scikit-learn's and fairlearn's metrics."""
    import inspect

    from gpu_xorder import metrics

    params = list(inspect.signature(getattr(metrics, name)).parameters.values())
    assert [p.name for p in params[:2]] == ["y_true", "y_score"]
    assert all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params[:2])
    assert all(p.kind is p.KEYWORD_ONLY for p in params[2:]), name
    assert ("sensitive_features" in [p.name for p in params]) == (name not in UNGROUPED)
    s, y, grp, _ = _weighted_data(2)
    # the same call by keywords, in any order, gives the same value
    got = _convention_call(name, y, s, grp)
    groups = {} if name in UNGROUPED else {"sensitive_features": grp}
    again = getattr(metrics, name)(**groups, **CONVENTION[name], y_score=s, y_true=y)
    assert repr(got) == repr(again)


@pytest.mark.parametrize("name", sorted(CONVENTION))
def test_the_earlier_order_is_a_type_error_naming_the_order(name):
    from gpu_xorder import metrics

    s, y, grp, _ = _weighted_data(2)
    # scores first (the earlier order), labels second: recognised by the scores' values
    with pytest.raises(TypeError, match=re.escape(f"{name}() takes {name}(y_true, y_score")):
        _convention_call(name, s, y, grp)
    # integer scores (ranks) first, beside 0/1 "scores": recognised too
    ranks = np.argsort(np.argsort(s))
    with pytest.raises(TypeError, match="were the scores given first"):
        _convention_call(name, ranks, y, grp)
    # the groups given positionally, as before: Python's own TypeError
    if name not in UNGROUPED:
        with pytest.raises(TypeError, match="positional argument"):
            getattr(metrics, name)(y, s, grp)


def test_labels_that_are_not_binary_stay_a_value_error():
    """Whole numbers other than 0/1 beside real scores are bad labels, not a swap."""
    s, y, grp, _ = _weighted_data(2)
    bad = y.copy()
    bad[0] = 2
    with pytest.raises(ValueError, match=r"0/1|binary|labels"):
        auc(bad, s)
    with pytest.raises(ValueError, match=r"0/1|binary|labels"):
        disparity(bad, s, sensitive_features=grp)


def test_urf_takes_labels_or_none():
    s, y, grp, _ = _weighted_data(2)
    value = urf(None, s, sensitive_features=grp, g="a", h="b")
    assert urf(y, s, sensitive_features=grp, g="a", h="b") == value
    assert value == pytest.approx(brute_urf(s, grp, "a", "b"), **TOL)
    with pytest.raises(TypeError, match="urf\\(\\) takes"):
        urf(s, y, sensitive_features=grp, g="a", h="b")
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'h'"):
        xauc(y, s, sensitive_features=grp, g="a")
    with pytest.raises(TypeError, match="sensitive_features"):
        disparity(y, s)


def test_metric_as_a_scikit_learn_scorer_with_routing():
    """make_scorer(disparity) receives sensitive_features by metadata routing."""
    import sklearn
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import make_scorer
    from sklearn.model_selection import StratifiedKFold, cross_validate

    rng = np.random.default_rng(3)
    n = 300
    grp = rng.integers(0, 2, n)
    X = np.column_stack([rng.normal(size=n), grp])
    y = (X[:, 0] + grp + rng.normal(size=n) > 0.5).astype(int)
    folds = list(StratifiedKFold(3).split(X, y))
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = make_scorer(disparity, greater_is_better=False,
                             response_method="predict_proba").set_score_request(
            sensitive_features=True)
        got = cross_validate(LogisticRegression(), X, y, cv=folds, scoring=scorer,
                             params={"sensitive_features": grp}, error_score="raise")
    for value, (train, test) in zip(got["test_score"], folds):
        model = LogisticRegression().fit(X[train], y[train])
        want = disparity(y[test], model.predict_proba(X[test])[:, 1],
                         sensitive_features=grp[test])
        assert value == pytest.approx(-want, abs=1e-15)
