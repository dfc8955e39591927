"""Adversarial inputs of the Python API, generated from tables of classes of cases.

The command line's cases are in ``cli/test_adversarial.py``; these are the API's, one
class per table, each crossed with every member of another table:

- every real parameter of every public function, estimator and scorer (``REALS``) x
  every real number type (``NUMBER_TYPES``): the same result, and the same warnings, as
  the float of the same value; every refused type (``REFUSED``) a ``TypeError``, every
  value out of range (NaN and infinities included) a ``ValueError``;
- every count (``COUNTS``) x every integer type (``INTEGER_TYPES``), and the sizes 0
  and below of every generator (``SIZES``);
- every weighted metric, scorer and table (``WEIGHTED``) x weights scaled by ``10**k``
  for k from -300 to 300 (``SCALES``): the same value;
- the exact solver's refusals over a range of memory budgets: never a negative budget;
- every face that takes group labels (``GROUP_FACES``: metrics, intervals, decisions,
  curves, estimators, plots, the report) x every container of labels of every type
  (``LABEL_TYPES``: object arrays and pandas object columns of ints, floats, bools and
  ints with floats, lists of NumPy scalars): the result of the typed NumPy array of
  the same values; booleans mixed with numbers and labels of other types a TypeError;
- every face that takes a share of the items (``SHARE_FACES``: decisions, the frame's,
  the report's cut-off and its default) x shares whose product with n is whole only in
  exact arithmetic (0.28 and 0.56 of 25): exactly those places selected.

The next round of hardening adds its classes here.
"""

import decimal
import fractions
import functools
import math
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

from gpu_xorder import FairRanker, XOrder, fair_order, fairness_scorer, metrics, xorder_path
from gpu_xorder.datasets import icu_age_groups, make_icu

# ---------------------------------------------------------------------- the base data

N = 32


