"""Tests of the transfer (gpu_xorder.postprocessing ``_transfer``, ``_maps``):
placing items between reference scores, the bounds and the per-group score maps."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_xorder.postprocessing._maps import apply_group_maps, map_one_v1
from gpu_xorder.postprocessing._transfer import (
    default_bounds,
    fit_transfer,
    is_probability_like,
)
from support.oracles import equal_pairs, within_group_changes
from support.properties import examples


def merged_order(scores, groups, path):
    """The order that takes the groups' descending (stable) sequences along ``path``."""
    scores, groups = np.asarray(scores, float), np.asarray(groups)
    seqs = {g: list(np.flatnonzero(groups == g)[np.argsort(-scores[groups == g],
                                                           kind="stable")])
            for g in np.unique(groups)}
    return np.array([seqs[g].pop(0) for g in path], dtype=np.int64)


def transfer(scores, path, groups, reference=0, bounds=(0.0, 1.0)):
    order = merged_order(scores, groups, path)
    return fit_transfer(scores, order, groups, reference, bounds)


# ---------------------------------------------------------------------------------------
# Hand-computed cases (docs/design.md, section 5: a run of a group spreads over its
# piece of the gap by its scores, the ends at f = place between half-way points).


def test_two_items_between_two_reference_scores():
    # One run of two scores, no neighbours: half the mean spacing on either side, so
    # f = 3/4 and 1/4 of the gap (0.5, 0.9).
    t = transfer([0.9, 0.5, 0.2, 0.1], [0, 1, 1, 0], [0, 0, 1, 1])
    assert t.adjusted[0] == 0.9 and t.adjusted[1] == 0.5
    np.testing.assert_allclose(t.adjusted[2:], [0.8, 0.6], rtol=0, atol=1e-15)


def test_items_of_a_gap_spread_by_their_scores():
    # Scores 0.40, 0.39, 0.10 between the reference scores 0.9 and 0.5: uniform spacing
    # would give 0.8, 0.7, 0.6; by score the first two stay close.
    t = transfer([0.9, 0.5, 0.40, 0.39, 0.10], [0, 1, 1, 1, 0], [0, 0, 1, 1, 1])
    f_top, f_bot = 0.375 / 0.45, 0.075 / 0.45  # half-spacing 0.075 beyond either end
    y_top, y_bot = 0.5 + 0.4 * f_top, 0.5 + 0.4 * f_bot
    inner = y_bot + (0.39 - 0.10) * (y_top - y_bot) / 0.3
    np.testing.assert_allclose(t.adjusted[2:], [y_top, inner, y_bot], rtol=0, atol=1e-15)


def test_items_beyond_the_reference_range_and_three_groups():
    # Order: b 0.7, c 0.6 | ref 0.8 | b 0.5 | ref 0.4 | c 0.2, b 0.1.
    scores = [0.8, 0.4, 0.7, 0.5, 0.1, 0.6, 0.2]
    groups = [0, 0, 1, 1, 1, 2, 2]
    t = transfer(scores, [1, 2, 0, 1, 0, 2, 1], groups)
    # Gap (0.8, 1) holds b then c: pieces (0.9, 1) and (0.8, 0.9) (cut half-way between
    # the uniform positions 1 - 0.2/3 and 1 - 0.4/3); each single score sits where it
    # lies between the half-way points to its group's neighbours (mirrored at an end):
    # in the middle. Gap (0.4, 0.8): b 0.5 has neighbours 0.7 and 0.1, so f = 0.2/0.3.
    expected = [0.8, 0.4, 0.95, 0.4 + 0.4 * 2 / 3, 0.1, 0.85, 0.3]
    np.testing.assert_allclose(t.adjusted, expected, rtol=0, atol=1e-15)


def test_items_between_equal_reference_scores_go_to_the_nearer_end():
    # Reference 0.8, 0.5, 0.5, 0.5, 0.2. b 0.6 has one of the three 0.5s above it: it
    # goes above them; b 0.55 has two above: below them, with b 0.3.
    scores = [0.8, 0.5, 0.5, 0.5, 0.2, 0.6, 0.55, 0.3]
    groups = [0, 0, 0, 0, 0, 1, 1, 1]
    t = transfer(scores, [0, 0, 1, 0, 1, 0, 1, 0], groups)
    a = t.adjusted
    assert 0.5 < a[5] < 0.8 and 0.2 < a[7] < a[6] < 0.5
    # On a draw (one equal score above, one below) the item goes to the top.
    t = transfer([0.5, 0.5, 0.4], [0, 1, 0], [0, 0, 1], bounds=(0.0, 1.0))
    assert 0.5 < t.adjusted[2] < 1.0


