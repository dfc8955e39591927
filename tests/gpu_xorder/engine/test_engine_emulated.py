"""The CuPy engine on an emulated device (``fake_cupy``), on every machine with nvcc:
what only this engine has (kernel choice, the strip kernel, device memory, device
sorts, twenty groups, launch signatures, the benchmarks' helpers).

Every launch is checked against the kernel's signature and replayed by the kernel's own
code compiled for the host. The properties every engine shares (fills, solves, bands, K
groups, ``fair_order`` end to end against NumPy) run on the emulated device in
test_engines.py; the kernels on a device: test_gpu.py.
"""

import numpy as np
import pytest

import cpu_reference as cr
from gpu_xorder import fair_order
from gpu_xorder.engine import _backend
from support import REPO, cuda_host, fake_cupy
from support.engines import estimate_out
from support.problems import random_problem, step_lattices
from support.problems import two_group_problem as problem

METRICS = ("xauc", "prf", "urf")


@pytest.fixture(autouse=True)
def self_check_of_a_small_batch(monkeypatch):
    """The engine's self-check at its first use here fills a batch of 6 lattices, not
    MAX_GRID_Y + 3 (the launches' split of the grid): that fill took 0.6 s of each of
    this file's 11 checks (0.85 s), for a property of the self-check, checked at full
    size in test_selfcheck.py (``test_a_correct_emulated_device_passes``: every
    lattice of the check, the big batch among them), not of what these tests check."""
    from gpu_xorder.engine import _selfcheck

    monkeypatch.setattr(_selfcheck, "BIG_BATCH", 6)


def whole(lat, lam):
    words, final = cr.fill(lat, lam)
    return words, final, cr.traceback(words, lat.n_a, lat.n_b)


def test_banded_when_device_memory_is_short(emulated_cupy):
    """No memory_limit: the free device memory decides; too little for any band is a
    DeviceMemoryError."""
    rng = np.random.default_rng(32)
    s, y, g = problem(rng, 130, 60)
    lat = cr.build_lattice(s, y, g, "xauc", "absolute")
    other = emulated_cupy.required_bytes(lat, 1) - cr.n_words(130, 60) * 4
    fake_cupy.MEMORY[0] = int((other + cr.n_words(64, 60) * 4) / 0.9) + 64
    (path, final), = emulated_cupy.solve(lat, [0.5])[0]
    assert emulated_cupy.solve(lat, [0.5])[1] == 64
    _, ref_final, ref_path = whole(lat, 0.5)
    np.testing.assert_array_equal(path, ref_path)
    np.testing.assert_array_equal(final, ref_final)
    fake_cupy.MEMORY[0] = other
    with pytest.raises(emulated_cupy.DeviceMemoryError, match="subsample"):
        emulated_cupy.solve(lat, [0.5])


def test_strip_kernel_end_to_end_on_the_emulated_device(emulated_cupy, monkeypatch):
    """``kernel="strips"``: the engine's fill, whole and banded solves, and
    ``fair_order`` (two groups with the default solver's fills, and iterative steps)
    with the strip kernel as the engine's default, equal to NumPy; an unknown kernel is
    refused."""
    rng = np.random.default_rng(35)
    s, y, g = problem(rng, 70, 50, ties=True)
    lat = cr.build_lattice(s, y, g, "prf", "absolute")
    words, final = emulated_cupy.fill(lat, [0.0, 2.0], kernel="strips", chunk=8)
    for b, lam in enumerate([0.0, 2.0]):
        ref_words, ref_final, _ = whole(lat, lam)
        np.testing.assert_array_equal(words.get()[b], ref_words)
        np.testing.assert_array_equal(final.get()[b], ref_final)
    emulated_cupy.solve(lat, [0.0], kernel="strips")  # first use: the variants' checks
    for limit in (None, 2 * cr.n_words(32, 50) * 4):
        before = fake_cupy.LAUNCHES.get("strip_kernel", 0)
        solutions, band_rows = emulated_cupy.solve(lat, [0.0, 2.0], memory_limit=limit,
                                            kernel="strips")
        assert band_rows == (None if limit is None else 32)
        # one launch per fill: the whole lattice, or each band in two passes
        assert fake_cupy.LAUNCHES["strip_kernel"] - before == (1 if limit is None else 5)
        for lam, (path, final) in zip([0.0, 2.0], solutions):
            _, ref_final, ref_path = whole(lat, lam)
            np.testing.assert_array_equal(path, ref_path)
            np.testing.assert_array_equal(final, ref_final)
    with pytest.raises(ValueError, match="kernel must be 'tiles' or 'strips'"):
        emulated_cupy.solve(lat, [0.5], kernel="strip")

    monkeypatch.setattr(emulated_cupy, "DEFAULT_KERNEL", "strips")
    _backend.cupy_status()  # the backend's probe (smoke_test) runs the tile kernel
    tiles = fake_cupy.LAUNCHES.get("tile_kernel", 0)
    s3, y3, g3 = random_problem(rng, (20, 12, 9), "urf", True)
    for args, kw in [((s[:60], y[:60], g[:60]), dict(metric="xauc", lam=[0.0, 0.5])),
                     ((s3, y3, g3), dict(metric="urf", lam=[0.0, 1.0], method="iterative"))]:
        cpu = fair_order(*args, backend="numpy", **kw)
        gpu = fair_order(*args, backend="cupy", **kw)
        for a, b in zip(cpu, gpu):
            np.testing.assert_array_equal(a.order, b.order)
            assert (a.counters, a.objective, estimate_out(a.extra)) == (
                b.counters, b.objective, estimate_out(b.extra))
    assert fake_cupy.LAUNCHES.get("tile_kernel", 0) == tiles


