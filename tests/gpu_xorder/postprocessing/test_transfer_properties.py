"""Property tests of the transfer (gpu_xorder.postprocessing._transfer, issues #31 and
#32): every group keeps its strict order, on the training scores a fit adjusts and on
new scores ``transform`` maps, for any finite float64 scores (neighbouring floats,
subnormals, the largest floats, negative scores, ties); where float64 has no room the
refusal is checked to be true by an independent count. The order oracle compares
every pair of one group (signs of ``>``/``<``, no subtraction)."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_xorder import XOrder
from gpu_xorder.postprocessing._maps import apply_group_maps
from gpu_xorder.postprocessing._transfer import (
    ADVICE_PROBABILITIES,
    ADVICE_RESCALE,
    ADVICE_ROUNDING,
    default_bounds,
    fit_transfer,
)
from support.properties import examples

MAX = float(np.finfo(np.float64).max)
TINY = 5e-324  # the smallest subnormal
#: Scales the scores of one example are drawn from: each a list of bases, every score a
#: base moved by a few ulps (so that neighbouring floats and ties are common).
SCALES = {
    "probabilities": [0.0, TINY, 1e-300, 0.25, 0.5, 0.5 + 2**-40, 1 - 2**-52, 1.0],
    "log-odds": [-30.0, -2.5, -1e-12, 0.0, 1e-12, 0.7, 3.0],
    "huge": [1.0e308, 1.5e308, 1.79697e308, MAX],
    "both signs": [-MAX, -1e308, -1.0, 0.0, 1.0, 1e308, MAX],
    "subnormal": [0.0, TINY, 4 * TINY, 2.2250738585072014e-308, -TINY],
}


def ulps_from(base, k):
    """``base`` moved ``k`` floats up (down for negative ``k``), kept finite."""
    value, end = base, (MAX if k > 0 else -MAX)
    for _ in range(abs(k)):
        value = value if value == end else float(np.nextafter(value, end))
    return value


@st.composite
def edge_scores(draw, n_min=1, n_max=6):
    """Scores of one scale: bases of that scale moved by -3..3 ulps."""
    bases = SCALES[draw(st.sampled_from(sorted(SCALES)))]
    n = draw(st.integers(n_min, n_max))
    return [ulps_from(draw(st.sampled_from(bases)), draw(st.integers(-3, 3)))
            for _ in range(n)]


@st.composite
def transfer_cases(draw):
    """``(scores, groups, order)``: two or three groups (group 0 the reference, one-item
    groups allowed) drawn together from one scale, and a random interleaving that keeps
    every group's descending order (ties in their input order)."""
    k = draw(st.integers(2, 3))
    sizes = [draw(st.integers(1, 6)) for _ in range(k)]
    scores = np.array(draw(edge_scores(sum(sizes), sum(sizes))))
    groups = np.repeat(np.arange(k), sizes)
    path = draw(st.permutations(groups.tolist()))
    queues = {g: list(np.flatnonzero(groups == g)[np.argsort(-scores[groups == g],
                                                             kind="stable")])
              for g in range(k)}
    order = np.array([queues[g].pop(0) for g in path], dtype=np.int64)
    return scores, groups, order


def signs(values):
    """Matrix of ``sign(v_i - v_j)`` by comparison (no subtraction, no overflow)."""
    v = np.asarray(values, dtype=np.float64)
    return (v[:, None] > v[None, :]).astype(int) - (v[:, None] < v[None, :]).astype(int)


def assert_group_orders_kept(before, after, groups):
    """Within every group: ``after`` orders every pair as ``before`` does, ties too."""
    before, after, groups = np.asarray(before), np.asarray(after), np.asarray(groups)
    assert np.isfinite(after).all()
    for g in np.unique(groups):
        mine = groups == g
        np.testing.assert_array_equal(signs(after[mine]), signs(before[mine]),
                                      err_msg=f"group {g!r}")


def neighbours(scores):
    """Every score and the floats one and two ulps on either side, finite."""
    s = np.asarray(scores, dtype=np.float64)
    return np.concatenate([[ulps_from(v, k) for v in s] for k in (-2, -1, 0, 1, 2)])