@pytest.mark.parametrize("path,low,high", [([0, 1, 0, 1, 1, 0], 0.3, 0.6),
                                           ([0, 1, 1, 0, 1, 0], 0.6, 0.9)])
def test_a_split_tie_of_a_group_moves_with_its_median(path, low, high):
    scores = [0.9, 0.6, 0.3, 0.5, 0.5, 0.5]
    groups = [0, 0, 0, 1, 1, 1]
    a = transfer(scores, path, groups).adjusted
    assert a[3] == a[4] == a[5] and low < a[3] < high


def test_a_split_tie_in_a_gap_shared_with_another_group():
    # In the gap below 0.9: c 0.7, b 0.4, c 0.7. The tie of c goes where its median
    # (the first, of two) is: above b.
    scores = [0.9, 0.4, 0.7, 0.7]
    groups = [0, 1, 2, 2]
    a = transfer(scores, [0, 2, 1, 2], groups).adjusted
    assert a[2] == a[3] and 0.9 > a[2] > a[1] > 0.0


def test_maps_give_the_training_scores_back_with_the_run_ends_as_knots():
    rng = np.random.default_rng(0)
    b = np.sort(rng.random(50))[::-1] * 0.4
    scores = np.concatenate(([0.9, 0.5], b))
    groups = np.repeat([0, 1], [2, 50])
    t = transfer(scores, [0] + [1] * 50 + [0], groups)
    x, y = t.maps[1]
    assert x.tolist() == [0.0, b[-1], b[0], 1.0] and y[0] == 0.0 and y[-1] == 1.0
    out = apply_group_maps(scores, groups, t.maps)
    np.testing.assert_array_equal(out, t.adjusted)
    assert np.all(np.diff(t.adjusted[2:]) < 0) and 0.5 < t.adjusted[2:].min()


def test_apply_group_maps_interpolates_and_is_the_identity_beyond_the_bounds():
    maps = {1: (np.array([0.0, 0.2, 0.4, 1.0]), np.array([0.0, 0.5, 0.9, 1.0])),
            2: (np.array([0.3]), np.array([0.45]))}
    scores = np.array([0.3, 0.7, -0.5, 1.5, 0.9, 0.0, 0.7, 0.123456789])
    groups = np.array([1, 1, 1, 1, 2, 2, 0, 0])
    out = apply_group_maps(scores, groups, maps)
    expected = [0.7, 0.95, -0.5, 1.5, 1.05, 0.15, 0.7, 0.123456789]
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-15)
    assert out[2] == -0.5 and out[3] == 1.5 and out[-1] == scores[-1]


def test_version_1_maps_extend_their_end_segments_and_clip():
    """The rule of model files of version 1, kept so that they transform as they did."""
    maps = {1: (np.array([0.2, 0.4, 0.6]), np.array([0.5, 0.6, 0.9])),
            2: (np.array([0.3]), np.array([0.45]))}
    scores = np.array([0.3, 0.5, 0.1, 0.8, 0.9, 0.0, 0.7, 0.123456789])
    groups = np.array([1, 1, 1, 1, 2, 2, 0, 0])
    expected = [0.55, 0.75, 0.45, 1.2, 1.05, 0.15, 0.7, 0.123456789]
    out = apply_group_maps(scores, groups, maps, rule=1)
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-15)
    clipped = apply_group_maps(scores, groups, maps, clip=(0.0, 1.0), rule=1)
    np.testing.assert_allclose(clipped, np.minimum(expected, 1.0), rtol=0, atol=1e-15)
    # np.interp alone gives -0.5699999999999998 just left of the knot (0, -0.57).
    knots = (np.array([-3.0, 0.0]), np.array([-3.866, -0.57]))
    assert map_one_v1(np.array([-5e-324, 0.0]), *knots).tolist() == [-0.57, -0.57]
    steep = {1: (np.array([0.0, 1.0]), np.array([0.0, 1e300]))}
    with pytest.raises(ValueError, match="adjusted score of 1e\\+300 overflows float64"):
        apply_group_maps([0.5, 1e300], [1, 1], steep, rule=1)


