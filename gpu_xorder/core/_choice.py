"""What runs: the one place that decides the engine, the route, the solver and the
memory plan of a solve (docs/design.md, section 7, "What decides what runs").

``fair_order``'s work (``_work``) and the command line's estimates (``cli._fit``) ask
the same functions, so that an estimate counts the fills the solve takes:

- the engine: :func:`engine_for` (CuPy, numba, NumPy: ``engine._backend``);
- the route: :func:`k_group_route` (the K-group methods, or the two-group solvers);
- two groups: the solver of every lam (:func:`choose_solver`, :func:`solvers`) and
  why ``"auto"`` may run the cell rule uncertified (:func:`uncertified_reason`);
- K groups: the method, the engine that takes it and the memory budget
  (:func:`k_group_plan`), the worker processes (:func:`k_group_workers`);
- the lattice cells a solve fills (:func:`expected_cells`).

The engine is asked for its capabilities (``engine._interface.Engine``), never named.
"""

import logging

import numpy as np

import cpu_reference

from ..engine import _backend, _plan
from ..utils import _parallel
from . import _solvers

logger = logging.getLogger("gpu_xorder")

MSG_MULTI_MEMORY = (
    "{method} xOrder of groups of sizes {sizes} keeps {need:.3g} GiB of decision bits, "
    "over {source} ({limit:.3g} GiB); {hint}subsample each group (XOrder(subsample=k))"
)
MSG_UNCERTIFIED = (
    "solver='auto' ran the cell rule without a certificate (upper_bound=None): the "
    "{n_a} x {n_b} lattice ({cells:.3g} cells) is above what the {engine} backend "
    "certifies in the time of a few fills ({limit:.3g} cells); solver='lagrangian' "
    "certifies it in about {seconds:.0f} s ({fills} fills of the lattice), or use a "
    "GPU (backend='cupy')"
)


def engine_for(backend):
    """The engine module (``engine._interface.Engine``) of a validated ``backend``:
    ``"auto"`` takes CuPy, then numba, then NumPy (``_backend.resolve_backend``)."""
    return _backend.engine(_backend.resolve_backend(backend))


def k_group_route(k, method, solver, max_disparity):
    """Whether the K-group methods run (K-D, iterative; for two groups the 2-D DP of
    the cell rule) rather than the two-group solvers: more than two groups, or two with
    an explicit method and neither a certified solver nor the constraint asked for."""
    if k > 2:
        return True
    searched = solver in ("lagrangian", "exact") or max_disparity is not None
    return method != "auto" and not searched


# ------------------------------------------------------------------ two groups


def choose_solver(solver, mode, lams, n_cells, certified_cells):
    """The two-group solver that runs for ``lams``: the cell rule where it is exact
    (signed mode, lam = 0) or where ``"auto"`` finds the search out of proportion (a
    lattice of more than ``certified_cells``, the engine's ``CERTIFIED_CELLS``)."""
    if mode == "signed" or not np.any(np.asarray(lams) > 0) or solver == "paper":
        return "paper"
    if solver != "auto":
        return solver
    if n_cells > certified_cells:
        return "paper"
    return "auto"


def solvers(solver, mode, lams, n_cells, eng, alone=False):
    """The solver of every lam: one choice for all (they share one search), or with
    ``alone`` each its own."""
    if alone:
        return [choose_solver(solver, mode, lams[i:i + 1], n_cells, eng.CERTIFIED_CELLS)
                for i in range(len(lams))]
    return [choose_solver(solver, mode, lams, n_cells, eng.CERTIFIED_CELLS)] * len(lams)


def expected_fills(chosen, lams, n):
    """Lattice fills the solvers ``chosen`` (one per lam) are expected to take, all lams
    together (``_solvers.expected_fills``; ``n``: the larger group's size)."""
    return sum(_solvers.expected_fills(c, lam, n) for c, lam in zip(chosen, lams))


def uncertified_reason(solver, chosen, lams, n_a, n_b, eng):
    """Why ``solver="auto"`` runs the cell rule without a certificate on engine
    ``eng`` (the message of the warning), or None where it certifies or the rule is
    exact."""
    cells = (n_a + 1) * (n_b + 1)
    if solver != "auto" or chosen != "paper" or not np.any(np.asarray(lams) > 0):
        return None
    if cells <= eng.CERTIFIED_CELLS:
        return None  # signed mode: the rule is exact
    fills = expected_fills(["lagrangian"] * len(lams), lams, max(n_a, n_b))
    return MSG_UNCERTIFIED.format(
        n_a=n_a, n_b=n_b, cells=cells, engine=eng.NAME, limit=eng.CERTIFIED_CELLS,
        fills=fills, seconds=fills * cells * (eng.FILL_SECONDS_PER_CELL or 0.0))


