"""Attacks on session 5's code: the compiled ``path_states`` and stretches of the
compiled relink (``engine._numba_relink``, twins of ``cpu_reference``'s), the states the
solvers keep by its twin (``core._candidates.states_for``) and the coarse start's paths
kept as block paths, expanded when needed (``core._solvers._CoarseCandidate``,
``_item_path``).

Oracles: ``cpu_reference`` (the same integers and paths, bit for bit), exact Python
integers, ``cpu_reference.expand_path`` and ``path_counters``, and the NumPy engine's
answers (``fair_order`` on numba against NumPy). The stale numba cache drop of the test
session is attacked in ``tests/test_numba_cache_drop.py``.
"""

import dataclasses
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cpu_reference as cr
from gpu_xorder import XOrder, fair_order
from gpu_xorder.core import _polish, _solvers
from gpu_xorder.core._candidates import Candidate, candidate, states_for
from support.oracles import reference_fills
from support.problems import two_group_problem
from support.properties import examples

METRICS = ("xauc", "prf", "urf")
LAMS = (0.0, 0.05, 0.7, 1e6)


@pytest.fixture(scope="module")
def nr():
    """The compiled relink (skipped without numba)."""
    return pytest.importorskip("gpu_xorder.engine._numba_relink")


def same(want, got):
    """Two tuples of arrays: equal values and dtypes."""
    for w, g in zip(want, got, strict=True):
        np.testing.assert_array_equal(g, w)
        assert g.dtype == w.dtype


def a_first(lat):
    return np.repeat(np.int8([0, 1]), [lat.n_a, lat.n_b])


def b_first(lat):
    return np.repeat(np.int8([1, 0]), [lat.n_b, lat.n_a])


def lattice(scores, y, g, metric, mode="absolute"):
    return cr.build_lattice(np.asarray(scores, float), np.asarray(y), np.asarray(g),
                            metric, mode)


# ------------------------------------------------------------------ the twin's integers

@pytest.mark.parametrize("metric", METRICS)
def test_every_interleaving_of_one_item_against_2000(nr, metric):
    """A one-item group against 2,000 tied items (either side): every one of the 2,001
    paths has the reference's states, and relinks of the extreme ones with paths
    that move the item by one step (the first and last steps among them) are the
    reference's."""
    y = np.tile([1, 0], 1000)
    for n_a, n_b, g in ((2000, 1, np.r_[np.zeros(2000, int), 1]),
                        (1, 2000, np.r_[0, np.ones(2000, int)])):
        lat = lattice(np.zeros(2001), np.r_[y, 0], g, metric)
        assert (lat.n_a, lat.n_b) == (n_a, n_b)
        odd = 1 if n_b == 1 else 0  # the one item's step
        paths = []
        for at in range(2001):
            path = np.full(2001, 1 - odd, dtype=np.int8)
            path[at] = odd
            same(cr.path_states(lat, path), nr.path_states(lat, path))
            paths.append(path)
        for first, second in ((paths[0], paths[1]), (paths[1], paths[0]),
                              (paths[-1], paths[-2]), (paths[-2], paths[-1]),
                              (paths[0], paths[-1]), (paths[1000], paths[1000])):
            for lam in LAMS:
                same(cr.relink(lat, lam, first, second),
                     nr.relink(lat, lam, first, second))


def degenerate_lattices():
    """``(name, lattice)``: one item per group, all scores tied, one label per group,
    groups of 600 and 3 items, a block lattice and a lattice of label runs of tied
    scores."""
    rng = np.random.default_rng(5)
    for metric in METRICS:
        yield f"1x1 {metric}", lattice([0.5, 0.5], [1, 0], [0, 1], metric)
        s, y, g = two_group_problem(rng, 40, 30)
        yield f"tied {metric}", lattice(np.zeros(70), y, g, metric)
        s, y, g = two_group_problem(rng, 600, 3, ties=True)
        lat = lattice(s, y, g, metric, "signed")
        yield f"600x3 {metric}", lat
        yield f"blocks {metric}", cr.block_lattice(lat, 8)
        yield f"runs {metric}", cr.merged_lattice(lat, *cr.label_runs(lat))
    yield "one label per group", lattice(np.r_[np.zeros(30), np.ones(20)],
                                         np.r_[np.ones(30), np.zeros(20)],
                                         np.r_[np.zeros(30), np.ones(20)], "urf")


