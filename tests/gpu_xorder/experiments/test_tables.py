"""The statistics of ``tables.md``: Student's t without SciPy, the corrected resampled t
interval (Nadeau and Bengio 2003) and AUC at matched disparity, against printed tables,
numerical integration and values worked by hand."""

import dataclasses
import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_xorder.experiments._matched import (
    corrected_interval,
    matched_auc,
    matched_outcomes,
    matched_paired_table,
    matched_repetitions,
    t_cdf,
    t_quantile,
)
from gpu_xorder.experiments._studies import Comparison
from support.properties import examples

# two-sided 95% critical values of Student's t, as printed in the usual tables
T975 = {1: 12.7062, 2: 4.3027, 3: 3.1824, 4: 2.7764, 5: 2.5706, 9: 2.2622, 10: 2.2281,
        20: 2.0860, 30: 2.0423}


@pytest.mark.parametrize("df", sorted(T975))
def test_t_quantile_matches_the_printed_table(df):
    assert t_quantile(0.975, df) == pytest.approx(T975[df], abs=6e-5)
    assert t_quantile(0.025, df) == pytest.approx(-T975[df], abs=6e-5)


def _t_cdf_by_integration(t, df, n=20001):
    """Simpson's rule on the density from 0 to t, plus one half."""
    x = np.linspace(0.0, t, n)
    c = math.gamma((df + 1) / 2) / (math.sqrt(df * math.pi) * math.gamma(df / 2))
    f = c * (1 + x * x / df) ** (-(df + 1) / 2)
    h = (x[1] - x[0])
    return 0.5 + h / 3 * (f[0] + f[-1] + 4 * f[1:-1:2].sum() + 2 * f[2:-1:2].sum())


@settings(max_examples=examples(40))
@given(t=st.floats(-8, 8), df=st.integers(1, 40))
def test_t_cdf_equals_the_integral_of_the_density(t, df):
    assert t_cdf(t, df) == pytest.approx(_t_cdf_by_integration(t, df), abs=1e-9)


def test_corrected_interval_by_hand():
    d = [0.1, 0.3, 0.2, 0.4]  # mean 0.25, sample variance 0.05 / 3
    mean, lo, hi = corrected_interval(d, test_share=0.3)
    half = 3.18245 * math.sqrt((1 / 4 + 0.3 / 0.7) * 0.05 / 3)  # t_3, 1/J + test/train
    assert mean == pytest.approx(0.25)
    assert (lo, hi) == pytest.approx((0.25 - half, 0.25 + half), abs=1e-5)
    # the correction widens the plain t interval (sd / sqrt(J)) by sqrt(1 + J*test/train)
    plain = 3.18245 * math.sqrt(0.05 / 3 / 4)
    assert (hi - mean) / plain == pytest.approx(math.sqrt(1 + 4 * 0.3 / 0.7), rel=1e-5)


def test_corrected_interval_ten_splits_of_the_paper():
    """Ten 70/30 splits: half-width = t_9 * sqrt(1/10 + 3/7) * sd = 1.6447 sd, so a mean
    difference of 1 sd (plain t: excludes 0, 0.715 sd) is within noise."""
    d = np.array([1.0, -1.0] * 5) + 0.3
    sd = d.std(ddof=1)
    mean, lo, hi = corrected_interval(d, 0.3)
    assert (hi - mean) / sd == pytest.approx(2.26216 * math.sqrt(0.1 + 3 / 7), rel=1e-5)
    assert lo < 0 < hi


@pytest.mark.parametrize("bad", [dict(differences=[1.0]), dict(differences=[1.0, np.nan]),
                                 dict(test_share=0.0), dict(test_share=1.0),
                                 dict(level=1.0)])
def test_corrected_interval_refuses_bad_input(bad):
    args = dict(differences=[1.0, 2.0], test_share=0.3) | bad
    with pytest.raises(ValueError):
        corrected_interval(**args)
    with pytest.raises(ValueError, match="df must be"):
        t_cdf(1.0, 0)
    with pytest.raises(ValueError, match="p must"):
        t_quantile(1.0, 3)


