"""The forms scores come in and go out: a vector, a one-column array or DataFrame, a
pandas Series; and the sample weights an ordering of items can honour (equal ones)."""

import numpy as np

from ..utils import _frames
from ..utils import _validation as v

MSG_ONE_COLUMN = (
    "XOrder takes one column of scores (a vector, an array of shape (n, 1) or a "
    "one-column DataFrame), got shape {shape}"
)
MSG_SPARSE = "XOrder takes dense scores; sparse input is not supported"
MSG_WEIGHTED = (
    "XOrder cannot weigh items: its dynamic program counts pairs of items, so "
    "sample_weight must be None or one value > 0 for all (got values from {lo!r} to "
    "{hi!r})"
)


def score_column(scores):
    """``(column, table)``: the scores of a vector, or of a one-column table (an array
    of shape (n, 1), a DataFrame; ``table`` True), as a vector for ``check_scores``."""
    if hasattr(scores, "tocsr") or hasattr(scores, "to_dense"):  # SciPy or pandas sparse
        raise TypeError(MSG_SPARSE)
    if _frames.is_frame(scores):
        if scores.shape[1] != 1:
            raise ValueError(MSG_ONE_COLUMN.format(shape=scores.shape))
        return scores.iloc[:, 0].to_numpy(), True
    arr = np.asarray(scores)
    if arr.ndim == 2:
        if arr.shape[1] != 1:
            raise ValueError(MSG_ONE_COLUMN.format(shape=arr.shape))
        return arr[:, 0], True
    return arr, False


def shaped(adjusted, scores, table):
    """Adjusted scores (a vector) in the form ``scores`` were given: a pandas Series or
    DataFrame with its index, an array of shape (n, 1) (``table``), or a vector."""
    like = _frames.like(adjusted, scores)
    if like is not None:
        return like
    return adjusted.reshape(-1, 1) if table else adjusted


def check_equal_weights(sample_weight, n, message=MSG_WEIGHTED):
    """Refuse ``sample_weight`` unless it is None or one value > 0 for all ``n`` items
    (a uniform weight changes no pair count's ratio); ``message`` names the way out."""
    weight = v.check_sample_weight(sample_weight, n)
    if weight is not None and weight.size and (weight.min() != weight.max()
                                               or weight[0] == 0):
        raise ValueError(message.format(lo=weight.min().item(), hi=weight.max().item()))
