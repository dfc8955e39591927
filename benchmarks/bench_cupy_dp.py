"""pytest-benchmark suite of the CuPy kernels (skipped where no GPU is usable).

Times the tiled fill (two tile widths) and the on-device traceback on random two-group
inputs, metric "xauc", lam 0.5, and reports GCUPS (cells per second / 1e9) and decision
bytes per cell in ``benchmark.extra_info``. The full table with the NumPy comparison is
``benchmarks/speed_table.py``; this suite keeps the same measurements under
pytest-benchmark::

    PYTHONPATH=. python -m pytest benchmarks/bench_cupy_dp.py --benchmark-enable -q
"""

import numpy as np
import pytest

import cpu_reference
from gpu_xorder._backend import cupy_status

pytestmark = pytest.mark.skipif(not cupy_status()[0], reason="no usable CUDA device")

SIZES = [pytest.param(n, id=f"n{n}") for n in (1000, 10000, 30000)]


def _lattice(n, seed=0):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.array([0, 1], dtype=np.int64), n)
    scores = rng.random(2 * n) + 0.1 * groups
    y = (rng.random(2 * n) < scores / scores.max()).astype(np.int64)
    return cpu_reference.build_lattice(scores, y, groups, "xauc", "absolute")


def _synced(fn):
    import cupy as cp

    def run():
        out = fn()
        cp.cuda.Device().synchronize()
        return out

    return run


def _report(benchmark, lat, words):
    cells = lat.n_cells
    benchmark.extra_info["cells"] = cells
    benchmark.extra_info["gcups"] = cells / benchmark.stats.stats.min / 1e9
    benchmark.extra_info["decision_bytes_per_cell"] = words.nbytes / cells


@pytest.mark.parametrize("tile_j", [64, 128])
@pytest.mark.parametrize("n", SIZES)
def test_fill(benchmark, n, tile_j):
    from gpu_xorder import _cupy_engine as ce

    lat = _lattice(n)
    words, _ = benchmark.pedantic(_synced(lambda: ce.fill(lat, [0.5], tile_j)), rounds=3,
                                  iterations=1, warmup_rounds=1)
    _report(benchmark, lat, words)


@pytest.mark.parametrize("n", SIZES)
def test_traceback(benchmark, n):
    from gpu_xorder import _cupy_engine as ce

    lat = _lattice(n)
    words, _ = ce.fill(lat, [0.5])
    paths = benchmark.pedantic(lambda: ce.traceback(lat, words).get(), rounds=3,
                               iterations=1, warmup_rounds=1)
    assert paths.shape == (1, 2 * n)
    benchmark.extra_info["steps"] = 2 * n
