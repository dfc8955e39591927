"""From a learned ordering to scores, and from training scores to new scores.

docs/design.md, section 5. :func:`fit_transfer` learns both halves. Training: the
reference group keeps its scores; every other item is placed in the open gap between
the distinct reference scores around it in the learned ordering (end points from
:func:`default_bounds`, the range adjusted scores live in), the items of one group that
share a gap spread over it by their original scores, tied scores of a group kept tied
and distinct ones kept distinct. Test: each adjusted group gets a strictly increasing
piecewise-linear map from its original training scores to its adjusted ones (as few
knots as give back every adjusted training score bit for bit), applied to new scores by
:func:`gpu_xorder.postprocessing._maps.apply_group_maps`; beyond ``bounds`` a map is
the identity. Every group keeps its strict order, in training and
on new scores: where float64 rounding would give two distinct scores of a group one
value, they are moved apart by the fewest ulps, or a ``ValueError`` says that float64
has no room. Everything is vectorised and runs in O(n log n).

Groups are given as indices ``0..K-1`` (positions in the sorted group labels, as
:func:`gpu_xorder.utils._validation.encode_groups` returns them); the functions work for any
number of groups.
"""

import warnings
from typing import NamedTuple

import numpy as np

from ..utils._frames import user_level
from ._maps import FLOAT_MAX, from_ordinal, map_one, ordinal, strictly_increasing

MSG_SPAN = (
    "scores from {lo!r} to {hi!r} span more than float64 holds (max - min overflows), "
    "so the transfer works on half of every score, and some scores are too small to "
    "halve exactly (subnormal): rescale them (dividing every score by one positive "
    "number keeps the ranking)"
)
MSG_UNSEPARATED = (
    "{count} adjusted training scores share a value with a neighbour or lie past a "
    "reference score although the learned ordering puts them strictly between two: it "
    "puts more items between two reference scores (or a reference score and a bound) "
    "than float64 holds numbers between them (the closest pair: {lo!r} and {hi!r}); "
    "every group keeps its own strict order; {advice}"
)
MSG_NO_ROOM_TRAINING = (
    "the {count} distinct training scores of one group need as many distinct adjusted "
    "scores strictly between the bounds {lo!r} and {hi!r}, and float64 holds fewer "
    "numbers there: rescale the scores (dividing every score by one positive number "
    "keeps the ranking)"
)
#: The advice of ``MSG_UNSEPARATED``, after the closest pair: within ``NEAR_END`` of 0 or
#: 1 for probability-like scores (saturated probabilities); at the largest float; else
#: (two scores a few ulps apart elsewhere).
ADVICE_PROBABILITIES = (
    "scores on an unbounded scale keep them apart, e.g. log-odds (a model's "
    "decision_function, FairRanker(response_method='decision_function')) instead of "
    "probabilities near 0 or 1")
ADVICE_RESCALE = (
    "no float64 lies beyond the largest float: rescale the scores (dividing every score "
    "by one positive number keeps the ranking)")
ADVICE_ROUNDING = (
    "two scores that close are one value up to rounding (0.56 + 0.3 is "
    "0.8600000000000001): round the scores (e.g. to 12 digits) so that they tie")
