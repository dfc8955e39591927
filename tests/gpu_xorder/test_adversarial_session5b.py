"""Adversarial attacks on two pieces of this session's code: the polish's compiled step
(``engine._numba_polish``, the twin of ``core._polish``'s Python step and of
``cpu_reference.relink``) and the exact fronts' fused pruning (``cpu_reference._fronts.
_pruned``: the diagonal's strided slice of the tables or each candidate's own cells),
which must keep the states of the unpruned fronts' optimum and of the compiled twin
(``engine._numba_fronts``).

The oracles: brute force over every interleaving (tiny lattices), the unpruned
reference fronts (the same ordering: the tie rule is canonical), the pruning's
definition (every weight's ``auc - mu d + R_mu(cell) (+ |mu| eps)``), and the Python
steps of the polish with the reference relink. The attacks: degenerate lattices (1 x 1,
one item against many, all ties, label runs), diagonals at the switch between the slice
and the own cells (both sides), ``eps`` at 0 and at a value rounding crosses, ``lam`` at
1e-12, 1e8 and 1e300, the polish's constants at their edges, identical orderings, the
state budget just above and below a solve's need, the engines on ``fair_order``, and
the user's arrays left unmodified."""

import warnings

import numpy as np
import pytest

import cpu_reference as cr
from cpu_reference import _fronts
from gpu_xorder import fair_order
from gpu_xorder.core import _polish
from gpu_xorder.core._candidates import candidate
from gpu_xorder.core._exact import rounding_slack
from support.oracles import best_objective, interleavings_auc_d
from support.problems import degenerate_problems, metric_defined, two_group_problem

METRICS = ("xauc", "prf", "urf")
LAMS = (0.0, 1e-12, 0.3, 1e8, 1e300)


DEGENERATE = degenerate_problems()


def _lattices(metrics=METRICS):
    for name, s, y, g in DEGENERATE:
        for metric in metrics:
            if not metric_defined(y, g, 2, metric):
                continue  # the API refuses it (a group without a positive, say)
            lat = cr.build_lattice(s, y, g, metric, "absolute")
            yield name, metric, (s, y, g), lat


def objective(lat, lam, final):
    return cr.cell_values(final, lat.consts, lam, lat.metric, "absolute")[0]


def _bounds(lat, lam, k=5):
    mus = np.linspace(-lam, lam, k)
    return mus, list(zip(mus, cr.completion_values(lat, mus)))


# ------------------------------------------------------------------ the fronts' pruning


def test_pruned_fronts_keep_the_optimum_and_the_compiled_states_on_degenerate_lattices():
    """Every degenerate lattice and weight (1e-12 to 1e300): the pruned reference fronts
    (a lower bound just below the optimum, by the bounds' rounding, and far below it)
    return the unpruned fronts' ordering and counters, the compiled twin the same
    ordering, counters and stored states, and (tiny lattices) the optimum of every
    interleaving."""
    nf = pytest.importorskip("gpu_xorder.engine._numba_fronts")
    checked = 0
    for name, metric, data, lat in _lattices():
        for lam in LAMS:
            want = cr.solve_fronts(lat, lam)
            value = objective(lat, lam, want[1])
            if lat.n_a + lat.n_b <= 16 and "ties" not in name:
                brute = best_objective(*data, metric, lam, "absolute")
                assert value == pytest.approx(brute, rel=1e-9, abs=1e-12), (name, lam)
            mus, bounds = _bounds(lat, lam)
            tables = nf.completion_tables(lat, mus)
            # the bounds' rounding grows with the weights (1e284 at lam 1e300): the
            # optimum is kept above the value less that slack (the exact solver's
            # ``rounding_slack``), not above the value less ``PRUNE_TOLERANCE`` alone
            widen = rounding_slack(lat.n_a, lat.n_b, mus) + cr.PRUNE_TOLERANCE
            for lower in (value - widen, value - 1.0 - widen, -np.inf):
                got = cr.solve_fronts(lat, lam, lower=lower, bounds=bounds)
                np.testing.assert_array_equal(got[0], want[0], err_msg=f"{name} {lam}")
                np.testing.assert_array_equal(got[1], want[1])
                assert got[2]["states"] <= want[2]["states"]
                twin = nf.solve_fronts(lat, lam, lower=lower, mus=mus, tables=tables)
                np.testing.assert_array_equal(twin[0], got[0])
                np.testing.assert_array_equal(twin[1], got[1])
                assert twin[2] == got[2], (name, metric, lam, lower)
                checked += 1
    assert checked >= 150