def test_strip_kernel_needs_compute_capability_7(emulated_cupy, monkeypatch):
    """Below sm_70 the strip kernel cannot run (acquire/release loads, __nanosleep): a
    strips default gives way to the tile kernel (the same decisions; the self-check
    checks tiles), an explicit kernel='strips' is refused; sm_70 runs it."""
    from gpu_xorder.engine import _plan, _selfcheck

    rng = np.random.default_rng(36)
    s, y, g = problem(rng, 40, 35, ties=True)
    lat = cr.build_lattice(s, y, g, "xauc", "absolute")
    monkeypatch.setattr(emulated_cupy, "DEFAULT_KERNEL", "strips")
    for capability, runs in (("61", "tile_kernel"), ("70", "strip_kernel")):
        monkeypatch.setattr(fake_cupy._Device, "compute_capability", capability)
        assert emulated_cupy.compute_capability() == int(capability)
        assert emulated_cupy.default_kernel() == runs.split("_")[0] + "s"
        before = dict(fake_cupy.LAUNCHES)
        (path, final), = emulated_cupy.solve(lat, [0.5])[0]
        _, ref_final, ref_path = whole(lat, 0.5)
        np.testing.assert_array_equal(path, ref_path)
        np.testing.assert_array_equal(final, ref_final)
        assert fake_cupy.LAUNCHES.get(runs, 0) > before.get(runs, 0)
        other = "tile_kernel" if runs == "strip_kernel" else "strip_kernel"
        assert fake_cupy.LAUNCHES.get(other, 0) == before.get(other, 0)
    assert _selfcheck.run(emulated_cupy).kernel == "strips"
    monkeypatch.setattr(fake_cupy._Device, "compute_capability", "61")
    assert _selfcheck.run(emulated_cupy).kernel == "tiles"
    with pytest.raises(ValueError, match="compute capability 7.0 or newer, this one is 6.1"):
        emulated_cupy.solve(lat, [0.5], kernel="strips")
    assert _plan.MSG_STRIPS_CAPABILITY.startswith("kernel='strips' needs")


@pytest.mark.parametrize("kernel,default,capability,runs", [
    (None, "tiles", 90, "tiles"), (None, "strips", 90, "strips"),
    (None, "strips", 70, "strips"), (None, "strips", 61, "tiles"),
    ("tiles", "strips", 61, "tiles"), ("strips", "tiles", 70, "strips"),
    ("strips", "tiles", 61, ValueError)])
def test_choose_kernel(kernel, default, capability, runs):
    from gpu_xorder.engine._plan import choose_kernel

    if runs is ValueError:
        with pytest.raises(ValueError, match="this one is 6.1; use kernel='tiles'"):
            choose_kernel(kernel, default, capability)
    else:
        assert choose_kernel(kernel, default, capability) == runs


