"""Adversarial inputs of the faces changed by the polish round (the classes of
``test_adversarial_api.py`` and ``cli/test_adversarial.py``): the polish before the exact
solver (``core/_polish.py``), the stopped exact solve's widened bound
(``_exact.rounding_slack``), the search's signed fills on the lattice of label runs
(``cpu_reference.label_runs``, ``_solvers._RunFills``, the constrained bound search),
the cell rule at lam with bits up front and the plan's expected fills, the compiled
fronts' bound test, ``--exact-budget`` and ``paper``'s group names; and, crossed with
them, ``XOrder(validation=...).plan``, progress, read-only inputs and the line every
warning of a fit names (``support.callers``).

Each class is crossed with the degenerate inputs (one item in a group, one label per
group, so that the lattice of label runs is 1 x 1 or 1 x k, every score tied, groups of
very unequal size) and the weights from 0 to the cap (1e300), every metric the data
take; the oracles are brute-force enumeration of every interleaving
(``support.oracles``), the NumPy engine for the compiled ones, and the same call twice.
"""

import re
import warnings

import numpy as np
import pytest

import cpu_reference
from gpu_xorder import FairRanker, XOrder, fair_order, xorder_path
from gpu_xorder.core import _polish, _solvers
from gpu_xorder.core._candidates import candidate
from support.callers import assert_warned_at_the_call
from support.oracles import (
    best_objective,
    interleavings_auc_d,
    reference_fills,
    reference_finals,
)

METRICS = ("xauc", "prf", "urf")
#: Every weight class: 0, tiny, moderate, large, huge, the cap.
LAMS = (0.0, 1e-12, 0.5, 3.0, 1e6, 1e15, 1e300)
SOLVERS = ("paper", "auto", "exact", "lagrangian")


def _tol(lam):
    return 1e-9 * max(1.0, lam)


def _problems():
    """Tiny two-group problems, scores distinct within each group (the brute force
    ranks items by their place, as the library does once a group's order is fixed):
    ``name -> (scores, y, groups)``."""
    rng = np.random.default_rng(11)
    return {
        "one item per group": (np.array([0.3, 0.7]), np.array([1, 0]), np.array([0, 1])),
        "one item in a": (rng.random(10), np.r_[1, np.tile([0, 1], 4), 1],
                          np.r_[0, [1] * 9]),
        "one label per group (runs 1 x 1)": (rng.random(8), np.repeat([1, 0], 4),
                                             np.repeat([0, 1], 4)),
        "one label in a (runs 1 x k)": (rng.random(9), np.r_[1, 1, 1, 0, 1, 0, 1, 0, 1],
                                        np.r_[[0] * 3, [1] * 6]),
        "two against ten": (rng.random(12), np.r_[1, 0, np.tile([0, 1], 5)],
                            np.r_[0, 0, [1] * 10]),
        "five against seven": (rng.random(12), np.r_[1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0, 1],
                               np.r_[[0] * 5, [1] * 7]),
        "six and six, ties across groups": (
            np.r_[np.arange(6), np.arange(6)] / 6.0, np.r_[1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 1, 0],
            np.repeat([0, 1], 6)),
    }


