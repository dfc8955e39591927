"""What runs: the one place that decides the engine, the route, the solver, the memory
plan and the cost of a solve (docs/design.md, section 7, "What decides what runs"), once:
:func:`plan` returns one immutable :class:`Plan`, which ``_work.execute`` carries out
and the command line prints (``gpu-xorder fit --plan``, the estimate before a fit).

Its parts:

- the engine: :func:`engine_for` (CuPy, numba, NumPy: ``engine._backend``);
- the route: :func:`k_group_route` (the K-group methods, or the two-group solvers);
- two groups: the solver of every lam (:func:`choose_solver`, :func:`solvers`), the
  fills they are expected to take (:func:`expected_fills`) and why ``"auto"`` may run
  the cell rule uncertified (:func:`uncertified_reason`);
- K groups: the method, the engine that takes it and the memory budget
  (:func:`k_group_plan`), the worker processes (:func:`k_group_workers`), the cells
  (:func:`k_group_cells`);
- the cost: :func:`estimate_solver_seconds`, :func:`front_states_bound` and
  ``engine._plan.estimate_seconds``.

The engine is asked for its capabilities (``engine._interface.Engine``), never named.
"""

import dataclasses
import logging
import math

import numpy as np

import cpu_reference

from ..engine import _backend, _plan
from ..utils import _parallel
from . import _constrained, _exact, _polish, _solvers

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


def expected_fills(chosen, lams, n, converged=False):
    """Lattice fills the solvers ``chosen`` (one per lam) are expected to take, all lams
    together (``_solvers.expected_fills``; ``n``: the larger group's size;
    ``converged``: ``"auto"``'s search runs to the end, the exact solver may follow)."""
    return sum(_solvers.expected_fills(c, lam, n, converged) for c, lam in zip(chosen, lams))


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


# ------------------------------------------------------------------ costs

#: Seconds per state of the exact solver's fronts (NumPy: 185 s for 2.1e8 states) and
#: states per lattice cell a solve typically stores (COMPAS and Adult samples of 1000
#: per group: 0.1 to 200, median near 10; docs/design.md, section 3.5).
EXACT_SECONDS_PER_STATE = 1e-6
EXACT_STATES_PER_CELL = 10.0


def estimate_solver_seconds(solver, n_a, n_b, lams, seconds_per_cell, *,
                            bitless_seconds_per_cell=None, max_disparity=None,
                            seconds_per_state=EXACT_SECONDS_PER_STATE,
                            certified_cells=float("inf")):
    """Expected seconds of a two-group solve, from the rate of one fill.

    Parameters
    ----------
    solver : {"auto", "paper", "lagrangian", "exact"}
        As given to ``fair_order`` (``"auto"`` is resolved as it would be).
    n_a, n_b : int
        Group sizes.
    lams : sequence of float
    seconds_per_cell : float
        One fill with decision bits and its traceback, per lattice cell.
    bitless_seconds_per_cell : float, optional
        One fill of final counters only (default: ``seconds_per_cell``).
    max_disparity : float, optional
        The constrained solve instead (``lams`` ignored).
    seconds_per_state : float
        The exact solver's fronts, per state.
    certified_cells : float
        The engine's size limit for ``"auto"`` (its ``CERTIFIED_CELLS``).

    Returns
    -------
    float
        The fills' time, plus for exact solves the completion values (a fill each) and
        ``EXACT_STATES_PER_CELL`` states per cell (``AUTO_EXACT_STATES`` at most for
        ``"auto"``); measured spreads are in docs/design.md, section 3.5.
    """
    cells = (n_a + 1) * (n_b + 1)
    bitless = seconds_per_cell if bitless_seconds_per_cell is None else (
        bitless_seconds_per_cell)
    n = max(n_a, n_b)
    if max_disparity is not None:
        if cells <= _constrained.CONSTRAINT_EXACT_CELLS:
            fronts = min(EXACT_STATES_PER_CELL * cells, _constrained.CONSTRAINT_EXACT_STATES)
            return (_constrained.CONSTRAINT_SEARCH_FILLS + _solvers.EXACT_MUS + 2) * cells * (
                seconds_per_cell) + fronts * seconds_per_state
        solves = _constrained.CONSTRAINT_SOLVES * _solvers.EXPECTED_AUTO_FILLS * bitless
        return (_constrained.CONSTRAINT_SEARCH_FILLS * seconds_per_cell + solves) * cells
    chosen = choose_solver(solver, "absolute", lams, cells, certified_cells)
    seconds = 0.0
    for lam in lams:
        fills = _solvers.expected_fills(chosen, lam, n)
        seconds += cells * (seconds_per_cell + (fills - 1) * (seconds_per_cell + bitless) / 2)
        exact = lam > 0 and (chosen == "exact" or (
            chosen == "auto" and cells <= _solvers.AUTO_EXACT_CELLS))
        if exact:
            states = EXACT_STATES_PER_CELL * cells
            if chosen == "auto":
                states = min(states, _solvers.AUTO_EXACT_STATES)
            seconds += _solvers.EXACT_MUS * cells * seconds_per_cell + (
                states * seconds_per_state)
    return seconds


