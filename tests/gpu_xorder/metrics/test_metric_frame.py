"""RankingMetricFrame: every number against the metric functions (difference() is
metrics.disparity, to the bit) and against O(n^2) pair definitions on small data,
weighted and not; its intervals against metrics.confidence_intervals."""

import itertools
import math
import re
import sys
from statistics import NormalDist

import numpy as np
import pytest

from gpu_xorder import metrics
from gpu_xorder.metrics import RankingMetricFrame
from gpu_xorder.metrics._frame_tables import (
    DECISION_COLUMNS,
    MSG_METRICS,
    MSG_WEIGHTED_INTERVALS,
)
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
        assert difference[m] == metrics.disparity(Y, SCORES, sensitive_features=GROUPS,
                                                  metric=m, sample_weight=w)
    within = [brute(SCORES, Y, GROUPS, w, "xauc", g, g) for g in LABELS]
    assert difference["auc"] == pytest.approx(max(within) - min(within), abs=1e-12)


def test_a_subset_of_metrics_and_named_groups():
    race = pd.Series(np.where(GROUPS == "x", "white", "non-white"), name="race")
    frame = RankingMetricFrame(Y, SCORES, sensitive_features=race, metrics=["xauc"])
    assert frame.metrics == ("xauc",)
    assert frame.by_group.columns.tolist() == ["n", "positives"]
    assert frame.by_group.index.name == "race"
    assert frame.by_pair.columns.tolist() == ["xauc_ab", "xauc_ba", "xauc"]
    assert frame.difference().to_dict() == {"xauc": metrics.disparity(Y, SCORES,
                                                                      sensitive_features=race)}
    got = frame.intervals(n_bootstrap=50, random_state=0)
    assert got["by_group"].shape == (2, 0) and got["difference"].index.tolist() == ["xauc"]
    assert got["by_pair"].columns.get_level_values(0).unique().tolist() == [
        "xauc_ab", "xauc_ba", "xauc"]
    both = pd.DataFrame({"race": race, "sex": np.where(RNG.random(N) < 0.5, "f", "m")})
    frame = RankingMetricFrame(Y, SCORES, sensitive_features=both, metrics="prf")
    assert frame.by_group.index.name == "race & sex"
    assert frame.by_group.index.tolist() == ["non-white & f", "non-white & m",
                                             "white & f", "white & m"]
    assert frame.difference()["prf"] == metrics.disparity(Y, SCORES, sensitive_features=both,
                                                          metric="prf")
    for bad in ([], ["auc", "ndcg"], 3, [3], {"f": 3}):
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
    assert difference["prf"] == metrics.disparity(y, SCORES, sensitive_features=GROUPS,
                                                  metric="prf")
    with pytest.raises(ValueError, match="group 'z' has no negatives"):
        metrics.disparity(y, SCORES, sensitive_features=GROUPS)


