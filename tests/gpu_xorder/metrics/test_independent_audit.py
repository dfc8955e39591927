"""An independent audit of the numbers the metrics layer gives: every value against an
oracle written here from the definitions (docs/design.md, section 2), never from the
library's code.

- Metrics: pair loops over Python ``Fraction``s (exact), so that the unweighted AUC,
  xAUC and PRF, which the library computes as one correctly rounded division of exact
  integers, must agree to the last bit; disparities (a difference of two rounded
  values) to 1e-12.
- DeLong: the structural components V10 / V01 by loops and the variance
  ``S10 / m + S01 / n``; for a difference of PRFs, which share the negatives, the sample
  variance of the per-negative differences of the components; the normal quantile by
  bisection on ``math.erf``.
- Clopper-Pearson: exact binomial tails summed with ``math.comb`` and inverted by
  bisection (no scipy).
- Bootstrap: the resampling scheme the documentation describes (stratum ``2 k + y``,
  slots in increasing item index, resample ``b`` drawn by the ``b``-th spawned child
  of ``SeedSequence(random_state)``), the metrics of every resample by the pair loops,
  ``np.quantile`` percentiles.

Inputs are small and nasty: ties within and across groups and between a positive and
a negative, a group with one positive or one negative, groups of very different sizes,
two to four groups labelled by ints, floats or strings.
"""

import functools
import math
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest

from gpu_xorder import metrics
from gpu_xorder.metrics import Interval

SEEDS = range(6)
METRICS = ("xauc", "prf", "urf")


# ------------------------------------------------------------------ data

LABEL_SETS = {
    "int": [7, -3, 0, 12],
    "float": [0.5, -1.25, 2.0, 1e-3],
    "str": ["b", "a c", "Z", "ä"],
}


def nasty(seed, kind="int", k=None, one=None, weights=False):
    """Small scores with many ties: ``k`` groups (2-4) of very different sizes, each
    with at least one positive and one negative; ``one="positive"`` / ``"negative"``
    gives the first group (in sorted order) exactly one of those. Returns ``(scores,
    y, groups)`` (a list of labels) or, with ``weights``, also the weights."""
    rng = np.random.default_rng(seed)
    k = k or int(rng.integers(2, 5))
    labels = LABEL_SETS[kind][:k]
    first = sorted(labels)[0]
    scores, y, groups = [], [], []
    for label in labels:
        n = int(rng.choice([2, 3, 5, 9, 14]))
        lab = [1, 0] + rng.integers(0, 2, n).tolist()
        if label == first and one == "positive":
            lab = [1] + [0] * (n + 1)
        if label == first and one == "negative":
            lab = [0] + [1] * (n + 1)
        for t in lab:
            y.append(t)
            groups.append(label)
            # few distinct values: ties in a group, across groups, positive vs negative
            scores.append(float(rng.integers(0, 5)) * 0.25 + (0.1 if rng.random() < 0.2
                                                                else 0.0))
    order = rng.permutation(len(y))
    scores = np.array(scores)[order]
    y = np.array(y)[order]
    groups = [groups[i] for i in order]
    if not weights:
        return scores, y, groups
    w = rng.integers(0, 4, y.size).astype(float) * rng.choice([1.0, 0.5, 0.3], y.size)
    # every group x label stratum keeps some weight (else the metric divides by 0)
    for label in labels:
        for t in (0, 1):
            idx = [i for i in range(y.size) if groups[i] == label and y[i] == t]
            w[idx[0]] = 1.0 + rng.random()
    return scores, y, groups, w


def members(scores, y, groups, g=None, label=None, w=None):
    """Scores (and weights) of the items of group ``g`` (None: any) with label
    ``label`` (None: any)."""
    idx = [i for i in range(len(scores))
           if (g is None or groups[i] == g) and (label is None or y[i] == label)]
    return [float(scores[i]) for i in idx], (None if w is None else [float(w[i]) for i in idx])


# ------------------------------------------------------------------ metric oracles

def p_above(upper, lower, wu=None, wl=None):
    """P(U > L), ties 1/2, as an exact Fraction: the double loop over every pair, each
    weighing the product of its items' weights."""
    num = den = Fraction(0)
    for i, u in enumerate(upper):
        for j, v in enumerate(lower):
            pair = (Fraction(1) if wu is None else Fraction(wu[i])) * (
                Fraction(1) if wl is None else Fraction(wl[j]))
            den += pair
            num += pair if u > v else (pair / 2 if u == v else 0)
    return num / den


def o_auc(s, y, grp, w=None):
    (p, wp), (n, wn) = members(s, y, grp, None, 1, w), members(s, y, grp, None, 0, w)
    return p_above(p, n, wp, wn)


def o_xauc(s, y, grp, g, h, w=None):
    (p, wp), (n, wn) = members(s, y, grp, g, 1, w), members(s, y, grp, h, 0, w)
    return p_above(p, n, wp, wn)


def o_prf(s, y, grp, g, w=None):
    (p, wp), (n, wn) = members(s, y, grp, g, 1, w), members(s, y, grp, None, 0, w)
    return p_above(p, n, wp, wn)


def o_urf_signed(s, grp, g, h, w=None):
    """P(S^g > S^h) - P(S^h > S^g), labels ignored."""
    y = [0] * len(s)
    (a, wa), (b, wb) = members(s, y, grp, g, None, w), members(s, y, grp, h, None, w)
    return p_above(a, b, wa, wb) - p_above(b, a, wb, wa)


