"""The CUDA path walks (``traceback_kernel``, ``band_traceback_kernel`` of
``cuda/xorder_traceback.cu``), replayed on the host by their own code, equal the NumPy
traceback."""

import numpy as np
import pytest

import cpu_reference as cr
from gpu_xorder.engine import _launch
from support.problems import lattices as shaped_lattices

METRICS = ("xauc", "prf", "urf")


#: Ragged shapes ``(n_a, n_b, ties)`` with every metric each.
SHAPES = [(1, 1, False), (5, 40, True), (33, 2, False), (64, 64, True), (97, 50, False),
          (130, 75, True)]


def lattices(seed):
    return shaped_lattices(np.random.default_rng(seed), SHAPES, METRICS)


def test_traceback_kernel_equals_numpy(emulated_cupy):
    dev = emulated_cupy.DEVICE
    for lat in lattices(1):
        lams = [0.0, 0.7, 9.0]
        words = np.stack([cr.fill(lat, lam)[0] for lam in lams])
        paths = dev.get(_launch.traceback(dev, dev.asarray(words), lat.n_a, lat.n_b))
        for b in range(len(lams)):
            np.testing.assert_array_equal(paths[b], cr.traceback(words[b], lat.n_a, lat.n_b))


class _HostWords(_launch.BandWalker):
    """The device walker fed the NumPy band fill's words (a list, one per lattice)."""

    def walk(self, words, i0, i1):
        return super().walk(self.dev.asarray(np.stack(words)), i0, i1)


@pytest.mark.parametrize("band_rows", [32, 64])
def test_band_traceback_kernel_equals_whole_path(emulated_cupy, band_rows):
    for lat in lattices(2):
        lams = [0.0, 0.7, 9.0]
        walker = _HostWords(emulated_cupy.DEVICE, lat, len(lams))
        got = cr.solve_banded(lat, len(lams), band_rows, cr.numpy_band_fill(lams),
                              walker=walker)
        for lam, (path, final) in zip(lams, got):
            words, want_final = cr.fill(lat, lam)
            np.testing.assert_array_equal(path, cr.traceback(words, lat.n_a, lat.n_b))
            np.testing.assert_array_equal(final, want_final)