def front_states_bound(n_a, n_b):
    """The most states the exact fronts of an ``n_a`` x ``n_b`` lattice can hold: at
    most one per path into a cell, ``sum C(i + j, i) = C(n_a + n_b + 2, n_a + 1) - 1``
    over its cells, and never more than the solver's cap
    (``_constrained.CONSTRAINT_EXACT_STATES``)."""
    paths = math.comb(n_a + n_b + 2, n_a + 1) - 1 if n_a + n_b < 200 else math.inf
    return min(_constrained.CONSTRAINT_EXACT_STATES, paths)


# ------------------------------------------------------------------ the plan


@dataclasses.dataclass(frozen=True)
class Step:
    """One K-group method of a plan: the engine that runs it, its memory budget,
    worker processes and the cells of one solve."""

    method: str
    eng: object = dataclasses.field(repr=False, compare=False)
    budget: int | None = dataclasses.field(repr=False)
    workers: int
    cells: int


@dataclasses.dataclass(frozen=True)
class Plan:
    """What one solve runs, decided once by :func:`plan` before any fill; the work
    (``_work.execute``) carries it out and asks nothing again.

    Attributes
    ----------
    engine : str
        The engine that fills the lattices (``"numpy"``, ``"numba"``, ``"cupy"``;
        ``"best"`` on two engines: both, joined by ``" and "``).
    route : {"2d", "banded", "kd", "iterative", "best"}
        Two groups: the 2-D DP with the solver of every lam, its decision bits whole
        (``"2d"``) or in bands of rows (``"banded"``, over the memory budget); the
        K-group methods: K-D, iterative, or both (``"best"``).
    sizes : tuple of int
        Rows per group the DP takes (the runs of equal scores where ties are kept).
    lams : tuple of float
    solvers : tuple of str
        Two groups: the solver of every lam (``"paper"`` the cell rule; ``"auto"``
        exact or Lagrangian as the search finds, the cell rule at lam 0;
        ``"constrained"`` the search of ``max_disparity``); K groups: ``"paper"``.
    expected_fills : int
        Lattice fills expected, all lams together.
    cells : int
        Lattice cells expected to be filled.
    bytes : int
        Decision bits of one lattice (K groups: of the largest step) kept whole.
    seconds : float or None
        Expected CPU seconds on the 2-core development machine (None on the GPU, which
        has no calibrated model).
    seconds_bound : bool
        ``seconds`` is a bound rather than a typical time (a constrained solve's exact
        fronts, whose size the data decide).
    warnings : tuple of str
        The ``UserWarning`` messages the solve gives before any fill.
    metric, mode, max_disparity, memory_limit, n_jobs, keep_ties, alone
        The validated request the plan is of.
    steps : tuple of Step
        K groups: every method's engine, memory budget, worker processes and cells.
    uncertified : tuple of str or None
        Two groups: per lam, why the cell rule runs uncertified (the result's
        ``extra["uncertified"]``), or None.
    host_budget : int or None
        Bytes the exact solver's fronts may take (two groups).
    eng : module
        The engine (``engine._interface.Engine``) that runs the route.
    solver : str
        The solver asked for (``"auto"``, ``"paper"``, ...), as the request gave it.
    exact_budget : float
        Seconds ``"auto"`` may spend in the exact solver (``_exact.exact_allowance``).
    """

    engine: str
    route: str
    sizes: tuple
    lams: tuple
    solvers: tuple
    expected_fills: int
    cells: int
    bytes: int
    seconds: float | None
    seconds_bound: bool
    warnings: tuple
    metric: str = dataclasses.field(repr=False)
    mode: str = dataclasses.field(repr=False)
    max_disparity: float | None = dataclasses.field(repr=False)
    memory_limit: int | None = dataclasses.field(repr=False)
    n_jobs: int | None = dataclasses.field(repr=False)
    keep_ties: bool = dataclasses.field(repr=False)
    alone: bool = dataclasses.field(repr=False)
    steps: tuple = dataclasses.field(repr=False)
    uncertified: tuple = dataclasses.field(repr=False)
    host_budget: int | None = dataclasses.field(repr=False)
    eng: object = dataclasses.field(repr=False, compare=False)
    solver: str = dataclasses.field(repr=False, default="auto")
    exact_budget: float = dataclasses.field(repr=False, default=_solvers.EXACT_BUDGET)

    @property
    def two_group(self):
        """Whether the two-group solvers run (not the K-group methods)."""
        return self.route in ("2d", "banded")

    def __str__(self):
        lines = [f"engine   {self.engine}",
                 f"route    {ROUTES[self.route]}",
                 "groups   " + (" x ".join(str(n) for n in self.sizes)
                                  if len(self.sizes) <= SHOWN_SIZES else
                                  f"{len(self.sizes)} of {min(self.sizes)} to "
                                  f"{max(self.sizes)} rows ({sum(self.sizes)} in all)"),
                 "lams     " + ("max |D| {:g}".format(self.max_disparity)
                                if self.max_disparity is not None else
                                " ".join(f"{x:g}" for x in self.lams))]
        if self.two_group:
            lines.append("solvers  " + " ".join(self.solvers))
        lines += [f"fills    {self.expected_fills} (expected)",
                  f"cells    {self.cells:.3g}",
                  f"memory   {_size(self.bytes)} of decision bits",
                  "seconds  " + ("unknown (no calibrated model on this engine)"
                                 if self.seconds is None else
                                 f"{'at most ' if self.seconds_bound else 'about '}"
                                 f"{self.seconds:.3g} (2-core CPU)")]
        lines += [f"warning  {w}" for w in self.warnings]
        return "\n".join(lines)