def test_matched_auc_by_hand():
    a = [(0.02, 0.70), (0.10, 0.78), (0.30, 0.80)]
    b = [(0.05, 0.72), (0.20, 0.76), (0.20, 0.74), (0.40, 0.79)]  # ties averaged: 0.75
    at, diff = matched_auc(a, b)
    assert at.tolist() == [0.05, 0.10, 0.20, 0.30]
    # a at 0.05: 0.70 + 0.08 * 3/8 = 0.73; at 0.20: 0.79; b at 0.10: 0.72 + 0.03 / 3 = 0.73;
    # b at 0.30: 0.75 + 0.04 / 2 = 0.77
    assert diff == pytest.approx([0.73 - 0.72, 0.78 - 0.73, 0.79 - 0.75, 0.80 - 0.77])


def test_matched_auc_of_curves_without_common_range_is_empty():
    at, diff = matched_auc([(0.0, 0.8), (0.1, 0.9)], [(0.2, 0.8), (0.3, 0.9)])
    assert at.size == diff.size == 0
    at, diff = matched_auc([(0.0, 0.8), (0.1, 0.9)], [(0.05, 0.83)])  # one point
    assert at.tolist() == [0.05] and diff == pytest.approx([0.85 - 0.83])


def _record(method, parameter, repeat, xauc, auc):
    return {"method": method, "parameter": parameter, "setting": None, "repeat": repeat,
            "split": "test", "auc": auc, "xauc": xauc, "prf": None, "urf": None,
            "xauc_pairs": {}}


def _interpolated(points, x):
    """AUC of a curve at disparity ``x`` by the segment that holds it (None outside)."""
    points = sorted(points)
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        if x0 <= x <= x1:
            return y0 if x1 == x0 else y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return None


def test_matched_repetitions_by_hand():
    """Per repetition xOrder's curve (its lams and the unadjusted point) against the
    public post-logit's one point: xOrder's AUC interpolated at that point's disparity
    minus its AUC; a repetition whose point lies outside xOrder's curve is left out; the
    table's interval is the corrected one of those differences."""
    rng = np.random.default_rng(3)
    records, expected = [], {}
    for repeat in range(6):
        du, au = 0.2 + 0.02 * rng.random(), 0.80
        d1, a1 = 0.08 * rng.random(), 0.80 - 0.01 * rng.random()
        d2, a2 = 0.04 * rng.random(), 0.78 + 0.01 * rng.random()
        # the public point inside xOrder's range but in repetition 5, below it
        dp = (-0.01 if repeat == 5 else min(d1, d2) + 0.01 * rng.random())
        ap = 0.77 + 0.02 * rng.random()
        records += [_record("unadjusted", None, repeat, du, au),
                    _record("xorder", 0.1, repeat, d1, a1),
                    _record("xorder", 0.5, repeat, d2, a2),
                    _record("post-logit-public", None, repeat, dp, ap)]
        at = _interpolated([(du, au), (d1, a1), (d2, a2)], dp)
        if at is not None:
            expected[repeat] = at - ap
    c = Comparison(data="toy", groups="default", metric="xauc", model="lr",
                   methods=("unadjusted", "xorder", "post-logit-public"), study=None,
                   repeats=6, test_size=0.3, seed=0, group_labels=("a", "b"),
                   records=tuple(records), seconds={})
    got = matched_repetitions(c)
    assert sorted(got) == ["post-logit-public"] and sorted(got["post-logit-public"]) == [
        0, 1, 2, 3, 4]
    assert got["post-logit-public"] == pytest.approx(expected)
    mean, lo, hi = corrected_interval(list(expected.values()), 0.3)
    # repetition 5: the public point below xOrder's lowest disparity, counted against
    # xOrder as a loss as large as the largest |difference| where the curves meet
    assert matched_outcomes(c)["post-logit-public"][5] == (None, "xorder")
    worst = max(abs(x) for x in expected.values())
    every = [*expected.values(), -worst]
    m2, lo2, hi2 = corrected_interval(every, 0.3)
    wins = sum(x > 0 for x in every)
    (line,) = [x for x in matched_paired_table(c).splitlines() if "post-logit-public" in x]
    assert line == (f"| toy | post-logit-public | 5 of 6 | {mean:+.4f} [{lo:+.4f}, "
                    f"{hi:+.4f}] | {'yes' if lo > 0 or hi < 0 else 'no'} | 5 (xorder) | "
                    f"{m2:+.4f} [{lo2:+.4f}, {hi2:+.4f}] | "
                    f"{'yes' if lo2 > 0 or hi2 < 0 else 'no'} | {wins} of 6 |")
    # the records.json document gives the same comparison
    assert Comparison.from_dict(c.to_dict()) == c
    # group labels that are codes read back as codes (NumPy's ints as Python's), so a
    # figure redrawn from records.json finds its bands' names
    for labels in ((0, 1), (np.int64(3), np.int64(7)), ("a", "b"), (0.5, 1.5)):
        coded = dataclasses.replace(c, group_labels=labels)
        back = Comparison.from_dict(json.loads(json.dumps(coded.to_dict())))
        assert back.group_labels == labels
        assert [type(g) for g in back.group_labels] == [
            type(g.item() if isinstance(g, np.generic) else g) for g in labels]