def test_intervals_are_those_of_confidence_intervals():
    frame = RankingMetricFrame(Y, SCORES, sensitive_features=GROUPS)
    got = frame.intervals(n_bootstrap=300, random_state=4)
    ci = metrics.confidence_intervals(Y, SCORES, sensitive_features=GROUPS, n_bootstrap=300,
                                      random_state=4)
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
        # the gap between within-group AUCs has an interval too
        assert row["auc"]["estimate"] == pytest.approx(frame.by_pair.loc[(a, b), "auc"],
                                                       abs=1e-12)
        assert 0 <= row["auc"]["low"] <= row["auc"]["estimate"] <= row["auc"]["high"] <= 1
    for m in ("xauc", "prf", "urf"):
        assert tuple(got["difference"].loc[m]) == tuple(ci.disparity[m])
        assert got["difference"].loc[m, "estimate"] == pytest.approx(frame.difference()[m],
                                                                     abs=1e-12)
    gap = got["difference"].loc["auc"]
    assert gap["estimate"] == pytest.approx(frame.difference()["auc"], abs=1e-12)
    assert 0 <= gap["low"] <= gap["estimate"] <= gap["high"] <= 1
    delong = frame.intervals(method="delong")
    # DeLong: the within-group AUCs share no item, so the gap's variance is the sum
    z = NormalDist().inv_cdf(0.975)
    for a, b in PAIRS:
        d = frame.by_group.loc[a, "auc"] - frame.by_group.loc[b, "auc"]
        half = z * math.sqrt(metrics.xauc_variance(Y, SCORES, sensitive_features=GROUPS, g=a,
                                                   h=a)
                             + metrics.xauc_variance(Y, SCORES, sensitive_features=GROUPS, g=b,
                                                     h=b))
        lo, hi = max(d - half, -1.0), min(d + half, 1.0)
        want = (0.0 if lo <= 0 <= hi else min(abs(lo), abs(hi)), max(abs(lo), abs(hi)))
        assert tuple(delong["by_pair"].loc[(a, b), "auc"][["low", "high"]]) == \
            pytest.approx(want, abs=1e-12)
    assert tuple(delong["difference"].loc["xauc"]) == tuple(
        metrics.confidence_intervals(Y, SCORES, sensitive_features=GROUPS,
                                     method="delong").disparity["xauc"])
    weighted = RankingMetricFrame(Y, SCORES, sensitive_features=GROUPS, sample_weight=WEIGHTS)
    with pytest.raises(ValueError, match=MSG_WEIGHTED_INTERVALS):
        weighted.intervals()


