"""Properties of the weighted metrics, and of the real number types of the parameters.

- Integer weights are repetitions: every weighted metric (AUC, xAUC, PRF, URF, the
  disparities of every pair and their maximum, the scorer, ``RankingMetricFrame``'s
  tables) with weight ``w_i`` equals the unweighted O(n^2) definition
  (``support.oracles``) on the data with item i repeated ``w_i`` times.
- A uniform factor ``10**k``, k in [-300, 300], on every weight changes none of them
  (to rounding; a power of two not at all).
- Every real number type of ``lam`` and ``max_disparity`` gives the result of the float
  of the same value.

(The confidence intervals take no weights: ``RankingMetricFrame.intervals`` refuses a
weighted frame.)
"""

import decimal
import fractions

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gpu_xorder import XOrder, fair_order, fairness_scorer, metrics
from support.oracles import pair_frac, pair_term
from support.properties import examples

ATOL = 1e-12
#: Exponents of the uniform factor 10**k of the weights.
EXPONENTS = st.integers(-300, 300)


@st.composite
def weighted_data(draw, max_extra=8):
    """``(scores, y, groups, weights)``: 2 or 3 groups, each with a positive and a
    negative, tied scores, integer weights 1..4."""
    k = draw(st.integers(2, 3))
    extra = draw(st.integers(0, max_extra))
    groups = list(range(k)) * 2 + draw(st.lists(st.integers(0, k - 1), min_size=extra,
                                                max_size=extra))
    y = [1] * k + [0] * k + draw(st.lists(st.integers(0, 1), min_size=extra,
                                          max_size=extra))
    n = len(y)
    scores = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    weights = draw(st.lists(st.integers(1, 4), min_size=n, max_size=n))
    return (np.array(scores, dtype=np.float64), np.array(y), np.array(groups),
            np.array(weights, dtype=np.float64))


def repeated(s, y, g, w):
    """The data with item i repeated ``w_i`` times (integer weights)."""
    rep = np.repeat(np.arange(s.size), w.astype(np.int64))
    return s[rep], y[rep], g[rep]


def library(s, y, g, w):
    """Every weighted metric of the library, in one flat array."""
    labels = np.unique(g).tolist()
    out = [metrics.auc(y, s, sample_weight=w)]
    out += [metrics.xauc(y, s, sensitive_features=g, g=a, h=b,
                         sample_weight=w) for a in labels for b in labels]
    out += [metrics.prf(y, s, sensitive_features=g, g=a, sample_weight=w) for a in labels]
    out += [metrics.urf(None, s, sensitive_features=g, g=a, h=b,
                        sample_weight=w) for a in labels for b in labels
            if a < b]
    for m in ("xauc", "prf", "urf"):
        pairs = metrics.disparity_pairs(y, s, sensitive_features=g, metric=m, sample_weight=w)
        out += [pairs[a, b] for a in labels for b in labels if a < b]
        out.append(metrics.disparity(y, s, sensitive_features=g, metric=m,
                                     sample_weight=w))
    return np.array(out)


def oracle(s, y, g):
    """``library``'s values by the unweighted pair definitions."""
    labels = np.unique(g).tolist()
    pos, neg = y == 1, y == 0
    out = [pair_frac(s[pos], s[neg])]
    out += [pair_frac(s[pos & (g == a)], s[neg & (g == b)]) for a in labels for b in labels]
    out += [pair_frac(s[pos & (g == a)], s[neg]) for a in labels]
    out += [abs(pair_frac(s[g == a], s[g == b]) - pair_frac(s[g == b], s[g == a]))
            for a in labels for b in labels if a < b]
    for m in ("xauc", "prf", "urf"):
        pairs = [abs(pair_term(s, y, g == a, g == b, m)) for a in labels for b in labels
                 if a < b]
        out += pairs + [max(pairs)]
    return np.array(out)


@settings(max_examples=examples(60), deadline=None)
@given(data=weighted_data(), k=EXPONENTS)
def test_integer_weights_are_repetitions_at_every_scale(data, k):
    s, y, g, w = data
    want = oracle(*repeated(s, y, g, w))
    np.testing.assert_allclose(library(s, y, g, w), want, rtol=0, atol=ATOL)
    np.testing.assert_allclose(library(s, y, g, w * 10.0**k), want, rtol=0, atol=ATOL)


@settings(max_examples=examples(30), deadline=None)
@given(data=weighted_data(), j=st.integers(-1070, 1020))
def test_a_power_of_two_on_every_weight_changes_no_metric_at_all(data, j):
    """2**j multiplies every weight exactly (subnormal ones too, for integer weights),
    and the metrics normalise by powers of two: the very same numbers."""
    s, y, g, w = data
    np.testing.assert_array_equal(library(s, y, g, w * 2.0**j), library(s, y, g, w))