NEAR_END = 1e-6


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
    strictly along ``order`` inside each gap (docs/design.md, section 5). Where a gap
    holds fewer floats than its items, each group's values are then moved apart by the
    fewest ulps (:func:`_keep_groups_apart`). Bounds whose span overflows float64: the
    same on half of every score, the values and knots then doubled (exact).

    Maps. A group's map is piecewise linear through knots: the ends of its runs (and
    the few points the repair moved), so that it gives every adjusted training score
    back bit for bit, plus ``(lo, lo)`` and ``(hi, hi)`` beyond its training scores;
    :func:`gpu_xorder.postprocessing._maps.apply_group_maps` makes it the identity
    beyond those.

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
        distinct ones distinct values, in the same order, always. When the reference
        scores are distinct and ``order`` splits no tie of a group, the values decrease
        strictly along ``order``. Where two reference scores are so close that float64
        holds fewer numbers between them than the items ``order`` puts there, items of
        different groups share a value and those of one group are kept apart by the
        fewest ulps, passing a reference score where needed, and a ``UserWarning``
        says so.
        ``maps``: for every other group index ``(x, y)``, ``x`` and ``y`` strictly
        increasing.

    Raises
    ------
    ValueError
        Where ``hi - lo`` overflows and some score is subnormal (the work on halves
        would merge it), or a group has more distinct scores than float64 holds
        numbers strictly inside ``bounds``.

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
    probabilities = is_probability_like(scores)
    scale = 1.0
    if hi - lo == np.inf:  # work on halves, exact but for subnormal scores
        half = scores / 2
        if not np.array_equal(half * 2, scores):
            raise ValueError(MSG_SPAN.format(lo=float(scores.min()),
                                             hi=float(scores.max())))
        scores, lo, hi, scale = half, lo / 2, hi / 2, 2.0
    adjusted = scores * scale
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
    values, knot, cramped = _place(slots, (lo, hi))
    values, moved = _keep_groups_apart(slots, values, (lo, hi), scale)
    knot |= moved
    if cramped.any():
        _warn_crowded(slots, values, cramped, probabilities, scale)
    adjusted[items] = values[slot_of] * scale
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
        maps[int(g)] = (x * scale, y * scale)
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
    """``(values, knot, cramped)`` of the slots: the values, strictly decreasing inside
    every gap that float64 can separate them in, which slots are knots of their group's
    map (every other slot lies on the straight line between its neighbouring knots, as
    :func:`map_one` evaluates it) and which lie in a gap too narrow for them."""
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
            return values, knot, cramped
        fixed = _repair(slots, values, bad)
        knot |= (fixed != values) | (culprits & bad)
        values = fixed
    knot |= bad  # the last repair holds for its whole gaps: all of them knots
    return values, knot, cramped


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
        values[inner] = map_one(slots.x[inner], slots.x[mine[at]], values[mine[at]])
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


def _room(slots, a):
    """Ordinals of gap ``a``'s bounds and the number of floats strictly inside it."""
    low, high = int(ordinal(slots.gap_lo[a])), int(ordinal(slots.gap_hi[a]))
    return low, high, high - low - 1


def _cramped_gaps(slots):
    """Mask of the slots of every gap that holds fewer floats than slots."""
    cramped = np.zeros(slots.gap.size, dtype=bool)
    gap_start, gap_stop = _gap_ends(slots)
    low, high = ordinal(slots.gap_lo[gap_start]), ordinal(slots.gap_hi[gap_start])
    # Across zero the ordinals are capped at 2**61 (more floats than any slots) so that
    # no difference overflows int64; such a gap may hold few floats (subnormals).
    across = (low < 0) & (high > 0)
    room = np.where(across, np.minimum(high, 2**61) - np.maximum(low, -2**61),
                    high - np.where(across, high, low)) - 1
    for a, b in zip(gap_start[room < gap_stop - gap_start],
                    gap_stop[room < gap_stop - gap_start]):
        cramped[a:b] = True
    return cramped


def _spread_over_floats(slots, cramped, bounds):
    """Values of the slots of cramped gaps: the floats inside the gap, top down, as
    evenly as they go (neighbours share values). With no float inside, the gap's
    reference scores: the upper one for the upper half of its slots, the lower one for
    the rest, never a bound of ``bounds``."""
    values = np.empty(int(cramped.sum()))
    gap_start, gap_stop = _gap_ends(slots)
    k = 0
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
        values[k:k + m] = from_ordinal(z.astype(np.int64))
        k += m
    return values


def _keep_groups_apart(slots, values, bounds, scale):
    """``(values, moved)``: every group's values moved by the fewest ulps that make them
    strictly decreasing along its slots (a cramped gap gives neighbours of one group one
    value; they may then pass a reference score), inside ``bounds``; a ``ValueError``
    where a group has more slots than float64 holds numbers inside ``bounds`` (its
    numbers times ``scale``, the factor of the scores given)."""
    fixed = values.copy()
    low, high = ordinal(bounds[0]) + 1, ordinal(bounds[1]) - 1
    for g in np.unique(slots.group):
        mine = np.flatnonzero(slots.group == g)[::-1]  # ascending scores
        z = ordinal(values[mine])
        if np.all(z[1:] > z[:-1]):
            continue
        apart = strictly_increasing(z, np.full(z.size, low), np.full(z.size, high))
        if apart is None:
            raise ValueError(MSG_NO_ROOM_TRAINING.format(
                count=mine.size, lo=bounds[0] * scale, hi=bounds[1] * scale))
        fixed[mine] = from_ordinal(apart)
    return fixed, fixed != values


