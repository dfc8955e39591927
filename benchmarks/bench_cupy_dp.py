"""pytest-benchmark suite of the CuPy kernels (skipped where no GPU is usable).

Times the fill of both 2-D kernels (``tile_kernel``: "tiles", ``strip_kernel``:
"strips"; one lam and a batch of 8), ``fair_order`` end to end on each, and the
on-device traceback, on random two-group inputs, metric "xauc", and reports GCUPS (cells
per second / 1e9) and decision bytes per cell in ``benchmark.extra_info``. The full
table with the NumPy comparison is
``benchmarks/speed_table.py``; this suite keeps the same measurements under
pytest-benchmark::

    PYTHONPATH=. python -m pytest benchmarks/bench_cupy_dp.py --benchmark-enable -q
"""

import numpy as np
import pytest

import cpu_reference
from gpu_xorder.engine._backend import cupy_status

pytestmark = pytest.mark.skipif(not cupy_status()[0], reason="no usable CUDA device")

SIZES = [pytest.param(n, id=f"n{n}") for n in (10000, 30000, 100000)]
KERNELS = ["tiles", "strips"]


def _lattice(n, seed=0):
    return cpu_reference.build_lattice(*_problem(n, seed), "xauc", "absolute")


def _problem(n, seed=0):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.array([0, 1], dtype=np.int64), n)
    scores = rng.random(2 * n) + 0.1 * groups
    y = (rng.random(2 * n) < scores / scores.max()).astype(np.int64)
    return scores, y, groups


def _synced(fn):
    import cupy as cp

    def run():
        out = fn()
        cp.cuda.Device().synchronize()
        return out

    return run


def _report(benchmark, lat, words, batch=1):
    cells = batch * lat.n_cells
    benchmark.extra_info["cells"] = cells
    benchmark.extra_info["gcups"] = cells / benchmark.stats.stats.min / 1e9
    benchmark.extra_info["decision_bytes_per_cell"] = words.nbytes / cells


@pytest.mark.parametrize("batch", [1, 8])
@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("n", SIZES)
def test_fill(benchmark, n, kernel, batch):
    """The engine's fill (default tile width or chunk), one lam or a batch of 8 (up to
    3 x 10^4 per group)."""
    from gpu_xorder.engine import _cupy_engine as ce

    if batch > 1 and n > 30000:
        pytest.skip("8 lams: up to 3 x 10^4 per group")
    lat = _lattice(n)
    lams = list(np.linspace(0.0, 2.0, batch))
    words, _ = benchmark.pedantic(_synced(lambda: ce.fill(lat, lams, kernel=kernel)),
                                  rounds=3, iterations=1, warmup_rounds=1)
    _report(benchmark, lat, words, batch)


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("n", SIZES)
def test_fair_order(benchmark, n, kernel, monkeypatch):
    """End to end: the whole ``fair_order`` call (one lam, solver "paper")."""
    from gpu_xorder import fair_order
    from gpu_xorder.engine import _cupy_engine as ce

    monkeypatch.setattr(ce, "DEFAULT_KERNEL", kernel)
    s, y, g = _problem(n)
    benchmark.pedantic(lambda: fair_order(s, y, g, lam=0.5, backend="cupy", solver="paper"),
                       rounds=2, iterations=1, warmup_rounds=1)
    benchmark.extra_info["gcups"] = n * n / benchmark.stats.stats.min / 1e9


@pytest.mark.parametrize("n", SIZES)
def test_traceback(benchmark, n):
    from gpu_xorder.engine import _cupy_engine as ce

    lat = _lattice(n)
    words, _ = ce.fill(lat, [0.5])
    paths = benchmark.pedantic(lambda: ce.traceback(lat, words).get(), rounds=3,
                               iterations=1, warmup_rounds=1)
    assert paths.shape == (1, 2 * n)
    benchmark.extra_info["steps"] = 2 * n