def test_a_lower_bound_above_the_optimum_leaves_none_in_both_twins():
    """A lower bound just above the optimum (by more than the tolerance): ``NoneLeft``
    from both fronts, with the same states counted; at the optimum itself the optimum
    is kept."""
    nf = pytest.importorskip("gpu_xorder.engine._numba_fronts")
    for name, _, _, lat in _lattices(("prf",)):
        lam = 0.7
        want = cr.solve_fronts(lat, lam)
        value = objective(lat, lam, want[1])
        mus, bounds = _bounds(lat, lam)
        tables = nf.completion_tables(lat, mus)
        got = cr.solve_fronts(lat, lam, lower=value, bounds=bounds)
        np.testing.assert_array_equal(got[1], want[1])
        assert nf.solve_fronts(lat, lam, lower=value, mus=mus, tables=tables)[2] == got[2]
        high = value + 1e-6
        with pytest.raises(cr.NoneLeft) as ref:
            cr.solve_fronts(lat, lam, lower=high, bounds=bounds)
        with pytest.raises(cr.NoneLeft) as twin:
            nf.solve_fronts(lat, lam, lower=high, mus=mus, tables=tables)
        assert ref.value.states == twin.value.states, name


@pytest.mark.parametrize("shape", [(1, 1), (1, 7), (7, 1), (2, 2), (5, 9), (9, 5)])
def test_pruned_diagonals_at_the_switch_between_slice_and_cells(shape):
    """``_pruned`` with exactly as many candidates as cells (the slice) and one fewer
    (each candidate's own cells), on every diagonal of thin and square lattices, with
    and without the constraint's slack: its definition, bit for bit, both sides."""
    rng = np.random.default_rng(sum(shape))
    s, y, g = two_group_problem(rng, *shape)
    for metric in METRICS:
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        mus, bounds = _bounds(lat, 2.0, 6)
        tables = _fronts._stacked(bounds, (lat.n_a + 1) * (lat.n_b + 1))
        for eps in (None, 0.0, 0.05):
            slack = np.zeros(mus.size) if eps is None else np.abs(mus) * eps
            passes = [(mus[ws, None], None if eps is None else slack[ws, None], ws)
                      for ws in (np.array([0, 5]), np.arange(1, 5))]
            for d in range(1, lat.n_a + lat.n_b + 1):
                r0, r1 = max(0, d - lat.n_b), min(lat.n_a, d)
                cells = r1 - r0 + 1
                for many in (cells - 1, cells):
                    rows = np.sort(rng.integers(r0, r1 + 1, many))
                    auc, dis = rng.random(many), rng.normal(0.0, 0.3, many)
                    threshold = float(rng.uniform(0.5, 2.0))
                    kept, ub = _fronts._pruned(auc, dis, rows, d, lat.n_a, lat.n_b,
                                               tables, passes, threshold)
                    values = np.array([auc - mu * dis + r[rows, d - rows] + sl
                                       for (mu, r), sl in zip(bounds, slack)])
                    want = np.flatnonzero((values >= threshold).all(axis=0))
                    np.testing.assert_array_equal(kept, want)
                    np.testing.assert_array_equal(ub[kept], values[:, want].min(axis=0))


