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
    upper = np.asarray(upper, dtype=np.float64)
    lower = np.sort(np.asarray(lower, dtype=np.float64))
    below = np.searchsorted(lower, upper, side="left")
    below_or_tied = np.searchsorted(lower, upper, side="right")
    return int(below.sum(dtype=np.int64) + below_or_tied.sum(dtype=np.int64))
