"""Every fill kernel, each launch replayed by its own code compiled for the host
(``cuda_host`` through the emulated device), equals the NumPy reference decision for
decision: ``tile_kernel`` on two-group lattices, bands of rows and iterative steps
(decision words, final counters, bottom rows) against ``cpu_reference.fill``, and
``kd_plane_kernel`` hyperplane by hyperplane against the NumPy K-D fill, exact G-hat
ties included. The same kernels on a device: ``test_gpu.py``."""

import numpy as np
import pytest

import cpu_reference as cr
from cpu_reference import _kd
from gpu_xorder.engine import _launch
from support.problems import lattices as shaped_lattices
from support.problems import random_problem, step_lattices
from support.problems import two_group_problem as problem

METRICS = ("xauc", "prf", "urf")
LAMS = [0.0, 0.4, 6.0]


@pytest.fixture
def dev(emulated_cupy):
    return emulated_cupy.DEVICE


#: Ragged shapes ``(n_a, n_b, ties)``: one-item groups, rows short of and past 32.
SHAPES = [(1, 3, False), (2, 1, True), (33, 8, True), (40, 70, False), (64, 37, True),
          (97, 50, False)]


def lattices(rng, metric, mode):
    return shaped_lattices(rng, SHAPES, metric, mode)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("mode", ["absolute", "signed"])
def test_tile_kernel_two_groups(dev, metric, mode):
    """A lam batch (the grid's y), several tile widths (ragged last tiles, one column),
    the paths walked by ``traceback_kernel``."""
    rng = np.random.default_rng(len(metric) + 3 * len(mode))
    for lat in lattices(rng, metric, mode):
        want = [cr.fill(lat, lam) for lam in LAMS]
        for tile_j in (1, 8, 32, 128):
            words, final = _launch.fill_tiled(dev, lat, LAMS, tile_j)
            assert_batch_equals(dev, lat, words, final, want)


def test_tile_kernel_batch_beyond_the_grid_y_limit(dev, monkeypatch):
    """More lattices than a grid's y dimension holds (65535 on a device; 2 here): the
    batch goes in several launches per tile diagonal, through views of the per-lattice
    arrays."""
    from support import fake_cupy

    monkeypatch.setattr(_launch, "MAX_GRID_Y", 2)
    s, y, g = problem(np.random.default_rng(8), 70, 45, ties=True)
    lat = cr.build_lattice(s, y, g, "urf", "absolute")
    lams = [0.0, 0.3, 1.0, 3.0, 9.0]
    _launch.fill_tiled(dev, lat, lams[:1], 32)  # first use: the variant's own check
    before = fake_cupy.LAUNCHES.get("tile_kernel", 0)
    words, final = _launch.fill_tiled(dev, lat, lams, 32)
    assert fake_cupy.LAUNCHES["tile_kernel"] - before == 3 * (3 + 2 - 1)
    assert_batch_equals(dev, lat, words, final, [cr.fill(lat, lam) for lam in lams])