def test_maps_monotone_at_the_ulp_level():
    # Knots whose segment np.interp overshoots by an ulp at its right end; the three
    # scores' straight lines give one float, -0.57, and they are kept apart below it.
    maps = {1: (np.array([-3.0, 0.0]), np.array([-3.866, -0.57]))}
    out = apply_group_maps([-5e-324, 0.0, 1e-300], [1, 1, 1], maps)
    below = np.nextafter(-0.57, -1.0)
    assert out.tolist() == [float(np.nextafter(below, -1.0)), float(below), -0.57]


def test_apply_group_maps_returns_a_new_array():
    scores = np.array([0.2, 0.4])
    out = apply_group_maps(scores, [0, 0], {})
    assert out is not scores and np.array_equal(out, scores)


def test_inputs_not_modified():
    scores = np.array([0.9, 0.5, 0.3, 0.2, 0.3])
    groups = np.array([0, 0, 1, 1, 1])
    order = np.array([0, 2, 4, 3, 1])
    copies = [a.copy() for a in (scores, groups, order)]
    t = fit_transfer(scores, order, groups, 0, (0.0, 1.0))
    maps_copy = {g: (x.copy(), y.copy()) for g, (x, y) in t.maps.items()}
    apply_group_maps(scores, groups, t.maps)
    for a, c in zip((scores, groups, order), copies):
        assert np.array_equal(a, c)
    for g in t.maps:
        assert np.array_equal(t.maps[g][0], maps_copy[g][0])
        assert np.array_equal(t.maps[g][1], maps_copy[g][1])


# ---------------------------------------------------------------------------------------
# Floating point: gaps too narrow for their items, huge scores.


def _in_narrow_gap(m, ulps, b_scores=None):
    """``m`` items of group 1 between the reference scores 0.5 and 0.5 + ``ulps`` ulps."""
    top = 0.5
    for _ in range(ulps):
        top = float(np.nextafter(top, 1.0))
    b = np.linspace(0.4, 0.1, m) if b_scores is None else b_scores
    scores = np.concatenate(([top, 0.5], b))
    groups = np.repeat([0, 1], [2, m])
    return scores, groups, transfer(scores, [0] + [1] * m + [0], groups)


def test_a_gap_with_just_enough_floats_gives_each_item_its_own():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scores, groups, t = _in_narrow_gap(3, 4)
    inside = t.adjusted[2:]
    assert np.all(np.diff(inside) < 0) and inside.min() > 0.5 and inside.max() < scores[0]
    np.testing.assert_array_equal(apply_group_maps(scores, groups, t.maps), t.adjusted)


@pytest.mark.parametrize("ulps,shared", [(1, 3), (2, 2), (3, 1)])
def test_a_gap_with_too_few_floats_keeps_the_group_apart_and_warns(ulps, shared):
    """Three distinct scores of group 1 ranked between 0.5 and 0.5 + 1, 2 or 3 ulps
    (0, 1 or 2 floats inside): they take three consecutive floats, from the top of the
    gap down, the lowest ones on or past 0.5; the warning counts those not strictly
    inside or tied."""
    with pytest.warns(UserWarning, match=f"^{shared} adjusted training scores share a "
                                         "value with a neighbour or lie past a reference "
                                         ".* every group keeps its own strict order"):
        scores, groups, t = _in_narrow_gap(3, ulps)
    inside = t.adjusted[2:]
    assert inside.max() == (scores[0] if ulps == 1 else np.nextafter(scores[0], 0.0))
    np.testing.assert_array_equal(inside[1:], np.nextafter(inside[:-1], 0.0))
    assert (inside <= 0.5).sum() + (inside >= scores[0]).sum() == shared
    np.testing.assert_array_equal(apply_group_maps(scores, groups, t.maps), t.adjusted)


def test_rounding_in_a_narrow_gap_is_repaired_to_the_ulp():
    # 200 scores spread over 300 floats: the straight line collides on neighbours, the
    # repair separates them and the maps still give every value back.
    scores, groups, t = _in_narrow_gap(200, 301)
    inside = t.adjusted[2:]
    assert np.all(np.diff(inside) < 0) and inside.min() > 0.5 and inside.max() < scores[0]
    np.testing.assert_array_equal(apply_group_maps(scores, groups, t.maps), t.adjusted)
    assert np.all(np.diff(t.maps[1][1]) > 0)