def _fit(s, y, g, **kw):
    """``fair_order`` on copies, failing where it changed them; the warnings kept out."""
    given = [np.array(a, copy=True) for a in (s, y, g)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = fair_order(*given, **kw)
    for a, b in zip(given, (s, y, g)):
        np.testing.assert_array_equal(a, b)
    return r


def _runs_metric(metric, y, g):
    """Whether ``metric`` takes the labels (xAUC needs both in both groups, PRF
    positives in both)."""
    for k in np.unique(g):
        labels = set(y[g == k].tolist())
        if metric == "xauc" and labels != {0, 1} or metric == "prf" and 1 not in labels:
            return False
    return True


@pytest.mark.parametrize("case", _problems())
def test_every_solver_at_every_weight_against_brute_force(case):
    """Every solver at every weight, every metric the data take: never above the
    optimum of every interleaving; the exact solver at it; the search and the default
    never below the cell rule; every certified bound at or above the optimum; the same
    ordering twice; the inputs unchanged."""
    s, y, g = _problems()[case]
    ran = 0
    for metric in METRICS:
        if not _runs_metric(metric, y, g):
            continue
        for lam in LAMS:
            opt = best_objective(s, y, g, metric, lam, "absolute")
            got = {}
            for solver in SOLVERS:
                kw = dict(metric=metric, lam=lam, solver=solver, backend="numpy")
                r = got[solver] = _fit(s, y, g, **kw)
                where = (case, metric, lam, solver)
                again = _fit(s, y, g, **kw)
                np.testing.assert_array_equal(r.order, again.order)
                assert (r.objective, r.upper_bound) == (again.objective, again.upper_bound)
                assert r.objective <= opt + _tol(lam), where
                if r.upper_bound is not None:
                    assert r.upper_bound >= opt - _tol(lam), where
                ran += 1
            assert got["exact"].objective >= opt - _tol(lam), (case, metric, lam)
            for solver in ("auto", "lagrangian", "exact"):
                assert got[solver].objective >= got["paper"].objective - _tol(lam), (
                    case, metric, lam, solver)
    assert ran >= len(LAMS) * len(SOLVERS)


def _tied_problems():
    """Problems with ties within groups (every score tied, two score values) and of
    very unequal groups, where the polish runs: ``name -> (scores, y, groups)``."""
    rng = np.random.default_rng(5)

    def make(n_a, n_b, values=None):
        s = rng.random(n_a + n_b)
        if values:
            s = np.round(s * (values - 1)) / (values - 1)
        y = rng.integers(0, 2, n_a + n_b)
        y[[0, 1, n_a, n_a + 1]] = [1, 0, 1, 0]
        return s, y, np.r_[[0] * n_a, [1] * n_b]

    s, y, g = make(8, 8)
    return {"every score tied": (np.full(16, 0.25), y, g),
            "three score values": make(9, 9, values=3),
            "four against sixty, two values": make(4, 60, values=2),
            "thirty and thirty": make(30, 30)}


@pytest.mark.parametrize("case", _tied_problems())
def test_tied_and_unequal_groups_bounds_and_order_of_solvers(case):
    """On ties and unequal groups, every metric, weights up to the cap (NumPy): the
    default never below the cell rule nor above the exact solver; every certified bound
    at or above the exact optimum; a polish gain, where reported, positive, and the
    reason saying so where the search's ordering is the answer."""
    s, y, g = _tied_problems()[case]
    polished = 0
    for metric in METRICS:
        for lam in (0.7, 1e6, 1e15, 1e300):
            kw = dict(metric=metric, lam=lam, backend="numpy")
            paper, auto, exact = (_fit(s, y, g, solver=solver, **kw)
                                  for solver in ("paper", "auto", "exact"))
            where = (case, metric, lam)
            assert paper.objective - _tol(lam) <= auto.objective, where
            assert auto.objective <= exact.objective + _tol(lam), where
            for r in (auto, exact):
                if r.upper_bound is not None:
                    assert r.upper_bound >= exact.objective - _tol(lam), where
            for r in (auto, exact):
                if "polish_gain" in r.extra:
                    polished += 1
                    assert r.extra["polish_gain"] > 0, where
                    if r.solver == "lagrangian":  # the search's answer, polished
                        assert "polished" in r.extra["solver_reason"], where
    if case == "thirty and thirty":
        assert polished > 0  # measured: 4 of these solves polish (not vacuous)


@pytest.mark.parametrize("case", [
    pytest.param(case, marks=[pytest.mark.slow] if case == "thirty and thirty" else [])
    for case in list(_problems()) + list(_tied_problems())])
def test_numba_orders_as_numpy_at_every_weight(case):
    """The numba engine's default and exact solver (its compiled fronts, their bound
    test, relinks and the polish) give NumPy's ordering, objective and bound bit for
    bit, every metric, weights up to the cap."""
    pytest.importorskip("numba")
    s, y, g = {**_problems(), **_tied_problems()}[case]
    for metric in METRICS:
        if not _runs_metric(metric, y, g):
            continue
        for lam in (1e-12, 0.5, 1e6, 1e300):
            for solver in ("auto", "exact"):
                kw = dict(metric=metric, lam=lam, solver=solver)
                a = _fit(s, y, g, backend="numpy", **kw)
                b = _fit(s, y, g, backend="numba", **kw)
                where = (case, metric, lam, solver)
                np.testing.assert_array_equal(a.order, b.order, err_msg=str(where))
                assert (a.objective, a.upper_bound) == (b.objective, b.upper_bound), where
                assert a.extra.get("polish_gain") == b.extra.get("polish_gain"), where


def test_emulated_cupy_orders_as_numpy_at_huge_weights(emulated_cupy, monkeypatch):
    """The CuPy engine (emulated device) at huge weights, where the polish runs before
    its exact solve, and on lattices of label runs of 1 x 1 and 1 x k (its signed fills
    on merged lattices, weighted rows): NumPy's ordering, objective and bound bit for
    bit, every solver, every metric the data take, and the constrained solver. (The
    engine's self-check at its first use fills a big batch of 6 lattices, not
    MAX_GRID_Y + 3: 0.55 s, test_selfcheck.py's to check.)"""
    from gpu_xorder.engine import _selfcheck

    monkeypatch.setattr(_selfcheck, "BIG_BATCH", 6)
    cases = {**_problems(), **_tied_problems()}
    ran = 0
    for case in ("three score values", "one label per group (runs 1 x 1)",
                 "one label in a (runs 1 x k)", "one item in a"):
        s, y, g = cases[case]
        for metric in METRICS:
            if not _runs_metric(metric, y, g):
                continue
            for kw in (dict(lam=1e6), dict(lam=1e300), dict(lam=0.5, solver="lagrangian"),
                       dict(lam=1e15, solver="exact"), dict(max_disparity=0.05)):
                where = (case, metric, kw)
                try:
                    a = _fit(s, y, g, backend="numpy", metric=metric, **kw)
                except ValueError as exc:
                    with pytest.raises(ValueError, match=re.escape(str(exc))):
                        _fit(s, y, g, backend="cupy", metric=metric, **kw)
                    continue
                b = _fit(s, y, g, backend="cupy", metric=metric, **kw)
                np.testing.assert_array_equal(a.order, b.order, err_msg=str(where))
                assert (a.objective, a.upper_bound) == (b.objective, b.upper_bound), where
                ran += 1
    assert ran >= 30
    # XOrder on its lattice of tie runs (weighted rows), where label runs merge them
    s, y, g = _tie_run_problems(4)[3]
    for lam in (1e6, 1e300):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a, b = (XOrder(lam=lam, backend=backend).fit(s, y, sensitive_features=g)
                    for backend in ("numpy", "cupy"))
        np.testing.assert_array_equal(a.result_.order, b.result_.order)
        assert a.result_.upper_bound == b.result_.upper_bound
        np.testing.assert_array_equal(a.train_scores_adjusted_, b.train_scores_adjusted_)


def test_equal_items_in_another_input_order_give_the_same_ranking():
    """Items equal in score, label and group are interchangeable: shuffling the input
    gives the same ranking of (score, label, group) and the same objective and bound,
    every solver, weights to the cap (ties within a group all of one label: the label
    a function of group and score)."""
    rng = np.random.default_rng(2)
    s = np.round(rng.random(24), 1)
    g = np.repeat([0, 1], 12)
    y = (np.round(s * 10).astype(int) + g) % 2
    assert all(np.unique(y[g == k]).size == 2 for k in (0, 1))
    perm = rng.permutation(24)
    for metric in METRICS:
        for lam in (0.5, 1e6, 1e300):
            for solver in ("auto", "exact"):
                kw = dict(metric=metric, lam=lam, solver=solver, backend="numpy")
                a = _fit(s, y, g, **kw)
                b = _fit(s[perm], y[perm], g[perm], **kw)
                where = (metric, lam, solver)
                assert (a.objective, a.upper_bound) == (b.objective, b.upper_bound), where
                key_a = list(zip(s[a.order], y[a.order], g[a.order]))
                key_b = list(zip(s[perm][b.order], y[perm][b.order], g[perm][b.order]))
                assert key_a == key_b, where


# ---------------------------------------------------------------------- the polish

def test_moved_copies_of_degenerate_paths_are_paths():
    """``_polish.moved`` on the smallest paths (one item per group, one item against
    many, two runs only, alternating): a path with the same steps of each group, the
    input unchanged; ``polish`` of a candidate without a path or of one step returns
    it."""
    rng = np.random.default_rng(0)
    for path in ([0, 1], [1, 0], [0] + [1] * 9, [1] * 9 + [0], [0] * 5 + [1] * 5,
                 [0, 1] * 40, [1, 1, 0, 0] * 30):
        p = np.array(path, dtype=np.int8)
        before = p.copy()
        for _ in range(20):
            q = _polish.moved(p, rng)
            assert q.dtype == np.int8 and q.size == p.size
            assert (q == 0).sum() == (p == 0).sum()
            np.testing.assert_array_equal(p, before)
    s, y, g = _problems()["one item per group"]
    lat = cpu_reference.build_lattice(s, y, g, "urf", "absolute")
    c = candidate(lat, None, cpu_reference.fill(lat, 0.0)[1])
    assert _polish.polish(lat, 1e6, c) is c


def test_polish_with_the_compiled_relink_is_the_references():
    """The polish with numba's relink gives the reference relink's candidate, bit for
    bit, on tied scores at huge weights."""
    pytest.importorskip("numba")
    from gpu_xorder.engine._numba_relink import relink as compiled

    s, y, g = _tied_problems()["thirty and thirty"]
    for metric in METRICS:
        lat = cpu_reference.build_lattice(s, y, g, metric, "absolute")
        words, final = cpu_reference.fill(lat, 1e6)
        start = candidate(lat, cpu_reference.traceback(words, lat.n_a, lat.n_b), final)
        for lam in (1e6, 1e300):
            a = _polish.polish(lat, lam, start)
            b = _polish.polish(lat, lam, start, compiled)
            np.testing.assert_array_equal(a.path, b.path)
            assert (a.auc, a.d) == (b.auc, b.d)


# ---------------------------------------------------------------------- label runs

class _NoRuns(_solvers._RunFills):
    """Every signed fill on the lattice itself: the oracle."""

    def __init__(self, lat_signed, fills, finals, tally):
        super().__init__(lat_signed, fills, finals, tally)
        self.runs = None


@pytest.mark.parametrize("case", ["one item per group", "one label per group (runs 1 x 1)",
                                  "one label in a (runs 1 x k)", "one item in a"])
def test_signed_fills_on_degenerate_label_runs_keep_the_bound(case):
    """Where the lattice of label runs is 1 x 1, 1 x k or the lattice itself, the
    signed fills on it give every weight's ``S(mu)`` of the lattice's own fills, at
    weights from -1e300 to 1e300, and the expanded paths are paths of the lattice with
    their counters."""
    s, y, g = _problems()[case]
    for metric in METRICS:
        if not _runs_metric(metric, y, g):
            continue
        lat = cpu_reference.build_lattice(s, y, g, metric, "signed")
        sizes = cpu_reference.label_runs(lat)
        assert sizes[0].sum() == lat.n_a and sizes[1].sum() == lat.n_b
        assert (sizes[0] > 0).all() and (sizes[1] > 0).all()
        if case == "one label per group (runs 1 x 1)":
            assert (sizes[0].size, sizes[1].size) == (1, 1)
        weights = [-1e300, -1e6, -0.5, 1e-12, 0.5, 3.0, 1e15, 1e300]
        tally = _solvers.Tally()
        got = _solvers._RunFills(lat, reference_fills, reference_finals, tally)
        want = _NoRuns(lat, reference_fills, reference_finals, _solvers.Tally())
        for (path, final), (w_path, w_final), mu in zip(
                got.fills(lat, weights), want.fills(lat, weights), weights, strict=True):
            np.testing.assert_array_equal(cpu_reference.path_counters(lat, path), final)
            a, b = candidate(lat, path, final), candidate(lat, w_path, w_final)
            assert abs((a.auc - mu * a.d) - (b.auc - mu * b.d)) <= 1e-12 * max(1, abs(mu))
        for final, w_final in zip(got.finals(lat, weights), want.finals(lat, weights)):
            a, b = candidate(lat, None, final), candidate(lat, None, w_final)
            assert (a.auc, a.d) == (b.auc, b.d) or got.runs is not None
        assert tally.run_fills == (0 if got.runs is None else 2 * len(weights))


def test_rounding_slack_is_finite_and_grows_up_to_the_cap():
    """``_exact.rounding_slack`` at the cap of lam (1e300) and on the smallest lattice:
    finite, positive, growing with the weights and the lattice; without weights the
    slack of AUC's own rounding."""
    from gpu_xorder.core._exact import rounding_slack

    small = rounding_slack(1, 1, [])
    assert 0 < small < 1e-13
    previous = small
    for big in (1e-12, 1.0, 1e6, 1e15, 1e300):
        value = rounding_slack(1, 1, [-big, 0.0, big])
        assert np.isfinite(value) and value >= previous
        previous = value
    assert rounding_slack(2000, 2000, [1e300]) > rounding_slack(1, 1, [1e300])
    assert np.isfinite(rounding_slack(2000, 2000, [-1e300, 1e300]))


# ---------------------------------------------------------------------- the constrained solver

@pytest.mark.parametrize("case", _problems())
def test_the_constrained_solver_on_degenerate_inputs_against_brute_force(case):
    """``max_disparity`` from 0 to 1 on the degenerate problems: the ordering meets the
    limit (where any does; else the refusal names it), never beats the best AUC of the
    interleavings that meet it, its bound never below that, and the same twice."""
    s, y, g = _problems()[case]
    for metric in METRICS:
        if not _runs_metric(metric, y, g):
            continue
        auc, d = interleavings_auc_d(s, y, g, metric)
        for eps in (0.0, 1e-300, 0.01, 0.2, 1.0):
            feasible = np.abs(d) <= eps + 1e-12
            kw = dict(metric=metric, max_disparity=eps, backend="numpy")
            if not feasible.any():
                with pytest.raises(ValueError, match="^no ordering (found|has)"):
                    _fit(s, y, g, **kw)
                continue
            best = auc[feasible].max()
            try:
                r = _fit(s, y, g, **kw)
            except ValueError as exc:  # none found: only where none is that fair
                assert str(exc).startswith("no ordering")
                assert np.abs(d).min() > eps - 1e-12, (case, metric, eps)
                continue
            where = (case, metric, eps)
            again = _fit(s, y, g, **kw)
            np.testing.assert_array_equal(r.order, again.order)
            assert abs(r.disparity) <= eps + 1e-12, where
            assert r.auc <= best + 1e-12, where
            if r.upper_bound is not None:
                assert r.upper_bound >= best - 1e-12, where


# ---------------------------------------------------------------------- K groups

def test_three_groups_at_every_weight_are_deterministic_and_never_below_the_rule():
    """Three groups (one of a single item pair, one of every score tied), every
    metric, weights to the cap: the default runs, the same twice, never below the cell
    rule, the inputs unchanged."""
    rng = np.random.default_rng(4)
    g = np.r_[[0] * 2, [1] * 8, [2] * 10]
    s = np.r_[rng.random(2), np.full(8, 0.5), rng.random(10)]
    y = np.r_[1, 0, np.tile([0, 1], 4), np.tile([1, 0], 5)]
    for metric in METRICS:
        for lam in LAMS:
            kw = dict(metric=metric, lam=lam, backend="numpy")
            auto, again = _fit(s, y, g, **kw), _fit(s, y, g, **kw)
            paper = _fit(s, y, g, solver="paper", **kw)
            np.testing.assert_array_equal(auto.order, again.order)
            assert np.isfinite(auto.objective), (metric, lam)
            assert auto.objective >= paper.objective - _tol(lam), (metric, lam)


# ---------------------------------------------------------------------- estimators

def _small():
    s, y, g = _tied_problems()["three score values"]
    return s, y, np.array(["a", "b"])[g]


def test_a_path_at_extreme_weights_is_its_single_fits():
    """``xorder_path`` with 0, a tiny, a huge weight and the cap, repeated and out of
    order: every member is ``XOrder(lam=value).fit`` bit for bit (ordering, result,
    adjusted scores), with and without the exact solver's budget."""
    s, y, g = _small()
    lams = [1e300, 0.0, 1e-12, 1e6, 1e300, 0.5]
    for budget in (0.0, 2.0):
        path = xorder_path(s, y, sensitive_features=g, lams=lams, backend="numpy",
                           exact_budget=budget)
        for lam, member in zip(lams, path, strict=True):
            single = XOrder(lam=lam, backend="numpy", exact_budget=budget).fit(
                s, y, sensitive_features=g)
            np.testing.assert_array_equal(member.result_.order, single.result_.order)
            assert member.result_.objective == single.result_.objective, (lam, budget)
            assert member.result_.upper_bound == single.result_.upper_bound, (lam, budget)
            np.testing.assert_array_equal(member.train_scores_adjusted_,
                                          single.train_scores_adjusted_)


def test_a_held_out_choice_over_extreme_weights_runs_and_repeats():
    """``XOrder(validation=...)`` with the weight at the cap: the choice is made, the
    same twice, its table finite where the fits are."""
    s, y, g = _small()
    for metric in ("xauc", "urf"):
        kw = dict(lam=1e300, metric=metric, backend="numpy", validation=0.5)
        a = XOrder(**kw).fit(s, y, sensitive_features=g)
        b = XOrder(**kw).fit(s, y, sensitive_features=g)
        assert a.lam_ == b.lam_ and 0 <= a.lam_ <= 1e300
        np.testing.assert_array_equal(a.train_scores_adjusted_, b.train_scores_adjusted_)
        assert a.validation_ is not None


def test_fair_ranker_in_a_grid_search_over_extreme_weights_and_budgets():
    """``FairRanker`` in scikit-learn's ``GridSearchCV`` over lam from 0 to the cap and
    exact budgets 0 and 2: every candidate fits, the best is refitted, the search the
    same twice."""
    import sklearn
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV

    alternate = np.column_stack([np.arange(9), np.arange(9, 18)]).ravel()
    s, y, g = (np.tile(a[alternate], 2) for a in _small())  # both groups in each fold
    x = np.column_stack([s, g == "a"])

    def search():
        grid = GridSearchCV(FairRanker(LogisticRegression(), backend="numpy"),
                            {"lam": [0.0, 1e-12, 1e6, 1e300], "exact_budget": [0.0, 2.0]},
                            cv=2, error_score="raise")
        with warnings.catch_warnings(), sklearn.config_context(
                enable_metadata_routing=True):
            warnings.simplefilter("ignore")
            return grid.fit(x, y, sensitive_features=g)

    a, b = search(), search()
    assert a.best_params_ == b.best_params_
    np.testing.assert_array_equal(a.cv_results_["mean_test_score"],
                                  b.cv_results_["mean_test_score"])
    assert np.isfinite(a.cv_results_["mean_test_score"]).all()


# ---------------------------------------------------------------------- the plan

@pytest.mark.parametrize("budget", [0.0, 5e-324, 2.0])
def test_the_plan_counts_the_fills_of_the_search_that_runs(monkeypatch, budget):
    """The plan of ``solver="auto"`` (groups of 30 with a coarse start) counts the
    converged search exactly where the solve runs its search to the end (the exact
    solver fits the budget: the reason says it ran or was not needed), the short one
    elsewhere (budget 0, and a budget too small for the exact solver, where only the
    polish runs); the converged search takes more signed fills than the short one;
    ``XOrder.plan`` counts as ``fair_order``'s."""
    monkeypatch.setattr(_solvers, "COARSE_BLOCKS", 4)
    monkeypatch.setattr(_solvers, "COARSE_FINEST", 2)
    monkeypatch.setattr(_solvers, "COARSE_FACTOR", 2)
    s, y, g = _tied_problems()["thirty and thirty"]
    lams = [0.0, 1e6, 1e300]
    kw = dict(metric="xauc", backend="numpy")
    plan = fair_order(s, y, g, plan_only=True, lam=lams, exact_budget=budget, **kw)
    results = _fit(s, y, g, lam=lams, exact_budget=budget, **kw)
    short = _fit(s, y, g, lam=lams, exact_budget=0.0, **kw)
    fits_exact = _solvers.exact_fits(30, 30, budget, _solvers.fronts_for("numpy").cost)
    assert fits_exact == (budget == 2.0)
    per_lam = (_solvers.EXPECTED_CONVERGED_FILLS if fits_exact
               else _solvers.EXPECTED_AUTO_FILLS)
    assert plan.expected_fills == 1 + 2 * per_lam
    for r, s_r in zip(results[1:], short[1:]):
        reason = r.extra["solver_reason"]
        if budget == 0:
            assert reason.startswith("exact_budget=0"), reason
        elif fits_exact:
            assert "fits exact_budget" in reason or "proven" in reason, reason
            assert r.extra["signed_fills"] > s_r.extra["signed_fills"]
        else:
            assert "over exact_budget" in reason, reason
            assert r.extra["signed_fills"] == s_r.extra["signed_fills"]
    est = XOrder(lam=1e6, backend="numpy", exact_budget=budget, metric="xauc")
    assert est.plan(s, y, sensitive_features=g).expected_fills == per_lam


@pytest.mark.parametrize("kw", [
    dict(lam=[0.0, 1e-12, 1e6, 1e300]), dict(lam=1e300, solver="exact"),
    dict(lam=1e15, exact_budget=1e-9), dict(max_disparity=0.01),
    dict(lam=[1e6, 0.5], solver="lagrangian")], ids=str)
def test_progress_never_goes_back_nor_past_its_total(kw):
    """``progress`` of every solver at extreme weights (its fills on the lattice of
    label runs counted by their cells): done and the total never decrease before the
    last report, done never past the total, and the last report is ``(done, done)``
    (the search may take fewer fills than planned); with ``max_disparity`` never
    called (documented: its fills are not known in advance)."""
    s, y, g = _tied_problems()["thirty and thirty"]
    seen = []
    _fit(s, y, g, backend="numpy", metric="prf", progress=lambda d, t: seen.append((d, t)),
         **kw)
    if "max_disparity" in kw:
        assert seen == []
        return
    assert len(seen) > 2
    for (d0, t0), (d1, t1) in zip(seen[:-1], seen[1:-1]):
        assert d1 >= d0 and t1 >= t0, seen
    assert seen[-1][0] >= seen[-2][0]
    assert all(0 <= d <= t for d, t in seen), seen
    assert seen[-1][0] == seen[-1][1], seen


@pytest.mark.parametrize("budget", ["0", "1e-300", "2"])
def test_fit_plan_prints_the_fills_the_api_plans(monkeypatch, tmp_path, capsys,
                                                  plain_consoles, budget):
    """``gpu-xorder fit --plan --exact-budget`` prints the expected fills of
    ``fair_order``'s plan of the same data and budget (groups of 30 with a coarse
    start, where the budget decides between the short and the converged search), and
    writes nothing."""
    import csv

    from gpu_xorder.cli import main

    monkeypatch.setattr(_solvers, "COARSE_BLOCKS", 4)
    monkeypatch.setattr(_solvers, "COARSE_FINEST", 2)
    monkeypatch.setattr(_solvers, "COARSE_FACTOR", 2)
    s, y, g = _tied_problems()["thirty and thirty"]
    path = tmp_path / "data.csv"
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["score", "label", "group"])
        w.writerows(zip(s.tolist(), y.tolist(), np.array(["a", "b"])[g].tolist()))
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["fit", str(path), "--score", "score", "--label", "label", "--group",
                 "group", "--backend", "numpy", "--lam", "1e6", "--plan",
                 "--exact-budget", budget]) == 0
    out = capsys.readouterr().out
    plan = fair_order(s, y, np.array(["a", "b"])[g], lam=1e6, backend="numpy",
                      exact_budget=float(budget), plan_only=True)
    line = [ln for ln in out.splitlines() if ln.startswith("fills")]
    assert line == [f"fills    {plan.expected_fills} (expected)"], out
    assert plan.expected_fills == (_solvers.EXPECTED_CONVERGED_FILLS if budget == "2"
                                   else _solvers.EXPECTED_AUTO_FILLS)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_equal_sample_weights_of_any_scale_change_nothing_at_the_cap():
    """``XOrder.fit(sample_weight=...)`` at the cap of lam: equal weights of any scale
    give the unweighted fit bit for bit; unequal ones a ValueError."""
    s, y, g = _small()
    want = XOrder(lam=1e300, backend="numpy").fit(s, y, sensitive_features=g)
    for scale in (5e-324, 1e-300, 1.0, 1e300):
        got = XOrder(lam=1e300, backend="numpy").fit(
            s, y, sensitive_features=g, sample_weight=np.full(s.size, scale))
        np.testing.assert_array_equal(got.result_.order, want.result_.order)
        np.testing.assert_array_equal(got.train_scores_adjusted_,
                                      want.train_scores_adjusted_)
    with pytest.raises(ValueError):
        XOrder(lam=1e300, backend="numpy").fit(
            s, y, sensitive_features=g, sample_weight=np.r_[2.0, np.ones(s.size - 1)])


