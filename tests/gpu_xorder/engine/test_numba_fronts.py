"""The compiled exact fronts (``engine._numba_fronts``) against their oracle,
``cpu_reference.solve_fronts`` and ``completion_values`` (pure NumPy): the same path,
counters, stored states and largest front, bit for bit, and the same completion values,
on random and tied inputs, with and without pruning bounds, and on adversarial ones
(one-item groups, all scores equal, lam 0 and huge, a lower bound above the optimum,
the state and byte budgets); the ordering the same whatever the pruning (the tie rule is
canonical); the optimum against exhaustive enumeration of every
interleaving on tiny inputs; the reference's canonical order against its definition;
and the exact solver's choice of fronts per engine."""

import numpy as np
import pytest

pytest.importorskip("numba")

import cpu_reference as cr  # noqa: E402
from cpu_reference import _fronts  # noqa: E402
from gpu_xorder import fair_order  # noqa: E402
from gpu_xorder.core import _exact  # noqa: E402
from gpu_xorder.engine import _numba_fronts as nf  # noqa: E402
from gpu_xorder.utils._metrics import METRIC_NAMES  # noqa: E402
from support.oracles import best_objective  # noqa: E402
from support.problems import two_group_problem  # noqa: E402

METRICS = METRIC_NAMES
LAMS = (0.0, 0.3, 2.0, 1e6)


def assert_same(lat, lam, **kw):
    """Both fronts on ``lat`` (``kw``: ``lower``, ``mus``, ``max_states``,
    ``max_bytes``; ``known``: the bounds and tables of ``mus`` computed already): the
    same answer, or the same exception."""
    mus = kw.pop("mus", ())
    bounds, tables = kw.pop("known", (None, None))
    if bounds is None:
        bounds = [(mu, cr.completion_values(lat, mu)) for mu in mus]
        tables = nf.completion_tables(lat, mus) if len(mus) else None
    try:
        want = cr.solve_fronts(lat, lam, bounds=bounds, **kw)
    except (cr.NoneLeft, cr.FrontsTooLarge) as exc:
        with pytest.raises(type(exc)) as got:
            nf.solve_fronts(lat, lam, mus=mus, tables=tables, **kw)
        assert str(got.value) == str(exc)
        assert getattr(got.value, "predicted", None) == getattr(exc, "predicted", None)
        assert getattr(got.value, "states", None) == getattr(exc, "states", None)
        return None
    got = nf.solve_fronts(lat, lam, mus=mus, tables=tables, **kw)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    assert got[0].dtype == want[0].dtype and got[1].dtype == want[1].dtype
    assert got[2] == want[2]
    return want


def objective(lat, lam, final):
    return cr.cell_values(final, lat.consts, lam, lat.metric, "absolute")[0]


@pytest.mark.parametrize("metric", METRICS)
def test_completion_tables_are_the_reference_values(metric):
    rng = np.random.default_rng(len(metric))
    for trial in range(6):
        s, y, g = two_group_problem(rng, int(rng.integers(1, 30)),
                                    int(rng.integers(1, 30)), ties=trial % 2 == 1)
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        mus = np.array([-3.0, -0.7, 0.0, 0.25, 5.0])
        tables = nf.completion_tables(lat, mus)
        assert tables.shape == (lat.n_cells, mus.size)
        for k, mu in enumerate(mus):
            np.testing.assert_array_equal(tables[:, k],
                                          cr.completion_values(lat, mu).reshape(-1))


@pytest.mark.parametrize("metric", METRICS)
def test_random_fronts_are_the_reference_fronts(metric):
    """Without bounds, and pruned by a lower bound just below the optimum (and far
    below it) with the bounds of five weights."""
    rng = np.random.default_rng(11 * len(metric))
    for trial in range(8):
        s, y, g = two_group_problem(rng, int(rng.integers(1, 26)),
                                    int(rng.integers(1, 26)), ties=trial % 2 == 1)
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        for lam in LAMS:
            want = assert_same(lat, lam)
            best = objective(lat, lam, want[1])
            mus = tuple(np.linspace(-lam, lam, 5)) if lam < 1e6 else (-1.0, 0.0, 1.0)
            known = ([(mu, cr.completion_values(lat, mu)) for mu in mus],
                     nf.completion_tables(lat, mus))
            for below in (1e-12, 1e-3, 0.5):
                assert_same(lat, lam, lower=best - below, mus=mus, known=known)