def o_signed(s, y, grp, metric, g, h, w=None):
    """The signed difference D of the pair (g, h) (docs/design.md, section 2)."""
    if metric == "xauc":
        return o_xauc(s, y, grp, g, h, w) - o_xauc(s, y, grp, h, g, w)
    if metric == "prf":
        return o_prf(s, y, grp, g, w) - o_prf(s, y, grp, h, w)
    return o_urf_signed(s, grp, g, h, w)


def sorted_labels(grp):
    return sorted(set(grp))


def o_pairs(s, y, grp, metric, w=None):
    return {(g, h): abs(o_signed(s, y, grp, metric, g, h, w))
            for g, h in combinations(sorted_labels(grp), 2)}


def close(a, b, tol=1e-12):
    return abs(float(a) - float(b)) <= tol


# ------------------------------------------------------------------ 1. the metrics

@pytest.mark.parametrize("kind", sorted(LABEL_SETS))
@pytest.mark.parametrize("seed", SEEDS)
def test_metrics_equal_the_pair_loops_to_the_bit(seed, kind):
    s, y, grp = nasty(seed, kind)
    labels = sorted_labels(grp)
    assert metrics.auc(y, s) == float(o_auc(s, y, grp))
    for g in labels:
        assert metrics.prf(y, s, sensitive_features=grp, g=g) == float(o_prf(s, y, grp, g))
        for h in labels:
            assert metrics.xauc(y, s, sensitive_features=grp, g=g, h=h) == float(
                o_xauc(s, y, grp, g, h))
            if g != h:
                assert close(metrics.urf(None, s, sensitive_features=grp, g=g, h=h),
                             abs(o_urf_signed(s, grp, g, h)))
    for metric in METRICS:
        want = o_pairs(s, y, grp, metric)
        got = metrics.disparity_pairs(y, s, sensitive_features=grp, metric=metric)
        assert list(got) == list(want)  # sorted label order, g < h
        assert all(close(got[p], want[p]) for p in want)
        assert close(metrics.disparity(y, s, sensitive_features=grp, metric=metric),
                     max(want.values()))


@pytest.mark.parametrize("one", ["positive", "negative"])
@pytest.mark.parametrize("seed", SEEDS)
def test_one_positive_or_one_negative_in_a_group(seed, one):
    s, y, grp = nasty(seed, "str", one=one)
    for metric in METRICS:
        want = o_pairs(s, y, grp, metric)
        got = metrics.disparity_pairs(y, s, sensitive_features=grp, metric=metric)
        assert all(close(got[p], want[p]) for p in want)


@pytest.mark.parametrize("seed", SEEDS)
def test_scikit_learn_order_gives_the_same_numbers(seed):
    s, y, grp = nasty(seed, "float")
    g, h = sorted_labels(grp)[:2]
    assert metrics.xauc(y, s, sensitive_features=grp, g=g, h=h) == float(
        o_xauc(s, y, grp, g, h))
    assert metrics.prf(y, s, sensitive_features=grp, g=h) == float(o_prf(s, y, grp, h))
    assert close(metrics.urf(y, s, sensitive_features=grp, g=g, h=h),
                 abs(o_urf_signed(s, grp, g, h)))
    for metric in METRICS:
        assert close(metrics.disparity(y, s, sensitive_features=grp, metric=metric),
                     max(o_pairs(s, y, grp, metric).values()))


@pytest.mark.parametrize("seed", SEEDS)
def test_weighted_metrics_equal_the_weighted_pair_loops(seed):
    s, y, grp, w = nasty(seed, "int", weights=True)
    labels = sorted_labels(grp)
    assert close(metrics.auc(y, s, sample_weight=w), o_auc(s, y, grp, w))
    for g in labels:
        assert close(metrics.prf(y, s, sensitive_features=grp, g=g, sample_weight=w),
                     o_prf(s, y, grp, g, w))
        for h in labels:
            assert close(metrics.xauc(y, s, sensitive_features=grp, g=g, h=h, sample_weight=w),
                         o_xauc(s, y, grp, g, h, w))
            if g != h:
                assert close(metrics.urf(None, s, sensitive_features=grp, g=g, h=h,
                                         sample_weight=w),
                             abs(o_urf_signed(s, grp, g, h, w)))
    for metric in METRICS:
        want = o_pairs(s, y, grp, metric, w)
        got = metrics.disparity_pairs(y, s, sensitive_features=grp, metric=metric,
                                      sample_weight=w)
        assert all(close(got[p], want[p]) for p in want)
        assert close(metrics.disparity(y, s, sensitive_features=grp, metric=metric,
                                       sample_weight=w),
                     max(want.values()))


# ------------------------------------------------------------------ which group

def o_tied_pairs(s, y, grp, metric):
    """The pairs of exactly the largest disparity, in sorted label order."""
    pairs = o_pairs(s, y, grp, metric)
    best = max(pairs.values())
    return [p for p, v in pairs.items() if v == best]


def o_disadvantage(s, y, grp, metric, high_score, pair=None):
    """``(pair, group, other, value, reverse)`` by the definitions: the pair of largest
    exact disparity (the first in sorted label order among equals, unless ``pair`` is
    given), its signed difference read as docs/design.md, section 2 says."""
    g, h = pair or o_tied_pairs(s, y, grp, metric)[0]
    d = o_signed(s, y, grp, metric, g, h)
    if d == 0:
        group = other = None
    else:
        higher, lower = (g, h) if d > 0 else (h, g)
        group, other = (lower, higher) if high_score == "favourable" else (higher, lower)
    a, b = (g, h) if group is None else (group, other)
    if metric == "xauc":
        value, reverse = o_xauc(s, y, grp, a, b), o_xauc(s, y, grp, b, a)
    elif metric == "prf":
        value, reverse = o_prf(s, y, grp, a), o_prf(s, y, grp, b)
    else:
        value = p_above(members(s, y, grp, a)[0], members(s, y, grp, b)[0])
        reverse = 1 - value
    return (g, h), group, other, value, reverse


