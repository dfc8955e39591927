"""From training scores to new scores: every group's increasing piecewise-linear map
(knots from :func:`gpu_xorder.postprocessing._transfer.fit_transfer`) applied to new
scores (docs/design.md, section 5). Every group keeps its strict order: where float64
rounding would give two distinct scores of a group one value, they are moved apart by
the fewest ulps, or a ``ValueError`` says that float64 has no room.

That arithmetic is of float64 as ordered integers (:func:`ordinal`): consecutive floats
one apart, so that "the fewest ulps" is integer arithmetic, here and in the transfer's
repairs (:mod:`._transfer`).
"""

import numpy as np

# ------------------------------------------------------------------ float64 as integers

#: The largest float64.
FLOAT_MAX = float(np.finfo(np.float64).max)
_SIGN = np.int64(-2**63)


def ordinal(values):
    """Floats as integers in the same order, consecutive floats one apart."""
    bits = np.asarray(values, dtype=np.float64).view(np.int64)
    return np.where(bits < 0, -(bits & ~_SIGN), bits)


def from_ordinal(ordinals):
    return np.where(ordinals < 0, (-ordinals) | _SIGN, ordinals).view(np.float64)


def strictly_increasing(z, low, high):
    """Integers ``z`` moved the fewest steps that make them strictly increasing with
    ``low <= z <= high`` (both non-decreasing), lowering where they collide; None where
    no such integers exist.

    Clipped to the tightest bounds (:func:`tightest`), a running minimum from the top
    then takes each one down to one below the next where needed."""
    low, high = tightest(low, high)
    if np.any(low > high):
        return None
    t = np.arange(z.size)
    return np.minimum.accumulate((np.clip(z, low, high) - t)[::-1])[::-1] + t


def tightest(low, high):
    """The bounds of strictly increasing integers within non-decreasing ``low`` and
    ``high``: ``max(low[j] + i - j, j <= i)`` and ``min(high[j] - (j - i), j >= i)``."""
    t = np.arange(low.size)
    return (np.maximum.accumulate(low - t) + t,
            np.minimum.accumulate((high - t)[::-1])[::-1] + t)


# ------------------------------------------------------------------ the maps

MSG_MAP_OVERFLOW = (
    "the adjusted score of {value!r} overflows float64: the score lies too far outside "
    "the training scores of its group"
)
MSG_NO_ROOM_NEW = (
    "{count} distinct scores of one group, from {first!r} to {last!r}, need as many "
    "distinct adjusted scores between {lo!r} and {hi!r} (where the group's map takes "
    "them), and float64 holds fewer numbers there: no adjusted scores keep them apart; "
    "transform fewer scores at a time or rescale them"
)


def _interpolate(v, x0, x1, y0, y1):
    """The straight line through ``(x0, y0)`` and ``(x1, y1)`` at ``v``, ``x0 <= v <=
    x1``, computed as ``np.interp`` does (exactly ``y0``, ``y1`` at the ends) and kept
    within ``[y0, y1]`` (``np.interp`` can overshoot the right knot by an ulp; a slope
    that overflows, between neighbouring subnormal knots, gives ``y1``)."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        slope = (y1 - y0) / (x1 - x0)
        out = np.where(v >= x1, y1, np.where(v > x0, slope * (v - x0) + y0, y0))
    return np.clip(out, y0, y1)


def map_one(values, x, y):
    """Piecewise-linear map through knots ``(x, y)`` (:func:`_interpolate` between
    them); beyond either end a shift (slope 1), never past the end value. Knots whose
    differences overflow (fitted on halves by ``_transfer.fit_transfer``) are evaluated on
    halves, as they were fitted."""
    with np.errstate(over="ignore"):
        spans = [x[-1] - x[0], y[-1] - y[0], y[0] - x[0], y[-1] - x[-1]]
    if not np.isfinite(spans).all():
        return 2 * map_one(values / 2, x / 2, y / 2)
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


def map_one_v1(values, x, y):
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
    ``_transfer.fit_transfer`` is the identity. Groups without a map (the reference group)
    keep their scores bit for bit and are never clipped.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Scores to adjust.
    group_index : array-like of shape (n,)
        Group index of every item.
    maps : dict of int to (ndarray, ndarray)
        Knots from ``_transfer.fit_transfer``.
    clip : (float, float) or None, default=None
        ``(lo, hi)`` to clip mapped scores to (the clipping range of a version-1 model
        file).
    rule : {2, 1}, default=2
        1: the maps of version-1 model files, extended past their ends with the end
        segments' slopes (which can overflow: then a ValueError).

    Returns
    -------
    ndarray of float64, shape (n,)
        A new array. With ``rule=2`` and no ``clip``, strictly increasing in the original
        score within every group, equal scores equal: where float64 rounding puts two
        distinct scores of a group on one value (a map flatter than its scores' ulps),
        the lower ones move down by the fewest ulps that keep them apart (or up, at the
        bottom of the map's range), so those values depend on the other scores
        transformed with them and may pass a reference score or a knot's value by those
        ulps. Scores none of which collide (a fit's own training scores) get the map's
        values bit for bit. Version-1 maps (``rule=1``, ``clip``) transform as they did:
        non-decreasing.

    Raises
    ------
    ValueError
        Where a mapped score overflows float64, or (``rule=2``) more distinct scores of a
        group fall inside its knots' range than float64 holds numbers between the end
        values of its map (or beyond them than up to the largest float).

    Examples
    --------
    >>> maps = {1: (np.array([0.0, 0.1, 0.2, 1.0]), np.array([0.0, 0.6, 0.8, 1.0]))}
    >>> apply_group_maps([0.15, 0.6, 0.15], [1, 1, 0], maps).round(4).tolist()
    [0.7, 0.9, 0.15]
    """
    scores = np.asarray(scores, dtype=np.float64)
    group_index = np.asarray(group_index, dtype=np.int64)
    out = scores.copy()
    map_group = map_one if rule == 2 else map_one_v1
    # One sort by group instead of one mask per group keeps this O(n log n) for any K.
    by = np.argsort(group_index, kind="stable")
    sorted_groups = group_index[by]
    for g, (x, y) in maps.items():
        first, last = np.searchsorted(sorted_groups, [g, g + 1])
        if first == last:
            continue
        idx = by[first:last]
        with np.errstate(over="ignore"):
            mapped = map_group(scores[idx], x, y)
        if clip is not None:
            mapped = np.clip(mapped, clip[0], clip[1])
        finite = np.isfinite(mapped)
        if not finite.all():
            bad = float(scores[idx][np.argmin(finite)])
            raise ValueError(MSG_MAP_OVERFLOW.format(value=bad))
        if rule == 2 and clip is None:
            mapped = _keep_apart(scores[idx], mapped, x, y)
        out[idx] = mapped
    return out


