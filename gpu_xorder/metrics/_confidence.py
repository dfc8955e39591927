"""The uncertainty of the ranking metrics: DeLong's variances and the confidence
intervals of every metric and disparity (stratified bootstrap or DeLong; the
computations are ``_uncertainty``'s)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

from ..utils import _params as params
from ..utils._validation import check_choice
from . import _uncertainty
from ._counts import cross_sample, grouped, labelled, require
from ._delong import delong_variance
from ._ranking import MSG_CI_Y, check_order
from ._uncertainty import MetricIntervals


def auc_variance(y_true: ArrayLike, y_score: ArrayLike) -> float:
    """DeLong's variance of the AUC (DeLong, DeLong and Clarke-Pearson, 1988).

    ``S10 / n_1 + S01 / n_0``: the sample variances (``ddof=1``) of the placement values,
    each positive's share of negatives below it and each negative's share of positives
    above it (ties 1/2), over the numbers of positives and negatives.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels.
    y_score : array-like of shape (n,)
        Finite risk scores.

    Returns
    -------
    float
        NaN when there is only one positive or one negative.

    Raises
    ------
    TypeError
        If ``y_true`` is recognisably scores (given first, in the earlier order).
    ValueError
        As :func:`auc`.

    Examples
    --------
    >>> round(auc_variance([1, 0, 1, 0, 0], [4, 3, 2, 1, 0]), 6)
    0.055556
    """
    check_order("auc_variance", y_true, y_score, "auc_variance(y_true, y_score)")
    scores, y = labelled(y_score, y_true)
    positives, negatives = scores[y == 1], scores[y == 0]
    require(positives.size, None, "positives", "auc")
    require(negatives.size, None, "negatives", "auc")
    return delong_variance(positives, negatives)


def xauc_variance(y_true: ArrayLike, y_score: ArrayLike, *, sensitive_features: ArrayLike,
                  g: object, h: object) -> float:
    """DeLong's variance of ``xauc(y_true, y_score, sensitive_features=..., g=g, h=h)``.

    The xAUC is a two-sample U-statistic between the positives of g and the negatives
    of h, so its variance is :func:`auc_variance`'s formula on those two samples.

    Parameters
    ----------
    y_true, y_score, sensitive_features, g, h : as in :func:`xauc`
        The labels, scores, groups and the ordered pair of groups.

    Returns
    -------
    float
        NaN when g has only one positive or h only one negative.

    Raises
    ------
    TypeError
        If ``y_true`` is recognisably scores (given first, in the earlier order).
    ValueError
        As :func:`xauc`.

    Examples
    --------
    >>> s, y, grp = [5, 4, 3, 2, 1, 0], [1, 0, 1, 0, 1, 0], ["a", "b", "a", "b", "a", "b"]
    >>> round(xauc_variance(y, s, sensitive_features=grp, g="a", h="b"), 6)
    0.074074
    """
    check_order("xauc_variance", y_true, y_score)
    positives, negatives, _, _ = cross_sample(y_score, y_true, sensitive_features, g, h)
    return delong_variance(positives, negatives)


def confidence_intervals(y_true: ArrayLike, y_score: ArrayLike, *,
                         sensitive_features: ArrayLike, level: float = 0.95,
                         method: str = "bootstrap",
                         n_bootstrap: int | None = None,
                         random_state: int | np.random.Generator | None = None,
                         n_jobs: int | None = None) -> MetricIntervals:
    """Confidence intervals of the AUC, every xAUC, PRF and URF and the disparities.

    ``method="bootstrap"``: a stratified bootstrap (strata: group x label, each resampled
    with replacement to its own size) and percentile intervals; vectorised over
    resamples, in chunks of bounded memory. ``method="delong"``: normal intervals from
    DeLong variances (placement values); the xAUCs of a pair's two directions share no
    item, so the variance of their difference is the sum of theirs; PRFs share the
    negatives, whose covariance enters the difference's variance. Both turn an interval
    of a signed difference into one of its absolute value, and the disparity of more
    than two groups (the maximum over pairs) takes the pairs' intervals at the
    Bonferroni level ``1 - (1 - level) / pairs``.

    Parameters
    ----------
    y_true, y_score, sensitive_features : array-like of shape (n,)
        As :func:`disparity_pairs` (``y_true`` is required).
    level : float, default=0.95
        Coverage, strictly between 0 and 1.
    method : {"bootstrap", "delong"}
    n_bootstrap : int or None, default=None
        Resamples of ``method="bootstrap"`` (None: 2000), at most
        ``MAX_BOOTSTRAP`` = 10**6 and as many as half the available host memory holds
        (``MemoryError`` beyond); resamples are drawn chunk by chunk, so memory grows
        only by the statistics kept per resample. ``method="delong"`` refuses it.
    random_state : None, int or numpy.random.Generator
        Resample ``b`` draws from ``numpy.random.default_rng(SeedSequence(random_state)
        .spawn(n_bootstrap)[b])``, so that the intervals do not depend on ``n_jobs`` or
        the chunks.
    n_jobs : int or None
        Chunks of resamples computed at once in workers (joblib, whose active backend,
        Dask say, is honoured; None: 1 outside a ``joblib.parallel_backend`` context).

    Returns
    -------
    MetricIntervals
        Every metric's estimate (the value this module computes) and its limits; None
        where the data leave a value undefined, or (DeLong) a sample has one item.

    Raises
    ------
    TypeError
        If ``y_true`` is recognisably scores (given first, in the earlier order).
    ValueError
        On invalid input, y_true without positives or negatives, a bad ``level``,
        ``method``, ``n_bootstrap``, ``random_state`` or ``n_jobs``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> grp = np.repeat(["a", "b"], 100)
    >>> y = rng.integers(0, 2, 200)
    >>> s = y + rng.normal(0, 1, 200)
    >>> ci = confidence_intervals(y, s, sensitive_features=grp, n_bootstrap=500,
    ...                           random_state=0)
    >>> ci.auc.low < ci.auc.estimate < ci.auc.high
    True
    >>> from gpu_xorder.metrics import xauc
    >>> ci.xauc["a", "b"].estimate == xauc(y, s, sensitive_features=grp, g="a", h="b")
    True
    """
    level = params.check("level", level)
    method = check_choice(method, "method", _uncertainty.METHODS)
    n_bootstrap = _uncertainty.check_n_bootstrap(n_bootstrap, method)
    seeds = _uncertainty.seed_sequence(random_state)
    n_jobs = params.check("n_jobs", n_jobs)
    if y_true is None:
        raise ValueError(MSG_CI_Y)
    check_order("confidence_intervals", y_true, y_score)
    scores, y, labels, index, _ = grouped(y_score, y_true, sensitive_features)
    require(int(y.sum()), None, "positives", "auc")
    require(int(y.size - y.sum()), None, "negatives", "auc")
    return _uncertainty.intervals(scores, y, labels, index, level=level, method=method,
                                  n_bootstrap=n_bootstrap, seeds=seeds, n_jobs=n_jobs)