#: Groups whose sizes ``Plan.__str__`` lists one by one; beyond, their range.
SHOWN_SIZES = 8
#: The routes in words (``Plan.__str__``).
ROUTES = {"2d": "2-D DP (two groups)",
          "banded": "2-D DP in bands of rows (decision bits over the memory budget)",
          "kd": "K-D DP", "iterative": "iterative xOrder (2-D steps)",
          "best": "K-D and iterative xOrder, the better per lam"}


def _size(n):
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} B"


def plan(sizes, lams, *, metric, mode, backend, method, solver, max_disparity,
         memory_limit, n_jobs=None, keep_ties=False, alone=False,
         exact_budget=_solvers.EXACT_BUDGET):
    """The :class:`Plan` of a solve of groups of ``sizes`` (rows the DP takes) at
    ``lams`` with validated parameters: every choice of this module made once.

    Raises ``ValueError`` where a named backend's kernels do not take the groups, and
    ``MemoryError`` where a K-group method's decision bits exceed the budget."""
    sizes = tuple(int(n) for n in sizes)
    lams = np.atleast_1d(np.asarray(lams, dtype=np.float64))
    common = dict(sizes=sizes, lams=tuple(float(x) for x in lams), metric=metric, mode=mode,
                  max_disparity=max_disparity, memory_limit=memory_limit, n_jobs=n_jobs,
                  keep_ties=keep_ties, alone=alone, solver=solver,
                  exact_budget=float(exact_budget))
    eng = engine_for(backend)
    if k_group_route(len(sizes), method, solver, max_disparity):
        return _k_group_plan(eng, backend, method, lams, common)
    return _two_group_plan(eng, solver, lams, common)