@pytest.mark.parametrize("first", [0, 1, 2, 100])
def test_the_pruning_keeps_the_same_states_whatever_weights_go_first(monkeypatch, first):
    """``PRUNE_FIRST`` (the weights of the first pass) at 0, 1, 2 and more than the
    weights: the same path, counters and stored states as at its default, pruned
    alike with and without the constraint."""
    rng = np.random.default_rng(21)
    s, y, g = two_group_problem(rng, 14, 11, ties=True)
    for metric in METRICS:
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        lam = 1.3
        mus, bounds = _bounds(lat, lam, 7)
        value = objective(lat, lam, cr.solve_fronts(lat, lam)[1])
        want = cr.solve_fronts(lat, lam, lower=value - 0.02, bounds=bounds)
        plain = _constrained(lat, 0.05, 0.0)
        with monkeypatch.context() as m:
            m.setattr(_fronts, "PRUNE_FIRST", first)
            got = cr.solve_fronts(lat, lam, lower=value - 0.02, bounds=bounds)
            np.testing.assert_array_equal(got[0], want[0])
            np.testing.assert_array_equal(got[1], want[1])
            assert got[2] == want[2]
            constrained = _constrained(lat, 0.05, 0.0)
        np.testing.assert_array_equal(constrained[0], plain[0])
        assert constrained[2] == plain[2]


def test_tables_in_odd_layouts_are_stacked_as_copies_with_the_same_values():
    """``_stacked`` reads the tables of one array of weights in place, and copies
    tables that are views of it in another order, a subset, the same table twice,
    transposed or of another array: the same values, row by row, whatever the layout."""
    rng = np.random.default_rng(8)
    s, y, g = two_group_problem(rng, 4, 6)
    lat = cr.build_lattice(s, y, g, "prf", "absolute")
    cells = (lat.n_a + 1) * (lat.n_b + 1)
    mus = np.array([-1.0, -0.2, 0.4, 1.0])
    tables = cr.completion_values(lat, mus)
    square = cr.completion_values(lat, np.array([0.5, -0.5]))
    layouts = {
        "in place": list(zip(mus, tables)),
        "reversed": list(zip(mus[::-1], tables[::-1])),
        "subset": list(zip(mus[1:3], tables[1:3])),
        "twice": [(mus[0], tables[0]), (mus[0], tables[0])],
        "strided": list(zip(mus[::2], tables[::2])),
        "fortran": [(mu, np.asfortranarray(r)) for mu, r in zip(mus, tables)],
        "mixed": [(mus[0], tables[0]), (0.5, square[0])],
    }
    for name, bounds in layouts.items():
        got = _fronts._stacked(bounds, cells)
        assert got.shape == (len(bounds), cells), name
        for row, (_, r) in zip(got, bounds):
            np.testing.assert_array_equal(row, np.asarray(r).reshape(-1), err_msg=name)
        if name != "in place":
            assert not np.shares_memory(got, tables), name
    assert np.shares_memory(_fronts._stacked(layouts["in place"], cells), tables)


def _constrained(lat, eps, lower, pruned=True):
    reach = tuple(cr.completion_values(lat, mu, 0.0) for mu in (1.0, -1.0))
    mus = np.linspace(-1.0, 1.0, 5)
    bounds = list(zip(mus, cr.completion_values(lat, mus))) if pruned else ()
    return cr.solve_fronts(lat, 0.0, lower=lower if pruned else None, bounds=bounds,
                           eps=eps, reach=reach)


def test_constrained_pruned_fronts_at_eps_zero_and_at_rounding_edges():
    """The constrained fronts pruned by the bounds with their slack ``|mu| eps``
    against the unpruned ones and every interleaving: at ``eps`` 0, at the smallest
    ``|D|`` reached, and at that value nudged by a few ulps and by rounding of its
    decimal writing (within ``EPS_TOLERANCE``); the same ordering, or ``NoneLeft``
    from both where nothing meets the constraint."""
    checked = 0
    for name, metric, data, lat in _lattices():
        if lat.n_a + lat.n_b > 16 or "ties" in name:
            continue  # (the lattice's ties are ties, brute force's input order)
        auc, d = interleavings_auc_d(*data, metric)
        smallest = float(np.min(np.abs(d)))
        ulp = np.spacing(max(smallest, 1e-300))
        for eps in (0.0, smallest, smallest + 4 * ulp, max(0.0, smallest - 4 * ulp),
                    float(f"{smallest:.15g}"), float(np.median(np.abs(d)))):
            meets = cr.within_eps(d, eps)
            try:
                plain = _constrained(lat, eps, None, pruned=False)
            except cr.NoneLeft:
                assert not meets.any(), (name, metric, eps)
                with pytest.raises(cr.NoneLeft):
                    _constrained(lat, eps, 0.0)
                continue
            best = float(np.max(auc[meets]))
            got_auc = _fronts.pair_terms_of_states(lat, _state(lat, plain[1]))[0]
            assert got_auc == pytest.approx(best, abs=1e-12), (name, metric, eps)
            for lower in (best - 1e-9, 0.0):
                pruned = _constrained(lat, eps, lower)
                np.testing.assert_array_equal(pruned[0], plain[0])
                np.testing.assert_array_equal(pruned[1], plain[1])
                checked += 1
    assert checked >= 40