def test_gpu_refusal(emulated_cupy):
    """The group counts the kernels take: iterative steps up to 20 groups, K-D up to
    32 (the fixed arrays of xorder_kd.cu), as the CuPy engine states them; the CPU
    engines take any."""
    from gpu_xorder.engine import _numpy_engine
    from gpu_xorder.engine._plan import kernel_refusal

    def gpu_refusal(method, k):
        return kernel_refusal(method, k, emulated_cupy.MAX_OLD_GROUPS,
                              emulated_cupy.MAX_KD_GROUPS)

    assert gpu_refusal("iterative", 20) is None and gpu_refusal("kd", 32) is None
    assert gpu_refusal("iterative", 21).startswith(
        "iterative xOrder on the GPU takes at most 20 groups")
    assert gpu_refusal("kd", 33) == "K-D xOrder on the GPU takes at most 32 groups, got 33"
    assert gpu_refusal("kd", 21) is None
    assert kernel_refusal("kd", 10**4, _numpy_engine.MAX_OLD_GROUPS,
                          _numpy_engine.MAX_KD_GROUPS) is None


def test_dp_orders_sorted_on_the_device(emulated_cupy):
    """The device sort gives cpu_reference's DP orders exactly: descending scores, equal
    scores (0.0 and -0.0 among them, which the emulated radix sort orders apart, as a
    sort of their bits does) in input order; fair_order on the device equals NumPy."""
    from cpu_reference._kgroups import dp_order

    rng = np.random.default_rng(37)
    zeros = np.array([0.0, -0.0, 0.0, -0.0])
    plain = fake_cupy.argsort(-zeros)  # a sort of the bits alone: not NumPy's order
    assert not np.array_equal(plain, np.argsort(-zeros, kind="stable"))
    for k, n, values in ((2, 300, 5), (2, 2000, 1000), (3, 500, 3), (2, 7, 2)):
        s = rng.integers(-values, values, n) * 0.5 * rng.choice([1.0, -1.0], n)
        s[rng.random(n) < 0.2] = -0.0
        g = rng.integers(0, k, n)
        g[:k] = np.arange(k)
        got = emulated_cupy.dp_orders(s, g, k)
        assert len(got) == k
        for h in range(k):
            members = np.flatnonzero(g == h)
            np.testing.assert_array_equal(got[h], members[dp_order(s[members])])
    s, y, g = problem(rng, 300, 200, ties=True)
    s[s == 0] = -0.0
    cpu = fair_order(s, y, g, lam=[0.0, 0.7], backend="numpy", solver="paper")
    gpu = fair_order(s, y, g, lam=[0.0, 0.7], backend="cupy", solver="paper")
    for a, b in zip(cpu, gpu):
        np.testing.assert_array_equal(a.order, b.order)
        assert (a.counters, a.objective, b.backend) == (b.counters, b.objective, "cupy")


def test_smoke_test_and_device_info(emulated_cupy):
    emulated_cupy.smoke_test()
    info = emulated_cupy.device_info()
    assert info["device_name"] == "fake device (NumPy emulation)"
    assert info["free_memory_bytes"] == fake_cupy.MEMORY[0]


def test_more_groups_run_their_own_kernels(emulated_cupy):
    """K > 2 through ``fair_order(backend="cupy")``: K-D on its hyperplane kernel,
    every iterative step on the strip kernel, the default (test_engines.py: the results
    are NumPy's); a K-D lattice over the free device memory is refused."""
    s, y, g = random_problem(np.random.default_rng(4), (12, 9, 15, 7), "urf", True)
    for method, runs, idle in (("kd", "kd_plane_kernel", "strip_kernel"),
                               ("iterative", "strip_kernel", "kd_plane_kernel")):
        _backend.cupy_status()  # the self-check before counting
        fair_order(s, y, g, metric="urf", lam=0.5, backend="cupy", method=method)
        before = dict(fake_cupy.LAUNCHES)  # the variants' first-use checks done
        assert fair_order(s, y, g, metric="urf", lam=0.5, backend="cupy",
                          method=method).method == method
        assert fake_cupy.LAUNCHES.get(runs, 0) > before.get(runs, 0)
        assert fake_cupy.LAUNCHES.get(idle, 0) == before.get(idle, 0)
    fake_cupy.MEMORY[0] = 1000
    with pytest.raises(emulated_cupy.DeviceMemoryError, match="subsample"):
        fair_order(s, y, g, metric="urf", backend="cupy", method="kd")


