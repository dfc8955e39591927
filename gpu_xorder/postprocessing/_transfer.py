"""From a learned ordering to scores, and from training scores to new scores.

docs/design.md, section 5. :func:`fit_transfer` learns both halves. Training: the
reference group keeps its scores; every other item is placed in the open gap between
the distinct reference scores around it in the learned ordering (end points from
:func:`default_bounds`), the items of one group that share a gap spread over it by their
original scores, tied scores of a group kept tied and distinct ones kept distinct.
Test: each adjusted group gets a strictly increasing piecewise-linear map from its
original training scores to its adjusted ones (as few knots as give back every adjusted
training score bit for bit), applied to new scores by :func:`apply_group_maps`; beyond
``bounds`` a map is the identity. Everything is vectorised and runs in O(n log n).

Groups are given as indices ``0..K-1`` (positions in the sorted group labels, as
:func:`gpu_xorder.utils._validation.encode_groups` returns them); the functions work for any
number of groups.
"""

import warnings
from typing import NamedTuple

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
MSG_UNSEPARATED = (
    "{count} adjusted training scores share a value with a neighbour although their "
    "scores differ: the learned ordering puts more items between two reference scores "
    "(or a reference score and a bound) than float64 holds numbers between them (the "
    "closest pair: {lo!r} and {hi!r}); {advice}"
)
#: The advice of ``MSG_UNSEPARATED``: where the closest pair lies within ``NEAR_END`` of
#: 0 or 1 (saturated probabilities), else (two scores a few ulps apart elsewhere).
ADVICE_PROBABILITIES = (
    "scores on an unbounded scale keep them apart, e.g. log-odds (a model's "
    "decision_function, FairRanker(response_method='decision_function')) instead of "
    "probabilities near 0 or 1")
ADVICE_ROUNDING = (
    "two scores that close are one value up to rounding (0.56 + 0.3 is "
    "0.8600000000000001): round the scores (e.g. to 12 digits) so that they tie")
NEAR_END = 1e-6

_FLOAT_MAX = float(np.finfo(np.float64).max)
_SIGN = np.int64(-2**63)


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
    with np.errstate(over="ignore"):
        return (hi - lo) / (distinct - 1)