def test_probabilities_at_the_ends_of_the_unit_interval():
    """Reference scores 1 - 2**-52, 0.5 and the smallest subnormal; other items above,
    between and below them. Between the top reference score and 1 lies one float, and
    none between 0 and 5e-324: the items the ordering puts there keep their group's
    strict order by taking the reference score or passing it by an ulp (with a warning),
    never leaving (0, 1); the others get distinct values strictly inside."""
    top, tiny = 1 - 2.0**-52, 5e-324
    scores = np.array([top, 0.5, tiny, 0.999, 0.998, 0.7, 0.6, 0.1, 0.0])
    groups = np.array([0, 0, 0, 1, 1, 1, 1, 1, 1])
    with pytest.warns(UserWarning, match="^3 adjusted training scores share a value"):
        t = transfer(scores, [1, 1, 0, 1, 1, 0, 0, 1, 1], groups)
    a = t.adjusted
    assert a[3] == 1 - 2.0**-53 and a[4] == top  # the one float above the top reference
    assert 0.5 < a[6] < a[5] < top
    # nothing lies between 0 and the smallest subnormal: the reference score and the
    # float above it, not 0
    assert a[8] == tiny and a[7] == 2 * tiny
    assert within_group_changes(scores, a, groups) == (0, 0, 0)
    np.testing.assert_array_equal(apply_group_maps(scores, groups, t.maps), a)
    new = np.array([0.0, 1e-300, 0.3, 0.9995, 1.0])
    out = apply_group_maps(new, np.ones(5, dtype=int), t.maps)
    assert np.all((out >= 0) & (out <= 1)) and np.all(np.diff(out) > 0)


def test_huge_scores_give_finite_values_everywhere():
    """Six finite scores in 1e308..1.6e308, two tied in one group (issue #25): every
    adjusted score, knot and transformed score is finite."""
    scores = np.array([1.6e308, 1.2e308, 1.0e308, 1.5e308, 1.5e308, 1.1e308])
    groups = np.array([0, 0, 0, 1, 1, 1])
    bounds = default_bounds(scores, scores[:3])
    assert np.isfinite(bounds).all() and bounds[1] - bounds[0] < np.inf
    for path in ([1, 1, 0, 0, 1, 0], [0, 1, 0, 1, 0, 1], [0, 0, 0, 1, 1, 1]):
        t = transfer(scores, path, groups, bounds=bounds)
        assert np.isfinite(t.adjusted).all()
        assert t.adjusted[3] == t.adjusted[4] > t.adjusted[5]
        x, y = t.maps[1]
        assert np.isfinite(x).all() and np.isfinite(y).all()
        new = np.array([-1.79e308, 1.79e308, 0.0, 1.3e308, 1.5e308, 1.05e308])
        out = apply_group_maps(new, np.ones(6, dtype=int), t.maps)
        assert np.isfinite(out).all() and np.all(np.diff(out[np.argsort(new)]) > 0)
        np.testing.assert_array_equal(apply_group_maps(scores, groups, t.maps), t.adjusted)


def test_default_bounds_stop_at_the_largest_float():
    lo, hi = default_bounds([1e308, 1.6e308], [1.6e308])
    assert hi == np.finfo(np.float64).max and lo == pytest.approx(0.4e308)
    # a reference score that is the largest float (issue #32): hi is that float
    top = np.finfo(np.float64).max
    lo, hi = default_bounds([1.79697e308, top], [top])
    assert hi == top and lo == pytest.approx(1.79697e308 - (top - 1.79697e308))


# ---------------------------------------------------------------------------------------
# Bounds.


def test_default_bounds_probability_like():
    assert default_bounds([0.2, 0.9, 0.5], [0.9, 0.5]) == (0.0, 1.0)
    assert is_probability_like([0.0, 1.0]) and not is_probability_like([0.5, 1.5])


def test_default_bounds_extend_by_the_mean_gap_when_reference_sits_on_a_bound():
    # Mean gap of the distinct scores 0, 0.5, 1: 0.5.
    lo, hi = default_bounds([0.0, 1.0, 0.5, 1.0], [1.0, 0.0])
    assert (lo, hi) == (-0.5, 1.5)
    lo, hi = default_bounds([0.2, 1.0, 0.6], [1.0, 0.6])
    assert lo == 0.0 and hi == pytest.approx(1.4)


def test_default_bounds_other_scales():
    assert default_bounds([-2.0, 3.0, 0.5], [3.0, 0.5]) == (-4.5, 5.5)
    assert default_bounds([-2.0, 3.0, 0.5], [0.5]) == (-4.5, 5.5)
    lo, hi = default_bounds([5.0, 5.0], [5.0])
    assert (lo, hi) == (0.0, 10.0)


