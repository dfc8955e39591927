"""metrics.disadvantaged_group: which group a ranking disadvantages under each reading
of a high score, against hand-built rankings and the O(n^2) pair definitions."""

import re
from fractions import Fraction

import numpy as np
import pytest

from gpu_xorder import metrics
from gpu_xorder.metrics._direction import MSG_INTERVALS
from gpu_xorder.utils._validation import MSG_UNKNOWN
from support.oracles import pair_frac

# a+ 6, b- 5, a- 4, b+ 3, a+ 2, b- 1 (docs/design.md, section 2)
HAND = {"y_true": [1, 0, 0, 1, 1, 0], "y_score": [6, 5, 4, 3, 2, 1],
        "sensitive_features": ["a", "b", "a", "b", "a", "b"]}
# every value by hand: positives of a {6, 2}, negatives of a {4}, positive of b {3},
# negatives of b {5, 1}; the value of the group ranked higher (a) and of the other (b)
HAND_VALUES = {
    "xauc": (Fraction(3, 4), Fraction(0)),  # 6>5, 6>1, 2>1 of 4; 3 < 4
    "prf": (Fraction(4, 6), Fraction(1, 3)),  # 6 > {5, 4, 1}, 2 > {1}; 3 > {1}
    "urf": (Fraction(6, 9), Fraction(3, 9)),  # {6, 4, 2} above {5, 3, 1}: 3 + 2 + 1
}


@pytest.mark.parametrize("metric", ["xauc", "prf", "urf"])
def test_a_hand_built_ranking(metric):
    high, low = HAND_VALUES[metric]
    found = metrics.disadvantaged_group(**HAND, metric=metric)
    assert (found.group, found.other, found.pair) == ("b", "a", ("a", "b"))
    assert (found.value, found.reverse) == (float(low), float(high))
    assert found.disparity == float(high - low)
    harmed = metrics.disadvantaged_group(**HAND, metric=metric, high_score="harmful")
    assert (harmed.group, harmed.other) == ("a", "b")
    assert (harmed.value, harmed.reverse) == (float(high), float(low))
    # six items establish nothing: the sentence names no disadvantage
    assert harmed.verdict == found.verdict == "inconclusive"
    assert harmed.text.startswith("inconclusive: the largest gap is between 'a' and 'b'")
    assert "disadvantages" not in harmed.text


def test_the_harmful_xauc_sentence_is_about_negatives():
    # HAND a hundred times over: the same values, and enough items to say so
    many = {key: list(part) * 100 for key, part in HAND.items()}
    text = metrics.disadvantaged_group(**many, high_score="harmful").text
    # P(a- above b+) = P(4 > 3) = 1; P(b- above a+) = (5 > 2) of 4 pairs = 1/4
    assert text.startswith("disadvantages 'a' (against 'b'): negatives of 'a' are ranked "
                           "above positives of 'b' more often than the reverse, "
                           "1 - xAUC(b, a) = 1.000 > 1 - xAUC(a, b) = 0.250")
    text = metrics.disadvantaged_group(**many).text
    assert text.startswith("disadvantages 'b' (against 'a'): positives of 'b' are ranked "
                           "below negatives of 'a' more often than the reverse, "
                           "xAUC(b, a) = 0.000 < xAUC(a, b) = 0.750")


@pytest.mark.parametrize("metric", ["xauc", "prf", "urf"])
def test_equal_sides_name_no_group(metric):
    s, y, g = [1, 1, 1, 1], [1, 0, 1, 0], ["a", "a", "b", "b"]
    for high_score in ("favourable", "harmful"):
        found = metrics.disadvantaged_group(y, s, sensitive_features=g, metric=metric,
                                            high_score=high_score)
        assert found.group is None and found.other is None and found.disparity == 0
        assert found.verdict != "disadvantages"
        # the values are said to be equal, never ordered
        assert not re.search(r"= [0-9.]+ [<>]", found.text)
        assert re.search(r"\) = [^=]+\) = 0\.500", found.text)


def _oracle(s, y, g, metric, high_score):
    """The rule computed the slow way: every pair's signed difference from the O(n^2)
    definitions, the largest |D| (first in sorted order), then the reading."""
    labels = sorted(set(g.tolist()))
    best = None
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            if metric == "xauc":
                va = pair_frac(s[(g == a) & (y == 1)], s[(g == b) & (y == 0)])
                vb = pair_frac(s[(g == b) & (y == 1)], s[(g == a) & (y == 0)])
            elif metric == "prf":
                va = pair_frac(s[(g == a) & (y == 1)], s[y == 0])
                vb = pair_frac(s[(g == b) & (y == 1)], s[y == 0])
            else:
                va, vb = pair_frac(s[g == a], s[g == b]), pair_frac(s[g == b], s[g == a])
            if best is None or abs(va - vb) > best[0] + 1e-12:
                best = (abs(va - vb), a, b, va, vb)
    _, a, b, va, vb = best
    if abs(va - vb) < 1e-12:
        return None, (a, b), va, vb
    higher, lower = (a, b) if va > vb else (b, a)
    group = lower if high_score == "favourable" else higher
    return group, (a, b), (va if group == a else vb), (vb if group == a else va)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("metric", ["xauc", "prf", "urf"])
