"""From a learned ordering to scores, and from training scores to new scores.

docs/design.md, section 5. Training: the reference group keeps its scores and every
other item is placed by uniform interpolation between the reference scores around it in
the learned ordering (:func:`adjusted_training_scores`, with end points from
:func:`default_bounds`).
Test: each adjusted group gets a monotone piecewise-linear map from its original training
scores to its adjusted ones (:func:`fit_group_maps`), applied to new scores by
:func:`apply_group_maps`. Everything is vectorised and runs in O(n log n).

Groups are given as indices ``0..K-1`` (positions in the sorted group labels, as
:func:`gpu_xorder.utils._validation.encode_groups` returns them); the functions work for any
number of groups.
"""

import numpy as np

MSG_SPAN = (
    "scores from {lo!r} to {hi!r} span more than float64 can hold around them (the "
    "adjusted scores need max - min plus a margin below 1.8e308); rescale them (dividing "
    "every score by one positive number keeps the ranking)"
)
MSG_MAP_OVERFLOW = (
    "the adjusted score of {value!r} overflows float64: the score lies too far outside "
    "the training scores of its group"
)


def is_probability_like(scores) -> bool:
    """Whether every score lies in [0, 1] (the scores are then treated as probabilities)."""
    scores = np.asarray(scores, dtype=np.float64)
    return bool(scores.min() >= 0.0 and scores.max() <= 1.0)


def _mean_gap(scores):
    """Mean gap between consecutive distinct scores; ``max(1, |s|)`` for one distinct value."""
    lo, hi = float(scores.min()), float(scores.max())
    distinct = np.unique(scores).size
    if distinct < 2:
        return max(1.0, abs(lo))
    return (hi - lo) / (distinct - 1)


def default_bounds(scores, ref_scores):
    """End points ``(lo, hi)`` towards which the items outside the reference range move.

    Items ranked above the first reference item are interpolated between ``hi`` and the top
    reference score, items below the last one between the bottom reference score and
    ``lo`` (see :func:`adjusted_training_scores`).

    What is done, exactly:

    1. ``margin``: the mean gap between consecutive distinct values of ``scores``, i.e.
       ``(max - min) / (u - 1)`` with ``u`` distinct values; when all scores are equal,
       ``max(1, |score|)``.
    2. Probability-like scores (all in [0, 1]): ``(lo, hi) = (0, 1)``. Otherwise the
       observed range widened by one margin: ``(min - margin, max + margin)``.
    3. In every case ``hi`` is raised to ``max(ref_scores) + margin`` when it is not above
       the top reference score (a reference score of 1 for probabilities), and ``lo`` is
       lowered to ``min(ref_scores) - margin`` when it is not below the bottom one. Should
       the margin vanish in floating point next to a huge score, the next representable
       float is taken instead.

    So ``lo < min(ref_scores) <= max(ref_scores) < hi`` always holds, and the adjusted
    scores are strictly ordered whenever the reference scores are distinct.

    Parameters
    ----------
    scores : array-like of shape (n,)
        All training scores (every group), finite.
    ref_scores : array-like of shape (n_ref,)
        The training scores of the reference group, non-empty.

    Returns
    -------
    (float, float)
        ``(lo, hi)``.

    Raises
    ------
    ValueError
        When ``hi - lo`` overflows float64 (scores spanning about 1.8e308 or more).

    Examples
    --------
    >>> default_bounds([0.2, 0.9, 0.5], [0.9, 0.5])
    (0.0, 1.0)
    >>> default_bounds([0.2, 1.0, 0.6], [1.0, 0.6])
    (0.0, 1.4)
    >>> default_bounds([-2.0, 3.0, 0.5], [3.0, 0.5])
    (-4.5, 5.5)
    """
    scores = np.asarray(scores, dtype=np.float64)
    ref_scores = np.asarray(ref_scores, dtype=np.float64)
    margin = _mean_gap(scores)
    if is_probability_like(scores):
        lo, hi = 0.0, 1.0
    else:
        lo, hi = float(scores.min()) - margin, float(scores.max()) + margin
    ref_lo, ref_hi = float(ref_scores.min()), float(ref_scores.max())
    if hi <= ref_hi:
        hi = max(ref_hi + margin, float(np.nextafter(ref_hi, np.inf)))
    if lo >= ref_lo:
        lo = min(ref_lo - margin, float(np.nextafter(ref_lo, -np.inf)))
    with np.errstate(over="ignore"):
        span = hi - lo
    if not np.isfinite(span):
        raise ValueError(MSG_SPAN.format(lo=float(scores.min()), hi=float(scores.max())))
    return lo, hi


