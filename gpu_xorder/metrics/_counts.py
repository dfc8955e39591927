"""The samples and pair counts every ranking metric is made of (:mod:`._ranking`): the
validated data, a group's positives or negatives, doubled pair counts between samples
(exact integers; with weights, sums of pair weights, each sample's weights first scaled
by :func:`unit`), and the disparity of every pair of groups from one count of all
pairs."""

from __future__ import annotations

import numpy as np

from cpu_reference import half_wins2

from ..utils._frames import warn_misaligned
from ..utils._validation import (
    MSG_GROUP_LACKS,
    check_labels,
    check_sample_weight,
    check_scores,
    encode_groups,
    group_position,
)

MSG_Y_LACKS = "y has no {what}, which metric {metric!r} needs"
MSG_ZERO_WEIGHT = "sample_weight is 0 on all the {what}, which metric {metric!r} divides by"


def subset(weight, mask):
    return None if weight is None else weight[mask]


def unit(weight, block=None):
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


def ratio(upper, lower, upper_weight, lower_weight, what, metric):
    """P(U > L), ties 1/2: doubled wins over twice the pairs; with weights, every pair
    weighs the product of its items' weights (each sample's weights scaled by
    :func:`unit` first)."""
    if upper_weight is None:
        return half_wins2(upper, lower) / (2 * upper.size * lower.size)
    upper_weight, lower_weight = unit(upper_weight), unit(lower_weight)
    pairs = float(upper_weight.sum()) * float(lower_weight.sum())
    if pairs == 0:
        raise ValueError(MSG_ZERO_WEIGHT.format(what=what, metric=metric))
    order = np.argsort(lower, kind="stable")
    ranked = lower[order]
    cum = np.concatenate(([0.0], np.cumsum(lower_weight[order])))
    below = cum[np.searchsorted(ranked, upper, side="left")]
    below_or_tied = cum[np.searchsorted(ranked, upper, side="right")]
    return float(np.dot(upper_weight, below + below_or_tied)) / (2 * pairs)


def labelled(scores, y):
    """Validated ``(scores, y)``: float64 scores and int64 0/1 labels of the same length."""
    warn_misaligned(scores=scores, y=y)
    scores = check_scores(scores)
    return scores, check_labels(y, scores.shape[0])


def grouped(scores, y, groups, sample_weight=None):
    """Validated ``(scores, y, labels, index, weight)``; ``y`` and ``weight`` stay None
    when they are None."""
    warn_misaligned(scores=scores, y=y, groups=groups)
    scores = check_scores(scores)
    n = scores.shape[0]
    y = None if y is None else check_labels(y, n)
    labels, index = encode_groups(groups, n)
    return scores, y, labels, index, check_sample_weight(sample_weight, n)


def require(count, label, what, metric):
    """Raise the ValueError naming ``label`` (None: the whole of y) when ``count`` is zero."""
    if count == 0:
        if label is None:
            raise ValueError(MSG_Y_LACKS.format(what=what, metric=metric))
        raise ValueError(MSG_GROUP_LACKS.format(label=label, what=what, metric=metric))


def cross_sample(scores, y, groups, g, h, sample_weight=None):
    """Validated scores of the positives of group g and of the negatives of group h,
    and their weights (None without ``sample_weight``)."""
    scores, y, labels, index, weight = grouped(scores, y, groups, sample_weight)
    a, b = group_position(labels, g), group_position(labels, h)
    upper, lower = (index == a) & (y == 1), (index == b) & (y == 0)
    positives, negatives = scores[upper], scores[lower]
    require(positives.size, labels[a].item(), "positives", "xauc")
    require(negatives.size, labels[b].item(), "negatives", "xauc")
    return positives, negatives, subset(weight, upper), subset(weight, lower)


def cross_counts2(upper, upper_index, lower, lower_index, k, upper_weight=None,
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


def pair_values(scores, y, labels, index, metric, weight=None):
    """Delta of ``metric`` for every pair ``(labels[a], labels[b])``, ``a < b``; with
    ``weight``, of the weighted metric."""
    k = labels.size
    # exact integers without weights (Python ints divide correctly rounded)
    num = int if weight is None else float
    if weight is not None:  # each sample a ratio sums over is one block (see unit):
        # a group's items (urf), a group's positives or negatives (xauc), a group's
        # positives or all the negatives (prf)
        block = (index if metric == "urf" else 2 * index + y if metric == "xauc"
                 else np.where(y == 1, index, k))
        weight = unit(weight, block)

    def mass(mask, what):
        """Items (their total weight) of every group among ``mask``, each non-zero."""
        items = np.bincount(index[mask], minlength=k)
        for a in range(k):
            require(items[a], labels[a].item(), what, metric)
        if weight is None:
            return items
        total = np.bincount(index[mask], weights=weight[mask], minlength=k)
        for a in np.flatnonzero(total == 0):
            raise ValueError(MSG_ZERO_WEIGHT.format(
                what=f"{what} of group {labels[a].item()!r}", metric=metric))
        return total

    if metric == "urf":
        size = mass(np.ones(scores.size, dtype=bool), "items")
        u2 = cross_counts2(scores, index, scores, index, k, weight, weight)
        values = {
            (a, b): abs(num(u2[a, b]) - num(u2[b, a])) / (2 * num(size[a]) * num(size[b]))
            for a in range(k)
            for b in range(a + 1, k)
        }
    else:
        is_pos = y == 1
        pos = mass(is_pos, "positives")
        c2 = cross_counts2(scores[is_pos], index[is_pos], scores[~is_pos], index[~is_pos], k,
                            subset(weight, is_pos), subset(weight, ~is_pos))
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
            require(int((~is_pos).sum()), None, "negatives", metric)
            n0 = num((~is_pos).sum() if weight is None else weight[~is_pos].sum())
            if n0 == 0:
                raise ValueError(MSG_ZERO_WEIGHT.format(what="negatives", metric=metric))
            rows = c2.sum(axis=1)
            p = [num(rows[a]) / (2 * num(pos[a]) * n0) for a in range(k)]
            values = {(a, b): abs(p[a] - p[b]) for a in range(k) for b in range(a + 1, k)}
    return {(labels[a].item(), labels[b].item()): v for (a, b), v in values.items()}