def test_states_and_relinks_on_degenerate_lattices(nr):
    """The extreme paths, random ones, and pairs that differ at one cell (an a- and a
    b-step swapped, at every place they can be, the first and last steps included):
    the reference's states, and relinks of either order at every lam."""
    rng = np.random.default_rng(9)
    for _, lat in degenerate_lattices():
        base = rng.permutation(np.r_[np.zeros(lat.n_a, np.int8), np.ones(lat.n_b, np.int8)])
        pool = [a_first(lat), b_first(lat), base]
        for path in pool:
            same(cr.path_states(lat, path), nr.path_states(lat, path))
        swaps = np.flatnonzero(base[:-1] != base[1:])
        for t in swaps[np.linspace(0, swaps.size - 1, min(swaps.size, 12)).astype(int)]:
            moved = base.copy()
            moved[[t, t + 1]] = moved[[t + 1, t]]
            assert np.count_nonzero(moved != base) == 2  # one cell apart
            for lam in LAMS:
                same(cr.relink(lat, lam, base, moved), nr.relink(lat, lam, base, moved))
                same(cr.relink(lat, lam, moved, base), nr.relink(lat, lam, moved, base))
        for lam in LAMS:
            for first in pool:
                for second in pool:
                    same(cr.relink(lat, lam, first, second),
                         nr.relink(lat, lam, first, second))


@settings(max_examples=examples(40), deadline=None)
@given(n_a=st.integers(1, 40), n_b=st.integers(1, 40), metric=st.sampled_from(METRICS),
       mode=st.sampled_from(["absolute", "signed"]), ties=st.booleans(),
       runs=st.booleans(), near=st.integers(0, 3), seed=st.integers(0, 2**16),
       lam=st.sampled_from([0.0, 5e-324, 1e-9, 0.3, 1.0, 1e6, 1e300]))
def test_the_twin_is_the_reference_property(nr, n_a, n_b, metric, mode, ties, runs, near,
                                             seed, lam):
    """Random lattices (one-item groups, ties, either mode, merged label runs) and
    pairs of paths, the second ``near`` swaps of adjacent steps from the first (0: the
    same path) or random (3), lam from 0 to 1e300: the reference's states and relinks,
    with and without the states given."""
    rng = np.random.default_rng(seed)
    lat = lattice(*two_group_problem(rng, n_a, n_b, ties=ties), metric, mode)
    if runs:
        lat = cr.merged_lattice(lat, *cr.label_runs(lat))
    first = rng.permutation(a_first(lat))
    second = rng.permutation(first) if near == 3 else first.copy()
    for _ in range(near if near < 3 else 0):
        swaps = np.flatnonzero(second[:-1] != second[1:])
        t = swaps[rng.integers(swaps.size)]
        second[[t, t + 1]] = second[[t + 1, t]]
    states = (cr.path_states(lat, first), cr.path_states(lat, second))
    same(states[0], nr.path_states(lat, first))
    same(states[1], nr.path_states(lat, second))
    for given_states in ((None, None), states):
        same(cr.relink(lat, lam, first, second, given_states),
             nr.relink(lat, lam, first, second, given_states))