def default_bounds(scores, ref_scores):
    """End points ``(lo, hi)`` of the range the adjusted scores live in.

    Items ranked above the first reference item are placed between the top reference
    score and ``hi``, items below the last one between the bottom reference score and
    ``lo`` (see :func:`fit_transfer`); beyond ``(lo, hi)`` the maps of
    :func:`apply_group_maps` are the identity.

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
       float is taken instead; should it overflow, the largest finite float.

    So ``lo < min(ref_scores) <= max(ref_scores) < hi`` always holds, and
    ``lo <= min(scores) <= max(scores) <= hi``.

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
    s_lo, s_hi = float(scores.min()), float(scores.max())
    with np.errstate(over="ignore"):
        if is_probability_like(scores):
            lo, hi = 0.0, 1.0
        else:
            lo, hi = s_lo - margin, s_hi + margin
        ref_lo, ref_hi = float(ref_scores.min()), float(ref_scores.max())
        if hi <= ref_hi:
            hi = max(ref_hi + margin, float(np.nextafter(ref_hi, np.inf)))
        if lo >= ref_lo:
            lo = min(ref_lo - margin, float(np.nextafter(ref_lo, -np.inf)))
        if hi > _FLOAT_MAX and s_hi < _FLOAT_MAX:
            hi = _FLOAT_MAX
        if lo < -_FLOAT_MAX and s_lo > -_FLOAT_MAX:
            lo = -_FLOAT_MAX
        span = hi - lo
    if not np.isfinite(span):
        raise ValueError(MSG_SPAN.format(lo=s_lo, hi=s_hi))
    return lo, hi


class Transfer(NamedTuple):
    """What :func:`fit_transfer` learns."""

    adjusted: np.ndarray  # adjusted training scores, shape (n,)
    maps: dict            # group index -> knots (x, y) of its map (no reference group)


def fit_transfer(scores, order, group_index, reference, bounds) -> Transfer:
    """Scores that realise the learned ordering, the reference group's scores kept, and
    the increasing map of every other group that carries them over to new scores.

    Training. The distinct reference scores and ``bounds`` cut the line into open
    gaps; every other item goes into the gap between the reference scores above and
    below it in ``order``. An item that ``order`` puts between *equal* reference scores
    (no float lies between them) goes to the nearer end of their run, and tied scores
    of one group that ``order`` splits go, all together, where their median item is:
    no values realise those orders, and these choices change the fewest pairs. Within
    a gap the items of one group that follow each other in ``order`` (a run) take a
    piece of the gap in proportion to their count and spread over it by their original
    scores, linearly; float64 rounding is repaired to the ulp so that values decrease
    strictly along ``order`` inside each gap (docs/design.md, section 5).

    Maps. A group's map is piecewise linear through knots: the ends of its runs (and
    the few points the repair moved), so that it gives every adjusted training score
    back bit for bit, plus ``(lo, lo)`` and ``(hi, hi)`` beyond its training scores;
    :func:`apply_group_maps` makes it the identity beyond those.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Original training scores.
    order : array-like of shape (n,)
        The learned ordering: input indices, top first, a permutation that keeps every
        group's descending score order (``FairOrderResult.order``).
    group_index : array-like of shape (n,)
        Group index of every item.
    reference : int
        Group index of the reference group; it must occur in ``group_index``.
    bounds : (float, float)
        ``(lo, hi)`` with ``lo <`` every reference score ``< hi`` and every score in
        ``[lo, hi]`` (see :func:`default_bounds`).

    Returns
    -------
    Transfer
        ``adjusted``: a new array; reference items hold their original scores bit for
        bit, the others lie strictly inside ``(lo, hi)`` and strictly between the
        reference scores around them; within a group equal scores get equal values and
        distinct ones distinct values, in the same order. When the reference scores are
        distinct and ``order`` splits no tie of a group, the values decrease strictly
        along ``order``. Where two reference scores are so close that float64 holds
        fewer numbers between them than the items ``order`` puts there, neighbours
        share a value (never reversed) and a ``UserWarning`` says so.
        ``maps``: for every other group index ``(x, y)``, ``x`` strictly increasing and
        ``y`` increasing (strictly unless it warned).

    Examples
    --------
    >>> t = fit_transfer([0.9, 0.5, 0.2, 0.1], [0, 2, 3, 1], [0, 0, 1, 1], 0, (0.0, 1.0))
    >>> t.adjusted.round(4).tolist()
    [0.9, 0.5, 0.8, 0.6]
    >>> [knots.round(4).tolist() for knots in t.maps[1]]
    [[0.0, 0.1, 0.2, 1.0], [0.0, 0.6, 0.8, 1.0]]
    """
    scores = np.asarray(scores, dtype=np.float64)
    order = np.asarray(order, dtype=np.int64)
    group_index = np.asarray(group_index, dtype=np.int64)
    lo, hi = float(bounds[0]), float(bounds[1])
    adjusted = scores.copy()
    is_ref = group_index[order] == reference
    ref_values = scores[order[is_ref]]
    other = np.flatnonzero(~is_ref)  # positions in order of the items to place
    if other.size == 0:
        return Transfer(adjusted, {})
    items = order[other]
    gap = _out_of_reference_ties(np.cumsum(is_ref)[other], ref_values)
    gap, key = _keep_group_ties(gap, other, group_index[items], scores[items])

    # Slots: one per (gap, tie) in descending order; tied items share their slot.
    seq = np.lexsort((key, gap))
    new_slot = np.ones(seq.size, dtype=bool)
    new_slot[1:] = (gap[seq][1:] != gap[seq][:-1]) | (key[seq][1:] != key[seq][:-1])
    first = seq[new_slot]
    slot_of = np.empty(seq.size, dtype=np.int64)
    slot_of[seq] = np.cumsum(new_slot) - 1
    slots = _Slots(gap[first], group_index[items[first]], scores[items[first]],
                   np.concatenate(([hi], ref_values))[gap[first]],
                   np.concatenate((ref_values, [lo]))[gap[first]])
    values, knot = _place(slots, (lo, hi))
    adjusted[items] = values[slot_of]
    maps = {}
    for g in np.unique(slots.group):
        mine = np.flatnonzero(slots.group == g)[::-1]  # ascending scores
        x, y = slots.x[mine], values[mine]
        kept = _thin(x, y, knot[mine])
        x, y = x[kept], y[kept]
        if lo < x[0] and lo < y[0]:
            x, y = np.insert(x, 0, lo), np.insert(y, 0, lo)
        if hi > x[-1] and hi > y[-1]:
            x, y = np.append(x, hi), np.append(y, hi)
        maps[int(g)] = (x, y)
    return Transfer(adjusted, maps)


class _Slots(NamedTuple):
    """The values to place, in descending order gap by gap: each one's gap, group,
    original score and the gap's bounds."""

    gap: np.ndarray
    group: np.ndarray
    x: np.ndarray
    gap_hi: np.ndarray
    gap_lo: np.ndarray


