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
    assert auc(S4, Y4) == 0.75
    assert auc([1, 1, 1, 1], [1, 0, 1, 0]) == 0.5
    assert auc([0, 1], [0, 1]) == 1.0
    assert auc([2, 1, 1], [1, 1, 0]) == 0.75


def test_xauc_hand():
    assert xauc(S4, Y4, G4, "a", "b") == 1.0  # 3 > 0
    assert xauc(S4, Y4, G4, "b", "a") == 0.0  # 1 < 2
    assert xauc(S4, Y4, G4, "a", "a") == 1.0  # 3 > 2
    assert xauc([1, 1, 2, 0], Y4, G4, "b", "a") == 1.0  # 2 > 1
    assert xauc([1, 1, 1, 0], Y4, G4, "b", "a") == 0.5  # tie


def test_prf_hand():
    assert prf(S4, Y4, G4, "a") == 1.0  # 3 above {2, 0}
    assert prf(S4, Y4, G4, "b") == 0.5  # 1 below 2, above 0


def test_urf_hand():
    assert urf(S4, G4, "a", "b") == 1.0
    assert urf(S4, G4, "b", "a") == 1.0
    assert urf(S4, ["a", "b", "b", "a"], "a", "b") == 0.0
    # a = {3, 1}, b = {2, 0}: a above b in 3 of 4 pairs -> |3/4 - 1/4|.
    assert urf(S4, ["a", "b", "a", "b"], "a", "b") == 0.5
    assert urf([1, 1, 1, 1], G4, "a", "b") == 0.0


def test_disparity_hand():
    assert disparity(S4, Y4, G4) == 1.0
    assert disparity(S4, Y4, G4, metric="prf") == 0.5
    assert disparity(S4, None, G4, metric="urf") == 1.0
    assert disparity(S4, Y4, G4, metric="urf") == 1.0


def test_disparity_three_groups_hand():
    s = [5, 4, 3, 2, 1, 0]
    y = [1, 0, 1, 0, 1, 0]
    grp = [2, 2, 0, 0, 1, 1]
    # xAUC(g, h) rows g, columns h: group 2 wins everything, 0 beats 1, 1 loses to all.
    expected = {(0, 1): 1.0, (0, 2): 1.0, (1, 2): 1.0}
    assert disparity_pairs(s, y, grp) == expected
    assert disparity(s, y, grp) == 1.0
    # PRF: group 2 -> 1, group 0 -> 2/3, group 1 -> 1/3.
    got = disparity_pairs(s, y, grp, metric="prf")
    assert got == pytest.approx({(0, 1): 1 / 3, (0, 2): 1 / 3, (1, 2): 2 / 3}, **TOL)
    assert disparity(s, y, grp, metric="prf") == pytest.approx(2 / 3, **TOL)
    # URF: every pair is perfectly separated.
    assert disparity_pairs(s, None, grp, metric="urf") == {(0, 1): 1.0, (0, 2): 1.0,
                                                           (1, 2): 1.0}


def test_disparity_pairs_keys_sorted_python_labels():
    s = np.arange(8.0)
    y = np.array([0, 1] * 4)
    got = disparity_pairs(s, y, np.array(["z", "a", "m", "a", "z", "m", "a", "z"]))
    assert list(got) == [("a", "m"), ("a", "z"), ("m", "z")]
    assert all(type(g) is str and type(h) is str for g, h in got)
    got = disparity_pairs(s, y, np.array([9, 9, -1, -1, 3, 3, 9, -1]))
    assert list(got) == [(-1, 3), (-1, 9), (3, 9)]
    assert all(type(g) is int for pair in got for g in pair)
    assert all(type(value) is float for value in got.values())


def test_xroc_curve_hand():
    fpr, tpr, thresholds = xroc_curve(S4, Y4, G4, "b", "a")
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
    assert auc(s, y) == pytest.approx(brute_auc(s, y), **TOL)
    assert auc(s, y) == pytest.approx(roc_auc_score(y, s), **TOL)


@settings(max_examples=examples(150), deadline=None)
@given(data=ranking_data(), choice=st.data())
def test_pair_metrics_match_oracles(data, choice):
    s, y, grp = data
    g, h = two_groups(data, choice.draw)
    expected = brute_xauc(s, y, grp, g, h)
    assert xauc(s, y, grp, g, h) == pytest.approx(expected, **TOL)
    sub = ((grp == g) & (y == 1)) | ((grp == h) & (y == 0))
    if g != h:
        assert xauc(s, y, grp, g, h) == pytest.approx(roc_auc_score(y[sub], s[sub]), **TOL)
    assert prf(s, y, grp, g) == pytest.approx(brute_prf(s, y, grp, g), **TOL)
    assert urf(s, grp, g, h) == pytest.approx(brute_urf(s, grp, g, h), **TOL)
    assert urf(s, grp, g, h) == urf(s, grp, h, g)


