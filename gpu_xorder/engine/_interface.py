"""The engine interface: what every engine module offers, so that ``core`` runs any of
them without naming one (docs/design.md, section 7).

An engine is a module (``_numpy_engine``, ``_numba_engine``, ``_cupy_engine``;
``_backend.ENGINES`` maps the backend names to them) that satisfies :class:`Engine`:
the fills of the two-group and step lattices and the K-group solves, all with the
decisions of ``cpu_reference`` bit for bit, and a few capabilities that ``core._choice``
asks instead of the engine's name (where a name would have to be known, the capability
says what differs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from contextlib import AbstractContextManager

    import numpy as np

    Progress = Callable[[int, int], object] | None


@runtime_checkable
class Engine(Protocol):
    """The functions and capabilities of an engine module.

    Attributes
    ----------
    NAME : str
        The backend name (``result.backend``): ``"numpy"``, ``"numba"`` or ``"cupy"``.
    BATCHED_FILLS : bool
        ``solve`` fills a batch of lam values of one lattice in one call (so two groups
        with a K-group method run its 2-D fill, every lam at once); False: the K-group
        solve of each lam (``solve_multi``), in worker processes where
        ``WORKER_PROCESSES``.
    WORKER_PROCESSES : bool
        The lattices of a lam sequence may fill in ``n_jobs`` worker processes, the
        memory budget shared among them.
    OWN_MEMORY : bool
        The engine checks its own memory (a device's) for the K-group solves; False: the
        caller holds the decision bits to the host budget (``_plan.host_budget``).
    MAX_OLD_GROUPS, MAX_KD_GROUPS : int or None
        The most old groups of an iterative step and the most groups of a K-D solve its
        kernels take (None: no limit); beyond, ``"auto"`` runs the reference.
    CERTIFIED_CELLS : float
        The largest two-group lattice ``solver="auto"`` certifies on it in the time of a
        few fills (``inf``: no limit); beyond, the cell rule with a warning.
    FILL_SECONDS_PER_CELL : float or None
        Seconds of one fill with decision bits and its traceback, per lattice cell, on
        the 2-core development machine (None: not measured, a GPU), for the estimates.
    """

    NAME: str
    BATCHED_FILLS: bool
    WORKER_PROCESSES: bool
    OWN_MEMORY: bool
    MAX_OLD_GROUPS: int | None
    MAX_KD_GROUPS: int | None
    CERTIFIED_CELLS: float
    FILL_SECONDS_PER_CELL: float | None

    def solve(self, lat, lams: Sequence[float], progress: Progress = None,
              memory_limit: int | None = None, n_jobs: int | None = None
              ) -> tuple[list[tuple[np.ndarray, np.ndarray]], int | None]:
        """``([(path, final), ...], band_rows)``: the path and final counters of
        ``lat`` (a ``StepLattice``) at every lam; ``band_rows`` not None where the
        decision bits exceeded ``memory_limit`` (bytes; None: the engine's default
        budget) and the lattice was filled in bands of that many rows. ``progress(done,
        total)`` counts the cells of every lattice of the call; ``n_jobs``: worker
        processes where ``WORKER_PROCESSES``, else ignored."""

    def final_counters(self, lat, lams: Sequence[float]) -> np.ndarray:
        """int64 ``(len(lams), K)``: the final counters of ``lat`` at every lam, from
        fills that keep no decision bits where the engine has them (the solvers'
        searches)."""

    def solve_step(self, lat, lam: float, progress: Progress = None
                   ) -> tuple[np.ndarray, np.ndarray]:
        """``(path, final)`` of one lattice: an iterative step
        (``cpu_reference.solve_iterative``'s ``solve``)."""

    def solve_multi(self, prob, lam: float, method: str, progress: Progress = None
                    ) -> tuple:
        """K-D (``method="kd"``) or iterative xOrder of ``prob`` (a
        ``cpu_reference.KProblem``): ``(path, C, U, constants[, merge_order])`` as the
        reference's solvers return them."""

    def dp_orders(self, scores: np.ndarray, group_index: np.ndarray, k: int
                  ) -> list[np.ndarray] | None:
        """Each group's input indices in descending score order, equal scores in input
        order, where the engine sorts them itself (the GPU); None: the reference's
        (``cpu_reference.build_lattice`` sorts)."""

    def session(self) -> AbstractContextManager:
        """A context within which the many fills of one solve may share what the engine
        prepares per lattice (numba's inputs); a context that does nothing elsewhere."""