def _tie_run_problems(count):
    """``count`` two-group problems of scores in two to five values (runs of ties), both
    labels in both groups, every fourth of few label runs: ``[(scores, y, groups)]``."""
    rng = np.random.default_rng(23)
    out = []
    for k in range(count):
        n_a, n_b = int(rng.integers(2, 30)), int(rng.integers(2, 30))
        values = int(rng.integers(2, 6))
        s = np.round(rng.random(n_a + n_b) * (values - 1)) / (values - 1)
        g = np.r_[[0] * n_a, [1] * n_b]
        y = rng.integers(0, 2, n_a + n_b)
        y[[0, 1, n_a, n_a + 1]] = [1, 0, 1, 0]
        if k % 4 == 3:
            y = np.r_[[1] * (n_a - 1), 0, [0] * (n_b - 1), 1]
        out.append((s, y, g))
    return out


@pytest.mark.slow
def test_xorder_on_tie_runs_orders_its_solvers_and_engines_agree():
    """``XOrder`` places every run of equal scores whole (its lattice of tie runs:
    weighted rows, which the label runs, the polish and the exact solver then work
    on): on scores of two to five values, few label runs, weights to the cap, the cell
    rule <= the default <= its exact solver <= the exact optimum over the items; the
    default's bound at or above its exact solver's; numba's fits NumPy's bit for bit."""
    pytest.importorskip("numba")
    for k, (s, y, g) in enumerate(_tie_run_problems(9)):
        metric = METRICS[k % 3]
        for lam in (0.5, 1e6, 1e300):
            got = {}
            for solver in ("paper", "auto", "exact"):
                for backend in ("numpy", "numba"):
                    got[solver, backend] = XOrder(
                        lam=lam, metric=metric, solver=solver, backend=backend).fit(
                        s, y, sensitive_features=g).result_
            where = (k, metric, lam)
            items = _fit(s, y, g, lam=lam, metric=metric, solver="exact", backend="numpy")
            paper, auto, exact = (got[name, "numpy"] for name in ("paper", "auto", "exact"))
            tol = _tol(lam)
            assert paper.objective - tol <= auto.objective <= exact.objective + tol, where
            assert exact.objective <= items.objective + tol, where
            if auto.upper_bound is not None:
                assert auto.upper_bound >= exact.objective - tol, where
            for solver in ("paper", "auto", "exact"):
                a, b = got[solver, "numpy"], got[solver, "numba"]
                np.testing.assert_array_equal(a.order, b.order, err_msg=str(where))
                assert (a.objective, a.upper_bound) == (b.objective, b.upper_bound), where