def knot_interval(u, x, y):
    """``[low, high]`` a map through knots ``(x, y)`` may give the score ``u`` when it
    moves scores apart: its end values, up to the largest float beyond its ends."""
    return (-MAX if u < x[0] else y[0]), (MAX if u > x[-1] else y[-1])


def room_exists(scores, x, y):
    """Whether strictly increasing floats exist for the distinct ``scores`` within their
    knot intervals: the lowest choice, one float at a time with ``np.nextafter``."""
    z = -np.inf
    for u in np.unique(scores):
        low, high = knot_interval(u, x, y)
        if z == MAX:
            return False
        z = max(low, float(np.nextafter(z, np.inf)))
        if z > high:
            return False
    return True


def floats_inside(lo, hi, at_most):
    """How many floats lie strictly between ``lo`` and ``hi``, counted up to
    ``at_most``."""
    count, z = 0, float(np.nextafter(lo, np.inf))
    while z < hi and count < at_most:
        count, z = count + 1, float(np.nextafter(z, np.inf))
    return count


def transform_or_refuse(new, group, maps):
    """``apply_group_maps`` of ``new`` (all in ``group``), its groups' order checked; a
    refusal for lack of room is checked against :func:`room_exists`. Returns the
    output or None."""
    groups = np.full(new.size, group)
    try:
        out = apply_group_maps(new, groups, maps)
    except ValueError as err:
        if "overflows float64" in str(err):
            return None  # a shift beyond the knots past the largest float
        assert "no adjusted scores keep them apart" in str(err)
        assert not room_exists(new, *maps[group])
        return None
    assert_group_orders_kept(new, out, groups)
    return out


# ---------------------------------------------------------------------------------------
# fit_transfer and apply_group_maps on edge scores.


@settings(max_examples=examples(150), deadline=None)
@given(transfer_cases())
def test_fit_keeps_every_group_order_and_transform_too(case):
    scores, groups, order = case
    bounds = default_bounds(scores, scores[groups == 0])
    assert np.isfinite(bounds).all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # crowded gaps, tested below
        try:
            t = fit_transfer(scores, order, groups, 0, bounds)
        except ValueError as err:  # a span beyond float64 with subnormal scores, or
            # bounds (a few ulps past the largest float) too narrow for a group
            if "(subnormal)" in str(err):
                assert bounds[1] - bounds[0] == np.inf
                assert not np.array_equal(scores / 2 * 2, scores)
            else:
                assert "need as many distinct adjusted scores" in str(err)
                distinct = max(np.unique(scores[groups == g]).size
                               for g in groups[groups > 0])
                assert floats_inside(*bounds, distinct) < distinct
            return
    assert_group_orders_kept(scores, t.adjusted, groups)
    np.testing.assert_array_equal(t.adjusted[groups == 0], scores[groups == 0])
    np.testing.assert_array_equal(apply_group_maps(scores, groups, t.maps), t.adjusted)
    for g, (x, y) in t.maps.items():
        assert np.all(x[1:] > x[:-1]) and np.all(y[1:] > y[:-1])
        transform_or_refuse(neighbours(scores[groups == g]), g, t.maps)


@settings(max_examples=examples(100), deadline=None)
@given(transfer_cases(), st.lists(st.integers(-40, 40), min_size=1, max_size=20))
def test_transform_keeps_neighbouring_floats_apart(case, steps):
    """New scores a few ulps around one training score, ties among them: strictly
    ordered as they are, equal ones equal, or a refusal that is true."""
    scores, groups, order = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        try:
            t = fit_transfer(scores, order, groups, 0,
                             default_bounds(scores, scores[groups == 0]))
        except ValueError:
            return  # checked in the test above
    g = int(groups[-1])
    base = float(scores[groups == g][0])
    new = np.array([ulps_from(base, k) for k in steps])
    transform_or_refuse(new, g, t.maps)