@pytest.mark.parametrize("high_score", ["favourable", "harmful"])
@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("seed", SEEDS)
def test_disadvantaged_group_by_the_definitions(seed, metric, high_score):
    s, y, grp = nasty(seed, ("int", "float", "str")[seed % 3])
    found = metrics.disadvantaged_group(y, s, sensitive_features=grp, metric=metric,
                                        high_score=high_score)
    # which of several exactly tied pairs is named: test_tied_pairs_... below
    assert found.pair in o_tied_pairs(s, y, grp, metric)
    pair, group, other, value, reverse = o_disadvantage(s, y, grp, metric, high_score,
                                                        found.pair)
    assert (found.group, found.other) == (group, other)
    assert close(found.value, value) and close(found.reverse, reverse)
    assert close(found.disparity, abs(value - reverse))
    if group is not None:
        # favourable: the group is ranked lower (value < reverse); harmful: higher
        assert (found.value < found.reverse) == (high_score == "favourable")


@pytest.mark.parametrize("high_score", ["favourable", "harmful"])
def test_the_two_readings_name_opposite_groups_on_a_hand_ranking(high_score):
    # positives of "b" sit below every negative of "a": xAUC(b, a) = 0, xAUC(a, b) = 1
    s = [6, 5, 4, 3, 2, 1]
    y = [1, 0, 1, 0, 1, 0]
    grp = ["a", "a", "a", "b", "b", "b"]
    found = metrics.disadvantaged_group(y, s, sensitive_features=grp, metric="xauc",
                                        high_score=high_score)
    assert found.group == ("b" if high_score == "favourable" else "a")
    assert (found.value, found.reverse) == ((0.0, 1.0) if high_score == "favourable"
                                            else (1.0, 0.0))


def tied_deltas():
    """Three groups whose pairs (a, b) and (a, c) have exactly the same Delta-xAUC, 1/3,
    computed in floats as 1/3 - 0 = 0.3333333333333333 and 1 - 2/3 =
    0.33333333333333337."""
    s = [1, 2, 3, 4, 3.5, 5, 6, 0, 2.5, 0.5]
    y = [0, 0, 0, 1, 0, 0, 0, 1, 1, 0]
    grp = ["a"] * 4 + ["b"] * 4 + ["c"] * 2
    return s, y, grp


def test_tied_pairs_oracle():
    s, y, grp = tied_deltas()
    assert o_xauc(s, y, grp, "a", "b") == Fraction(1, 3)
    assert o_xauc(s, y, grp, "b", "a") == 0
    assert o_xauc(s, y, grp, "a", "c") == 1
    assert o_xauc(s, y, grp, "c", "a") == Fraction(2, 3)
    assert o_tied_pairs(s, y, grp, "xauc") == [("a", "b"), ("a", "c")]
    assert o_disadvantage(s, y, grp, "xauc", "favourable")[:3] == (("a", "b"), "b", "a")


def test_tied_pairs_name_the_first_in_sorted_label_order():
    # two pairs with exactly the same Delta-xAUC (1/3), whose floats differ in the
    # last place: the first pair in sorted label order is named, as design.md says
    s, y, grp = tied_deltas()
    found = metrics.disadvantaged_group(y, s, sensitive_features=grp, metric="xauc")
    assert (found.pair, found.group) == (("a", "b"), "b")


# ------------------------------------------------------------------ frame and scorer

@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", SEEDS[:4])
def test_ranking_metric_frame_equals_the_definitions(seed, weighted):
    pytest.importorskip("pandas")
    data = nasty(seed, ("int", "float", "str")[seed % 3], weights=weighted)
    s, y, grp = data[:3]
    w = data[3] if weighted else None
    frame = metrics.RankingMetricFrame(y, s, sensitive_features=grp, sample_weight=w)
    labels = sorted_labels(grp)
    assert close(frame.overall["auc"], o_auc(s, y, grp, w))
    assert list(frame.by_group.index) == labels
    for g in labels:
        row = frame.by_group.loc[g]
        assert row["n"] == grp.count(g)
        assert row["positives"] == sum(y[i] for i in range(len(grp)) if grp[i] == g)
        assert close(row["auc"], o_xauc(s, y, grp, g, g, w))
        assert close(row["prf"], o_prf(s, y, grp, g, w))
    assert list(frame.by_pair.index) == list(combinations(labels, 2))
    for g, h in combinations(labels, 2):
        row = frame.by_pair.loc[(g, h)]
        assert close(row["xauc_ab"], o_xauc(s, y, grp, g, h, w))
        assert close(row["xauc_ba"], o_xauc(s, y, grp, h, g, w))
        for metric in METRICS:
            assert close(row[metric], abs(o_signed(s, y, grp, metric, g, h, w)))
        assert close(row["auc"], abs(o_xauc(s, y, grp, g, g, w) - o_xauc(s, y, grp, h, h, w)))
    diff = frame.difference()
    for metric in METRICS:
        assert close(diff[metric], max(o_pairs(s, y, grp, metric, w).values()))
    assert close(diff["auc"], max(abs(o_xauc(s, y, grp, g, g, w) - o_xauc(s, y, grp, h, h, w))
                                  for g, h in combinations(labels, 2)))


