"""Ranking metrics on scores: AUC, xAUC, PRF, URF, their disparities and the xROC curve.

docs/design.md, section 2. A pair (upper, lower) counts 1 when ``upper > lower`` and 1/2
on a tie (the ``sklearn.metrics.roc_auc_score`` convention). Every metric is a ratio of a
pair count to a number of pairs; counts are kept doubled, as exact integers (see
:func:`cpu_reference._counting.half_wins2`), and divided once, so that, with distinct
scores, the values equal those the DP computes from its integer counters. Everything runs
in O(n log n) by sorting. :func:`confidence_intervals` gives intervals of them all
(stratified bootstrap or DeLong), :func:`auc_variance` and :func:`xauc_variance` DeLong's
variances.

Group arguments ``g`` and ``h`` are group *labels* (ints, strings, ...) as they occur in
``groups``; pairs of groups are reported in sorted label order. ``groups`` of shape
``(n, c)`` (one column per attribute) stand for the intersections of the attributes,
labelled by their values joined with ``" & "``: ``xauc(s, y, groups, "white & female",
"black & male")``.
"""

import numpy as np
from sklearn.metrics import roc_curve

from cpu_reference import half_wins2
from gpu_xorder import _uncertainty
from gpu_xorder._frames import warn_misaligned
from gpu_xorder._parallel import check_n_jobs
from gpu_xorder._uncertainty import Interval, MetricIntervals
from gpu_xorder._validation import (
    METRICS,
    MSG_GROUP_LACKS,
    check_choice,
    check_labels,
    check_n_groups,
    check_scores,
    encode_groups,
    group_position,
)

__all__ = ["auc", "xauc", "prf", "urf", "disparity", "disparity_pairs", "xroc_curve",
           "auc_variance", "xauc_variance", "confidence_intervals", "Interval",
           "MetricIntervals"]

MSG_Y_LACKS = "y has no {what}, which metric {metric!r} needs"
MSG_Y_REQUIRED = "y is required for metric {metric!r} (it may be None only for 'urf')"
MSG_CI_Y = "y is required for confidence intervals"


def _labelled(scores, y):
    """Validated ``(scores, y)``: float64 scores and int64 0/1 labels of the same length."""
    warn_misaligned(4, scores=scores, y=y)
    scores = check_scores(scores)
    return scores, check_labels(y, scores.shape[0])


def _grouped(scores, y, groups):
    """Validated ``(scores, y, labels, index)``; ``y`` stays None when it is None."""
    warn_misaligned(4, scores=scores, y=y, groups=groups)
    scores = check_scores(scores)
    n = scores.shape[0]
    y = None if y is None else check_labels(y, n)
    labels, index = encode_groups(groups, n)
    return scores, y, labels, index


def _require(count, label, what, metric):
    """Raise the ValueError naming ``label`` (None: the whole of y) when ``count`` is zero."""
    if count == 0:
        if label is None:
            raise ValueError(MSG_Y_LACKS.format(what=what, metric=metric))
        raise ValueError(MSG_GROUP_LACKS.format(label=label, what=what, metric=metric))


def _cross_sample(scores, y, groups, g, h):
    """Validated scores of the positives of group g and of the negatives of group h."""
    scores, y, labels, index = _grouped(scores, y, groups)
    a, b = group_position(labels, g), group_position(labels, h)
    positives = scores[(index == a) & (y == 1)]
    negatives = scores[(index == b) & (y == 0)]
    _require(positives.size, labels[a].item(), "positives", "xauc")
    _require(negatives.size, labels[b].item(), "negatives", "xauc")
    return positives, negatives


def _cross_counts2(upper, upper_index, lower, lower_index, k):
    """Doubled pair counts between every group of ``upper`` and every group of ``lower``.

    Entry ``[g, h]`` is ``2 * #{u > l} + #{u == l}`` over ``u`` in ``upper`` of group g and
    ``l`` in ``lower`` of group h: :func:`half_wins2` for all K x K group pairs at once,
    with one sort of each sample and one binary search per item of ``upper``.

    Returns
    -------
    ndarray of int64, shape (k, k)
    """
    order = np.argsort(lower, kind="stable")
    lower_sorted = lower[order]
    lower_group = lower_index[order]
    # Ascending needles let each binary search start where the previous one ended.
    order = np.argsort(upper, kind="stable")
    upper, upper_index = upper[order], upper_index[order]
    below = np.searchsorted(lower_sorted, upper, side="left")
    below_or_tied = np.searchsorted(lower_sorted, upper, side="right")
    counts = np.zeros((k, k), dtype=np.int64)
    for h in range(k):
        # cum[i]: items of group h among the i lowest of ``lower``.
        cum = np.concatenate(([0], np.cumsum(lower_group == h, dtype=np.int64)))
        np.add.at(counts[:, h], upper_index, cum[below] + cum[below_or_tied])
    return counts