# ------------------------------------------------------------------ K groups


def _budget(eng, memory_limit):
    """``(bytes, what they are)`` the K-group decision bits may take: the engine's own
    check (a device's) holds to ``memory_limit`` alone; the host's to its budget."""
    if eng.OWN_MEMORY:
        return memory_limit, "memory_limit"
    return _plan.host_budget(memory_limit)


def k_group_method(eng, method, sizes, memory_limit):
    """The K-group method ``method`` resolves to on engine ``eng`` (``"auto"``: K-D up
    to ``_plan.KD_MAX_CELLS`` cells while its bits fit the budget, else iterative)."""
    return _plan.choose_method(method, sizes, _budget(eng, memory_limit)[0])


def k_group_plan(eng, backend, method, sizes, memory_limit):
    """``(engine, method, budget)`` of a K-group solve of groups of ``sizes``.

    Where the engine's kernels do not take the method's groups (``MAX_OLD_GROUPS``,
    ``MAX_KD_GROUPS``), ``backend="auto"`` runs the reference engine and a named backend
    raises ``ValueError``; a method whose decision bits exceed the budget raises
    ``MemoryError``."""
    budget, source = _budget(eng, memory_limit)
    chosen = _plan.choose_method(method, sizes, budget)
    refusal = _plan.kernel_refusal(chosen, len(sizes), eng.MAX_OLD_GROUPS,
                                   eng.MAX_KD_GROUPS)
    if refusal is not None:  # more groups than the kernels take: NumPy, unless named
        if backend != "auto":
            raise ValueError(refusal)
        logger.info("gpu_xorder: using the NumPy backend (%s)", refusal)
        eng = _backend.engine(_backend.REFERENCE)
        budget, source = _budget(eng, memory_limit)
        chosen = _plan.choose_method(method, sizes, budget)
    need = _plan.decision_bytes(sizes, chosen)
    if budget is not None and need > budget:
        hint = "use method='auto' (two groups: filled in bands) or " if len(sizes) == 2 else (
            "use method='iterative' or " if chosen == "kd" else "")
        raise MemoryError(MSG_MULTI_MEMORY.format(
            method=chosen, sizes=list(sizes), source=source, limit=budget / 2**30,
            need=need / 2**30, hint=hint))
    return eng, chosen, budget


def k_group_workers(eng, n_jobs, n_lams, budget, sizes, method):
    """Worker processes that fill the lattices of ``n_lams`` values at once: 1, or on
    an engine with ``WORKER_PROCESSES`` as many as ``n_jobs`` and the budget allow."""
    if not eng.WORKER_PROCESSES:
        return 1
    n_workers = _parallel.workers(n_jobs, n_lams)
    if budget is not None:
        n_workers = max(1, min(n_workers, budget // _plan.decision_bytes(sizes, method)))
    return n_workers


def k_group_cells(sizes, method):
    """Cells of one K-group solve of ``method`` (``"best"``: K-D and iterative)."""
    cells = {"kd": cpu_reference.kd_cells, "iterative": cpu_reference.iterative_cells}
    if method == "best":
        return sum(f(sizes) for f in cells.values())
    return cells[method](sizes)


# ------------------------------------------------------------------ estimates


def expected_cells(sizes, lams, *, method, solver, mode, max_disparity, eng,
                   memory_limit=None):
    """Lattice cells a solve of groups of ``sizes`` at ``lams`` is expected to fill, by
    the choices above: two groups, the fills of the solver of each lam (a constrained
    solve: a search at lam 1); the K-group methods, their cells per lam."""
    sizes = [int(n) for n in sizes]
    if not k_group_route(len(sizes), method, solver, max_disparity):
        if max_disparity is not None:
            lams = [1.0]
        cells = cpu_reference.kd_cells(sizes)
        chosen = solvers(solver, mode, np.asarray(lams, dtype=np.float64), cells, eng)
        return cells * expected_fills(chosen, lams, max(sizes))
    if len(sizes) == 2:  # every method is the 2-D DP, once per lam
        return cpu_reference.kd_cells(sizes) * len(lams)
    if method != "best":
        method = k_group_method(eng, method, sizes, memory_limit)
    return k_group_cells(sizes, method) * len(lams)
