"""The result of ``fair_order``."""

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True, eq=False)
class FairOrderResult:
    """A merged ordering chosen by xOrder and the values of its objective.

    Attributes
    ----------
    order : ndarray of int64
        Input indices, top of the ranking first: a permutation of ``range(n)`` that
        keeps every group's descending score order.
    auc : float
        AUC of the merged ordering (within-group ties count 1/2).
    disparity : float
        The disparity metric of the ordering, ``Delta`` (absolute, maximum over pairs of
        groups), whatever the optimisation mode.
    objective : float
        The objective the DP maximised, ``auc - lam * D`` (``D`` signed in
        ``disparity="signed"`` mode).
    counters : dict of str to int
        Exact counts of decided cross-group pairs at the last cell, e.g.
        ``{"cab": ..., "cba": ...}`` (see ``cpu_reference.COUNTERS``).
    groups : ndarray
        Sorted group labels; group index k in ``path`` is ``groups[k]``.
    path : ndarray of int8
        Group index of each rank, top first.
    metric, lam, mode, backend, method
        The settings that produced the result.
    """

    order: np.ndarray
    auc: float
    disparity: float
    objective: float
    counters: dict
    groups: np.ndarray
    path: np.ndarray
    metric: str
    lam: float
    mode: str
    backend: str
    method: str = "2d"
    extra: dict = field(default_factory=dict, repr=False)

    def __repr__(self):
        return (
            f"FairOrderResult(n={self.order.size}, groups={self.groups.tolist()}, "
            f"metric={self.metric!r}, lam={self.lam:g}, mode={self.mode!r}, "
            f"auc={self.auc:.6f}, disparity={self.disparity:.6f}, "
            f"objective={self.objective:.6f}, backend={self.backend!r}, "
            f"method={self.method!r})"
        )