@pytest.mark.parametrize("metric", METRICS)
def test_fairness_scorer_is_auc_minus_lam_disparity_of_the_scores(metric):
    from sklearn.linear_model import LogisticRegression

    from gpu_xorder import fairness_scorer

    rng = np.random.default_rng(3)
    n = 60
    grp = np.array(["u", "v", "w"])[rng.integers(0, 3, n)]
    X = np.column_stack([rng.normal(size=n), grp == "u"])
    y = (X[:, 0] + 0.7 * X[:, 1] + rng.normal(size=n) > 0.3).astype(int)
    model = LogisticRegression().fit(X, y)
    s = model.decision_function(X)
    w = rng.integers(1, 4, n).astype(float)
    labels = grp.tolist()
    for weight in (None, w):
        auc = o_auc(s, y, labels, weight)
        d = max(o_pairs(s, y, labels, metric, weight).values())
        got = fairness_scorer(metric, lam=0.7)(model, X, y, sensitive_features=grp,
                                               sample_weight=weight)
        assert close(got, auc - Fraction(7, 10) * d, 1e-12)
        parts = fairness_scorer(metric, lam=0.7, multimetric=True)
        assert close(parts["auc"](model, X, y, sensitive_features=grp,
                                  sample_weight=weight), auc)
        assert close(parts["neg_disparity"](model, X, y, sensitive_features=grp,
                                            sample_weight=weight), -d)
        for eps in (float(d) / 2, min(1.0, float(d) * 2)):
            got = fairness_scorer(metric, max_disparity=eps)(
                model, X, y, sensitive_features=grp, sample_weight=weight)
            # docs/design.md: AUC under |D| <= eps, AUC - 1 - (|D| - eps) beyond
            want = auc if d <= Fraction(eps) else auc - 1 - (d - Fraction(eps))
            assert close(got, want)


# ------------------------------------------------------------------ 2. DeLong intervals

def o_delong(upper, lower):
    """DeLong's variance of P(U > L), ties 1/2, from the structural components:
    V10(u_i) = mean_j psi(u_i, l_j), V01(l_j) = mean_i psi(u_i, l_j), and
    S10 / m + S01 / n with the sample variances (divisor m - 1, n - 1); None when a
    sample has one item. Also returns the V01 (for covariances)."""
    m, n = len(upper), len(lower)

    def psi(u, v):
        return 1.0 if u > v else (0.5 if u == v else 0.0)

    v10 = [sum(psi(u, v) for v in lower) / n for u in upper]
    v01 = [sum(psi(u, v) for u in upper) / m for v in lower]
    if m < 2 or n < 2:
        return None, v01
    theta = sum(v10) / m
    s10 = sum((v - theta) ** 2 for v in v10) / (m - 1)
    s01 = sum((v - theta) ** 2 for v in v01) / (n - 1)
    return s10 / m + s01 / n, v01


def o_sample_var(values):
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values) / (len(values) - 1)


def o_prf_diff_var(s, y, grp, g, h):
    """Var(PRF(g) - PRF(h)): the positives of g and of h are independent samples, the
    negatives shared, so the negatives' term is the sample variance of the differences
    of their components V01_g(l_j) - V01_h(l_j)."""
    pos_g, pos_h = members(s, y, grp, g, 1)[0], members(s, y, grp, h, 1)[0]
    neg = members(s, y, grp, None, 0)[0]
    if min(len(pos_g), len(pos_h), len(neg)) < 2:
        return None
    var_g, v01_g = o_delong(pos_g, neg)
    var_h, v01_h = o_delong(pos_h, neg)
    # each variance is S10 / m + S01 / n: keep its S10 / m, the negatives' part jointly
    s01_g, s01_h = o_sample_var(v01_g) / len(neg), o_sample_var(v01_h) / len(neg)
    diff = o_sample_var([a - b for a, b in zip(v01_g, v01_h)]) / len(neg)
    return (var_g - s01_g) + (var_h - s01_h) + diff


def o_z(level):
    """The normal quantile z with P(|Z| <= z) = level, by bisection on math.erf."""
    lo, hi = 0.0, 40.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if math.erf(mid / math.sqrt(2)) < level else (lo, mid)
    return (lo + hi) / 2


def o_normal(estimate, var, level, lo=0.0, hi=1.0):
    if var is None:
        return None
    half = o_z(level) * math.sqrt(var)
    return (min(max(float(estimate) - half, lo), hi), min(max(float(estimate) + half, lo), hi))


def o_abs(limits):
    """Limits of |D| from limits of D: [0, max(-lo, hi)] when they hold 0, else the
    absolute values sorted (the documented construction)."""
    lo, hi = limits
    if lo <= 0 <= hi:
        return 0.0, max(-lo, hi)
    return min(abs(lo), abs(hi)), max(abs(lo), abs(hi))


def o_pair_var(s, y, grp, metric, g, h):
    if metric == "xauc":
        a = o_delong(members(s, y, grp, g, 1)[0], members(s, y, grp, h, 0)[0])[0]
        b = o_delong(members(s, y, grp, h, 1)[0], members(s, y, grp, g, 0)[0])[0]
        return None if a is None or b is None else a + b
    if metric == "prf":
        return o_prf_diff_var(s, y, grp, g, h)
    var = o_delong(members(s, y, grp, g)[0], members(s, y, grp, h)[0])[0]
    return None if var is None else 4 * var  # D = 2 P(S^g > S^h) - 1


