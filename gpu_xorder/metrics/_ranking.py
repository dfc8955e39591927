"""Ranking metrics on scores: AUC, xAUC, PRF, URF and their disparities.

docs/design.md, section 2. A pair (upper, lower) counts 1 when ``upper > lower`` and 1/2
on a tie (the ``sklearn.metrics.roc_auc_score`` convention). Every metric is a ratio of a
pair count to a number of pairs; counts are kept doubled, as exact integers (see
:func:`cpu_reference._counting.half_wins2`, ``_counts``), and divided once, so that, with
distinct scores, the values equal those the DP computes from its integer counters.
Everything runs in O(n log n) by sorting. Their intervals are in ``_confidence``, the
xROC curves in ``_curves``, the tables of all of them by group and pair in ``_frame``.

Two call orders: this module's ``f(scores, y, groups, ...)``, and scikit-learn's and
fairlearn's ``f(y_true, y_score, *, sensitive_features=groups, ...)``, taken whenever
``sensitive_features`` is given by keyword (so ``make_scorer`` can wrap them). With
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
labelled by their values joined with ``" & "``: ``xauc(s, y, groups, "white & female",
"black & male")``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cpu_reference import half_wins2

from ..utils import _params as params
from ..utils._validation import check_n_groups, check_sample_weight, group_position
from ._counts import cross_sample, grouped, labelled, pair_values, ratio, require, subset

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["auc", "xauc", "prf", "urf", "disparity", "disparity_pairs"]

MSG_Y_REQUIRED = "y is required for metric {metric!r} (it may be None only for 'urf')"
MSG_CI_Y = "y is required for confidence intervals"
MSG_NO_GROUPS = (
    "{name}() needs the groups: {name}(scores, y, groups, ...) or, in scikit-learn's "
    "order, {name}(y_true, y_score, sensitive_features=groups, ...)"
)
MSG_GROUPS_BOTH = (
    "{name}() got the groups twice: give them positionally (order scores, y, groups) or "
    "as sensitive_features= (order y_true, y_score), not both"
)
MSG_NO_LABEL = "{name}() needs the group label{s} {which}"


def _call_order(name, first, second, groups, sensitive_features):
    """``(scores, y, groups)`` of a call ``name(scores, y, groups)`` or, when
    ``sensitive_features`` is given, ``name(y_true, y_score, sensitive_features=...)``."""
    if sensitive_features is None:
        if groups is None:
            raise TypeError(MSG_NO_GROUPS.format(name=name))
        return first, second, groups
    if groups is not None:
        raise TypeError(MSG_GROUPS_BOTH.format(name=name))
    return second, first, sensitive_features


def _check_labels_given(name, **labels):
    missing = [key for key, value in labels.items() if value is None]
    if missing:
        raise TypeError(MSG_NO_LABEL.format(name=name, s="s" * (len(missing) > 1),
                                            which=" and ".join(missing)))


def defined(metric, *args):
    """``metric(*args)``, or None where the data leave it undefined."""
    try:
        return metric(*args)
    except ValueError:
        return None


def auc(scores: ArrayLike, y: ArrayLike, *,
        sample_weight: ArrayLike | None = None) -> float:
    """Area under the ROC curve: P(S_1 > S_0), ties counting 1/2.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Finite risk scores; higher means more likely positive.
    y : array-like of shape (n,)
        Binary labels (0/1 or bool).
    sample_weight : array-like of shape (n,), optional
        Weights >= 0; a pair weighs the product of its items' weights.

    Returns
    -------
    float
        The same value as ``sklearn.metrics.roc_auc_score(y, scores,
        sample_weight=sample_weight)`` (scikit-learn's order of the arguments).

    Raises
    ------
    ValueError
        If ``y`` has no positives or no negatives, or on invalid input.

    Examples
    --------
    >>> auc([3, 2, 1, 0], [1, 0, 1, 0])
    0.75
    """
    scores, y = labelled(scores, y)
    weight = check_sample_weight(sample_weight, scores.size)
    positives, negatives = scores[y == 1], scores[y == 0]
    require(positives.size, None, "positives", "auc")
    require(negatives.size, None, "negatives", "auc")
    return ratio(positives, negatives, subset(weight, y == 1), subset(weight, y == 0),
                  "positives or the negatives", "auc")


def xauc(scores: ArrayLike, y: ArrayLike, groups: ArrayLike | None = None, g: object = None,
         h: object = None, *, sensitive_features: ArrayLike | None = None,
         sample_weight: ArrayLike | None = None) -> float:
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
    sensitive_features : array-like, optional
        The groups, by keyword: the call is then ``xauc(y_true, y_score, *,
        sensitive_features, g, h)``, scikit-learn's order.
    sample_weight : array-like of shape (n,), optional
        Weights >= 0 (see :func:`auc`).

    Returns
    -------
    float
        xAUC(g, h) in [0, 1]: P(a positive of g ranks above a negative of h), ties
        counting 1/2.

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
    >>> xauc([1, 0, 1, 0], [3, 2, 1, 0], sensitive_features=["a", "a", "b", "b"],
    ...      g="a", h="b")
    1.0
    """
    scores, y, groups = _call_order("xauc", scores, y, groups, sensitive_features)
    _check_labels_given("xauc", g=g, h=h)
    positives, negatives, wp, wn = cross_sample(scores, y, groups, g, h, sample_weight)
    return ratio(positives, negatives, wp, wn, "positives of g or the negatives of h",
                  "xauc")


def prf(scores: ArrayLike, y: ArrayLike, groups: ArrayLike | None = None, g: object = None,
        *, sensitive_features: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None) -> float:
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
    sensitive_features : array-like, optional
        The groups, by keyword: the call is then ``prf(y_true, y_score, *,
        sensitive_features, g)``, scikit-learn's order.
    sample_weight : array-like of shape (n,), optional
        Weights >= 0 (see :func:`auc`).

    Returns
    -------
    float
        PRF(g) in [0, 1]: P(a positive of g ranks above a negative of any group),
        ties counting 1/2.

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
    scores, y, groups = _call_order("prf", scores, y, groups, sensitive_features)
    _check_labels_given("prf", g=g)
    scores, y, labels, index, weight = grouped(scores, y, groups, sample_weight)
    a = group_position(labels, g)
    upper = (index == a) & (y == 1)
    positives = scores[upper]
    negatives = scores[y == 0]
    require(positives.size, labels[a].item(), "positives", "prf")
    require(negatives.size, None, "negatives", "prf")
    return ratio(positives, negatives, subset(weight, upper), subset(weight, y == 0),
                  "positives of g or the negatives", "prf")


def urf(scores: ArrayLike, groups: ArrayLike | None = None, g: object = None,
        h: object = None, *, sensitive_features: ArrayLike | None = None,
        sample_weight: ArrayLike | None = None) -> float:
    """Unsupervised ranking fairness: ``|P(S^g > S^h) - P(S^h > S^g)|``, labels ignored.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Finite risk scores.
    groups : array-like of shape (n,) or (n, c)
        Group label of every item.
    g, h : group label
        The two groups (symmetric in g and h).
    sensitive_features : array-like, optional
        The groups, by keyword: the call is then ``urf(y_true, y_score, *,
        sensitive_features, g, h)``, scikit-learn's order (``y_true`` is not used).
    sample_weight : array-like of shape (n,), optional
        Weights >= 0 (see :func:`auc`).

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
    if sensitive_features is not None:  # urf(y_true, y_score, sensitive_features=...)
        scores, groups = groups, sensitive_features
    elif groups is None:
        raise TypeError(MSG_NO_GROUPS.format(name="urf"))
    _check_labels_given("urf", g=g, h=h)
    scores, _, labels, index, weight = grouped(scores, None, groups, sample_weight)
    in_g, in_h = index == group_position(labels, g), index == group_position(labels, h)
    upper, lower = scores[in_g], scores[in_h]
    # P(S^g > S^h) + P(S^h > S^g) = 1 with ties split, so the difference is 2 P(S^g > S^h) - 1.
    if weight is None:
        pairs = upper.size * lower.size
        return abs(half_wins2(upper, lower) - pairs) / pairs
    return abs(2 * ratio(upper, lower, weight[in_g], weight[in_h],
                          "items of g or of h", "urf") - 1)


def disparity_pairs(scores: ArrayLike, y: ArrayLike | None,
                    groups: ArrayLike | None = None, metric: str = "xauc", *,
                    sensitive_features: ArrayLike | None = None,
                    sample_weight: ArrayLike | None = None) -> dict:
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
    sensitive_features : array-like, optional
        The groups, by keyword: the call is then ``disparity_pairs(y_true, y_score, *,
        sensitive_features, metric)``, scikit-learn's order.
    sample_weight : array-like of shape (n,), optional
        Weights >= 0 (see :func:`auc`).

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
    scores, y, groups = _call_order("disparity_pairs", scores, y, groups,
                                    sensitive_features)
    metric = params.check("metric", metric)
    if y is None and metric != "urf":
        raise ValueError(MSG_Y_REQUIRED.format(metric=metric))
    scores, y, labels, index, weight = grouped(scores, y, groups, sample_weight)
    check_n_groups(labels)
    return pair_values(scores, y, labels, index, metric, weight)


def disparity(scores: ArrayLike, y: ArrayLike | None, groups: ArrayLike | None = None,
              metric: str = "xauc", *, sensitive_features: ArrayLike | None = None,
              sample_weight: ArrayLike | None = None) -> float:
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
    sensitive_features : array-like, optional
        The groups, by keyword: the call is then ``disparity(y_true, y_score, *,
        sensitive_features, metric)``, scikit-learn's and fairlearn's order.
    sample_weight : array-like of shape (n,), optional
        Weights >= 0 (see :func:`auc`).

    Returns
    -------
    float
        Delta in [0, 1] (the largest over pairs of groups); 0: parity.

    Raises
    ------
    ValueError
        As :func:`disparity_pairs`.

    Examples
    --------
    >>> disparity([3, 2, 1, 0], [1, 0, 1, 0], ["a", "a", "b", "b"], metric="prf")
    0.5
    >>> disparity([1, 0, 1, 0], [3, 2, 1, 0], sensitive_features=["a", "a", "b", "b"],
    ...           metric="prf")
    0.5
    """
    scores, y, groups = _call_order("disparity", scores, y, groups, sensitive_features)
    return max(disparity_pairs(scores, y, groups, metric,
                               sample_weight=sample_weight).values())
