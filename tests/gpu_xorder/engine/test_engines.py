"""Every engine equals the NumPy reference, decision for decision: one test per
property, run by the fixtures of tests/conftest.py on each engine (``engine``: NumPy,
numba, the emulated device, a real one; ``compiled_engine``: all but NumPy, where the
reference itself would be the answer).

Oracles: ``cpu_reference`` (``fill``, ``traceback``, ``solve_kd``, ``solve_iterative``),
itself checked cell by cell and by enumeration in tests/cpu_reference/; the NumPy
engine's ``fair_order`` end to end; the golden digests of release 0.3. On a real device
some tests add larger inputs (``Engine.device``). What only one engine has (numba's
threads, the kernels' tile widths, strips and grids, the emulated device's memory and
launches) is tested in that engine's own file.
"""


import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cpu_reference as cr
from gpu_xorder import fair_order
from support import golden
from support.engines import estimate_out
from support.problems import (
    lattices,
    ragged_lattices,
    random_problem,
    step_lattices,
    two_group_problem,
)
from support.properties import examples

METRICS = ("xauc", "prf", "urf")
MODES = ("absolute", "signed")
LAMS = [0.0, 0.3, 1.7, 40.0]

#: One item or two in a group, and lattices taller or wider than numba's 128-row strips.
EDGE_SHAPES = [(300, 7, True), (2, 260, True), (260, 2, True), (1, 40, True), (40, 1, True)]
#: Larger lattices, on a real device only.
DEVICE_SHAPES = [(200, 317, False), (200, 317, True), (1000, 1000, False)]


_ONCE = {}


def once(key, compute):
    """``compute()`` once per session: the inputs and the reference's (or the NumPy
    engine's) results that every engine of a test is compared with."""
    if key not in _ONCE:
        _ONCE[key] = compute()
    return _ONCE[key]


def with_fills(lats, lams):
    """``[(lattice, [reference fill with its last row, per lam]), ...]``."""
    return [(lat, [cr.fill(lat, lam, bottom=True) for lam in lams]) for lat in lats]


def with_solutions(lats, lams):
    """``[(lattice, [reference (path, final), per lam]), ...]``."""
    out = []
    for lat in lats:
        fills = [cr.fill(lat, lam) for lam in lams]
        out.append((lat, [(cr.traceback(words, lat.n_a, lat.n_b), final)
                          for words, final in fills]))
    return out


def assert_fills(want, fills):
    """``Engine.fill_words``'s words, final counters and last rows (where the engine
    returns them) equal the reference's fills ``want``, one per lam."""
    words, finals, lasts = fills
    assert len(words) == len(finals) == len(want)
    for b, (want_words, want_final, want_last) in enumerate(want):
        np.testing.assert_array_equal(words[b], want_words)
        np.testing.assert_array_equal(finals[b], want_final)
        if lasts is not None:
            np.testing.assert_array_equal(lasts[b], want_last)


def assert_solutions(want, solutions):
    """``solve``'s paths and final counters equal the reference's ``want``."""
    assert len(solutions) == len(want)
    for (path, final), (want_path, want_final) in zip(solutions, want):
        np.testing.assert_array_equal(path, want_path)
        np.testing.assert_array_equal(final, want_final)


# ------------------------------------------------------------------ 2-D fills

@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("mode", MODES)
def test_fill_equals_reference(compiled_engine, metric, mode):
    """Decision words, final counters and last rows of a lam batch (lam 0 and large
    among them): ragged shapes (one-item groups, rows about multiples of 32, one row or
    column of a group), distinct scores and ties inside and across groups."""
    seed = len(metric) * 3 + len(mode)
    shapes = EDGE_SHAPES + (DEVICE_SHAPES if compiled_engine.device else [])
    cases = once(("fill", metric, mode, compiled_engine.device), lambda: with_fills(
        [*ragged_lattices(metric, mode, seed),
         *lattices(np.random.default_rng(seed), shapes, metric, mode)], LAMS))
    for lat, want in cases:
        assert_fills(want, compiled_engine.fill_words(lat, LAMS))


