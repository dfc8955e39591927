"""decision_rates: the counts against O(n) loops (threshold) and against every random
tie-break of a top-k cut, enumerated; Wilson, Newcombe and Katz intervals against
published and hand-computed values and Wilson's exact coverage; the rules' checks."""

import itertools
import math
from statistics import NormalDist

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_xorder.metrics import decision_rates
from gpu_xorder.metrics._decisions import RATES, katz, newcombe, wilson
from support.properties import examples

Z95 = NormalDist().inv_cdf(0.975)


def loop_counts(selected, y, grp, g):
    """Counts of group g, one item at a time (``selected``: a weight per item)."""
    c = dict(n=0, positives=0, negatives=0, selected=0.0, true_positives=0.0,
             false_positives=0.0)
    for w, label, group in zip(selected, y, grp):
        if group != g:
            continue
        c["n"] += 1
        c["positives" if label else "negatives"] += 1
        c["selected"] += w
        c["true_positives" if label else "false_positives"] += w
    return c


def rate_of(c, rate):
    num, den = {"selection_rate": ("selected", "n"), "tpr": ("true_positives", "positives"),
                "fpr": ("false_positives", "negatives"),
                "precision": ("true_positives", "selected")}[rate]
    return c[num] / c[den] if c[den] > 0 else None


def check_against(d, selected, y, grp):
    labels = sorted(set(grp))
    assert d.groups == tuple(labels)
    for g in labels:
        want = loop_counts(selected, y, grp, g)
        for key, value in want.items():
            assert d.counts[g][key] == pytest.approx(value, abs=1e-9), (g, key)
        for rate in RATES:
            r = rate_of(want, rate)
            got = d.by_group[rate][g]
            if r is None:
                assert got is None
            else:
                assert got.estimate == pytest.approx(r, abs=1e-12)
                assert got.low <= got.estimate + 1e-12 and got.estimate <= got.high + 1e-12
    for rate in RATES:
        rates = [rate_of(loop_counts(selected, y, grp, g), rate) for g in labels]
        if any(r is None for r in rates):
            assert d.difference[rate] is None
            continue
        assert d.difference[rate].estimate == pytest.approx(max(rates) - min(rates), abs=1e-12)
        if max(rates) > 0:
            assert d.ratio[rate].estimate == pytest.approx(min(rates) / max(rates),
                                                           abs=1e-12)


data = st.integers(4, 7).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 3), min_size=n, max_size=n),  # few values: many ties
    st.lists(st.integers(0, 1), min_size=n, max_size=n),
    st.lists(st.sampled_from("ab"), min_size=n, max_size=n)).filter(
        lambda t: set(t[2]) == {"a", "b"}))


@settings(max_examples=examples(40), deadline=None)
@given(data, st.integers(0, 4))
def test_threshold_counts_equal_a_loop(case, t):
    s, y, grp = (np.array(v) for v in case)
    d = decision_rates(y, s, sensitive_features=grp, threshold=t)
    assert d.rule == f"score >= {t}" and d.cut == t
    # ties at the threshold are selected
    check_against(d, [1.0 if v >= t else 0.0 for v in s.tolist()], y, grp.tolist())


@settings(max_examples=examples(30), deadline=None)
@given(data, st.integers(1, 7))
def test_top_k_is_the_average_over_random_tie_breaks(case, k):
    s, y, grp = (np.array(v) for v in case)
    n = s.size
    k = min(k, n)
    # every strict order that lists the scores from high to low, equally likely
    orders = [p for p in itertools.permutations(range(n))
              if all(s[p[i]] >= s[p[i + 1]] for i in range(n - 1))]
    selected = np.zeros(n)
    for p in orders:
        selected[list(p[:k])] += 1 / len(orders)
    d = decision_rates(y, s, sensitive_features=grp, top_k=k)
    assert sum(c["selected"] for c in d.counts.values()) == pytest.approx(k)
    assert d.cut == sorted(s.tolist(), reverse=True)[k - 1]
    check_against(d, selected.tolist(), y, grp.tolist())
    # the share k / n of the items is the same decision
    same = decision_rates(y, s, sensitive_features=grp, top_share=k / n)
    for g in d.counts:
        assert same.counts[g] == pytest.approx(d.counts[g])