def assert_interval(got, estimate, limits):
    """``got`` (an Interval or None) against the oracle's estimate and limits."""
    if limits is None:
        assert got is None
        return
    assert isinstance(got, Interval)
    assert close(got.estimate, estimate)
    assert close(got.low, limits[0], 1e-9) and close(got.high, limits[1], 1e-9)


@pytest.mark.parametrize("level", [0.95, 0.8])
@pytest.mark.parametrize("one", [None, "positive", "negative"])
@pytest.mark.parametrize("seed", SEEDS[:4])
def test_delong_intervals_from_the_definition(seed, one, level):
    s, y, grp = nasty(seed, ("int", "float", "str")[seed % 3], one=one)
    labels = sorted_labels(grp)
    ci = metrics.confidence_intervals(y, s, sensitive_features=grp, level=level,
                                      method="delong")
    assert ci.groups == tuple(labels) and ci.level == level
    for metric in METRICS:  # the estimate is the metric function's value, to the bit
        assert ci.disparity[metric] is None or (
            ci.disparity[metric].estimate == metrics.disparity(y, s, sensitive_features=grp,
                                                               metric=metric))
    pos, neg = members(s, y, grp, None, 1)[0], members(s, y, grp, None, 0)[0]
    var = o_delong(pos, neg)[0]
    assert close(metrics.auc_variance(y, s), var)
    assert_interval(ci.auc, o_auc(s, y, grp), o_normal(o_auc(s, y, grp), var, level))
    for g in labels:
        for h in labels:
            var = o_delong(members(s, y, grp, g, 1)[0], members(s, y, grp, h, 0)[0])[0]
            got_var = metrics.xauc_variance(y, s, sensitive_features=grp, g=g, h=h)
            assert math.isnan(got_var) if var is None else close(got_var, var)
            est = o_xauc(s, y, grp, g, h)
            got = ci.auc_within[g] if g == h else ci.xauc[g, h]
            assert_interval(got, est, o_normal(est, var, level))
        est = o_prf(s, y, grp, g)
        var = o_delong(members(s, y, grp, g, 1)[0], neg)[0]
        assert_interval(ci.prf[g], est, o_normal(est, var, level))
    n_pairs = len(labels) * (len(labels) - 1) // 2
    joint = 1 - (1 - level) / n_pairs  # Bonferroni over the pairs for the maximum
    for metric in METRICS:
        lows, highs, estimates, defined = [], [], [], True
        for g, h in combinations(labels, 2):
            d = o_signed(s, y, grp, metric, g, h)
            var = o_pair_var(s, y, grp, metric, g, h)
            limits = o_normal(d, var, level, -1.0)
            assert_interval(ci.disparity_pairs[metric][g, h], abs(d),
                            None if limits is None else o_abs(limits))
            if metric == "urf":
                assert ci.urf[g, h] == ci.disparity_pairs["urf"][g, h]
            joint_limits = o_normal(d, var, joint, -1.0)
            if joint_limits is None:
                defined = False
                continue
            lo, hi = o_abs(joint_limits)
            lows.append(lo)
            highs.append(hi)
            estimates.append(abs(d))
        assert_interval(ci.disparity[metric], max(estimates) if defined else None,
                        (max(lows), max(highs)) if defined else None)


def test_delong_interval_of_a_hand_example():
    # two positives (3, 1), two negatives (2, 0): V10 = (1, 1/2), V01 = (1/2, 1),
    # AUC 3/4, S10 = S01 = 1/8, variance 1/16 + 1/16 = 1/8
    assert metrics.auc_variance([1, 0, 1, 0], [3, 2, 1, 0]) == pytest.approx(0.125)
    ci = metrics.confidence_intervals([1, 0, 1, 0, 1, 0], [3, 2, 1, 0, 5, 4],
                                      sensitive_features=[0, 0, 0, 0, 1, 1], method="delong")
    assert ci.auc_within[0].estimate == 0.75
    z = o_z(0.95)
    assert ci.auc_within[0].low == pytest.approx(0.75 - z * math.sqrt(0.125))
    assert ci.auc_within[0].high == 1.0  # clipped
    assert ci.auc_within[1] is None  # one positive, one negative: no variance


# ------------------------------------------------------------------ bootstrap

def o_bootstrap_resamples(s, y, grp, n_bootstrap, seed):
    """Index arrays of the resamples as the documentation describes them: stratum
    ``2 k + y`` (k: the group's position in sorted label order), slots laid out stratum
    after stratum, items in increasing index, and resample b drawing
    ``default_rng(SeedSequence(seed).spawn(n_bootstrap)[b]).integers(0, high)``, slot j
    taking the ``draw[j]``-th item of its stratum (``high[j]`` its size)."""
    position = {label: k for k, label in enumerate(sorted_labels(grp))}
    stratum = [2 * position[grp[i]] + int(y[i]) for i in range(len(grp))]
    slots = sorted(range(len(grp)), key=lambda i: (stratum[i], i))
    of = {}
    for i in slots:
        of.setdefault(stratum[i], []).append(i)
    high = np.array([len(of[stratum[i]]) for i in slots])
    children = np.random.SeedSequence(seed).spawn(n_bootstrap)
    for child in children:
        draw = np.random.default_rng(child).integers(0, high)
        yield np.array([of[stratum[i]][d] for i, d in zip(slots, draw)])


