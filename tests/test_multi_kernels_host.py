"""The multi-group CUDA kernels' logic, compiled for the host, equals the NumPy DPs.

Every decision of an iterative step (``iter_cell``) and of the K-D hyperplanes
(``kd_cell``), the decision-word layouts, the final counters and the K-D traceback
(``kd_walk``) are those of ``cpu_reference``, exact G-hat ties included. Runs wherever
nvcc is installed; the same kernels on a device are compared in ``test_gpu.py``.
"""

import numpy as np
import pytest

import cpu_reference as cr
from cpu_reference import _iterative, _kd
from gpu_xorder import _multi_inputs as mi

import cuda_host
from test_iterative import walk_steps
from test_multigroup import random_problem

pytestmark = pytest.mark.skipif(not cuda_host.available(), reason="nvcc not on PATH")
METRICS = ("xauc", "prf", "urf")


@pytest.fixture(scope="module")
def libs():
    return {metric: cuda_host.build(metric) for metric in METRICS}


def _problem(rng, sizes, metric, ties):
    s, y, g = random_problem(rng, sizes, metric, ties)
    return cr.build_problem(s, y, g, len(sizes), metric, "absolute")


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("sizes", [(5, 3, 4), (9, 2, 6, 4), (40, 33, 7), (3, 2, 2, 2, 2)])
def test_iterative_steps_equal_numpy(libs, metric, sizes):
    rng = np.random.default_rng(sum(sizes) + len(metric))
    for ties in (False, True):
        prob = _problem(rng, sizes, metric, ties)
        for lam in (0.0, 0.6, 8.0):
            def compare(cs, seq_g, seq_y, b, const_c, const_u, lam=lam):
                want, fc, fu = _iterative.step_fill(prob, lam, cs, seq_g, seq_y, b,
                                                    const_c, const_u)
                arrays = mi.iter_arrays(prob, cs, seq_g, seq_y, b, const_c, const_u, lam)
                words, final = cuda_host.iter_fill(libs[metric], arrays)
                np.testing.assert_array_equal(words, want)
                assert mi.iter_finals(arrays, final, b) == (fc, fu)
                return want, fc, fu

            walk_steps(prob, lam, compare)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("sizes", [(4, 3, 5), (2, 6, 2), (12, 9, 10), (3, 2, 4, 2)])
def test_kd_hyperplanes_equal_numpy(libs, metric, sizes):
    rng = np.random.default_rng(7 * sum(sizes) + len(metric))
    for ties in (False, True):
        prob = _problem(rng, sizes, metric, ties)
        for lam in (0.0, 0.6, 8.0):
            planes, fc, fu, lay = _kd.fill_kd(prob, lam)
            arrays = mi.kd_arrays(prob, lam)
            words, final = cuda_host.kd_fill(libs[metric], arrays)
            for d in range(1, arrays["n_planes"] + 1):
                size = int(arrays["hi"][d] - arrays["lo"][d])
                want = np.zeros(size, dtype=np.int64)
                for b, plane in enumerate(planes[d]):
                    want |= np.unpackbits(plane)[:size].astype(np.int64) << b
                np.testing.assert_array_equal(mi.kd_decisions(words, arrays, d), want)
            assert mi.kd_finals(prob, final) == (fc, fu)
            np.testing.assert_array_equal(
                cuda_host.kd_walk(libs[metric], arrays, words),
                _kd.traceback_kd(planes, lay, prob.sizes))


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("method", ["iterative", "kd"])
def test_launch_schedule_equals_numpy(libs, metric, method):
    """The launchers of ``_multi_launch`` (grids, argument order, buffer swaps, word
    offsets, tracebacks) with every launch replayed on the host: same paths and counters
    as the NumPy solvers."""
    from gpu_xorder import _multi_launch

    rng = np.random.default_rng(len(metric) + len(method))
    big = (30, 40, 25) if method == "kd" else (600, 520, 3)  # grids of several blocks
    for sizes in [(6, 4, 5), big, (3, 3, 2, 4)]:
        prob = _problem(rng, sizes, metric, ties=True)
        for lam in (0.0, 2.0):
            dev = cuda_host.HostDevice(libs[metric])
            if method == "kd":
                got, want = _multi_launch.kd(prob, lam, dev), cr.solve_kd(prob, lam)
            else:
                got = _multi_launch.iterative(prob, lam, dev)
                want = cr.solve_iterative(prob, lam)
            np.testing.assert_array_equal(got[0], want[0])
            assert got[1:3] == want[1:3]
            assert dev.launches >= sum(sizes) - 1
