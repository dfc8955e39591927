"""The plan (``core._choice.Plan``): decided once before any fill, and what it says is
what runs: its engine, route and solvers against the results of the same call."""

import warnings

import numpy as np
import pytest

from gpu_xorder import Plan, XOrder, fair_order
from gpu_xorder.core import _exact, _polish, _solvers
from gpu_xorder.engine import _numpy_engine


def _data(n, k, seed=0):
    rng = np.random.default_rng(seed)
    g = np.repeat(np.arange(k), n)
    y = np.tile([0, 1], n * k // 2)
    return rng.random(n * k) + 0.3 * y, y, g


def _both(s, y, g, **kw):
    plan = fair_order(s, y, g, plan_only=True, **kw)
    assert isinstance(plan, Plan)
    ran = fair_order(s, y, g, **kw)
    return plan, ran if isinstance(ran, list) else [ran]


@pytest.mark.parametrize("solver,lam,want", [
    ("paper", [1.0], ["paper"]), ("lagrangian", [1.0], ["lagrangian"]),
    ("auto", [0.0, 1.0], ["paper", "exact"]), ("exact", [0.5], ["exact"])])
def test_two_groups_run_the_planned_engine_route_and_solvers(solver, lam, want):
    s, y, g = _data(12, 2)
    plan, results = _both(s, y, g, lam=lam, solver=solver, backend="numpy")
    assert plan.engine == "numpy" == results[0].backend
    assert plan.route == "2d" and plan.sizes == (12, 12)
    assert [r.solver for r in results] == want
    # the plan's "auto" is resolved by the search (exact on a lattice this small, the
    # cell rule at lam 0, where it is exact)
    assert [p if p != "auto" else "exact" if x > 0 else "paper"
            for p, x in zip(plan.solvers, lam)] == want
    assert plan.cells == plan.expected_fills * 13 * 13
    # the fills at the engine's rate, and for every "auto" lam > 0 the exact solver's
    # expected cost, at most its budget ("exact": the whole expected cost)
    fills = plan.cells * _numpy_engine.FILL_SECONDS_PER_CELL
    # ("auto" runs the bounded front before the exact solve: counted too)
    # (and the polish of the search's ordering before it, "auto" and "exact" alike)
    fronts = _solvers.exact_cost(12, 12, _solvers.EXACT_MUS, 10.0 * 13 * 13)
    beam = _exact.beam_cost(12, 12, _exact.BEAM_WIDTH, _exact.NUMPY_COST)
    polish = _polish.polish_cost(12, 12, compiled=False)
    assert beam <= plan.exact_budget and polish > 0
    exact = sum(min(fronts, plan.exact_budget) + beam + polish if p == "auto"
                else fronts + polish
                for p, x in zip(plan.solvers, lam) if p in ("auto", "exact") and x > 0)
    assert plan.seconds == pytest.approx(fills + exact, rel=1e-12)
    assert (plan.seconds > fills) == (exact > 0)
    assert plan.bytes > 0 and plan.warnings == ()


def test_the_banded_route_is_planned_where_the_bits_exceed_the_limit():
    s, y, g = _data(1500, 2)
    plan, (res,) = _both(s, y, g, lam=1.0, solver="paper", backend="numpy")
    assert plan.route == "2d" and "bands" not in res.extra
    limit = plan.bytes * 9 // 10
    plan, (res,) = _both(s, y, g, lam=1.0, solver="paper", backend="numpy",
                         memory_limit=limit)
    assert plan.route == "banded" and plan.bytes > limit and "bands" in res.extra


@pytest.mark.parametrize("method,want", [("auto", "kd"), ("kd", "kd"),
                                         ("iterative", "iterative"), ("best", None)])
def test_k_groups_run_the_planned_method(method, want):
    s, y, g = _data(6, 3)
    plan, results = _both(s, y, g, lam=[0.0, 0.5], method=method, backend="numpy")
    assert plan.engine == "numpy" == results[0].backend
    assert plan.route == (method if want is None else want)
    if want is not None:
        assert {r.method for r in results} == {want}
    else:  # best: both run, every result one of them
        assert [s.method for s in plan.steps] == ["kd", "iterative"]
        assert all(set(r.extra["objectives"]) == {"kd", "iterative"} for r in results)
    assert plan.solvers == ("paper", "paper")


def test_the_planned_warning_is_the_one_given(monkeypatch):
    """Above the engine's certified size ``"auto"`` keeps the cell rule: the plan names
    the warning, the solve gives exactly it and records it."""
    monkeypatch.setattr(_numpy_engine, "CERTIFIED_CELLS", 10)
    s, y, g = _data(10, 2)
    plan = fair_order(s, y, g, lam=1.0, backend="numpy", plan_only=True)
    assert plan.solvers == ("paper",) and len(plan.warnings) == 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = fair_order(s, y, g, lam=1.0, backend="numpy")
    assert [str(w.message) for w in caught] == list(plan.warnings)
    assert res.extra["uncertified"] == plan.warnings[0] and res.solver == "paper"
    assert "warning  solver='auto' ran the cell rule" in str(plan)


def test_xorder_plan_is_the_fit_s_and_ties_count_as_runs():
    s, y, g = _data(20, 2)
    s = np.round(s, 1)  # ties: the fit's DP takes each group's runs of equal scores
    model = XOrder(lam=1.0, backend="numpy", solver="paper")
    plan = model.plan(s, y, sensitive_features=g)
    runs = tuple(np.unique(s[g == h]).size for h in (0, 1))
    assert plan.sizes == runs and plan.keep_ties and plan.alone
    totals = []
    model.fit(s, y, sensitive_features=g, progress=lambda done, total: totals.append(total))
    assert totals[-1] == plan.cells and model.result_.extra["tie_runs"] == list(runs)


def test_a_plan_is_immutable_and_readable():
    s, y, g = _data(8, 2)
    plan = fair_order(s, y, g, lam=[0.0, 1.0], backend="numpy", plan_only=True)
    with pytest.raises(AttributeError):
        plan.engine = "cupy"
    text = str(plan)
    assert text.splitlines()[0] == "engine   numpy" and "lams     0 1" in text
    assert repr(plan).startswith("Plan(engine='numpy', route='2d', sizes=(8, 8)")


def test_a_plan_refuses_what_the_solve_refuses():
    """A K-group method over the memory budget: the plan raises the solve's error."""
    s, y, g = _data(6, 3)
    with pytest.raises(MemoryError, match="GiB of decision bits, over memory_limit"):
        fair_order(s, y, g, method="kd", memory_limit=1, backend="numpy", plan_only=True)


def test_a_plan_of_the_exact_solver_counts_it_and_refuses_its_size():
    """``solver="exact"``: the plan's seconds include the exact solver's expected cost
    (they counted the fills only: 0.016 s planned for a 1.1 s solve), and a lattice over
    ``EXACT_MAX_CELLS`` is refused by the plan with the solve's message (it printed an
    estimate for a solve that raises)."""
    s, y, g = _data(300, 2)
    searched = fair_order(s, y, g, lam=1.0, solver="lagrangian", backend="numpy",
                          plan_only=True)
    exact = fair_order(s, y, g, lam=1.0, solver="exact", backend="numpy", plan_only=True)
    fronts = _solvers.exact_cost(300, 300, _solvers.EXACT_MUS, 10.0 * 301 * 301)
    assert exact.seconds >= fronts > searched.seconds
    s, y, g = _data(2050, 2)
    with pytest.raises(ValueError, match="solver='exact' handles lattices of up to") as plan:
        fair_order(s, y, g, lam=1.0, solver="exact", backend="numpy", plan_only=True)
    with pytest.raises(ValueError) as solve:
        fair_order(s, y, g, lam=1.0, solver="exact", backend="numpy")
    assert str(plan.value) == str(solve.value)


def test_a_plan_counts_the_bounded_front_where_the_exact_solve_is_expected_to_stop():
    """2000 per group, ``exact_budget=1``, numba: "auto"'s exact solve is expected over
    the budget (it stops there), and the bounded front that runs before it fits it: the
    plan counts both, and the polish before them; on NumPy the exact solver's tables
    alone exceed the budget and so does its bounded front, so the fills and the polish
    alone."""
    pytest.importorskip("numba")
    from gpu_xorder.core import _exact
    from gpu_xorder.engine import _numba_engine

    n = 2000
    s, y, g = _data(n, 2)
    for backend in ("numba", "numpy"):
        plan = fair_order(s, y, g, lam=1.0, backend=backend, exact_budget=1.0,
                          plan_only=True)
        fronts = _solvers.fronts_for(backend)
        engine = _numba_engine if backend == "numba" else _numpy_engine
        fills = plan.cells * engine.FILL_SECONDS_PER_CELL
        exact = _solvers.exact_cost(n, n, _solvers.EXACT_MUS, 10.0 * (n + 1) ** 2,
                                    cost=fronts.cost)
        if backend == "numba":
            assert exact > plan.exact_budget
            beam = _exact.beam_cost(n, n, _exact.BEAM_WIDTH, fronts.cost)
            assert beam <= plan.exact_budget
            polish = _polish.polish_cost(n, n, compiled=True)
            assert plan.seconds == pytest.approx(fills + plan.exact_budget + beam + polish)
        else:
            assert not _solvers.exact_fits(n, n, plan.exact_budget, fronts.cost)
            assert not _exact.beam_fits(fronts, n, n, plan.exact_budget)
            # the polish runs before the exact solve, which stops at once
            assert plan.seconds == pytest.approx(
                fills + _polish.polish_cost(n, n, compiled=False))


def test_a_plan_of_many_groups_gives_the_range_of_their_sizes():
    """Up to SHOWN_SIZES groups their sizes one by one; beyond, how many, the smallest,
    the largest and the total (200 groups once printed a line of 200 sizes)."""
    from gpu_xorder.core._choice import SHOWN_SIZES

    rng = np.random.default_rng(3)
    for k in (SHOWN_SIZES, SHOWN_SIZES + 1, 40):
        g = np.repeat(np.arange(k), rng.integers(3, 9, k))
        s, y = rng.random(g.size), np.tile([0, 1], g.size)[:g.size]
        plan = fair_order(s, y, g, lam=0.5, method="iterative", backend="numpy",
                          plan_only=True)
        sizes = np.bincount(g)
        line = next(x for x in str(plan).splitlines() if x.startswith("groups   "))
        want = (" x ".join(map(str, sizes)) if k <= SHOWN_SIZES else
                f"{k} of {sizes.min()} to {sizes.max()} rows ({g.size} in all)")
        assert line == "groups   " + want