def _warn_crowded(slots, values, cramped, probabilities, scale):
    """The ``UserWarning`` of cramped gaps: how many of their slots tie with a neighbour
    or left the gap, the closest pair of reference scores (or bounds; times ``scale``,
    the factor of the scores given) and the advice that pair calls for."""
    _, culprits = _out_of_order(slots, values)
    gap_start, _ = _gap_ends(slots)
    first = gap_start[cramped[gap_start]]
    closest = first[np.argmin(slots.gap_hi[first] - slots.gap_lo[first])]
    lo, hi = float(slots.gap_lo[closest] * scale), float(slots.gap_hi[closest] * scale)
    if probabilities and (hi <= NEAR_END or lo >= 1.0 - NEAR_END):
        advice = ADVICE_PROBABILITIES
    elif max(abs(lo), abs(hi)) == FLOAT_MAX:
        advice = ADVICE_RESCALE
    else:
        advice = ADVICE_ROUNDING
    warnings.warn(MSG_UNSEPARATED.format(count=int((culprits & cramped).sum()), lo=lo,
                                         hi=hi, advice=advice), UserWarning,
                  stacklevel=user_level())


def _repair(slots, values, bad):
    """``values`` with those of the ``bad`` gaps (each with room for its slots) moved
    by the fewest ulps that make them decrease strictly inside the gap."""
    values = values.copy()
    gap_start, gap_stop = _gap_ends(slots)
    for a, b in zip(gap_start, gap_stop):
        if not bad[a]:
            continue
        low, high, _ = _room(slots, a)
        m = b - a
        z = strictly_increasing(ordinal(values[a:b])[::-1], np.full(m, low + 1),
                                 np.full(m, high - 1))
        values[a:b] = from_ordinal(z[::-1])
    return values


def _thin(x, y, knot):
    """The knots (``knot``, both ends, and any point the map through them would not
    give back bit for bit, which :func:`_place` should leave none of)."""
    kept = knot.copy()
    kept[0] = kept[-1] = True
    while True:
        differs = (map_one(x, x[kept], y[kept]) != y) & ~kept
        if not differs.any():
            return kept
        kept |= differs


# ------------------------------------------------------------------ the range
# The range adjusted scores live in (default_bounds): the transfer places the items
# beyond the outer reference scores towards its end points, and beyond it every group's
# map is the identity.


def is_probability_like(scores) -> bool:
    """Whether every score lies in [0, 1] (the scores are then treated as probabilities)."""
    scores = np.asarray(scores, dtype=np.float64)
    return bool(scores.min() >= 0.0 and scores.max() <= 1.0)


def _mean_gap(scores):
    """Mean gap between consecutive distinct scores, at most the largest float;
    ``max(1, |s|)`` for one distinct value."""
    lo, hi = float(scores.min()), float(scores.max())
    distinct = np.unique(scores).size
    if distinct < 2:
        return max(1.0, abs(lo))
    gap = (hi - lo) / (distinct - 1)
    if gap == np.inf:  # max - min overflows (scores of both signs beyond 9e307): halves
        gap = 2 * ((hi / 2 - lo / 2) / (distinct - 1))
    return min(gap, FLOAT_MAX)


def default_bounds(scores, ref_scores):
    """End points ``(lo, hi)`` of the range the adjusted scores live in.

    Items ranked above the first reference item are placed between the top reference
    score and ``hi``, items below the last one between the bottom reference score and
    ``lo`` (see :func:`gpu_xorder.postprocessing._transfer.fit_transfer`); beyond
    ``(lo, hi)`` the maps of :func:`gpu_xorder.postprocessing._maps.apply_group_maps`
    are the identity.

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

    So ``lo <= min(scores) <= max(scores) <= hi`` and ``lo < min(ref_scores) <=
    max(ref_scores) < hi`` hold, but where a reference score is the largest (smallest)
    float itself: then ``hi`` (``lo``) is that float. ``hi - lo`` may overflow (scores of
    both signs beyond about 9e307):
    :func:`gpu_xorder.postprocessing._transfer.fit_transfer` then works on half the
    scores.

    Parameters
    ----------
    scores : array-like of shape (n,)
        All training scores (every group), finite.
    ref_scores : array-like of shape (n_ref,)
        The training scores of the reference group, non-empty.

    Returns
    -------
    (float, float)
        ``(lo, hi)``, finite.

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
    with np.errstate(over="ignore"):
        if is_probability_like(scores):
            lo, hi = 0.0, 1.0
        else:
            lo, hi = float(scores.min()) - margin, float(scores.max()) + margin
        ref_lo, ref_hi = float(ref_scores.min()), float(ref_scores.max())
        if hi <= ref_hi:
            hi = max(ref_hi + margin, float(np.nextafter(ref_hi, np.inf)))
        if lo >= ref_lo:
            lo = min(ref_lo - margin, float(np.nextafter(ref_lo, -np.inf)))
    return max(lo, -FLOAT_MAX), min(hi, FLOAT_MAX)