@pytest.mark.parametrize("metric", METRICS)
def test_the_optimum_against_every_interleaving(metric):
    rng = np.random.default_rng(5 + len(metric))
    for _ in range(10):
        # distinct scores: the enumeration ranks the interleaving strictly
        s, y, g = two_group_problem(rng, int(rng.integers(2, 7)), int(rng.integers(2, 7)))
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        for lam in (0.0, 0.4, 3.0):
            _, final, _ = nf.solve_fronts(lat, lam)
            want = best_objective(s, y, g, metric, lam, "absolute")
            assert objective(lat, lam, final) == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("metric", METRICS)
def test_adversarial_fronts(metric):
    """One item against many, every score equal (every state duplicated by many
    paths: the tie-break decides the path), unlabeled runs, a lower bound above the
    optimum (NoneLeft), and budgets of states and bytes (FrontsTooLarge, the same
    prediction)."""
    rng = np.random.default_rng(17)
    cases = [two_group_problem(rng, 1, 25), two_group_problem(rng, 25, 1)]
    s, y, g = two_group_problem(rng, 20, 18)
    cases.append((np.zeros_like(s), y, g))
    y2 = y.copy()
    y2[1:-1] = 0
    cases.append((np.round(s, 1), y2, g))
    for s, y, g in cases:
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        for lam in LAMS:
            want = assert_same(lat, lam)
            best = objective(lat, lam, want[1])
            assert_same(lat, lam, lower=best + 1e-3, mus=(-lam, 0.0, lam))
            if want[2]["states"] > 10:
                assert_same(lat, lam, max_states=want[2]["states"] // 3)
                assert_same(lat, lam, max_bytes=4 * want[2]["states"] // 2)
            # the states stored never exceed the budget: one state less stops both
            assert assert_same(lat, lam, max_states=want[2]["states"] - 1) is None


def test_the_reference_order_is_canonical():
    """``_fronts._pareto`` keeps, per cell, the states whose q beats every state before
    them in the order (cell, p descending, q descending, AUC descending, index), many
    ties."""
    rng = np.random.default_rng(3)
    for _ in range(50):
        n = int(rng.integers(1, 60))
        p = rng.integers(0, 4, n) / 4.0
        q = rng.integers(0, 4, n) / 4.0
        auc = rng.integers(0, 3, n) / 2.0
        rows = rng.integers(0, 3, n)
        got, got_rows = _fronts._pareto(p, q, auc, rows, np.int16)
        want = []
        for r in range(3):
            idx = sorted(np.flatnonzero(rows == r),
                         key=lambda k: (-p[k], -q[k], -auc[k], k))
            best = -np.inf
            for k in idx:
                if q[k] > best:
                    want.append(k)
                    best = q[k]
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(got_rows, rows[want])


def test_the_compiled_order_merges_runs_and_sorts_the_rest():
    rng = np.random.default_rng(4)
    for _ in range(100):
        m = int(rng.integers(1, 40))
        p = rng.integers(0, 5, m) / 2.0
        q = rng.integers(0, 5, m) / 2.0
        u = rng.integers(0, 3, m) / 2.0
        split = int(rng.integers(0, m + 1))
        if rng.random() < 0.5:  # two runs in order, as a cell's candidates nearly are
            for lo, hi in ((0, split), (split, m)):
                k = np.lexsort((-u[lo:hi], -q[lo:hi], -p[lo:hi]))
                p[lo:hi], q[lo:hi], u[lo:hi] = p[lo:hi][k], q[lo:hi][k], u[lo:hi][k]
        order, tmp = np.empty(m, np.int64), np.empty(m, np.int64)
        nf._order(p, q, u, m, split, order, tmp)
        np.testing.assert_array_equal(order, np.lexsort((np.arange(m), -u, -q, -p)))


@pytest.mark.parametrize("metric", METRICS)
def test_the_exact_solver_gives_one_answer_on_every_engine(metric):
    """``solver="exact"`` on numba (compiled fronts) and NumPy (the reference's): the
    same ordering and objective."""
    rng = np.random.default_rng(23)
    s, y, g = two_group_problem(rng, 60, 45, ties=True)
    got = fair_order(s, y, g, metric=metric, lam=1.5, solver="exact", backend="numba")
    want = fair_order(s, y, g, metric=metric, lam=1.5, solver="exact", backend="numpy")
    np.testing.assert_array_equal(got.order, want.order)
    assert got.objective == want.objective
    assert got.solver == want.solver == "exact"


def test_fronts_per_engine():
    assert _exact.fronts_for("numba") is _exact.COMPILED_FRONTS
    assert _exact.fronts_for("numpy") is _exact.NUMPY_FRONTS
    assert _exact.COMPILED_FRONTS.cost.state < _exact.NUMPY_FRONTS.cost.state


@pytest.mark.slow
@pytest.mark.parametrize("metric", METRICS)
def test_larger_fronts_are_the_reference_fronts(metric):
    """Lattices of 80-150 items per group (fronts of thousands of states per cell at
    large lam), pruned by the bounds of nine weights against a lower bound just below
    the optimum: the same answer, bit for bit."""
    rng = np.random.default_rng(31 + len(metric))
    for trial in range(3):
        s, y, g = two_group_problem(rng, int(rng.integers(80, 151)),
                                    int(rng.integers(80, 151)), ties=trial == 1)
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        for lam in (0.2, 2.0):
            res = fair_order(s, y, g, metric=metric, lam=lam, solver="exact",
                             backend="numpy")
            assert_same(lat, lam, lower=res.objective - 1e-6,
                        mus=tuple(np.linspace(-lam, lam, 9)))


@pytest.mark.parametrize("metric", METRICS)
def test_the_fronts_ordering_does_not_depend_on_the_pruning(metric):
    """The tie rule is canonical: pruned by any lower bound at or below the optimum
    (the optimum itself, just below it, far below it) and by the bounds of any set of
    weights in ``[-lam, lam]`` (3, 17, or 5 and 4 random ones), the fronts return the
    very ordering of the unpruned fronts, on random, tied and all-equal scores (many
    optimal orderings), both the compiled fronts and the reference. What a path could
    share across its lams (a lower bound from another lam's ordering) therefore
    changes no ordering the fronts return (docs/design.md, section 3.5, "Ties, and the
    values of a sequence")."""
    rng = np.random.default_rng(41 + len(metric))
    for trial in range(9):
        s, y, g = two_group_problem(rng, int(rng.integers(1, 22)),
                                    int(rng.integers(1, 22)), ties=trial % 3 == 1)
        if trial % 3 == 2:
            s = np.zeros_like(s)
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        for lam in (0.05, 0.3, 2.0, 30.0):
            path, final, _ = nf.solve_fronts(lat, lam)
            np.testing.assert_array_equal(cr.solve_fronts(lat, lam)[0], path)
            best = objective(lat, lam, final)
            for mus in (np.linspace(-lam, lam, 3), np.linspace(-lam, lam, 17),
                        np.sort(np.r_[np.linspace(-lam, lam, 5),
                                      rng.uniform(-lam, lam, 4)])):
                tables = nf.completion_tables(lat, mus)
                bounds = [(mu, cr.completion_values(lat, mu)) for mu in mus]
                for below in (0.0, 1e-12, 1e-4, 0.5):
                    got = nf.solve_fronts(lat, lam, lower=best - below, mus=mus,
                                          tables=tables)
                    np.testing.assert_array_equal(got[0], path)
                    np.testing.assert_array_equal(got[1], final)
                    ref = cr.solve_fronts(lat, lam, lower=best - below, bounds=bounds)
                    np.testing.assert_array_equal(ref[0], path)