@pytest.mark.parametrize("metric", METRICS)
def test_twenty_groups_iterative_on_the_emulated_device(emulated_cupy, metric,
                                                        monkeypatch):
    """Iterative xOrder of 20 groups (the CLI's default --max-groups): steps of 1 .. 19
    old groups (MAX_OLD_GROUPS) on the strip kernel (the default), equal to NumPy. 21
    groups: refused with backend='cupy', NumPy under 'auto'; a step of 20 old groups is
    refused by the launcher itself."""
    from gpu_xorder.cli._common import MAX_GROUPS
    from gpu_xorder.engine import _kernel_source

    assert MAX_GROUPS == _kernel_source.MAX_OLD_GROUPS + 1 == 20
    seen, real = set(), cuda_host.replay

    def replay(name, defines, grid, block, parameters, args):
        if name == "strip_kernel":
            seen.add(defines["OLD_GROUPS"])
        real(name, defines, grid, block, parameters, args)

    monkeypatch.setattr(cuda_host, "replay", replay)
    rng = np.random.default_rng(len(metric) + 20)
    sizes = tuple(int(n) for n in rng.integers(3, 7, 20))
    s, y, g = random_problem(rng, sizes, metric, ties=True)
    kw = dict(metric=metric, lam=0.5, method="iterative")
    cpu = fair_order(s, y, g, backend="numpy", **kw)
    _backend.cupy_status()  # the self-check before counting
    fair_order(s, y, g, backend="cupy", **kw)  # the variants' first-use checks
    seen.clear()
    gpu = fair_order(s, y, g, backend="cupy", **kw)
    assert seen == set(range(1, 20))
    np.testing.assert_array_equal(gpu.order, cpu.order)
    assert (gpu.counters, gpu.objective, gpu.backend) == (cpu.counters, cpu.objective, "cupy")

    s21, y21, g21 = random_problem(rng, sizes + (4,), metric, ties=True)
    with pytest.raises(ValueError, match="at most 20 groups .* got 21; use backend='numpy'"):
        fair_order(s21, y21, g21, backend="cupy", **kw)
    seen.clear()
    auto = fair_order(s21, y21, g21, **kw)
    assert auto.backend == "numpy" and not seen
    np.testing.assert_array_equal(auto.order,
                                  fair_order(s21, y21, g21, backend="numpy", **kw).order)
    prob = cr.build_problem(s21, y21, g21, 21, metric, "absolute")
    steps = []
    cr.solve_iterative(prob, 0.5, solve=lambda lat, lam, progress=None: steps.append(lat)
                       or cr.solve_lattice(lat, lam))
    assert steps[-1].m == 20
    with pytest.raises(ValueError, match="at most 20 groups"):
        emulated_cupy.fill(steps[-1], [0.5])


def test_speed_table_helpers_run(emulated_cupy, monkeypatch):
    """The GPU speed table's timing helpers (``benchmarks/speed_table.py``, both kernels,
    a row with the chunk sweep) on the emulated device, so that a GPU session does not
    spend its minutes on their bugs."""
    import io

    from rich.console import Console

    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))
    import speed_table

    lat = speed_table.lattice(100, 70)
    for tile_j in (None, 32):
        fill, tb, nbytes = speed_table.time_cupy(lat, [0.5], tile_j)
        assert fill > 0 and tb > 0 and nbytes == cr.n_words(100, 70) * 4
    assert speed_table.time_solve(lat)[1] is None
    assert speed_table.time_solve(lat, nbytes // 4)[1] == 32
    assert speed_table.time_solve(lat, nbytes // 4, "strips")[1] == 32
    row = speed_table.gpu_row(40, Console(file=io.StringIO()), chunk_sweep_n=40)
    want = {"tiles_gcups", "strips_gcups", "tiles8_gcups", "strips8_gcups", "e2e_tiles",
            "e2e_strips", "tb_strips", *[f"chunk{c}" for c in speed_table.CHUNKS]}
    assert want <= set(row) and all(row[k] > 0 for k in want)


def test_multi_table_tile_sweep_runs(emulated_cupy, monkeypatch):
    """The multi-group table's per-width timing (``benchmarks/multi_table.py``) on the
    emulated device."""
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))
    import multi_table

    multi_table.run_tiles(3, 40, 32)  # first use of each variant: its own check
    multi_table.run_tiles(3, 40, None, "strips")
    before = fake_cupy.LAUNCHES.get("tile_kernel", 0)
    assert multi_table.run_tiles(3, 40, 32) > 0
    # 40 + 80 rows, 40 columns each: 2 + 3 row tiles, 2 column tiles per step
    assert fake_cupy.LAUNCHES["tile_kernel"] - before == (2 + 2 - 1) + (3 + 2 - 1)
    strips = fake_cupy.LAUNCHES.get("strip_kernel", 0)
    assert multi_table.run_tiles(3, 40, None, "strips") > 0
    assert fake_cupy.LAUNCHES["strip_kernel"] - strips == 2  # one launch per step