def _state(lat, final):
    """The fronts' state (rows ``cab, cba[, uab - uba]``) of last-cell counters."""
    rows = [final[0], final[1]]
    if cr.COUNTER_KINDS[lat.metric].has_u:
        rows.append(final[2] - final[3])
    return np.array(rows, dtype=np.int64)[:, None]


def test_the_state_budget_just_above_and_below_a_solves_need():
    """``max_states`` at the states a solve stores, one less and one more, and a
    byte budget at its need and one byte below: the same answer or the same
    ``FrontsTooLarge`` (message and prediction) from both twins, pruned or not."""
    nf = pytest.importorskip("gpu_xorder.engine._numba_fronts")
    rng = np.random.default_rng(7)
    s, y, g = two_group_problem(rng, 11, 13, ties=True)
    lat = cr.build_lattice(s, y, g, "urf", "absolute")
    lam = 2.0
    for pruned in (False, True):
        mus, bounds = _bounds(lat, lam)
        base = cr.solve_fronts(lat, lam)
        kw = {}
        if pruned:
            kw = dict(lower=objective(lat, lam, base[1]) - 0.05)
        need = cr.solve_fronts(lat, lam, bounds=bounds if pruned else (), **kw)[2]["states"]
        n_d = lat.n_a + lat.n_b
        need_bytes = (need * _fronts.BYTES_PER_STATE
                      + n_d * _fronts.BYTES_PER_CELL * min(lat.n_a, lat.n_b, n_d))
        outcomes = []
        for budget in (dict(max_states=need - 1), dict(max_states=need),
                       dict(max_states=need + 1), dict(max_bytes=need_bytes),
                       dict(max_bytes=need_bytes - 1)):
            try:
                want = cr.solve_fronts(lat, lam, bounds=bounds if pruned else (), **kw,
                                       **budget)
            except cr.FrontsTooLarge as exc:
                with pytest.raises(cr.FrontsTooLarge) as got:
                    nf.solve_fronts(lat, lam, mus=mus if pruned else (),
                                    tables=nf.completion_tables(lat, mus), **kw, **budget)
                assert str(got.value) == str(exc)
                assert got.value.predicted == exc.predicted
                outcomes.append(False)
                continue
            got = nf.solve_fronts(lat, lam, mus=mus if pruned else (),
                                  tables=nf.completion_tables(lat, mus), **kw, **budget)
            np.testing.assert_array_equal(got[0], want[0])
            assert got[2] == want[2]
            np.testing.assert_array_equal(want[1], base[1])
            outcomes.append(True)
        # the solve fits its own need, not one state or byte less
        assert outcomes == [False, True, True, True, False], (pruned, outcomes)


# ------------------------------------------------------------------ the polish


def _start(lat, lam):
    words, final = cr.fill(lat, lam)
    return candidate(lat, cr.traceback(words, lat.n_a, lat.n_b), final)


def _same_polish(lat, lam, start):
    nr = pytest.importorskip("gpu_xorder.engine._numba_relink")
    want = _polish.polish(lat, lam, start)
    got = _polish.polish(lat, lam, start, nr.relink)
    assert (got is start) == (want is start)
    np.testing.assert_array_equal(got.path, want.path)
    np.testing.assert_array_equal(got.final, want.final)
    assert (got.auc, got.d) == (want.auc, want.d)
    assert absolute(got, lam) >= absolute(start, lam)
    return want is not start


def absolute(c, lam):
    return c.auc - lam * abs(c.d)