@settings(max_examples=examples(25), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n_a=st.integers(1, 80), n_b=st.integers(1, 80), ties=st.booleans(),
       metric=st.sampled_from(METRICS), mode=st.sampled_from(MODES),
       lam=st.sampled_from([0.0, 0.05, 0.7, 3.0]), seed=st.integers(0, 2**16))
def test_fill_random_shapes(compiled_engine, n_a, n_b, ties, metric, mode, lam, seed):
    if metric != "urf":
        n_a, n_b = max(n_a, 2), max(n_b, 2)
    s, y, g = two_group_problem(np.random.default_rng(seed), n_a, n_b, ties)
    lat = cr.build_lattice(s, y, g, metric, mode)
    (_, want), = with_fills([lat], [lam])
    assert_fills(want, compiled_engine.fill_words(lat, [lam]))


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("mode", MODES)
def test_exact_ties_in_every_cell(compiled_engine, metric, mode):
    """Equal G-hat everywhere, where the tie rule alone decides: all scores equal, and
    long runs of negatives over six score values, at lam 0 and 1."""
    s, y, g = two_group_problem(np.random.default_rng(3), 45, 38)
    cases = [(np.zeros_like(s), y, g)]
    n = 600 if compiled_engine.device else 120
    rng = np.random.default_rng(5)
    s = np.repeat(np.arange(6.0), n // 6 * 2)[:2 * n]
    y = np.zeros(2 * n, dtype=int)
    y[::97] = 1
    g = np.tile([0, 1], n)
    rng.shuffle(g)
    for k in (0, 1):
        idx = np.flatnonzero(g == k)
        y[idx[0]], y[idx[-1]] = 1, 0
    cases.append((s, y, g))
    lats = [cr.build_lattice(s, y, g, metric, mode) for s, y, g in cases]
    for lat, want in with_fills(lats, [0.0, 1.0]):
        assert_fills(want, compiled_engine.fill_words(lat, [0.0, 1.0]))


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("mode", MODES)
def test_solve_equals_reference(engine, metric, mode):
    """``solve``: the paths and final counters of a lam batch, whole lattices (the
    memory is plenty)."""
    lams = [0.0, 1.7]
    cases = once(("solve", metric, mode), lambda: with_solutions(
        ragged_lattices(metric, mode, 4 + len(metric) + len(mode)), lams))
    for lat, want in cases:
        solutions, band_rows = engine.solve(lat, lams)
        assert band_rows is None
        assert_solutions(want, solutions)


@pytest.mark.parametrize("metric", METRICS)
def test_final_counters_equal_reference(engine, metric):
    """``final_counters``, the solvers' fills without decision bits."""
    cases = once(("final", metric), lambda: [
        (lat, [cr.fill(lat, lam, bits=False)[1] for lam in LAMS])
        for lat in ragged_lattices(metric, "absolute", 11)])
    for lat, want in cases:
        got = engine.final_counters(lat, LAMS)
        assert got.shape == (len(LAMS), lat.n_counters) and got.dtype == np.int64
        np.testing.assert_array_equal(got, np.stack(want))


# ------------------------------------------------------------------ bands of rows

@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("mode", MODES)
def test_solve_in_bands_equals_reference(engine, metric, mode):
    """A ``memory_limit`` under one lattice's bits: bands of rows with counter
    checkpoints give the whole lattice's paths and counters. A tall lattice, where the
    CPU engines' checkpoint rows are short; wider ones on a device."""
    shapes = [(1500, 30, True, 256)]
    if engine.device:
        shapes += [(300, 257, False, 64), (1000, 3000, False, 256)]
    lams = [0.0, 1.7]

    def cases():
        rng = np.random.default_rng(len(metric) + 7 * len(mode))
        lats = [cr.build_lattice(*two_group_problem(rng, n_a, n_b, ties), metric, mode)
                for n_a, n_b, ties, _ in shapes]
        return with_solutions(lats, lams)

    for (lat, want), (*_, rows) in zip(once(("bands", metric, mode, engine.device), cases),
                                       shapes, strict=True):
        limit = engine.band_limit(lat, len(lams), rows)
        solutions, band_rows = engine.solve(lat, lams, memory_limit=limit)
        assert band_rows is not None and band_rows % 32 == 0 and band_rows < lat.n_a
        if engine.on_cupy:  # checkpoints on the host: the bits alone decide
            assert band_rows == rows
        assert_solutions(want, solutions)


@pytest.mark.parametrize("metric", METRICS)
def test_iterative_steps_in_bands_equal_reference(engine, metric):
    """Steps of iterative xOrder (M = 1, 2 old groups) whose bits exceed the memory
    limit: the banded solve of the step lattice."""
    banded = 0
    cases = once(("step bands", metric), lambda: with_solutions(
        step_lattices(metric, (600, 400, 6), True, 0.5), [0.5]))
    for lat, want in cases:
        bits = cr.n_words(lat.n_a, lat.n_b) * 4
        limit = engine.band_limit(lat, 1, 256)
        if limit >= bits:
            continue  # the checkpoints would cost more than the bits
        solutions, band_rows = engine.solve(lat, [0.5], memory_limit=limit)
        assert band_rows is not None and band_rows < lat.n_a
        assert_solutions(want, solutions)
        banded += 1
    assert banded == (2 if engine.on_cupy else 1 + (metric != "urf"))


def test_memory_limit_below_any_band_is_a_memory_error(engine):
    s, y, g = two_group_problem(np.random.default_rng(2), 70, 90)
    lat = cr.build_lattice(s, y, g, "xauc", "absolute")
    with pytest.raises(MemoryError, match="subsample"):
        engine.solve(lat, [0.5], memory_limit=100)


# ------------------------------------------------------------------ more than two groups

#: Groups of the K-D tests (every cell of the K-D lattice is filled: small).
KD_SIZES = [(5, 4, 6), (2, 9, 3, 4), (12, 9, 15, 7)]
#: Groups of iterative xOrder: M = 1 .. 5 old groups.
ITERATIVE_SIZES = [(5, 3, 4), (9, 2, 6, 4), (40, 33, 7), (3, 2, 2, 2, 2),
                   (20, 15, 12, 9, 30, 7), (31, 8)]
DEVICE_KD_SIZES = [(40, 33, 50), (60, 45, 70)]
DEVICE_ITERATIVE_SIZES = [(300, 200, 100, 50, 25), (64,) * 6, (700, 650, 20)]


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("method", ["kd", "iterative"])
def test_solve_multi_equals_reference(compiled_engine, metric, method):
    """K-D and iterative xOrder: paths, counters (and merge order) of
    ``cpu_reference.solve_kd`` and ``solve_iterative``; ties and lam 0 included, both
    modes for two groups."""
    if method == "kd":
        sizes_list = KD_SIZES + (DEVICE_KD_SIZES if compiled_engine.device else [])
    else:
        sizes_list = ITERATIVE_SIZES + (
            DEVICE_ITERATIVE_SIZES if compiled_engine.device else [])
    reference = cr.solve_kd if method == "kd" else cr.solve_iterative

    def cases():
        rng = np.random.default_rng(len(metric) * 3 + len(method))
        out = []
        for sizes in sizes_list:
            for ties in (False, True):
                s, y, g = random_problem(rng, sizes, metric, ties)
                for mode in MODES if len(sizes) == 2 else ("absolute",):
                    prob = cr.build_problem(s, y, g, len(sizes), metric, mode)
                    out += [(prob, lam, reference(prob, lam)) for lam in (0.0, 0.5)]
        return out

    for prob, lam, want in once(("multi", metric, method, compiled_engine.device), cases):
        got = compiled_engine.solve_multi(prob, lam, method)
        np.testing.assert_array_equal(got[0], want[0])
        assert (got[1], got[2]) == (want[1], want[2])
        assert got[4:] == want[4:]  # iterative: the merge order


@pytest.mark.parametrize("metric", METRICS)
def test_iterative_step_words_equal_reference(compiled_engine, metric):
    """Every step of iterative xOrder (M = 1 .. 5 old groups), ties and lam 0: the
    decision words, final counters and last rows of the reference's fill of the step
    lattice."""
    sizes_list = ITERATIVE_SIZES + (
        DEVICE_ITERATIVE_SIZES if compiled_engine.device else [])

    def cases():
        return [(lam, with_fills(step_lattices(metric, sizes, ties, lam), [lam]))
                for sizes in sizes_list for ties in (False, True) for lam in (0.0, 0.6)]

    for lam, steps in once(("steps", metric, compiled_engine.device), cases):
        for lat, want in steps:
            assert_fills(want, compiled_engine.fill_words(lat, [lam]))


# ------------------------------------------------------------------ fair_order end to end

def assert_same_results(want, got, backend):
    """``fair_order``'s results of two engines: the same orderings, counters, values,
    solver records; ``got`` says which engine ran."""
    for a, b in zip(want, got, strict=True):
        np.testing.assert_array_equal(a.order, b.order)
        assert a.counters == b.counters
        assert (a.auc, a.disparity, a.objective, a.upper_bound) == (
            b.auc, b.disparity, b.objective, b.upper_bound)
        # the exact solver's estimate is its engine's cost model's (compiled fronts on
        # numba and CuPy, NumPy's otherwise): the reason quotes it, all else is equal
        assert (a.method, a.solver, estimate_out(a.extra)) == (
            b.method, b.solver, estimate_out(b.extra))
        assert b.backend == backend


@pytest.mark.parametrize("metric", METRICS)
def test_fair_order_equals_numpy(compiled_engine, metric):
    """``fair_order(backend=...)`` gives NumPy's results: two groups under the cell
    rule (for xAUC also the default solver, for URF the signed mode, method="kd" and
    "iterative"); four groups by K-D and iterative xOrder."""
    rng = np.random.default_rng(33 + len(metric))
    s, y, g = two_group_problem(rng, 70, 50)
    kws = [dict(solver="paper")]
    if metric == "xauc":  # the default solver's searches (fills without bits too)
        kws.append(dict())
    if metric == "urf":
        kws += [dict(disparity="signed", solver="paper"), dict(method="kd", solver="paper"),
                dict(method="iterative")]
    runs = [((s, y, g), dict(lam=[0.0, 0.3, 2.0], **kw)) for kw in kws]
    four = random_problem(rng, (12, 9, 15, 7), metric, True)
    runs += [(four, dict(lam=[0.0, 2.0], method=method)) for method in ("kd", "iterative")]
    for k, (args, kw) in enumerate(runs):
        want = once(("fair_order", metric, k), lambda args=args, kw=kw: fair_order(
            *args, metric=metric, backend="numpy", **kw))
        got = fair_order(*args, metric=metric, backend=compiled_engine.backend, **kw)
        assert_same_results(want, got, compiled_engine.backend)


@pytest.mark.parametrize("metric", METRICS)
def test_fair_order_in_bands_equals_whole(engine, metric):
    """``memory_limit`` under the lattice's bits: the banded solve gives the results of
    NumPy's whole lattices, under the default solver's many fills (xAUC) and the cell
    rule; the bands are recorded."""
    rng = np.random.default_rng(6)
    n = 1200  # a tall lattice: short checkpoint rows
    s = rng.random(n)
    y, g = (rng.random(n) < s).astype(int), np.where(rng.random(n) < 0.85, "f", "m")
    lams = [0.0, 0.5, 3.0]
    solver = "auto" if metric == "xauc" else "paper"
    # the search alone (exact_budget=0): the exact solver's fronts share the memory
    # limit, which refuses them in the banded solve where the whole one has room
    want = once(("whole", metric), lambda: fair_order(
        s, y, g, metric=metric, lam=lams, backend="numpy", solver=solver,
        exact_budget=0))
    assert all("bands" not in r.extra for r in want)
    n_a, n_b = (g == "f").sum(), (g == "m").sum()
    limit = cr.n_words(n_a, n_b) * 4 * 3 // 4  # the whole lattice's bits do not fit
    got = fair_order(s, y, g, metric=metric, lam=lams, backend=engine.backend,
                     memory_limit=limit, solver=solver, exact_budget=0)
    for a, b in zip(want, got, strict=True):
        np.testing.assert_array_equal(a.order, b.order)
        assert a.counters == b.counters
        assert (a.auc, a.disparity, a.objective, a.upper_bound) == (
            b.auc, b.disparity, b.objective, b.upper_bound)
        assert b.extra["bands"] > 1 and b.backend == engine.backend
        assert b.extra["bands"] == -(-n_a // b.extra["band_rows"])
        # the reason may differ: the exact solver may be refused by the memory limit
        # before the exact budget
        assert a.solver == b.solver
        assert {k: v for k, v in b.extra.items()
                if k not in ("bands", "band_rows", "solver_reason")} == (
            {k: v for k, v in a.extra.items() if k != "solver_reason"})


@pytest.mark.parametrize("coarse", [False, True])
def test_lagrangian_equals_numpy(compiled_engine, monkeypatch, coarse):
    """The Lagrangian search's signed fills (negative weights) and (``coarse``) the
    block lattices of the coarse start, whose labels are counts of positives: the
    search and its results are NumPy's."""
    from gpu_xorder.core import _solvers

    if coarse:  # levels of 8 and 2 items per block at 60 per group
        monkeypatch.setattr(_solvers, "COARSE_BLOCKS", 8)
        monkeypatch.setattr(_solvers, "COARSE_FINEST", 2)
    rng = np.random.default_rng(17)
    n_a, n_b = (900, 700) if compiled_engine.device and not coarse else (60, 45)
    s, y, g = two_group_problem(rng, n_a, n_b)
    solver = "auto" if coarse else "lagrangian"
    lams = [0.05, 0.5, 2.0] if compiled_engine.device else [0.2, 1.0]
    for metric in METRICS:
        want = once(("lagrangian", coarse, compiled_engine.device, metric),
                            lambda metric=metric: fair_order(
                                s, y, g, metric=metric, lam=lams, solver=solver,
                                backend="numpy"))
        got = fair_order(s, y, g, metric=metric, lam=lams, solver=solver,
                         backend=compiled_engine.backend)
        if coarse or n_a < 100:  # the larger lattice of a device starts coarse anyway
            assert (want[0].extra["fills"]["coarse_fills"] > 0) == coarse
        assert_same_results(want, got, compiled_engine.backend)


def assert_batch_progress(run, n_lams):
    """``run(lam, report)`` reports, for a batch of ``n_lams`` values, ``n_lams`` times
    the cells of one value's fill (both passes when banded), rising to the end."""
    single, batch = [], []
    run(0.5, lambda done, total: single.append((done, total)))
    run([0.5] * n_lams, lambda done, total: batch.append((done, total)))
    assert single and batch
    total = single[-1][1]
    assert single[-1][0] == total
    done = [c[0] for c in batch]
    assert all(t == n_lams * total for _, t in batch)
    assert done == sorted(done) and done[-1] == n_lams * total


@pytest.mark.parametrize("kw", [
    dict(),                                  # whole lattices
    dict(memory_limit=cr.n_words(1000, 20) * 4 - 1),  # bands
    dict(method="kd"),
    dict(method="iterative"),
], ids=["whole", "bands", "kd", "iterative"])
def test_progress_of_a_lam_batch_counts_every_lattice(engine, kw):
    rng = np.random.default_rng(4)
    n_a, n_b = 1000, 20
    s = rng.random(n_a + n_b)
    y = rng.integers(0, 2, n_a + n_b)
    y[[0, 1, n_a, n_a + 1]] = [0, 1, 0, 1]
    g = np.repeat([0, 1], [n_a, n_b])
    extra = []

    def run(lam, report):
        res = fair_order(s, y, g, lam=lam, backend=engine.backend, progress=report,
                         solver="paper", **kw)
        extra.append(res.extra if not isinstance(res, list) else res[0].extra)

    assert_batch_progress(run, 3)
    assert ("bands" in extra[0]) == ("memory_limit" in kw)
    if engine.name == "numpy":  # bands planned per lattice: the same for one lam and 3
        assert extra[0] == extra[1]


@pytest.mark.parametrize("groups", ["default", "age"])
def test_paper_experiment_equals_numpy(compiled_engine, groups):
    """End to end on real data: the lam batch of xorder_path (two groups) and the K
    groups of the age bands give NumPy's records exactly."""
    from gpu_xorder import paper_experiment

    kw = dict(groups=groups, lams=[0.0, 0.05, 0.5], repeats=1)
    if not compiled_engine.device:
        kw.update(lams=[0.0, 0.5], test_size=0.97)
    got = paper_experiment("compas", backend=compiled_engine.backend, **kw)
    assert got.backends == (compiled_engine.backend,)
    want = once(("paper", groups, compiled_engine.device),
                        lambda: paper_experiment("compas", backend="numpy", **kw))
    assert got.records == want.records


def test_golden_digests(compiled_engine):
    """The digests of release 0.3's decisions (``support.golden``): every 2-D fill,
    banded solve, K-D and iterative solve on this engine."""
    got = golden.digests(compiled_engine.golden_solver())
    changed = sorted(k for k in golden.GOLDEN if got[k] != golden.GOLDEN[k])
    assert got.keys() == golden.GOLDEN.keys() and not changed, changed


def test_every_engine_satisfies_the_interface(engine):
    """Every engine module offers what ``engine._interface.Engine`` says, with its
    parameters (names and defaults) and capabilities of the stated types, and states
    the backend name that runs it; ``fair_order`` on it asks no more."""
    import inspect

    from gpu_xorder.engine._interface import Engine

    module = engine.module
    assert isinstance(module, Engine)
    assert module.NAME == engine.backend
    for name, want in vars(Engine).items():
        if name.startswith("_") or not callable(want):
            continue
        got = list(inspect.signature(getattr(module, name)).parameters.values())
        expected = list(inspect.signature(want).parameters.values())[1:]  # self
        assert [(p.name, p.default) for p in got[:len(expected)]] == [
            (p.name, p.default) for p in expected], name
        # anything more an engine takes (the GPU's kernel, tile width) has a default
        assert all(p.default is not inspect.Parameter.empty for p in got[len(expected):])
    for flag in ("BATCHED_FILLS", "WORKER_PROCESSES", "OWN_MEMORY"):
        assert isinstance(getattr(module, flag), bool), flag
    for limit in ("MAX_OLD_GROUPS", "MAX_KD_GROUPS"):
        value = getattr(module, limit)
        assert value is None or (isinstance(value, int) and value >= 2), limit
    assert module.CERTIFIED_CELLS > 0
    assert module.FILL_SECONDS_PER_CELL is None or module.FILL_SECONDS_PER_CELL > 0
    with module.session():
        s, y, g = two_group_problem(np.random.default_rng(0), 4, 3)
        orders = module.dp_orders(s, g, 2)
        want = cr.build_lattice(s, y, g, "xauc", "absolute")
        if orders is not None:  # the engine's own sort: the reference's orders
            np.testing.assert_array_equal(orders[0], want.perm_a)
            np.testing.assert_array_equal(orders[1], want.perm_b)
