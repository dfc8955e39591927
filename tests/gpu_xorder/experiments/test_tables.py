"""The statistics of ``tables.md``: Student's t without SciPy, the corrected resampled t
interval (Nadeau and Bengio 2003) and AUC at matched disparity, against printed tables,
numerical integration and values worked by hand."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_xorder.experiments._tables import (
    corrected_interval,
    matched_auc,
    t_cdf,
    t_quantile,
)
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
