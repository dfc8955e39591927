"""CuPy engine == NumPy reference, decision for decision (run where a GPU is usable)."""

import numpy as np
import pytest

import cpu_reference as cr
from gpu_xorder import fair_order

from oracles import two_group_problem as problem

pytestmark = pytest.mark.gpu

METRICS = ("xauc", "prf", "urf")
MODES = ("absolute", "signed")


def assert_same(lat, lams, tile_widths=(None, 32)):
    """The tiled kernel's words, final counters and device paths equal NumPy's, for the
    engine's tile width (None) and others."""
    from gpu_xorder.engine import _cupy_engine as ce

    for tile_j in tile_widths:
        words, final = ce.fill(lat, lams, tile_j)
        paths = ce.traceback(lat, words)
        words, final, paths = words.get(), final.get(), paths.get()
        for b, lam in enumerate(lams):
            ref_words, ref_final = cr.fill(lat, lam)
            np.testing.assert_array_equal(words[b], ref_words)
            np.testing.assert_array_equal(final[b], ref_final)
            np.testing.assert_array_equal(paths[b], cr.traceback(ref_words, lat.n_a, lat.n_b))


SHAPES = [(1, 1), (2, 1), (1, 5), (7, 3), (31, 33), (32, 32), (65, 40), (200, 317)]


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("ties", [False, True])
def test_small_shapes_equal_reference(metric, mode, ties):
    rng = np.random.default_rng(11)
    for n_a, n_b in SHAPES:
        if min(n_a, n_b) < 2 and metric != "urf":
            continue
        s, y, g = problem(rng, n_a, n_b, ties)
        lat = cr.build_lattice(s, y, g, metric, mode)
        assert_same(lat, [0.0, 0.25, 1.0, 10.0])


@pytest.mark.parametrize("n_a,n_b", [(1000, 1000), (3000, 3000), (20000, 50), (50, 20000)])
def test_large_and_skewed_equal_reference(n_a, n_b):
    rng = np.random.default_rng(n_a + n_b)
    s, y, g = problem(rng, n_a, n_b)
    lat = cr.build_lattice(s, y, g, "xauc", "absolute")
    assert_same(lat, [0.0, 0.5])


@pytest.mark.parametrize("tile_j", [1, 7, 64, 100, 256, 512])
def test_tiled_kernel_tile_sizes(tile_j):
    rng = np.random.default_rng(tile_j)
    for metric in METRICS:
        s, y, g = problem(rng, 333, 271)
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        assert_same(lat, [0.0, 0.8], tile_widths=(tile_j,))