def adjusted_training_scores(scores, order, group_index, reference, bounds):
    """Scores that realise the learned ordering, the reference group's scores kept.

    The reference items split ``order`` into gaps. The ``m`` non-reference items of one
    gap (of any groups), between reference scores ``s_hi`` above and ``s_lo`` below, get
    ``s_hi - t (s_hi - s_lo) / (m + 1)`` for ``t = 1..m`` top down. Above the first
    reference item ``s_hi`` is ``bounds[1]``; below the last one ``s_lo`` is ``bounds[0]``.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Original training scores.
    order : array-like of shape (n,)
        The learned ordering: input indices, top first, a permutation that keeps the
        reference group's descending score order (``FairOrderResult.order``).
    group_index : array-like of shape (n,)
        Group index of every item.
    reference : int
        Group index of the reference group; it must occur in ``group_index``.
    bounds : (float, float)
        ``(lo, hi)`` with ``lo <`` every reference score ``< hi``
        (see :func:`default_bounds`).

    Returns
    -------
    ndarray of float64, shape (n,)
        A new array; reference items hold their original scores bit for bit. Along
        ``order`` the values never increase, and they strictly decrease when the reference
        scores are distinct (as long as each gap is wide enough in floating point to hold
        its items).

    Examples
    --------
    >>> adjusted_training_scores([0.9, 0.5, 0.2, 0.1], [0, 2, 3, 1], [0, 0, 1, 1], 0,
    ...                          (0.0, 1.0)).round(4).tolist()
    [0.9, 0.5, 0.7667, 0.6333]
    """
    scores = np.asarray(scores, dtype=np.float64)
    order = np.asarray(order, dtype=np.int64)
    group_index = np.asarray(group_index)
    lo, hi = float(bounds[0]), float(bounds[1])
    n = order.size

    is_ref = group_index[order] == reference
    ref_pos = np.flatnonzero(is_ref)
    # Anchor k is the score above gap k; anchor k + 1 the score below it.
    anchors = np.concatenate(([hi], scores[order[ref_pos]], [lo]))
    anchor_pos = np.concatenate(([-1], ref_pos, [n]))
    gap = np.cumsum(is_ref)
    s_hi, s_lo = anchors[gap], anchors[gap + 1]
    t = np.arange(n) - anchor_pos[gap]
    m = anchor_pos[gap + 1] - anchor_pos[gap] - 1
    step = (s_hi - s_lo) / (m + 1)
    # Rounding could step just past s_lo in a gap of a few ulps; keep every value inside.
    inside = np.clip(s_hi - t * step, s_lo, s_hi)

    adjusted = np.empty(n, dtype=np.float64)
    adjusted[order] = np.where(is_ref, scores[order], inside)
    return adjusted


