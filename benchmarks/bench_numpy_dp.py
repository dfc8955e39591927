"""pytest-benchmark suite of the NumPy reference DP (``cpu_reference``).

Measures the anti-diagonal fill and the traceback separately on random two-group inputs
with n_a = n_b = n, metric "xauc", lam = 0.5, absolute disparity. Reports nanoseconds per
lattice cell and bytes per cell in ``benchmark.extra_info``.

Run (the project's pytest addopts disable benchmarks, so enable them)::

    python -m pytest benchmarks/bench_numpy_dp.py --benchmark-enable -q
    python -m pytest benchmarks/bench_numpy_dp.py --benchmark-enable -q -m "not slow"
"""

import numpy as np
import pytest

import cpu_reference

LAM = 0.5
METRIC = "xauc"
SIZES = [
    pytest.param(1000, id="n1000"),
    pytest.param(3000, id="n3000"),
    pytest.param(10000, id="n10000", marks=pytest.mark.slow),
]
ROUNDS = {1000: 10, 3000: 8, 10000: 3}


def _lattice(n, seed=0):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.array([0, 1], dtype=np.int64), n)
    scores = rng.random(2 * n) + 0.1 * groups   # distinct scores, a mild group shift
    y = (rng.random(2 * n) < scores / scores.max()).astype(np.int64)
    return cpu_reference.build_lattice(scores, y, groups, METRIC, "absolute")


def _buffer_bytes(lat):
    """O(n) buffers of the fill (``cpu_reference._fill``): two state diagonals, the
    step's padded float64 gain arrays and scratch, the decision staging rows, and the
    lattice's prefix arrays."""
    rows = cpu_reference.COUNTER_KINDS[lat.metric].state_rows
    longest = min(lat.n_a, lat.n_b)
    size = longest + cpu_reference.PAD
    diagonals = 2 * rows * (longest + 2 + cpu_reference.PAD) * 8
    gain_arrays = 3 * ((lat.n_a + 1 + size) + (lat.n_b + 1 + size)) * 8
    scratch = (2 * rows + 2 * rows + 2 + 4) * size * 8
    staging = 64 * (-(-lat.n_a // 32) * 32 + cpu_reference.PAD)
    lattice = sum(getattr(lat, name).nbytes for name in (
        "perm_a", "perm_b", "seq_q", "y_a", "a_wins_ties", "y_b_rev", "negleft_a",
        "negleft_b_rev", "left_a", "left_b_rev"))
    return diagonals + gain_arrays + scratch + staging + lattice


def _report(benchmark, lat, words):
    cells = lat.n_cells
    seconds = benchmark.stats.stats.min
    benchmark.extra_info["n_a"] = lat.n_a
    benchmark.extra_info["n_b"] = lat.n_b
    benchmark.extra_info["cells"] = cells
    benchmark.extra_info["ns_per_cell"] = seconds * 1e9 / cells
    benchmark.extra_info["decision_bytes_per_cell"] = words.nbytes / cells
    benchmark.extra_info["buffer_bytes"] = _buffer_bytes(lat)
    benchmark.extra_info["bytes_per_cell"] = (words.nbytes + _buffer_bytes(lat)) / cells


@pytest.mark.parametrize("n", SIZES)
def test_fill(benchmark, n):
    lat = _lattice(n)
    words, final = benchmark.pedantic(
        cpu_reference.fill, args=(lat, LAM), rounds=ROUNDS[n], iterations=1)
    assert final.shape == (lat.n_counters,)
    _report(benchmark, lat, words)


@pytest.mark.parametrize("n", SIZES)
def test_traceback(benchmark, n):
    lat = _lattice(n)
    words, _ = cpu_reference.fill(lat, LAM)
    path = benchmark.pedantic(
        cpu_reference.traceback, args=(words, lat.n_a, lat.n_b), rounds=ROUNDS[n],
        iterations=1)
    assert path.size == lat.n_a + lat.n_b
    assert int((path == 0).sum()) == lat.n_a
    _report(benchmark, lat, words)


BANDED = [pytest.param(3000, id="n3000"), pytest.param(10000, id="n10000",
                                                       marks=pytest.mark.slow)]


@pytest.mark.parametrize("n", BANDED)
def test_banded_solve(benchmark, n):
    """Fill, checkpoints and path with the bits limited to half the lattice's
    (``fair_order(memory_limit=...)``): time per cell of the whole solve, and the bytes
    kept (one band's bits plus the checkpoint rows) against the whole lattice's bits."""
    lat = _lattice(n)
    whole_bits = cpu_reference.n_words(lat.n_a, lat.n_b) * 4
    band_rows = cpu_reference.plan_bands(lat.n_a, lat.n_b, whole_bits // 2, lat.n_counters)
    fill_band = cpu_reference.numpy_band_fill([LAM])
    (path, _), = benchmark.pedantic(
        cpu_reference.solve_banded, args=(lat, 1, band_rows, fill_band), rounds=2,
        iterations=1)
    assert path.size == lat.n_a + lat.n_b
    kept = cpu_reference.banded_bytes(lat.n_a, lat.n_b, band_rows, lat.n_counters)
    benchmark.extra_info["band_rows"] = band_rows
    benchmark.extra_info["bands"] = -(-lat.n_a // band_rows)
    benchmark.extra_info["ns_per_cell"] = benchmark.stats.stats.min * 1e9 / lat.n_cells
    benchmark.extra_info["kept_bytes_per_cell"] = kept / lat.n_cells
    benchmark.extra_info["whole_bits_bytes_per_cell"] = whole_bits / lat.n_cells