def _base():
    rng = np.random.default_rng(3)
    g = np.array(["a", "b"])[np.arange(N) % 2]
    y = ((np.arange(N) // 2) % 2).astype(np.int64)  # both labels in both groups
    s = np.round(y + 0.8 * (g == "a") + rng.normal(0, 0.7, N), 3)
    return s, y, g


S, Y, G = _base()
X = np.column_stack([S, G == "a"])


@functools.cache
def _prefit():
    """A classifier fitted once (``FairRanker(prefit=True)`` leaves it as it is)."""
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression().fit(X, Y)


def _quiet(call, *args, **kwargs):
    """``(call's result, the messages of the warnings it gave)``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = call(*args, **kwargs)
    return out, [str(w.message) for w in caught]


def _refused(error, call, value, kind):
    """Fail, naming the case ``kind``, unless ``call(value)`` raises ``error``."""
    try:
        _quiet(call, value)
    except error:
        return
    pytest.fail(f"{kind} ({value!r}): no {error.__name__}")


def _plain(value):
    """A result as nested plain values that ``==`` compares (arrays as lists)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return "nan"  # equal to itself
    return value


# ---------------------------------------------------------------------- number types

#: Every real number type, made from a float (the values of ``REALS`` are exact in
#: each, float16 included).
NUMBER_TYPES = {
    "float": float,
    "Decimal": lambda x: decimal.Decimal(repr(x)),
    "Fraction": fractions.Fraction,
    "np.float64": np.float64,
    "np.float32": np.float32,
    "np.float16": np.float16,
    "np.longdouble": np.longdouble,
    "0-d array": np.array,
    "0-d float32 array": lambda x: np.array(x, dtype=np.float32),
    "0-d object array of a Decimal": lambda x: np.array(decimal.Decimal(repr(x)),
                                                        dtype=object),
}

#: Values no real parameter takes: a TypeError each.
REFUSED = {
    "True": True,
    "np.True_": np.True_,
    "0-d bool array": np.array(False),
    "text": "0.5",
    "complex": 0.5 + 0j,
    "bytes": b"0.5",
}

#: Values outside every range of a real parameter (a ValueError each).
OUT_OF_RANGE = {
    "nan": float("nan"),
    "Decimal nan": decimal.Decimal("NaN"),
    "Decimal snan": decimal.Decimal("sNaN"),
    "inf": float("inf"),
    "-inf": -np.inf,
    "huge int": 10**400,
    "huge Fraction": fractions.Fraction(10**400, 3),
    "negative": -0.25,
}


@dataclass(frozen=True)
class Real:
    """A real parameter of a public call: ``call(value)`` returns the result to compare;
    ``value`` is valid (exact in every type of ``NUMBER_TYPES``); ``none`` what None
    does (``"ok"``: allowed, off; ``"type"``: a TypeError); ``high`` a value above the
    range (None: no upper limit)."""

    name: str
    call: Callable
    value: float
    high: "float | None" = 1.0
    none: str = "type"


def _fair_order(**kw):
    # the cell rule where a weight is given: the conversion is tested, not the solver
    kw.setdefault("solver", "auto" if "max_disparity" in kw else "paper")
    r = fair_order(S, Y, G, backend="numpy", **kw)
    return r.order, r.objective, r.auc, r.disparity


def _xorder(**kw):
    kw.setdefault("solver", "auto" if "max_disparity" in kw else "paper")
    xo = XOrder(backend="numpy", **kw).fit(S, Y, sensitive_features=G)
    return xo.train_scores_adjusted_, xo.lam_, xo.validation_


def _ranker(**kw):
    kw.setdefault("solver", "auto" if "max_disparity" in kw else "paper")
    ranker = FairRanker(_prefit(), prefit=True, backend="numpy", **kw)
    ranker.fit(X, Y, sensitive_features=G)
    return ranker.score(X, Y, sensitive_features=G), ranker.decision_function(
        X, sensitive_features=G)


@functools.cache
def _fitted_ranker():
    """A FairRanker fitted once, for the scorers (its fit's warnings are not theirs)."""
    ranker = FairRanker(_prefit(), prefit=True, backend="numpy", lam=0.5, solver="paper")
    return _quiet(ranker.fit, X, Y, sensitive_features=G)[0]


def _scorer(**kw):
    scorer = fairness_scorer(**kw)
    return scorer(_fitted_ranker(), X, Y, sensitive_features=G), repr(scorer)


def _intervals(level):
    ci = metrics.confidence_intervals(Y, S, sensitive_features=G, level=level, method="delong")
    return ci.level, ci.auc, ci.disparity


def _frame_intervals(level):
    frame = metrics.RankingMetricFrame(Y, S, sensitive_features=G)
    return {key: table.to_dict() for key, table in
            frame.intervals(level=level, method="delong").items()}


def _xroc(level):
    band = metrics.xroc_band(Y, S, sensitive_features=G, g="a", h="b", level=level)
    return band.tpr_low, band.tpr_high, band.fpr_low, band.fpr_high


def _plot_xroc(band):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from gpu_xorder.plotting import plot_xroc

    ax = plot_xroc(Y, S, sensitive_features=G, band=band)
    title = ax.get_title()
    plt.close(ax.figure)
    return title


def _icu(prevalence):
    data = make_icu(50, prevalence=prevalence)
    return data.y, data.X[:3]


def _post_logit(lam):
    from gpu_xorder.baselines import PostLogit

    return PostLogit(lam=lam).fit(1 / (1 + np.exp(-S)), Y, sensitive_features=G).shifts_


def _constrained(max_disparity):
    from gpu_xorder.baselines import ConstrainedRanker

    model = ConstrainedRanker(max_disparity=max_disparity, n_steps=10, n_pairs=50)
    return model.fit(X, Y, sensitive_features=G).coef_


#: The largest ``exact_budget`` (seconds) the documentation of fair_order states.
MAX_EXACT_BUDGET = 1e9


def _solver_reason(**kw):
    """fair_order's result with the reason for its solver (``"auto"``'s choice)."""
    r = fair_order(S, Y, G, backend="numpy", lam=0.5, **kw)
    return r.order, r.objective, r.solver, r.extra["solver_reason"]


REALS = (
    Real("fair_order lam", lambda v: _fair_order(lam=v), 0.5, high=None),
    Real("fair_order max_disparity", lambda v: _fair_order(max_disparity=v), 0.125,
         none="ok"),
    Real("XOrder lam", lambda v: _xorder(lam=v), 0.5, high=None),
    Real("XOrder max_disparity", lambda v: _xorder(max_disparity=v), 0.125, none="ok"),
    Real("XOrder validation", lambda v: _xorder(lam=0.5, validation=v), 0.25, none="ok"),
    Real("xorder_path lams", lambda v: [_plain(m.train_scores_adjusted_) for m in
                                        xorder_path(S, Y, sensitive_features=G, lams=[v],
                                                    backend="numpy", solver="paper")],
         0.5, high=None),
    Real("FairRanker lam", lambda v: _ranker(lam=v), 0.5, high=None),
    Real("FairRanker max_disparity", lambda v: _ranker(max_disparity=v), 0.125,
         none="ok"),
    Real("fairness_scorer lam", lambda v: _scorer(lam=v), 0.5, high=None, none="ok"),
    Real("fairness_scorer max_disparity", lambda v: _scorer(max_disparity=v), 0.125,
         none="ok"),
    Real("confidence_intervals level", _intervals, 0.75),
    Real("RankingMetricFrame.intervals level", _frame_intervals, 0.75),
    Real("xroc_band level", _xroc, 0.75),
    Real("plot_xroc band", _plot_xroc, 0.75, none="ok"),
    Real("make_icu prevalence", _icu, 0.125),
    Real("PostLogit lam", _post_logit, 0.5, high=None, none="ok"),
    Real("ConstrainedRanker max_disparity", _constrained, 0.125),
    Real("fair_order exact_budget", lambda v: _solver_reason(exact_budget=v), 0.5,
         high=MAX_EXACT_BUDGET),
    Real("XOrder exact_budget", lambda v: _xorder(lam=0.5, solver="auto", exact_budget=v),
         0.5, high=MAX_EXACT_BUDGET),
    Real("XOrder.plan exact_budget", lambda v: str(XOrder(
        lam=0.5, backend="numpy", exact_budget=v).plan(S, Y, sensitive_features=G)), 0.5,
        high=MAX_EXACT_BUDGET),
)
_IDS = [r.name for r in REALS]


@pytest.mark.parametrize("real", REALS, ids=_IDS)
def test_every_real_parameter_takes_every_real_number_type(real):
    want = _plain(_quiet(real.call, real.value))
    for kind, make in NUMBER_TYPES.items():
        value = make(real.value)
        assert _plain(_quiet(real.call, value)) == want, kind


@pytest.mark.parametrize("real", REALS, ids=_IDS)
def test_every_real_parameter_refuses_bools_text_and_out_of_range_values(real):
    for kind, value in REFUSED.items():
        _refused(TypeError, real.call, value, kind)
    if real.none == "type":
        _refused(TypeError, real.call, None, "None")
    else:
        _quiet(real.call, None)  # None is the parameter's "off"
    bad = dict(OUT_OF_RANGE)  # huge ones: beyond float64, infinite
    if real.high is not None:
        bad["above"] = real.high + 0.5
    for kind, value in bad.items():
        _refused(ValueError, real.call, value, kind)


def test_an_exact_budget_beyond_its_limit_is_a_value_error_not_an_overflow():
    """Finite budgets too large for the exact solver's count of states (1e308 s once
    raised OverflowError in the fit, while its plan printed): refused by every face
    that takes one, naming the limit; the limit itself runs as a large budget does."""
    for value in (MAX_EXACT_BUDGET * (1 + 2**-52), 1e300, 1e308, np.finfo(np.float64).max,
                  10**308, np.float32(3e38)):
        for call in (lambda b: _solver_reason(exact_budget=b),
                     lambda b: _xorder(lam=0.5, solver="auto", exact_budget=b),
                     lambda b: XOrder(lam=0.5, backend="numpy", exact_budget=b).plan(
                         S, Y, sensitive_features=G),
                     lambda b: fair_order(S, Y, G, lam=0.5, backend="numpy",
                                          exact_budget=b, plan_only=True)):
            with pytest.raises(ValueError, match=re.escape(
                    f"exact_budget must be a number of seconds from 0 to "
                    f"{MAX_EXACT_BUDGET:g}, got")):
                call(value)
    most, two = (_plain(_solver_reason(exact_budget=b)) for b in (MAX_EXACT_BUDGET, 2.0))
    assert most[:3] == two[:3] and most[2] == "exact"
    assert most[3] == two[3].replace("exact_budget=2 s", "exact_budget=1e+09 s")


def test_plan_only_takes_a_bool_and_refuses_what_only_has_a_truth():
    """``plan_only="False"`` once returned a plan (the string is true), 0 and None a
    solve: every value but a bool (Python or NumPy) is a TypeError naming it."""
    plan = str(fair_order(S, Y, G, lam=0.5, backend="numpy", plan_only=True))
    solved = _plain(_solver_reason())
    for value, want in ((True, plan), (np.True_, plan), (False, solved),
                        (np.False_, solved)):
        got = fair_order(S, Y, G, lam=0.5, backend="numpy", plan_only=value)
        assert (str(got) if want is plan else _plain(
            (got.order, got.objective, got.solver, got.extra["solver_reason"]))) == want
    for value in ("False", "yes", 1, 0, 1.0, None, [], np.array([True]), np.array(True)):
        with pytest.raises(TypeError, match=re.escape(
                f"plan_only must be True or False, got {value!r}")):
            fair_order(S, Y, G, lam=0.5, backend="numpy", plan_only=value)


def test_the_experiments_test_size_takes_every_real_number_type():
    """``paper_experiment`` and ``compare_methods`` check ``test_size`` by the table
    (a run costs a fit: a few types here; every type converts as above)."""
    from gpu_xorder import paper_experiment
    from gpu_xorder.experiments._studies import compare_methods

    def run(test_size):
        return paper_experiment("german", lams=[0.5], repeats=1, backend="numpy",
                                solver="paper", test_size=test_size).summary()

    want = _plain(run(0.25))
    for value in (decimal.Decimal("0.25"), fractions.Fraction(1, 4), np.array(0.25)):
        assert _plain(run(value)) == want, repr(value)
    for call in (run, lambda value: compare_methods("german", methods=["xorder"],
                                                    lams=[0.5], repeats=1,
                                                    test_size=value)):
        for kind, value in {**REFUSED, "None": None}.items():
            _refused(TypeError, call, value, kind)
        for kind, value in {**OUT_OF_RANGE, "one": 1, "zero": 0}.items():
            _refused(ValueError, call, value, kind)


def test_the_studies_sizes_are_counts_and_name_themselves():
    """``compare_methods(sizes=...)`` (``paper --sizes``, the paper's Figure 13): every
    entry a count of any integer type; a bool, a float or text a TypeError, below 2 a
    ValueError, beyond the training split a ValueError naming it, and sizes without a
    study of shares a ValueError about sizes (it once spoke of fractions), all before
    any repetition runs."""
    from gpu_xorder.experiments._studies import compare_methods

    def run(sizes, study="samples"):
        return compare_methods("german", study=study, sizes=sizes, methods=["xorder"],
                               lams=[0.5], repeats=1, backend="numpy")

    for sizes in ([True], [np.True_, 300], [300.0], [np.float64(300)], ["300"],
                  [decimal.Decimal(300)], [fractions.Fraction(300)], [None], "300", 300):
        with pytest.raises(TypeError, match="sizes must be distinct whole numbers"):
            run(sizes)
    for sizes in ([1], [0], [-300], [], [300, np.int16(300)]):
        with pytest.raises(ValueError, match="sizes must be distinct whole numbers"):
            run(sizes)
    for sizes in ([701], [10**30], [np.uint64(2**63)]):
        with pytest.raises(ValueError, match=r"is more than the 700 training items"):
            run(sizes)
    for study in (None, "shift", "train-test"):
        with pytest.raises(ValueError, match="^sizes are the numbers of training items of "
                                             "the samples, samples-retrain and subsample"):
            run([300], study)


@pytest.mark.parametrize("study", ["samples", "samples-retrain"])
def test_a_share_too_small_for_its_groups_is_refused_before_any_repetition(study,
                                                                          monkeypatch):
    """A stratified share of 3 or 5 training items (or 1e-9 of them) left a group
    without positives or scikit-learn's split refused it, after the work of the
    settings before it: now refused before any repetition runs, naming the setting,
    the repetition and the group; a size that keeps both labels in every group of
    every repetition runs."""
    from gpu_xorder.experiments import _studies

    ran = []
    monkeypatch.setattr(_studies, "_repetition", lambda *a: ran.append(a) or ([], {}, {}, {}))

    def run(**kw):
        return _studies.compare_methods("german", study=study, methods=["xorder"],
                                        lams=[0.5], repeats=3, backend="numpy", **kw)

    for kw, setting in (({"sizes": [600, 3]}, "size 3"), ({"sizes": [5]}, "size 5"),
                        ({"fractions": [1.0, 1e-9]}, "share 1e-09")):
        with pytest.raises(ValueError, match=re.escape(setting) + r" of the 700 training "
                           r"items of german leaves group \d+ without (positives|"
                           r"negatives) in repetition \d; give a larger one"):
            run(**kw)
    assert ran == []
    run(sizes=[600, 60])
    assert len(ran) == 3


def test_integer_valued_lams_of_every_type_equal_the_float():
    want = _plain(_fair_order(lam=1.0))
    for value in (1, np.int8(1), np.uint64(1), np.array(1), fractions.Fraction(2, 2),
                  decimal.Decimal(1), decimal.Decimal("1.000")):
        assert _plain(_fair_order(lam=value)) == want, repr(value)


# ---------------------------------------------------------------------- integer types

INTEGER_TYPES = {
    "int": int, "np.int8": np.int8, "np.int16": np.int16, "np.int32": np.int32,
    "np.int64": np.int64, "np.uint8": np.uint8, "np.uint16": np.uint16,
    "np.uint32": np.uint32, "np.uint64": np.uint64, "0-d array": np.array,
    "0-d uint8 array": lambda k: np.array(k, dtype=np.uint8),
}


@dataclass(frozen=True)
class Count:
    """An integer parameter: ``call(value)``, a valid ``value``, the smallest valid
    value ``low``; ``none_ok``: None is valid (a default: every item, no limit, a
    fresh seed), else a TypeError."""

    name: str
    call: Callable
    value: int
    low: int = 1
    none_ok: bool = False


COUNTS = (
    Count("XOrder subsample", lambda k: _xorder(subsample=k), 2, none_ok=True),
    Count("fair_order memory_limit", lambda k: _fair_order(lam=0.5, memory_limit=k),
          10**6, none_ok=True),
    Count("make_icu n_samples", lambda k: _plain(make_icu(k).X), 20),
    Count("make_icu random_state", lambda k: _plain(make_icu(20, random_state=k).y), 3,
          low=0, none_ok=True),
    Count("icu_age_groups bands", lambda k: icu_age_groups(np.arange(20.0), k), 3, low=2),
    Count("confidence_intervals random_state", lambda k: metrics.confidence_intervals(
        Y, S, sensitive_features=G, n_bootstrap=20, random_state=k).auc, 5, low=0,
        none_ok=True),
    Count("xroc_band max_points", lambda k: _plain(metrics.xroc_band(
        Y, S, sensitive_features=G, g="a", h="b", max_points=k).thresholds), 5, low=2),
    Count("confidence_intervals n_bootstrap", lambda k: metrics.confidence_intervals(
        Y, S, sensitive_features=G, n_bootstrap=k, random_state=0).auc, 20, none_ok=True),
)


@pytest.mark.parametrize("count", COUNTS, ids=[c.name for c in COUNTS])
def test_every_count_takes_every_integer_type_and_refuses_the_rest(count):
    want = _plain(_quiet(count.call, count.value))
    for kind, make in INTEGER_TYPES.items():
        dtype = np.dtype(getattr(make(0), "dtype", np.int64))
        if count.value <= np.iinfo(dtype).max:  # the types that hold the value
            assert _plain(_quiet(count.call, make(count.value))) == want, kind
    for value in (True, np.True_, float(count.value), decimal.Decimal(count.value),
                  fractions.Fraction(count.value), np.array(float(count.value)), None):
        if value is None and count.none_ok:
            _quiet(count.call, value)
            continue
        with pytest.raises(TypeError):
            _quiet(count.call, value)
    for value in (count.low - 1, -1, -10**30):
        with pytest.raises(ValueError):
            _quiet(count.call, value)


#: Every generator and loader of ``gpu_xorder.datasets`` with a size or a seed.
SIZES = {
    "make_icu n_samples": lambda k: make_icu(k),
    "make_icu random_state": lambda k: make_icu(10, random_state=k),
    "icu_age_groups bands": lambda k: icu_age_groups([20.0, 30.0, 40.0], k),
}


@pytest.mark.parametrize("name", SIZES)
@pytest.mark.parametrize("size", [0, -1, -10**6])
def test_sizes_zero_and_below_of_every_generator_are_clear_value_errors(name, size):
    if name.endswith("random_state") and size == 0:
        assert SIZES[name](0) is not None  # seed 0 is a seed
        return
    with pytest.raises(ValueError, match=re.escape(f"got {size}")):
        SIZES[name](size)


def test_an_empty_age_column_is_a_clear_value_error():
    with pytest.raises(ValueError, match="age is empty"):
        icu_age_groups([], 2)
    with pytest.raises(ValueError, match="one-dimensional"):
        icu_age_groups([[20.0, 30.0]], 2)


# ---------------------------------------------------------------------- weight scales

#: Uniform factors of the weights: 10**k, k from -300 to 300, and the extremes of
#: float64 (a power of two at the subnormal end, where the weights stay exact).
SCALES = [10.0**k for k in range(-300, 301, 20)] + [2.0**-1070, 2.0**1000]
#: Integer weights, so that ``W * c`` for a power of two ``c`` is exact.
W = (np.arange(N) % 5 + 1).astype(np.float64)


def _frame_tables(w):
    frame = metrics.RankingMetricFrame(Y, S, sensitive_features=G, sample_weight=w)
    return np.concatenate([table.to_numpy(dtype=float).ravel() for table in
                           (frame.overall, frame.by_group, frame.by_pair)])


def _score_with_weights(w):
    ranker = _fitted_ranker()
    return (ranker.score(X, Y, sensitive_features=G, sample_weight=w),
            fairness_scorer(lam=0.5)(ranker, X, Y, sensitive_features=G, sample_weight=w),
            fairness_scorer(max_disparity=0.05)(ranker, X, Y, sensitive_features=G,
                                                sample_weight=w))


WEIGHTED = {
    "auc": lambda w: metrics.auc(Y, S, sample_weight=w),
    "xauc": lambda w: metrics.xauc(Y, S, sensitive_features=G, g="a", h="b", sample_weight=w),
    "prf": lambda w: metrics.prf(Y, S, sensitive_features=G, g="b", sample_weight=w),
    "urf": lambda w: metrics.urf(None, S, sensitive_features=G, g="a", h="b", sample_weight=w),
    "disparity_pairs": lambda w: [metrics.disparity_pairs(Y, S, sensitive_features=G, metric=m,
                                                          sample_weight=w)[
        ("a", "b")] for m in ("xauc", "prf", "urf")],
    "disparity (sklearn order)": lambda w: metrics.disparity(
        Y, S, sensitive_features=G, metric="prf", sample_weight=w),
    "RankingMetricFrame": _frame_tables,
    "FairRanker.score and fairness_scorer": _score_with_weights,
}


@pytest.mark.parametrize("name", WEIGHTED)
def test_every_weighted_metric_ignores_the_scale_of_the_weights(name):
    call = WEIGHTED[name]
    want = np.array(_plain(call(W)), dtype=np.float64)
    for c in SCALES:
        got = np.array(_plain(call(W * c)), dtype=np.float64)
        exact = np.frexp(c)[0] == 0.5  # a power of two: the same weights, bit for bit
        np.testing.assert_allclose(got, want, rtol=0 if exact else 1e-13, atol=0,
                                   err_msg=f"weights times {c!r}")


@pytest.mark.parametrize("name", WEIGHTED)
def test_weights_of_every_real_number_type_are_their_floats(name):
    """Python ints beyond int64 (integer weights times 10**k), Decimals and Fractions:
    converted one by one, as every real number is."""
    call = WEIGHTED[name]
    want = np.array(_plain(call(W)), dtype=np.float64)
    ints = [int(x) for x in W]
    for weights in ([x * 10**300 for x in ints], [x * 10**40 for x in ints],
                    [decimal.Decimal(x) for x in ints],
                    [fractions.Fraction(x, 7) for x in ints],
                    np.array([decimal.Decimal(x) / 3 for x in ints], dtype=object)):
        got = np.array(_plain(call(weights)), dtype=np.float64)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)


def test_weights_refused_only_where_they_are_unusable():
    for w, message in ((np.zeros(N), "zero for every item"),
                       (np.where(G == "a", 0.0, 1.0), "0 on all the positives of g"),
                       (-W, "finite numbers >= 0"), (W * np.inf, "finite numbers >= 0"),
                       (np.where(np.arange(N) == 3, np.nan, 1.0), "finite numbers >= 0"),
                       ([10**400] + [1] * (N - 1), "finite numbers >= 0")):
        with pytest.raises(ValueError, match=message):
            metrics.xauc(Y, S, sensitive_features=G, g="a", h="b", sample_weight=w)
    for w in ([1] * (N - 1) + [None], [1.0] * (N - 1) + [np.True_], [1.0] * (N - 1) + ["1"]):
        with pytest.raises(TypeError, match="sample_weight must be"):
            metrics.xauc(Y, S, sensitive_features=G, g="a", h="b", sample_weight=w)
    # the extremes of float64 side by side: each sample's own scale counts
    mixed = np.where(Y == 1, 1e-300, 1e300)
    assert metrics.auc(Y, S, sample_weight=mixed) == pytest.approx(metrics.auc(Y, S),
                                                                   rel=1e-14)
    tiny = np.full(N, 5e-324)  # the smallest subnormal: equal weights
    assert metrics.disparity(Y, S, sensitive_features=G, metric="xauc",
                             sample_weight=tiny) == metrics.disparity(Y, S,
                                                                                       sensitive_features=G,
                                                                                       metric="xauc")


# ---------------------------------------------------------------------- memory budgets

@pytest.mark.parametrize("memory_limit", [4000, 20000, 40000, 100000])
def test_the_exact_solvers_refusal_states_a_budget_it_was_given(memory_limit):
    """Never a negative budget: the completion tables that do not fit half the budget
    are refused naming it; fronts that outgrow the rest name the rest."""
    s, y, g = (np.tile(a, 4) for a in (S, Y, G))
    s = s + np.arange(s.size) * 1e-6  # no ties: 64 x 64 items
    with pytest.raises(MemoryError) as error:
        fair_order(s, y, g, lam=0.5, solver="exact", backend="numpy",
                   memory_limit=memory_limit)
    budgets = [float(x) for x in re.findall(r"budget \(([-0-9.e+]+) GiB", str(error.value))]
    # stated to 3 digits: up to 0.5% above the limit by rounding
    assert budgets and all(0 < b <= 1.005 * memory_limit / 2**30 for b in budgets), error


# ---------------------------------------------------------------------- label types

#: Group labels 1 and 2 (the base data's a and b) in every container and type a user
#: may hand over, each with the typed NumPy array of the same values: an object array
#: of ints once crashed every metric (AttributeError: 'int' object has no attribute
#: 'item').
def _pandas_object(values):
    pd = pytest.importorskip("pandas")
    return pd.Series(values, dtype=object)


LABEL_TYPES = {
    "object ints": (lambda a, b: np.array([a, b], dtype=object), (1, 2)),
    "object floats": (lambda a, b: np.array([a, b], dtype=object), (1.5, 2.5)),
    "object bools": (lambda a, b: np.array([a, b], dtype=object), (True, False)),
    "object ints and floats": (lambda a, b: np.array([a, b], dtype=object), (1, 2.5)),
    "object NumPy ints": (lambda a, b: np.array([np.int32(a), np.int64(b)], dtype=object),
                          (1, 2)),
    "list of NumPy scalars": (lambda a, b: [np.int16(a), np.uint8(b)], (1, 2)),
    "list of NumPy bools": (lambda a, b: [np.bool_(a), np.bool_(b)], (True, False)),
    "pandas object ints": (lambda a, b: _pandas_object([a, b]), (1, 2)),
    "pandas object floats": (lambda a, b: _pandas_object([a, b]), (0.5, 2.0)),
    "pandas object bools": (lambda a, b: _pandas_object([a, b]), (False, True)),
}


def _labels(kind):
    """``(groups as the kind gives them, the typed array, label of a, label of b)``."""
    make, (a, b) = LABEL_TYPES[kind]
    pair = make(a, b)
    values = pair.tolist() if hasattr(pair, "tolist") else list(pair)
    chosen = [values[0] if g == "a" else values[1] for g in G]
    given = (type(pair)(chosen, dtype=object) if not isinstance(pair, (list, np.ndarray))
             else np.array(chosen, dtype=object) if isinstance(pair, np.ndarray)
             else [pair[0] if g == "a" else pair[1] for g in G])
    typed = np.array([a if g == "a" else b for g in G])
    return given, typed, typed[0].item(), typed[1].item()


def _svg_text(fig):
    import io

    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue().decode()


def _plot(draw):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure()
    ax = draw(fig.add_subplot())
    return [t.get_text() for t in ax.get_legend().get_texts()] if ax.get_legend() else []


#: Every face that takes group labels: ``face(groups, a, b)`` returns what to compare.
GROUP_FACES = {
    "xauc": lambda g, a, b: metrics.xauc(Y, S, sensitive_features=g, g=a, h=b),
    "prf": lambda g, a, b: metrics.prf(Y, S, sensitive_features=g, g=b),
    "urf": lambda g, a, b: metrics.urf(Y, S, sensitive_features=g, g=a, h=b),
    "disparity": lambda g, a, b: [metrics.disparity(Y, S, sensitive_features=g, metric=m)
                                  for m in ("xauc", "prf", "urf")],
    "disparity_pairs": lambda g, a, b: {str(k): v for k, v in metrics.disparity_pairs(
        Y, S, sensitive_features=g, metric="xauc").items()},
    "confidence_intervals": lambda g, a, b: repr(metrics.confidence_intervals(
        Y, S, sensitive_features=g, method="delong")),
    "decision_rates": lambda g, a, b: _plain(metrics.decision_rates(
        Y, S, sensitive_features=g, top_share=0.28).to_dict()),
    "disadvantaged_group": lambda g, a, b: metrics.disadvantaged_group(
        Y, S, sensitive_features=g, metric="xauc").text,
    "xroc_band": lambda g, a, b: _plain(list(metrics.xroc_band(Y, S, sensitive_features=g,
                                                               g=a, h=b))),
    "RankingMetricFrame": lambda g, a, b: metrics.RankingMetricFrame(
        Y, S, sensitive_features=g).by_group.to_numpy(dtype=float).tolist(),
    "fair_order": lambda g, a, b: _plain(fair_order(S, Y, g, lam=0.5, backend="numpy",
                                                    solver="paper").order),
    "XOrder": lambda g, a, b: _plain(XOrder(lam=0.5, backend="numpy", solver="paper").fit(
        S, Y, sensitive_features=g).transform(S, sensitive_features=g)),
    "plot_xroc": lambda g, a, b: _plot(lambda ax: __import__(
        "gpu_xorder.plotting", fromlist=["x"]).plot_xroc(Y, S, sensitive_features=g, ax=ax)),
    "plot_score_distributions": lambda g, a, b: _plot(lambda ax: __import__(
        "gpu_xorder.plotting", fromlist=["x"]).plot_score_distributions(
            Y, S, sensitive_features=g, ax=ax)),
    "audit_report": lambda g, a, b: len(__import__(
        "gpu_xorder.report", fromlist=["x"]).audit_report(S, Y, g, high_score="harmful",
                                                          level=None)) > 0,
}
_OPTIONAL = {"plot_xroc": "matplotlib", "plot_score_distributions": "matplotlib",
             "audit_report": "jinja2", "RankingMetricFrame": "pandas"}
#: The faces that draw (a second each) take three kinds: they encode the labels as
#: every other face does, which the others check in every kind.
_DRAWN = {"plot_xroc", "plot_score_distributions", "audit_report"}
_DRAWN_KINDS = ("object ints", "object ints and floats", "pandas object bools")


@pytest.mark.parametrize("face", GROUP_FACES)
def test_every_face_takes_labels_of_every_type(face):
    if face in _OPTIONAL:
        pytest.importorskip(_OPTIONAL[face])
    call = GROUP_FACES[face]
    for kind in _DRAWN_KINDS if face in _DRAWN else LABEL_TYPES:
        given, typed, a, b = _labels(kind)
        want = _plain(_quiet(call, typed, a, b)[0])
        got = _plain(_quiet(call, given, a, b)[0])
        assert got == want, kind


@pytest.mark.parametrize("face", ["xauc", "confidence_intervals", "decision_rates",
                                  "fair_order", "plot_xroc"])
def test_labels_that_would_merge_or_have_no_order_are_type_errors(face):
    if face in _OPTIONAL:
        pytest.importorskip(_OPTIONAL[face])
    for given, message in (
            ([True if g == "a" else 2 for g in G], "mix booleans and numbers"),
            ([np.True_ if g == "a" else 0 for g in G], "mix booleans and numbers"),
            ([(1, 2) if g == "a" else 3 for g in G], "label of type tuple"),
            ([decimal.Decimal(1) if g == "a" else 2 for g in G], None)):
        groups = np.array(given, dtype=object)
        if message is None:  # a Decimal is a number but not a Real: refused as such
            message = "label of type Decimal"
        with pytest.raises(TypeError, match=message):
            GROUP_FACES[face](groups, 1, 2)


# ---------------------------------------------------------------------- shares

#: 25 items, scores falling, group a the top 7 (2 positives): a share q with q * 25
#: whole in exact arithmetic but not in floating point (0.28, 0.56) once selected a
#: sliver of the next item, which overflowed Katz's interval (OverflowError).
S25 = np.arange(25, 0, -1) / 25
Y25 = np.array([1, 0, 1, 0, 0, 0, 0] + [1, 0, 0, 1, 0, 0] * 3)
G25 = np.array(["a"] * 7 + ["b"] * 18)


def _frame_decisions(share):
    frame = metrics.RankingMetricFrame(Y25, S25, sensitive_features=G25)
    tables = frame.decisions(top_share=share)
    return {key: table.to_dict() for key, table in tables.items()}


def _report_share(share):
    from gpu_xorder.report import audit_report

    return len(audit_report(S25, Y25, G25, high_score="harmful", level=None,
                            top_share=share)) > 0


#: Every face that takes a share of the items: ``face(share)`` runs without error.
SHARE_FACES = {
    "decision_rates": lambda q: metrics.decision_rates(Y25, S25, sensitive_features=G25,
                                                       top_share=q).counts,
    "RankingMetricFrame.decisions": _frame_decisions,
    "audit_report top_share": _report_share,
    "audit_report without a cut-off (the share of positives, 7 of 25)":
        lambda q: _report_share(None),
}


@pytest.mark.parametrize("face", SHARE_FACES)
def test_every_face_takes_a_share_whose_product_is_not_whole_in_floats(face):
    if face.startswith("audit_report"):
        pytest.importorskip("jinja2")
        pytest.importorskip("matplotlib")
    if face.startswith("RankingMetricFrame"):
        pytest.importorskip("pandas")
    for share in (0.28, 0.56):
        assert share * 25 != round(share * 25)
        SHARE_FACES[face](share)
    counts = metrics.decision_rates(Y25, S25, sensitive_features=G25, top_share=0.28).counts
    assert (counts["a"]["selected"], counts["b"]["selected"]) == (7.0, 0.0)


# ---------------------------------------------------------------------- the user's words

def _ranking_text(decision):
    return metrics.ranking_finding(Y, S, sensitive_features=G, high_score="harmful",
                                   decision=decision).text


def _cutoff_text(decision):
    rates = metrics.decision_rates(Y, S, sensitive_features=G, top_share=0.5)
    return " ".join(f.text for f in metrics.decision_findings(
        rates, high_score="harmful", decision=decision))


def _report_text(decision):
    from gpu_xorder.report import audit_report

    return audit_report(S, Y, G, high_score="harmful", level=None, decision=decision)


#: Every face that names the decision a high score leads to (``--decision``):
#: ``face(decision)`` returns the text that names it.
DECISION_FACES = {"ranking_finding": _ranking_text, "decision_findings": _cutoff_text,
                  "audit_report": _report_text}


@pytest.mark.parametrize("face", DECISION_FACES)
def test_every_face_naming_the_decision_refuses_what_names_nothing(face):
    """A decision that is not text (a number, bytes, a list: once printed as "leads to
    5") is a TypeError; a blank one ("leads to    ,"; an empty one was silently no
    decision) a ValueError naming it; the words are shown in the one line of each
    finding, their acting characters visible (a newline split a finding in two)."""
    if face == "audit_report":
        pytest.importorskip("jinja2")
        pytest.importorskip("matplotlib")
    call = DECISION_FACES[face]
    for value in (5, b"detention", ["detention"], np.str_("x").encode()):
        with pytest.raises(TypeError, match="decision must be text or None"):
            call(value)
    for value in ("", "   ", "\n", "\t \u3000"):
        with pytest.raises(ValueError, match=re.escape(
                f"decision is blank ({value!r}): name what a high score leads to")):
            call(value)
    if face != "audit_report":  # the page escapes the words its own way (test_report)
        text = call("a\nb\x1b[2J\u202ec")
        assert "leads to a\\nb\\x1b[2J\\u202ec, which" in text
        assert "\n" not in text and "\x1b" not in text and "\u202e" not in text
    assert re.search(r"leads to (<bdi>)?detention", call("detention"))  # <bdi>: a page


# ---------------------------------------------------------------------- solver reasons

S3 = np.round(np.tile(S, 3)[:42] + np.repeat([0.0, 0.1, 0.2], 14), 3)
Y3, G3 = np.tile(Y, 3)[:42], np.repeat(["a", "b", "c"], 14)

#: Every kind of solve: ``call()`` returns its results; ``want`` a part of the reason.
REASON_CASES = {
    "paper": (lambda: fair_order(S, Y, G, lam=0.5, solver="paper", backend="numpy"),
              "solver='paper' was asked for"),
    "lam 0": (lambda: fair_order(S, Y, G, lam=0.0, backend="numpy"), "lam = 0"),
    "exact budget 0": (lambda: fair_order(S, Y, G, lam=0.5, exact_budget=0,
                                          backend="numpy"), "exact_budget=0"),
    "path": (lambda: fair_order(S, Y, G, lam=[0.0, 0.5, 2.0], backend="numpy"), ""),
    "max_disparity met by the best AUC": (
        lambda: fair_order(S, Y, G, max_disparity=1.0, backend="numpy"),
        "max_disparity=1: the ordering of the best AUC meets it"),
    "max_disparity exact": (lambda: fair_order(S, Y, G, max_disparity=0.0,
                                               backend="numpy"),
                            "max_disparity=0: the exact constrained optimum"),
    "three groups": (lambda: fair_order(S3, Y3, G3, lam=0.5, backend="numpy"),
                     "3 groups: the cell rule of the K-D DP"),
    "three groups iterative": (lambda: fair_order(S3, Y3, G3, lam=0.5, method="iterative",
                                                  backend="numpy"),
                               "3 groups: the cell rule of iterative xOrder"),
    "three groups best": (lambda: fair_order(S3, Y3, G3, lam=0.5, method="best",
                                             backend="numpy"), "3 groups: the cell rule"),
    "two groups method kd": (lambda: fair_order(S, Y, G, lam=0.5, method="kd",
                                                backend="numpy"),
                             "method='kd' with solver='auto': the cell rule of the K-D DP"),
}


@pytest.mark.parametrize("case", REASON_CASES)
def test_every_result_says_why_its_solver_ran(case):
    """``extra["solver_reason"]`` (fair_order's documentation: ``result.solver`` says
    which ran, the reason why) in every result: the constraint's and the K-group
    methods' results once had none."""
    call, want = REASON_CASES[case]
    results = _quiet(call)[0]
    for r in results if isinstance(results, list) else [results]:
        reason = r.extra.get("solver_reason")
        assert isinstance(reason, str) and reason.strip(), (case, r.solver, r.extra)
        assert want in reason, reason


@pytest.mark.parametrize("limit,want", [
    ("CONSTRAINT_EXACT_CELLS", "the lattice has more than 1 cells, beyond the exact "
                               "constrained solver"),
    ("CONSTRAINT_EXACT_STATES", "the exact constrained solver's fronts would store more "
                                "than 1 states")])
def test_a_constrained_search_says_which_limit_kept_the_exact_solver_out(
        limit, want, monkeypatch):
    """Beyond the exact constrained solver's size, or its cap of states (a count, not
    memory: the reason once said the fronts "outgrew the memory budget"), the result
    is the search's feasible ordering and its reason names that limit."""
    from gpu_xorder.core import _constrained

    monkeypatch.setattr(_constrained, limit, 1)
    r = fair_order(S, Y, G, max_disparity=0.0, backend="numpy")
    assert r.solver == "lagrangian"
    assert want in r.extra["solver_reason"]


# ---------------------------------------------------------------------- plans

def _plan_data():
    """Odd data for a plan: ``name -> (scores, y, groups)``."""
    rng = np.random.default_rng(5)
    many = np.repeat(np.arange(30), 4)
    odd = np.array(["a\u202e\x1b[2J", "b\n$x$", "\x00c"])[np.arange(42) % 3]
    return {
        "30 groups of 4": (rng.random(many.size), np.tile([0, 1], many.size // 2), many),
        "one item in group c": (S, Y, np.where(np.arange(N) == 0, "c", G)),
        "one group": (S, Y, np.full(N, "a")),
        "every score tied": (np.zeros(N), Y, G),
        "acting characters in labels": (rng.random(42), np.tile([0, 1], 21), odd),
        "NaN score": (np.where(np.arange(N) == 3, np.nan, S), Y, G),
        "empty": (np.array([]), np.array([], dtype=int), np.array([], dtype=str)),
    }


@pytest.mark.parametrize("case", _plan_data())
def test_a_plan_refuses_what_the_fit_refuses_and_plans_what_it_runs(case):
    """fair_order(plan_only=True) and XOrder.plan on odd data: the error of the solve,
    word for word, or the engine, group sizes and solvers the solve then runs; the
    printed plan one line per field, no acting character (it shows no label)."""
    from support.odd_text import ACTING

    s, y, g = _plan_data()[case]
    for plan, run in (
            (lambda: fair_order(s, y, g, lam=0.5, backend="numpy", plan_only=True),
             lambda: fair_order(s, y, g, lam=0.5, backend="numpy")),
            (lambda: XOrder(lam=0.5, backend="numpy").plan(s, y, sensitive_features=g),
             lambda: XOrder(lam=0.5, backend="numpy").fit(
                 s, y, sensitive_features=g).result_)):
        try:
            result = _quiet(run)[0]
        except (ValueError, TypeError) as error:
            with pytest.raises(type(error), match=re.escape(str(error))):
                plan()
            continue
        p = _quiet(plan)[0]
        assert p.engine == result.backend
        if p.two_group:
            assert [x for x in p.solvers if x != "auto"] in ([], [result.solver])
        else:
            assert p.route in (result.method, "best")
        text = str(p)
        assert not any(c in text for c in ACTING if c != "\n")
        assert [line.split()[0] for line in text.splitlines()][:3] == [
            "engine", "route", "groups"]


def test_a_plan_of_solver_exact_counts_the_exact_solver_only_where_it_runs():
    """``solver="exact"`` with ``disparity="signed"`` or ``lam=0`` runs the cell rule
    (exact there; the result says ``solver="paper"``): its plan costs what the cell
    rule's plan costs (it once added the exact solver's expected seconds per lam)."""
    for kw in (dict(lam=0.5, disparity="signed"), dict(lam=[0.0, 0.5], disparity="signed"),
               dict(lam=0.0)):
        plans = [fair_order(S, Y, G, backend="numpy", solver=solver, plan_only=True, **kw)
                 for solver in ("exact", "paper")]
        ran = _quiet(fair_order, S, Y, G, backend="numpy", solver="exact", **kw)[0]
        assert {r.solver for r in (ran if isinstance(ran, list) else [ran])} == {"paper"}
        assert plans[0].solvers == plans[1].solvers == ("paper",) * len(plans[0].lams)
        assert plans[0].seconds == plans[1].seconds, kw
    asked = fair_order(S, Y, G, backend="numpy", solver="exact", lam=0.5, plan_only=True)
    assert asked.seconds > fair_order(S, Y, G, backend="numpy", solver="paper", lam=0.5,
                                      plan_only=True).seconds  # the exact solve counted


# ---------------------------------------------------------------------- huge weights

@pytest.mark.parametrize("metric", ["xauc", "prf", "urf"])
def test_the_exact_solver_ends_at_every_weight_up_to_the_cap(metric, monkeypatch):
    """Every score tied, 6 items per group, lam from 1e16 to ``MAX_LAM`` (1e300): at
    such weights the completion bounds' rounding (about lam * 2**-52) is far above
    the pruning's tolerance, and the guess at the known objective pruned every state
    (urf): the exact solver (and ``auto``, which runs it here) retried that guess
    forever. Each solve ends within a few tries, never below the search, within its
    own bound (a float oracle of every interleaving rounds D at these weights too)."""
    from gpu_xorder.core import _exact

    tries = []
    solve = _exact._NumpyFronts.solve

    def counted(*args):
        tries.append(1)
        assert len(tries) < 100, "the exact solver's tries do not end"
        return solve(*args)

    monkeypatch.setattr(_exact._NumpyFronts, "solve", staticmethod(counted))
    s, y, g = np.zeros(12), np.tile([0, 1], 6), np.repeat([0, 1], 6)
    for lam in (1e16, 1e20, 1e100, 1e300):
        search = fair_order(s, y, g, metric=metric, lam=lam, backend="numpy",
                            exact_budget=0)
        for kw in (dict(solver="exact"), dict()):
            tries.clear()
            got = fair_order(s, y, g, metric=metric, lam=lam, backend="numpy", **kw)
            assert got.solver == "exact", (lam, kw, got.extra["solver_reason"])
            assert got.objective >= search.objective
            assert got.objective <= got.upper_bound
            assert len(tries) <= 16  # the guesses from EXACT_FIRST_SHARE to 1, and one


@pytest.mark.parametrize("memory_limit", [1000, 4000, 10**6])
def test_a_plan_of_solver_exact_refuses_the_tables_the_solve_refuses(memory_limit):
    """``solver="exact"`` under a memory_limit whose half holds not one completion
    table: the solve refuses before any fill, and so does its plan, by the same
    error and words (it once planned the exact solve); where the tables fit, the plan
    says exact, as the solve runs it (the fronts' size is known only by running)."""
    kw = dict(lam=0.5, solver="exact", memory_limit=memory_limit, backend="numpy")
    try:
        result = _quiet(fair_order, S, Y, G, **kw)[0]
    except MemoryError as error:
        assert "completion values" in str(error)
        with pytest.raises(type(error), match=re.escape(str(error))):
            fair_order(S, Y, G, plan_only=True, **kw)
        return
    assert result.solver == "exact"
    assert fair_order(S, Y, G, plan_only=True, **kw).solvers == ("exact",)