def test_many_exact_ties_equal_reference():
    # lam = 0 with long unlabeled runs and equal scores: G-hat ties everywhere.
    rng = np.random.default_rng(5)
    n = 600
    s = np.repeat(np.arange(6.0), n // 6 * 2)[: 2 * n]
    y = np.zeros(2 * n, dtype=int)
    y[::97] = 1
    g = np.tile([0, 1], n)
    rng.shuffle(g)
    for metric in METRICS:
        y2 = y.copy()
        for k in (0, 1):
            idx = np.flatnonzero(g == k)
            y2[idx[0]], y2[idx[-1]] = 1, 0
        lat = cr.build_lattice(s, y2, g, metric, "absolute")
        assert_same(lat, [0.0, 1.0])


def test_fair_order_backends_agree():
    rng = np.random.default_rng(2)
    s, y, g = problem(rng, 150, 90)
    lams = [0.0, 0.3, 2.0]
    for metric in METRICS:
        cpu = fair_order(s, y, g, metric=metric, lam=lams, backend="numpy")
        gpu = fair_order(s, y, g, metric=metric, lam=lams, backend="cupy")
        assert len(gpu) == len(lams)
        for a, b in zip(cpu, gpu):
            np.testing.assert_array_equal(a.order, b.order)
            assert a.counters == b.counters
            assert a.objective == b.objective
            assert b.backend == "cupy"


def test_memory_estimate_refuses_huge_lattice():
    from gpu_xorder.engine import _cupy_engine as ce

    s = np.zeros(4)
    lat = cr.build_lattice(np.array([0.9, 0.8, 0.7, 0.6]), np.array([1, 0, 1, 0]),
                           np.array([0, 0, 1, 1]), "xauc", "absolute")
    huge = lat.__class__(**{**lat.__dict__, "n_a": 10**7, "n_b": 10**7})
    with pytest.raises(ce.DeviceMemoryError, match="subsample"):
        ce.fill(huge, s[:1])


@pytest.mark.parametrize("metric", METRICS)
def test_banded_solve_equals_reference(metric):
    """Decision bits over the memory limit: the tiled kernel in bands of rows (counter
    checkpoints on the host) gives the whole lattice's paths and counters."""
    from gpu_xorder.engine import _cupy_engine as ce

    rng = np.random.default_rng(21)
    lams = [0.0, 0.5, 5.0]
    for n_a, n_b, ties, band_rows in [(100, 70, True, 32), (300, 257, False, 64),
                                      (1000, 3000, False, 256)]:
        s, y, g = problem(rng, n_a, n_b, ties)
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        limit = len(lams) * cr.n_words(band_rows, n_b) * 4
        solutions, rows = ce.solve(lat, lams, memory_limit=limit)
        assert rows == band_rows
        for lam, (path, final) in zip(lams, solutions):
            ref_words, ref_final = cr.fill(lat, lam)
            np.testing.assert_array_equal(path, cr.traceback(ref_words, n_a, n_b))
            np.testing.assert_array_equal(final, ref_final)


def test_fair_order_memory_limit_on_gpu():
    rng = np.random.default_rng(22)
    s, y, g = problem(rng, 2000, 1500)
    cpu = fair_order(s, y, g, metric="urf", lam=[0.0, 1.0], backend="numpy")
    gpu = fair_order(s, y, g, metric="urf", lam=[0.0, 1.0], backend="cupy",
                     memory_limit=2 * cr.n_words(512, 1500) * 4)
    for a, b in zip(cpu, gpu):
        np.testing.assert_array_equal(a.order, b.order)
        assert a.counters == b.counters
        # the default solver's fills, on bands on the device and whole lattices on NumPy
        assert (b.extra["bands"], b.extra["band_rows"]) == (4, 512)
        assert a.extra["signed_fills"] == b.extra["signed_fills"]
        assert (a.objective, a.upper_bound) == (b.objective, b.upper_bound)


# ------------------------------------------------------------------ persistent strips

def assert_strips_same(lat, lams, chunks=(None,), blocks=None):
    """``strip_kernel``'s words, final counters and device paths equal NumPy's."""
    from gpu_xorder.engine import _cupy_engine as ce
    from gpu_xorder.engine import _launch
    from gpu_xorder.engine import _plan

    want = [cr.fill(lat, lam) for lam in lams]
    for chunk in chunks:
        chunk = _plan.strip_chunk(cr.as_step(lat), chunk)
        words, final = _launch.fill_strips(ce.DEVICE, lat, lams, chunk, blocks=blocks)
        paths = ce.traceback(lat, words).get()
        words, final = words.get(), final.get()
        for b, (ref_words, ref_final) in enumerate(want):
            np.testing.assert_array_equal(words[b], ref_words)
            np.testing.assert_array_equal(final[b], ref_final)
            np.testing.assert_array_equal(paths[b], cr.traceback(ref_words, lat.n_a, lat.n_b))


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("mode", MODES)
def test_strip_kernel_small_shapes(metric, mode):
    """Ragged shapes, ties, lam 0, a batch of 4; chunks of 16 and 128 on the smallest
    grids (one block) and the device-sized one."""
    rng = np.random.default_rng(12)
    for k, (n_a, n_b) in enumerate(SHAPES):
        if min(n_a, n_b) < 2 and metric != "urf":
            continue
        s, y, g = problem(rng, n_a, n_b, ties=k % 2 == 1)
        lat = cr.build_lattice(s, y, g, metric, mode)
        assert_strips_same(lat, [0.0, 0.25, 1.0, 10.0], chunks=(None, 16, 128))
        assert_strips_same(lat, [0.0, 1.0], blocks=1)


@pytest.mark.parametrize("n_a,n_b,batch", [(10000, 10000, 1), (3000, 3000, 8),
                                           (20000, 50, 2), (50, 20000, 2)])
def test_strip_kernel_large(n_a, n_b, batch):
    """A 10^4 x 10^4 lattice (313 strips, more than one block per multiprocessor waits),
    a batch of 8, skewed shapes."""
    rng = np.random.default_rng(n_a + 3 * n_b)
    s, y, g = problem(rng, n_a, n_b, ties=True)
    lat = cr.build_lattice(s, y, g, "xauc", "absolute")
    assert_strips_same(lat, list(np.linspace(0.0, 2.0, batch)))


@pytest.mark.parametrize("metric", METRICS)
def test_strip_kernel_iterative_and_banded(metric):
    """Iterative steps (M = 1 .. 4) and the banded solve on the strip kernel."""
    from gpu_xorder.engine import _cupy_engine as ce

    rng = np.random.default_rng(23)
    s, y, g = _multi_problem(rng, (300, 200, 100, 50, 25), metric, True)
    prob = cr.build_problem(s, y, g, 5, metric, "absolute")

    def solve(lat, lam, progress=None):
        ref_words, ref_final = cr.fill(lat, lam)
        assert_strips_same(lat, [lam])
        return cr.traceback(ref_words, lat.n_a, lat.n_b), ref_final

    cr.solve_iterative(prob, 0.5, solve=solve)
    s, y, g = problem(rng, 1000, 700)
    lat = cr.build_lattice(s, y, g, metric, "absolute")
    lams = [0.0, 0.5]
    solutions, rows = ce.solve(lat, lams, memory_limit=2 * cr.n_words(256, 700) * 4,
                               kernel="strips")
    assert rows == 256
    for lam, (path, final) in zip(lams, solutions):
        ref_words, ref_final = cr.fill(lat, lam)
        np.testing.assert_array_equal(path, cr.traceback(ref_words, 1000, 700))
        np.testing.assert_array_equal(final, ref_final)


# ------------------------------------------------------------------ more than two groups

def _multi_problem(rng, sizes, metric, ties):
    from test_multigroup import random_problem

    return random_problem(rng, sizes, metric, ties)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("method", ["kd", "iterative"])
def test_multi_group_equals_reference(metric, method):
    """K >= 3 on the GPU kernels: same paths, counters and values as NumPy."""
    rng = np.random.default_rng(len(metric) * 3 + len(method))
    shapes = [(5, 4, 6), (2, 9, 3, 4), (40, 33, 50)] + (
        [(700, 650, 20), (300, 200, 100, 50, 25)] if method == "iterative" else [(60, 45, 70)])
    for sizes in shapes:
        for ties in (False, True):
            s, y, g = _multi_problem(rng, sizes, metric, ties)
            for lam in (0.0, 0.5, 6.0):
                ref = fair_order(s, y, g, metric=metric, lam=lam, method=method,
                                 backend="numpy")
                got = fair_order(s, y, g, metric=metric, lam=lam, method=method,
                                 backend="cupy")
                assert got.backend == "cupy" and got.method == method
                np.testing.assert_array_equal(got.order, ref.order)
                assert got.counters == ref.counters
                assert (got.auc, got.disparity, got.objective) == (
                    ref.auc, ref.disparity, ref.objective)


def _step_checker(tile_widths, memory_limit=None):
    """A ``solve`` for ``cpu_reference.solve_iterative`` that checks every step on the
    device (tiled kernel words and final counters, or the banded solve's path and
    counters under ``memory_limit``) against the NumPy fill, then returns NumPy's."""
    from gpu_xorder.engine import _cupy_engine as ce

    def solve(lat, lam, progress=None):
        ref_words, ref_final = cr.fill(lat, lam)
        ref_path = cr.traceback(ref_words, lat.n_a, lat.n_b)
        for tile_j in tile_widths:
            words, final = ce.fill(lat, [lam], tile_j)
            np.testing.assert_array_equal(words.get()[0], ref_words)
            np.testing.assert_array_equal(final.get()[0], ref_final)
        if memory_limit is not None:
            ((path, final),), rows = ce.solve(lat, [lam], memory_limit=memory_limit)
            assert rows is not None
            np.testing.assert_array_equal(path, ref_path)
            np.testing.assert_array_equal(final, ref_final)
        return ref_path, ref_final

    return solve


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("sizes", [(5, 4, 6), (40, 33, 50, 7), (300, 200, 100, 50, 25),
                                   (64, 64, 64, 64, 64, 64), (700, 650, 20)])
def test_iterative_steps_on_the_tiled_kernel(metric, sizes):
    """Every step of iterative xOrder (M = 1 .. K - 1 old groups) on the tiled kernel,
    the engine's tile width (and 8 columns on the smallest, to keep the compiles few),
    ties and lam 0: the decision words of NumPy's fill."""
    rng = np.random.default_rng(sum(sizes) + len(metric))
    widths = (None, 8) if sizes == (5, 4, 6) else (None,)
    for ties in (False, True):
        s, y, g = _multi_problem(rng, sizes, metric, ties)
        prob = cr.build_problem(s, y, g, len(sizes), metric, "absolute")
        for lam in (0.0, 0.5, 6.0):
            cr.solve_iterative(prob, lam, solve=_step_checker(widths))


@pytest.mark.parametrize("metric", METRICS)
def test_iterative_steps_in_bands(metric):
    """Iterative steps whose bits exceed the memory limit: the banded solve."""
    rng = np.random.default_rng(17)
    s, y, g = _multi_problem(rng, (300, 200, 150), metric, True)
    prob = cr.build_problem(s, y, g, 3, metric, "absolute")
    cr.solve_iterative(prob, 0.5, solve=_step_checker((), memory_limit=cr.n_words(64, 200) * 4))


@pytest.mark.parametrize("method", ["kd", "iterative"])
def test_two_groups_multi_methods_on_gpu(method):
    rng = np.random.default_rng(3)
    s, y, g = problem(rng, 120, 90)
    for mode in MODES:
        ref = fair_order(s, y, g, lam=0.8, disparity=mode, method=method, backend="numpy")
        got = fair_order(s, y, g, lam=0.8, disparity=mode, method=method, backend="cupy")
        np.testing.assert_array_equal(got.order, ref.order)
        assert got.counters == ref.counters


@pytest.mark.parametrize("data,groups", [("compas", "default"), ("compas", "age")])
def test_paper_experiment_equals_reference(data, groups):
    """End to end on real data: the lam batch of xorder_path (two groups) and the
    iterative K-group kernels (age bands) give the NumPy records exactly."""
    from gpu_xorder import paper_experiment

    kw = dict(groups=groups, lams=[0.0, 0.05, 0.5], repeats=1)
    gpu = paper_experiment(data, backend="cupy", **kw)
    cpu = paper_experiment(data, backend="numpy", **kw)
    assert gpu.backends == ("cupy",)
    assert gpu.records == cpu.records


@pytest.mark.parametrize("metric", METRICS)
def test_lagrangian_solver_equals_reference(metric):
    """The signed fills of the Lagrangian search (negative weights included) on the
    device give the very orderings, bounds and fill counts of NumPy."""
    rng = np.random.default_rng(41)
    s, y, g = problem(rng, 900, 700)
    lams = [0.05, 0.5, 2.0]
    cpu = fair_order(s, y, g, metric=metric, lam=lams, solver="lagrangian", backend="numpy")
    gpu = fair_order(s, y, g, metric=metric, lam=lams, solver="lagrangian", backend="cupy")
    for a, b in zip(cpu, gpu):
        np.testing.assert_array_equal(a.order, b.order)
        assert (a.objective, a.upper_bound) == (b.objective, b.upper_bound)
        assert a.extra["signed_fills"] == b.extra["signed_fills"]
