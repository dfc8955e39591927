"""Ranking metrics on scores: AUC, xAUC, PRF, URF and their disparities.

docs/design.md, section 2. A pair (upper, lower) counts 1 when ``upper > lower`` and 1/2
on a tie (the ``sklearn.metrics.roc_auc_score`` convention). Every metric is a ratio of a
pair count to a number of pairs; counts are kept doubled, as exact integers (see
:func:`cpu_reference._counting.half_wins2`, ``_counts``), and divided once, so that, with
distinct scores, the values equal those the DP computes from its integer counters.
Everything runs in O(n log n) by sorting. Their intervals are in ``_confidence``, the
xROC curves in ``_curves``, the tables of all of them by group and pair in ``_frame``.

One calling convention, scikit-learn's and fairlearn's: ``f(y_true, y_score, *,
sensitive_features=groups, ...)``, everything after the scores by keyword (so that
``make_scorer`` can wrap them and a ``MetricFrame`` can take them). A first argument
that cannot be labels where labels are expected (values other than 0 and 1 that are
not whole numbers, or beside a ``y_score`` of only 0 and 1: the scores given first, as
this module's earlier ``f(scores, y, groups)`` did) is a ``TypeError`` naming the order
(``check_order``). With
``sample_weight`` a pair (i, j) weighs ``w_i * w_j`` and every ratio is a weighted sum
over a sum of pair weights (floats, no longer exact integers); ``None`` keeps the counts.
Every such ratio is unchanged when the weights of either of its two samples are all
multiplied by one ``c > 0``, so each sample's weights are first scaled by the power of
two that brings their largest into [0.5, 1) (``_counts.unit``, exact): weights of 1e-300
or 1e300 neither underflow nor overflow in the products and sums, and a metric does not
change, to rounding, when every weight is multiplied by ``c``.

Group arguments ``g`` and ``h`` are group *labels* (ints, strings, ...) as they occur in
``groups``; pairs of groups are reported in sorted label order. ``groups`` of shape
``(n, c)`` (one column per attribute) stand for the intersections of the attributes,
labelled by their values joined with ``" & "``: ``xauc(y, s, sensitive_features=groups,
g="white & female", h="black & male")``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cpu_reference import half_wins2

from ..utils import _params as params
from ..utils._validation import check_n_groups, check_sample_weight, group_position
from ._counts import cross_sample, grouped, labelled, pair_values, ratio, require, subset

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["auc", "xauc", "prf", "urf", "disparity", "disparity_pairs"]

MSG_Y_REQUIRED = ("y_true is required for metric {metric!r} (it may be None only for "
                  "'urf')")
MSG_CI_Y = "y_true is required for confidence intervals"
MSG_ORDER = (
    "{name}() takes {call}, scikit-learn's and fairlearn's order, but y_true "
    "holds {values}, not 0/1 labels: were the scores given first?"
)


def check_order(name, y_true, y_score, call=None):
    """Refuse a call whose first argument is recognisably scores where ``y_true`` (0/1
    labels) is expected: values other than 0 and 1 that are not whole numbers, or
    beside a ``y_score`` holding only 0 and 1 (the earlier order ``name(scores, y,
    ...)``). A TypeError naming the order (``call``; default ``name(y_true, y_score, *,
    sensitive_features=..., ...)``); any other bad ``y_true`` is left to the labels' own
    check (a ValueError naming its values)."""
    if y_true is None:
        return
    true = np.asarray(y_true)
    if true.dtype.kind not in "iuf" or true.ndim != 1:
        return
    odd = ~((true == 0) | (true == 1))
    if not odd.any():
        return
    score = np.asarray(y_score)
    swapped = (true.dtype.kind == "f" and bool((true[odd] != np.round(true[odd])).any())) \
        or (score.dtype.kind in "iufb" and score.ndim == 1 and score.size > 0
            and bool(((score == 0) | (score == 1)).all()))
    if swapped:
        values = np.unique(true[odd])[:3].tolist()
        call = call or f"{name}(y_true, y_score, *, sensitive_features=..., ...)"
        raise TypeError(MSG_ORDER.format(name=name, call=call,
                                         values=f"values such as {values}"))


def defined(function, /, *args, **kwargs):
    """``function(*args, **kwargs)``, or None where the data leave it undefined."""
    try:
        return function(*args, **kwargs)
    except ValueError:
        return None


def auc(y_true: ArrayLike, y_score: ArrayLike, *,
        sample_weight: ArrayLike | None = None) -> float:
    """Area under the ROC curve: P(S_1 > S_0), ties counting 1/2.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels (0/1 or bool).
    y_score : array-like of shape (n,)
        Finite risk scores; higher means more likely positive.
    sample_weight : array-like of shape (n,), optional
        Weights >= 0; a pair weighs the product of its items' weights.

    Returns
    -------
    float
        The same value as ``sklearn.metrics.roc_auc_score(y_true, y_score,
        sample_weight=sample_weight)``.

    Raises
    ------
    TypeError
        If ``y_true`` is recognisably scores (given first, in the earlier order).
    ValueError
        If ``y_true`` has no positives or no negatives, or on invalid input.

    Examples
    --------
    >>> auc([1, 0, 1, 0], [3, 2, 1, 0])
    0.75
    """
    check_order("auc", y_true, y_score, "auc(y_true, y_score, *, sample_weight=None)")
    scores, y = labelled(y_score, y_true)
    weight = check_sample_weight(sample_weight, scores.size)
    positives, negatives = scores[y == 1], scores[y == 0]
    require(positives.size, None, "positives", "auc")
    require(negatives.size, None, "negatives", "auc")
    return ratio(positives, negatives, subset(weight, y == 1), subset(weight, y == 0),
                  "positives or the negatives", "auc")


def xauc(y_true: ArrayLike, y_score: ArrayLike, *, sensitive_features: ArrayLike,
         g: object, h: object, sample_weight: ArrayLike | None = None) -> float:
    """Cross-group AUC: P(S_1^g > S_0^h), positives of group g above negatives of group h.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels.
    y_score : array-like of shape (n,)
        Finite risk scores.
    sensitive_features : array-like of shape (n,) or (n, c)
        Group label of every item (ints, strings, ...).
    g, h : group label
        The group of the positives and the group of the negatives; ``g == h`` gives the
        AUC within that group.
    sample_weight : array-like of shape (n,), optional
        Weights >= 0 (see :func:`auc`).

    Returns
    -------
    float
        xAUC(g, h) in [0, 1]: P(a positive of g ranks above a negative of h), ties
        counting 1/2.

    Raises
    ------
    TypeError
        If ``y_true`` is recognisably scores (given first, in the earlier order).
    ValueError
        If ``g`` or ``h`` does not occur in ``sensitive_features``, ``g`` has no
        positives or ``h`` no negatives, or on invalid input.

    Examples
    --------
    >>> grp = ["a", "a", "b", "b"]
    >>> xauc([1, 0, 1, 0], [3, 2, 1, 0], sensitive_features=grp, g="a", h="b")
    1.0
    >>> xauc([1, 0, 1, 0], [3, 2, 1, 0], sensitive_features=grp, g="b", h="a")
    0.0
    """
    check_order("xauc", y_true, y_score)
    positives, negatives, wp, wn = cross_sample(y_score, y_true, sensitive_features, g, h,
                                                sample_weight)
    return ratio(positives, negatives, wp, wn, "positives of g or the negatives of h",
                  "xauc")


def prf(y_true: ArrayLike, y_score: ArrayLike, *, sensitive_features: ArrayLike,
        g: object, sample_weight: ArrayLike | None = None) -> float:
    """Pairwise ranking fairness of group g: P(S_1^g > S_0), negatives of every group.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels.
    y_score : array-like of shape (n,)
        Finite risk scores.
    sensitive_features : array-like of shape (n,) or (n, c)
        Group label of every item.
    g : group label
        The group of the positives; the negatives are those of all groups, g included.
    sample_weight : array-like of shape (n,), optional
        Weights >= 0 (see :func:`auc`).

    Returns
    -------
    float
        PRF(g) in [0, 1]: P(a positive of g ranks above a negative of any group),
        ties counting 1/2.

    Raises
    ------
    TypeError
        If ``y_true`` is recognisably scores (given first, in the earlier order).
    ValueError
        If ``g`` does not occur in ``sensitive_features``, has no positives,
        ``y_true`` has no negatives, or on invalid input.

    Examples
    --------
    >>> prf([1, 0, 1, 0], [3, 2, 1, 0], sensitive_features=["a", "a", "b", "b"], g="b")
    0.5
    """
    check_order("prf", y_true, y_score)
    scores, y, labels, index, weight = grouped(y_score, y_true, sensitive_features,
                                               sample_weight)
    a = group_position(labels, g)
    upper = (index == a) & (y == 1)
    positives = scores[upper]
    negatives = scores[y == 0]
    require(positives.size, labels[a].item(), "positives", "prf")
    require(negatives.size, None, "negatives", "prf")
    return ratio(positives, negatives, subset(weight, upper), subset(weight, y == 0),
                  "positives of g or the negatives", "prf")


def urf(y_true: ArrayLike | None, y_score: ArrayLike, *, sensitive_features: ArrayLike,
        g: object, h: object, sample_weight: ArrayLike | None = None) -> float:
    """Unsupervised ranking fairness: ``|P(S^g > S^h) - P(S^h > S^g)|``, labels ignored.

    The labels take no part, but the call keeps every metric's order, so that
    :func:`disparity` and scorers call all metrics alike: pass ``None`` (or the labels,
    which are then checked as labels of the same length and otherwise unused).

    Parameters
    ----------
    y_true : array-like of shape (n,) or None
        Not used; None, or binary labels.
    y_score : array-like of shape (n,)
        Finite risk scores.
    sensitive_features : array-like of shape (n,) or (n, c)
        Group label of every item.
    g, h : group label
        The two groups (symmetric in g and h).
    sample_weight : array-like of shape (n,), optional
        Weights >= 0 (see :func:`auc`).

    Returns
    -------
    float
        In [0, 1]; 0 when each group is ranked above the other equally often.

    Raises
    ------
    TypeError
        If ``y_true`` is recognisably scores (given first, in the earlier order).
    ValueError
        If ``g`` or ``h`` does not occur in ``sensitive_features``, or on invalid input.

    Examples
    --------
    >>> urf(None, [3, 2, 1, 0], sensitive_features=["a", "a", "b", "b"], g="a", h="b")
    1.0
    >>> urf(None, [3, 2, 1, 0], sensitive_features=["a", "b", "b", "a"], g="a", h="b")
    0.0
    """
    check_order("urf", y_true, y_score)
    scores, _, labels, index, weight = grouped(y_score, y_true, sensitive_features,
                                               sample_weight)
    in_g, in_h = index == group_position(labels, g), index == group_position(labels, h)
    upper, lower = scores[in_g], scores[in_h]
    # P(S^g > S^h) + P(S^h > S^g) = 1 with ties split, so the difference is 2 P(S^g > S^h) - 1.
    if weight is None:
        pairs = upper.size * lower.size
        return abs(half_wins2(upper, lower) - pairs) / pairs
    return abs(2 * ratio(upper, lower, weight[in_g], weight[in_h],
                          "items of g or of h", "urf") - 1)


def disparity_pairs(y_true: ArrayLike | None, y_score: ArrayLike, *,
                    sensitive_features: ArrayLike, metric: str = "xauc",
                    sample_weight: ArrayLike | None = None) -> dict:
    """Disparity of every pair of groups.

    Parameters
    ----------
    y_true : array-like of shape (n,) or None
        Binary labels; may be None for ``metric="urf"``.
    y_score : array-like of shape (n,)
        Finite risk scores.
    sensitive_features : array-like of shape (n,) or (n, c)
        Group label of every item; at least two distinct labels.
    metric : {"xauc", "prf", "urf"}, default="xauc"
        ``"xauc"``: ``|xauc(g, h) - xauc(h, g)|``; ``"prf"``: ``|prf(g) - prf(h)|``;
        ``"urf"``: ``urf(g, h)``.
    sample_weight : array-like of shape (n,), optional
        Weights >= 0 (see :func:`auc`).

    Returns
    -------
    dict
        ``{(g, h): value}`` for every pair of labels ``g < h`` in sorted label order.

    Raises
    ------
    TypeError
        If ``y_true`` is recognisably scores (given first, in the earlier order).
    ValueError
        On fewer than two groups, an unknown metric, a group lacking the positives or
        negatives the metric divides by (xauc: both in every group; prf: positives in
        every group and negatives overall), or invalid input.

    Notes
    -----
    All groups are counted together, with one sort per metric rather than one per pair.

    Examples
    --------
    >>> disparity_pairs([1, 0, 1, 0], [3, 2, 1, 0], sensitive_features=[0, 0, 1, 1])
    {(0, 1): 1.0}
    >>> disparity_pairs(None, [4, 3, 2, 1, 0], sensitive_features=["a", "b", "c", "a", "b"],
    ...                 metric="urf")
    {('a', 'b'): 0.5, ('a', 'c'): 0.0, ('b', 'c'): 0.0}
    """
    check_order("disparity_pairs", y_true, y_score)
    metric = params.check("metric", metric)
    if y_true is None and metric != "urf":
        raise ValueError(MSG_Y_REQUIRED.format(metric=metric))
    scores, y, labels, index, weight = grouped(y_score, y_true, sensitive_features,
                                               sample_weight)
    check_n_groups(labels)
    return pair_values(scores, y, labels, index, metric, weight)


def disparity(y_true: ArrayLike | None, y_score: ArrayLike, *,
              sensitive_features: ArrayLike, metric: str = "xauc",
              sample_weight: ArrayLike | None = None) -> float:
    """Ranking disparity: the largest pairwise disparity over all pairs of groups.

    With two groups this is the pair's Delta-xAUC, Delta-PRF or URF; with K groups the
    maximum of the K (K - 1) / 2 values of :func:`disparity_pairs`.

    Parameters
    ----------
    y_true : array-like of shape (n,) or None
        Binary labels; may be None for ``metric="urf"``.
    y_score : array-like of shape (n,)
        Finite risk scores.
    sensitive_features : array-like of shape (n,) or (n, c)
        Group label of every item; at least two distinct labels.
    metric : {"xauc", "prf", "urf"}, default="xauc"
        See :func:`disparity_pairs`.
    sample_weight : array-like of shape (n,), optional
        Weights >= 0 (see :func:`auc`).

    Returns
    -------
    float
        Delta in [0, 1] (the largest over pairs of groups); 0: parity.

    Raises
    ------
    TypeError
        If ``y_true`` is recognisably scores (given first, in the earlier order).
    ValueError
        As :func:`disparity_pairs`.

    Examples
    --------
    >>> disparity([1, 0, 1, 0], [3, 2, 1, 0], sensitive_features=["a", "a", "b", "b"],
    ...           metric="prf")
    0.5
    >>> disparity([1, 0, 1, 0], [0.3, 2.5, 1, 0], sensitive_features=["a", "a", "b", "b"])
    1.0
    """
    check_order("disparity", y_true, y_score)
    return max(disparity_pairs(y_true, y_score, sensitive_features=sensitive_features,
                               metric=metric, sample_weight=sample_weight).values())
