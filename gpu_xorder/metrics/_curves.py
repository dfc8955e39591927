"""xROC curves of two groups and their pointwise confidence bands (docs/design.md,
section 2): the positives of one group against the negatives of another over
thresholds."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

from ..utils import _params as params
from ._counts import cross_sample
from ._ranking import check_order


def xroc_curve(y_true: ArrayLike, y_score: ArrayLike, *, sensitive_features: ArrayLike,
               g: object, h: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The xROC curve of (g, h): negatives of h against positives of g over thresholds.

    Computed by :func:`sklearn.metrics.roc_curve` on the positives of g (as positives)
    and the negatives of h (as negatives), so the threshold convention is sklearn's: an
    item counts above ``t`` when its score is ``>= t``, ``thresholds`` decrease, the first
    is ``inf`` (the point (0, 0)), and collinear intermediate points are dropped. The area
    under the curve (``np.trapezoid(tpr, fpr)``) is ``xauc(y_true, y_score,
    sensitive_features=..., g=g, h=h)``.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels.
    y_score : array-like of shape (n,)
        Finite risk scores.
    sensitive_features : array-like of shape (n,) or (n, c)
        Group label of every item.
    g, h : group label
        The group of the positives and the group of the negatives.

    Returns
    -------
    fpr : ndarray of float
        P(S_0^h >= t) at each threshold.
    tpr : ndarray of float
        P(S_1^g >= t) at each threshold.
    thresholds : ndarray of float
        Decreasing thresholds.

    Raises
    ------
    TypeError
        If ``y_true`` is recognisably scores (given first, in the earlier order).
    ValueError
        As :func:`xauc`.

    Examples
    --------
    >>> fpr, tpr, thresholds = xroc_curve([1, 0, 1, 0], [3, 2, 1, 0],
    ...                                   sensitive_features=[0, 0, 1, 1], g=0, h=1)
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 1.0], [0.0, 1.0, 1.0])
    """
    check_order("xroc_curve", y_true, y_score)
    positives, negatives, _, _ = cross_sample(y_score, y_true, sensitive_features, g, h)
    sub_y = np.concatenate((np.ones(positives.size), np.zeros(negatives.size)))
    from sklearn.metrics import roc_curve  # scikit-learn: 1-2 s to import

    return roc_curve(sub_y, np.concatenate((positives, negatives)))


class XrocBand(NamedTuple):
    """A pointwise band of an xROC curve: at every threshold, the intervals of its shares.

    The band's edges are the curves through ``(fpr_low, tpr_high)`` and through
    ``(fpr_high, tpr_low)``.

    Attributes
    ----------
    thresholds : ndarray
        The thresholds, decreasing.
    fpr_low, fpr_high : ndarray
        The interval of the share of negatives of h scoring ``>= t`` at each threshold.
    tpr_low, tpr_high : ndarray
        The interval of the share of positives of g scoring ``>= t`` at each threshold.
    """

    thresholds: np.ndarray
    fpr_low: np.ndarray
    fpr_high: np.ndarray
    tpr_low: np.ndarray
    tpr_high: np.ndarray


def xroc_band(y_true: ArrayLike, y_score: ArrayLike, *, sensitive_features: ArrayLike,
              g: object, h: object, level: float = 0.95, max_points: int = 400) -> XrocBand:
    """A pointwise confidence band of the xROC curve of (g, h).

    At a threshold t the curve's point is (share of negatives of h scoring ``>= t``,
    share of positives of g scoring ``>= t``): two binomial proportions of independent
    samples. Each gets its Clopper-Pearson (exact) interval at level ``sqrt(level)``,
    so the point lies in their rectangle with probability at least ``level``; the
    rectangles of all thresholds make the band (docs/design.md, section 2).

    Parameters
    ----------
    y_true, y_score, sensitive_features, g, h : as in :func:`xroc_curve`
        The labels, scores, groups and the ordered pair of groups.
    level : float, default=0.95
        Coverage of the point at each threshold, strictly between 0 and 1.
    max_points : int, default=400
        At most this many thresholds (an integer >= 2, of any integer type), evenly
        spread over the distinct scores from the highest to the lowest (where the point
        is (1, 1), its box the proportions' intervals at n of n), besides the threshold
        ``inf``, whose point (0, 0) is exact.

    Returns
    -------
    XrocBand
        The thresholds and the curve's pointwise lower and upper bounds.

    Raises
    ------
    TypeError
        If ``y_true`` is recognisably scores (given first, in the earlier order).
    ValueError
        As :func:`xroc_curve`, or on a bad ``level``.

    Examples
    --------
    >>> band = xroc_band([1, 0, 1, 0] * 25, [3, 2, 1, 0] * 25,
    ...                  sensitive_features=[0, 0, 1, 1] * 25, g=0, h=1)
    >>> band.thresholds.tolist()  # the positives of 0 score 3, the negatives of 1 score 0
    [inf, 3.0, 0.0]
    >>> [round(float(x), 3) for x in (band.tpr_low[1], band.tpr_high[1])]  # 25 of 25
    [0.84, 1.0]
    """
    from scipy.stats import beta

    level = params.check("level", level)
    max_points = params.check("max_points", max_points)
    check_order("xroc_band", y_true, y_score)
    positives, negatives, _, _ = cross_sample(y_score, y_true, sensitive_features, g, h)
    distinct = np.unique(np.concatenate((positives, negatives)))[::-1]
    if distinct.size > max_points:
        distinct = distinct[np.linspace(0, distinct.size - 1, max_points).round()
                            .astype(np.int64)]
    alpha = 1.0 - np.sqrt(level)

    def shares(sample):
        n = sample.size
        k = n - np.searchsorted(np.sort(sample), distinct, side="left")  # >= t
        with np.errstate(invalid="ignore"):
            low = np.where(k == 0, 0.0, beta.ppf(alpha / 2, k, n - k + 1))
            high = np.where(k == n, 1.0, beta.ppf(1 - alpha / 2, k + 1, n - k))
        return np.concatenate(([0.0], low)), np.concatenate(([0.0], high))

    fpr_low, fpr_high = shares(negatives)
    tpr_low, tpr_high = shares(positives)
    return XrocBand(np.concatenate(([np.inf], distinct)), fpr_low, fpr_high, tpr_low,
                    tpr_high)
