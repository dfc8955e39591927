"""metrics._findings: the verdicts keep their stated error rate under no gap, find a
true gap, never name a direction between values printed equal, and carry their rule."""

import json

import numpy as np
import pytest
from scipy.stats import binom

from gpu_xorder import metrics
from gpu_xorder.metrics._cutoff_findings import decision_findings
from gpu_xorder.metrics._findings import DEFAULT_DELTA, ranking_finding
from gpu_xorder.metrics._wording import limit, numbers

MEASURES = ("xauc", "prf", "urf")
#: A count of verdicts this unlikely under the stated rate fails the test: the
#: Monte-Carlo error allowed (one-sided binomial tail).
TAIL = 1e-3


def _null(rng, k=4, n=100):
    """Scores that depend on the label only: every group's scores have one law, so
    every pair's true xAUC, PRF and URF gap is 0."""
    groups = np.repeat([f"g{i}" for i in range(k)], n)
    y = rng.integers(0, 2, k * n)
    return y + rng.normal(0, 1, k * n), y, groups


def _shifted(rng, k=4, n=100, shift=1.0):
    """As ``_null``, with the scores of group g1 shifted down by ``shift``."""
    s, y, groups = _null(rng, k, n)
    return s - shift * (groups == "g1"), y, groups


def _disadvantage_counts(make, replicates, level, seed):
    """Per measure and per rate at a cut-off, how many of ``replicates`` data sets got
    a 'disadvantages' verdict (at family-wise ``level``), and which groups."""
    rng = np.random.default_rng(seed)
    counts = {m: 0 for m in MEASURES + ("selection_rate", "tpr")}
    named = {m: set() for m in counts}
    for _ in range(replicates):
        s, y, g = make(rng)
        ci = metrics.confidence_intervals(y, s, sensitive_features=g, level=level,
                                          method="delong")
        found = [ranking_finding(y, s, sensitive_features=g, measure=m,
                                 high_score="favourable",
                                 intervals=ci) for m in MEASURES]
        rates = metrics.decision_rates(y, s, sensitive_features=g, threshold=0.5, level=level)
        found += [f for f in decision_findings(rates, high_score="favourable")
                  if f.measure in ("selection_rate", "tpr")]
        for f in found:
            assert f.family_level == level and f.pairs == 6
            if f.verdict == "disadvantages":
                counts[f.measure] += 1
                named[f.measure].add(f.group)
    return counts, named


def _check_null(replicates, level, seed):
    counts, _ = _disadvantage_counts(_null, replicates, level, seed)
    alpha = 1 - level
    for measure, x in counts.items():
        # P(X >= x) for X ~ Binomial(replicates, alpha): the rate is at most alpha
        # unless this is tiny
        assert binom.sf(x - 1, replicates, alpha) > TAIL, (measure, x, replicates)


def test_no_gap_gives_few_disadvantages():
    # 4 groups, 6 pairs, true gap 0: the worst pair, judged at the Bonferroni level,
    # is called a disadvantage at most 1 - level of the time (Monte-Carlo error
    # allowed by a binomial tail); a stated level of 80% makes 20% the bound
    _check_null(200, 0.8, seed=1)


@pytest.mark.slow
def test_no_gap_gives_few_disadvantages_at_95():
    _check_null(2000, 0.95, seed=2)


def test_a_true_gap_is_found():
    # g1's scores 1 standard deviation down: every measure names g1 nearly always
    replicates = 40
    counts, named = _disadvantage_counts(_shifted, replicates, 0.95, seed=3)
    for measure in MEASURES + ("selection_rate",):
        assert counts[measure] >= 0.9 * replicates, (measure, counts)
        assert named[measure] == {"g1"}


def test_the_verdicts_in_order_of_the_evidence():
    rng = np.random.default_rng(4)
    s, y, g = _shifted(rng, k=2, n=400, shift=1.0)
    found = ranking_finding(y, s, sensitive_features=g, high_score="harmful",
                            decision="detention")
    assert found.verdict == "disadvantages" and found.group == "g0"
    assert found.interval.low > 0 and found.level == 0.95 and found.pairs == 1
    assert "detention" in found.text and found.text.startswith("disadvantages 'g0'")
    # a ranking by the labels alone: every pair's values equal, but the intervals
    # have no width (every score tied within a group x label): no verdict, no direction
    exact = ranking_finding(y, y.astype(float), sensitive_features=g, high_score="harmful")
    assert exact.verdict == "inconclusive" and exact.group is None
    assert "xAUC(g0, g1) = xAUC(g1, g0) = 1.000" in exact.text
    assert "<" not in exact.text and ">" not in exact.text
    # a small sample and a small gap: neither
    s, y, g = _shifted(np.random.default_rng(5), k=2, n=20, shift=0.2)
    weak = ranking_finding(y, s, sensitive_features=g, high_score="favourable")
    assert weak.verdict == "inconclusive" and "holds 0" in weak.text