def test_needs_pandas(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now fails
    with pytest.raises(ImportError, match=r"RankingMetricFrame needs pandas: pip install"):
        RankingMetricFrame(Y, SCORES, sensitive_features=GROUPS)


def average_precision(y, s, sample_weight=None):
    """A metric of fairlearn's kind, f(y_true, y_score), written out: the mean over
    positives of the share of positives among the items scoring at least as high."""
    y, s = np.asarray(y), np.asarray(s)
    w = np.ones(y.size) if sample_weight is None else np.asarray(sample_weight)
    if y.sum() == 0:
        raise ValueError("no positives")
    total = 0.0
    for i in np.flatnonzero(y == 1):
        above = s >= s[i]
        total += w[i] * (w[above] * y[above]).sum() / w[above].sum()
    return total / w[y == 1].sum()


@pytest.mark.parametrize("weighted", [False, True])
def test_callable_metrics_ratio_and_group_extremes(weighted):
    w = WEIGHTS if weighted else None
    # a callable is named by its __name__ or its key in a dict
    assert RankingMetricFrame(Y, SCORES, sensitive_features=GROUPS,
                              metrics=["auc", average_precision]).metrics == (
        "auc", "average_precision")
    frame = RankingMetricFrame(Y, SCORES, sensitive_features=GROUPS, sample_weight=w,
                               metrics={"auc": "auc", "xauc": "xauc", "prf": "prf",
                                        "ap": average_precision,
                                        "mean": lambda yy, ss, **kw: float(np.mean(ss))})
    assert frame.metrics == ("auc", "xauc", "prf", "ap", "mean")
    table = frame.by_group
    assert table.columns.tolist() == ["n", "positives", "auc", "prf", "ap", "mean"]
    ap = {g: average_precision(Y[GROUPS == g], SCORES[GROUPS == g],
                               None if w is None else w[GROUPS == g]) for g in LABELS}
    for g in LABELS:
        assert table.loc[g, "ap"] == pytest.approx(ap[g], abs=1e-12)
        assert table.loc[g, "mean"] == pytest.approx(SCORES[GROUPS == g].mean())
    assert frame.overall["ap"] == pytest.approx(average_precision(Y, SCORES, w), abs=1e-12)
    within = {g: table.loc[g, "auc"] for g in LABELS}
    prf = {g: table.loc[g, "prf"] for g in LABELS}
    # fairlearn's semantics: between_groups max - min and min / max, to_overall
    # against the overall value; group_min and group_max over the groups
    diff, ratio = frame.difference(), frame.ratio()
    assert diff["ap"] == pytest.approx(max(ap.values()) - min(ap.values()))
    assert ratio["ap"] == pytest.approx(min(ap.values()) / max(ap.values()))
    assert ratio["auc"] == pytest.approx(min(within.values()) / max(within.values()))
    assert ratio["prf"] == pytest.approx(min(prf.values()) / max(prf.values()))
    xr = [min(frame.by_pair.loc[p, "xauc_ab"], frame.by_pair.loc[p, "xauc_ba"])
          / max(frame.by_pair.loc[p, "xauc_ab"], frame.by_pair.loc[p, "xauc_ba"])
          for p in PAIRS]
    assert ratio["xauc"] == pytest.approx(min(xr))
    assert frame.difference("between_groups").equals(diff)
    to = frame.difference(method="to_overall")
    assert to["ap"] == pytest.approx(max(abs(v - frame.overall["ap"]) for v in ap.values()))
    assert to["prf"] == pytest.approx(max(abs(v - frame.overall["auc"])
                                          for v in prf.values()))
    assert np.isnan(to["xauc"])
    rto = frame.ratio(method="to_overall")
    assert rto["auc"] == pytest.approx(min(min(v / frame.overall["auc"],
                                               frame.overall["auc"] / v)
                                           for v in within.values()))
    assert np.isnan(rto["xauc"])
    assert frame.group_min().to_dict() == pytest.approx(
        {"auc": min(within.values()), "prf": min(prf.values()), "ap": min(ap.values()),
         "mean": min(SCORES[GROUPS == g].mean() for g in LABELS)})
    assert frame.group_max()["ap"] == pytest.approx(max(ap.values()))
    with pytest.raises(ValueError, match="unknown method 'largest'"):
        frame.difference(method="largest")
    with pytest.raises(ValueError, match="unknown method"):
        frame.ratio(method="pairs")


def test_callable_metric_undefined_in_a_group_and_bad_names():
    y = Y.copy()
    y[GROUPS == "z"] = 0
    frame = RankingMetricFrame(y, SCORES, sensitive_features=GROUPS,
                               metrics=[average_precision])
    assert np.isnan(frame.by_group.loc["z", "average_precision"])
    assert np.isnan(frame.difference()["average_precision"])
    for bad in ([average_precision, average_precision], {"auc": average_precision},
                {"n": average_precision}):
        with pytest.raises(ValueError, match="metric name .* is taken"):
            RankingMetricFrame(Y, SCORES, sensitive_features=GROUPS, metrics=bad)


def same(row, interval):
    """The table's three numbers are the interval's (NaN where it is None or NaN)."""
    want = (math.nan,) * 3 if interval is None else tuple(interval)
    np.testing.assert_array_equal(np.asarray(row, dtype=float), np.asarray(want, float))


def test_decisions_are_decision_rates_in_one_flat_table():
    frame = RankingMetricFrame(Y, SCORES, sensitive_features=GROUPS)
    table = frame.decisions(top_k=20, level=0.9)
    d = metrics.decision_rates(Y, SCORES, sensitive_features=GROUPS, top_k=20, level=0.9)
    assert table.columns.tolist() == list(DECISION_COLUMNS)  # one level: flat
    assert table.index.names == ["part", "group"]
    assert table.index.tolist() == [("group", g) for g in LABELS] + [
        ("overall", ""), ("difference", ""), ("ratio", "")]
    by_group = table.loc["group"]
    assert by_group.index.tolist() == LABELS
    for g in LABELS:
        for key in ("n", "positives", "selected"):
            assert by_group.loc[g, key] == d.counts[g][key]
        for rate in ("selection_rate", "tpr", "fpr", "precision"):
            same(by_group.loc[g, [rate, f"{rate}_low", f"{rate}_high"]],
                 d.by_group[rate][g])
    for part in ("overall", "difference", "ratio"):
        for rate in ("selection_rate", "tpr", "fpr", "precision"):
            same(table.loc[(part, ""), [rate, f"{rate}_low", f"{rate}_high"]],
                 getattr(d, part)[rate])
    assert table.loc[("overall", ""), "n"] == N
    assert table.loc[("overall", ""), "positives"] == Y.sum()
    assert by_group["selected"].sum() == pytest.approx(20)
    assert table.loc[("overall", ""), "selected"] == pytest.approx(20)
    assert table.loc[["difference", "ratio"], "n"].isna().all()
    weighted = RankingMetricFrame(Y, SCORES, sensitive_features=GROUPS, sample_weight=WEIGHTS)
    with pytest.raises(ValueError, match="decision rates of weighted items"):
        weighted.decisions(threshold=0.5)


def test_overall_intervals_of_a_callable_are_not_the_auc_s():
    """Regression (issue 42): the one AUC interval was given to every row of
    intervals()["overall"], a callable's value and interval replaced by the AUC's."""
    from sklearn.metrics import average_precision_score

    for chosen in (["auc", average_precision_score], [average_precision_score, "prf"]):
        frame = RankingMetricFrame(Y, SCORES, sensitive_features=GROUPS, metrics=chosen)
        got = frame.intervals(method="delong")["overall"]
        ci = metrics.confidence_intervals(Y, SCORES, sensitive_features=GROUPS,
                                          method="delong")
        assert got.index.tolist() == ["auc", "average_precision_score"]
        assert tuple(got.loc["auc"]) == tuple(ci.auc)
        row = got.loc["average_precision_score"]
        assert row["estimate"] == average_precision_score(Y, SCORES)
        assert row["estimate"] != ci.auc.estimate
        assert math.isnan(row["low"]) and math.isnan(row["high"])


def test_the_frame_draws_its_intervals():
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from gpu_xorder.plotting import plot_intervals

    def ticks(ax):
        return [tick.get_text() for tick in ax.get_yticklabels()]

    frame = RankingMetricFrame(Y, SCORES, sensitive_features=GROUPS,
                               metrics={"auc": "auc", "prf": "prf",
                                        "share": lambda y, s: float(np.mean(y))})
    ax = frame.plot(method="delong", ax=Figure().add_subplot())
    assert ticks(ax) == (["AUC"] + [f"AUC within {g}" for g in LABELS]
                         + [f"PRF({g})" for g in LABELS])
    ci = metrics.confidence_intervals(Y, SCORES, sensitive_features=GROUPS, method="delong")
    # each marker sits at its interval's estimate, its bar spans the interval
    drawn = [c for c in ax.containers]
    wanted = [ci.auc] + [ci.auc_within[g] for g in LABELS] + [ci.prf[g] for g in LABELS]
    assert len(drawn) == len(wanted)
    for container, iv in zip(drawn, wanted):
        x = container.lines[0].get_xdata()[0]
        assert x == pytest.approx(iv.estimate, abs=1e-12)
        (segment,) = container.lines[2][0].get_segments()
        assert sorted(segment[:, 0]) == pytest.approx([iv.low, iv.high], abs=1e-12)
    # plot_intervals(frame) draws the same rows (its intervals at the defaults)
    ax = plot_intervals(frame, ax=Figure().add_subplot())
    assert ticks(ax)[:2] == ["AUC", "AUC within x"]
    ax = plot_intervals(frame, part="disparities", ax=Figure().add_subplot())
    assert ticks(ax) == ["Delta-PRF(x, y)", "Delta-PRF(x, z)", "Delta-PRF(y, z)",
                         "Delta-PRF (largest)"]
    both = plot_intervals({"a": frame, "b": ci}, metrics=["xauc"],
                          ax=Figure().add_subplot())
    assert len(ticks(both)) == 6  # xAUC of the six ordered pairs
    weighted = RankingMetricFrame(Y, SCORES, sensitive_features=GROUPS, sample_weight=WEIGHTS)
    with pytest.raises(ValueError, match=MSG_WEIGHTED_INTERVALS):
        weighted.plot()
    with pytest.raises(ValueError, match="no interval of part='metrics'"):
        plot_intervals(ci, metrics=["urf"])
