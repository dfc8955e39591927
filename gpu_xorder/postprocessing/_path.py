"""``xorder_path``: :class:`gpu_xorder.XOrder` fitted for every value of ``lam`` at
once, from one batched call of the core of :func:`gpu_xorder.fair_order`
(``_fitted.fit_path``; a held-out choice of the weight calls its quiet twin)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._estimator import XOrder
from ._fitted import fit_path

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from numpy.typing import ArrayLike

MSG_PATH_LAM = "xorder_path takes the values of lam as lams=, not lam="
MSG_PATH_CONSTRAINT = (
    "xorder_path sweeps lam; for max_disparity fit XOrder(max_disparity=...) instead"
)


def xorder_path(scores: ArrayLike, y: ArrayLike, *, sensitive_features: ArrayLike,
                lams: Sequence[float], progress: Callable[[int, int], object] | None = None,
                n_jobs: int | None = None, **params: Any) -> list[XOrder]:
    """Fit :class:`XOrder` for every value of ``lam`` at once: the trade-off path.

    The data are validated and prepared once and the orderings of all values come from
    one call of the core of :func:`gpu_xorder.fair_order` with the sequence ``lams``,
    whose cell-rule fills the GPU engine runs as one batch of lattices in the same
    launches. Every value is solved as if given alone (its own solver choice, search
    and rule among orderings of equal objective; docs/design.md, section 3.5, "Ties,
    and the values of a sequence"), so each returned model is, bit for bit, the very
    model ``XOrder(lam=value, **params).fit(...)`` gives (ordering, ``result_``,
    adjusted scores), whatever the other values, their order or duplicates.

    Parameters
    ----------
    scores, y, sensitive_features : array-like
        Training data, as in :meth:`XOrder.fit`.
    lams : sequence of float
        Values of ``lam``, each >= 0.
    progress : callable(done_cells, total_cells), optional
        Passed on to :func:`gpu_xorder.fair_order` (cells of all values together).
    n_jobs : int or None, default=None
        Passed on to :func:`gpu_xorder.fair_order`: on the NumPy backend, the lattices
        of that many values fill at once in worker processes (-1: one per CPU core;
        None: 1, or every worker of a Dask cluster under
        ``joblib.parallel_backend("dask")``); the search of each value that runs one
        (two groups, ``lam > 0``) runs on its own, in this process.
    **params
        Any other parameter of :class:`XOrder` (``metric``, ``disparity``,
        ``reference_group``, ``backend``, ``method``, ``subsample``,
        ``memory_limit``).

    Returns
    -------
    list of XOrder
        Fitted models, one per value of ``lams``, in that order.

    Raises
    ------
    TypeError
        On an unknown parameter, ``lam`` given in ``params``, or non-numeric input.
    ValueError
        As :meth:`XOrder.fit`, and on an empty ``lams``.

    Examples
    --------
    >>> import numpy as np
    >>> from gpu_xorder import xorder_path
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 40)
    >>> groups = np.repeat(["a", "b"], 20)
    >>> scores = y + rng.normal(0, 1, 40) + (groups == "a")
    >>> models = xorder_path(scores, y, sensitive_features=groups,
    ...                      lams=[0.0, 0.1, 1.0], backend="numpy")
    >>> [(round(m.result_.auc, 3), round(m.result_.disparity, 3)) for m in models]
    [(0.934, 0.092), (0.931, 0.01), (0.928, 0.004)]
    """
    if "lam" in params:
        raise TypeError(MSG_PATH_LAM)
    if params.get("max_disparity") is not None:
        raise TypeError(MSG_PATH_CONSTRAINT)
    return fit_path(XOrder(**params), scores, y, sensitive_features, lams, progress,
                    n_jobs)