def _two_group_plan(eng, solver, lams, common):
    n_a, n_b = common["sizes"]
    cells, n = (n_a + 1) * (n_b + 1), max(n_a, n_b)
    constrained = common["max_disparity"] is not None
    searched_lams = np.array([1.0]) if constrained else lams
    chosen = solvers(solver, common["mode"], searched_lams, cells, eng, common["alone"])
    # "auto" runs its search to the end where the exact solver may follow it
    converged = not constrained and _solvers.exact_fits(
        n_a, n_b, common["exact_budget"], _solvers.fronts_for(eng.NAME).cost)
    fills = expected_fills(chosen, searched_lams, n, converged)
    if constrained:
        seconds = estimate_solver_seconds(
            solver, n_a, n_b, [1.0], eng.FILL_SECONDS_PER_CELL or 0.0,
            max_disparity=common["max_disparity"], certified_cells=eng.CERTIFIED_CELLS)
        bound = cells <= _constrained.CONSTRAINT_EXACT_CELLS
        if bound:  # the fronts at their bound, not a typical size
            seconds += front_states_bound(n_a, n_b) * EXACT_SECONDS_PER_STATE
        warning, uncertified, chosen = None, (None,), ("constrained",)
    else:
        seconds = cells * fills * (eng.FILL_SECONDS_PER_CELL or 0.0)
        # "auto" runs the exact solver where its cost model fits the budget: its
        # expected cost (``_exact.exact_cost``), at most the budget, per lam
        # and solver="exact" always, at its expected cost (refused beyond its size);
        # before "auto"'s exact solve, the bounded front (by its cost model), where it
        # fits the budget
        budget = common["exact_budget"]
        fronts = _solvers.fronts_for(eng.NAME)
        exact = _solvers.exact_cost(n_a, n_b, _solvers.EXACT_MUS,
                                    EXACT_STATES_PER_CELL * cells, cost=fronts.cost)
        autos = sum(1 for c, lam in zip(chosen, lams) if c == "auto" and lam > 0)
        # the polish of the search's ordering before an exact solve (``_polish``)
        polish = (_polish.polish_cost(n_a, n_b, fronts is _exact.COMPILED_FRONTS)
                  if _solvers.polish_may_run(solver, budget, cells) else 0.0)
        if solver == "exact":
            _solvers.check_exact_size(n_a, n_b)
            # the lams it runs for (signed mode and lam = 0: the cell rule, exact there)
            seconds += (exact + polish) * sum(1 for c, lam in zip(chosen, lams)
                                              if c == "exact" and lam > 0)
        elif autos and cells <= _solvers.EXACT_MAX_CELLS and budget != 0:
            fits = _solvers.exact_fits(n_a, n_b, budget, fronts.cost)
            per_lam = polish + (min(budget, exact) if fits else 0.0)
            if _exact.beam_fits(fronts, n_a, n_b, budget):  # before the exact solve
                per_lam += _exact.beam_cost(n_a, n_b, _exact.BEAM_WIDTH, fronts.cost)
            seconds += per_lam * autos
        bound = False
        warning, uncertified = _uncertified(solver, chosen, lams, n_a, n_b, eng,
                                            common["alone"])
    bits = cpu_reference.n_words(n_a, n_b) * 4
    # the host's budget: the bands of a host engine's fills, the exact solver's fronts
    searched = any(c not in ("paper", "constrained") for c in chosen) or constrained
    host = _plan.host_budget(common["memory_limit"])[0] if (
        searched or not eng.OWN_MEMORY) else None
    if "exact" in chosen and any(lam > 0 for lam in lams):
        _exact.check_tables(n_a, n_b, host)  # the solve's refusal before any fill
    budget = common["memory_limit"] if eng.OWN_MEMORY else host
    return Plan(engine=eng.NAME, route="banded" if budget is not None and bits > budget
                else "2d", solvers=tuple(chosen), expected_fills=int(fills),
                cells=int(cells * fills), bytes=int(bits),
                seconds=None if eng.FILL_SECONDS_PER_CELL is None else float(seconds),
                seconds_bound=bound, uncertified=tuple(uncertified),
                warnings=() if warning is None else (warning,),
                steps=(), eng=eng, host_budget=host, **common)


def _uncertified(solver, chosen, lams, n_a, n_b, eng, alone):
    """``(warning, per lam)``: why ``"auto"`` runs the cell rule uncertified, for all
    lams together (the warning's message) and for every lam of the cell rule (its
    ``extra["uncertified"]``; with ``alone``, its own reason); None where it does not."""
    searched = [c for c in chosen if c != "paper"]
    first = uncertified_reason(solver, searched[0] if searched else "paper", lams,
                               n_a, n_b, eng)
    return first, [None if c != "paper" else uncertified_reason(
        solver, "paper", lams[i:i + 1], n_a, n_b, eng) if alone else first
        for i, c in enumerate(chosen)]


def _k_group_plan(eng, backend, method, lams, common):
    sizes = common["sizes"]
    k = len(sizes)
    names = ("kd", "iterative") if method == "best" and k > 2 else (
        "kd" if method == "best" else method,)
    steps = []
    for name in names:
        step_eng, chosen, budget = k_group_plan(eng, backend, name, sizes,
                                                common["memory_limit"])
        two = step_eng.BATCHED_FILLS and k == 2
        workers = 1 if two else k_group_workers(step_eng, common["n_jobs"], lams.size,
                                                budget, sizes, chosen)
        steps.append(Step(chosen, step_eng, budget, workers,
                          k_group_cells(sizes, chosen)))
    if k == 2:  # every method is the 2-D DP, once per lam
        cells = cpu_reference.kd_cells(sizes) * lams.size
        rate = steps[0].eng.FILL_SECONDS_PER_CELL
        seconds = None if rate is None else cells * rate
    else:
        cells = sum(s.cells for s in steps) * lams.size
        seconds = [_plan.estimate_seconds(s.method, sizes, s.eng.NAME, common["metric"],
                                          n_fills=lams.size) for s in steps]
        seconds = None if None in seconds else sum(seconds)
    return Plan(engine=" and ".join(dict.fromkeys(s.eng.NAME for s in steps)),
                route="best" if len(steps) == 2 else steps[0].method,
                solvers=("paper",) * lams.size, expected_fills=lams.size * len(steps),
                cells=int(cells), bytes=int(max(_plan.decision_bytes(sizes, s.method)
                                                for s in steps)),
                seconds=seconds, seconds_bound=False, warnings=(),
                uncertified=(None,) * lams.size, steps=tuple(steps), eng=steps[0].eng,
                host_budget=None,
                **common)
