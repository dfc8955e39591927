"""``solver="auto"``'s host shortcuts change no answer: the numba engine's session (each
lattice's kernel inputs built once, the host budget read once), the path states kept on
candidates for relinking, the block fill's own counters for coarse xAUC and PRF paths,
relink's sort by ``p`` alone, the search's vectorised slack. Each is checked against the
computation it replaces."""

import contextlib
import zlib

import numpy as np
import pytest

import cpu_reference as cr
from cpu_reference import _relink
from gpu_xorder import fair_order
from gpu_xorder.core import _candidates, _solvers
from gpu_xorder.engine import _plan
from support.problems import two_group_problem

METRICS = ("xauc", "prf", "urf")


def lexsorted(p, q, auc):
    """The order relink sorted by before: ``p`` descending, ``q`` descending, ``auc``
    descending, index."""
    return np.lexsort((np.arange(p.size), -auc, -q, -p))


def test_descending_is_the_lexsort_order():
    """Distinct ``p``, ties in ``p`` (broken by ``q``, then by AUC, then by index),
    signed zeros."""
    rng = np.random.default_rng(5)
    for trial in range(300):
        n = int(rng.integers(1, 200))
        if trial % 3 == 0:
            p, q = rng.normal(size=n), rng.normal(size=n)
        else:  # few values: ties in p, in q, in both
            p = rng.integers(-3, 4, n) / 7.0
            q = rng.integers(-2, 3, n) / 3.0
        if trial % 5 == 0:
            p[rng.random(n) < 0.3] = -0.0
        auc = rng.integers(0, 2, n) / 2.0
        np.testing.assert_array_equal(_relink._descending(p, q, auc),
                                      lexsorted(p, q, auc))


@pytest.mark.parametrize("metric", METRICS)
def test_relink_with_known_states_and_fast_sort_is_the_plain_relink(monkeypatch, metric):
    """``relink`` given the paths' states, with the fast sort, returns what it returns
    computing the states itself and sorting by ``np.lexsort`` (random interleavings:
    large fronts; scores with ties: ties in ``p``)."""
    rng = np.random.default_rng(zlib.crc32(metric.encode()))
    cases = []
    for trial in range(12):
        n_a, n_b = int(rng.integers(2, 60)), int(rng.integers(2, 60))
        s, y, g = two_group_problem(rng, n_a, n_b, ties=bool(trial % 2))
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        first, second = (rng.permutation(np.repeat(np.int8([0, 1]), [n_a, n_b]))
                         for _ in range(2))
        cases.append((lat, float(rng.choice([0.05, 0.5, 2.0])), first, second))
    fast = []
    for lat, lam, first, second in cases:
        states = (cr.path_states(lat, first), cr.path_states(lat, second))
        fast.append(cr.relink(lat, lam, first, second, states))
    monkeypatch.setattr(_relink, "_descending", lexsorted)
    for (lat, lam, first, second), (path, final) in zip(cases, fast):
        plain_path, plain_final = cr.relink(lat, lam, first, second)
        np.testing.assert_array_equal(path, plain_path)
        np.testing.assert_array_equal(final, plain_final)