def test_tile_width():
    """64 columns for two groups; iterative steps narrower where a tile diagonal would
    hold too few tiles, and wherever the staged columns outgrow the shared memory."""
    from gpu_xorder.engine import _plan
    s, y, g = problem(np.random.default_rng(0), 40, 30)
    assert _plan.tile_width(cr.build_lattice(s, y, g, "urf", "absolute")) == 64
    steps = step_lattices("urf", (40, 33, 7), False, 0.5)
    assert [_plan.tile_width(lat) for lat in steps] == [64, 32]
    wide = steps[1].__class__(**{**steps[1].__dict__, "n_b": 10**6})
    assert _plan.tile_width(wide) == 64
    many = steps[1].__class__(**{**steps[1].__dict__, "n_b": 10**6, "old": tuple(range(30))})
    assert (2 + many.n_counters) * 8 * 32 <= 48 * 1024 < (2 + many.n_counters) * 8 * 64
    assert _plan.tile_width(many) == 32


# ------------------------------------------------------------------ kernel signatures

def test_launch_arguments_are_checked_against_the_kernel_signatures():
    """The emulated device reads each kernel's C parameters from the source CuPy would
    compile and refuses arguments a GPU would misread: a Python int (CuPy passes it as
    8 bytes), a NumPy scalar of the wrong size, an array of the wrong dtype, a missing
    argument."""
    from gpu_xorder.engine._kernel_source import constants, kernel_parameters, kernel_source

    module = fake_cupy.RawModule(kernel_source("xorder_traceback.cu", {}),
                                 options=("--fmad=false",))
    assert module.parameters["traceback_kernel"] == [
        ("words", True, "unsigned int"), ("n_words", False, "long long"),
        ("path", True, "signed char"), ("n_a", False, "int"), ("n_b", False, "int"),
        ("batch", False, "int")]
    tiled = kernel_parameters(kernel_source("xorder_tiled.cu", constants("tile_kernel")))
    assert set(tiled) == {"tile_kernel", "strip_kernel"}
    assert tiled["strip_kernel"][:-3] == tiled["tile_kernel"][:-3]
    assert tiled["strip_kernel"][-3:] == [("progress", True, "int"),
                                          ("ticket", True, "unsigned int"),
                                          ("batch", False, "int")]
    # a module of xorder_tiled.cu holds one of them (STRIPS)
    for name, other in (("tile_kernel", "strip_kernel"), ("strip_kernel", "tile_kernel")):
        one = fake_cupy.RawModule(kernel_source("xorder_tiled.cu", constants(name)),
                                  options=("--fmad=false",))
        one.get_function(name)
        with pytest.raises(AttributeError, match=f"no kernel '{other}'"):
            one.get_function(other)
    assert tiled["tile_kernel"][:3] == [("seq_q", True, "long long"),
                                        ("y_a", True, "long long"),
                                        ("a_wins_ties", True, "bool")]
    kd = kernel_parameters(kernel_source("xorder_kd.cu", constants("kd_plane_kernel")))
    assert set(kd) == {"kd_plane_kernel", "kd_traceback_kernel"}

    kernel = module.get_function("traceback_kernel")
    words, path = fake_cupy.zeros((1, 4), np.uint32), fake_cupy.zeros((1, 4), np.int8)
    good = [words, np.int64(4), path, np.int32(2), np.int32(2), np.int32(1)]
    bad = [
        (1, 4, "long long needs a NumPy int64 scalar, got int"),
        (3, np.int64(2), "int needs a NumPy int32 scalar, got int64 of int64"),
        (0, fake_cupy.zeros(4, np.int32), "unsigned int\\* needs a uint32 array"),
    ]
    for k, value, message in bad:
        args = list(good)
        args[k] = value
        with pytest.raises(AssertionError, match=message):
            kernel((1,), (32,), args)
    with pytest.raises(AssertionError, match="5 arguments for 6 parameters"):
        kernel((1,), (32,), good[:5])
    with pytest.raises(AttributeError, match="no kernel 'tile_kernel'"):
        module.get_function("tile_kernel")
    with pytest.raises(AssertionError, match="at most 1024 threads, whole warps"):
        kernel((1,), (48,), good)
    with pytest.raises(AssertionError, match="grid"):
        kernel((1, 70000), (32,), good)
    kernel((1,), (32,), good)  # the right types launch
    for tile_j, old_groups, most in ((128, 1, 128), (512, 1, 32), (128, 8, 32)):
        c = constants("tile_kernel", "urf", old_groups=old_groups, tile_j=tile_j)
        tiled = fake_cupy.RawModule(kernel_source("xorder_tiled.cu", c),
                                    options=("--fmad=false",))
        assert tiled._launch_bound("tile_kernel") == most