@settings(max_examples=examples(150), deadline=None)
@given(data=ranking_data(), metric=st.sampled_from(v.METRICS))
def test_disparity_matches_oracle(data, metric):
    s, y, grp = data
    expected = brute_pairs(s, y, grp, metric)
    got = disparity_pairs(s, y, grp, metric=metric)
    assert list(got) == list(expected)
    assert got == pytest.approx(expected, **TOL)
    assert disparity(s, y, grp, metric=metric) == max(got.values())
    assert disparity(s, y, grp, metric=metric) == pytest.approx(max(expected.values()), **TOL)


@settings(max_examples=examples(100), deadline=None)
@given(data=ranking_data(), metric=st.sampled_from(v.METRICS))
def test_disparity_pairs_agree_with_single_pair_functions(data, metric):
    # Two code paths (one sort for all groups, one half_wins2 per pair) give equal floats.
    s, y, grp = data
    for (g, h), value in disparity_pairs(s, y, grp, metric=metric).items():
        if metric == "xauc":
            single = abs(xauc(s, y, grp, g, h) - xauc(s, y, grp, h, g))
        elif metric == "prf":
            single = abs(prf(s, y, grp, g) - prf(s, y, grp, h))
        else:
            single = urf(s, grp, g, h)
        assert value == single


@settings(max_examples=examples(100), deadline=None)
@given(data=ranking_data(), choice=st.data())
def test_xroc_curve(data, choice):
    s, y, grp = data
    g, h = two_groups(data, choice.draw)
    fpr, tpr, thresholds = xroc_curve(s, y, grp, g, h)
    assert (fpr[0], tpr[0]) == (0.0, 0.0)
    assert (fpr[-1], tpr[-1]) == (1.0, 1.0)
    assert np.all(np.diff(fpr) >= 0) and np.all(np.diff(tpr) >= 0)
    assert np.all(np.diff(thresholds) < 0)
    positives, negatives = s[(grp == g) & (y == 1)], s[(grp == h) & (y == 0)]
    finite = thresholds[1:]
    np.testing.assert_allclose(tpr[1:], (positives[:, None] >= finite).mean(axis=0))
    np.testing.assert_allclose(fpr[1:], (negatives[:, None] >= finite).mean(axis=0))
    assert np.trapezoid(tpr, fpr) == pytest.approx(xauc(s, y, grp, g, h), **TOL)


def test_larger_input_matches_sklearn():
    rng = np.random.default_rng(0)
    n = 100_000
    s = np.round(rng.normal(size=n), 2)  # many ties
    grp = rng.integers(0, 3, size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-s - 0.3 * grp))).astype(int)
    assert auc(s, y) == pytest.approx(roc_auc_score(y, s), **TOL)
    for g, h in itertools.permutations(range(3), 2):
        sub = ((grp == g) & (y == 1)) | ((grp == h) & (y == 0))
        assert xauc(s, y, grp, g, h) == pytest.approx(roc_auc_score(y[sub], s[sub]), **TOL)
    pairs = disparity_pairs(s, y, grp)
    for g, h in itertools.combinations(range(3), 2):
        assert pairs[(g, h)] == abs(xauc(s, y, grp, g, h) - xauc(s, y, grp, h, g))


# ---------------------------------------------------------------------------------------
# Inputs: accepted forms, never modified.


def test_accepts_lists_bool_labels_and_int_scores():
    assert auc([3, 2, 1, 0], [True, False, True, False]) == 0.75
    assert xauc(np.array([3, 2, 1, 0], dtype=np.int32), Y4, [0, 0, 1, 1], 0, 1) == 1.0
    assert disparity(list(S4), list(Y4), list(G4)) == 1.0