def frac(upper, lower):
    diff = np.asarray(upper, float)[:, None] - np.asarray(lower, float)[None, :]
    return float(((diff > 0) + 0.5 * (diff == 0)).mean())


def _part(rs, ry, rg, g=None, label=None):
    """The scores of a resample ``(rs, ry, rg)`` of group ``g`` with label ``label``
    (None: any)."""
    return rs[((rg == g) if g is not None else True) & (
        (ry == label) if label is not None else True)]


@pytest.mark.parametrize("level", [0.9])
@pytest.mark.parametrize("seed", SEEDS[:3])
def test_bootstrap_intervals_from_the_resampling_scheme(seed, level):
    s, y, grp = nasty(seed, ("int", "float", "str")[seed % 3])
    labels = sorted_labels(grp)
    n_boot, pairs = 150, list(combinations(labels, 2))
    ci = metrics.confidence_intervals(y, s, sensitive_features=grp, level=level,
                                      method="bootstrap", n_bootstrap=n_boot,
                                      random_state=seed + 11)
    grp_arr = np.asarray(grp, dtype=object)
    stats = {"auc": [], "xauc": [], "prf": [], "xauc_d": [], "prf_d": [], "urf_d": []}
    for idx in o_bootstrap_resamples(s, y, grp, n_boot, seed + 11):
        part = functools.partial(_part, s[idx], y[idx], grp_arr[idx])
        x = {(g, h): frac(part(g, 1), part(h, 0)) for g in labels for h in labels}
        p = {g: frac(part(g, 1), part(None, 0)) for g in labels}
        stats["auc"].append(frac(part(None, 1), part(None, 0)))
        stats["xauc"].append([x[g, h] for g in labels for h in labels])
        stats["prf"].append([p[g] for g in labels])
        stats["xauc_d"].append([x[g, h] - x[h, g] for g, h in pairs])
        stats["prf_d"].append([p[g] - p[h] for g, h in pairs])
        stats["urf_d"].append([frac(part(g), part(h)) - frac(part(h), part(g))
                               for g, h in pairs])

    def limits(values, at_level):
        alpha = 1 - at_level
        return np.quantile(np.asarray(values), [alpha / 2, 1 - alpha / 2], axis=0)

    lo, hi = limits(stats["auc"], level)
    assert_interval(ci.auc, o_auc(s, y, grp), (lo, hi))
    lo, hi = limits(stats["xauc"], level)
    for c, (g, h) in enumerate((g, h) for g in labels for h in labels):
        got = ci.auc_within[g] if g == h else ci.xauc[g, h]
        assert_interval(got, o_xauc(s, y, grp, g, h), (lo[c], hi[c]))
    lo, hi = limits(stats["prf"], level)
    for c, g in enumerate(labels):
        assert_interval(ci.prf[g], o_prf(s, y, grp, g), (lo[c], hi[c]))
    joint = 1 - (1 - level) / len(pairs)
    for metric in METRICS:
        lo, hi = limits(stats[metric + "_d"], level)
        jlo, jhi = limits(stats[metric + "_d"], joint)
        for c, (g, h) in enumerate(pairs):
            assert_interval(ci.disparity_pairs[metric][g, h],
                            abs(o_signed(s, y, grp, metric, g, h)), o_abs((lo[c], hi[c])))
        both = [o_abs((jlo[c], jhi[c])) for c in range(len(pairs))]
        assert_interval(ci.disparity[metric], max(o_pairs(s, y, grp, metric).values()),
                        (max(b[0] for b in both), max(b[1] for b in both)))


# ------------------------------------------------------------------ xROC curves and bands

def binom_tail_ge(k, n, p):
    """P(X >= k) for X ~ Binomial(n, p), summed exactly term by term."""
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k, n + 1))


def o_clopper_pearson(k, n, alpha):
    """The exact interval of a binomial proportion, k of n, at level 1 - alpha: the p
    with P(X >= k; p) = alpha / 2 and with P(X <= k; p) = alpha / 2, by bisection."""
    def solve(f):  # f increasing in p, root in [0, 1]
        lo, hi = 0.0, 1.0
        for _ in range(80):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
        return (lo + hi) / 2

    low = 0.0 if k == 0 else solve(lambda p: binom_tail_ge(k, n, p) - alpha / 2)
    high = 1.0 if k == n else solve(lambda p: alpha / 2 - (1 - binom_tail_ge(k + 1, n, p)))
    return low, high


@pytest.mark.parametrize("max_points", [400, 4])
@pytest.mark.parametrize("seed", SEEDS[:3])
def test_xroc_band_is_clopper_pearson_of_both_shares(seed, max_points):
    pytest.importorskip("scipy")
    s, y, grp = nasty(seed, "str", k=2)
    g, h = sorted_labels(grp)
    level = 0.9
    band = metrics.xroc_band(y, s, sensitive_features=grp, g=g, h=h, level=level,
                             max_points=max_points)
    pos, neg = members(s, y, grp, g, 1)[0], members(s, y, grp, h, 0)[0]
    distinct = sorted(set(pos) | set(neg), reverse=True)
    t = band.thresholds
    assert t[0] == np.inf and len(t) <= max_points + 1
    assert set(t[1:].tolist()) <= set(distinct) and t[1] == distinct[0]
    assert t[-1] == distinct[-1]
    assert len(t) == 1 + min(max_points, len(distinct))
    assert (np.diff(t[1:]) < 0).all()
    alpha = 1 - math.sqrt(level)  # each share at sqrt(level): the rectangle at level
    assert (band.fpr_low[0], band.fpr_high[0], band.tpr_low[0], band.tpr_high[0]) == (0,) * 4
    for c in range(1, len(t)):
        k_neg = sum(v >= t[c] for v in neg)
        k_pos = sum(v >= t[c] for v in pos)
        lo, hi = o_clopper_pearson(k_neg, len(neg), alpha)
        assert close(band.fpr_low[c], lo, 1e-9) and close(band.fpr_high[c], hi, 1e-9)
        lo, hi = o_clopper_pearson(k_pos, len(pos), alpha)
        assert close(band.tpr_low[c], lo, 1e-9) and close(band.tpr_high[c], hi, 1e-9)


