"""Speed of xOrder for more than two groups (issue: K-D and iterative xOrder).

Run from the source tree::

    PYTHONPATH=. python benchmarks/multi_table.py [--out FILE] [--numpy-max-cells N]
        [--skip-gpu]

Times ``fair_order`` with ``method="kd"`` / ``"iterative"`` (metric xauc, lam 0.5) on the
NumPy reference (rows whose lattices total at most ``--numpy-max-cells`` cells) and, on a
machine with a usable GPU, on CuPy (every row; the first GPU call of each method is a
warm-up that compiles the kernels). Cells: prod(n_g + 1) for kd, the sum of the step
lattices for iterative. For the issue's iterative rows the GPU time is also taken per
tile width (every step on the tiled kernel with that width), to tune ``_plan.tile_width``,
and on the persistent strip kernel (one launch per step).
Prints a rich table and writes it as Markdown.
"""

import argparse
import os
import time

import numpy as np
from rich.console import Console
from table_output import emit

import cpu_reference as cr
from gpu_xorder import fair_order

# The GPU rows first (iterative 8 x 20,000 in at most 0.65 s on an H100, 10 x
# 10^4 at 10 GCUPS or more): a run cut short by its time limit keeps them.
ROWS = [("iterative", 8, 20000), ("iterative", 10, 10000), ("kd", 3, 2000), ("kd", 3, 300),
        ("iterative", 3, 2000), ("iterative", 5, 2000), ("iterative", 10, 2000)]
SWEEP = {("iterative", 8, 20000), ("iterative", 10, 10000)}
TILES = (32, 64, 128)


def problem(k, n, seed=0):
    rng = np.random.default_rng(seed)
    g = np.repeat(np.arange(k), n)
    s = rng.random(k * n) + 0.05 * g
    y = (rng.random(k * n) < 0.3 + 0.02 * g).astype(np.int64)
    return s, y, g


def cells(method, k, n):
    sizes = [n] * k
    return cr.kd_cells(sizes) if method == "kd" else cr.iterative_cells(sizes)


def run(method, k, n, backend):
    s, y, g = problem(k, n)
    t0 = time.perf_counter()
    res = fair_order(s, y, g, lam=0.5, method=method, backend=backend)
    return time.perf_counter() - t0, res


def run_tiles(k, n, tile_j, kernel="tiles"):
    """Seconds of iterative xOrder on the GPU with every step's tile width ``tile_j``
    (``kernel="strips"``: every step on the strip kernel, ``tile_j`` unused)."""
    import cupy as cp

    from gpu_xorder.engine import _cupy_engine as ce

    s, y, g = problem(k, n)
    prob = cr.build_problem(s, y, g, k, "xauc", "absolute")

    def solve(lat, lam, progress=None):
        (solution,), _ = ce.solve(lat, [lam], progress, tile_j=tile_j, kernel=kernel)
        return solution

    t0 = time.perf_counter()
    cr.solve_iterative(prob, 0.5, solve=solve)
    cp.cuda.Device().synchronize()
    return time.perf_counter() - t0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.environ.get("OUT", "."),
                                                      "multi_table.md"))
    parser.add_argument("--numpy-max-cells", type=float, default=2e8)
    parser.add_argument("--skip-gpu", action="store_true")
    args = parser.parse_args(argv)
    console = Console(width=140)
    from gpu_xorder.engine._backend import backend_info
    info = backend_info()
    gpu = info.get("cupy") == "usable" and not args.skip_gpu
    device = f"{info['device_name']} (CuPy {info['cupy_version']})" if gpu else "no GPU"
    if gpu:
        run("kd", 3, 20, "cupy")  # compile + warm up
        run("iterative", 10, 40, "cupy")  # the tile kernel for 1..9 old groups
        run_tiles(10, 40, None, "strips")  # and the strip kernel
    rows = []
    for method, k, n in ROWS:
        row = {"method": method, "groups": f"{k} x {n}", "cells": cells(method, k, n)}
        if row["cells"] <= args.numpy_max_cells:
            t, res = run(method, k, n, "numpy")
            row.update(np_s=t, np_ns=t / row["cells"] * 1e9, np_delta=res.disparity)
        if gpu:
            t, res = run(method, k, n, "cupy")
            row.update(gpu_s=t, gcups=row["cells"] / t / 1e9, gpu_delta=res.disparity)
            if "np_s" in row:
                row["speedup"] = row["np_s"] / t
            if (method, k, n) in SWEEP:
                for tile_j in TILES:
                    row[f"gpu_s{tile_j}"] = run_tiles(k, n, tile_j)
                row["gpu_strips"] = run_tiles(k, n, None, "strips")
        rows.append(row)
        # each row as soon as it is measured: a run cut short by its time limit keeps them
        console.print(f"done {method} {row['groups']}: {row['cells']:.2e} cells"
                      + "".join(f", {key} {row[key]:.4g}" for key in
                                ("np_s", "gpu_s", "gcups") if key in row))
    cols = [("method", "method", "{}"), ("groups", "groups x items", "{}"),
            ("cells", "cells", "{:.2e}"), ("np_s", "NumPy s", "{:.2f}"),
            ("np_ns", "NumPy ns/cell", "{:.1f}"), ("gpu_s", "GPU s", "{:.3f}"),
            ("gcups", "GPU GCUPS", "{:.3f}"),
            *[(f"gpu_s{t}", f"GPU s, tiles 32x{t}", "{:.3f}") for t in TILES],
            ("gpu_strips", "GPU s, strips", "{:.3f}"),
            ("speedup", "GPU vs NumPy", "{:.0f}x"),
            ("np_delta", "Δ-xAUC (NumPy)", "{:.4f}"), ("gpu_delta", "Δ-xAUC (GPU)", "{:.4f}")]
    emit(console, rows, cols, "xOrder, more than two groups, xauc, lam 0.5", device,
         "multi_table.py", args.out)


if __name__ == "__main__":
    main()
