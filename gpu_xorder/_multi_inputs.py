"""Flat inputs of the multi-group CUDA kernels (``cuda/xorder_multi.cu``), in NumPy.

Shared by the launch schedule (``_multi_launch``) and the test suite, which runs the same
kernels' cell functions compiled for the host on the very same arrays. ``ITER_FIELDS``
and ``KD_FIELDS`` are the kernels' leading parameters, in order (``ITER_PARAMS`` and
``KD_PARAMS`` in the ``.cu`` file).
"""

import numpy as np

import cpu_reference as cr

METRIC_CODE = {"xauc": 0, "prf": 1, "urf": 2}

ITER_FIELDS = ("seq_q", "seq_g", "seq_y", "y_b", "neg_b", "negleft_a", "left_a", "qc",
               "scal", "n_a", "n_b", "m", "b_group")
KD_FIELDS = ("axis", "coords", "sums", "pred", "sizes", "ys", "ys_off", "negleft",
             "nl_off", "inv_x", "inv_p", "w_g", "inv_u", "scal", "k", "last", "box")


def iter_arrays(prob, cs, seq_g, seq_y, b, const_c, const_u, lam):
    """Kernel inputs of the iterative step merging group ``b`` into ``(seq_g, seq_y)``
    (``cs``: constants of the groups merged so far plus b; ``const_c``/``const_u``:
    final counters of the pairs among the old groups)."""
    inp = cr.step_inputs(prob, cs, seq_g, seq_y, b, const_c, const_u)
    old = inp.old
    m = len(old)
    compact = np.full(prob.k, -1, dtype=np.int32)
    compact[old] = np.arange(m, dtype=np.int32)
    k = cr.StepGhat(prob, cs, b, old, const_c, inp, lam)
    qc = np.concatenate([k.inv_qb, k.inv_bq, k.inv_u, k.old_first, k.row_const, k.w_q,
                         k.inv_p, np.zeros((m, 1))], axis=1).astype(np.float64)
    floor = 0.0 if inp.floor is None else float(inp.floor)
    return {
        "seq_q": compact[seq_g],
        "seq_g": np.asarray(seq_g, dtype=np.int32),
        "seq_y": np.asarray(seq_y, dtype=np.float64),
        "y_b": prob.ys[b].astype(np.float64),
        "neg_b": prob.negleft[b].astype(np.float64),
        "negleft_a": np.stack([inp.negleft_a[h] for h in old]).astype(np.float64),
        "left_a": np.stack([inp.left_a[h] for h in old]).astype(np.float64),
        "qc": qc,
        "scal": np.array([float(k.s_const), k.w, k.inv_auc, floor, k.w_b, k.inv_p_b,
                          float(lam), 0.0]),
        "n_a": np.int32(seq_g.size),
        "n_b": np.int32(prob.sizes[b]),
        "m": np.int32(m),
        "b_group": np.int32(b),
        # not kernel parameters
        "old": old,
        "rows": (4 if prob.metric == "urf" else 2) * m,
    }


def iter_finals(arrays, final, b):
    """``(C, U)`` dicts of the pairs with b from the final counter rows of a step."""
    old, m = arrays["old"], len(arrays["old"])
    values = [int(v) for v in np.asarray(final)]
    c, u = {}, {}
    for q, g in enumerate(old):
        c[(g, b)], c[(b, g)] = values[q], values[m + q]
        if len(values) == 4 * m:
            u[(g, b)], u[(b, g)] = values[2 * m + q], values[3 * m + q]
    return c, u


def kd_arrays(prob, lam):
    """Kernel inputs of the K-D DP over all groups of ``prob`` (sorted-box layout of
    ``cpu_reference._kd``), plus the hyperplane spans and decision-word offsets."""
    k, sizes = prob.k, prob.sizes
    lay = cr.KdLayout(sizes)
    cs = cr.kgroup_constants(prob, range(k))
    n = sum(sizes)
    d = np.arange(n + 1)
    lo = np.searchsorted(lay.sums, d - lay.n_last, side="left").astype(np.int64)
    hi = np.searchsorted(lay.sums, d, side="right").astype(np.int64)
    count = np.where(d >= 1, -(-(hi - (lo & ~31)) // 32), 0)
    base = np.concatenate(([0], np.cumsum(count)[:-1])).astype(np.int64)
    inv_x = np.zeros((k, k))
    inv_u = np.zeros((k, k))
    for g, h in cr.ordered_pairs(range(k)):
        inv_x[g, h] = cs.inv_x[(g, h)]
        if g < h:
            inv_u[g, h] = cs.inv_u[(g, h)]
    stride = np.zeros(k, dtype=np.int64)
    for g in lay.axes:
        stride[g] = lay.strides[g]
    ys_off = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
    nl_off = np.concatenate(([0], np.cumsum(np.array(sizes) + 1)[:-1])).astype(np.int64)
    return {
        "axis": np.array(lay.axes, dtype=np.int32),
        "coords": np.stack([lay.coords[g] for g in lay.axes]).astype(np.int32),
        "sums": lay.sums.astype(np.int32),
        "pred": np.stack([lay.pred[g] for g in lay.axes]).astype(np.int64),
        "sizes": np.array(sizes, dtype=np.int32),
        "ys": np.concatenate(prob.ys).astype(np.float64),
        "ys_off": ys_off,
        "negleft": np.concatenate(prob.negleft).astype(np.float64),
        "nl_off": nl_off,
        "inv_x": inv_x,
        "inv_p": np.array([cs.inv_p[g] for g in range(k)]),
        "w_g": np.array([cs.w_g[g] for g in range(k)]),
        "inv_u": inv_u,
        "scal": np.array([cs.w, cs.inv_auc, float(lam)]),
        "k": np.int32(k),
        "last": np.int32(lay.last),
        "box": np.int32(lay.sums.size),
        # not kernel parameters
        "lo": lo,
        "hi": hi,
        "base": base,
        "plane_words": int(count.sum()),
        "nbits": max(1, (k - 1).bit_length()),
        "rank": lay.rank.astype(np.int64),
        "stride": stride,
        "end": lay.box_position(list(sizes)),
        "n_planes": n,
        "rows": (2 if prob.metric == "urf" else 1) * k * (k - 1),
    }


def kd_finals(prob, final):
    """``(C, U)`` dicts of the K-D DP from the final counter rows."""
    pairs = cr.ordered_pairs(range(prob.k))
    values = [int(v) for v in np.asarray(final)]
    c = dict(zip(pairs, values[:len(pairs)]))
    u = dict(zip(pairs, values[len(pairs):]))
    return c, u


def kd_decisions(words, arrays, d):
    """Chosen axis of every cell of hyperplane ``d`` from the kernel's decision words."""
    lo, hi = int(arrays["lo"][d]), int(arrays["hi"][d])
    r = np.arange(lo, hi) - (lo & ~31)
    w = arrays["base"][d] + (r >> 5)
    planes = np.asarray(words).reshape(arrays["nbits"], -1)
    axis = np.zeros(hi - lo, dtype=np.int64)
    for b in range(arrays["nbits"]):
        axis |= ((planes[b][w] >> (r & 31).astype(np.uint32)) & 1).astype(np.int64) << b
    return axis