def _pair_values(scores, y, labels, index, metric):
    """Delta of ``metric`` for every pair ``(labels[a], labels[b])``, ``a < b``."""
    k = labels.size
    size = np.bincount(index, minlength=k)
    if metric == "urf":
        u2 = _cross_counts2(scores, index, scores, index, k)
        values = {
            (a, b): abs(int(u2[a, b]) - int(u2[b, a])) / (2 * int(size[a]) * int(size[b]))
            for a in range(k)
            for b in range(a + 1, k)
        }
    else:
        is_pos = y == 1
        pos = np.bincount(index[is_pos], minlength=k)
        neg = size - pos
        for a in range(k):
            _require(pos[a], labels[a].item(), "positives", metric)
        c2 = _cross_counts2(scores[is_pos], index[is_pos], scores[~is_pos], index[~is_pos], k)
        if metric == "xauc":
            for a in range(k):
                _require(neg[a], labels[a].item(), "negatives", metric)
            x = [
                [int(c2[a, b]) / (2 * int(pos[a]) * int(neg[b])) for b in range(k)]
                for a in range(k)
            ]
            values = {
                (a, b): abs(x[a][b] - x[b][a]) for a in range(k) for b in range(a + 1, k)
            }
        else:
            n0 = int(neg.sum())
            _require(n0, None, "negatives", metric)
            rows = c2.sum(axis=1)
            p = [int(rows[a]) / (2 * int(pos[a]) * n0) for a in range(k)]
            values = {(a, b): abs(p[a] - p[b]) for a in range(k) for b in range(a + 1, k)}
    return {(labels[a].item(), labels[b].item()): v for (a, b), v in values.items()}


def auc(scores, y) -> float:
    """Area under the ROC curve: P(S_1 > S_0), ties counting 1/2.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Finite risk scores; higher means more likely positive.
    y : array-like of shape (n,)
        Binary labels (0/1 or bool).

    Returns
    -------
    float
        The same value as ``sklearn.metrics.roc_auc_score(y, scores)``.

    Raises
    ------
    ValueError
        If ``y`` has no positives or no negatives, or on invalid input.

    Examples
    --------
    >>> auc([3, 2, 1, 0], [1, 0, 1, 0])
    0.75
    """
    scores, y = _labelled(scores, y)
    positives, negatives = scores[y == 1], scores[y == 0]
    _require(positives.size, None, "positives", "auc")
    _require(negatives.size, None, "negatives", "auc")
    return half_wins2(positives, negatives) / (2 * positives.size * negatives.size)


def xauc(scores, y, groups, g, h) -> float:
    """Cross-group AUC: P(S_1^g > S_0^h), positives of group g above negatives of group h.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Finite risk scores.
    y : array-like of shape (n,)
        Binary labels.
    groups : array-like of shape (n,) or (n, c)
        Group label of every item (ints, strings, ...).
    g, h : group label
        The group of the positives and the group of the negatives; ``g == h`` gives the
        AUC within that group.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``g`` or ``h`` does not occur in ``groups``, ``g`` has no positives or ``h`` no
        negatives, or on invalid input.

    Examples
    --------
    >>> xauc([3, 2, 1, 0], [1, 0, 1, 0], ["a", "a", "b", "b"], "a", "b")
    1.0
    >>> xauc([3, 2, 1, 0], [1, 0, 1, 0], ["a", "a", "b", "b"], "b", "a")
    0.0
    """
    positives, negatives = _cross_sample(scores, y, groups, g, h)
    return half_wins2(positives, negatives) / (2 * positives.size * negatives.size)


def prf(scores, y, groups, g) -> float:
    """Pairwise ranking fairness of group g: P(S_1^g > S_0), negatives of every group.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Finite risk scores.
    y : array-like of shape (n,)
        Binary labels.
    groups : array-like of shape (n,) or (n, c)
        Group label of every item.
    g : group label
        The group of the positives; the negatives are those of all groups, g included.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``g`` does not occur in ``groups``, has no positives, ``y`` has no negatives,
        or on invalid input.

    Examples
    --------
    >>> prf([3, 2, 1, 0], [1, 0, 1, 0], ["a", "a", "b", "b"], "b")
    0.5
    """
    scores, y, labels, index = _grouped(scores, y, groups)
    a = group_position(labels, g)
    positives = scores[(index == a) & (y == 1)]
    negatives = scores[y == 0]
    _require(positives.size, labels[a].item(), "positives", "prf")
    _require(negatives.size, None, "negatives", "prf")
    return half_wins2(positives, negatives) / (2 * positives.size * negatives.size)