def test_top_k_with_ties_shares_the_places_left():
    # scores 3, 2, 2, 2, 1: the top 2 takes the 3 and two thirds of each 2
    s, y, grp = [3, 2, 2, 2, 1], [1, 1, 0, 0, 0], ["a", "a", "b", "b", "b"]
    d = decision_rates(y, s, sensitive_features=grp, top_k=2)
    assert d.counts["a"]["selected"] == pytest.approx(1 + 1 / 3)
    assert d.counts["b"]["selected"] == pytest.approx(2 / 3)
    assert d.by_group["tpr"]["a"].estimate == pytest.approx((1 + 1 / 3) / 2)
    assert d.by_group["tpr"]["b"] is None  # b has no positives
    assert d.difference["tpr"] is None and d.ratio["tpr"] is None
    assert d.cut == 2


def test_wilson_and_newcombe_published_values():
    # Newcombe (1998), Statistics in Medicine 17: 857-872 and 873-890
    assert wilson(81, 263, Z95)[1:] == pytest.approx((0.2553, 0.3662), abs=5e-5)
    assert wilson(15, 148, Z95)[1:] == pytest.approx((0.0624, 0.1605), abs=5e-5)
    assert newcombe((56, 70), (48, 80), Z95)[1:] == pytest.approx((0.0524, 0.3339),
                                                                   abs=5e-5)
    # 0 of 10: the Wilson interval is [0, z^2 / (n + z^2)]
    assert wilson(0, 10, Z95)[1:] == pytest.approx((0.0, Z95**2 / (10 + Z95**2)))


def test_katz_ratio_by_hand():
    # 10/50 against 20/50: ratio 0.5, log standard error sqrt(1/10 - 1/50 + 1/20 - 1/50)
    r = katz((10, 50), (20, 50), Z95)
    se = math.sqrt(0.11)
    assert r == pytest.approx((0.5, 0.5 * math.exp(-Z95 * se), 0.5 * math.exp(Z95 * se)))
    assert math.isnan(katz((0, 50), (20, 50), Z95).low)


@pytest.mark.parametrize("n", [20, 60])
@pytest.mark.parametrize("p", [0.1, 0.3, 0.5])
def test_wilson_exact_coverage_is_near_nominal(n, p):
    coverage = sum(math.comb(n, x) * p**x * (1 - p) ** (n - x) for x in range(n + 1)
                   if wilson(x, n, Z95).low <= p <= wilson(x, n, Z95).high)
    assert 0.92 <= coverage <= 0.99


def test_intervals_of_gaps_and_ratios():
    rng = np.random.default_rng(3)
    grp = np.repeat(["a", "b", "c"], 200)
    y = rng.integers(0, 2, 600)
    s = y + rng.normal(0, 1, 600) + 0.5 * (grp == "a")
    d = decision_rates(y, s, sensitive_features=grp, threshold=0.5, level=0.9)
    assert d.level == 0.9
    for rate in RATES:
        diff, ratio = d.difference[rate], d.ratio[rate]
        assert 0 <= diff.low <= diff.estimate <= diff.high <= 1
        assert 0 <= ratio.low <= ratio.estimate <= ratio.high <= 1
        est = [d.by_group[rate][g].estimate for g in "abc"]
        assert diff.estimate == pytest.approx(max(est) - min(est))
    # three groups: the largest of the pairs' |Newcombe| limits at level 1 - 0.1 / 3
    z = NormalDist().inv_cdf(1 - 0.1 / 6)
    share = {g: (d.counts[g]["selected"], d.counts[g]["n"]) for g in "abc"}
    pairs = [newcombe(share[g], share[h], z) for g, h in itertools.combinations("abc", 2)]
    folded = [(0.0 if p.low <= 0 <= p.high else min(abs(p.low), abs(p.high)),
               max(abs(p.low), abs(p.high))) for p in pairs]
    assert d.difference["selection_rate"][1:] == pytest.approx(
        (max(f[0] for f in folded), max(f[1] for f in folded)))
    # two groups: Newcombe's interval at the level itself
    two = decision_rates(y[grp != "c"], s[grp != "c"], sensitive_features=grp[grp != "c"],
                         threshold=0.5, level=0.9)
    p = newcombe(share["a"], share["b"], NormalDist().inv_cdf(0.95))
    assert p.low > 0 and two.difference["selection_rate"] == pytest.approx(p)
    assert d.to_dict()["by_group"]["tpr"]["a"] == list(d.by_group["tpr"]["a"])