def exact_states(lat, path):
    """``path_states`` by Python integers (no overflow): the oracle at the limits."""
    ys, nla = [int(v) for v in lat.y_b_rev[:-1][::-1]], [int(v) for v in lat.negleft_a[0]]
    ya, nlb = [int(v) for v in lat.y_a], [int(v) for v in lat.negleft_b_rev[::-1]]
    ua, lb = [int(v) for v in lat.u_a], [int(v) for v in lat.left_b_rev[::-1]]
    ub, la = [int(v) for v in lat.u_b_rev[:-1][::-1]], [int(v) for v in lat.left_a[0]]
    urf = cr.COUNTER_KINDS[lat.metric].has_u
    state, i, j, out = [0, 0, 0], 0, 0, [[0, 0, 0]]
    for step in path:
        if step == 1:
            state = [state[0], state[1] + ys[j] * nla[i], state[2] - ub[j] * la[i]]
            j += 1
        else:
            state = [state[0] + ya[i] * nlb[j], state[1], state[2] + ua[i] * lb[j]]
            i += 1
        out.append(state)
    return [row[:3 if urf else 2] for row in out]


@pytest.mark.parametrize("metric", METRICS)
def test_states_near_the_int64_limit(nr, metric):
    """A lattice whose counts are scaled as if each item stood for 2**26 (the most
    items a problem may have): states near 2**61, exact (Python integers) and the
    reference's, and relinks the reference's."""
    rng = np.random.default_rng(2)
    s, y, g = two_group_problem(rng, 24, 17, ties=True)
    lat = lattice(s, y, g, metric)
    big = 2 ** 26
    lat = dataclasses.replace(lat, **{f: getattr(lat, f) * big for f in (
        "y_a", "negleft_a", "y_b_rev", "negleft_b_rev", "u_a", "u_b_rev", "left_a",
        "left_b_rev")})
    for path in (a_first(lat), b_first(lat), rng.permutation(a_first(lat))):
        states, _ = nr.path_states(lat, path)
        same(cr.path_states(lat, path), (states, _))
        exact = exact_states(lat, path)
        assert [[int(v) for v in col] for col in states.T] == exact
        assert max(abs(v) for row in exact for v in row) > 2 ** 56
    first, second = a_first(lat), b_first(lat)
    for lam in LAMS:
        same(cr.relink(lat, lam, first, second), nr.relink(lat, lam, first, second))


def test_steps_that_an_int8_cast_would_change_are_the_reference_steps(nr):
    """``cpu_reference.path_states`` takes a step for a b-step where it equals 1 and
    for an a-step otherwise; a twin that casts the path to int8 first reads 257 (and
    1.5) as 1: it must take the reference's steps."""
    rng = np.random.default_rng(12)
    lat = lattice(*two_group_problem(rng, 12, 9), "urf")
    path = rng.permutation(a_first(lat)).astype(np.int64)
    a_steps, b_steps = np.flatnonzero(path == 0), np.flatnonzero(path == 1)
    for odd in (257, -255, 1.5):
        p = path.astype(type(odd))
        p[a_steps[3]] = odd  # an a-step for the reference, 1 after an int8 cast
        p[b_steps[2]] = 0    # one b-step fewer: n_b steps equal 1 after the cast
        same(cr.path_states(lat, p), nr.path_states(lat, p))


@pytest.mark.parametrize("metric", METRICS)
def test_odd_arrays_give_the_reference_answer_and_stay_unchanged(nr, metric):
    """Paths as int64, bool, lists, strided views and read-only arrays; states given
    in Fortran order, as int32, read-only or as strided views: the reference's
    answers, and nothing passed in is modified."""
    rng = np.random.default_rng(4)
    s, y, g = two_group_problem(rng, 30, 22, ties=True)
    lat = lattice(s, y, g, metric)
    first = rng.permutation(a_first(lat))
    second = rng.permutation(a_first(lat))
    ro = first.copy()
    ro.flags.writeable = False
    paths = [first.astype(np.int64), first.astype(bool), first.tolist(),
             np.repeat(first, 2)[::2], ro]
    for path in paths:
        kept = np.array(path, copy=True)
        same(cr.path_states(lat, path), nr.path_states(lat, path))
        for lam in (0.05, 0.7):
            same(cr.relink(lat, lam, path, second), nr.relink(lat, lam, path, second))
            same(cr.relink(lat, lam, second, path), nr.relink(lat, lam, second, path))
        np.testing.assert_array_equal(np.asarray(path), kept)
    s1, s2 = cr.path_states(lat, first), cr.path_states(lat, second)

    def frozen(x):
        x = x.copy()
        x.flags.writeable = False
        return x

    def strided(x):
        return np.repeat(x, 2, axis=-1)[..., ::2]

    for change in (np.asfortranarray, lambda x: x.astype(np.int32), frozen, strided):
        states = (tuple(change(x) for x in s1), tuple(change(x) for x in s2))
        kept = [x.copy() for pair in states for x in pair]
        for lam in (0.05, 0.7):
            same(cr.relink(lat, lam, first, second, states),
                 nr.relink(lat, lam, first, second, states))
        for x, k in zip([x for pair in states for x in pair], kept):
            np.testing.assert_array_equal(x, k)


