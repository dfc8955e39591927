"""Float64 as ordered integers: consecutive floats one apart, so that "the fewest ulps"
is integer arithmetic (the transfer's repairs, :mod:`._transfer` and :mod:`._maps`)."""

import numpy as np

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