def urf(scores, groups, g, h) -> float:
    """Unsupervised ranking fairness: ``|P(S^g > S^h) - P(S^h > S^g)|``, labels ignored.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Finite risk scores.
    groups : array-like of shape (n,) or (n, c)
        Group label of every item.
    g, h : group label
        The two groups (symmetric in g and h).

    Returns
    -------
    float
        In [0, 1]; 0 when each group is ranked above the other equally often.

    Raises
    ------
    ValueError
        If ``g`` or ``h`` does not occur in ``groups``, or on invalid input.

    Examples
    --------
    >>> urf([3, 2, 1, 0], ["a", "a", "b", "b"], "a", "b")
    1.0
    >>> urf([3, 2, 1, 0], ["a", "b", "b", "a"], "a", "b")
    0.0
    """
    scores, _, labels, index = _grouped(scores, None, groups)
    upper = scores[index == group_position(labels, g)]
    lower = scores[index == group_position(labels, h)]
    pairs = upper.size * lower.size
    # P(S^g > S^h) + P(S^h > S^g) = 1 with ties split, so the difference is 2 P(S^g > S^h) - 1.
    return abs(half_wins2(upper, lower) - pairs) / pairs


def disparity_pairs(scores, y, groups, metric: str = "xauc") -> dict:
    """Disparity of every pair of groups.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Finite risk scores.
    y : array-like of shape (n,) or None
        Binary labels; may be None for ``metric="urf"``.
    groups : array-like of shape (n,) or (n, c)
        Group label of every item; at least two distinct labels.
    metric : {"xauc", "prf", "urf"}
        ``"xauc"``: ``|xauc(g, h) - xauc(h, g)|``; ``"prf"``: ``|prf(g) - prf(h)|``;
        ``"urf"``: ``urf(g, h)``.

    Returns
    -------
    dict
        ``{(g, h): value}`` for every pair of labels ``g < h`` in sorted label order.

    Raises
    ------
    ValueError
        On fewer than two groups, an unknown metric, a group lacking the positives or
        negatives the metric divides by (xauc: both in every group; prf: positives in
        every group and negatives overall), or invalid input.

    Notes
    -----
    All groups are counted together, with one sort per metric rather than one per pair.

    Examples
    --------
    >>> disparity_pairs([3, 2, 1, 0], [1, 0, 1, 0], [0, 0, 1, 1])
    {(0, 1): 1.0}
    >>> disparity_pairs([4, 3, 2, 1, 0], None, ["a", "b", "c", "a", "b"], metric="urf")
    {('a', 'b'): 0.5, ('a', 'c'): 0.0, ('b', 'c'): 0.0}
    """
    metric = check_choice(metric, "metric", METRICS)
    if y is None and metric != "urf":
        raise ValueError(MSG_Y_REQUIRED.format(metric=metric))
    scores, y, labels, index = _grouped(scores, y, groups)
    check_n_groups(labels)
    return _pair_values(scores, y, labels, index, metric)


def disparity(scores, y, groups, metric: str = "xauc") -> float:
    """Ranking disparity: the largest pairwise disparity over all pairs of groups.

    With two groups this is the pair's Delta-xAUC, Delta-PRF or URF; with K groups the
    maximum of the K (K - 1) / 2 values of :func:`disparity_pairs`.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Finite risk scores.
    y : array-like of shape (n,) or None
        Binary labels; may be None for ``metric="urf"``.
    groups : array-like of shape (n,) or (n, c)
        Group label of every item; at least two distinct labels.
    metric : {"xauc", "prf", "urf"}
        See :func:`disparity_pairs`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        As :func:`disparity_pairs`.

    Examples
    --------
    >>> disparity([3, 2, 1, 0], [1, 0, 1, 0], ["a", "a", "b", "b"], metric="prf")
    0.5
    """
    return max(disparity_pairs(scores, y, groups, metric).values())