def test_paths_of_two_lattices_are_refused_as_by_the_reference(nr):
    """States of a path of another lattice (other sizes): the reference refuses them
    (``ValueError``: the rows do not broadcast); its compiled twin must not read past
    the shorter path's rows and answer."""
    rng = np.random.default_rng(6)
    lat = lattice(*two_group_problem(rng, 20, 15), "xauc")
    small = lattice(*two_group_problem(rng, 4, 3), "xauc")
    first, other = a_first(lat), b_first(small)
    for states in ((None, cr.path_states(small, other)), (cr.path_states(small, other), None)):
        with pytest.raises(ValueError):
            cr.relink(lat, 0.5, first, first, states)
        with pytest.raises(ValueError, match="not paths of one lattice"):
            nr.relink(lat, 0.5, first, first, states)
    with pytest.raises(ValueError):
        cr.relink(lat, 0.5, first, other)
    with pytest.raises(ValueError):
        nr.relink(lat, 0.5, first, other)


def test_states_for_any_relink(nr):
    """``states_for``: the compiled twin's ``path_states`` for the compiled relink, the
    reference's for the reference's and for any other callable."""
    assert states_for(nr.relink) is nr.path_states
    assert states_for(cr.relink) is cr.path_states
    assert states_for(lambda *a: None) is cr.path_states


@pytest.mark.parametrize("metric", METRICS)
def test_polish_with_the_compiled_states_is_the_references(nr, metric):
    """The polish (moved copies' states by ``states_for``, the kept candidate's by
    ``candidate_states``) with the compiled relink and with the reference's, from the
    cell rule's ordering on tied scores: the same ordering, counters and states kept."""
    rng = np.random.default_rng(30 + len(metric))
    s, y, g = two_group_problem(rng, 70, 55, ties=True)
    lat = lattice(s, y, g, metric)
    gained = 0
    for lam in (0.05, 0.7, 1e6):
        (path, final), = reference_fills(lat, [lam])
        got = [_polish.polish(lat, lam, candidate(lat, path, final), relink)
               for relink in (cr.relink, nr.relink)]
        np.testing.assert_array_equal(got[1].path, got[0].path)
        np.testing.assert_array_equal(got[1].final, got[0].final)
        assert (got[1].auc, got[1].d) == (got[0].auc, got[0].d)
        gained += not np.array_equal(got[0].path, path)
        for c in got:
            if c.states is not None:
                same(cr.path_states(lat, c.path), c.states)
    assert gained  # the polish moved something: the relinks were tried on real stretches


# ------------------------------------------------------------------ the coarse start

