"""The bounded front (a beam: ``engine._numba_fronts.solve_fronts(beam=B)``, at most B
states per cell, those of the largest completion bounds): against the exact fronts and
exhaustive enumeration in tests/cpu_reference/test_fronts_beam.py (with the reference's
beam, and the compiled one); here, the reference's beam (NumPy) is the same bit for
bit, and in ``solver="auto"`` (``core._exact.BEAM_WIDTH``) its answer is never below
the search's, the bound at most the search's, and every run gives one answer."""

import numpy as np
import pytest

pytest.importorskip("numba")

import cpu_reference as cr  # noqa: E402
from gpu_xorder import fair_order  # noqa: E402
from gpu_xorder.core import _exact  # noqa: E402
from gpu_xorder.engine import _numba_fronts as nf  # noqa: E402
from gpu_xorder.utils._metrics import METRIC_NAMES  # noqa: E402
from support.problems import two_group_problem  # noqa: E402


def objective(lat, lam, final):
    return cr.cell_values(final, lat.consts, lam, lat.metric, "absolute")[0]


def tables_of(lat, lam):
    mus = np.linspace(-lam, lam, 5)
    return mus, nf.completion_tables(lat, mus)


def test_a_beam_needs_bounds():
    rng = np.random.default_rng(1)
    s, y, g = two_group_problem(rng, 5, 5)
    lat = cr.build_lattice(s, y, g, "xauc", "absolute")
    with pytest.raises(ValueError, match="completion bounds"):
        nf.solve_fronts(lat, 1.0, beam=4)


@pytest.mark.parametrize("metric", METRIC_NAMES)
def test_auto_with_a_beam_is_never_below_the_search(metric, monkeypatch):
    """``exact_budget=0`` (the search alone; the default) and with the beam, 150-250 items
    per group: the beam's objective at least the search's and at most the exact
    optimum, the same certified bound (the search's), the reason says a bounded front
    ran; the same answer twice (deterministic)."""
    rng = np.random.default_rng(13 + len(metric))
    for lam in (0.7, 4.0):
        s, y, g = two_group_problem(rng, int(rng.integers(150, 251)),
                                    int(rng.integers(150, 251)))
        kw = dict(metric=metric, lam=lam, backend="numba")
        monkeypatch.setattr(_exact, "BEAM_AT_ZERO_BUDGET", False)
        search = fair_order(s, y, g, exact_budget=0, **kw)
        exact = fair_order(s, y, g, solver="exact", **kw)
        monkeypatch.setattr(_exact, "BEAM_WIDTH", 8)
        monkeypatch.setattr(_exact, "BEAM_AT_ZERO_BUDGET", True)
        got = fair_order(s, y, g, exact_budget=0, **kw)
        again = fair_order(s, y, g, exact_budget=0, **kw)
        np.testing.assert_array_equal(got.order, again.order)
        assert got.objective == again.objective
        assert search.objective <= got.objective <= exact.objective + 1e-12
        assert got.upper_bound == search.upper_bound
        if search.upper_bound is not None and search.upper_bound > search.objective:
            reason = got.extra["solver_reason"]
            assert "bounded front of 8 states" in reason
            assert got.extra["beam_width"] == 8
            if got.objective > search.objective:
                assert "improved the search's objective" in reason
            else:
                assert "found nothing better than the search" in reason