def test_compiled_polish_is_pythons_on_degenerate_lattices_at_extreme_weights():
    """The polish with the compiled steps against the Python steps with the reference
    relink, on every degenerate lattice at lam 1e-12 to 1e300: the same candidate."""
    for _, _, _, lat in _lattices():
        for lam in LAMS:
            _same_polish(lat, lam, _start(lat, lam))


@pytest.mark.parametrize("consts", [
    dict(POLISH_MOVES=0), dict(POLISH_MOVES=1), dict(POLISH_MOVES=2),
    dict(POLISH_TRIES=0), dict(POLISH_TRIES=1), dict(POLISH_STALL=0),
    dict(POLISH_STALL=1), dict(POLISH_MOVES=1, POLISH_TRIES=3, POLISH_STALL=1)], ids=str)
def test_compiled_polish_is_pythons_at_the_edges_of_its_constants(monkeypatch, consts):
    """``POLISH_MOVES``, ``POLISH_TRIES`` and ``POLISH_STALL`` at 0, 1 and 2: the
    compiled steps draw and move as the Python steps (the same candidate); no moves or
    no tries leave the start itself."""
    for k, v in consts.items():
        monkeypatch.setattr(_polish, k, v)
    rng = np.random.default_rng(3)
    for metric in METRICS:
        for n_a, n_b in ((1, 1), (2, 30), (40, 35)):
            s, y, g = two_group_problem(rng, n_a, n_b)
            lat = cr.build_lattice(s, y, g, metric, "absolute")
            for lam in (0.5, 1e6):
                start = _start(lat, lam)
                gained = _same_polish(lat, lam, start)
                if consts.get("POLISH_MOVES") == 0 or consts.get("POLISH_TRIES") == 0:
                    assert not gained


def test_compiled_steps_with_as_many_boundaries_as_moves_and_one_more(monkeypatch):
    """Paths of ``POLISH_MOVES`` boundaries (every boundary, no subset drawn) and of
    one more (a subset drawn: another stream): the compiled step moves and relinks as
    ``_polish.moved`` and the reference relink, from the same generator."""
    npo = pytest.importorskip("gpu_xorder.engine._numba_polish")
    rng = np.random.default_rng(13)
    s, y, g = two_group_problem(rng, 12, 12)
    lat = cr.build_lattice(s, y, g, "urf", "absolute")
    path = np.repeat(np.tile([0, 1], 4), 3).astype(np.int8)  # 8 runs: 7 boundaries
    for moves in (7, 6, 1):
        monkeypatch.setattr(_polish, "POLISH_MOVES", moves)
        for seed in range(8):
            other = _polish.moved(path, np.random.default_rng(seed))
            want = cr.relink(lat, 1e4, path, other)
            got = npo.MovedRelink(lat).step(1e4, path, cr.path_states(lat, path),
                                            *_polish.draws(7, np.random.default_rng(seed)))
            if got is None:
                np.testing.assert_array_equal(want[0], path)
            else:
                np.testing.assert_array_equal(got[0], want[0])
                np.testing.assert_array_equal(got[1], want[1])


def test_a_copy_without_moves_is_no_step_and_the_ordering_itself():
    """Draws that move nothing (every kind 0, or no boundary drawn): the compiled step
    says no segment was taken, and the reference relink of the path with itself is the
    path and its counters."""
    npo = pytest.importorskip("gpu_xorder.engine._numba_polish")
    rng = np.random.default_rng(9)
    for n_a, n_b in ((1, 1), (3, 50), (20, 20)):
        s, y, g = two_group_problem(rng, n_a, n_b)
        lat = cr.build_lattice(s, y, g, "xauc", "absolute")
        path = rng.permutation(np.repeat([0, 1], [n_a, n_b])).astype(np.int8)
        b = int(np.count_nonzero(path[1:] != path[:-1]))
        for kinds, at in ((np.zeros(b, np.int64), np.arange(b, dtype=np.int64)),
                          (np.full(b, 2, np.int64), np.zeros(0, np.int64))):
            for lam in (0.0, 1e300):
                got = npo.MovedRelink(lat).step(lam, path, cr.path_states(lat, path),
                                                kinds, at)
                assert got is None
                ref = cr.relink(lat, lam, path, path.copy())
                np.testing.assert_array_equal(ref[0], path)
                np.testing.assert_array_equal(ref[1], cr.path_counters(lat, path))