def test_inputs_not_modified_and_read_only_accepted():
    rng = np.random.default_rng(1)
    s = rng.normal(size=40)
    y = np.tile([0, 1], 20)
    grp = np.repeat(["a", "b", "c", "d"], 10)
    copies = s.copy(), y.copy(), grp.copy()
    for arr in (s, y, grp):
        arr.flags.writeable = False
    auc(s, y)
    xauc(s, y, grp, "a", "c")
    prf(s, y, grp, "b")
    urf(s, grp, "a", "d")
    for metric in v.METRICS:
        disparity(s, y, grp, metric=metric)
        disparity_pairs(s, y, grp, metric=metric)
    xroc_curve(s, y, grp, "d", "a")
    for arr, copy in zip((s, y, grp), copies):
        np.testing.assert_array_equal(arr, copy)


# ---------------------------------------------------------------------------------------
# Errors.


def msg(template, **fields):
    return re.escape(template.format(**fields))


def test_unknown_group():
    expected = msg(v.MSG_UNKNOWN_GROUP, label="q")
    with pytest.raises(ValueError, match=expected):
        xauc(S4, Y4, G4, "q", "a")
    with pytest.raises(ValueError, match=expected):
        xauc(S4, Y4, G4, "a", "q")
    with pytest.raises(ValueError, match=expected):
        prf(S4, Y4, G4, "q")
    with pytest.raises(ValueError, match=expected):
        urf(S4, G4, "a", "q")
    with pytest.raises(ValueError, match=expected):
        xroc_curve(S4, Y4, G4, "q", "b")
    with pytest.raises(ValueError, match=msg(v.MSG_UNKNOWN_GROUP, label=1)):
        xauc(S4, Y4, G4, 1, "a")
    with pytest.raises(ValueError, match=msg(v.MSG_UNKNOWN_GROUP, label="0")):
        xauc(S4, Y4, [0, 0, 1, 1], "0", 1)


def test_group_lacking_positives_or_negatives():
    y = np.array([1, 1, 0, 0])  # a: positives only, b: negatives only
    lacks = v.MSG_GROUP_LACKS
    with pytest.raises(ValueError, match=msg(lacks, label="b",
                                             what="positives", metric="xauc")):
        xauc(S4, y, G4, "b", "b")
    with pytest.raises(ValueError, match=msg(lacks, label="a",
                                             what="negatives", metric="xauc")):
        xauc(S4, y, G4, "a", "a")
    with pytest.raises(ValueError, match=msg(lacks, label="b",
                                             what="positives", metric="xauc")):
        xroc_curve(S4, y, G4, "b", "a")
    with pytest.raises(ValueError, match=msg(lacks, label=1, what="positives", metric="prf")):
        prf(S4, y, [0, 0, 1, 1], 1)
    with pytest.raises(ValueError, match=msg(lacks, label="b",
                                             what="positives", metric="xauc")):
        disparity(S4, y, G4)
    with pytest.raises(ValueError, match=msg(lacks, label="b",
                                             what="positives", metric="prf")):
        disparity_pairs(S4, y, G4, metric="prf")
    y = np.array([1, 0, 1, 1])  # b: positives only
    with pytest.raises(ValueError, match=msg(lacks, label="b",
                                             what="negatives", metric="xauc")):
        disparity(S4, y, G4)
    # URF needs no labels, PRF no negatives inside the group: PRF(a) = 1, PRF(b) = 0.
    assert disparity(S4, y, G4, metric="urf") == 1.0
    assert disparity(S4, y, G4, metric="prf") == 1.0


def test_no_positives_or_negatives_overall():
    with pytest.raises(ValueError, match=msg(MSG_Y_LACKS, what="positives", metric="auc")):
        auc(S4, [0, 0, 0, 0])
    with pytest.raises(ValueError, match=msg(MSG_Y_LACKS, what="negatives", metric="auc")):
        auc(S4, [1, 1, 1, 1])
    with pytest.raises(ValueError, match=msg(MSG_Y_LACKS, what="negatives", metric="prf")):
        prf(S4, [1, 1, 1, 1], G4, "a")
    with pytest.raises(ValueError, match=msg(MSG_Y_LACKS, what="negatives", metric="prf")):
        disparity(S4, [1, 1, 1, 1], G4, metric="prf")