def _out_of_reference_ties(above, ref_values):
    """The gap of every item to place: the number of reference items above it, moved to
    the nearer end of a run of equal reference scores it sits inside (to the top on a
    draw), so that every gap lies between two distinct values."""
    r = ref_values.size
    if r < 2:
        return above
    boundary = np.flatnonzero(np.diff(ref_values) != 0) + 1  # first index of each run
    run_start = np.concatenate(([0], boundary))
    run_end = np.concatenate((boundary, [r]))  # one past the run's last index
    inside = (above > 0) & (above < r)
    inside[inside] = ref_values[above[inside] - 1] == ref_values[above[inside]]
    run = np.searchsorted(run_start, above[inside], side="right") - 1
    a, b = run_start[run], run_end[run]
    k = above[inside]
    moved = above.copy()
    moved[inside] = np.where(k - a <= b - k, a, b)
    return moved


def _keep_group_ties(gap, position, group, x):
    """``(gap, key)``: the items of a run of equal scores of one group all take the gap
    of the run's median item, and its position in the order as their sort key (others
    keep their own position), so that the run forms one slot."""
    by = np.lexsort((position, group))  # each group's items top down
    g, s = group[by], x[by]
    start = np.ones(by.size, dtype=bool)
    start[1:] = (g[1:] != g[:-1]) | (s[1:] != s[:-1])
    starts = np.flatnonzero(start)
    lengths = np.diff(np.append(starts, by.size))
    median = by[np.repeat(starts + (lengths - 1) // 2, lengths)]
    out_gap, key = np.empty_like(gap), np.empty_like(position)
    out_gap[by], key[by] = gap[median], position[median]
    return out_gap, key


#: Rounds of ulp repair before every slot of a gap still out of order becomes a knot.
_REPAIR_ROUNDS = 4


def _place(slots, bounds):
    """``(values, knot)`` of the slots: the values, strictly decreasing inside every gap
    that float64 can separate them in, and which slots are knots of their group's map
    (every other slot lies on the straight line between its neighbouring knots, as
    :func:`_map_one` evaluates it)."""
    values, knot = _run_ends(slots)
    cramped = _cramped_gaps(slots)
    if cramped.any():
        values[cramped] = _spread_over_floats(slots, cramped, bounds)
        knot |= cramped
    for _ in range(_REPAIR_ROUNDS + 1):
        values = _along_knots(slots, values, knot)
        bad, culprits = _out_of_order(slots, values)
        bad &= ~cramped
        if not bad.any():
            return values, knot
        fixed = _repair(slots, values, bad)
        knot |= (fixed != values) | (culprits & bad)
        values = fixed
    knot |= bad  # the last repair holds for its whole gaps: all of them knots
    return values, knot


def _gap_ends(slots):
    """First slot of every gap and one past its last."""
    new_gap = np.ones(slots.gap.size, dtype=bool)
    new_gap[1:] = slots.gap[1:] != slots.gap[:-1]
    starts = np.flatnonzero(new_gap)
    return starts, np.append(starts[1:], slots.gap.size)


def _run_ends(slots):
    """Values of the slots that end a run (the others NaN), and the mask of those.

    A gap with ``m`` slots is cut at the midpoints of the uniform positions
    ``hi_k - t (hi_k - lo_k) / (m + 1)`` between consecutive runs of one group; a run
    spreads over its piece ``(c_lo, c_hi)`` by its original scores: an end gets
    ``c_lo + f (c_hi - c_lo)``, ``f`` the place of its score between the half-way points
    to the group's neighbouring scores."""
    n = slots.gap.size
    gap_start, gap_stop = _gap_ends(slots)
    gap_size = gap_stop - gap_start
    t = np.arange(n) - np.repeat(gap_start, gap_size) + 1  # 1..m within the gap
    m = np.repeat(gap_size, gap_size)
    step = (slots.gap_hi - slots.gap_lo) / (m + 1)
    run_start = np.zeros(n, dtype=bool)
    run_start[gap_start] = True
    run_start[1:] |= slots.group[1:] != slots.group[:-1]
    starts = np.flatnonzero(run_start)
    ends = np.append(starts[1:], n) - 1
    c_hi = np.where(t[starts] == 1, slots.gap_hi[starts],
                    slots.gap_hi[starts] - (t[starts] - 0.5) * step[starts])
    c_lo = np.where(t[ends] == m[ends], slots.gap_lo[ends],
                    slots.gap_hi[ends] - (t[ends] + 0.5) * step[ends])

    # The group's next higher and next lower score: its previous and next slot.
    by = np.lexsort((np.arange(n), slots.group))
    same = slots.group[by][1:] == slots.group[by][:-1]
    higher = np.full(n, np.nan)
    lower = np.full(n, np.nan)
    higher[by[1:][same]] = slots.x[by[:-1][same]]
    lower[by[:-1][same]] = slots.x[by[1:][same]]
    x_top, x_bot = slots.x[starts], slots.x[ends]
    # Half-way to the neighbouring scores; a missing neighbour mirrors the other side,
    # two missing ones give half the run's mean spacing. In quarters, so that no sum
    # exceeds the largest float (the span hi - lo is finite).
    width = (x_top - x_bot) / 4
    d_hi = (higher[starts] - x_top) / 8
    d_lo = (x_bot - lower[ends]) / 8
    d_hi = np.where(np.isnan(d_hi), d_lo, d_hi)
    d_lo = np.where(np.isnan(d_lo), d_hi, d_lo)
    spacing = width / (2 * np.maximum(ends - starts, 1))
    d_hi = np.where(np.isnan(d_hi), spacing, d_hi)
    d_lo = np.where(np.isnan(d_lo), spacing, d_lo)
    room = width + d_hi + d_lo
    safe = np.where(room > 0, room, 1.0)
    f_top = np.where(room > 0, (width + d_lo) / safe, 0.5)
    f_bot = np.where(room > 0, d_lo / safe, 0.5)

    values = np.full(n, np.nan)
    values[starts] = c_lo + f_top * (c_hi - c_lo)
    values[ends] = c_lo + f_bot * (c_hi - c_lo)
    knot = np.zeros(n, dtype=bool)
    knot[starts] = knot[ends] = True
    return values, knot


def _along_knots(slots, values, knot):
    """``values`` with every slot that is not a knot put on its group's line between
    the neighbouring knots."""
    values = values.copy()
    for g in np.unique(slots.group[~knot]):
        mine = np.flatnonzero(slots.group == g)[::-1]  # ascending scores
        at = knot[mine]
        inner = mine[~at]
        values[inner] = _map_one(slots.x[inner], slots.x[mine[at]], values[mine[at]])
    return values


def _out_of_order(slots, values):
    """``(bad, culprits)``: masks of the slots of every gap whose values do not decrease
    strictly inside it, and of the slots out of their gap or not below the slot before
    them (with that one)."""
    culprits = (values <= slots.gap_lo) | (values >= slots.gap_hi)
    same_gap = slots.gap[1:] == slots.gap[:-1]
    tied = same_gap & (values[1:] >= values[:-1])
    culprits[1:] |= tied
    culprits[:-1] |= tied
    gap_start, gap_stop = _gap_ends(slots)
    bad = np.repeat(np.logical_or.reduceat(culprits, gap_start), gap_stop - gap_start)
    return bad, culprits


def _ordinal(values):
    """Floats as integers in the same order, consecutive floats one apart."""
    bits = np.asarray(values, dtype=np.float64).view(np.int64)
    return np.where(bits < 0, -(bits & ~_SIGN), bits)


def _from_ordinal(ordinals):
    return np.where(ordinals < 0, (-ordinals) | _SIGN, ordinals).view(np.float64)


def _room(slots, a):
    """Ordinals of gap ``a``'s bounds and the number of floats strictly inside it."""
    low, high = int(_ordinal(slots.gap_lo[a])), int(_ordinal(slots.gap_hi[a]))
    return low, high, high - low - 1


def _cramped_gaps(slots):
    """Mask of the slots of every gap that holds fewer floats than slots."""
    cramped = np.zeros(slots.gap.size, dtype=bool)
    gap_start, gap_stop = _gap_ends(slots)
    low, high = _ordinal(slots.gap_lo[gap_start]), _ordinal(slots.gap_hi[gap_start])
    # A gap across zero holds about 2**63 floats (and the difference would overflow).
    room = np.where((low < 0) & (high > 0), 2**62, high - low - 1)
    for a, b in zip(gap_start[room < gap_stop - gap_start],
                    gap_stop[room < gap_stop - gap_start]):
        cramped[a:b] = True
    return cramped


def _spread_over_floats(slots, cramped, bounds):
    """Values of the slots of cramped gaps: the floats inside the gap, top down, as
    evenly as they go (neighbours share values), and a ``UserWarning``. With no float
    inside, the gap's reference scores: the upper one for the upper half of its slots,
    the lower one for the rest, never a bound of ``bounds``."""
    values = np.empty(int(cramped.sum()))
    gap_start, gap_stop = _gap_ends(slots)
    shared, closest, k = 0, None, 0
    for a, b in zip(gap_start, gap_stop):
        if not cramped[a]:
            continue
        m = b - a
        low, high, room = _room(slots, a)
        t = np.arange(m)
        if room >= 1:
            z = high - 1 - (t * (room - 1)) // max(m - 1, 1)
        elif slots.gap_hi[a] == bounds[1]:
            z = np.full(m, low)
        elif slots.gap_lo[a] == bounds[0]:
            z = np.full(m, high)
        else:
            z = np.where(2 * t < m, high, low)
        shared += m - np.unique(z[(z > low) & (z < high)]).size
        if closest is None or slots.gap_hi[a] - slots.gap_lo[a] < closest[1] - closest[0]:
            closest = (float(slots.gap_lo[a]), float(slots.gap_hi[a]))
        values[k:k + m] = _from_ordinal(z.astype(np.int64))
        k += m
    lo, hi = closest
    near_end = hi <= NEAR_END or lo >= 1.0 - NEAR_END
    warnings.warn(MSG_UNSEPARATED.format(
        count=shared, lo=lo, hi=hi,
        advice=ADVICE_PROBABILITIES if near_end else ADVICE_ROUNDING),
        UserWarning, stacklevel=4)
    return values


def _repair(slots, values, bad):
    """``values`` with those of the ``bad`` gaps (each with room for its slots) moved
    by the fewest ulps that make them decrease strictly inside the gap."""
    values = values.copy()
    gap_start, gap_stop = _gap_ends(slots)
    for a, b in zip(gap_start, gap_stop):
        if not bad[a]:
            continue
        m = b - a
        low, high, _ = _room(slots, a)
        t = np.arange(m)
        z = np.clip(_ordinal(values[a:b]), low + m - t, high - 1 - t)
        values[a:b] = _from_ordinal(np.minimum.accumulate(z + t) - t)
    return values


def _thin(x, y, knot):
    """The knots (``knot``, both ends, and any point the map through them would not
    give back bit for bit, which :func:`_place` should leave none of)."""
    kept = knot.copy()
    kept[0] = kept[-1] = True
    while True:
        differs = (_map_one(x, x[kept], y[kept]) != y) & ~kept
        if not differs.any():
            return kept
        kept |= differs


def _interpolate(v, x0, x1, y0, y1):
    """The straight line through ``(x0, y0)`` and ``(x1, y1)`` at ``v``, ``x0 <= v <=
    x1``, computed as ``np.interp`` does (exactly ``y0``, ``y1`` at the ends) and kept
    within ``[y0, y1]`` (``np.interp`` can overshoot the right knot by an ulp; a slope
    that overflows, over knots a few subnormals apart, is clipped there too)."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        slope = (y1 - y0) / (x1 - x0)
        out = np.where(v >= x1, y1, np.where(v > x0, slope * (v - x0) + y0, y0))
    return np.clip(out, y0, y1)


def _map_one(values, x, y):
    """Piecewise-linear map through knots ``(x, y)`` (:func:`_interpolate` between
    them); beyond either end a shift (slope 1), never past the end value."""
    if x.size == 1:
        return values + (y[0] - x[0])
    segment = np.clip(np.searchsorted(x, values, side="right") - 1, 0, x.size - 2)
    out = _interpolate(values, x[segment], x[segment + 1], y[segment], y[segment + 1])
    below, above = values < x[0], values > x[-1]
    if below.any():
        out[below] = np.minimum(values[below] + (y[0] - x[0]), y[0])
    if above.any():
        out[above] = np.maximum(values[above] + (y[-1] - x[-1]), y[-1])
    return out


def _map_one_v1(values, x, y):
    """The map of version-1 model files: ``np.interp`` inside, the end segments' slopes
    outside (kept so that such files transform as they did)."""
    if x.size == 1:
        return values + (y[0] - x[0])
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


def apply_group_maps(scores, group_index, maps, clip=None, *, rule=2):
    """Transfer the learned adjustment to (new) scores, group by group.

    Inside a group's knots the map interpolates linearly; beyond them it shifts the
    score (slope 1), which past the end points ``(lo, lo)`` and ``(hi, hi)`` of
    :func:`fit_transfer` is the identity. Groups without a map (the reference group)
    keep their scores bit for bit and are never clipped.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Scores to adjust.
    group_index : array-like of shape (n,)
        Group index of every item.
    maps : dict of int to (ndarray, ndarray)
        Knots from :func:`fit_transfer`.
    clip : (float, float) or None, default=None
        ``(lo, hi)`` to clip mapped scores to (the clipping range of a version-1 model
        file).
    rule : {2, 1}, default=2
        1: the maps of version-1 model files, extended past their ends with the end
        segments' slopes (which can overflow: then a ValueError).

    Returns
    -------
    ndarray of float64, shape (n,)
        A new array; non-decreasing in the original score within every group (strictly
        increasing but for float64 rounding, with ``rule=2`` and strictly increasing
        knots).

    Examples
    --------
    >>> maps = {1: (np.array([0.0, 0.1, 0.2, 1.0]), np.array([0.0, 0.6, 0.8, 1.0]))}
    >>> apply_group_maps([0.15, 0.6, 0.15], [1, 1, 0], maps).round(4).tolist()
    [0.7, 0.9, 0.15]
    """
    scores = np.asarray(scores, dtype=np.float64)
    group_index = np.asarray(group_index, dtype=np.int64)
    out = scores.copy()
    map_one = _map_one if rule == 2 else _map_one_v1
    # One sort by group instead of one mask per group keeps this O(n log n) for any K.
    by = np.argsort(group_index, kind="stable")
    sorted_groups = group_index[by]
    for g, (x, y) in maps.items():
        first, last = np.searchsorted(sorted_groups, [g, g + 1])
        if first == last:
            continue
        idx = by[first:last]
        with np.errstate(over="ignore"):
            mapped = map_one(scores[idx], x, y)
        if clip is not None:
            mapped = np.clip(mapped, clip[0], clip[1])
        finite = np.isfinite(mapped)
        if not finite.all():
            bad = float(scores[idx][np.argmin(finite)])
            raise ValueError(MSG_MAP_OVERFLOW.format(value=bad))
        out[idx] = mapped
    return out