def _model_minimum_with_slack(search, slack):
    """``_Search.model_minimum`` as written before, with the slack a callable."""
    a = np.array([c.auc for _, c in search.points] + [auc for auc, _ in search.lines])
    d = np.array([c.d for _, c in search.points] + [d for _, d in search.lines])
    mus = [search.lo, search.hi]
    if search.lo < 0 < search.hi:
        mus.append(0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        cross = (a[:, None] - a[None, :]) / (d[:, None] - d[None, :])
    cross = cross[np.isfinite(cross) & (cross > search.lo) & (cross < search.hi)]
    mus = np.concatenate((mus, cross))
    model = (a[None, :] - mus[:, None] * d[None, :]).max(axis=1)
    model += np.array([slack(mu) for mu in mus])
    k = int(np.argmin(model))
    return float(mus[k]), float(model[k])


@pytest.mark.parametrize("eps", [0.0, 0.013])
def test_search_slack_is_the_callable_slack(eps):
    """The search's slack ``|mu| eps`` as an array gives the model minimum and the bound
    the per-weight callable gave (``eps = 0``: the |D| objective; else a constraint)."""
    rng = np.random.default_rng(int(eps * 1000))
    for _ in range(50):
        lo, hi = sorted(rng.normal(size=2) * 2)
        if rng.random() < 0.5:
            lo, hi = -abs(hi), abs(hi)
        search = _solvers._Search(lo, hi, eps)
        for mu in rng.uniform(lo, hi, int(rng.integers(1, 12))):
            search.add(float(mu), _candidates.Candidate(None, np.zeros(2), rng.random(),
                                                     rng.normal() / 4, float(mu)))
        search.lines += [(rng.random(), rng.normal() / 4)
                         for _ in range(int(rng.integers(0, 6)))]
        slack = (lambda mu: abs(mu) * eps) if eps else (lambda mu: 0.0)
        assert search.model_minimum() == _model_minimum_with_slack(search, slack)
        values = [_candidates.signed_value(c, mu) + slack(mu) for mu, c in search.points]
        assert search.bound() == (min(values), search.points[int(np.argmin(values))][0])


def _plain(monkeypatch):
    """Every shortcut off: no session, path states recomputed at every relink (by the
    reference, not the compiled twin), every coarse path expanded to items as it is
    found, the reference relink (not numba's compiled twin) sorting by ``np.lexsort``.
    (A coarse path's counters are its block fill's, exact for every metric:
    ``test_solvers.py``'s block lattice tests.)"""
    from gpu_xorder.engine import _numba_engine

    coarse = _solvers._coarse

    def eager(lat_signed, *args):
        mu0, found = coarse(lat_signed, *args)
        return mu0, [_solvers._item_path(c, lat_signed.n_a, lat_signed.n_b)
                     for c in found]

    monkeypatch.setattr(_numba_engine, "session", contextlib.nullcontext)
    monkeypatch.setattr(_solvers, "_coarse", eager)
    monkeypatch.setattr(_solvers, "candidate_states",
                        lambda lat, cand, path_states=None: cr.path_states(lat, cand.path))
    monkeypatch.setattr(_relink, "_descending", lexsorted)
    monkeypatch.setattr(_solvers, "relink_for", lambda name: cr.relink)


def _answers(results):
    return [(r.order.tolist(), r.path.tolist(), r.objective, r.upper_bound, r.auc,
             r.disparity, r.solver, r.counters, r.extra) for r in results]


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("metric", METRICS)
def test_auto_answers_are_those_without_the_shortcuts(monkeypatch, metric, ties):
    """``solver="auto"`` on the numba engine, with a coarse start of two levels (blocks
    of 38 and 9 items of 300): orderings, objectives, bounds, counters and fill tallies
    at lam 0.05, 0.5, 2, for the path of the three, and under a constraint, identical
    with every shortcut on and off."""
    pytest.importorskip("numba")
    monkeypatch.setattr(_solvers, "COARSE_BLOCKS", 8)
    rng = np.random.default_rng(zlib.crc32(f"{metric}{ties}".encode()))
    s, y, g = two_group_problem(rng, 300, 280, ties=ties)
    calls = [{"lam": 0.05}, {"lam": 0.5}, {"lam": 2.0}, {"lam": [0.05, 0.5, 2.0]},
             {"max_disparity": 0.02}]

    def solve_all():
        out = []
        for kw in calls:
            res = fair_order(s, y, g, metric=metric, solver="auto", backend="numba",
                             exact_budget=0, **kw)  # the search's shortcuts
            out += _answers(res if isinstance(res, list) else [res])
        return out

    fast = solve_all()
    assert all(a[-1]["fills"]["coarse_fills"] > 0 for a in fast if "fills" in a[-1])
    _plain(monkeypatch)
    assert solve_all() == fast


def test_session_builds_inputs_once_and_reads_the_budget_once(monkeypatch):
    """Within one auto solve the numba engine builds the kernels' inputs once per
    lattice (the absolute, the signed, the coarse level's blocks) and reads the host's
    available memory once, however many fills it takes."""
    pytest.importorskip("numba")
    from gpu_xorder.engine import _numba_engine

    built, reads = [], []
    inputs = _numba_engine._Inputs

    class Counted(inputs):
        def __init__(self, lat):
            built.append(lat)
            super().__init__(lat)

    available = _plan.host_memory_available
    monkeypatch.setattr(_numba_engine, "_Inputs", Counted)
    monkeypatch.setattr(_plan, "host_memory_available",
                        lambda: reads.append(1) or available())
    monkeypatch.setattr(_solvers, "COARSE_BLOCKS", 8)
    s, y, g = two_group_problem(np.random.default_rng(3), 200, 200)
    res = fair_order(s, y, g, lam=0.5, solver="auto", backend="numba")
    fills = res.extra["fills"]
    assert fills["coarse_fills"] + fills["bit_fills"] + fills["final_fills"] > 8
    assert len(built) == len({id(lat) for lat in built}) <= 4
    assert len(reads) == 2  # the engine's, and the plan's (bands, the exact solver)


def test_long_paths_do_not_keep_their_states(monkeypatch):
    """States (48 bytes an item) are kept only for paths of at most
    ``STATES_KEPT_ITEMS`` items: a longer one's are recomputed, the same values."""
    rng = np.random.default_rng(3)
    s, y, g = two_group_problem(rng, 30, 20, ties=False)
    lat = cr.build_lattice(s, y, g, "xauc", "absolute")
    path = rng.permutation(np.repeat(np.array([0, 1], dtype=np.int8), [30, 20]))
    want = cr.path_states(lat, path)
    for cap, kept in ((50, True), (49, False)):
        monkeypatch.setattr(_candidates, "STATES_KEPT_ITEMS", cap)
        cand = _candidates.Candidate(path, np.zeros(2), 0.0, 0.0)
        got = _candidates.candidate_states(lat, cand)
        assert all(np.array_equal(a, b) for a, b in zip(got, want))
        assert (cand.states is not None) == kept