def test_disparity_arguments():
    with pytest.raises(ValueError, match=msg(v.MSG_ONE_GROUP, label="a")):
        disparity(S4, Y4, ["a"] * 4)
    with pytest.raises(ValueError, match=msg(v.MSG_ONE_GROUP, label="a")):
        disparity_pairs(S4, None, ["a"] * 4, metric="urf")
    unknown = msg(v.MSG_UNKNOWN, name="metric", value="auc", choices=v.METRICS)
    with pytest.raises(ValueError, match=unknown):
        disparity(S4, Y4, G4, metric="auc")
    with pytest.raises(ValueError, match=msg(MSG_Y_REQUIRED, metric="xauc")):
        disparity(S4, None, G4)
    with pytest.raises(ValueError, match=msg(MSG_Y_REQUIRED, metric="prf")):
        disparity_pairs(S4, None, G4, metric="prf")


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_scores(bad):
    s = np.array([3.0, bad, 1.0, 0.0])
    expected = msg(v.MSG_NOT_FINITE, name="scores", index=1)
    with pytest.raises(ValueError, match=expected):
        auc(s, Y4)
    with pytest.raises(ValueError, match=expected):
        xauc(s, Y4, G4, "a", "b")
    with pytest.raises(ValueError, match=expected):
        prf(s, Y4, G4, "a")
    with pytest.raises(ValueError, match=expected):
        urf(s, G4, "a", "b")
    with pytest.raises(ValueError, match=expected):
        disparity(s, Y4, G4)
    with pytest.raises(ValueError, match=expected):
        xroc_curve(s, Y4, G4, "a", "b")


def test_invalid_scores():
    with pytest.raises(TypeError, match=msg(v.MSG_NOT_NUMERIC, name="scores", dtype="<U1")):
        auc(["a", "b", "c", "d"], Y4)
    with pytest.raises(ValueError, match=msg(v.MSG_NOT_1D, name="scores", shape=(2, 2))):
        auc(S4.reshape(2, 2), Y4)
    with pytest.raises(ValueError, match=msg(v.MSG_EMPTY, name="scores")):
        urf([], [], "a", "b")


def test_non_binary_labels():
    with pytest.raises(ValueError, match=msg(v.MSG_LABELS, values=[0, 1, 2])):
        auc(S4, [0, 1, 2, 1])
    with pytest.raises(ValueError, match=re.escape("y must be binary")):
        xauc(S4, [-1, 1, -1, 1], G4, "a", "b")
    with pytest.raises(ValueError, match=re.escape("y must be binary")):
        disparity(S4, [0, 1, 0.5, 1], G4, metric="prf")
    with pytest.raises(TypeError, match=msg(v.MSG_NOT_NUMERIC, name="y", dtype="<U1")):
        prf(S4, ["1", "0", "1", "0"], G4, "a")


def test_mismatched_lengths():
    with pytest.raises(ValueError, match=msg(v.MSG_LENGTH, name="y", got=3, expected=4)):
        auc(S4, [1, 0, 1])
    with pytest.raises(ValueError, match=msg(v.MSG_LENGTH, name="y", got=5, expected=4)):
        xauc(S4, [1, 0, 1, 0, 1], G4, "a", "b")
    groups_length = msg(v.MSG_LENGTH, name="sensitive features", got=3, expected=4)
    with pytest.raises(ValueError, match=groups_length):
        urf(S4, ["a", "b", "a"], "a", "b")
    with pytest.raises(ValueError, match=groups_length):
        disparity(S4, Y4, ["a", "b", "a"])
    with pytest.raises(ValueError, match=groups_length):
        xroc_curve(S4, Y4, ["a", "b", "a"], "a", "b")


def test_missing_group_labels():
    with pytest.raises(ValueError, match=re.escape(v.MSG_GROUPS_NULL)):
        disparity(S4, Y4, ["a", None, "b", "b"])
    with pytest.raises(ValueError, match=re.escape(v.MSG_GROUPS_NULL)):
        urf(S4, [0.0, np.nan, 1.0, 1.0], 0.0, 1.0)


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
    assert auc(s, y, sample_weight=w) == pytest.approx(
        weighted_metric(s, y, grp, w, "auc"), **TOL)
    assert auc(s, y, sample_weight=w) == pytest.approx(
        roc_auc_score(y, s, sample_weight=w), **TOL)
    labels = ["a", "b", "c"]
    for g, h in itertools.product(labels, labels):
        assert xauc(s, y, grp, g, h, sample_weight=w) == pytest.approx(
            weighted_metric(s, y, grp, w, "xauc", g, h), **TOL)
        if g != h:
            assert urf(s, grp, g, h, sample_weight=w) == pytest.approx(
                abs(weighted_metric(s, y, grp, w, "urf", g, h)), **TOL)
    for g in labels:
        assert prf(s, y, grp, g, sample_weight=w) == pytest.approx(
            weighted_metric(s, y, grp, w, "prf", g), **TOL)
    for metric in ("xauc", "prf", "urf"):
        pairs = disparity_pairs(s, y, grp, metric, sample_weight=w)
        want = {(g, h): weighted_delta(s, y, grp, w, metric, g, h)
                for g, h in itertools.combinations(labels, 2)}
        assert pairs.keys() == want.keys()
        for pair, value in want.items():
            assert pairs[pair] == pytest.approx(value, **TOL)
        assert disparity(s, y, grp, metric, sample_weight=w) == pytest.approx(
            max(want.values()), **TOL)


