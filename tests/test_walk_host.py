"""The CUDA path walks (``traceback_kernel``, ``band_traceback_kernel`` of
``cuda/xorder_fill.cu``), compiled for the host, equal the NumPy traceback."""

import numpy as np
import pytest

import cpu_reference as cr

import cuda_host
from oracles import two_group_problem as problem

pytestmark = pytest.mark.skipif(not cuda_host.available(), reason="nvcc not on PATH")
METRICS = ("xauc", "prf", "urf")


@pytest.fixture(scope="module")
def lib():
    return cuda_host.build("xauc", "xorder_fill.cu")


def lattices(seed):
    rng = np.random.default_rng(seed)
    for n_a, n_b, ties in [(1, 1, False), (5, 40, True), (33, 2, False), (64, 64, True),
                           (97, 50, False), (130, 75, True)]:
        for metric in METRICS:
            if min(n_a, n_b) < 2 and metric != "urf":
                continue
            s, y, g = problem(rng, n_a, n_b, ties)
            yield cr.build_lattice(s, y, g, metric, "absolute")


def test_traceback_kernel_body_equals_numpy(lib):
    for lat in lattices(1):
        lams = [0.0, 0.7, 9.0]
        words = np.stack([cr.fill(lat, lam)[0] for lam in lams])
        paths = cuda_host.traceback(lib, words, lat.n_a, lat.n_b)
        for b in range(len(lams)):
            np.testing.assert_array_equal(paths[b], cr.traceback(words[b], lat.n_a, lat.n_b))


@pytest.mark.parametrize("band_rows", [32, 64])
def test_band_traceback_kernel_body_equals_whole_path(lib, band_rows):
    for lat in lattices(2):
        lams = [0.0, 0.7, 9.0]
        walker = cuda_host.HostBandWalker(lib, lat, len(lams))
        got = cr.solve_banded(lat, len(lams), band_rows, cr.numpy_band_fill(lams),
                              walker=walker)
        for lam, (path, final) in zip(lams, got):
            words, want_final = cr.fill(lat, lam)
            np.testing.assert_array_equal(path, cr.traceback(words, lat.n_a, lat.n_b))
            np.testing.assert_array_equal(final, want_final)