def test_clopper_pearson_oracle_on_known_values():
    # 25 of 25 at alpha = 0.05: the lower end is 0.025 ** (1 / 25), the upper 1
    assert o_clopper_pearson(25, 25, 0.05) == (pytest.approx(0.025 ** (1 / 25)), 1.0)
    # 0 of 10: [0, 1 - 0.025 ** (1 / 10)]
    assert o_clopper_pearson(0, 10, 0.05) == (0.0, pytest.approx(1 - 0.025 ** 0.1))


@pytest.mark.parametrize("seed", SEEDS)
def test_xroc_curve_shares_and_area(seed):
    pytest.importorskip("sklearn")
    s, y, grp = nasty(seed, ("int", "float", "str")[seed % 3])
    labels = sorted_labels(grp)
    g, h = labels[-1], labels[0]
    fpr, tpr, t = metrics.xroc_curve(y, s, sensitive_features=grp, g=g, h=h)
    pos, neg = members(s, y, grp, g, 1)[0], members(s, y, grp, h, 0)[0]
    assert t[0] == np.inf and fpr[0] == tpr[0] == 0
    for c in range(1, len(t)):
        assert fpr[c] == float(Fraction(sum(v >= t[c] for v in neg), len(neg)))
        assert tpr[c] == float(Fraction(sum(v >= t[c] for v in pos), len(pos)))
    assert fpr[-1] == tpr[-1] == 1
    assert close(np.trapezoid(tpr, fpr), o_xauc(s, y, grp, g, h))


# ------------------------------------------------------------------ undefined values, frames

def lacking(seed, what):
    """Nasty data whose first group (sorted) has no positives (``what="positives"``)
    or no negatives."""
    s, y, grp = nasty(seed, "str", k=3)
    first = sorted_labels(grp)[0]
    y = np.array([(0 if what == "positives" else 1) if grp[i] == first else y[i]
                  for i in range(y.size)])
    return s, y, grp


def o_xauc_or_none(s, y, grp, g, h):
    p, n = members(s, y, grp, g, 1)[0], members(s, y, grp, h, 0)[0]
    return None if not p or not n else p_above(p, n)


@pytest.mark.parametrize("what", ["positives", "negatives"])
@pytest.mark.parametrize("seed", SEEDS[:3])
def test_delong_where_a_group_lacks_a_label(seed, what):
    s, y, grp = lacking(seed, what)
    labels = sorted_labels(grp)
    ci = metrics.confidence_intervals(y, s, sensitive_features=grp, method="delong")
    for g in labels:
        for h in labels:
            est = o_xauc_or_none(s, y, grp, g, h)
            got = ci.auc_within[g] if g == h else ci.xauc[g, h]
            if est is None:
                assert got is None
                continue
            var = o_delong(members(s, y, grp, g, 1)[0], members(s, y, grp, h, 0)[0])[0]
            assert_interval(got, est, o_normal(est, var, 0.95))
        pos = members(s, y, grp, g, 1)[0]
        if not pos:
            assert ci.prf[g] is None
        else:
            est = o_prf(s, y, grp, g)
            var = o_delong(pos, members(s, y, grp, None, 0)[0])[0]
            assert_interval(ci.prf[g], est, o_normal(est, var, 0.95))
    # a group without positives or negatives: no Delta-xAUC; without positives no Delta-PRF
    assert ci.disparity["xauc"] is None
    if what == "positives":
        assert ci.disparity["prf"] is None
    else:  # PRF needs the negatives of all groups only
        joint = 1 - 0.05 / len(list(combinations(labels, 2)))
        rows = [o_normal(o_signed(s, y, grp, "prf", g, h),
                         o_pair_var(s, y, grp, "prf", g, h), joint, -1.0)
                for g, h in combinations(labels, 2)]
        want = None if None in rows else (max(o_abs(r)[0] for r in rows),
                                          max(o_abs(r)[1] for r in rows))
        assert_interval(ci.disparity["prf"], max(o_pairs(s, y, grp, "prf").values()), want)
    for g, h in combinations(labels, 2):
        d = o_signed(s, y, grp, "urf", g, h)
        limits = o_normal(d, o_pair_var(s, y, grp, "urf", g, h), 0.95, -1.0)
        assert_interval(ci.urf[g, h], abs(d), None if limits is None else o_abs(limits))


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_intersections_of_two_columns_are_groups(seed):
    s, y, grp = nasty(seed, "str", k=2)
    rng = np.random.default_rng(seed)
    second = rng.choice(["x", "y"], len(grp)).tolist()
    both = np.column_stack([grp, second])
    joined = [f"{a} & {b}" for a, b in zip(grp, second)]
    for metric in METRICS:
        want = o_pairs(s, y, joined, metric) if metric == "urf" or all(
            any(j == g and y[i] == t for i, j in enumerate(joined)) for g in set(joined)
            for t in (0, 1)) else None
        if want is None:
            continue
        got = metrics.disparity_pairs(y, s, sensitive_features=both, metric=metric)
        assert list(got) == list(want)
        assert all(close(got[p], want[p]) for p in want)


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_frame_intervals_are_the_delong_oracle(seed):
    pytest.importorskip("pandas")
    s, y, grp = nasty(seed + 2, "int", k=3)
    labels = sorted_labels(grp)
    frame = metrics.RankingMetricFrame(y, s, sensitive_features=grp)
    tables = frame.intervals(method="delong", level=0.9)
    pairs = list(combinations(labels, 2))
    joint = 1 - 0.1 / len(pairs)
    for metric in METRICS:
        rows = []
        for g, h in pairs:
            d = o_signed(s, y, grp, metric, g, h)
            var = o_pair_var(s, y, grp, metric, g, h)
            row = tables["by_pair"].loc[(g, h), metric]
            limits = o_normal(d, var, 0.9, -1.0)
            assert close(row["estimate"], abs(d))
            if limits is None:
                assert math.isnan(row["low"]) and math.isnan(row["high"])
            else:
                lo, hi = o_abs(limits)
                assert close(row["low"], lo, 1e-9) and close(row["high"], hi, 1e-9)
            limits = o_normal(d, var, joint, -1.0)
            rows.append(None if limits is None else o_abs(limits))
        diff = tables["difference"].loc[metric]
        assert close(diff["estimate"], max(o_pairs(s, y, grp, metric).values()))
        if None in rows:
            assert math.isnan(diff["low"])
        else:
            assert close(diff["low"], max(r[0] for r in rows), 1e-9)
            assert close(diff["high"], max(r[1] for r in rows), 1e-9)
    for g in labels:
        est = o_xauc(s, y, grp, g, g)
        var = o_delong(members(s, y, grp, g, 1)[0], members(s, y, grp, g, 0)[0])[0]
        row = tables["by_group"].loc[g, "auc"]
        limits = o_normal(est, var, 0.9)
        assert close(row["estimate"], est)
        if limits is not None:
            assert close(row["low"], limits[0], 1e-9) and close(row["high"], limits[1], 1e-9)