def test_tile_kernel_indices_beyond_2_31(emulated_cupy):
    """The tile kernel's offsets (``tile_at``, ``word_at``, run by the host build with
    no memory behind them) at 3 x 10^5 items per group, the second lattice of a batch:
    decision words past 2^32 from the batch's start, equal to cpu_reference's layout
    (``word_index``) in 64-bit integers."""
    import ctypes

    from cpu_reference._bits import word_index
    from support import cuda_host

    lib = cuda_host.build("xorder_tiled.cu")
    f = lib.tile_offsets_host
    f.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_longlong] + [ctypes.c_int] * 6 + [
        ctypes.POINTER(ctypes.c_longlong)]
    n = 300_000
    n_words = cr.n_words(n, n)
    assert n_words > 2**31
    for tile_j, r_first, tile, s in ((128, 9374, 0, 95), (128, 7000, 5, 40),
                                     (32, 9374, 0, 0)):
        n_j = -(-n // tile_j)
        r = r_first + tile
        tile_diag = r + n_j - 1  # the last column tile of row block r
        out = (ctypes.c_longlong * 4)()
        f(n, n, n_words, tile_diag, r_first, tile, 1, s, tile_j, out)
        i0, j0 = 32 * r + 1, (n_j - 1) * tile_j + 1
        # the word of lane 0's cell (i0, j0 + s) of step s, in lattice 1 of the batch
        assert out[0] == n_words + int(word_index(i0, j0 + s, n))
        assert out[0] > 2**32 and out[3] == n_words
        assert (out[1], out[2]) == (2 * (n + 1), 2 * (n + 1))


def assert_batch_equals(dev, lat, words, final, want):
    """The words, final counters and ``traceback_kernel``'s paths of a batch fill equal
    the NumPy fills ``want`` (one ``(words, final)`` per lam)."""
    paths = dev.get(_launch.traceback(dev, words, lat.n_a, lat.n_b))
    for b, (ref_words, ref_final) in enumerate(want):
        np.testing.assert_array_equal(dev.get(words)[b], ref_words)
        np.testing.assert_array_equal(dev.get(final)[b], ref_final)
        np.testing.assert_array_equal(paths[b], cr.traceback(ref_words, lat.n_a, lat.n_b))


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("sizes", [(5, 3, 4), (9, 2, 6, 4), (40, 33, 7), (3, 2, 2, 2, 2),
                                   (20, 15, 12, 9, 30, 7)])
def test_tile_kernel_iterative_steps(dev, metric, sizes):
    """Every step of iterative xOrder (old groups M = 1 .. K - 1) on the tiled kernel."""
    for ties in (False, True):
        for lam in (0.0, 0.6, 8.0):
            for lat in step_lattices(metric, sizes, ties, lam):
                ref_words, ref_final = cr.fill(lat, lam)
                for tile_j in (8, 128):
                    words, final = _launch.fill_tiled(dev, lat, [lam], tile_j)
                    np.testing.assert_array_equal(dev.get(words)[0], ref_words)
                    np.testing.assert_array_equal(dev.get(final)[0], ref_final)


@pytest.mark.parametrize("metric", METRICS)
def test_tile_kernel_bands_of_rows(dev, metric):
    """A band of rows from its checkpoint (the row above) and first column: words, final
    counters and the bottom row the next band starts from; two-group lattices and
    iterative steps."""
    rng = np.random.default_rng(9 + len(metric))
    s, y, g = problem(rng, 100, 45, ties=True)
    lats = [cr.build_lattice(s, y, g, metric, "absolute")]
    lats += [lat for lat in step_lattices(metric, (70, 40, 30), True, 0.5) if lat.n_a > 64]
    assert len(lats) == 3
    for lat in lats:
        col0, _ = cr.edge_counters(lat)
        for lam in (0.0, 0.5):
            for i0, i1 in [(32, 64), (64, lat.n_a)]:
                top = cr.fill(cr.band_lattice(lat, 0, i0), lam, bottom=True)[2]
                band = cr.band_lattice(lat, i0, i1)
                edges = (col0[:, i0:i1 + 1], top)
                want = cr.fill(band, lam, edges=edges, bottom=i1 % 32 == 0)
                got = _launch.fill_tiled(dev, band, [lam], 8, edges=(edges[0], top[None]),
                                         bottom=i1 % 32 == 0)
                for a, b in zip(got, want):
                    np.testing.assert_array_equal(dev.get(a)[0], b)


class _Recording:
    """A device that keeps the decision words it allocates."""

    def __init__(self, dev):
        self.dev, self.words = dev, None
        self.asarray, self.get, self.kernel = dev.asarray, dev.get, dev.kernel

    def zeros(self, shape, dtype):
        out = self.dev.zeros(shape, dtype)
        if np.dtype(dtype) == np.uint32:
            self.words = out
        return out


def _kd_decisions(words, layout, d):
    """Chosen axis of every cell of hyperplane ``d`` from ``kd_plane_kernel``'s words."""
    lo, hi = int(layout["lo"][d]), int(layout["hi"][d])
    r = np.arange(lo, hi) - (lo & ~31)
    w = layout["base"][d] + (r >> 5)
    planes = np.asarray(words).reshape(layout["nbits"], -1)
    axis = np.zeros(hi - lo, dtype=np.int64)
    for b in range(layout["nbits"]):
        axis |= ((planes[b][w] >> (r & 31).astype(np.uint32)) & 1).astype(np.int64) << b
    return axis


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("sizes", [(4, 3, 5), (2, 6, 2), (12, 9, 10), (3, 2, 4, 2),
                                   (30, 40, 25)])
def test_kd_plane_kernel(dev, metric, sizes):
    """Every hyperplane's decisions (``ceil(log2 K)`` bit planes), the final counters and
    the path by ``kd_traceback_kernel``; grids of several blocks for the largest."""
    rng = np.random.default_rng(7 * sum(sizes) + len(metric))
    for ties in (False, True):
        s, y, g = random_problem(rng, sizes, metric, ties)
        prob = cr.build_problem(s, y, g, len(sizes), metric, "absolute")
        for lam in (0.0, 0.6, 8.0):
            planes, fc, fu, lay = _kd.fill_kd(prob, lam)
            rec = _Recording(dev)
            path, c, u, _ = _launch.kd(rec, prob, lam)
            _, layout = _launch.kd_arrays(prob, lam)
            for d in range(1, layout["n_planes"] + 1):
                size = int(layout["hi"][d] - layout["lo"][d])
                want = np.zeros(size, dtype=np.int64)
                for b, plane in enumerate(planes[d]):
                    want |= np.unpackbits(plane)[:size].astype(np.int64) << b
                np.testing.assert_array_equal(_kd_decisions(dev.get(rec.words), layout, d),
                                              want)
            assert (c, u) == (fc, fu)
            np.testing.assert_array_equal(path, _kd.traceback_kd(planes, lay, prob.sizes))


# ------------------------------------------------------------------ persistent strips

def _strips(dev, lat, lams, chunk, blocks, **kw):
    return _launch.fill_strips(dev, lat, lams, chunk, blocks=blocks, **kw)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("mode", ["absolute", "signed"])
def test_strip_kernel_two_groups(dev, metric, mode):
    """``strip_kernel``'s launch replayed with fewer warps than strips in a
    pseudo-random interleaving (a deadlock fails it): ragged shapes (n_a not a multiple
    of 32, n_b < 32), ties, lam 0, a lam batch of 3, several chunks and grids, the paths
    walked by ``traceback_kernel``."""
    rng = np.random.default_rng(5 + len(metric) + 3 * len(mode))
    for k, lat in enumerate(lattices(rng, metric, mode)):
        want = [cr.fill(lat, lam) for lam in LAMS]
        grids = ((1, 1), (32, 2)) if k % 2 == 0 else ((4, 1), (32, 2), (128, None))
        for chunk, blocks in grids:
            words, final = _strips(dev, lat, LAMS, chunk, blocks)
            assert_batch_equals(dev, lat, words, final, want)


@pytest.mark.parametrize("metric", METRICS)
def test_strip_kernel_iterative_steps(dev, metric):
    """Every step of iterative xOrder (M = 1 .. 4 old groups) on the strip kernel."""
    for sizes in ((40, 33, 7), (9, 2, 6, 4, 30)):
        for lam in (0.0, 0.6):
            for lat in step_lattices(metric, sizes, True, lam):
                ref_words, ref_final = cr.fill(lat, lam)
                words, final = _strips(dev, lat, [lam], 8, 1)
                np.testing.assert_array_equal(dev.get(words)[0], ref_words)
                np.testing.assert_array_equal(dev.get(final)[0], ref_final)


@pytest.mark.parametrize("metric", METRICS)
def test_strip_kernel_bands_of_rows(dev, metric):
    """A band of rows from its checkpoint: words, final counters and the bottom row, for
    a two-group lattice and an iterative step, a lam batch of two."""
    rng = np.random.default_rng(19 + len(metric))
    s, y, g = problem(rng, 100, 45, ties=True)
    lats = [cr.build_lattice(s, y, g, metric, "absolute")]
    lats += [lat for lat in step_lattices(metric, (70, 40, 30), True, 0.5) if lat.n_a > 64]
    lams = [0.0, 0.5]
    for lat in lats:
        col0, _ = cr.edge_counters(lat)
        for i0, i1 in [(32, 96 if lat.n_a >= 96 else 64), (64, lat.n_a)]:
            tops = [cr.fill(cr.band_lattice(lat, 0, i0), lam, bottom=True)[2] for lam in lams]
            band = cr.band_lattice(lat, i0, i1)
            got = _strips(dev, band, lams, 16, 1, edges=(col0[:, i0:i1 + 1], np.stack(tops)),
                          bottom=i1 % 32 == 0)
            for b, lam in enumerate(lams):
                want = cr.fill(band, lam, edges=(col0[:, i0:i1 + 1], tops[b]),
                               bottom=i1 % 32 == 0)
                assert len(got) == len(want)
                for a, w in zip(got, want):
                    np.testing.assert_array_equal(dev.get(a)[b], w)