@pytest.mark.parametrize("metric", METRICS)
def test_coarse_candidates_are_their_item_paths(metric):
    """Every candidate of the coarse start (groups of 500 and 40: levels of 8 items per
    block) is the item path of its block path: ``_item_path`` expands it once
    (``cpu_reference.expand_path``), its counters are that path's, and its ``auc`` and
    ``d`` (from the block lattice) are the item lattice's, bit for bit; any other
    candidate passes unchanged."""
    rng = np.random.default_rng(len(metric))
    s, y, g = two_group_problem(rng, 500, 40, ties=metric == "prf")
    lat = lattice(s, y, g, metric)
    signed = dataclasses.replace(lat, mode="signed")
    hi = 0.7
    mu0, found = _solvers._coarse(signed, hi, reference_fills, _solvers._Search(-hi, hi),
                                  _solvers.Tally())
    assert mu0 is not None and len(found) >= 2
    for c in found:
        assert isinstance(c, _solvers._CoarseCandidate) and c.path is None
        out = _solvers._item_path(c, lat.n_a, lat.n_b)
        assert out is c
        path = c.path
        np.testing.assert_array_equal(path, cr.expand_path(c.block_path, c.k, lat.n_a,
                                                           lat.n_b))
        assert path.dtype == np.int8 and path.size == lat.n_a + lat.n_b
        np.testing.assert_array_equal(cr.path_counters(lat, path), c.final)
        exact = candidate(signed, path, c.final)
        assert (exact.auc, exact.d) == (c.auc, c.d)
        assert _solvers._item_path(c, lat.n_a, lat.n_b).path is path  # once
    plain = Candidate(None, found[0].final, 0.0, 0.0)
    assert _solvers._item_path(plain, lat.n_a, lat.n_b) is plain and plain.path is None


# ------------------------------------------------------------------ the public answers

def assert_same_answers(want, got):
    for a, b in zip(want, got, strict=True):
        np.testing.assert_array_equal(a.order, b.order)
        assert a.counters == b.counters
        assert (a.auc, a.disparity, a.objective, a.upper_bound, a.solver) == (
            b.auc, b.disparity, b.objective, b.upper_bound, b.solver)
        assert {k: v for k, v in a.extra.items() if k != "solver_reason"} == (
            {k: v for k, v in b.extra.items() if k != "solver_reason"})


def public_cases():
    """``(name, scores, y, groups, metrics, solvers)``: data where the coarse start runs
    (``coarse_levels``: a group of at least 449 items), with ties and
    degenerate groups; the exact solver where NumPy's fronts are quick."""
    rng = np.random.default_rng(21)
    y = np.tile([1, 0], 1000)
    tied = np.zeros(2002), np.r_[y, 1, 0], np.r_[np.zeros(2000, int), 1, 1]
    yield ("2000 tied vs 2", *tied, METRICS, ("lagrangian", "auto"))
    yield ("2000 tied vs 2, exact", *tied, ("xauc",), ("exact",))
    yield ("1 vs 2000 tied", np.zeros(2001), np.r_[1, y], np.r_[0, np.ones(2000, int)],
           ("prf", "urf"), ("lagrangian", "auto"))
    yield ("one label per group", np.r_[np.zeros(300), np.ones(500)],
           np.r_[np.ones(300, int), np.zeros(500, int)],
           np.r_[np.zeros(300, int), np.ones(500, int)], ("urf",), ("lagrangian", "auto"))
    s, y, g = two_group_problem(rng, 460, 60)
    yield "460 vs 60", s, y, g, METRICS, ("lagrangian", "auto")
    yield "460 vs 60, exact", s, y, g, ("prf",), ("exact",)  # the polish runs too
    s, y, g = two_group_problem(rng, 480, 90, ties=True)
    yield "480 vs 90, 4 scores", s, y, g, METRICS, ("lagrangian", "auto")


@pytest.mark.parametrize("case", list(public_cases()), ids=lambda c: c[0])
def test_numba_answers_are_numpys_with_the_coarse_start(nr, case):
    """``fair_order`` on numba (the compiled relink, its states, the coarse paths
    expanded when needed) against NumPy (the reference's relink) on tied and degenerate
    data, every metric, a sequence of lam sharing one search: the same orderings,
    values, bounds, solvers and records. ``"auto"`` with ``exact_budget=0`` (the search
    alone: the engines' cost models differ, so the exact solver's reach does)."""
    name, s, y, g, metrics, solvers = case
    lams = [1.0, 0.0, 0.05, 1e6, 0.05]  # out of order, one twice
    assert _solvers.coarse_levels(max(np.bincount(g)))  # at least 449 items
    for metric in metrics:
        for solver in solvers:
            kw = {"exact_budget": 0} if solver == "auto" else {}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = fair_order(s, y, g, metric=metric, lam=lams, solver=solver,
                                  backend="numpy", **kw)
                got = fair_order(s, y, g, metric=metric, lam=lams, solver=solver,
                                 backend="numba", **kw)
            assert want[1].extra["fills"]["coarse_fills"] > 0, (name, metric, solver)
            assert_same_answers(want, got)


