"""Pair counting by sorting: the O(n log n) kernel behind every ranking metric.

docs/design.md, section 2: a pair (upper, lower) counts 1 when ``upper > lower`` and
1/2 on a tie (the ``roc_auc_score`` convention). Counts are returned doubled, as exact
integers, so that callers can keep them in int64 and divide once.
"""

import numpy as np


def half_wins2(upper, lower):
    """Twice the number of pairs ``(u, l)`` with ``u > l``, ties counting 1/2.

    Parameters
    ----------
    upper, lower : ndarray of float
        The two samples; every element of ``upper`` is paired with every element of
        ``lower``.

    Returns
    -------
    int
        ``2 * #{u > l} + #{u == l}``, exact.
    """
    # both sorted: searching sorted needles walks ``lower`` once, in cache order (about
    # twice as fast at 10^5 items as unsorted needles, sort included); the count is the
    # same integer
    upper = np.sort(np.asarray(upper, dtype=np.float64))
    lower = np.sort(np.asarray(lower, dtype=np.float64))
    below = np.searchsorted(lower, upper, side="left")
    below_or_tied = np.searchsorted(lower, upper, side="right")
    return int(below.sum(dtype=np.int64) + below_or_tied.sum(dtype=np.int64))


def half_wins2_within(scores_desc, labels):
    """``half_wins2(positives, negatives)`` of one group whose ``scores_desc`` are sorted
    in descending order (``labels`` 1 for a positive), in O(n): no sort and no search.

    Equal scores are adjacent; a positive beats the negatives of every later block of
    equal scores and ties with those of its own block.
    """
    s = np.asarray(scores_desc, dtype=np.float64)
    lab = np.asarray(labels).astype(np.int64)
    if s.size == 0:
        return 0
    new = s[1:] != s[:-1]
    if new.all():  # distinct scores: a positive beats every negative after it
        neg = 1 - lab
        return int(2 * (lab * (neg.sum() - neg.cumsum())).sum(dtype=np.int64))
    starts = np.flatnonzero(np.concatenate(([True], new)))
    pos = np.add.reduceat(lab, starts)
    neg = (np.diff(np.append(starts, s.size)) - pos)
    below = neg[::-1].cumsum()[::-1] - neg  # negatives of the later blocks
    return int((pos * (2 * below + neg)).sum(dtype=np.int64))