def test_compiled_step_on_a_near_identical_copy_and_numpy_scalar_weights():
    """A copy that differs by one swap at one boundary, with lam a Python float, a
    NumPy float32 and an int: the compiled step is the reference relink of that copy."""
    npo = pytest.importorskip("gpu_xorder.engine._numba_polish")
    rng = np.random.default_rng(4)
    s, y, g = two_group_problem(rng, 15, 12)
    for metric in METRICS:
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        path = cr.traceback(cr.fill(lat, 0.0)[0], lat.n_a, lat.n_b)
        b = int(np.count_nonzero(path[1:] != path[:-1]))
        for k in range(b):
            kinds = np.zeros(b, np.int64)
            kinds[k] = 1
            at = np.arange(b, dtype=np.int64)
            other = path.copy()
            end = np.flatnonzero(path[1:] != path[:-1])[k]
            other[end], other[end + 1] = path[end + 1], path[end]
            for lam in (0.3, np.float32(0.3), 3):
                want = cr.relink(lat, lam, path, other)
                got = npo.MovedRelink(lat).step(lam, path, cr.path_states(lat, path),
                                                kinds, at)
                if got is None:
                    np.testing.assert_array_equal(want[0], path)
                else:
                    np.testing.assert_array_equal(got[0], want[0])
                    np.testing.assert_array_equal(got[1], want[1])


# ------------------------------------------------------------------ the engines


@pytest.mark.parametrize("solver", ["auto", "exact"])
def test_engines_order_alike_on_degenerate_problems_and_leave_the_inputs(solver):
    """``fair_order`` on NumPy and on numba, ``solver`` auto and exact, every degenerate
    problem at lam 1e-12, 1e8 and 1e300: the same order, AUC and disparity; read-only
    inputs (a write raises) and nothing written into them."""
    pytest.importorskip("numba")
    for name, s, y, g in DEGENERATE:
        kept = [a.copy() for a in (s, y, g)]
        for a in (s, y, g):
            a.flags.writeable = False
        for metric in METRICS:
            for lam in (1e-12, 1e8, 1e300):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        a = fair_order(s, y, g, metric=metric, lam=lam, solver=solver,
                                       backend="numpy")
                    except ValueError as exc:
                        with pytest.raises(ValueError, match=str(exc)[:30]):
                            fair_order(s, y, g, metric=metric, lam=lam, solver=solver,
                                       backend="numba")
                        continue
                    b = fair_order(s, y, g, metric=metric, lam=lam, solver=solver,
                                   backend="numba")
                np.testing.assert_array_equal(a.order, b.order, err_msg=f"{name} {lam}")
                assert (a.auc, a.disparity) == (b.auc, b.disparity), (name, metric, lam)
        for a, k in zip((s, y, g), kept):
            np.testing.assert_array_equal(a, k)


def test_engines_meet_the_constraint_alike_on_degenerate_problems():
    """``fair_order(max_disparity=...)`` on NumPy and numba at eps 0, at the smallest
    ``|D|`` of the cell rule's and at 0.05: the same order, or the same error."""
    pytest.importorskip("numba")
    for name, s, y, g in DEGENERATE:
        for metric in METRICS:
            if not metric_defined(y, g, 2, metric):
                continue
            for eps in (0.0, 1e-13, 0.05):
                out = []
                for backend in ("numpy", "numba"):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        try:
                            out.append(fair_order(s, y, g, metric=metric,
                                                  max_disparity=eps, backend=backend))
                        except ValueError as exc:
                            out.append(str(exc))
                if isinstance(out[0], str):
                    assert out[1] == out[0], (name, metric, eps)
                    continue
                np.testing.assert_array_equal(out[0].order, out[1].order,
                                              err_msg=f"{name} {metric} {eps}")
                assert out[0].auc == out[1].auc
                assert abs(out[0].disparity) <= eps + cr.EPS_TOLERANCE