@pytest.mark.parametrize("metric", METRIC_NAMES)
def test_auto_runs_the_beam_where_the_exact_solver_is_over_budget(metric, monkeypatch):
    """The default width, ``exact_budget=0.012`` s on about 220 x 220 items, lam 0.7:
    the exact solver's fronts go over the budget (by the cost model: counted states,
    the same on any machine), the beam before them fits it and runs; never below the
    search, never above the optimum; the bound at least the optimum, at most the
    search's."""
    rng = np.random.default_rng(13 + len(metric))
    s, y, g = two_group_problem(rng, int(rng.integers(150, 251)),
                                int(rng.integers(150, 251)))
    kw = dict(metric=metric, lam=0.7, backend="numba")
    got = fair_order(s, y, g, exact_budget=0.012, **kw)
    exact = fair_order(s, y, g, solver="exact", **kw)
    assert _exact.BEAM_WIDTH > 0
    reason = got.extra["solver_reason"]
    if metric == "xauc":  # measured: over the budget there (guards against a vacuous test)
        assert "over exact_budget=0.012 s" in reason
    if "over exact_budget" in reason:
        assert f"bounded front of {_exact.BEAM_WIDTH} states" in reason
        assert got.solver == "lagrangian"
        monkeypatch.setattr(_exact, "BEAM_WIDTH", 0)
        search = fair_order(s, y, g, exact_budget=0.012, **kw)
        assert "bounded front" not in search.extra["solver_reason"]
        assert search.objective <= got.objective <= exact.objective + 1e-12
        # the bound: the search's, or a guess of the stopped exact solve that no state
        # reached (which guesses, the beam's objective decides)
        lagrangian = fair_order(s, y, g, solver="lagrangian", **kw)
        assert exact.objective <= got.upper_bound + 1e-12
        assert got.upper_bound <= lagrangian.upper_bound


@pytest.mark.parametrize("metric", METRIC_NAMES)
def test_the_reference_beam_is_the_compiled_beam_bit_for_bit(metric):
    """``cpu_reference.solve_fronts(beam=B)`` (pure NumPy, the oracle) against the
    compiled beam on random and tied problems of 2-40 items per group, B in 1, 2, 3, 8,
    unpruned and pruned by lower bounds below and at the optimum: the same path,
    counters and stats, or both no state left."""
    rng = np.random.default_rng(5 + len(metric))
    compared = 0
    for trial in range(12):
        s, y, g = two_group_problem(rng, int(rng.integers(2, 41)),
                                    int(rng.integers(2, 41)), ties=trial % 3 == 1)
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        for lam in (0.5, 3.0):
            mus, tables = tables_of(lat, lam)
            bounds = list(zip(mus, cr.completion_values(lat, mus)))
            optimum = objective(lat, lam, nf.solve_fronts(lat, lam)[1])
            for width in (1, 2, 3, 8):
                for lower in (None, optimum - 0.01, optimum):
                    try:
                        want = nf.solve_fronts(lat, lam, lower=lower, mus=mus,
                                               tables=tables, beam=width)
                    except cr.NoneLeft:
                        with pytest.raises(cr.NoneLeft):
                            cr.solve_fronts(lat, lam, lower=lower, bounds=bounds,
                                            beam=width)
                        continue
                    got = cr.solve_fronts(lat, lam, lower=lower, bounds=bounds,
                                          beam=width)
                    np.testing.assert_array_equal(got[0], want[0])
                    np.testing.assert_array_equal(got[1], want[1])
                    assert got[2] == want[2]
                    compared += 1
    assert compared > 200


def test_numpy_s_beam_in_auto_is_the_compiled_one(monkeypatch):
    """The search and then the beam (``exact_budget=0`` with ``BEAM_AT_ZERO_BUDGET``): the
    NumPy engine's answer is the numba engine's, bit for bit (ordering, objective,
    bound, the beam's states)."""
    rng = np.random.default_rng(2)
    s, y, g = two_group_problem(rng, 120, 90)
    monkeypatch.setattr(_exact, "BEAM_WIDTH", 8)
    monkeypatch.setattr(_exact, "BEAM_AT_ZERO_BUDGET", True)
    got = {b: fair_order(s, y, g, metric="xauc", lam=2.0, backend=b, exact_budget=0)
           for b in ("numpy", "numba")}
    np.testing.assert_array_equal(got["numpy"].order, got["numba"].order)
    assert got["numpy"].objective == got["numba"].objective
    assert got["numpy"].upper_bound == got["numba"].upper_bound
    assert "bounded front of 8 states" in got["numpy"].extra["solver_reason"]
    assert got["numpy"].extra["beam_states"] == got["numba"].extra["beam_states"]
    assert got["numpy"].extra["beam_dive"] == got["numba"].extra["beam_dive"]