def test_matched_outcomes_name_the_side_that_cannot_reach():
    """Curves that share no disparity: the method whose lowest disparity lies above the
    other's whole curve is the one that could not reach it, on either side."""
    records = []
    for repeat, dp in enumerate((0.001, 0.5)):  # below xOrder's curve, then above it
        records += [_record("unadjusted", None, repeat, 0.2, 0.80),
                    _record("xorder", 0.5, repeat, 0.05, 0.79),
                    _record("post-logit-public", None, repeat, dp, 0.78)]
    c = Comparison(data="toy", groups="default", metric="xauc", model="lr",
                   methods=("unadjusted", "xorder", "post-logit-public"), study=None,
                   repeats=2, test_size=0.3, seed=0, group_labels=("a", "b"),
                   records=tuple(records), seconds={})
    assert matched_outcomes(c) == {"post-logit-public": {0: (None, "xorder"),
                                                         1: (None, "other")}}
    assert matched_repetitions(c) == {}
    (line,) = [x for x in matched_paired_table(c).splitlines() if "post-logit-public" in x]
    assert "| 0 of 2 | n/a |  | 0 (xorder); 1 (post-logit-public) | n/a |  | n/a |" in line


def test_merged_one_repetition_runs_are_the_run_of_all():
    """Runs of seed 0, 1 and 2 with one repetition each, merged: the records, notes,
    tables and paired intervals of one run of seed 0 with three repetitions; runs
    that differ in more than the seed, or leave a seed out, are refused."""
    from gpu_xorder.experiments._comparison import merge_repetitions
    from gpu_xorder.experiments._studies import compare_methods
    from gpu_xorder.experiments._tables import markdown

    kwargs = dict(methods=["xorder", "post-logit-public"], lams=[0.1, 0.5],
                  backend="numpy")
    whole = compare_methods("german", repeats=3, **kwargs)
    parts = [compare_methods("german", repeats=1, seed=s, **kwargs) for s in (2, 0, 1)]
    merged = merge_repetitions(parts)
    assert merged.to_dict() == whole.to_dict()
    assert [len(v) for v in merged.seconds.values()] == [3, 3, 3]

    def without_timing(text):
        return [line for line in text.splitlines() if not line.startswith("Seconds")]

    assert without_timing(markdown([merged])) == without_timing(markdown([whole]))
    with pytest.raises(ValueError, match="seeds 0 to 1 once each"):
        merge_repetitions([parts[1], parts[0]])
    other = compare_methods("german", repeats=1, seed=1, methods=["xorder"], lams=[0.5],
                            backend="numpy")
    with pytest.raises(ValueError, match="differ in methods"):
        merge_repetitions([parts[1], other])
    other = compare_methods("german", repeats=1, seed=1, **{**kwargs, "lams": [0.5]})
    with pytest.raises(ValueError, match="differ in parameters or settings"):
        merge_repetitions([parts[1], other])