def xroc_curve(scores, y, groups, g, h):
    """The xROC curve of (g, h): negatives of h against positives of g over thresholds.

    Computed by :func:`sklearn.metrics.roc_curve` on the positives of g (as positives)
    and the negatives of h (as negatives), so the threshold convention is sklearn's: an
    item counts above ``t`` when its score is ``>= t``, ``thresholds`` decrease, the first
    is ``inf`` (the point (0, 0)), and collinear intermediate points are dropped. The area
    under the curve (``np.trapezoid(tpr, fpr)``) is ``xauc(scores, y, groups, g, h)``.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Finite risk scores.
    y : array-like of shape (n,)
        Binary labels.
    groups : array-like of shape (n,) or (n, c)
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
    ValueError
        As :func:`xauc`.

    Examples
    --------
    >>> fpr, tpr, thresholds = xroc_curve([3, 2, 1, 0], [1, 0, 1, 0], [0, 0, 1, 1], 0, 1)
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 1.0], [0.0, 1.0, 1.0])
    """
    positives, negatives = _cross_sample(scores, y, groups, g, h)
    sub_y = np.concatenate((np.ones(positives.size), np.zeros(negatives.size)))
    return roc_curve(sub_y, np.concatenate((positives, negatives)))


def auc_variance(scores, y) -> float:
    """DeLong's variance of the AUC (DeLong, DeLong and Clarke-Pearson, 1988).

    ``S10 / n_1 + S01 / n_0``: the sample variances (``ddof=1``) of the placement values,
    each positive's share of negatives below it and each negative's share of positives
    above it (ties 1/2), over the numbers of positives and negatives.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Finite risk scores.
    y : array-like of shape (n,)
        Binary labels.

    Returns
    -------
    float
        NaN when there is only one positive or one negative.

    Raises
    ------
    ValueError
        As :func:`auc`.

    Examples
    --------
    >>> round(auc_variance([4, 3, 2, 1, 0], [1, 0, 1, 0, 0]), 6)
    0.055556
    """
    scores, y = _labelled(scores, y)
    positives, negatives = scores[y == 1], scores[y == 0]
    _require(positives.size, None, "positives", "auc")
    _require(negatives.size, None, "negatives", "auc")
    return _uncertainty.delong_variance(positives, negatives)


def xauc_variance(scores, y, groups, g, h) -> float:
    """DeLong's variance of ``xauc(scores, y, groups, g, h)``.

    The xAUC is a two-sample U-statistic between the positives of g and the negatives
    of h, so its variance is :func:`auc_variance`'s formula on those two samples.

    Parameters
    ----------
    scores, y, groups, g, h
        As :func:`xauc`.

    Returns
    -------
    float
        NaN when g has only one positive or h only one negative.

    Raises
    ------
    ValueError
        As :func:`xauc`.

    Examples
    --------
    >>> s, y, grp = [5, 4, 3, 2, 1, 0], [1, 0, 1, 0, 1, 0], ["a", "b", "a", "b", "a", "b"]
    >>> round(xauc_variance(s, y, grp, "a", "b"), 6)
    0.074074
    """
    positives, negatives = _cross_sample(scores, y, groups, g, h)
    return _uncertainty.delong_variance(positives, negatives)


def confidence_intervals(scores, y, groups, *, level: float = 0.95,
                         method: str = "bootstrap", n_bootstrap: int | None = None,
                         random_state=None, n_jobs=None) -> MetricIntervals:
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
    scores, y, groups
        As :func:`disparity_pairs` (y is required).
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
    ValueError
        On invalid input, y without positives or negatives, a bad ``level``,
        ``method``, ``n_bootstrap``, ``random_state`` or ``n_jobs``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> grp = np.repeat(["a", "b"], 100)
    >>> y = rng.integers(0, 2, 200)
    >>> s = y + rng.normal(0, 1, 200)
    >>> ci = confidence_intervals(s, y, grp, n_bootstrap=500, random_state=0)
    >>> ci.auc.low < ci.auc.estimate < ci.auc.high
    True
    >>> ci.xauc["a", "b"].estimate == xauc(s, y, grp, "a", "b")
    True
    """
    level = _uncertainty.check_level(level)
    method = check_choice(method, "method", _uncertainty.METHODS)
    n_bootstrap = _uncertainty.check_n_bootstrap(n_bootstrap, method)
    seeds = _uncertainty.seed_sequence(random_state)
    n_jobs = check_n_jobs(n_jobs)
    if y is None:
        raise ValueError(MSG_CI_Y)
    scores, y, labels, index = _grouped(scores, y, groups)
    _require(int(y.sum()), None, "positives", "auc")
    _require(int(y.size - y.sum()), None, "negatives", "auc")
    return _uncertainty.intervals(scores, y, labels, index, level=level, method=method,
                                  n_bootstrap=n_bootstrap, seeds=seeds, n_jobs=n_jobs)