def test_random_rankings_against_the_pair_definitions(seed, metric):
    rng = np.random.default_rng(seed)
    n = 60
    g = rng.choice(["x", "y", "z"], n)
    y = rng.integers(0, 2, n)
    y[:6], g[:6] = [1, 0, 1, 0, 1, 0], ["x", "x", "y", "y", "z", "z"]
    s = rng.integers(0, 8, n) + y + rng.integers(0, 3) * (g == "y")  # ties on purpose
    for high_score in ("favourable", "harmful"):
        found = metrics.disadvantaged_group(y, s, sensitive_features=g, metric=metric,
                                            high_score=high_score)
        group, pair, value, reverse = _oracle(s, y, g, metric, high_score)
        assert found.group == group and found.pair == pair
        assert found.value == pytest.approx(value, abs=1e-12)
        assert found.reverse == pytest.approx(reverse, abs=1e-12)
        if group is None:
            continue
        # the numbers the sentence states are the oracle's, rounded as printed
        shown = [float(x) for x in re.findall(r"= (\d\.\d+)", found.text)]
        named = found.verdict == "disadvantages"
        if metric == "xauc" and high_score == "harmful" and named:
            assert shown == pytest.approx([1 - reverse, 1 - value], abs=5e-4 + 1e-12)
        else:
            assert shown == pytest.approx([value, reverse], abs=5e-4 + 1e-12)
        assert (f"disadvantages '{group}'" in found.text) == named


def _risk_data(n=600, seed=0, push=1.0):
    """Risk scores where the negatives of group p are pushed up."""
    rng = np.random.default_rng(seed)
    g = rng.choice(["p", "q"], n)
    y = rng.integers(0, 2, n)
    s = y + rng.normal(0, 1, n) + push * ((g == "p") & (y == 0))
    return s, y, g


@pytest.mark.parametrize("metric", ["xauc", "urf"])
def test_pushed_up_negatives_harm_their_group_under_a_harmful_reading(metric):
    s, y, g = _risk_data()
    assert metrics.disadvantaged_group(y, s, sensitive_features=g, metric=metric,
                                       high_score="harmful").group == "p"
    assert metrics.disadvantaged_group(y, s, sensitive_features=g, metric=metric).group == "q"


def test_the_interval_of_the_pair_is_cited():
    s, y, g = _risk_data(n=200)
    ci = metrics.confidence_intervals(y, s, sensitive_features=g, method="delong", level=0.9)
    found = metrics.disadvantaged_group(y, s, sensitive_features=g, intervals=ci)
    # two groups: one pair, judged at the stated level; the interval of the signed
    # difference, turned to the disadvantaged group's side
    iv = ci.signed_pairs_joint["xauc"]["p", "q"]
    assert ci.joint_level == 0.9 and iv == ci.signed_pairs["xauc"]["p", "q"]
    assert found.group == "q" and found.verdict == "disadvantages"
    assert (found.interval.low, found.interval.high) == (-iv.high, -iv.low) and iv.low > 0
    assert (f"90% interval of the difference [{-iv.high:.3f}, {-iv.low:.3f}], which "
            "excludes 0") in found.text
    s, y, g = _risk_data(n=60, push=0.1)
    ci = metrics.confidence_intervals(y, s, sensitive_features=g, method="delong")
    found = metrics.disadvantaged_group(y, s, sensitive_features=g, intervals=ci)
    assert found.interval.low < 0 < found.interval.high
    assert found.verdict == "inconclusive"
    assert "which holds 0 and is not within +-0.05: at this level the data do not say " \
        "which group it is" in found.text
    assert found.to_dict()["interval"] == [found.interval.low, found.interval.high]


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match=re.escape(MSG_UNKNOWN.format(
            name="high_score", value="bad", choices=("favourable", "harmful")))):
        metrics.disadvantaged_group(**HAND, high_score="bad")
    other = metrics.confidence_intervals([1, 0, 1, 0], [3, 2, 1, 0],
                                         sensitive_features=["c", "c", "d", "d"],
                                         method="delong")
    with pytest.raises(ValueError, match=re.escape(MSG_INTERVALS.format(
            what="MetricIntervals"))):
        metrics.disadvantaged_group(**HAND, intervals=other)


def test_xorder_and_fair_ranker_summaries_name_the_group_both_ways():
    from sklearn.linear_model import LogisticRegression

    from gpu_xorder import FairRanker, XOrder

    s, y, g = _risk_data(n=300)
    xo = XOrder(lam=2.0, backend="numpy").fit(s, y, sensitive_features=g)
    s2, y2, g2 = _risk_data(n=300, seed=1)
    report = xo.summary(s2, y2, sensitive_features=g2, high_score="harmful")
    assert (report["metric"], report["high_score"]) == ("xauc", "harmful")
    fair = xo.transform(s2, sensitive_features=g2)
    for key, scores in (("unadjusted", s2), ("adjusted", fair)):
        assert report[key]["auc"] == metrics.auc(y2, scores)
        assert report[key]["disparity"] == metrics.disparity(y2, scores, sensitive_features=g2)
        assert report[key]["disadvantaged"] == metrics.disadvantaged_group(y2, scores,
                                                                           sensitive_features=g2,
                                                                           high_score="harmful")
    assert report["unadjusted"]["disadvantaged"].group == "p"
    assert report["adjusted"]["disparity"] < report["unadjusted"]["disparity"]
    assert xo.summary(s2, y2, sensitive_features=g2)["unadjusted"][
        "disadvantaged"].group == "q"
    X = np.column_stack([s, g == "p"])
    ranker = FairRanker(LogisticRegression(), lam=2.0, backend="numpy", cv=3).fit(
        X, y, sensitive_features=g)
    X2 = np.column_stack([s2, g2 == "p"])
    got = ranker.summary(X2, y2, sensitive_features=g2, high_score="harmful")
    want = ranker.xorder_.summary(ranker.estimator_.decision_function(X2), y2,
                                  sensitive_features=g2, high_score="harmful")
    assert got["unadjusted"] == want["unadjusted"] and got["adjusted"] == want["adjusted"]
    with pytest.raises(ValueError, match="unknown high_score 'risky'"):
        xo.summary(s2, y2, sensitive_features=g2, high_score="risky")
