"""G-hat: the objective J = AUC - lam * D evaluated on a cell's counters.

docs/design.md, section 3.2.

The sequence of float64 operations below is the contract shared with the CUDA twin
``ghat()`` in ``gpu_xorder/cuda/xorder_common.cuh``; change both or neither. Integer
counters enter float arithmetic only through exact conversions (all counters are below
2**53), every constant is a precomputed reciprocal, and the GPU is compiled without
fused multiply-add, so both backends round identically.

The NumPy functions take the counters already converted to float64 (one conversion
per diagonal instead of one per operation). This changes no value: for integers below
2**53, ``(double)(cab + cba) == (double)cab + (double)cba`` and likewise for
``uab - uba``, since both sides are exact.
"""

import numpy as np


def ghat(counters, consts, lam, metric, mode, out, tmp, ftmp):
    """Write G-hat of every cell of ``counters`` into ``out``.

    Parameters
    ----------
    counters : ndarray of float64, shape (K, ...)
        ``cab, cba[, uab, uba]`` of each cell (see ``_lattice.COUNTERS``), converted
        exactly from the int64 counters.
    consts : GhatConstants
    lam : float
    metric : {"xauc", "prf", "urf"}
    mode : {"absolute", "signed"}
    out, tmp, ftmp : ndarray of float64, shape (...)
        Output and scratch.

    Returns
    -------
    out
    """
    auc_into(counters, consts, out)
    disparity_into(counters, consts, metric, mode, tmp, ftmp)
    # g = auc - lam * d
    np.multiply(tmp, lam, out=tmp)
    np.subtract(out, tmp, out=out)
    return out


def auc_into(counters, consts, out):
    """auc = ((double)(cab + cba) + w) * inv_auc."""
    np.add(counters[0], counters[1], out=out)
    np.add(out, consts.w, out=out)
    np.multiply(out, consts.inv_auc, out=out)
    return out


def disparity_into(counters, consts, metric, mode, d, f):
    """The disparity term D of G-hat, absolute or signed, written into ``d``."""
    c = consts
    cab, cba = counters[0], counters[1]
    if metric == "xauc":
        # d = (double)cab * inv_ab - (double)cba * inv_ba
        np.multiply(cab, c.inv_ab, out=d)
        np.multiply(cba, c.inv_ba, out=f)
        np.subtract(d, f, out=d)
    elif metric == "prf":
        # d = ((double)cab + w_a) * inv_pa - ((double)cba + w_b) * inv_pb
        np.add(cab, c.w_a, out=d)
        np.multiply(d, c.inv_pa, out=d)
        np.add(cba, c.w_b, out=f)
        np.multiply(f, c.inv_pb, out=f)
        np.subtract(d, f, out=d)
    else:
        # d = (double)(uab - uba) * inv_u
        np.subtract(counters[2], counters[3], out=d)
        np.multiply(d, c.inv_u, out=d)
    if mode == "absolute":
        np.abs(d, out=d)
    return d


def cell_values(counters, consts, lam, metric, mode):
    """``(objective, auc, disparity)`` of one cell, by the same operation sequences."""
    counters = np.asarray(counters, dtype=np.int64).reshape(-1, 1).astype(np.float64)
    g, auc, d, f = np.empty(1), np.empty(1), np.empty(1), np.empty(1)
    ghat(counters, consts, lam, metric, mode, g, d, f)
    auc_into(counters, consts, auc)
    disparity_into(counters, consts, metric, mode, d, f)
    return float(g[0]), float(auc[0]), float(d[0])