def test_xorder_on_numba_is_numpys_and_leaves_the_inputs(nr):
    """``XOrder`` fitted on read-only, strided, float32 / bool / int8 inputs: the same
    ranks on both engines, and the arrays as they were."""
    rng = np.random.default_rng(8)
    s, y, g = two_group_problem(rng, 470, 50, ties=True)
    arrays = [np.repeat(s.astype(np.float32), 2)[::2], y.astype(bool), g.astype(np.int8)]
    for x in arrays[1:]:
        x.flags.writeable = False
    kept = [x.copy() for x in arrays]
    out = []
    for backend in ("numpy", "numba"):
        with warnings.catch_warnings():  # the tied scores' note on the training AUC
            warnings.simplefilter("ignore", UserWarning)
            est = XOrder(lam=0.3, backend=backend, exact_budget=0).fit(
                arrays[0], arrays[1], sensitive_features=arrays[2])
        out.append(est.transform(arrays[0], sensitive_features=arrays[2]))
    np.testing.assert_array_equal(out[0], out[1])
    for x, k in zip(arrays, kept):
        np.testing.assert_array_equal(x, k)
        assert x.dtype == k.dtype


@pytest.mark.parametrize("bad, error", [
    (dict(lam=float("nan")), ValueError), (dict(lam=float("inf")), ValueError),
    (dict(lam=-0.5), ValueError), (dict(lam=[0.5, float("nan")]), ValueError),
    (dict(lam="0.5"), TypeError), (dict(scores_nan=True), ValueError),
    (dict(y_two=True), ValueError)])
def test_bad_input_on_numba_is_a_clear_error(nr, bad, error):
    """Bad values reach no compiled function: the NumPy engine's error, by type and
    message."""
    rng = np.random.default_rng(1)
    s, y, g = two_group_problem(rng, 460, 12)
    bad = dict(bad)
    if bad.pop("scores_nan", False):
        s[7] = np.nan
    if bad.pop("y_two", False):
        y[3] = 2
    messages = []
    for backend in ("numpy", "numba"):
        with pytest.raises(error) as info:
            fair_order(s, y, g, backend=backend, **{"lam": 0.5, **bad})
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_banded_fills_with_the_coarse_start_keep_the_answers(nr):
    """Bits over ``memory_limit``: the lattice filled in bands (the block lattices of
    the coarse start whole), on both engines: the answers of the whole fills, and
    ``fair_order``'s inputs as they were (read-only, strided, float32, bool, int8)."""
    rng = np.random.default_rng(21)
    s, y, g = two_group_problem(rng, 700, 500)
    args = [np.repeat(s.astype(np.float32), 2)[::2], y.astype(bool), g.astype(np.int8)]
    for x in args:
        x.flags.writeable = False
    kept = [x.copy() for x in args]
    limit = cr.n_words(700, 500) * 4 * 3 // 4  # the whole lattice's bits do not fit
    lams = [0.05, 1.0]
    want = fair_order(*args, lam=lams, exact_budget=0, backend="numpy")
    for backend in ("numpy", "numba"):
        got = fair_order(*args, lam=lams, exact_budget=0, backend=backend,
                         memory_limit=limit)
        assert got[0].extra["bands"] > 1 and got[0].extra["fills"]["coarse_fills"] > 0
        for a, b in zip(want, got, strict=True):
            np.testing.assert_array_equal(a.order, b.order)
            assert (a.objective, a.upper_bound, a.counters) == (
                b.objective, b.upper_bound, b.counters)
    for x, k in zip(args, kept):
        np.testing.assert_array_equal(x, k)