def test_delta_is_the_equivalence_margin():
    rng = np.random.default_rng(6)
    s, y, g = _null(rng, k=2, n=2000)
    wide = ranking_finding(y, s, sensitive_features=g, high_score="favourable", delta=0.2)
    assert wide.verdict == "parity" and wide.delta == 0.2
    narrow = ranking_finding(y, s, sensitive_features=g, high_score="favourable", delta=0.001)
    assert narrow.verdict == "inconclusive"
    assert ranking_finding(y, s, sensitive_features=g,
                           high_score="favourable").delta == DEFAULT_DELTA
    for bad in (0, 1, -0.1, float("nan")):
        with pytest.raises(ValueError, match="delta"):
            ranking_finding(y, s, sensitive_features=g, high_score="favourable", delta=bad)
    with pytest.raises(TypeError, match="delta"):
        ranking_finding(y, s, sensitive_features=g, high_score="favourable", delta="0.1")


def test_high_score_is_required():
    with pytest.raises(TypeError, match="high_score"):
        ranking_finding([1, 0, 1, 0], [1, 0, 1, 0], sensitive_features=["a", "a", "b", "b"])


def test_values_printed_equal_have_no_direction():
    # the cases: 0.921916 against a neighbour, 0.14031 against 0.14030
    a = 0.9219160000001
    x, y = numbers(a, np.nextafter(a, 1))
    assert x != y and float(x) < float(y)
    assert numbers(0.14031, 0.14030) == ("0.14031", "0.14030")
    x, y = numbers(0.5, 0.5)
    assert x == y
    # an interval that excludes 0 never reads [0.000, ...]
    assert limit(0.00035) == "0.00035" and limit(0.0) == "0.000"


def test_the_json_carries_the_rule():
    rng = np.random.default_rng(7)
    s, y, g = _shifted(rng, k=3, n=150)
    ci = metrics.confidence_intervals(y, s, sensitive_features=g, level=0.9, method="delong")
    found = ranking_finding(y, s, sensitive_features=g, measure="urf", high_score="favourable",
                            intervals=ci, delta=0.1)
    doc = json.loads(json.dumps(found.to_dict(), allow_nan=False))
    assert doc["verdict"] == found.verdict and doc["delta"] == 0.1
    assert doc["level"] == pytest.approx(1 - 0.1 / 3) and doc["family_level"] == 0.9
    assert "Bonferroni over 3 pairs" in doc["rule"]
    # URF ignores the labels: the pair's base rates come with it
    assert set(doc["base_rates"]) == set(doc["pair"])
    assert "base rates" in found.text


def test_the_four_fifths_rule():
    # a: 50 of 100 selected, b: 20 of 100: ratio 0.4, well below 0.8
    s = np.r_[np.arange(100) >= 50, np.arange(100) >= 80].astype(float)
    y = np.tile([0, 1], 100)
    g = np.repeat(["a", "b"], 100)
    found = decision_findings(metrics.decision_rates(y, s, sensitive_features=g,
                                                     threshold=0.5),
                              high_score="favourable", decision="an interview")
    ratio = found[-1]
    assert ratio.measure == "selection_rate_ratio" and ratio.verdict == "disadvantages"
    assert ratio.group == "b" and ratio.interval.high < 0.8
    assert "four-fifths" in ratio.text and "an interview" in ratio.text
    harmful = decision_findings(metrics.decision_rates(y, s, sensitive_features=g,
                                                       threshold=0.5),
                                high_score="harmful")[-1]
    assert harmful.group == "a"
    # equal selections: the rule is met over the whole interval with many items
    s = np.r_[np.arange(1000) >= 500, np.arange(1000) >= 500].astype(float)
    y, g = np.tile([0, 1], 1000), np.repeat(["a", "b"], 1000)
    met = decision_findings(metrics.decision_rates(y, s, sensitive_features=g, threshold=0.5),
                            high_score="favourable")
    assert met[-1].verdict == "parity" and met[0].verdict == "parity"


def test_parity_prints_its_limit_below_delta():
    from gpu_xorder.metrics._uncertainty import Interval
    from gpu_xorder.metrics._wording import below

    assert below(Interval(0.01, 0.0, 0.04998), 0.05) == "[0.000, 0.04998]"
    assert below(Interval(0.01, 0.0, 0.031), 0.05) == "[0.000, 0.031]"