@pytest.mark.parametrize("kw", [dict(lam=1e300), dict(max_disparity=0.01),
                                dict(lam=0.5, exact_budget=0.0)], ids=str)
@pytest.mark.parametrize("held", ["share", "data"])
def test_the_plan_of_a_held_out_choice_is_of_the_fits_it_runs(kw, held):
    """``XOrder(validation=...).plan`` plans what ``fit`` runs: the fits of every lam of
    ``VALIDATION_LAMS`` (no constraint) on the data the choice learns on (the training
    part of a share: its sizes), solved as the plan of that path
    (``XOrder(lam=[...]).plan``) solves them. It planned one fit at ``lam`` (lam 0 and
    the cell rule with ``max_disparity``, where the fit ran the exact solver at 11
    weights)."""
    from gpu_xorder.postprocessing._held_out import VALIDATION_LAMS

    s, y, g = _tied_problems()["thirty and thirty"]
    g = np.array(["a", "b"])[g]
    validation = 0.3 if held == "share" else (s[::2], y[::2], g[::2])
    est = XOrder(backend="numpy", validation=validation, **kw)
    plan = est.plan(s, y, sensitive_features=g)
    assert plan.lams == VALIDATION_LAMS
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert est.fit(s, y, sensitive_features=g).validation_["lams"] == list(plan.lams)
    assert plan.max_disparity is None
    path_plan = XOrder(lam=list(VALIDATION_LAMS), backend="numpy",
                       exact_budget=kw.get("exact_budget", 2.0)).plan(
        s, y, sensitive_features=g)
    assert plan.solvers == path_plan.solvers
    if held == "share":
        assert sum(plan.sizes) == s.size - int(np.ceil(0.3 * s.size))
    else:
        assert plan.sizes == path_plan.sizes
        assert plan.expected_fills == path_plan.expected_fills