def test_a_flat_map_keeps_neighbouring_floats_apart():
    """The case seen on an Intel Xeon (issue #31): a run of a group squeezed into a
    narrow gap, so that its map's slope is far below one ulp per ulp, and two test
    scores 3 ulps apart that the straight line puts on one float."""
    a, b = 0.42562238436833694, 0.4256223843683371
    x = np.array([0.0, 0.40, 0.53, 1.0])
    y = np.array([0.0, 0.5086, 0.50871, 1.0])
    slope = (y[2] - y[1]) / (x[2] - x[1])
    assert slope * (a - x[1]) + y[1] == slope * (b - x[1]) + y[1]  # one float
    new = np.array([b, a, 0.3, a, b, x[1], 0.6])
    out = apply_group_maps(new, np.ones(7, dtype=int), {1: (x, y)})
    assert_group_orders_kept(new, out, np.ones(7))
    assert out[1] == float(np.nextafter(out[0], 0.0)) and out[5] == y[1]


def test_scores_pass_a_knot_value_to_keep_apart():
    """Knots whose values are 2 ulps apart: five distinct scores between them are kept
    apart by passing the lower knot's value (the ends of the map leave room)."""
    x = np.array([0.0, 0.4, 0.5, 1.0])
    y = np.array([0.0, 0.5, ulps_from(0.5, 2), 1.0])
    new = np.array([0.43, 0.42, 0.41, 0.4, 0.44, 0.41])
    out = apply_group_maps(new, np.ones(6, dtype=int), {1: (x, y)})
    assert_group_orders_kept(new, out, np.ones(6))
    assert out.max() <= y[2] and out.min() < y[1]


def test_too_many_scores_for_the_range_of_a_map_are_refused():
    """A map whose values span 2 ulps holds 3 floats: three distinct scores inside its
    knots fit, four are refused, naming them and the range."""
    x, y = np.array([0.0, 1.0]), np.array([0.5, ulps_from(0.5, 2)])
    maps, ones = {1: (x, y)}, np.ones(4, dtype=int)
    out = apply_group_maps([0.2, 0.1, 0.3], ones[:3], maps)
    assert out.tolist() == [ulps_from(0.5, 1), 0.5, ulps_from(0.5, 2)]
    with pytest.raises(ValueError, match=r"^4 distinct scores of one group, from 0\.1 to "
                                         r"0\.4, need as many distinct adjusted scores "
                                         r"between 0\.5 and 0\.5000000000000002"):
        apply_group_maps([0.4, 0.3, 0.2, 0.1], ones, maps)
    assert not room_exists(np.array([0.1, 0.2, 0.3, 0.4]), x, y)
    assert room_exists(np.array([0.1, 0.2, 0.3]), x, y)


# ---------------------------------------------------------------------------------------
# XOrder: fit and transform, odd group labels.

LABELS = [("a", "b"), ("", "é", "z z"), (-5, 10**12), (-0.25, 0.5)]


