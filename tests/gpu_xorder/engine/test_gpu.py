"""CuPy engine == NumPy reference, decision for decision, where only a real device
shows it (run where a GPU is usable): large and skewed lattices, tile widths, the strip
kernel's grids and waves, a lattice over 2^31 decision words, steps of 9 to 19 old
groups, the sm_70 guard, the self-check's times. The properties every engine shares run
on the device too, as the ``cupy`` case of test_engines.py.

Every test has a time limit (``support.device_timeout``: 120 s unless
``@pytest.mark.timeout`` says otherwise); a test that hangs on the device is named and
the run stops.
"""

import numpy as np
import pytest

import cpu_reference as cr
from gpu_xorder import fair_order
from support.device_timeout import terminal_fd, time_limit  # noqa: F401
from support.problems import random_problem
from support.problems import two_group_problem as problem

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


def test_memory_estimate_refuses_huge_lattice():
    from gpu_xorder.engine import _cupy_engine as ce

    s = np.zeros(4)
    lat = cr.build_lattice(np.array([0.9, 0.8, 0.7, 0.6]), np.array([1, 0, 1, 0]),
                           np.array([0, 0, 1, 1]), "xauc", "absolute")
    huge = lat.__class__(**{**lat.__dict__, "n_a": 10**7, "n_b": 10**7})
    with pytest.raises(ce.DeviceMemoryError, match="subsample"):
        ce.fill(huge, s[:1])


# ------------------------------------------------------------------ persistent strips

def assert_strips_same(lat, lams, chunks=(None,), blocks=None):
    """``strip_kernel``'s words, final counters and device paths equal NumPy's."""
    from gpu_xorder.engine import _cupy_engine as ce
    from gpu_xorder.engine import _launch, _plan

    want = [cr.fill(lat, lam) for lam in lams]
    for chunk in chunks:
        chunk = _plan.strip_chunk(lat, chunk)
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
    s, y, g = random_problem(rng, (300, 200, 100, 50, 25), metric, True)
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

# ------------------------------------------------------------------ issue #20: risky paths

@pytest.mark.timeout(120)
@pytest.mark.parametrize("metric,n_a,n_b", [("xauc", 10000, 9000), ("prf", 3000, 2900),
                                            ("urf", 3000, 2900)])