def test_the_plan_of_a_held_out_choice_refuses_what_its_fit_refuses():
    """A sequence ``lam`` with ``validation``: the fit refuses it, and so does the plan
    (it planned the held-out choice)."""
    s, y, g = _small()
    est = XOrder(backend="numpy", lam=[0.5, 1.0], validation=0.3)
    for call in (est.fit, est.plan):
        with pytest.raises(ValueError, match="XOrder needs a single lam value, got a "
                                             "sequence of 2"):
            call(s, y, sensitive_features=g)


def _below_given():
    """Data whose learned orderings fall below the scores given (their scores tie items
    of different groups: half a pair each, which no ordering realises): every fit of
    them warns (``_promises.warn_unrealised``)."""
    return _tie_run_problems(7)[6]


def test_warnings_of_fits_below_the_scores_given_name_the_users_line():
    """The warning that a fit's adjusted scores fall below the scores given names the
    line of the user's call: of ``fit``, ``xorder_path`` and a held-out choice's fit
    (it named the line that called the user's function, or a line of the package)."""
    s, y, g = _below_given()
    est = XOrder(lam=1e6, backend="numpy")
    held = XOrder(lam=1e6, backend="numpy", validation=(s, y, g))
    faces = {  # each a call on one line: the line the warning must name
        "fit": lambda: est.fit(s, y, sensitive_features=g),
        "xorder_path": lambda: xorder_path(s, y, sensitive_features=g, lams=[1e6]),
        "fit with validation": lambda: held.fit(s, y, sensitive_features=g),
    }
    assert_warned_at_the_call(faces, "below the scores given")


