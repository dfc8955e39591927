"""Launch schedule of the multi-group kernels (``cuda/xorder_multi.cu``), device-agnostic.

Written once against a small device interface so that the test suite runs this very
schedule on the host, with each launch replayed cell by cell by the kernels' own code
compiled for the host (``tests/cuda_host.py``), and ``_cupy_engine`` runs it on a GPU:

- ``asarray(a)``, ``zeros(shape, dtype)``, ``get(a)`` (to a NumPy array);
- ``launch(name, grid, block, args)``: one launch of kernel ``name`` (1-D grid);
- ``traceback(words, n_a, n_b)``: path of a 2-D lattice's decision words, on the host;
- ``kd_traceback(words, arrays)``: path of the K-D lattice, on the host.

The results have the shapes of ``cpu_reference.solve_iterative`` / ``solve_kd``, and
their decisions are those of the NumPy DPs (tests: ``test_multi_kernels_host.py`` on
the host, ``test_gpu.py`` on a device).
"""

import numpy as np

import cpu_reference as cr

from . import _multi_inputs as mi

THREADS = 256


def _params(dev, arrays, fields):
    return [dev.asarray(arrays[f]) if isinstance(arrays[f], np.ndarray) else arrays[f]
            for f in fields]


def iterative(prob, lam, dev, progress=None, pair_solve=None):
    """``(path, C, U, constants, merge_order)`` of iterative xOrder on ``dev``: the merge
    loop of ``cpu_reference.solve_iterative`` with every step's lattice on the device.

    ``pair_solve(lat, lam, progress)``, if given, solves the first step (two groups) as
    a 2-D lattice (``cr.pair_step``; the CuPy engine passes its tiled 2-D
    solver); without it the first step runs ``iter_diag_kernel`` like the others. Both
    take the same decisions: the step's G-hat is the 2-D one bit for bit.
    """
    def step(cs, seq_g, seq_y, b, const_c, const_u, progress, offset, total):
        if pair_solve is not None and len(cs.members) == 2:
            return cr.pair_step(prob, lam, int(seq_g[0]), b, progress, offset,
                                        total, solve=pair_solve)
        arrays = mi.iter_arrays(prob, cs, seq_g, seq_y, b, const_c, const_u, lam)
        steps, final = _iter_step(dev, arrays, progress, offset, total)
        return (steps, *mi.iter_finals(arrays, final, b))

    return cr.solve_iterative(prob, lam, progress, step=step)


def _iter_step(dev, arrays, progress, offset, total):
    """Fill one step's lattice by anti-diagonals; return ``(steps, final rows)``."""
    n_a, n_b = int(arrays["n_a"]), int(arrays["n_b"])
    params = _params(dev, arrays, mi.ITER_FIELDS)
    prev = dev.zeros((arrays["rows"], n_a + 1), np.float64)  # diagonal 0: cell (0, 0)
    cur = dev.zeros((arrays["rows"], n_a + 1), np.float64)
    words = dev.zeros(cr.n_words(n_a, n_b), np.uint32)
    n_diag = n_a + n_b
    every = max(1, n_diag // 100)
    for d in range(1, n_diag + 1):
        i_lo, i_hi = max(1, d - n_b), min(n_a, d - 1)
        span = ((i_hi - 1) // 32 - (i_lo - 1) // 32 + 1) * 32 if i_lo <= i_hi else 32
        dev.launch("iter_diag_kernel", -(-span // THREADS), THREADS,
                   (*params, prev, cur, words, np.int32(d), np.int32(i_lo), np.int32(i_hi)))
        prev, cur = cur, prev
        if progress is not None and (d % every == 0 or d == n_diag):
            progress(offset + int((n_a + 1) * (n_b + 1) * d / n_diag), total)
    final = dev.get(prev[:, n_a])
    path = dev.traceback(words, n_a, n_b)
    return np.asarray(path) == 0, final


def kd(prob, lam, dev, progress=None):
    """``(path, C, U, constants)`` of the K-D DP on ``dev``."""
    arrays = mi.kd_arrays(prob, lam)
    params = _params(dev, arrays, mi.KD_FIELDS)
    rows, box = arrays["rows"], int(arrays["box"])
    prev = dev.zeros((rows, box), np.float64)
    cur = dev.zeros((rows, box), np.float64)
    words = dev.zeros(arrays["nbits"] * arrays["plane_words"], np.uint32)
    n = arrays["n_planes"]
    every = max(1, n // 100)
    total = cr.kd_cells(prob.sizes)
    for d in range(1, n + 1):
        lo, hi = int(arrays["lo"][d]), int(arrays["hi"][d])
        dev.launch("kd_plane_kernel", -(-(hi - (lo & ~31)) // THREADS), THREADS,
                   (*params, prev, cur, words, np.int64(arrays["plane_words"]),
                    np.int32(arrays["nbits"]), np.int32(d), np.int64(lo), np.int64(hi),
                    np.int64(arrays["base"][d])))
        prev, cur = cur, prev
        if progress is not None and (d % every == 0 or d == n):
            progress(int(total * d / n), total)
    final = dev.get(prev[:, arrays["end"]])
    path = dev.kd_traceback(words, arrays)
    c, u = mi.kd_finals(prob, final)
    return np.asarray(path, dtype=np.int8), c, u, cr.kgroup_constants(prob, range(prob.k))
