"""``fair_order``: validate, build the lattice, dispatch to a backend, read the result."""

import numpy as np

import cpu_reference

from . import _validation as v
from ._backend import cupy_engine, resolve_backend
from ._result import FairOrderResult

MSG_MULTI_GROUP = (
    "found {k} groups; the two-group DP needs exactly two (multi-group xOrder is not "
    "available yet)"
)


def fair_order(scores, y, groups, *, metric="xauc", lam=0.0, disparity="absolute",
               backend="auto", progress=None):
    """Interleave the groups' rankings to trade AUC against ranking disparity.

    Every group keeps its own descending score order; the DP chooses how the groups
    interleave so as to maximise ``AUC - lam * D`` (DESIGN section 3).

    Parameters
    ----------
    scores : array-like of shape (n,)
        Risk scores, higher ranked first. Finite.
    y : array-like of shape (n,)
        Binary labels (0/1).
    groups : array-like of shape (n,)
        Protected group of each item (ints or strings).
    metric : {"xauc", "prf", "urf"}, default="xauc"
        Disparity metric: cross-AUC, pairwise ranking fairness or unsupervised ranking
        fairness.
    lam : float or sequence of float, default=0.0
        Weight of the disparity, on the paper's scale (AUC and D are both fractions).
        The public reference code's weight equals ``lam * n_1 * n_0``. A sequence
        returns one result per value (filled in one batch on the GPU).
    disparity : {"absolute", "signed"}, default="absolute"
        ``"absolute"`` penalises ``|D|``; ``"signed"`` penalises ``D = m(a, b) - m(b, a)``
        (the paper's eq. 14), for which the DP is exactly optimal.
    backend : {"auto", "numpy", "cupy"}, default="auto"
    progress : callable(done_cells, total_cells), optional
        Called periodically while the lattice fills.

    Returns
    -------
    FairOrderResult or list of FairOrderResult
        One per ``lam`` value when ``lam`` is a sequence.

    Examples
    --------
    >>> import numpy as np
    >>> from gpu_xorder import fair_order
    >>> scores = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
    >>> y = np.array([1, 0, 1, 0, 1, 0, 1, 0])
    >>> groups = np.array(["a", "a", "a", "a", "b", "b", "b", "b"])
    >>> res = fair_order(scores, y, groups, lam=1.0, backend="numpy")
    >>> sorted(res.order.tolist()) == list(range(8))
    True
    """
    metric = v.check_choice(metric, "metric", v.METRICS)
    mode = v.check_choice(disparity, "disparity", v.DISPARITIES)
    backend = v.check_choice(backend, "backend", v.BACKENDS)
    if progress is not None and not callable(progress):
        raise TypeError("progress must be callable or None")
    s = v.check_scores(scores)
    labels_y = v.check_labels(y, s.size)
    labels, index = v.encode_groups(groups, s.size)
    v.check_n_groups(labels)
    lams, batch = v.check_lam(lam)
    v.check_supports(labels, index, labels_y, metric)
    if labels.size > 2:
        raise ValueError(MSG_MULTI_GROUP.format(k=labels.size))
    engine_name = resolve_backend(backend)
    lat = cpu_reference.build_lattice(s, labels_y, index, metric, mode)
    if engine_name == "cupy":
        solutions = cupy_engine().solve(lat, lams, progress=progress)
    else:
        solutions = [_solve_numpy(lat, lam_k, progress) for lam_k in lams]
    results = [
        _make_result(lat, labels, lam_k, path, final, engine_name)
        for lam_k, (path, final) in zip(lams, solutions)
    ]
    return results if batch else results[0]


def _solve_numpy(lat, lam, progress):
    words, final = cpu_reference.fill(lat, lam, progress=progress)
    return cpu_reference.traceback(words, lat.n_a, lat.n_b), final


def _make_result(lat, labels, lam, path, final, backend):
    objective, auc, _ = cpu_reference.cell_values(final, lat.consts, lam, lat.metric, lat.mode)
    _, _, delta = cpu_reference.cell_values(final, lat.consts, lam, lat.metric, "absolute")
    names = cpu_reference.COUNTERS[lat.metric]
    return FairOrderResult(
        order=cpu_reference.path_to_order(path, lat.perm_a, lat.perm_b),
        auc=auc,
        disparity=delta,
        objective=objective,
        counters={name: int(c) for name, c in zip(names, final)},
        groups=labels,
        path=np.asarray(path, dtype=np.int8),
        metric=lat.metric,
        lam=float(lam),
        mode=lat.mode,
        backend=backend,
    )
