"""The wavefront speed table (docs/design.md, section 8): fill and traceback time, GCUPS.

Run from the source tree on a machine with CuPy and a GPU (no network needed)::

    PYTHONPATH=. python benchmarks/speed_table.py [--out FILE] [--max-n 100000]

For each size it times the CuPy tiled kernel (fill and on-device traceback separately,
after a warm-up that compiles the kernels; the best of several tile widths) and the
NumPy reference where its estimated time is under a minute. Prints a rich table and
writes it as Markdown.
"""

import argparse
import os
import time

import numpy as np
from rich.console import Console

import cpu_reference as cr
from table_output import emit

TILES = (32, 64, 128, 256)
SIZES = [(1000, 1000), (10000, 10000), (30000, 30000), (100000, 100000), (20000, 2000)]


def lattice(n_a, n_b, seed=0):
    rng = np.random.default_rng(seed)
    n = n_a + n_b
    s, y = rng.random(n), (rng.random(n) < 0.3).astype(np.int64)
    g = np.repeat([0, 1], [n_a, n_b])
    return cr.build_lattice(s, y, g, "xauc", "absolute")


def time_numpy(lat, lam):
    t0 = time.perf_counter()
    words, _ = cr.fill(lat, lam)
    t1 = time.perf_counter()
    cr.traceback(words, lat.n_a, lat.n_b)
    return t1 - t0, time.perf_counter() - t1


def time_cupy(lat, lams, tile_j=None):
    """Fill with the tiled kernel (``tile_j=None``: the engine's width), then the
    on-device traceback."""
    import cupy as cp

    from gpu_xorder import _cupy_engine as ce

    sync = cp.cuda.Device().synchronize
    sync()
    t0 = time.perf_counter()
    words, _ = ce.fill(lat, lams, tile_j)
    sync()
    t1 = time.perf_counter()
    ce.traceback(lat, words).get()
    t2 = time.perf_counter()
    nbytes = words.nbytes
    del words
    cp.get_default_memory_pool().free_all_blocks()
    return t1 - t0, t2 - t1, nbytes


def time_solve(lat, memory_limit=None):
    """Whole ``_cupy_engine.solve`` (fill, path, host copies); with ``memory_limit`` the
    banded solve (counter checkpoints). Returns (seconds, band_rows)."""
    import cupy as cp

    from gpu_xorder import _cupy_engine as ce

    t0 = time.perf_counter()
    _, band_rows = ce.solve(lat, [0.5], memory_limit=memory_limit)
    seconds = time.perf_counter() - t0
    cp.get_default_memory_pool().free_all_blocks()
    return seconds, band_rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.environ.get("OUT", "."), "speed_table.md"))
    parser.add_argument("--max-n", type=int, default=100000)
    parser.add_argument("--numpy-budget", type=float, default=60.0,
                        help="skip the NumPy reference where its estimate exceeds this (s)")
    args = parser.parse_args(argv)
    console = Console(width=140)
    rows, device = [], "no GPU"
    try:
        from gpu_xorder._backend import backend_info
        info = backend_info()
        if info.get("cupy") == "usable":
            device = f"{info['device_name']} (CuPy {info['cupy_version']})"
    except Exception as exc:  # report, still time the CPU
        device = f"no GPU ({exc})"
    gpu = device != "no GPU" and not device.startswith("no GPU")
    if gpu:
        for tile_j in TILES:
            time_cupy(lattice(64, 64), [0.5], tile_j)  # compile + warm up
    np_ns = None
    for n_a, n_b in SIZES:
        if max(n_a, n_b) > args.max_n:
            continue
        lat, cells = lattice(n_a, n_b), n_a * n_b
        row = {"shape": f"{n_a}x{n_b}", "cells": cells}
        if gpu:
            fill, tb, nbytes = time_cupy(lat, [0.5])
            row.update(gpu_tb=tb, bytes_per_cell=nbytes / cells)
            best = min((time_cupy(lat, [0.5], t)[0], t) for t in TILES)
            row.update(gpu_fill=best[0], tile=best[1], gcups=cells / best[0] / 1e9,
                       tb_share=tb / best[0])
            if cells <= 10**8:
                fill8, _, _ = time_cupy(lat, [0.5] * 8, best[1])
                row["gcups_batch8"] = 8 * cells / fill8 / 1e9
            if cells >= 10**8:  # counter checkpoints: bits limited to a quarter
                row["solve"] = time_solve(lat)[0]
                row["banded"], rows_per_band = time_solve(lat, nbytes // 4)
                row["bands"] = -(-n_a // rows_per_band)
        if np_ns is None or np_ns * cells * 1e-9 < args.numpy_budget:
            fill, tb = time_numpy(lat, 0.5)
            np_ns = fill / cells * 1e9
            row.update(np_fill=fill, np_tb=tb, np_ns=np_ns)
            if "gpu_fill" in row:
                row["speedup"] = fill / row["gpu_fill"]
        rows.append(row)
        console.print(f"done {row['shape']}")

    cols = [("shape", "lattice", "{}"), ("cells", "cells", "{:.1e}"),
            ("gpu_fill", "tiled fill s", "{:.4f}"), ("tile", "tile 32x", "{}"),
            ("gcups", "tiled GCUPS", "{:.2f}"), ("gcups_batch8", "tiled GCUPS, 8 lam", "{:.2f}"),
            ("gpu_tb", "traceback s", "{:.4f}"), ("tb_share", "traceback/fill", "{:.1%}"),
            ("solve", "solve s", "{:.3f}"), ("banded", "banded solve s (bits/4)", "{:.3f}"),
            ("bands", "bands", "{}"),
            ("bytes_per_cell", "GPU bytes/cell", "{:.3f}"),
            ("np_fill", "NumPy fill s", "{:.3f}"), ("np_ns", "NumPy ns/cell", "{:.1f}"),
            ("np_tb", "NumPy traceback s", "{:.4f}"), ("speedup", "tiled vs NumPy", "{:.0f}x")]
    emit(console, rows, cols, "xOrder lattice fill, metric xauc, lam 0.5", device, "speed_table.py",
         args.out)


if __name__ == "__main__":
    main()