def test_a_held_out_choice_warns_of_the_fit_it_keeps_only():
    """A held-out choice fits every lam of ``VALIDATION_LAMS`` to compare them: it warns
    that adjusted scores fall below the scores given once, of the model it keeps (held-
    out data given) or of its refit on all the data (a share), not of the ten fits it
    only compared (it warned of each); a path still warns of every model it returns."""
    from gpu_xorder.postprocessing._held_out import VALIDATION_LAMS

    s, y, g = _below_given()
    faces = {
        "validation data": lambda: XOrder(lam=1e6, backend="numpy",
                                          validation=(s, y, g)).fit(
            s, y, sensitive_features=g),
        "validation share": lambda: XOrder(lam=1e6, backend="numpy",
                                           validation=0.5).fit(
            np.tile(s, 2), np.tile(y, 2), sensitive_features=np.tile(g, 2)),
    }
    for name, face in faces.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            face()
        below = [w for w in caught if "below the scores given" in str(w.message)]
        assert len(below) == 1, (name, [str(w.message) for w in below])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        xorder_path(s, y, sensitive_features=g, lams=VALIDATION_LAMS[1:], backend="numpy")
    assert sum("below the scores given" in str(w.message) for w in caught) > 1


def test_the_signed_disparity_warning_names_the_users_line():
    """``disparity="signed"`` where the ordering widens ``|D|``: the warning names the
    user's call of ``fair_order``, ``XOrder.fit`` and ``xorder_path`` (it named
    ``core/_api.py`` and ``postprocessing/_fitted.py``)."""
    s = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
    y, g = np.tile([1, 0], 4), np.array([1, 1, 1, 0, 1, 0, 0, 0])
    est = XOrder(disparity="signed", lam=5.0, backend="numpy")
    faces = {  # each a call on one line: the line the warning must name
        "fair_order": lambda: fair_order(s, y, g, disparity="signed", lam=5.0),
        "XOrder.fit": lambda: est.fit(s, y, sensitive_features=g),
        "xorder_path": lambda: xorder_path(s, y, sensitive_features=g, lams=[5.0],
                                           disparity="signed"),
    }
    assert_warned_at_the_call(faces, "disparity='signed'")


