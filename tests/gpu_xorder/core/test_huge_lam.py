"""The solvers at huge weights (lam 1e3 and up, where users ask for parity): the
default against the exact optimum, the polish of the search's ordering, and the bound
of a stopped exact solve against exhaustive enumeration and ``solver="exact"``."""

import itertools
import zlib

import numpy as np
import pytest

import cpu_reference as cr
from gpu_xorder import fair_order
from gpu_xorder.core import _exact, _polish, _solvers
from gpu_xorder.core._candidates import absolute_objective, candidate
from support.oracles import best_objective
from support.problems import two_group_problem

METRICS = ("xauc", "prf", "urf")


def _problems(name, count, low=3, high=8, ties=True, lams=(3, 8)):
    """``(s, y, g, lam)``: groups of ``low`` to ``high - 1`` items, ties in every
    other problem (with ``ties``), lam log-uniform in ``10 ** lams``."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    for k in range(count):
        n_a, n_b = (int(v) for v in rng.integers(low, high, 2))
        s, y, g = two_group_problem(rng, n_a, n_b, ties=ties and bool(k % 2))
        yield s, y, g, float(10 ** rng.uniform(*lams))


def _solve_parts(monkeypatch, s, y, g, metric, lam):
    """``(lat, search's best, search, exact optimum)`` of ``solver="exact"`` on the
    reference (NumPy) fills: the arguments the solve hands the polish and the exact
    solver."""
    seen = {}
    polish, exact = _polish.polish, _exact.exact

    def seen_polish(lat, lam, best, relink):
        seen.setdefault("best", best)
        return polish(lat, lam, best, relink)

    def seen_exact(lat, lam, best, search, *args):
        seen.update(lat=lat, search=search)
        return exact(lat, lam, best, search, *args)

    monkeypatch.setattr(_polish, "polish", seen_polish)
    monkeypatch.setattr(_solvers, "exact", seen_exact)
    res = fair_order(s, y, g, metric=metric, lam=lam, solver="exact", backend="numpy")
    monkeypatch.undo()
    return seen.get("lat"), seen.get("best"), seen.get("search"), res.objective


def test_moved_copies_are_paths_of_the_lattice():
    """A moved copy keeps every group's count of steps, and leaves the path in
    disjoint stretches, each a move of one item past a run of the other group, at
    most ``POLISH_MOVES`` of them."""
    rng = np.random.default_rng(3)
    capped = 0
    for k in range(50):
        size = int(rng.integers(2, 40 if k % 2 else 600))
        path = (rng.random(size) < rng.uniform(0.2, 0.8)).astype(np.int8)
        q = _polish.moved(path, rng)
        assert q.dtype == np.int8 and q.size == path.size
        assert q.sum() == path.sum()
        # every stretch where they part: the same items, one of them moved to the
        # other end of the stretch
        rows_p = np.concatenate(([0], np.cumsum(path == 0)))
        rows_q = np.concatenate(([0], np.cumsum(q == 0)))
        shared = np.flatnonzero(rows_p == rows_q)
        parted = np.flatnonzero(np.diff(shared) > 1)
        assert parted.size <= _polish.POLISH_MOVES  # at most that many moves
        capped += np.count_nonzero(path[1:] != path[:-1]) > _polish.POLISH_MOVES
        for lo, hi in zip(shared[:-1], shared[1:]):
            a, b = path[lo:hi], q[lo:hi]
            if hi - lo > 1:
                assert (np.array_equal(b, np.roll(a, 1)) or np.array_equal(b, np.roll(a, -1)))
                assert np.unique(a[:-1]).size == 1 or np.unique(a[1:]).size == 1
    assert capped > 5  # long paths: the cap applied


@pytest.mark.parametrize("metric", METRICS)
def test_polish_is_never_worse_and_gains_at_huge_lam(monkeypatch, metric):
    """The polish of the search's ordering at huge lam, against ``solver="exact"``:
    never worse than the search's ordering, never above the optimum, its counters
    those of its path; and it gains in at least half the cases where the search falls
    short (measured: xauc 4 of 7, prf 6 of 8, urf 8 of 8)."""
    short = gained = 0
    for s, y, g, lam in _problems("polish" + metric, 8, 8, 17):
        lat, best, _, opt = _solve_parts(monkeypatch, s, y, g, metric, lam)
        if best is None:  # the search's bound proved its ordering optimal
            continue
        got = _polish.polish(lat, lam, best)
        before, after = absolute_objective(best, lam), absolute_objective(got, lam)
        assert after >= before
        assert after <= opt + 1e-12 * lam
        np.testing.assert_array_equal(cr.path_counters(lat, got.path), got.final)
        assert absolute_objective(candidate(lat, got.path, got.final), lam) == after
        if opt - before > 1e-12 * lam:
            short += 1
            gained += after > before
    assert short >= 4 and gained >= short // 2


@pytest.mark.parametrize("metric", METRICS)
def test_the_default_at_huge_lam_is_the_exact_optimum(metric):
    """Within its budget the default is ``solver="exact"``'s optimum at huge lam
    (which enumeration confirms); with the exact solver stopped at once (a budget
    below its tables) it returns the polished search's ordering: never below the
    search's, never above the optimum, its bound never below the optimum."""
    for k, (s, y, g, lam) in enumerate(_problems("default" + metric, 6)):
        kw = dict(metric=metric, lam=lam, backend="numpy")
        ex = fair_order(s, y, g, solver="exact", **kw)
        opt = ex.objective
        if k % 2 == 0:  # distinct scores: enumeration agrees
            assert opt == pytest.approx(best_objective(s, y, g, metric, lam, "absolute"),
                                        abs=1e-12 * lam)
        auto = fair_order(s, y, g, **kw)
        assert auto.objective == ex.objective
        stopped = fair_order(s, y, g, exact_budget=1e-9, **kw)
        search = fair_order(s, y, g, solver="lagrangian", **kw)
        assert search.objective <= stopped.objective <= opt + 1e-12 * lam
        assert stopped.upper_bound >= opt - 1e-12 * lam
        if stopped.objective > search.objective:
            assert "polished" in stopped.extra["solver_reason"]
            assert stopped.extra["polish_gain"] == pytest.approx(
                stopped.objective - search.objective)


class _StopAt:
    """The reference's fronts, stopped over budget at their ``k``-th try."""

    cost = _exact.NUMPY_COST
    tables = staticmethod(_exact.NUMPY_FRONTS.tables)

    def __init__(self, k):
        self.k, self.tries = k, 0

    def solve(self, *args):
        self.tries += 1
        if self.tries == self.k:
            raise cr.FrontsTooLarge("stopped", predicted=1)
        return _exact.NUMPY_FRONTS.solve(*args)


def _stopped_bounds(monkeypatch, s, y, g, metric, lam):
    """The exact optimum and the bound of the exact solve stopped at each of its
    tries in turn (``OverBudget.bound``), its tries pruned whatever the rounding (above
    ``BOUND_ROUNDING`` the fronts run unpruned at once, no guess to stop at)."""
    lat, best, search, opt = _solve_parts(monkeypatch, s, y, g, metric, lam)
    if search is None:
        return opt, []
    monkeypatch.setattr(_exact, "BOUND_ROUNDING", np.inf)
    stats = _exact.exact(lat, lam, best, search, None)[1]
    bounds = []
    for k in range(1, stats["tries"] + 1):
        with pytest.raises(_exact.OverBudget) as exc:
            _exact.exact(lat, lam, best, search, None, budget=1e9, fronts=_StopAt(k))
        bounds.append(exc.value.bound)
    return opt, bounds


def test_a_stopped_exact_solve_bounds_the_optimum_at_huge_lam(monkeypatch):
    """The guesses that no state reached bound the optimum once widened by the
    rounding of the pruning's bounds (``_exact.rounding_slack``): at lam 5.4e14 on
    4 + 6 items (PRF, the pruning's rounding about 0.05) the guesses themselves lay up
    to 0.006 below the optimum 0.8, which enumeration confirms."""
    s = np.array([0.4241983695702475, 0.9531604880370382, 0.8783654950164146,
                  0.35799152310807314, 0.35983251422247087, 0.4858358613989018,
                  0.9606447966726998, 0.14398054119793513, 0.5489012665123931,
                  0.6477107544433567])
    y = np.array([1, 1, 1, 1, 0, 0, 1, 0, 0, 0])
    g = np.array([1, 1, 0, 1, 0, 0, 1, 0, 1, 1])
    lam = 543027356049679.4
    opt, bounds = _stopped_bounds(monkeypatch, s, y, g, "prf", lam)
    assert opt == pytest.approx(best_objective(s, y, g, "prf", lam, "absolute"), abs=1e-12)
    assert len(bounds) > 3 and all(b >= opt for b in bounds)


@pytest.mark.parametrize("metric", METRICS)
def test_stopped_bounds_at_huge_lam_with_ties(monkeypatch, metric):
    """Adversarial: ties, lam 1e6 to 1e15, the exact solve stopped at every try; no
    bound below ``solver="exact"``'s optimum (up to ``TOLERANCE``)."""
    for s, y, g, lam in _problems("stopped" + metric, 6, 4, 12, lams=(6, 15)):
        opt, bounds = _stopped_bounds(monkeypatch, s, y, g, metric, lam)
        assert all(b >= opt - 1e-12 for b in bounds)


def test_rounding_slack_grows_with_the_lattice_and_the_weights():
    """The widening is the documented bound: ``(n_a + 2) (n_b + 4) 2**-50 (1 + 2 max
    |mu|)``; small at the weights of everyday use."""
    assert _exact.rounding_slack(2000, 2000, [-1.0, 0.5]) < 1.1e-8
    assert _exact.rounding_slack(3, 5, []) == 5 * 9 * 2.0**-50
    assert _exact.rounding_slack(100, 100, [1e8]) == pytest.approx(
        102 * 104 * 2.0**-50 * (1 + 2e8))


class _Counting:
    """The reference's fronts, recording each try's allowance of states (its last
    argument) and the states it stored, also where it found nothing (``NoneLeft``)."""

    cost = _exact.NUMPY_COST
    tables = staticmethod(_exact.NUMPY_FRONTS.tables)

    def __init__(self):
        self.calls = []  # (allowance, states stored, found nothing)

    def solve(self, *args):
        try:
            got = _exact.NUMPY_FRONTS.solve(*args)
        except cr.NoneLeft as exc:
            self.calls.append((args[-1], exc.states, True))
            raise
        self.calls.append((args[-1], got[2]["states"], False))
        return got


def test_a_try_that_finds_nothing_is_charged_to_the_budget(monkeypatch):
    """The states a try stores before the pruning drops the last count against the
    budget of states like those of a try that finds the optimum: each try is allowed
    the budget less every state stored before it, and ``stats["states"]`` sums them
    all (a try that found nothing was free: at huge lam the exact solve ran past its
    budget by the whole fronts of every failed guess)."""
    failed = 0
    for s, y, g, lam in _problems("charged", 8, low=5, high=12, lams=(4, 9)):
        lat, best, search, _ = _solve_parts(monkeypatch, s, y, g, "xauc", lam)
        if search is None:
            continue
        fronts = _Counting()
        stats = _exact.exact(lat, lam, best, search, None, budget=1e9, fronts=fronts)[1]
        allowance = _exact.exact_allowance(lat, stats["tables"], 1e9, fronts.cost)
        spent = 0
        for left, states, nothing in fronts.calls:
            assert left == allowance - spent
            spent += states
            failed += nothing and states > 0
        assert stats["states"] == spent
    assert failed >= 2


def test_an_exact_solve_over_budget_by_its_tables_builds_none(monkeypatch):
    """Where the completion tables alone exceed ``exact_budget`` (and no bounded front
    ran to hand its tables over: NumPy's fronts, a budget below the beam's cost), the
    exact solve is refused by the cost model before any table is built (it built all
    of them, seconds on NumPy at 2,000 per group, and then refused)."""
    built = []
    tables = _exact._NumpyFronts.tables

    def counted(lat, mus):
        built.append(len(mus))
        return tables(lat, mus)

    monkeypatch.setattr(_exact._NumpyFronts, "tables", staticmethod(counted))
    s, y, g, lam = next(_problems("over-budget", 1, low=30, high=40, ties=False,
                                  lams=(0, 1)))
    res = fair_order(s, y, g, metric="xauc", lam=lam, backend="numpy", exact_budget=1e-7)
    assert res.solver == "lagrangian"
    assert "completion tables" in res.extra["solver_reason"]
    assert "over exact_budget" in res.extra["solver_reason"]
    assert built == []


# URF, 3 x 3 items: two orderings of the same |D| = 1/9, AUC 4/9 and 6/9; at lam 1e20
# AUC - lam |D| rounds to -lam |D| for both, and the exact solver kept the search's 4/9
# (its fronts found 6/9; the objective's comparison could not tell them apart).
TIED_AT_HUGE_LAM = (
    [0.42332644897257565, 0.8277025938204418, 0.4091991363691613, 0.5495936876730595,
     0.027559113243068367, 0.7535131086748066], [1, 1, 1, 0, 0, 0], [1, 0, 0, 1, 0, 1])


@pytest.mark.parametrize("backend", ["numpy", "numba"])
@pytest.mark.parametrize("lam", [1e20, 1e300])
def test_of_one_disparity_the_larger_auc_wins_where_the_objective_rounds(backend, lam):
    """Where ``AUC - lam |D|`` rounds the AUC away, the exact solver and the default
    still return, of the orderings of the least ``|D|``, the one of the largest AUC
    (every interleaving enumerated), as at lam 1e8."""
    if backend == "numba":
        pytest.importorskip("numba")
    s, y, g = (np.asarray(a) for a in TIED_AT_HUGE_LAM)
    lat = cr.build_lattice(s, y, g, "urf", "absolute")
    aucs, ds = [], []
    for path in _interleavings(lat.n_a, lat.n_b):
        c = candidate(lat, path, cr.path_counters(lat, path))
        aucs.append(c.auc)
        ds.append(abs(c.d))
    aucs, ds = np.array(aucs), np.array(ds)
    fairest = ds == ds.min()
    assert np.unique(aucs[fairest]).size > 1  # the case ties |D| across AUCs
    for solver in ("exact", "auto"):
        res = fair_order(s, y, g, metric="urf", lam=lam, solver=solver, backend=backend)
        assert res.disparity == pytest.approx(ds.min(), abs=1e-15)
        assert res.auc == pytest.approx(aucs[fairest].max(), abs=1e-15), solver


def _interleavings(n_a, n_b):
    """Every path of the lattice: 1 for a step along a, 0 along b."""
    for ones in itertools.combinations(range(n_a + n_b), n_a):
        path = np.zeros(n_a + n_b, dtype=np.int8)
        path[list(ones)] = 1
        yield path


def test_the_last_states_pick_breaks_a_rounded_tie_by_auc_only_at_one_disparity():
    """``best_final``: of the largest value, the first state's ``|D|``, then the larger
    AUC; a tie of values across two ``|D|`` keeps the first (no AUC preference)."""
    from cpu_reference._fronts import best_final

    value = np.array([-1e19, -1e19, -1e19, -2e19])
    auc = np.array([0.2, 0.7, 0.9, 1.0])
    dis = np.array([0.1, -0.1, 0.3, 0.2])  # the third ties in value at another |D|
    assert best_final(value, auc, dis) == 1
    assert best_final(np.array([0.5, 0.5]), np.array([0.5, 0.9]),
                      np.array([0.0, 0.4])) == 0