def test_integer_weights_equal_repeated_items():
    """Frequency weights: weight 3 is the item three times (weight 0: left out)."""
    s, y, grp, w = _weighted_data(7)
    counts = np.round(w).astype(int)
    rep = lambda a: np.repeat(a, counts)  # noqa: E731
    for metric in ("xauc", "prf", "urf"):
        assert disparity(s, y, grp, metric, sample_weight=counts) == pytest.approx(
            disparity(rep(s), rep(y), rep(grp), metric), **TOL)
    assert auc(s, y, sample_weight=counts) == pytest.approx(auc(rep(s), rep(y)), **TOL)
    # equal weights: the unweighted values
    ones = np.full(s.size, 3.0)
    assert disparity(s, y, grp, sample_weight=ones) == pytest.approx(disparity(s, y, grp),
                                                                      **TOL)


def test_bad_weights_are_named():
    s, y, grp, w = _weighted_data(1)
    with pytest.raises(ValueError, match=r"sample_weight must be None or 40 finite .* "
                                         r"got -1\.0 at index 3"):
        auc(s, y, sample_weight=np.where(np.arange(40) == 3, -1.0, w))
    with pytest.raises(ValueError, match=r"got shape \(39,\)"):
        disparity(s, y, grp, sample_weight=w[:39])
    with pytest.raises(TypeError, match="got dtype <U1"):
        disparity(s, y, grp, sample_weight=["a"] * 40)
    with pytest.raises(ValueError, match=v.MSG_SAMPLE_WEIGHT_ZERO):
        auc(s, y, sample_weight=np.zeros(40))
    zero_b_positives = np.where((grp == "b") & (y == 1), 0.0, w)
    with pytest.raises(ValueError, match="sample_weight is 0 on all the positives of "
                                         "group 'b', which metric 'xauc' divides by"):
        disparity(s, y, grp, sample_weight=zero_b_positives)
    with pytest.raises(ValueError, match="sample_weight is 0 on all the positives of g"):
        xauc(s, y, grp, "b", "a", sample_weight=zero_b_positives)


def test_scikit_learn_call_order():
    """f(y_true, y_score, *, sensitive_features=...) gives f(scores, y, groups)."""
    from gpu_xorder.metrics._ranking import MSG_GROUPS_BOTH, MSG_NO_GROUPS, MSG_NO_LABEL

    s, y, grp, w = _weighted_data(2)
    for metric in ("xauc", "prf", "urf"):
        assert disparity(y, s, sensitive_features=grp, metric=metric) == \
            disparity(s, y, grp, metric)
        assert disparity_pairs(y, s, sensitive_features=grp, metric=metric,
                               sample_weight=w) == disparity_pairs(s, y, grp, metric,
                                                                   sample_weight=w)
    assert xauc(y, s, sensitive_features=grp, g="a", h="c") == xauc(s, y, grp, "a", "c")
    assert prf(y, s, sensitive_features=grp, g="b") == prf(s, y, grp, "b")
    assert urf(y, s, sensitive_features=grp, g="a", h="b") == urf(s, grp, "a", "b")
    assert disparity(None, s, sensitive_features=grp, metric="urf") == \
        disparity(s, None, grp, metric="urf")
    with pytest.raises(TypeError, match=re.escape(MSG_GROUPS_BOTH.format(name="disparity"))):
        disparity(y, s, grp, sensitive_features=grp)
    with pytest.raises(TypeError, match=re.escape(MSG_NO_GROUPS.format(name="disparity"))):
        disparity(s, y)
    with pytest.raises(TypeError, match=re.escape(MSG_NO_LABEL.format(
            name="xauc", s="", which="h"))):
        xauc(y, s, sensitive_features=grp, g="a")


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
        want = disparity(model.predict_proba(X[test])[:, 1], y[test], grp[test])
        assert value == pytest.approx(-want, abs=1e-15)