def test_named_arguments():
    """Launch arguments are built by name: ordered by the kernel's parameters, scalars
    converted to their C type, arrays of another dtype and unknown or missing names
    refused."""
    from gpu_xorder.engine._kernel_source import BoundKernel, launch_args

    params = [("words", True, "unsigned int"), ("n", False, "long long"),
              ("d", False, "int"), ("lam", False, "double")]
    words = np.zeros(3, np.uint32)
    got = launch_args(params, {"lam": 0.5, "d": 7, "n": 3, "words": words})
    assert got[0] is words and [type(v) for v in got[1:]] == [np.int64, np.int32,
                                                               np.float64]
    with pytest.raises(TypeError, match="missing \\['lam'\\], unknown \\['x'\\]"):
        launch_args(params, {"x": 1, "d": 7, "n": 3, "words": words})
    with pytest.raises(TypeError, match="words: unsigned int\\* needs a uint32 array"):
        launch_args(params, {"lam": 0.5, "d": 7, "n": 3, "words": words.astype(np.int32)})
    calls = []
    bound = BoundKernel(lambda grid, block, args: calls.append(args), params,
                        {"lam": 0.5, "d": 0, "n": 3, "words": words}, ("d",))
    bound((1,), (32,), 5)
    bound((1,), (32,), 6)
    assert [c[2] for c in calls] == [5, 6] and type(calls[1][2]) is np.int32


@pytest.mark.parametrize("metric", ["xauc", "prf"])
def test_xorder_lattice_of_runs_on_the_emulated_device(emulated_cupy, metric):
    """XOrder on tied scores solves on the lattice of runs (``merged_lattice``): the
    CuPy engine fills it, and its fit (ordering, bound, adjusted scores) is the NumPy
    reference's, bit for bit."""
    from gpu_xorder import XOrder

    rng = np.random.default_rng(41)
    s, y, g = problem(rng, 60, 45, ties=True)
    fits = [XOrder(metric=metric, lam=0.5, backend=b).fit(s, y, sensitive_features=g)
            for b in ("numpy", "cupy")]
    assert fits[1].result_.backend == "cupy"
    assert fits[0].result_.extra["tie_runs"] == fits[1].result_.extra["tie_runs"]
    assert sum(fits[0].result_.extra["tie_runs"]) < 105  # runs were merged
    np.testing.assert_array_equal(fits[0].result_.order, fits[1].result_.order)
    assert fits[0].result_.upper_bound == fits[1].result_.upper_bound
    np.testing.assert_array_equal(fits[0].train_scores_adjusted_,
                                  fits[1].train_scores_adjusted_)


def test_a_failed_occupancy_query_is_said_not_hidden(emulated_cupy, monkeypatch, caplog):
    """The strip kernel's grid where the occupancy query fails: a full multiprocessor's
    2048 threads, and a log line naming the failure (a silent fallback once hid a
    missing attribute since the kernel was written); asked once per kernel."""
    import logging
    import types

    def fail(*args):
        raise AttributeError("'RawKernel' object has no attribute 'ptr'")

    monkeypatch.setattr(fake_cupy.cuda.driver, "occupancyMaxActiveBlocksPerMultiprocessor",
                        fail)
    function = types.SimpleNamespace(ptr=7)  # a kernel the cache has not seen
    with caplog.at_level(logging.INFO, logger="gpu_xorder"):
        assert emulated_cupy.DEVICE.resident_blocks(function, 128) == 2048 // 128
        assert emulated_cupy.DEVICE.resident_blocks(function, 128) == 2048 // 128
    said = [r.getMessage() for r in caplog.records
            if "occupancy query failed" in r.getMessage()]
    assert said == ["gpu_xorder: occupancy query failed (AttributeError: 'RawKernel' object "
                    "has no attribute 'ptr'); 16 blocks per multiprocessor assumed"]