def test_default_bounds_huge_scores_stay_strict():
    lo, hi = default_bounds([1e300, 1e300 * (1 + 1e-15)], [1e300 * (1 + 1e-15)])
    assert hi > 1e300 * (1 + 1e-15) and lo < 1e300


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=20),
       st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=5))
def test_default_bounds_enclose_the_reference(scores, ref):
    scores = np.concatenate((scores, ref))
    lo, hi = default_bounds(scores, ref)
    assert lo < min(ref) and hi > max(ref)
    assert lo <= scores.min() and hi >= scores.max()


# A reference score that is the largest float leaves no float above it: the warning.
@pytest.mark.filterwarnings("ignore:.*no float64 lies beyond the largest float")
@pytest.mark.parametrize("scores", [[1e308, -1e308, 0.5], [6e307, -6e307, 5e307, -5e307],
                                    [np.finfo(np.float64).max, 0.0],
                                    [-np.finfo(np.float64).max, np.finfo(np.float64).max]])
def test_scores_beyond_the_float64_span_are_transferred_on_halves(scores):
    """Finite scores whose span overflows (issue #32): finite bounds, and the transfer
    works on half of every score: finite adjusted scores and knots, every group's order
    kept, the maps giving the adjusted scores back bit for bit."""
    scores = np.array(scores)
    lo, hi = default_bounds(scores, scores[:1])
    assert np.isfinite([lo, hi]).all() and hi - lo == np.inf
    assert lo <= scores.min() and hi >= scores.max()
    groups = np.array([0] + [1] * (scores.size - 1))
    for path in ([0] + [1] * (scores.size - 1), [1] * (scores.size - 1) + [0]):
        t = transfer(scores, path, groups, bounds=(lo, hi))
        assert np.isfinite(t.adjusted).all() and t.adjusted[0] == scores[0]
        assert all(np.isfinite(knots).all() for knots in t.maps[1])
        assert within_group_changes(scores, t.adjusted, groups) == (0, 0, 0)
        np.testing.assert_array_equal(apply_group_maps(scores, groups, t.maps), t.adjusted)


def test_a_span_beyond_float64_with_subnormal_scores_is_refused():
    """Halving a subnormal score loses its last bit: such scores with a span that
    overflows are refused, naming both causes."""
    scores = np.array([1e308, -1e308, 5e-324, 1e-323])
    bounds = default_bounds(scores, scores[:1])
    with pytest.raises(ValueError, match=r"span more than float64 holds .*\(subnormal\)"):
        transfer(scores, [0, 1, 1, 1], np.array([0, 1, 1, 1]), bounds=bounds)


# ---------------------------------------------------------------------------------------
# Random inputs: any number of groups, any interleaving, ties anywhere.


@st.composite
def transfer_case(draw):
    k = draw(st.integers(2, 4))
    sizes = draw(st.lists(st.integers(1, 8), min_size=k, max_size=k))
    reference = draw(st.integers(0, k - 1))
    groups = np.repeat(np.arange(k), sizes)
    n = groups.size
    ticks = draw(st.lists(st.integers(0, 10**6), min_size=n, max_size=n, unique=True))
    scores = np.array(ticks, dtype=float) / 10**6
    # Other groups tie among themselves and with the reference; the reference may tie
    # too (then its equal scores are at least 1e-6 from the others).
    ties = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    others = groups != reference
    scores[others] = np.round(scores[others], ties[others].min() + 1)
    if draw(st.booleans()):
        scores[~others] = np.round(scores[~others], 1)
    # Probabilities, a wider positive scale, logit-like scores around 0.
    factor, shift = draw(st.sampled_from([(1.0, 0.0), (7.0, 0.0), (6.0, -3.0)]))
    scores = scores * factor + shift
    perm = draw(st.permutations(groups.tolist()))
    order = merged_order(scores, groups, perm)
    return scores, groups, reference, order


def _splits_no_tie(scores, groups, reference, order):
    """Whether ``order`` keeps the reference scores distinct and every tie of a group
    together (no other item between tied items)."""
    ref = scores[groups == reference]
    if np.unique(ref).size < ref.size:
        return False
    s, g = scores[order], groups[order]
    for value_group in set(zip(s[g != reference].tolist(), g[g != reference].tolist())):
        at = np.flatnonzero((s == value_group[0]) & (g == value_group[1]))
        if at[-1] - at[0] + 1 != at.size:
            return False
    return True


