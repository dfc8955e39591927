"""Ranking metrics on scores: AUC, xAUC, PRF, URF and their disparities.

docs/design.md, section 2. A pair (upper, lower) counts 1 when ``upper > lower`` and 1/2
on a tie (the ``sklearn.metrics.roc_auc_score`` convention). Every metric is a ratio of a
pair count to a number of pairs; counts are kept doubled, as exact integers (see
:func:`cpu_reference._counting.half_wins2`), and divided once, so that, with distinct
scores, the values equal those the DP computes from its integer counters. Everything runs
in O(n log n) by sorting. Their intervals are in ``_confidence``, the xROC curves in
``_curves``, the tables of all of them by group and pair in ``_frame``.

Two call orders: this module's ``f(scores, y, groups, ...)``, and scikit-learn's and
fairlearn's ``f(y_true, y_score, *, sensitive_features=groups, ...)``, taken whenever
``sensitive_features`` is given by keyword (so ``make_scorer`` can wrap them). With
``sample_weight`` a pair (i, j) weighs ``w_i * w_j`` and every ratio is a weighted sum
over a sum of pair weights (floats, no longer exact integers); ``None`` keeps the counts.
Every such ratio is unchanged when the weights of either of its two samples are all
multiplied by one ``c > 0``, so each sample's weights are first scaled by the power of
two that brings their largest into [0.5, 1) (:func:`_unit`, exact): weights of 1e-300
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

import numpy as np

from cpu_reference import half_wins2
from ..utils._frames import warn_misaligned
from ..utils import _params as params
from ..utils._validation import (
    MSG_GROUP_LACKS,
    check_sample_weight,
    check_labels,
    check_n_groups,
    check_scores,
    encode_groups,
    group_position,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["auc", "xauc", "prf", "urf", "disparity", "disparity_pairs"]

MSG_Y_LACKS = "y has no {what}, which metric {metric!r} needs"
MSG_Y_REQUIRED = "y is required for metric {metric!r} (it may be None only for 'urf')"
MSG_CI_Y = "y is required for confidence intervals"
MSG_ZERO_WEIGHT = "sample_weight is 0 on all the {what}, which metric {metric!r} divides by"
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


def _weights(weight, mask):
    return None if weight is None else weight[mask]


def _unit(weight, block=None):
    """``weight`` (validated: finite, >= 0) scaled, block by block (``block``: every
    item's block, ints >= 0; None: one block), by the power of two that brings the
    block's largest weight into [0.5, 1); a block of zeros stays zeros.

    The one normalisation of the weighted metrics, applied before any product: every
    ratio they compute is a sum over the pairs of two samples over the product of the
    samples' total weights, unchanged when either sample's weights are multiplied by one
    ``c > 0``. A power of two changes only the exponent, so the scaling is exact (but for
    weights below 2**-1022 times their block's largest, whose share of its sums is below
    float64's resolution anyway), and no product or sum then overflows or underflows."""
    if weight is None:
        return None
    if block is None:
        block = np.zeros(weight.size, dtype=np.int64)
    top = np.zeros(int(block.max(initial=-1)) + 1)
    np.maximum.at(top, block, weight)
    return np.ldexp(weight, -np.frexp(top)[1][block])


def _ratio(upper, lower, upper_weight, lower_weight, what, metric):
    """P(U > L), ties 1/2: doubled wins over twice the pairs; with weights, every pair
    weighs the product of its items' weights (each sample's weights scaled by
    :func:`_unit` first)."""
    if upper_weight is None:
        return half_wins2(upper, lower) / (2 * upper.size * lower.size)
    upper_weight, lower_weight = _unit(upper_weight), _unit(lower_weight)
    pairs = float(upper_weight.sum()) * float(lower_weight.sum())
    if pairs == 0:
        raise ValueError(MSG_ZERO_WEIGHT.format(what=what, metric=metric))
    order = np.argsort(lower, kind="stable")
    ranked = lower[order]
    cum = np.concatenate(([0.0], np.cumsum(lower_weight[order])))
    below = cum[np.searchsorted(ranked, upper, side="left")]
    below_or_tied = cum[np.searchsorted(ranked, upper, side="right")]
    return float(np.dot(upper_weight, below + below_or_tied)) / (2 * pairs)


def _labelled(scores, y):
    """Validated ``(scores, y)``: float64 scores and int64 0/1 labels of the same length."""
    warn_misaligned(4, scores=scores, y=y)
    scores = check_scores(scores)
    return scores, check_labels(y, scores.shape[0])


def _grouped(scores, y, groups, sample_weight=None):
    """Validated ``(scores, y, labels, index, weight)``; ``y`` and ``weight`` stay None
    when they are None."""
    warn_misaligned(4, scores=scores, y=y, groups=groups)
    scores = check_scores(scores)
    n = scores.shape[0]
    y = None if y is None else check_labels(y, n)
    labels, index = encode_groups(groups, n)
    return scores, y, labels, index, check_sample_weight(sample_weight, n)


def _require(count, label, what, metric):
    """Raise the ValueError naming ``label`` (None: the whole of y) when ``count`` is zero."""
    if count == 0:
        if label is None:
            raise ValueError(MSG_Y_LACKS.format(what=what, metric=metric))
        raise ValueError(MSG_GROUP_LACKS.format(label=label, what=what, metric=metric))


def _cross_sample(scores, y, groups, g, h, sample_weight=None):
    """Validated scores of the positives of group g and of the negatives of group h,
    and their weights (None without ``sample_weight``)."""
    scores, y, labels, index, weight = _grouped(scores, y, groups, sample_weight)
    a, b = group_position(labels, g), group_position(labels, h)
    upper, lower = (index == a) & (y == 1), (index == b) & (y == 0)
    positives, negatives = scores[upper], scores[lower]
    _require(positives.size, labels[a].item(), "positives", "xauc")
    _require(negatives.size, labels[b].item(), "negatives", "xauc")
    return positives, negatives, _weights(weight, upper), _weights(weight, lower)


def _cross_counts2(upper, upper_index, lower, lower_index, k, upper_weight=None,
                   lower_weight=None):
    """Doubled pair counts between every group of ``upper`` and every group of ``lower``.

    Entry ``[g, h]`` is ``2 * #{u > l} + #{u == l}`` over ``u`` in ``upper`` of group g and
    ``l`` in ``lower`` of group h: :func:`half_wins2` for all K x K group pairs at once,
    with one sort of each sample and one binary search per item of ``upper``. With
    weights (both or neither) every pair counts ``w_u * w_l``.

    Returns
    -------
    ndarray of int64 (float64 with weights), shape (k, k)
    """
    weighted = upper_weight is not None
    order = np.argsort(lower, kind="stable")
    lower_sorted = lower[order]
    lower_group = lower_index[order]
    lower_mass = lower_weight[order] if weighted else np.ones(order.size, dtype=np.int64)
    # Ascending needles let each binary search start where the previous one ended.
    order = np.argsort(upper, kind="stable")
    upper, upper_index = upper[order], upper_index[order]
    below = np.searchsorted(lower_sorted, upper, side="left")
    below_or_tied = np.searchsorted(lower_sorted, upper, side="right")
    counts = np.zeros((k, k), dtype=lower_mass.dtype)
    for h in range(k):
        # cum[i]: items (their weight) of group h among the i lowest of ``lower``.
        cum = np.concatenate(([0], np.cumsum(np.where(lower_group == h, lower_mass, 0))))
        wins = cum[below] + cum[below_or_tied]
        np.add.at(counts[:, h], upper_index, wins * upper_weight[order] if weighted else wins)
    return counts


def _pair_values(scores, y, labels, index, metric, weight=None):
    """Delta of ``metric`` for every pair ``(labels[a], labels[b])``, ``a < b``; with
    ``weight``, of the weighted metric."""
    k = labels.size
    # exact integers without weights (Python ints divide correctly rounded)
    num = int if weight is None else float
    if weight is not None:  # each sample a ratio sums over is one block (see _unit):
        # a group's items (urf), a group's positives or negatives (xauc), a group's
        # positives or all the negatives (prf)
        block = (index if metric == "urf" else 2 * index + y if metric == "xauc"
                 else np.where(y == 1, index, k))
        weight = _unit(weight, block)

    def mass(mask, what):
        """Items (their total weight) of every group among ``mask``, each non-zero."""
        items = np.bincount(index[mask], minlength=k)
        for a in range(k):
            _require(items[a], labels[a].item(), what, metric)
        if weight is None:
            return items
        total = np.bincount(index[mask], weights=weight[mask], minlength=k)
        for a in np.flatnonzero(total == 0):
            raise ValueError(MSG_ZERO_WEIGHT.format(
                what=f"{what} of group {labels[a].item()!r}", metric=metric))
        return total

    if metric == "urf":
        size = mass(np.ones(scores.size, dtype=bool), "items")
        u2 = _cross_counts2(scores, index, scores, index, k, weight, weight)
        values = {
            (a, b): abs(num(u2[a, b]) - num(u2[b, a])) / (2 * num(size[a]) * num(size[b]))
            for a in range(k)
            for b in range(a + 1, k)
        }
    else:
        is_pos = y == 1
        pos = mass(is_pos, "positives")
        c2 = _cross_counts2(scores[is_pos], index[is_pos], scores[~is_pos], index[~is_pos], k,
                            _weights(weight, is_pos), _weights(weight, ~is_pos))
        if metric == "xauc":
            neg = mass(~is_pos, "negatives")
            x = [
                [num(c2[a, b]) / (2 * num(pos[a]) * num(neg[b])) for b in range(k)]
                for a in range(k)
            ]
            values = {
                (a, b): abs(x[a][b] - x[b][a]) for a in range(k) for b in range(a + 1, k)
            }
        else:
            _require(int((~is_pos).sum()), None, "negatives", metric)
            n0 = num((~is_pos).sum() if weight is None else weight[~is_pos].sum())
            if n0 == 0:
                raise ValueError(MSG_ZERO_WEIGHT.format(what="negatives", metric=metric))
            rows = c2.sum(axis=1)
            p = [num(rows[a]) / (2 * num(pos[a]) * n0) for a in range(k)]
            values = {(a, b): abs(p[a] - p[b]) for a in range(k) for b in range(a + 1, k)}
    return {(labels[a].item(), labels[b].item()): v for (a, b), v in values.items()}


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
    scores, y = _labelled(scores, y)
    weight = check_sample_weight(sample_weight, scores.size)
    positives, negatives = scores[y == 1], scores[y == 0]
    _require(positives.size, None, "positives", "auc")
    _require(negatives.size, None, "negatives", "auc")
    return _ratio(positives, negatives, _weights(weight, y == 1), _weights(weight, y == 0),
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
    positives, negatives, wp, wn = _cross_sample(scores, y, groups, g, h, sample_weight)
    return _ratio(positives, negatives, wp, wn, "positives of g or the negatives of h",
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
    scores, y, labels, index, weight = _grouped(scores, y, groups, sample_weight)
    a = group_position(labels, g)
    upper = (index == a) & (y == 1)
    positives = scores[upper]
    negatives = scores[y == 0]
    _require(positives.size, labels[a].item(), "positives", "prf")
    _require(negatives.size, None, "negatives", "prf")
    return _ratio(positives, negatives, _weights(weight, upper), _weights(weight, y == 0),
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
    scores, _, labels, index, weight = _grouped(scores, None, groups, sample_weight)
    in_g, in_h = index == group_position(labels, g), index == group_position(labels, h)
    upper, lower = scores[in_g], scores[in_h]
    # P(S^g > S^h) + P(S^h > S^g) = 1 with ties split, so the difference is 2 P(S^g > S^h) - 1.
    if weight is None:
        pairs = upper.size * lower.size
        return abs(half_wins2(upper, lower) - pairs) / pairs
    return abs(2 * _ratio(upper, lower, weight[in_g], weight[in_h],
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
    scores, y, labels, index, weight = _grouped(scores, y, groups, sample_weight)
    check_n_groups(labels)
    return _pair_values(scores, y, labels, index, metric, weight)


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
