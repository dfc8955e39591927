"""The result of ``fair_order`` and its one builder."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import cpu_reference


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
        ``{"cab": ..., "cba": ...}`` (see ``cpu_reference.COUNTERS``); with more than
        two groups keyed ``"C[g][h]"`` (and ``"U[g][h]"`` for URF) by group label.
    groups : ndarray
        Sorted group labels; group index k in ``path`` is ``groups[k]``.
    path : ndarray of int8 (int16 beyond 128 groups)
        Group index of each rank, top first.
    metric, lam, mode, backend, method
        The settings that produced the result; ``method`` is the one that ran:
        ``"2d"``, ``"kd"`` or ``"iterative"``.
    solver : str
        The solver that produced the ordering: ``"paper"`` (the DP's cell rule),
        ``"lagrangian"`` or ``"exact"`` (see ``fair_order``).
    upper_bound : float or None
        A certified upper bound on the best ``objective`` any interleaving can reach
        (for ``max_disparity``: on the best AUC of an interleaving with ``|D| <= eps``);
        equal to ``objective`` when the ordering is proven optimal, None where no
        bound was computed.
    gap : float or None
        ``upper_bound - objective``: how far from the best the ordering may be.
    max_disparity : float or None
        The constraint ``|D| <= max_disparity`` the ordering satisfies, when it was
        asked for (``objective`` is then the AUC).
    extra : dict
        What a solve adds where it applies: ``bands`` and ``band_rows`` of a banded
        solve, ``fills`` (the fills a search took), ``uncertified`` (why the cell rule
        ran without a certificate), ``merge_order`` (iterative xOrder) and
        ``objectives`` (``method="best"``).
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
    solver: str = "paper"
    upper_bound: float | None = None
    max_disparity: float | None = None
    extra: dict = field(default_factory=dict, repr=False)

    @property
    def gap(self) -> float | None:
        return None if self.upper_bound is None else self.upper_bound - self.objective

    def __repr__(self):
        return (
            f"FairOrderResult(n={self.order.size}, groups={self.groups.tolist()}, "
            f"metric={self.metric!r}, lam={self.lam:g}, mode={self.mode!r}, "
            f"auc={self.auc:.6f}, disparity={self.disparity:.6f}, "
            f"objective={self.objective:.6f}, backend={self.backend!r}, "
            f"method={self.method!r}, solver={self.solver!r}"
            + ("" if self.upper_bound is None else f", gap={self.gap:.3g}")
            + ")"
        )


def build_result(*, labels, metric, mode, lam, backend, path, perms, values, counters,
                 method="2d", extra=None, **fields):
    """The :class:`FairOrderResult` of a solved ``path`` (group indices, top first) of
    groups ``labels`` whose items in DP order are ``perms``: ``values`` is
    ``(objective, auc, disparity)``, ``counters`` the named final counters; ``fields``:
    ``solver``, ``upper_bound``, ``max_disparity`` where they apply."""
    objective, auc, disparity = values
    return FairOrderResult(
        order=cpu_reference.path_to_order(path, perms),
        auc=auc,
        disparity=disparity,
        objective=objective,
        counters=counters,
        groups=labels,
        path=np.asarray(path, dtype=cpu_reference.group_dtype(labels.size)),
        metric=metric,
        lam=float(lam),
        mode=mode,
        backend=backend,
        method=method,
        extra={} if extra is None else dict(extra),
        **fields,
    )