def frame_with_a_group_without_positives():
    s = [3, 2, 1, 0, 2.5, 1.5, 0.5, 4, 2.2, 0.1]
    y = [1, 0, 1, 0, 1, 0, 0, 0, 1, 0]
    grp = ["a", "a", "b", "b", "a", "b", "c", "c", "b", "a"]  # c: no positives
    return s, y, grp


def test_frame_oracle_of_a_group_without_positives():
    s, y, grp = frame_with_a_group_without_positives()
    assert o_xauc(s, y, grp, "a", "b") == 1 and o_xauc(s, y, grp, "b", "a") == Fraction(3, 4)
    assert o_signed(s, y, grp, "prf", "a", "b") == Fraction(1, 6)
    ci = metrics.confidence_intervals(y, s, sensitive_features=grp, method="bootstrap",
                                      n_bootstrap=50, random_state=0)
    # the intervals define the pair (a, b), whose groups have both labels
    assert ci.disparity_pairs["xauc"]["a", "b"].estimate == 0.25
    assert close(ci.disparity_pairs["prf"]["a", "b"].estimate, Fraction(1, 6))


def test_frame_gives_the_delta_of_a_defined_pair_beside_an_undefined_group():
    pytest.importorskip("pandas")
    s, y, grp = frame_with_a_group_without_positives()
    frame = metrics.RankingMetricFrame(y, s, sensitive_features=grp)
    # c has no positives: disparity_pairs refuses xauc and prf for every pair, but the
    # pair (a, b) is defined (its xAUCs, and PRF against the negatives of all groups)
    row = frame.by_pair.loc[("a", "b")]
    assert (row["xauc_ab"], row["xauc_ba"]) == (1.0, 0.75)
    assert row["xauc"] == 0.25 and close(row["prf"], Fraction(1, 6))
    assert math.isnan(frame.by_pair.loc[("a", "c"), "xauc"])
    assert math.isnan(frame.by_pair.loc[("b", "c"), "prf"])


@pytest.mark.parametrize("high_score", ["favourable", "harmful"])
@pytest.mark.parametrize("metric", METRICS)
def test_xorder_summary_numbers_are_the_definitions(metric, high_score):
    from gpu_xorder import XOrder

    s, y, grp = nasty(4, "str", k=2)
    xo = XOrder(lam=0.5, metric=metric, backend="numpy").fit(s, y, sensitive_features=grp)
    report = xo.summary(s, y, sensitive_features=grp, high_score=high_score)
    assert (report["metric"], report["high_score"]) == (metric, high_score)
    adjusted = xo.transform(s, sensitive_features=grp)
    for part, scores in (("unadjusted", s), ("adjusted", adjusted)):
        got = report[part]
        assert got["auc"] == float(o_auc(scores, y, grp))
        assert close(got["disparity"], max(o_pairs(scores, y, grp, metric).values()))
        pair, group, other, value, reverse = o_disadvantage(scores, y, grp, metric,
                                                            high_score)
        found = got["disadvantaged"]
        assert (found.pair, found.group, found.other) == (pair, group, other)
        assert close(found.value, value) and close(found.reverse, reverse)
