"""RankingMetricFrame: every number against the metric functions (difference() is
metrics.disparity, to the bit) and against O(n^2) pair definitions on small data,
weighted and not; its intervals against metrics.confidence_intervals."""

import itertools
import re
import sys

import numpy as np
import pytest

from gpu_xorder import metrics
from gpu_xorder.metrics._frame import MSG_METRICS, MSG_WEIGHTED_INTERVALS
from gpu_xorder.metrics import RankingMetricFrame
from support.oracles import pair_frac, weighted_delta, weighted_metric

pd = pytest.importorskip("pandas")

RNG = np.random.default_rng(8)
N = 90
GROUPS = np.array(["x", "y", "z"])[RNG.integers(0, 3, N)]
Y = RNG.integers(0, 2, N)
SCORES = np.round(Y + RNG.normal(0, 1, N) + 0.7 * (GROUPS == "x"), 1)  # with ties
WEIGHTS = RNG.choice([0.5, 1.0, 3.0], N)
LABELS = ["x", "y", "z"]
PAIRS = list(itertools.combinations(LABELS, 2))


def brute(s, y, grp, w, name, g=None, h=None):
    """O(n^2) definitions; without weights, pair_frac's plain double loop."""
    if w is not None:
        return weighted_metric(s, y, grp, w, name, g, h)
    if name == "auc":
        return pair_frac(s[y == 1], s[y == 0])
    if name == "xauc":
        return pair_frac(s[(grp == g) & (y == 1)], s[(grp == h) & (y == 0)])
    return pair_frac(s[(grp == g) & (y == 1)], s[y == 0])  # prf


@pytest.mark.parametrize("weighted", [False, True])
def test_tables_equal_pair_definitions(weighted):
    w = WEIGHTS if weighted else None
    frame = RankingMetricFrame(Y, SCORES, sensitive_features=GROUPS, sample_weight=w)
    close = dict(rel=1e-12, abs=1e-12)
    assert frame.overall["auc"] == pytest.approx(brute(SCORES, Y, GROUPS, w, "auc"), **close)
    table = frame.by_group
    assert table.index.tolist() == LABELS and table.index.name == "group"
    assert table.columns.tolist() == ["n", "positives", "auc", "prf"]
    for g in LABELS:
        assert table.loc[g, "n"] == (GROUPS == g).sum()
        assert table.loc[g, "positives"] == Y[GROUPS == g].sum()
        assert table.loc[g, "auc"] == pytest.approx(brute(SCORES, Y, GROUPS, w, "xauc", g, g),
                                                    **close)
        assert table.loc[g, "prf"] == pytest.approx(brute(SCORES, Y, GROUPS, w, "prf", g),
                                                    **close)
    pairs = frame.by_pair
    assert pairs.index.tolist() == PAIRS
    assert pairs.index.names == ["group_a", "group_b"]
    assert pairs.columns.tolist() == ["xauc_ab", "xauc_ba", "auc", "xauc", "prf", "urf"]
    ones = np.ones(N)
    for a, b in PAIRS:
        row = pairs.loc[(a, b)]
        assert row["xauc_ab"] == pytest.approx(brute(SCORES, Y, GROUPS, w, "xauc", a, b),
                                               **close)
        assert row["xauc_ba"] == pytest.approx(brute(SCORES, Y, GROUPS, w, "xauc", b, a),
                                               **close)
        assert row["auc"] == pytest.approx(abs(table.loc[a, "auc"] - table.loc[b, "auc"]),
                                           **close)
        for m in ("xauc", "prf", "urf"):
            assert row[m] == pytest.approx(
                weighted_delta(SCORES, Y, GROUPS, ones if w is None else w, m, a, b), **close)


@pytest.mark.parametrize("weighted", [False, True])
def test_difference_is_metrics_disparity(weighted):
    w = WEIGHTS if weighted else None
    frame = RankingMetricFrame(Y, SCORES, sensitive_features=GROUPS, sample_weight=w)
    difference = frame.difference()
    assert difference.index.tolist() == ["auc", "xauc", "prf", "urf"]
    for m in ("xauc", "prf", "urf"):  # the very same float
        assert difference[m] == metrics.disparity(SCORES, Y, GROUPS, m, sample_weight=w)
    within = [brute(SCORES, Y, GROUPS, w, "xauc", g, g) for g in LABELS]
    assert difference["auc"] == pytest.approx(max(within) - min(within), abs=1e-12)