def fit_group_maps(scores, adjusted, group_index, reference):
    """Knots of the monotone map of every non-reference group, original -> adjusted.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Original training scores.
    adjusted : array-like of shape (n,)
        Adjusted training scores (:func:`adjusted_training_scores`).
    group_index : array-like of shape (n,)
        Group index of every item.
    reference : int
        Group index of the reference group (gets no map).

    Returns
    -------
    dict of int to (ndarray, ndarray)
        For every other group index ``g`` occurring in ``group_index``: ``(x, y)`` with
        ``x`` the sorted distinct training scores of ``g`` and ``y`` the mean adjusted
        score of its items with that score, made non-decreasing.

    Examples
    --------
    >>> maps = fit_group_maps([0.9, 0.5, 0.2, 0.1], [0.9, 0.5, 0.8, 0.6], [0, 0, 1, 1], 0)
    >>> [v.tolist() for v in maps[1]]
    [[0.1, 0.2], [0.6, 0.8]]
    """
    scores = np.asarray(scores, dtype=np.float64)
    adjusted = np.asarray(adjusted, dtype=np.float64)
    group_index = np.asarray(group_index, dtype=np.int64)
    keep = group_index != reference
    g, s, a = group_index[keep], scores[keep], adjusted[keep]
    if g.size == 0:
        return {}
    by = np.lexsort((s, g))
    g, s, a = g[by], s[by], a[by]
    # One knot per distinct (group, score) run.
    starts = np.flatnonzero(np.concatenate(([True], (g[1:] != g[:-1]) | (s[1:] != s[:-1]))))
    knot_g, knot_x = g[starts], s[starts]
    counts = np.diff(np.append(starts, g.size))
    knot_y = np.add.reduceat(a, starts) / counts
    maps = {}
    group_starts = np.flatnonzero(np.concatenate(([True], knot_g[1:] != knot_g[:-1])))
    for first, last in zip(group_starts, np.append(group_starts[1:], knot_g.size)):
        # Means of tied runs can break monotonicity by an ulp; the map must not.
        y = np.maximum.accumulate(knot_y[first:last])
        maps[int(knot_g[first])] = (knot_x[first:last].copy(), y)
    return maps


def _map_one(values, x, y):
    """Piecewise-linear map through knots ``(x, y)``, extended linearly past either end."""
    if x.size == 1:
        return values + (y[0] - x[0])
    # np.interp works from the left knot of a segment and can overshoot the right knot by
    # an ulp; clipping to the segment's knots keeps the map monotone bit for bit.
    segment = np.clip(np.searchsorted(x, values, side="right") - 1, 0, x.size - 2)
    out = np.clip(np.interp(values, x, y), y[segment], y[segment + 1])
    below, above = values < x[0], values > x[-1]
    if below.any():
        slope = (y[1] - y[0]) / (x[1] - x[0])
        out[below] = y[0] + slope * (values[below] - x[0])
    if above.any():
        slope = (y[-1] - y[-2]) / (x[-1] - x[-2])
        out[above] = y[-1] + slope * (values[above] - x[-1])
    return out


def apply_group_maps(scores, group_index, maps, clip=None):
    """Transfer the learned adjustment to (new) scores, group by group.

    Inside a group's training range the map interpolates linearly between its knots
    (``np.interp``); outside it the map goes on linearly with the slope of the nearest end
    segment (a group with a single knot is shifted by ``y - x``). Groups without a map
    (the reference group) keep their scores bit for bit and are never clipped.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Scores to adjust.
    group_index : array-like of shape (n,)
        Group index of every item.
    maps : dict of int to (ndarray, ndarray)
        Knots from :func:`fit_group_maps`.
    clip : (float, float) or None, default=None
        ``(lo, hi)`` to clip mapped scores to (used for probability-like scores).

    Returns
    -------
    ndarray of float64, shape (n,)
        A new array; non-decreasing in the original score within every group.

    Examples
    --------
    >>> maps = {1: (np.array([0.1, 0.2]), np.array([0.6, 0.8]))}
    >>> apply_group_maps([0.15, 0.3, 0.15], [1, 1, 0], maps, clip=(0.0, 1.0)).tolist()
    [0.7, 1.0, 0.15]
    """
    scores = np.asarray(scores, dtype=np.float64)
    group_index = np.asarray(group_index, dtype=np.int64)
    out = scores.copy()
    # One sort by group instead of one mask per group keeps this O(n log n) for any K.
    by = np.argsort(group_index, kind="stable")
    sorted_groups = group_index[by]
    for g, (x, y) in maps.items():
        first, last = np.searchsorted(sorted_groups, [g, g + 1])
        if first == last:
            continue
        idx = by[first:last]
        with np.errstate(over="ignore"):
            mapped = _map_one(scores[idx], x, y)
        if clip is not None:
            mapped = np.clip(mapped, clip[0], clip[1])
        finite = np.isfinite(mapped)
        if not finite.all():
            bad = float(scores[idx][np.argmin(finite)])
            raise ValueError(MSG_MAP_OVERFLOW.format(value=bad))
        out[idx] = mapped
    return out