class _Scores:
    """A fitted stand-in classifier: its decision function is the first column."""

    def decision_function(self, X):
        return X[:, 0]


@settings(max_examples=examples(40), deadline=None)
@given(data=weighted_data(), k=EXPONENTS, lam=st.sampled_from([0.0, 0.5, 2.0]),
       eps=st.sampled_from([0.05, 0.2]))
def test_the_scorer_weighs_as_repetitions_at_every_scale(data, k, lam, eps):
    s, y, g, w = data
    X = s[:, None]
    s_r, y_r, g_r = repeated(s, y, g, w)
    labels = np.unique(g).tolist()
    auc = pair_frac(s_r[y_r == 1], s_r[y_r == 0])
    d = max(abs(pair_term(s_r, y_r, g_r == a, g_r == b, "xauc")) for a in labels
            for b in labels if a < b)
    scaled = w * 10.0**k
    got = fairness_scorer(lam=lam)(_Scores(), X, y, sensitive_features=g,
                                   sample_weight=scaled)
    assert got == pytest.approx(auc - lam * d, abs=ATOL)
    assume(abs(d - eps) > 1e-9)  # the ceiling's side is clear of rounding
    got = fairness_scorer(max_disparity=eps)(_Scores(), X, y, sensitive_features=g,
                                             sample_weight=scaled)
    assert got == pytest.approx(auc if d <= eps else auc - 1 - (d - eps), abs=ATOL)


@settings(max_examples=examples(8), deadline=None)
@given(data=weighted_data(), k=EXPONENTS)
def test_the_metric_frame_weighs_as_repetitions_at_every_scale(data, k):
    """The metrics of the tables; their columns ``n`` and ``positives`` count items."""
    pytest.importorskip("pandas")
    s, y, g, w = data
    s_r, y_r, g_r = repeated(s, y, g, w)
    weighted = metrics.RankingMetricFrame(y, s, sensitive_features=g,
                                          sample_weight=w * 10.0**k)
    plain = metrics.RankingMetricFrame(y_r, s_r, sensitive_features=g_r)
    for name in ("overall", "by_group", "by_pair"):
        table, want = getattr(weighted, name), getattr(plain, name)
        if name == "by_group":
            table, want = (t.drop(columns=["n", "positives"]) for t in (table, want))
        np.testing.assert_allclose(table.to_numpy(dtype=float), want.to_numpy(dtype=float),
                                   rtol=0, atol=ATOL, err_msg=name)
    labels = np.unique(g).tolist()
    assert weighted.overall["auc"] == pytest.approx(
        pair_frac(s_r[y_r == 1], s_r[y_r == 0]), abs=ATOL)
    assert weighted.by_pair["xauc"].tolist() == pytest.approx(
        [abs(pair_term(s_r, y_r, g_r == a, g_r == b, "xauc")) for a in labels
         for b in labels if a < b], abs=ATOL)


# ---------------------------------------------------------------------- number types

#: Every real number type, from a float: the exact ones keep its value, float32 and
#: float16 round it (compared with the float of the rounded value).
TYPES = {
    "Decimal": decimal.Decimal,
    "Fraction": fractions.Fraction,
    "np.float64": np.float64,
    "np.longdouble": np.longdouble,
    "np.float32": np.float32,
    "np.float16": np.float16,
    "0-d array": np.array,
    "0-d object array": lambda x: np.array(decimal.Decimal(x), dtype=object),
}
S10 = np.array([0.9, 0.8, 0.75, 0.6, 0.55, 0.5, 0.4, 0.3, 0.2, 0.1])
Y10 = np.array([1, 1, 0, 1, 0, 1, 0, 1, 0, 0])
G10 = np.array(["a", "a", "a", "b", "a", "b", "b", "a", "b", "b"])


def _same_as_float(call, make, x):
    value = make(x)
    as_float = float(value)
    assert call(value) == call(as_float)


@settings(max_examples=examples(30), deadline=None)
@given(x=st.floats(0, 1), kind=st.sampled_from(sorted(TYPES)))
def test_every_real_number_type_gives_the_result_of_its_float(x, kind):
    make = TYPES[kind]

    def ordering(**kw):
        r = fair_order(S10, Y10, G10, backend="numpy", **kw)
        return r.order.tolist(), r.objective, r.disparity

    def scored(**kw):
        return fairness_scorer(**kw)(_Scores(), S10[:, None], Y10, sensitive_features=G10)

    _same_as_float(lambda v: ordering(lam=v, solver="paper"), make, x * 4)
    _same_as_float(lambda v: ordering(max_disparity=v), make, x)
    _same_as_float(lambda v: scored(lam=v), make, x * 4)
    _same_as_float(lambda v: scored(max_disparity=v), make, x)
    _same_as_float(lambda v: XOrder(max_disparity=v, backend="numpy").fit(
        S10, Y10, sensitive_features=G10).train_scores_adjusted_.tolist(), make, x)