def _estimate(result):
    """The exact solver's estimated seconds, as its ``solver_reason`` says."""
    import re

    return float(re.search(r"estimated cost \(([0-9.e+-]+) s\)",
                           result.extra["solver_reason"]).group(1))


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_an_exact_budget_just_above_the_solves_cost_runs_it_and_zero_does_not(backend):
    """``exact_budget`` at 1.01 times the exact solver's estimated cost: the exact
    solver runs with the same order as at the default budget; at 0 it does not, and
    the reason says so; the order never below the search's at any budget."""
    if backend == "numba":
        pytest.importorskip("numba")
    rng = np.random.default_rng(12)
    s, y, g = two_group_problem(rng, 40, 30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = fair_order(s, y, g, lam=3.0, backend=backend)
        assert full.solver == "exact"
        tight = fair_order(s, y, g, lam=3.0, backend=backend,
                           exact_budget=1.01 * _estimate(full))
        none = fair_order(s, y, g, lam=3.0, backend=backend, exact_budget=0.0)
    assert tight.solver == "exact"
    np.testing.assert_array_equal(tight.order, full.order)
    assert none.solver != "exact" and "exact_budget" in none.extra["solver_reason"]
    assert none.objective <= full.objective + 1e-12


@pytest.mark.parametrize("lam", [float("inf"), float("nan"), -1e-12])
def test_weights_out_of_range_are_refused_clearly(lam):
    s, y, g = DEGENERATE[-1][1:]
    with pytest.raises(ValueError, match="lam"):
        fair_order(s, y, g, lam=lam, backend="numpy")


# ------------------------------------------------------------------ huge weights


def _every_interleaving(lat, lam):
    """The largest ``auc - lam |d|`` over every interleaving, each by its own counters
    (``cpu_reference.path_counters``): the oracle of the fronts, without them."""
    from itertools import combinations

    n = lat.n_a + lat.n_b
    best = -np.inf
    for at in combinations(range(n), lat.n_b):
        path = np.zeros(n, np.int8)
        path[list(at)] = 1
        best = max(best, objective(lat, lam, cr.path_counters(lat, path)))
    return best


def _tied_at_huge_weights():
    """Problems (URF, 4 to 7 items per group) whose fronts at lam 1e20 kept, of two
    states of a cell with the same ``d`` and different AUC, the lower: ``auc -+ lam d``
    rounds both to ``-+ lam d``, and the first candidate won the tie."""
    out = []
    for seed in (7, 8, 20):
        rng = np.random.default_rng(seed)
        n_a, n_b = int(rng.integers(3, 8)), int(rng.integers(3, 8))
        out.append(two_group_problem(rng, n_a, n_b, ties=seed % 2 == 1))
    return out


@pytest.mark.parametrize("lam", [1e20, 1e300])
def test_the_fronts_at_huge_weights_keep_the_larger_auc_of_equal_disparities(lam):
    """The fronts at lam 1e20 and 1e300, unpruned and pruned, the reference's and the
    compiled twin's: the optimum of every interleaving (the AUC of the best ``|D|``), not
    a state the rounding of ``auc - lam d`` tied with it."""
    for s, y, g in _tied_at_huge_weights():
        lat = cr.build_lattice(s, y, g, "urf", "absolute")
        best = _every_interleaving(lat, lam)
        want = cr.solve_fronts(lat, lam)
        assert objective(lat, lam, want[1]) == best
        mus, bounds = _bounds(lat, lam)
        lower = best - rounding_slack(lat.n_a, lat.n_b, mus) - cr.PRUNE_TOLERANCE
        assert objective(lat, lam, cr.solve_fronts(lat, lam, lower=lower,
                                                   bounds=bounds)[1]) == best
        nf = pytest.importorskip("gpu_xorder.engine._numba_fronts")
        twin = nf.solve_fronts(lat, lam)
        np.testing.assert_array_equal(twin[0], want[0])
        assert twin[2] == want[2]


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_the_exact_solver_at_huge_weights_is_never_below_another_ordering(backend):
    """``fair_order(solver="exact")`` at lam 1e20 and 1e300 (30 x 25 items, PRF): never
    below the ordering of the fronts at lam 1e8, whose ``|D|`` is 0 (its objective at
    every weight its AUC); before, an ordering of a tied state below it (0.5645 and
    0.5457 against 0.5672), with the claim of an exact answer, and below "auto"'s."""
    if backend == "numba":
        pytest.importorskip("numba")
    s, y, g = two_group_problem(np.random.default_rng(5), 30, 25)
    lat = cr.build_lattice(s, y, g, "prf", "absolute")
    final = cr.solve_fronts(lat, 1e8)[1]
    for lam in (1e20, 1e300):
        other = objective(lat, lam, final)
        assert other == objective(lat, 0.0, final)  # |D| = 0 exactly
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = fair_order(s, y, g, metric="prf", lam=lam, solver="exact",
                             backend=backend)
        assert got.objective >= other - 1e-12, lam


def _proven_wrongly():
    """Problems (4 to 6 items per group, distinct scores) where at lam 1e16 the
    search's bound, ``auc - mu d`` of the fills' maximisers, equalled a known ordering's
    objective: the fills at such weights round ``auc`` away and pick, of the orderings
    of one ``d``, any, so that bound is no bound; the exact solver stopped there,
    "proven" (gap 0) at 0.0667 where 0.3333 exists."""
    out = []
    for seed in (68, 84, 114):
        rng = np.random.default_rng(seed)
        n_a, n_b = int(rng.integers(2, 8)), int(rng.integers(2, 8))
        out.append(two_group_problem(rng, n_a, n_b))
    return out


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("lam", [1e16, 1e300])
def test_the_exact_solver_at_huge_weights_proves_only_the_optimum(backend, lam):
    """``fair_order(solver="exact")`` at lam 1e16 and 1e300 (xAUC): the optimum of every
    interleaving, whose gap it states as 0."""
    if backend == "numba":
        pytest.importorskip("numba")
    for s, y, g in _proven_wrongly():
        lat = cr.build_lattice(s, y, g, "xauc", "absolute")
        best = _every_interleaving(lat, lam)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = fair_order(s, y, g, metric="xauc", lam=lam, solver="exact",
                             backend=backend)
        assert got.objective == pytest.approx(best, abs=1e-12)


def _relink_pairs():
    """``(lat, first, second)``: two random orderings of small problems whose relink
    at lam 1e300 kept, of two states of equal ``p`` and ``q``, the lower AUC."""
    out = []
    for seed in (613, 1430, 2475):
        rng = np.random.default_rng(seed)
        n_a, n_b = int(rng.integers(3, 9)), int(rng.integers(3, 9))
        s, y, g = two_group_problem(rng, n_a, n_b)
        lat = cr.build_lattice(s, y, g, METRICS[seed % 3], "absolute")
        base = np.repeat([0, 1], [lat.n_a, lat.n_b])
        out.append((lat, rng.permutation(base).astype(np.int8),
                    rng.permutation(base).astype(np.int8)))
    return out


def _best_relink(lat, lam, first, second):
    """The largest objective over every choice of the two orderings' segments between
    their shared cells (the relink's definition), each by its own counters."""
    from itertools import product

    r1, r2 = cr.path_states(lat, first)[1], cr.path_states(lat, second)[1]
    shared = np.flatnonzero(r1 == r2)
    segments = [(a, b) for a, b in zip(shared[:-1], shared[1:])
                if not np.array_equal(first[a:b], second[a:b])]
    best = -np.inf
    for take in product((False, True), repeat=len(segments)):
        path = first.copy()
        for (a, b), t in zip(segments, take):
            if t:
                path[a:b] = second[a:b]
        best = max(best, objective(lat, lam, cr.path_counters(lat, path)))
    return best


@pytest.mark.parametrize("lam", [1e16, 1e300])
def test_the_relink_at_huge_weights_keeps_the_larger_auc(lam):
    """``cpu_reference.relink`` and its compiled twin at lam 1e16 and 1e300: the best
    choice of segments (every choice enumerated), the twins bit for bit."""
    for lat, first, second in _relink_pairs():
        best = _best_relink(lat, lam, first, second)
        want = cr.relink(lat, lam, first, second)
        assert objective(lat, lam, want[1]) == best
        nr = pytest.importorskip("gpu_xorder.engine._numba_relink")
        got = nr.relink(lat, lam, first, second)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