@settings(max_examples=examples(40), deadline=None)
@given(st.data())
def test_xorder_keeps_every_group_order_on_fit_and_transform(data):
    labels = data.draw(st.sampled_from(LABELS))
    sizes = [data.draw(st.integers(2, 5)) for _ in labels]
    scores = np.array(data.draw(edge_scores(sum(sizes), sum(sizes))))
    groups = np.repeat(np.array(labels, dtype=object), sizes)
    groups = groups.astype(type(labels[0]) if not isinstance(labels[0], str) else str)
    y = np.array(data.draw(st.lists(st.integers(0, 1), min_size=sum(sizes),
                                    max_size=sum(sizes))))
    starts = np.cumsum([0] + sizes[:-1])
    y[starts], y[starts + 1] = 1, 0  # every group has both labels
    lam = data.draw(st.sampled_from([0.0, 0.5, 5.0]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        try:
            xo = XOrder(metric="xauc", lam=lam, backend="numpy").fit(
                scores, y, sensitive_features=groups)
        except ValueError as err:
            assert "(subnormal)" in str(err)
            return
    assert_group_orders_kept(scores, xo.train_scores_adjusted_, groups)
    np.testing.assert_array_equal(xo.transform(scores, sensitive_features=groups),
                                  xo.train_scores_adjusted_)
    new = neighbours(scores)
    new_groups = np.tile(groups, 5)
    try:
        out = xo.transform(new, sensitive_features=new_groups)
    except ValueError as err:
        assert "no adjusted scores keep them apart" in str(err) or "overflows" in str(err)
        return
    assert_group_orders_kept(new, out, new_groups)


def test_xorder_fits_scores_up_to_the_largest_float():
    """Issue #32: scores between 1.79697e308 and the largest float (span 7e304) and
    scores from -1e308 to 1e308 (a span beyond float64) fit and transform, every group's
    order kept. (``solver="exact"``: of this problem's optimal orderings, the default
    may return one that puts two items below the lowest score, -MAX, where no float64
    lies: its crowded-gap warning then says so, rightly.)"""
    for low, high in ((1.79697e308, MAX), (-1e308, 1e308), (-MAX, MAX)):
        scores = np.linspace(low / 2, high / 2, 12) * 2
        scores[[0, -1]] = low, high
        groups = np.tile([0, 1], 6)
        y = np.tile([1, 1, 0, 0], 3)
        with warnings.catch_warnings():
            warnings.filterwarnings("error", ".*share a value")  # every gap has room
            xo = XOrder(lam=1.0, backend="numpy", solver="exact").fit(
                scores, y, sensitive_features=groups)
        assert_group_orders_kept(scores, xo.train_scores_adjusted_, groups)
        lo, hi = xo.bounds_
        assert np.isfinite([lo, hi]).all() and lo <= low and hi >= high
        new = neighbours(scores)
        out = xo.transform(new, sensitive_features=np.tile(groups, 5))
        assert_group_orders_kept(new, out, np.tile(groups, 5))


# ---------------------------------------------------------------------------------------
# The crowded-gap warning's advice follows its cause (issue #32).


def crowded_warning(scores, groups, path):
    """The warning of a fit whose ordering follows ``path`` (group per position)."""
    scores, groups = np.asarray(scores, dtype=np.float64), np.asarray(groups)
    queues = {g: list(np.flatnonzero(groups == g)[np.argsort(-scores[groups == g])])
              for g in np.unique(groups)}
    order = np.array([queues[g].pop(0) for g in path])
    with pytest.warns(UserWarning, match="share a value with a neighbour") as record:
        t = fit_transfer(scores, order, groups, 0,
                         default_bounds(scores, scores[groups == 0]))
    assert_group_orders_kept(scores, t.adjusted, groups)
    return str(record[0].message)


PROBABILITIES, LOG_ODDS = [0.3, 0.2, 0.1], [-50.0, -60.0, -70.0]


@pytest.mark.parametrize("base,other,advice", [
    (1 - 2**-52, PROBABILITIES, ADVICE_PROBABILITIES),  # saturated near 1
    (TINY, PROBABILITIES, ADVICE_PROBABILITIES),  # near 0
    (0.86, PROBABILITIES, ADVICE_ROUNDING),  # one ulp apart elsewhere
    (-1e-9, LOG_ODDS, ADVICE_ROUNDING),  # log-odds near 0: already unbounded
    (-40.0, LOG_ODDS, ADVICE_ROUNDING),  # log-odds far out
    (1 - 2**-40, LOG_ODDS, ADVICE_ROUNDING),  # log-odds near 1: no saturation there
    (1e308, [-1e308, -1.2e308, -1.4e308], ADVICE_ROUNDING),  # fitted on halves
])
def test_crowded_gap_advice_follows_its_cause(base, other, advice):
    """Two reference scores one ulp apart with three items of group 1 ordered between
    them. Log-odds are advised only where probability-like scores crowd near 0 or 1;
    the message names the pair in the scores given (also when fitted on halves)."""
    upper = ulps_from(base, 1)
    message = crowded_warning([upper, base] + other, [0, 0, 1, 1, 1], [0, 1, 1, 1, 0])
    assert f"(the closest pair: {base!r} and {upper!r})" in message
    assert message.endswith(advice)


def test_crowded_gap_at_the_largest_float_advises_rescaling():
    """A reference score that is the largest float: no float above it for the items the
    ordering ranks higher."""
    message = crowded_warning([MAX, 1e308, 1.7e308, 1.6e308], [0, 0, 1, 1], [1, 1, 0, 0])
    assert message.endswith(ADVICE_RESCALE)
