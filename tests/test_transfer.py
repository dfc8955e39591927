"""Tests of gpu_xorder.postprocessing._transfer: interpolation, bounds and the per-group score maps."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_xorder.postprocessing._transfer import (
    adjusted_training_scores,
    apply_group_maps,
    default_bounds,
    fit_group_maps,
    is_probability_like,
)


def merged_order(scores, groups, path):
    """The order that takes the groups' descending (stable) sequences along ``path``."""
    scores, groups = np.asarray(scores, float), np.asarray(groups)
    seqs = {g: list(np.flatnonzero(groups == g)[np.argsort(-scores[groups == g],
                                                           kind="stable")])
            for g in np.unique(groups)}
    return np.array([seqs[g].pop(0) for g in path], dtype=np.int64)


# ---------------------------------------------------------------------------------------
# Hand-computed cases.


def test_two_items_between_two_reference_scores():
    scores = [0.9, 0.5, 0.3, 0.2]
    groups = [0, 0, 1, 1]
    adjusted = adjusted_training_scores(scores, [0, 2, 3, 1], groups, 0, (0.0, 1.0))
    assert adjusted[0] == 0.9 and adjusted[1] == 0.5
    assert adjusted[2] == pytest.approx(0.9 - 0.4 / 3, abs=1e-15)
    assert adjusted[3] == pytest.approx(0.9 - 0.8 / 3, abs=1e-15)
    assert adjusted[2:].round(4).tolist() == [0.7667, 0.6333]


def test_items_beyond_the_reference_range_move_towards_the_bounds():
    # Order: b, c | ref 0.8 | b | ref 0.4 | c, b.
    scores = [0.8, 0.4, 0.7, 0.5, 0.1, 0.6, 0.2]
    groups = [0, 0, 1, 1, 1, 2, 2]
    order = [2, 5, 0, 3, 1, 6, 4]
    adjusted = adjusted_training_scores(scores, order, groups, 0, (0.0, 1.0))
    expected = np.empty(7)
    expected[[0, 1]] = [0.8, 0.4]
    expected[[2, 5]] = [1 - 0.2 / 3, 1 - 0.4 / 3]
    expected[3] = 0.6
    expected[[6, 4]] = [0.4 - 0.4 / 3, 0.4 - 0.8 / 3]
    np.testing.assert_allclose(adjusted, expected, rtol=0, atol=1e-15)


def test_reference_only_order_keeps_scores():
    scores = np.array([0.3, 0.7, 0.1])
    adjusted = adjusted_training_scores(scores, [1, 0, 2], [0, 0, 0], 0, (0.0, 1.0))
    assert np.array_equal(adjusted, scores)


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


def test_fit_group_maps_averages_ties_and_skips_the_reference():
    scores = [0.9, 0.5, 0.3, 0.3, 0.1, 0.3]
    adjusted = [0.9, 0.5, 0.8, 0.6, 0.2, 0.7]
    groups = [0, 0, 1, 1, 1, 2]
    maps = fit_group_maps(scores, adjusted, groups, 0)
    assert sorted(maps) == [1, 2]
    np.testing.assert_array_equal(maps[1][0], [0.1, 0.3])
    np.testing.assert_allclose(maps[1][1], [0.2, 0.7])
    np.testing.assert_array_equal(maps[2][0], [0.3])
    np.testing.assert_array_equal(maps[2][1], [0.7])


def test_apply_group_maps_interpolates_and_extrapolates():
    maps = {1: (np.array([0.2, 0.4, 0.6]), np.array([0.5, 0.6, 0.9])),
            2: (np.array([0.3]), np.array([0.45]))}
    scores = np.array([0.3, 0.5, 0.1, 0.8, 0.9, 0.0, 0.7, 0.123456789])
    groups = np.array([1, 1, 1, 1, 2, 2, 0, 0])
    out = apply_group_maps(scores, groups, maps)
    expected = [0.55, 0.75, 0.45, 1.2, 1.05, 0.15, 0.7, 0.123456789]
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-15)
    clipped = apply_group_maps(scores, groups, maps, clip=(0.0, 1.0))
    np.testing.assert_allclose(clipped, np.minimum(expected, 1.0), rtol=0, atol=1e-15)
    # Reference untouched bit for bit, never clipped.
    assert clipped[-1] == scores[-1]
    out_of_range = apply_group_maps([1.7], [0], maps, clip=(0.0, 1.0))
    assert out_of_range[0] == 1.7


def test_apply_group_maps_monotone_at_the_ulp_level():
    # np.interp alone gives -0.5699999999999998 just left of the knot (0, -0.57).
    maps = {1: (np.array([-3.0, 0.0]), np.array([-3.866, -0.57]))}
    out = apply_group_maps([-5e-324, 0.0], [1, 1], maps)
    assert out.tolist() == [-0.57, -0.57]


def test_apply_group_maps_returns_a_new_array():
    scores = np.array([0.2, 0.4])
    out = apply_group_maps(scores, [0, 0], {})
    assert out is not scores and np.array_equal(out, scores)


def test_inputs_not_modified():
    scores = np.array([0.9, 0.5, 0.3, 0.2, 0.3])
    groups = np.array([0, 0, 1, 1, 1])
    order = np.array([0, 2, 4, 3, 1])
    copies = [a.copy() for a in (scores, groups, order)]
    adjusted = adjusted_training_scores(scores, order, groups, 0, (0.0, 1.0))
    adjusted_copy = adjusted.copy()
    maps = fit_group_maps(scores, adjusted, groups, 0)
    maps_copy = {g: (x.copy(), y.copy()) for g, (x, y) in maps.items()}
    apply_group_maps(scores, groups, maps, clip=(0.0, 1.0))
    for a, c in zip((scores, groups, order), copies):
        assert np.array_equal(a, c)
    assert np.array_equal(adjusted, adjusted_copy)
    for g in maps:
        assert np.array_equal(maps[g][0], maps_copy[g][0])
        assert np.array_equal(maps[g][1], maps_copy[g][1])