@pytest.mark.parametrize("metric", METRIC_NAMES)
def test_the_reference_dives_are_the_compiled_dives_bit_for_bit(metric):
    """The disparities of the priced completions (``completion_disparities``) and the
    beam with dives (``solve_fronts(beam=B, dive=...)``), reference against compiled, on
    random and tied problems of 1-40 items per group, three of seven weights, B in 1, 2,
    4, lower bounds at, below and above the objective of a 1-state beam: the same
    tables, path, counters and stats (``dive`` among them), or both no state left; the
    answer's counters are its path's own; some answers are dives."""
    rng = np.random.default_rng(11 + len(metric))
    compared = dived = 0
    for trial in range(10):
        s, y, g = two_group_problem(rng, int(rng.integers(1, 41)),
                                    int(rng.integers(1, 41)), ties=trial % 2 == 1)
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        lam = (0.3, 1.0, 4.0)[trial % 3]
        mus = np.linspace(-lam, lam, 7)
        values = cr.completion_values(lat, mus)
        bounds = list(zip(mus, values))
        tables = nf.completion_tables(lat, mus)
        index = np.array([1, 3, 6])
        want_d = cr.completion_disparities(lat, mus[index],
                                           values.reshape(mus.size, -1)[index])
        got_d = nf.completion_disparities(lat, mus, tables, index)
        np.testing.assert_array_equal(got_d, want_d.T)
        start = cr.solve_fronts(lat, lam, lower=-10.0, bounds=bounds, beam=1)[1]
        for shift in (0.0, -0.03, 0.02):
            lower = objective(lat, lam, start) + shift
            for width in (1, 2, 4):
                try:
                    want = cr.solve_fronts(lat, lam, lower=lower, bounds=bounds,
                                           beam=width, dive=(index, want_d))
                except cr.NoneLeft as exc:
                    with pytest.raises(cr.NoneLeft) as got_exc:
                        nf.solve_fronts(lat, lam, lower=lower, mus=mus, tables=tables,
                                        beam=width, dive=(index, got_d))
                    assert got_exc.value.states == exc.states
                    continue
                got = nf.solve_fronts(lat, lam, lower=lower, mus=mus, tables=tables,
                                      beam=width, dive=(index, got_d))
                np.testing.assert_array_equal(got[0], want[0])
                np.testing.assert_array_equal(got[1], want[1])
                assert got[2] == want[2]
                np.testing.assert_array_equal(cr.path_counters(lat, got[0]), got[1])
                compared += 1
                dived += want[2]["dive"]
    assert compared > 40 and dived > 5


def test_compiled_dives_need_a_beam_and_a_lower_bound():
    rng = np.random.default_rng(4)
    s, y, g = two_group_problem(rng, 6, 5)
    lat = cr.build_lattice(s, y, g, "urf", "absolute")
    mus, tables = tables_of(lat, 1.0)
    dive = (np.array([0]), nf.completion_disparities(lat, mus, tables, [0]))
    for kw in (dict(lower=0.1), dict(beam=2)):
        with pytest.raises(ValueError, match="dives need"):
            nf.solve_fronts(lat, 1.0, mus=mus, tables=tables, dive=dive, **kw)


def test_the_exact_solve_takes_the_beam_s_tables(monkeypatch):
    """Over the budget (the xauc case above), the exact solve after the bounded front
    takes the completion tables the beam computed (one set of tables, not two), and
    answers exactly as an exact solve that computes them again."""
    from gpu_xorder.core import _solvers

    rng = np.random.default_rng(13 + len("xauc"))
    s, y, g = two_group_problem(rng, int(rng.integers(150, 251)),
                                int(rng.integers(150, 251)))
    kw = dict(metric="xauc", lam=0.7, backend="numba", exact_budget=0.012)
    calls = []
    tables = _exact._CompiledFronts.tables
    monkeypatch.setattr(_exact._CompiledFronts, "tables", staticmethod(
        lambda lat, mus: calls.append(len(mus)) or tables(lat, mus)))
    got = fair_order(s, y, g, **kw)
    reason = got.extra["solver_reason"]
    assert "over exact_budget=0.012 s" in reason and "bounded front" in reason
    assert len(calls) == 1
    exact = _solvers.exact
    monkeypatch.setattr(_solvers, "exact", lambda *args: exact(*args[:7]))  # no reuse
    again = fair_order(s, y, g, **kw)
    assert len(calls) == 3  # the beam's tables, then the exact solve's own
    np.testing.assert_array_equal(again.order, got.order)
    assert (again.objective, again.upper_bound, again.extra) == (
        got.objective, got.upper_bound, got.extra)
