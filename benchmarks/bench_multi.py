"""pytest-benchmark suite of xOrder for more than two groups (K-D and iterative).

NumPy reference: ``cpu_reference._kd.fill_kd`` (the K-D fill) and
``cpu_reference.solve_iterative`` (every merge step and its path); on a machine with a
usable GPU, the same through ``fair_order(backend="cupy")``. Random groups of equal size,
metric "xauc", lam = 0.5. Reports nanoseconds per cell, cells per second and bytes per
cell in ``benchmark.extra_info``.

Run (the project's pytest addopts disable benchmarks, so enable them)::

    python -m pytest benchmarks/bench_multi.py --benchmark-enable -q -m "not slow"
"""

import numpy as np
import pytest
from multi_table import cells as lattice_cells
from multi_table import problem as _problem  # the multi-group table's inputs

import cpu_reference as cr
from cpu_reference import _iterative, _kd
from gpu_xorder import fair_order
from gpu_xorder.engine._backend import cupy_status
from gpu_xorder.engine._plan import decision_bytes

LAM = 0.5
METRIC = "xauc"


def _report(benchmark, cells, decision, buffers):
    seconds = benchmark.stats.stats.min
    benchmark.extra_info.update(
        cells=cells, ns_per_cell=seconds * 1e9 / cells, cells_per_second=cells / seconds,
        decision_bytes_per_cell=decision / cells, bytes_per_cell=(decision + buffers) / cells)


KD = [pytest.param(3, 150, id="3x150"), pytest.param(4, 40, id="4x40"),
      pytest.param(3, 300, id="3x300", marks=pytest.mark.slow)]


@pytest.mark.parametrize("k,n", KD)
def test_kd_fill(benchmark, k, n):
    """Decision bit planes of every hyperplane, plus the two state buffers (the box's
    counters and one hyperplane's staged states) and the sorted-box layout."""
    prob = cr.build_problem(*_problem(k, n), k, METRIC, "absolute")
    planes, final_c, _, lay = benchmark.pedantic(_kd.fill_kd, args=(prob, LAM), rounds=3,
                                                 iterations=1)
    assert len(final_c) == k * (k - 1)
    cells = lattice_cells("kd", k, n)
    decision = sum(p.nbytes for plane in planes[1:] for p in plane)
    rows = k * (k - 1)  # xauc: C of every ordered pair
    widest = max(lay.span(d)[1] - lay.span(d)[0] for d in range(1, sum(prob.sizes) + 1))
    layout = (lay.sums.nbytes + lay.rank.nbytes
              + sum(a.nbytes for a in lay.coords.values())
              + sum(a.nbytes for a in lay.pred.values()))
    _report(benchmark, cells, decision, rows * (lay.sums.size + widest) * 8 + layout)


ITERATIVE = [pytest.param(3, 1000, id="3x1000"), pytest.param(5, 1000, id="5x1000"),
             pytest.param(10, 1000, id="10x1000", marks=pytest.mark.slow)]


@pytest.mark.parametrize("k,n", ITERATIVE)
def test_iterative_solve(benchmark, k, n):
    """Decision bits of the largest step (each step's are freed before the next), plus
    its two counter diagonals of ``2 (K - 1)`` rows."""
    prob = cr.build_problem(*_problem(k, n), k, METRIC, "absolute")
    path, *_ = benchmark.pedantic(_iterative.solve_iterative, args=(prob, LAM), rounds=3,
                                  iterations=1)
    assert np.bincount(path).tolist() == [n] * k
    cells = lattice_cells("iterative", k, n)
    merged = sum(prob.sizes) - min(prob.sizes)
    _report(benchmark, cells, decision_bytes(prob.sizes, "iterative"),
            2 * 2 * (k - 1) * (merged + 1) * 8)


GPU = [pytest.param("kd", 3, 1000, id="kd-3x1000"),
       pytest.param("iterative", 10, 2000, id="iterative-10x2000"),
       # the targets on an H100: at most 0.65 s, and at least 10 GCUPS
       pytest.param("iterative", 8, 20000, id="iterative-8x20000"),
       pytest.param("iterative", 10, 10000, id="iterative-10x10000")]


@pytest.mark.gpu
@pytest.mark.parametrize("method,k,n", GPU)
def test_gpu_solve(benchmark, method, k, n):
    """The whole ``fair_order`` on the GPU (a first call compiles the kernels)."""
    usable, reason, _ = cupy_status()
    if not usable:
        pytest.skip(f"no usable CUDA device: {reason}")
    fair_order(*_problem(k, 30), lam=LAM, method=method, backend="cupy")  # compile
    s, y, g = _problem(k, n)
    res = benchmark.pedantic(fair_order, args=(s, y, g),
                             kwargs=dict(lam=LAM, method=method, backend="cupy"),
                             rounds=2, iterations=1)
    assert res.method == method and res.backend == "cupy"
    _report(benchmark, lattice_cells(method, k, n), decision_bytes([n] * k, method), 0)
