"""Which two-group solver runs, and what it will cost (docs/design.md, section 3.5):
the choice of ``solver="auto"`` per engine, the warning where it cannot certify in the
time of a few fills, and the time estimate the command line prints before a long fit."""

import numpy as np

from . import _constrained, _solvers


def choose_solver(solver, mode, lams, n_cells, engine_name):
    """The two-group solver that runs: the cell rule where it is exact (signed mode,
    lam = 0) or where ``"auto"`` finds the search out of proportion
    (``uncertified_reason``)."""
    if mode == "signed" or not np.any(np.asarray(lams) > 0) or solver == "paper":
        return "paper"
    if solver != "auto":
        return solver
    if n_cells > certified_cells(engine_name):
        return "paper"
    return "auto"


def certified_cells(engine_name):
    """The largest lattice ``solver="auto"`` certifies on an engine in the time of a few
    fills (no limit on the GPU)."""
    return {"numpy": _solvers.AUTO_LAGRANGIAN_CELLS_NUMPY,
            "numba": _solvers.AUTO_LAGRANGIAN_CELLS_NUMBA}.get(engine_name, np.inf)


#: Seconds per lattice cell of one fill with decision bits and its traceback, per
#: engine, where the caller has no better figure, on the 2-core development machine:
#: NumPy (benchmarks/auto_vs_rule.py: 0.07-0.09 s at 1000 per group, 1.3 s at 10^4),
#: numba on one core (benchmarks/cpu_engines.py: 0.6-1.2 ns per cell filled, plus the
#: traceback).
FILL_SECONDS_PER_CELL = {"numpy": 1.5e-8, "numba": 1.5e-9}

#: Seconds per state of the exact solver's fronts (NumPy: 185 s for 2.1e8 states) and
#: states per lattice cell a solve typically stores (COMPAS and Adult samples of 1000
#: per group: 0.1 to 200, median near 10; docs/design.md, section 3.5).
EXACT_SECONDS_PER_STATE = 1e-6
EXACT_STATES_PER_CELL = 10.0

MSG_UNCERTIFIED = (
    "solver='auto' ran the cell rule without a certificate (upper_bound=None): the "
    "{n_a} x {n_b} lattice ({cells:.3g} cells) is above what the {engine} backend "
    "certifies in the time of a few fills ({limit:.3g} cells); solver='lagrangian' "
    "certifies it in about {seconds:.0f} s ({fills} fills of the lattice), or use a "
    "GPU (backend='cupy')"
)


def uncertified_reason(solver, chosen, lams, n_a, n_b, engine_name):
    """Why ``solver="auto"`` runs the cell rule without a certificate (the message of
    the warning), or None where it certifies or the rule is exact."""
    cells = (n_a + 1) * (n_b + 1)
    if solver != "auto" or chosen != "paper" or not np.any(np.asarray(lams) > 0):
        return None
    if cells <= certified_cells(engine_name):
        return None  # signed mode: the rule is exact
    fills = sum(_solvers.expected_fills("lagrangian", lam, max(n_a, n_b)) for lam in lams)
    return MSG_UNCERTIFIED.format(
        n_a=n_a, n_b=n_b, cells=cells, engine=engine_name,
        limit=certified_cells(engine_name), fills=fills,
        seconds=fills * cells * FILL_SECONDS_PER_CELL.get(engine_name, 0.0))


def estimate_solver_seconds(solver, n_a, n_b, lams, seconds_per_cell, *,
                            bitless_seconds_per_cell=None, max_disparity=None,
                            seconds_per_state=EXACT_SECONDS_PER_STATE,
                            engine_name="numpy"):
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
    engine_name : str
        The backend (its size limit for ``"auto"``).

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
        return (_constrained.CONSTRAINT_SEARCH_FILLS * seconds_per_cell
                + _constrained.CONSTRAINT_SOLVES * _solvers.EXPECTED_AUTO_FILLS * bitless) * cells
    chosen = choose_solver(solver, "absolute", lams, cells, engine_name)
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