@settings(max_examples=examples(150), deadline=None)
@given(transfer_case())
def test_adjusted_scores_keep_every_group_order_and_realise_the_interleaving(case):
    scores, groups, reference, order = case
    is_ref = groups == reference
    bounds = default_bounds(scores, scores[is_ref])
    adjusted = fit_transfer(scores, order, groups, reference, bounds).adjusted
    assert np.array_equal(adjusted[is_ref], scores[is_ref])
    assert np.all((adjusted[~is_ref] > bounds[0]) & (adjusted[~is_ref] < bounds[1]))
    # Every group's order kept exactly: no new ties, none broken, none reversed.
    assert within_group_changes(scores, adjusted, groups) == (0, 0, 0)
    # No other item takes a reference score (each lies inside a gap).
    assert not np.isin(adjusted[~is_ref], scores[is_ref]).any()
    if _splits_no_tie(scores, groups, reference, order):
        # The learned interleaving, item for item: decreasing along the order, strictly
        # but between tied items of one group.
        a, s, g = adjusted[order], scores[order], groups[order]
        same = (s[1:] == s[:-1]) & (g[1:] == g[:-1])
        assert np.all(np.where(same, np.diff(a) == 0, np.diff(a) < 0))


@settings(max_examples=examples(150), deadline=None)
@given(transfer_case(), st.lists(st.floats(-10, 10), min_size=1, max_size=30))
def test_maps_strictly_increasing_and_exact_on_the_training_scores(case, extra):
    scores, groups, reference, order = case
    is_ref = groups == reference
    bounds = default_bounds(scores, scores[is_ref])
    t = fit_transfer(scores, order, groups, reference, bounds)
    assert set(t.maps) == set(np.unique(groups[~is_ref]).tolist())
    for x, y in t.maps.values():
        assert np.all(np.diff(x) > 0) and np.all(np.diff(y) > 0)
    # The maps give every adjusted training score back bit for bit.
    np.testing.assert_array_equal(apply_group_maps(scores, groups, t.maps), t.adjusted)
    # New scores, inside and outside the training range, in every group.
    lo, hi = bounds
    grid = np.linspace(lo - 1, hi + 1, 101)
    new = np.concatenate((scores, np.asarray(extra), grid))
    new_groups = np.concatenate((groups, np.resize(np.arange(groups.max() + 1),
                                                   len(extra)),
                                 np.full(grid.size, groups[~is_ref][0])))
    out = apply_group_maps(new, new_groups, t.maps)
    for g in np.unique(new_groups):
        sel = new_groups == g
        by = np.argsort(new[sel], kind="stable")
        assert np.all(np.diff(out[sel][by]) >= 0)
        if g == reference:
            assert np.array_equal(out[sel], new[sel])
    # Strictly increasing on well separated scores; the identity beyond the bounds
    # (unless a training score sits on a bound: then a shift); scores inside the bounds
    # stay inside.
    on_grid = out[-grid.size:]
    assert np.all(np.diff(on_grid) > 0)
    x, y = t.maps[groups[~is_ref][0]]
    below, above = grid < lo, grid > hi
    if (x[0], y[0]) == (lo, lo):
        assert np.array_equal(on_grid[below], grid[below])
    if (x[-1], y[-1]) == (hi, hi):
        assert np.array_equal(on_grid[above], grid[above])
    inside = ~below & ~above
    assert np.all((on_grid[inside] >= lo) & (on_grid[inside] <= hi))
    assert equal_pairs(out[-grid.size:], np.zeros(grid.size)) == 0


def test_crowded_gap_advice_names_the_cause():
    """Saturated probabilities: log-odds; two reference scores one ulp apart elsewhere
    (0.56 + 0.3 and 0.86): rounding, which makes them one tie."""
    top = 1 - 2.0**-52
    scores = np.array([top, 0.5, 0.999, 0.998, 0.997])
    groups = np.array([0, 0, 1, 1, 1])
    with pytest.warns(UserWarning, match="instead of probabilities near 0 or 1"):
        transfer(scores, [1, 1, 1, 0, 0], groups)  # three items above 1 - 2**-52
    assert 0.56 + 0.3 == float(np.nextafter(0.86, 1.0))
    scores = np.array([0.56 + 0.3, 0.86, 0.7, 0.6, 0.5])
    with pytest.warns(UserWarning, match=r"round the scores \(e\.g\. to 12 digits\)"):
        transfer(scores, [0, 1, 1, 1, 0], groups)  # three items between them
