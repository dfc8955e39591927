"""The wavefront speed table (docs/design.md, section 8; issue #16): fill and end-to-end
GCUPS of both 2-D kernels, traceback share, ratio to the NumPy reference.

Run from the source tree on a machine with CuPy and a GPU (no network needed)::

    PYTHONPATH=. python benchmarks/speed_table.py [--out FILE] [--max-n 300000]

For each size (items per group) it times, after a warm-up that compiles the kernels:
the tiled fill (``tile_kernel``, the engine's width and 64) and the persistent fill
(``strip_kernel``, the default chunk; every chunk of ``CHUNKS`` at ``--chunk-sweep-n``),
one lam and a batch of 8 (where the bits fit), the on-device traceback and its share of
the fill, and ``fair_order`` end to end (``solver="paper"``, one lam) on each kernel.
The NumPy reference is timed once per run on a small lattice on the same machine
(``--numpy-n``): its ns per cell gives every row's per-cell ratio. Each row is printed as
it completes (a stage killed by its time limit keeps the rows done); then a rich table,
written as Markdown.
"""

import argparse
import os
import time

import numpy as np
from rich.console import Console
from table_output import emit

import cpu_reference as cr

TILES = (None, 32, 128)  # the engine's width (64) and either side
CHUNKS = (16, 32, 64, 128)
SIZES = (10000, 30000, 100000, 200000, 300000)
BATCH = 8
#: Decision bytes a batch may take (8 lams up to 10^5 per group: 10 GB).
BATCH_BYTES = 24 * 2**30


def lattice(n_a, n_b, seed=0):
    rng = np.random.default_rng(seed)
    s, y, g = problem(n_a, n_b, rng)
    return cr.build_lattice(s, y, g, "xauc", "absolute")


def problem(n_a, n_b, rng):
    n = n_a + n_b
    s, y = rng.random(n), (rng.random(n) < 0.3).astype(np.int64)
    return s, y, np.repeat([0, 1], [n_a, n_b])


def time_numpy(lat, lam):
    t0 = time.perf_counter()
    words, _ = cr.fill(lat, lam)
    t1 = time.perf_counter()
    cr.traceback(words, lat.n_a, lat.n_b)
    return t1 - t0, time.perf_counter() - t1


def time_cupy(lat, lams, tile_j=None, kernel="tiles", chunk=None):
    """Fill with ``kernel`` (``tile_j`` / ``chunk`` None: the engine's), then the
    on-device traceback: ``(fill s, traceback s, decision bytes)``."""
    import cupy as cp

    from gpu_xorder.engine import _cupy_engine as ce

    sync = cp.cuda.Device().synchronize
    sync()
    t0 = time.perf_counter()
    words, _ = ce.fill(lat, lams, tile_j, kernel=kernel, chunk=chunk)
    sync()
    t1 = time.perf_counter()
    ce.traceback(lat, words).get()
    t2 = time.perf_counter()
    nbytes = words.nbytes
    del words
    cp.get_default_memory_pool().free_all_blocks()
    return t1 - t0, t2 - t1, nbytes


def time_solve(lat, memory_limit=None, kernel="tiles"):
    """Whole ``_cupy_engine.solve`` (fill, path, host copies); with ``memory_limit`` the
    banded solve (counter checkpoints). Returns (seconds, band_rows)."""
    import cupy as cp

    from gpu_xorder.engine import _cupy_engine as ce

    t0 = time.perf_counter()
    _, band_rows = ce.solve(lat, [0.5], memory_limit=memory_limit, kernel=kernel)
    seconds = time.perf_counter() - t0
    cp.get_default_memory_pool().free_all_blocks()
    return seconds, band_rows


def time_fair_order(s, y, g, kernel):
    """Seconds of the whole ``fair_order`` call (validation, lattice, GPU, result) with
    ``kernel`` as the engine's default."""
    import cupy as cp

    from gpu_xorder import fair_order
    from gpu_xorder.engine import _cupy_engine as ce

    saved, ce.DEFAULT_KERNEL = ce.DEFAULT_KERNEL, kernel
    try:
        t0 = time.perf_counter()
        fair_order(s, y, g, metric="xauc", lam=0.5, backend="cupy", solver="paper")
        seconds = time.perf_counter() - t0
    finally:
        ce.DEFAULT_KERNEL = saved
    cp.get_default_memory_pool().free_all_blocks()
    return seconds


def profile(n, chunk=None):
    """One strip fill of an n x n lattice after a compiling warm-up: run under
    ``ncu -k strip_kernel -s 1 -c 1``."""
    lat = lattice(n, n)
    time_cupy(lattice(64, 64), [0.5], kernel="strips", chunk=chunk)
    fill, _, _ = time_cupy(lat, [0.5], kernel="strips", chunk=chunk)
    print(f"strip fill {n}x{n}: {fill:.4f} s, {lat.n_cells / fill / 1e9:.1f} GCUPS")