@pytest.mark.parametrize("kwargs, match", [
    ({}, "exactly one of threshold, top_k and top_share, got none"),
    ({"threshold": 0.5, "top_k": 2}, "got threshold, top_k"),
    ({"threshold": math.nan}, "threshold must be a finite number"),
    ({"top_k": 0}, r"top_k must be an integer from 1 to the number of items \(4\)"),
    ({"top_k": 5}, "top_k must be an integer"),
    ({"top_k": True}, "top_k must be an integer"),
    ({"top_k": 1.0}, "top_k must be an integer"),
    ({"top_share": 0}, r"top_share must be a number in \(0, 1\]"),
    ({"top_share": 1.5}, "top_share must be"),
    ({"threshold": 0.5, "level": 1.0}, "level must be"),
])
def test_bad_rules_are_refused(kwargs, match):
    s, y, grp = np.array([0.4, 0.3, 0.2, 0.1]), [1, 0, 1, 0], ["a", "a", "b", "b"]
    with pytest.raises(ValueError, match=match):
        decision_rates(y, s, sensitive_features=grp, **kwargs)


def test_input_is_not_modified():
    s = np.array([3.0, 2.0, 2.0, 1.0])
    before = s.copy()
    decision_rates([1, 0, 1, 0], s, sensitive_features=["a", "a", "b", "b"], top_k=2)
    np.testing.assert_array_equal(s, before)


def test_a_decimal_share_selects_exactly_its_places():
    """Every share ``i / 100`` of every n up to 60: the weights add up to the exact
    rational ``i n / 100`` (Fraction arithmetic, the oracle), a whole number of places
    selects that many whole items and no sliver of the next (0.28 of 25 is
    ``7.000000000000001`` in floating point)."""
    from fractions import Fraction

    from gpu_xorder.metrics._decisions import selection

    for n in range(1, 61):
        scores = np.arange(n, 0, -1, dtype=np.float64)  # distinct: no ties at the cut
        for i in range(1, 101):
            exact = Fraction(i, 100) * n
            weight, _, _ = selection(scores, top_share=i / 100)
            assert weight.sum() == pytest.approx(float(exact), abs=1e-12), (n, i)
            assert (weight == 1).sum() == math.floor(exact), (n, i)
            assert (weight > 0).sum() == math.ceil(exact), (n, i)


@pytest.mark.parametrize("share", [0.28, 0.56])
def test_a_share_whose_product_is_not_exact_in_floats_runs(share):
    """The issue's case: 0.28 of 25 items raised OverflowError (a sliver of an 8th
    item, alone in its group, gave Katz's interval a limit of exp(1e8)); 0.28 and 0.56
    are the multiples of 1/25 whose float product with 25 is not whole."""
    n = 25
    assert share * n != round(share * n)
    s = np.arange(n, 0, -1) / n
    y = np.arange(n) % 2
    grp = np.array(["a"] * round(share * n) + ["b"] * (n - round(share * n)))
    d = decision_rates(y, s, sensitive_features=grp, top_share=share)
    assert d.counts["a"]["selected"] == round(share * n)
    assert d.counts["b"]["selected"] == 0
    assert d.rule == f"top {share:g} of {n} ({round(share * n)} places)"


def test_katz_with_a_sliver_of_a_count_does_not_overflow():
    r = katz((1e-12, 10), (5, 10), Z95)
    assert r.low == 0.0 or r.low < r.estimate
    assert r.high == math.inf or r.high > 1e6


def test_the_smallest_ratio_with_two_groups_at_zero_is_zero():
    """Three groups, two of them never selected: the pair of those two says nothing
    (0 / 0), the others' ratio is 0, so the smallest is 0, not None (the issue); with
    every group at 0 it is None. Oracle: min over the pairs with a nonzero rate."""
    s = np.array([0.9, 0.8, 0.1, 0.2, 0.3, 0.1])
    y = np.array([1, 0, 1, 0, 1, 0])
    grp = np.array(["c", "c", "a", "a", "b", "b"])
    d = decision_rates(y, s, sensitive_features=grp, threshold=0.5)
    assert d.ratio["selection_rate"].estimate == 0.0
    assert d.ratio["tpr"].estimate == 0.0 and d.ratio["fpr"].estimate == 0.0
    rates = {g: d.by_group["selection_rate"][g].estimate for g in "abc"}
    want = min(min(rates[g], rates[h]) / max(rates[g], rates[h])
               for g, h in itertools.combinations("abc", 2) if max(rates[g], rates[h]) > 0)
    assert d.ratio["selection_rate"].estimate == want
    assert decision_rates(y, s, sensitive_features=grp,
                          threshold=2.0).ratio["selection_rate"] is None