def test_the_transfers_warning_names_the_users_line():
    """Adjusted scores with no room between neighbours (0.5 and the double below it):
    the transfer's warning names the user's call of ``fit`` and ``xorder_path`` (it
    named ``postprocessing/_fitted.py``), as the claim's warning after it does."""
    x = 0.5
    s = np.array([0.9, x, np.nextafter(x, 0), 0.1, 0.7, 0.45, 0.3, 0.2])
    y, g = np.array([1, 0, 0, 1, 0, 1, 0, 0]), np.array(list("aaaabbbb"))
    est = XOrder(lam=2.0, reference_group="a", backend="numpy")
    kw = dict(sensitive_features=g, reference_group="a", backend="numpy")
    faces = {  # each a call on one line: the line the warning must name
        "fit": lambda: est.fit(s, y, sensitive_features=g),
        "xorder_path": lambda: xorder_path(s, y, lams=[2.0], **kw),
    }
    assert_warned_at_the_call(faces, "share a value with a neighbour")
    assert_warned_at_the_call(faces, "result_ claims")


def test_the_backend_fallback_warning_names_the_users_line(monkeypatch):
    """``backend="auto"`` with a device whose engine cannot run: the fallback warning
    names the user's call of ``fair_order`` and ``XOrder.fit`` (it named
    ``core/_choice.py``)."""
    from gpu_xorder.engine import _backend

    s = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
    y, g = np.tile([1, 0], 4), np.array([1, 1, 1, 0, 1, 0, 0, 0])
    est = XOrder(lam=1.0)
    faces = {  # each a call on one line: the line the warning must name
        "fair_order": lambda: fair_order(s, y, g, lam=1.0),
        "XOrder.fit": lambda: est.fit(s, y, sensitive_features=g),
    }
    monkeypatch.setattr(_backend, "_probe", lambda: _backend._Probe(
        False, "a device the test made up", warn=True))
    assert_warned_at_the_call(faces, "not CuPy", _backend.BackendFallbackWarning)


@pytest.mark.parametrize("kw", [dict(lam=1e300), dict(lam=1e6, solver="exact"),
                                dict(max_disparity=0.01), dict(lam=1.0, validation=0.3)],
                         ids=str)
def test_read_only_inputs_every_face(kw):
    """Read-only arrays (a write into them raises) through every face at extreme
    weights, the exact solver (its polish), the constraint and a held-out choice:
    nothing written into them."""
    from sklearn.linear_model import LogisticRegression

    s, y, g = _small()
    x = np.column_stack([s, g == "a"])
    for a in (s, y, g, x):
        a.flags.writeable = False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if "validation" not in kw:
            fair_order(s, y, g, backend="numpy", **kw)
        model = XOrder(backend="numpy", **kw).fit(s, y, sensitive_features=g)
        model.transform(s, sensitive_features=g)
        model.plan(s, y, sensitive_features=g)
        if "lam" in kw and "validation" not in kw:
            xorder_path(s, y, sensitive_features=g, lams=[0.0, kw["lam"]], backend="numpy",
                        **{k: v for k, v in kw.items() if k != "lam"})
        FairRanker(LogisticRegression(), backend="numpy", **kw).fit(
            x, y, sensitive_features=g)