def _keep_apart(values, mapped, x, y):
    """``mapped`` (the map through knots ``(x, y)`` of one group's ``values``) with
    distinct values strictly increasing and equal ones equal: where rounding put two on
    one float, moved by the fewest ulps, within ``[y[0], y[-1]]`` for values within
    ``[x[0], x[-1]]`` (beyond them, up to the largest float).

    The map is non-decreasing (:func:`map_one`: every piece, and the clip at its
    knots), so ``sort(mapped)`` is ``mapped`` in the order of ``sort(values)``: two
    sorts of plain floats find whether distinct values share a float, and only then
    does the group pay for the stable argsort of the repair."""
    if not _collide(values, mapped):
        return mapped
    by = np.argsort(values, kind="stable")
    new = np.ones(by.size, dtype=bool)
    new[1:] = values[by][1:] != values[by][:-1]
    first = by[new]
    z = ordinal(mapped[first])
    if np.all(z[1:] > z[:-1]):
        return mapped
    u = values[first]
    low = ordinal(np.where(u < x[0], -FLOAT_MAX, y[0]))
    high = ordinal(np.where(u > x[-1], FLOAT_MAX, y[-1]))
    apart = strictly_increasing(z, low, high)
    if apart is None:
        _refuse_crowded(u, low, high)
    out = np.empty_like(mapped)
    run = np.diff(np.append(np.flatnonzero(new), by.size))  # items per distinct value
    out[by] = np.repeat(from_ordinal(apart), run)
    return out


def _collide(values, mapped):
    """Whether two distinct ``values`` have one ``mapped`` float, ``mapped`` a
    non-decreasing function of ``values``: the sorted images tie where the sorted values
    do not. Sorting the images first spares the values' sort where no two images tie."""
    images = np.sort(mapped)
    tied = images[1:] == images[:-1]
    if not tied.any():
        return False
    inputs = np.sort(values)
    return bool(np.any(tied & (inputs[1:] != inputs[:-1])))


def _refuse_crowded(u, low, high):
    """The ``ValueError`` of :func:`_keep_apart` where the ordinals cannot be kept apart
    inside ``[low, high]``: it names the first run of distinct scores ``u`` that holds
    more of them than floats lie between their bounds."""
    tight_low, tight_high = tightest(low, high)
    p = int(np.argmax(tight_low > tight_high))
    t = np.arange(u.size)
    i = int(np.argmax((low - t)[:p + 1]))
    j = p + int(np.argmin((high - t)[p:]))
    raise ValueError(MSG_NO_ROOM_NEW.format(
        count=j - i + 1, first=float(u[i]), last=float(u[j]),
        lo=float(from_ordinal(low[i])), hi=float(from_ordinal(high[j]))))
