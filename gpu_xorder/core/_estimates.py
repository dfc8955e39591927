"""What a two-group solve will cost (docs/design.md, section 3.5): the time estimate
the command line prints before a long fit, for the solver ``_choice`` picks."""

from . import _choice, _constrained, _solvers

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
        ``EXACT_STATES_PER_CELL`` states per cell (for ``"auto"``, its default
        ``exact_budget`` where the exact solver may fit it); measured spreads are in
        docs/design.md, section 3.5.
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
    chosen = _choice.choose_solver(solver, "absolute", lams, cells, certified_cells)
    seconds = 0.0
    for lam in lams:
        fills = _solvers.expected_fills(chosen, lam, n)
        seconds += cells * (seconds_per_cell + (fills - 1) * (seconds_per_cell + bitless) / 2)
        if lam > 0 and chosen == "exact":
            seconds += _solvers.EXACT_MUS * cells * seconds_per_cell + (
                EXACT_STATES_PER_CELL * cells * seconds_per_state)
        elif lam > 0 and chosen == "auto" and _solvers.exact_cost(
                n_a, n_b, _solvers.EXACT_MUS, 0) <= _solvers.EXACT_BUDGET:
            seconds += _solvers.EXACT_BUDGET  # the exact solver within its budget, at most
    return seconds