def test_strip_kernel_warps_take_several_strips(metric, n_a, n_b):
    """Grids forced smaller than the ticket count (3 lattices x ceil(n_a / 32) strips):
    every warp takes strip after strip and waits on strips handed out in later waves,
    the ticket order deciding who waits on whom; one block, a few, and blocks for a
    third of the tickets. Words, final counters and paths equal NumPy's."""
    from gpu_xorder.engine import _kernel_source, _plan

    rng = np.random.default_rng(n_a + n_b + len(metric))
    s, y, g = problem(rng, n_a, n_b, ties=True)
    lat = cr.build_lattice(s, y, g, metric, "absolute")
    lams = [0.0, 0.5, 3.0]
    chunk = _plan.strip_chunk(lat)
    warps = _kernel_source.constants("strip_kernel", metric, chunk=chunk)["STRIP_WARPS"]
    tickets = len(lams) * -(-n_a // 32)
    grids = sorted({1, 3, 7, tickets // (3 * warps)})
    assert warps * grids[-1] < tickets  # never a warp per strip
    for blocks in grids:
        assert_strips_same(lat, lams, blocks=blocks)
    assert_strips_same(lat, lams, chunks=(16, 128), blocks=2)


@pytest.mark.timeout(120)
def test_lattice_above_2_31_decision_words():
    """3 x 10^5 items per group: 2.8 x 10^9 decision words (over 2^31; 9,375 strips,
    more than the device's resident warps). Both kernels fill the whole lattice; their
    words are equal, their last two row blocks (word indices past 2.8 x 10^9) and final
    counters equal NumPy's fill of those rows from the device's counters of the row
    above (a fill of the first 299,936 rows), and the device traceback (walking words
    past 2^31) equals the host's walk of the copied words."""
    assert cr.n_words(300_000, 300_000) > 2**31
    check_bottom_band(300_000)


def check_bottom_band(n, lam=0.5):
    """``test_lattice_above_2_31_decision_words`` for ``n`` items per group (the bottom
    band: the last two row blocks)."""
    import cupy as cp

    from gpu_xorder.engine import _cupy_engine as ce
    from gpu_xorder.engine import _launch, _plan

    words_bytes = cr.n_words(n, n) * 4
    if ce.free_bytes() < 2.2 * words_bytes:
        pytest.skip(f"needs {2.2 * words_bytes / 2**30:.0f} GiB of device memory")
    rng = np.random.default_rng(2**31)
    s, y, g = problem(rng, n, n, ties=True)
    lat = cr.build_lattice(s, y, g, "xauc", "absolute")
    col0, row0 = cr.edge_counters(lat)
    i0 = 32 * ((n - 1) // 32 - 1)
    widths = {"tiles": _plan.tile_width(lat), "strips": _plan.strip_chunk(lat)}

    # the counters of row i0 on the device, then NumPy's fill of the rows below it
    out = _launch.fill(ce.DEVICE, cr.band_lattice(lat, 0, i0), [lam], "tiles",
                       widths["tiles"], edges=(col0[:, :i0 + 1], row0), bottom=True)
    top = cp.asnumpy(out[2][0])
    del out
    cp.get_default_memory_pool().free_all_blocks()
    ref_words, ref_final = cr.fill(cr.band_lattice(lat, i0, n), lam,
                                   edges=(col0[:, i0:], top))

    first = (i0 // 32) * (n + 31)  # the bottom band's first word in the whole layout
    kept = {}
    for kernel in ("tiles", "strips"):
        words, final = _launch.fill(ce.DEVICE, lat, [lam], kernel, widths[kernel])
        np.testing.assert_array_equal(cp.asnumpy(words[0, first:]), ref_words)
        np.testing.assert_array_equal(cp.asnumpy(final)[0], ref_final)
        path = cp.asnumpy(ce.traceback(lat, words))[0]
        if kept:
            assert bool(cp.array_equal(words, kept["words"])), "strips != tiles"
            np.testing.assert_array_equal(path, kept["path"])
        else:
            np.testing.assert_array_equal(path, cr.traceback(cp.asnumpy(words[0]), n, n))
            kept = {"words": words, "path": path}
        del words


#: Steps run on the device: every M from 9 to 19 for URF (its registers spill from M = 8),
#: the spill boundary (13, 14) and the ends for xAUC and PRF; both ends on strips for URF.
MANY_OLD_GROUPS = {"urf": (range(9, 20), (9, 19)), "xauc": ((9, 13, 14, 19), (19,)),
                   "prf": ((9, 13, 14, 19), (19,))}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("metric", METRICS)
def test_iterative_steps_with_9_to_19_old_groups(metric):
    """Twenty groups (the CLI's default --max-groups, MAX_OLD_GROUPS + 1): steps of 9 to
    19 old groups (``MANY_OLD_GROUPS``) on the tile kernel and on the strip kernel,
    decision words and final counters equal NumPy's; fair_order end to end for URF."""
    from gpu_xorder.engine import _cupy_engine as ce
    from gpu_xorder.engine._kernel_source import MAX_OLD_GROUPS

    rng = np.random.default_rng(19 + len(metric))
    sizes = tuple(int(v) for v in rng.integers(40, 90, MAX_OLD_GROUPS + 1))
    s, y, g = random_problem(rng, sizes, metric, True)
    prob = cr.build_problem(s, y, g, len(sizes), metric, "absolute")
    tiles, strips = MANY_OLD_GROUPS[metric]
    checked = []

    def solve(lat, lam, progress=None):
        ref_words, ref_final = cr.fill(lat, lam)
        kernels = [k for k, ms in (("tiles", tiles), ("strips", strips)) if lat.m in ms]
        for kernel in kernels:
            words, final = ce.fill(lat, [lam], kernel=kernel)
            np.testing.assert_array_equal(words.get()[0], ref_words)
            np.testing.assert_array_equal(final.get()[0], ref_final)
            checked.append((kernel, lat.m))
        return cr.traceback(ref_words, lat.n_a, lat.n_b), ref_final

    cr.solve_iterative(prob, 0.5, solve=solve)
    assert sorted(checked) == sorted([("tiles", m) for m in tiles] +
                                     [("strips", m) for m in strips])
    if metric == "urf":
        ref = fair_order(s, y, g, metric=metric, lam=0.5, method="iterative",
                         backend="numpy")
        got = fair_order(s, y, g, metric=metric, lam=0.5, method="iterative",
                         backend="cupy")
        np.testing.assert_array_equal(got.order, ref.order)
        assert (got.counters, got.objective) == (ref.counters, ref.objective)


def test_strip_kernel_guard_on_this_device(monkeypatch):
    """The device's compute capability is read; on sm_70 or newer a strips default runs
    strips. Faked older: the tile kernel runs instead (same decisions) and
    kernel='strips' is refused; NVRTC stops a compile of the strip kernel for
    compute_60 with the source's message, where it still compiles for compute_60."""
    import cupy as cp

    from gpu_xorder.engine import _cupy_engine as ce
    from gpu_xorder.engine._kernel_source import NVRTC_OPTIONS, constants, kernel_source
    from support.nvrtc import find_nvrtc, nvrtc_compile

    assert ce.compute_capability() == int(cp.cuda.Device().compute_capability) >= 70
    monkeypatch.setattr(ce, "DEFAULT_KERNEL", "strips")
    assert ce.default_kernel() == "strips"
    monkeypatch.setattr(ce, "compute_capability", lambda: 61)
    assert ce.default_kernel() == "tiles"
    s, y, g = problem(np.random.default_rng(70), 300, 200, ties=True)
    lat = cr.build_lattice(s, y, g, "prf", "absolute")
    (path, final), = ce.solve(lat, [0.5])[0]
    ref_words, ref_final = cr.fill(lat, 0.5)
    np.testing.assert_array_equal(path, cr.traceback(ref_words, 300, 200))
    np.testing.assert_array_equal(final, ref_final)
    with pytest.raises(ValueError, match="compute capability 7.0 or newer"):
        ce.solve(lat, [0.5], kernel="strips")
    lib = find_nvrtc()
    if lib is not None:
        status, log = nvrtc_compile(lib, kernel_source("xorder_tiled.cu",
                                                        constants("strip_kernel")),
                                     [*NVRTC_OPTIONS, "-arch=compute_60"])
        assert status != 0
        assert ("strip_kernel needs a device of compute capability 7.0" in log
                or "compute_60" in log or "architecture" in log), log


def test_selfcheck_on_this_device(monkeypatch, capsys):
    """The self-check passed when this process chose the backend, and passes again
    (compiled variants cached) on the strip kernel; the times are printed."""
    from gpu_xorder.engine import _backend, _selfcheck
    from gpu_xorder.engine import _cupy_engine as ce

    first = _backend._probe().selfcheck
    assert first is not None and first.ok, first
    again = _selfcheck.run(ce)
    monkeypatch.setattr(ce, "DEFAULT_KERNEL", "strips")
    strips = _selfcheck.run(ce)
    assert again.ok and strips.ok and strips.kernel == "strips", (again, strips)
    with capsys.disabled():
        print(f"\nself-check: first {first.seconds:.3f} s (compiles), again "
              f"{again.seconds:.3f} s, strips {strips.seconds:.3f} s")