def gpu_row(n, console, chunk_sweep_n):
    """The GPU columns of the row of n items per group."""
    lat, cells = lattice(n, n), n * n
    row = {}
    fill, tb, nbytes = time_cupy(lat, [0.5])
    best = min((time_cupy(lat, [0.5], t)[0], t or "auto") for t in TILES)
    row.update(tiles=best[0], tile=best[1], tiles_gcups=cells / best[0] / 1e9,
               tb=tb, tb_tiles=tb / best[0], bytes_per_cell=nbytes / cells)
    strips, _, _ = time_cupy(lat, [0.5], kernel="strips")
    row.update(strips=strips, strips_gcups=cells / strips / 1e9, tb_strips=tb / strips)
    if n == chunk_sweep_n:
        for chunk in CHUNKS:
            seconds = time_cupy(lat, [0.5], kernel="strips", chunk=chunk)[0]
            row[f"chunk{chunk}"] = cells / seconds / 1e9
            console.print(f"  {n}: chunk {chunk}: {row[f'chunk{chunk}']:.1f} GCUPS")
    if BATCH * nbytes <= BATCH_BYTES:
        lams = list(np.linspace(0.0, 2.0, BATCH))
        row["tiles8_gcups"] = BATCH * cells / time_cupy(lat, lams, best[1] if best[1] != "auto"
                                                        else None)[0] / 1e9
        row["strips8_gcups"] = BATCH * cells / time_cupy(lat, lams, kernel="strips")[0] / 1e9
    s, y, g = problem(n, n, np.random.default_rng(0))
    for kernel in ("tiles", "strips"):
        seconds = time_fair_order(s, y, g, kernel)
        row[f"e2e_{kernel}"] = cells / seconds / 1e9
    if n == 100000:  # counter checkpoints: bits limited to a quarter
        row["banded_tiles"], rows_per_band = time_solve(lat, nbytes // 4)
        row["banded_strips"] = time_solve(lat, nbytes // 4, "strips")[0]
        row["bands"] = -(-n // rows_per_band)
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.environ.get("OUT", "."),
                                                      "speed_table.md"))
    parser.add_argument("--max-n", type=int, default=max(SIZES))
    parser.add_argument("--numpy-n", type=int, default=10000,
                        help="items per group of the NumPy reference's lattice")
    parser.add_argument("--chunk-sweep-n", type=int, default=100000,
                        help="items per group of the row that times every chunk")
    parser.add_argument("--profile", type=int, metavar="N",
                        help="only one strip fill of N x N after a warm-up (for ncu)")
    args = parser.parse_args(argv)
    if args.profile:
        return profile(args.profile)
    console = Console(width=160)
    device = "no GPU"
    try:
        from gpu_xorder.engine._backend import backend_info
        info = backend_info()
        if info.get("cupy") == "usable":
            device = f"{info['device_name']} (CuPy {info['cupy_version']})"
    except Exception as exc:  # report, still time the CPU
        device = f"no GPU ({exc})"
    gpu = not device.startswith("no GPU")

    np_lat = lattice(args.numpy_n, args.numpy_n)
    np_fill, np_tb = time_numpy(np_lat, 0.5)
    np_ns = np_fill / np_lat.n_cells * 1e9
    console.print(f"NumPy reference {args.numpy_n}x{args.numpy_n}: fill {np_fill:.3f} s "
                  f"({np_ns:.2f} ns/cell), traceback {np_tb:.4f} s")
    rows = []
    if gpu:
        for kernel in ("tiles", "strips"):  # compile + warm up
            for width in (TILES if kernel == "tiles" else CHUNKS):
                time_cupy(lattice(64, 64), [0.5], width if kernel == "tiles" else None,
                          kernel, width if kernel == "strips" else None)
        for n in SIZES:
            if n > args.max_n:
                continue
            row = {"shape": f"{n}x{n}", "cells": n * n, **gpu_row(n, console,
                                                                    args.chunk_sweep_n)}
            for kernel in ("tiles", "strips"):
                row[f"ratio_{kernel}"] = np_ns * row[f"{kernel}_gcups"]  # NumPy s / GPU s
            rows.append(row)
            console.print(row)
    cols = [("shape", "lattice", "{}"), ("cells", "cells", "{:.1e}"),
            ("tiles", "tiles fill s", "{:.4f}"), ("tile", "tile 32x", "{}"),
            ("tiles_gcups", "tiles GCUPS", "{:.1f}"),
            ("strips", "strips fill s", "{:.4f}"), ("strips_gcups", "strips GCUPS", "{:.1f}"),
            *[(f"chunk{c}", f"strips GCUPS chunk {c}", "{:.1f}") for c in CHUNKS],
            ("tiles8_gcups", f"tiles GCUPS, {BATCH} lam", "{:.1f}"),
            ("strips8_gcups", f"strips GCUPS, {BATCH} lam", "{:.1f}"),
            ("e2e_tiles", "fair_order GCUPS tiles", "{:.1f}"),
            ("e2e_strips", "fair_order GCUPS strips", "{:.1f}"),
            ("tb", "traceback s", "{:.4f}"), ("tb_tiles", "traceback/tiles", "{:.1%}"),
            ("tb_strips", "traceback/strips", "{:.1%}"),
            ("banded_tiles", "banded solve s tiles (bits/4)", "{:.3f}"),
            ("banded_strips", "banded solve s strips", "{:.3f}"), ("bands", "bands", "{}"),
            ("bytes_per_cell", "GPU bytes/cell", "{:.3f}"),
            ("ratio_tiles", "tiles vs NumPy per cell", "{:.0f}x"),
            ("ratio_strips", "strips vs NumPy per cell", "{:.0f}x")]
    emit(console, rows, cols,
         f"xOrder lattice fill, metric xauc, lam 0.5; NumPy reference {args.numpy_n}^2: "
         f"{np_ns:.2f} ns/cell", device, "speed_table.py", args.out)


if __name__ == "__main__":
    main()