def test_a_subset_of_metrics_and_named_groups():
    race = pd.Series(np.where(GROUPS == "x", "white", "non-white"), name="race")
    frame = RankingMetricFrame(Y, SCORES, sensitive_features=race, metrics=["xauc"])
    assert frame.metrics == ("xauc",)
    assert frame.by_group.columns.tolist() == ["n", "positives"]
    assert frame.by_group.index.name == "race"
    assert frame.by_pair.columns.tolist() == ["xauc_ab", "xauc_ba", "xauc"]
    assert frame.difference().to_dict() == {"xauc": metrics.disparity(SCORES, Y, race)}
    got = frame.intervals(n_bootstrap=50, random_state=0)
    assert got["by_group"].shape == (2, 0) and got["difference"].index.tolist() == ["xauc"]
    assert got["by_pair"].columns.get_level_values(0).unique().tolist() == [
        "xauc_ab", "xauc_ba", "xauc"]
    both = pd.DataFrame({"race": race, "sex": np.where(RNG.random(N) < 0.5, "f", "m")})
    frame = RankingMetricFrame(Y, SCORES, sensitive_features=both, metrics="prf")
    assert frame.by_group.index.name == "race & sex"
    assert frame.by_group.index.tolist() == ["non-white & f", "non-white & m",
                                             "white & f", "white & m"]
    assert frame.difference()["prf"] == metrics.disparity(SCORES, Y, both, "prf")
    for bad in ([], ["auc", "ndcg"], 3):
        with pytest.raises(ValueError, match=re.escape(MSG_METRICS.format(
                choices=("auc", "xauc", "prf", "urf"), value=bad))):
            RankingMetricFrame(Y, SCORES, sensitive_features=GROUPS, metrics=bad)


def test_undefined_values_are_nan():
    """A group without negatives leaves its AUC and the xAUC Deltas of its pairs
    undefined; the other pairs keep theirs."""
    y = Y.copy()
    y[GROUPS == "z"] = 1
    frame = RankingMetricFrame(y, SCORES, sensitive_features=GROUPS)
    assert np.isnan(frame.by_group.loc["z", "auc"])
    assert frame.by_group.loc["z", "prf"] == pytest.approx(
        pair_frac(SCORES[GROUPS == "z"], SCORES[y == 0]), abs=1e-12)
    assert np.isnan(frame.by_pair.loc[[("x", "z"), ("y", "z")], "xauc"]).all()
    x, yy = GROUPS == "x", GROUPS == "y"
    assert frame.by_pair.loc[("x", "y"), "xauc"] == pytest.approx(abs(
        pair_frac(SCORES[x & (y == 1)], SCORES[yy & (y == 0)])
        - pair_frac(SCORES[yy & (y == 1)], SCORES[x & (y == 0)])), abs=1e-12)
    assert np.isnan(frame.by_pair.loc[("x", "z"), "xauc_ab"])  # z has no negatives
    assert frame.by_pair.loc[("x", "z"), "xauc_ba"] == pytest.approx(
        pair_frac(SCORES[GROUPS == "z"], SCORES[(GROUPS == "x") & (y == 0)]), abs=1e-12)
    difference = frame.difference()
    assert np.isnan(difference["xauc"]) and np.isnan(difference["auc"])
    assert difference["prf"] == metrics.disparity(SCORES, y, GROUPS, "prf")
    with pytest.raises(ValueError, match="group 'z' has no negatives"):
        metrics.disparity(SCORES, y, GROUPS)


def test_intervals_are_those_of_confidence_intervals():
    frame = RankingMetricFrame(Y, SCORES, sensitive_features=GROUPS)
    got = frame.intervals(n_bootstrap=300, random_state=4)
    ci = metrics.confidence_intervals(SCORES, Y, GROUPS, n_bootstrap=300, random_state=4)
    assert list(got) == ["overall", "by_group", "by_pair", "difference"]
    assert tuple(got["overall"].loc["auc"]) == tuple(ci.auc)
    for g in LABELS:
        assert tuple(got["by_group"].loc[g, "auc"]) == tuple(ci.auc_within[g])
        assert tuple(got["by_group"].loc[g, "prf"]) == tuple(ci.prf[g])
    for a, b in PAIRS:
        row = got["by_pair"].loc[(a, b)]
        assert tuple(row["xauc_ab"]) == tuple(ci.xauc[a, b])
        assert tuple(row["xauc_ba"]) == tuple(ci.xauc[b, a])
        for m in ("xauc", "prf", "urf"):
            assert tuple(row[m]) == tuple(ci.disparity_pairs[m][a, b])
        # the gap between within-group AUCs: its value, no interval
        assert row["auc"]["estimate"] == frame.by_pair.loc[(a, b), "auc"]
        assert np.isnan(row["auc"][["low", "high"]]).all()
    for m in ("xauc", "prf", "urf"):
        assert tuple(got["difference"].loc[m]) == tuple(ci.disparity[m])
        assert got["difference"].loc[m, "estimate"] == pytest.approx(frame.difference()[m],
                                                                     abs=1e-12)
    delong = frame.intervals(method="delong")
    assert tuple(delong["difference"].loc["xauc"]) == tuple(
        metrics.confidence_intervals(SCORES, Y, GROUPS, method="delong").disparity["xauc"])
    weighted = RankingMetricFrame(Y, SCORES, sensitive_features=GROUPS, sample_weight=WEIGHTS)
    with pytest.raises(ValueError, match=MSG_WEIGHTED_INTERVALS):
        weighted.intervals()


def test_needs_pandas(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now fails
    with pytest.raises(ImportError, match=r"RankingMetricFrame needs pandas: pip install"):
        RankingMetricFrame(Y, SCORES, sensitive_features=GROUPS)