# ---------------------------------------------------------------------------------------
# Random inputs: any number of groups, any interleaving.


@st.composite
def transfer_case(draw):
    k = draw(st.integers(2, 4))
    sizes = draw(st.lists(st.integers(1, 8), min_size=k, max_size=k))
    reference = draw(st.integers(0, k - 1))
    groups = np.repeat(np.arange(k), sizes)
    n = groups.size
    # Reference scores distinct and at least 1e-6 apart (so every gap holds its items).
    ticks = draw(st.lists(st.integers(0, 10**6), min_size=n, max_size=n, unique=True))
    scores = np.array(ticks, dtype=float) / 10**6
    others = groups != reference
    # Other groups may tie among themselves and with the reference.
    ties = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    scores[others] = np.round(scores[others], np.array(ties)[others].min() + 1)
    # Probabilities, a wider positive scale, logit-like scores around 0.
    factor, shift = draw(st.sampled_from([(1.0, 0.0), (7.0, 0.0), (6.0, -3.0)]))
    scores = scores * factor + shift
    perm = draw(st.permutations(groups.tolist()))
    order = merged_order(scores, groups, perm)
    return scores, groups, reference, order


@settings(max_examples=150, deadline=None)
@given(transfer_case())
def test_adjusted_scores_realise_the_order(case):
    scores, groups, reference, order = case
    is_ref = groups == reference
    bounds = default_bounds(scores, scores[is_ref])
    adjusted = adjusted_training_scores(scores, order, groups, reference, bounds)
    assert np.array_equal(adjusted[is_ref], scores[is_ref])
    # Strictly decreasing along the order: argsort reproduces it.
    assert np.all(np.diff(adjusted[order]) < 0)
    assert np.array_equal(np.argsort(-adjusted, kind="stable"), order)
    assert np.all((adjusted > bounds[0]) & (adjusted < bounds[1]))


@settings(max_examples=150, deadline=None)
@given(transfer_case(), st.lists(st.floats(-10, 10), min_size=1, max_size=30))
def test_maps_monotone_and_reference_unchanged(case, extra):
    scores, groups, reference, order = case
    is_ref = groups == reference
    bounds = default_bounds(scores, scores[is_ref])
    adjusted = adjusted_training_scores(scores, order, groups, reference, bounds)
    maps = fit_group_maps(scores, adjusted, groups, reference)
    assert set(maps) == set(np.unique(groups[~is_ref]).tolist())
    for x, y in maps.values():
        assert np.all(np.diff(x) > 0) and np.all(np.diff(y) >= 0)
    # On the training data the maps give back the adjusted scores up to tie averaging.
    on_train = apply_group_maps(scores, groups, maps)
    assert np.array_equal(on_train[is_ref], scores[is_ref])
    distinct = np.array([np.sum((groups == groups[i]) & (scores == scores[i])) == 1
                         for i in range(scores.size)])
    np.testing.assert_allclose(on_train[distinct], adjusted[distinct], rtol=0, atol=1e-12)
    # New scores, inside and outside the training range, in every group.
    new = np.concatenate((scores, np.asarray(extra)))
    new_groups = np.concatenate((groups, np.resize(np.arange(groups.max() + 1),
                                                   len(extra))))
    clip = bounds if is_probability_like(scores) else None
    out = apply_group_maps(new, new_groups, maps, clip=clip)
    for g in np.unique(new_groups):
        sel = new_groups == g
        by = np.argsort(new[sel], kind="stable")
        assert np.all(np.diff(out[sel][by]) >= 0)
        if g == reference:
            assert np.array_equal(out[sel], new[sel])
        elif clip is not None:
            assert np.all((out[sel] >= clip[0]) & (out[sel] <= clip[1]))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=20),
       st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=5))
def test_default_bounds_enclose_the_reference(scores, ref):
    scores = np.concatenate((scores, ref))
    lo, hi = default_bounds(scores, ref)
    assert lo < min(ref) and hi > max(ref)
    assert lo <= scores.min() and hi >= scores.max()


@pytest.mark.parametrize("scores", [[1e308, -1e308, 0.5], [6e307, -6e307, 5e307, -5e307]])
def test_scores_beyond_the_float64_span_are_refused(scores):
    """Finite scores whose span (plus margin) overflows would give infinite bounds and
    NaN adjusted scores; the fit says so instead."""
    with pytest.raises(ValueError, match="span more than float64 can hold"):
        default_bounds(scores, scores[:2])
    lo, hi = default_bounds(np.divide(scores, 10), np.divide(scores[:2], 10))
    assert np.isfinite(hi - lo)


def test_a_map_that_overflows_is_an_error_not_inf():
    maps = {1: (np.array([0.0, 1.0]), np.array([0.0, 1e300]))}
    assert apply_group_maps([0.5, 2.0], [1, 1], maps).tolist() == [5e299, 2e300]
    with pytest.raises(ValueError, match="adjusted score of 1e\\+300 overflows float64"):
        apply_group_maps([0.5, 1e300], [1, 1], maps)
    # clipped (probability-like) maps stay finite whatever the score
    assert apply_group_maps([1e300], [1], maps, clip=(0.0, 1.0)).tolist() == [1.0]
