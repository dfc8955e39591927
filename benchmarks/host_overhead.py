"""Host-side work of ``fair_order(backend="cupy")`` at 10^5 items per group (issue #16:
under 10% of the GPU call).

Runs on any machine, GPU or not: the GPU calls (``_cupy_engine.dp_orders``, the sort of
each group on the device, and ``_cupy_engine.solve``) are replaced by a stand-in that
returns the DP orders and the NumPy reference's path and counters at once, so the time of
``fair_order`` is the host's own work (validation, ``build_lattice`` from the sorted
orders, the result: scores order, counters, objective). The host parts of the engine's
solve are
timed on their own: the edge counters and the kernel arguments packed by name
(``_launch.lattice_args``, the boundary arrays, ``BoundKernel``'s conversion), with
NumPy arrays standing in for device arrays (on a GPU the copies come on top; the
device run times them and the whole call, ``--gpu``)::

    PYTHONPATH=. python benchmarks/host_overhead.py [--n 100000] [--gpu]
"""

import argparse
import contextlib
import functools
import time

import numpy as np

import cpu_reference as cr
from gpu_xorder.core import _api, _choice
from gpu_xorder.engine import _launch
from gpu_xorder.engine._kernel_source import (
    constants,
    kernel_parameters,
    kernel_source,
    launch_args,
)
from gpu_xorder.utils import _validation as v


def problem(n, seed=0):
    rng = np.random.default_rng(seed)
    g = np.repeat([0, 1], n)
    s = rng.random(2 * n) + 0.1 * g
    y = (rng.random(2 * n) < 0.3).astype(np.int64)
    return s, y, g


def best(fn, repeat=3):
    """Least seconds of ``repeat`` calls of ``fn``, and its last result."""
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


class HostDevice:
    """``_launch``'s device interface on host arrays (copies, as a transfer makes)."""

    asarray = staticmethod(np.array)
    zeros = staticmethod(np.zeros)
    get = staticmethod(np.asarray)


def pack_arguments(lat, lams, kernel):
    """The host side of one launch's arguments: edge counters, boundary arrays, the
    lattice inputs by name, ordered and converted for the kernel's parameters."""
    dev = HostDevice()
    k, batch = lat.n_counters, len(lams)
    col0, top = cr.edge_counters(lat)
    rowbuf = np.ascontiguousarray(np.broadcast_to(top, (batch, k, lat.n_b + 1)))
    colbuf = np.ascontiguousarray(np.broadcast_to(col0, (batch, k, lat.n_a + 1)))
    const = constants(kernel, lat.metric, lat.mode == "signed", lat.m)
    params = kernel_parameters(kernel_source("xorder_tiled.cu", const))[kernel]
    extra = ({"tile_diag": 0, "r_first": 0, "n_tiles": 0} if kernel == "tile_kernel" else
             {"progress": np.zeros(1, np.int32), "ticket": np.zeros(1, np.uint32),
              "batch": batch})
    return launch_args(params, {
        **_launch.lattice_args(dev, lat), "lams": np.asarray(lams, dtype=np.float64),
        "rowbuf": rowbuf, "colbuf": colbuf, "words": np.zeros(1, np.uint32),
        "n_words": 1, "n_a": lat.n_a, "n_b": lat.n_b, **extra})


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100000, help="items per group")
    parser.add_argument("--gpu", action="store_true",
                        help="also time fair_order on the GPU (both kernels)")
    args = parser.parse_args(argv)
    s, y, g = problem(args.n)
    lam = 0.5
    rows = []

    def validate():
        scores = v.check_scores(s)
        labels_y = v.check_labels(y, scores.size)
        labels, index = v.encode_groups(g, scores.size)
        v.check_lam(lam)
        v.check_supports(labels, index, labels_y, "xauc")
        return index

    seconds, index = best(validate)
    rows.append(("validation and group encoding", seconds))
    seconds, lat = best(lambda: cr.build_lattice(s, y, index, "xauc", "absolute"))
    rows.append(("sorting and build_lattice (NumPy backend)", seconds))
    perms = (lat.perm_a, lat.perm_b)
    rows.append(("build_lattice from device-sorted orders", best(lambda: cr.build_lattice(
        s, y, index, "xauc", "absolute", perms=perms))[0]))
    rows.append(("edge counters", best(lambda: cr.edge_counters(lat))[0]))
    for kernel in ("tile_kernel", "strip_kernel"):
        rows.append((f"kernel arguments ({kernel}, host copies)",
                     best(functools.partial(pack_arguments, lat, [lam], kernel))[0]))

    # fair_order with the GPU call answered at once from the NumPy reference's solution
    words, final = cr.fill(lat, lam) if args.n <= 20000 else (None, None)
    path = (cr.traceback(words, lat.n_a, lat.n_b) if words is not None else
            np.repeat(np.int8([0, 1]), [lat.n_a, lat.n_b]))
    final = final if final is not None else np.zeros(lat.n_counters, dtype=np.int64)

    class Instant:
        # the CuPy engine's capabilities (those the plan reads)
        NAME, CERTIFIED_CELLS, FILL_SECONDS_PER_CELL, OWN_MEMORY = (
            "cupy", float("inf"), None, True)
        session = staticmethod(contextlib.nullcontext)

        @staticmethod
        def dp_orders(scores, group_index, k):
            return perms

        @staticmethod
        def solve(lattice, lams, progress=None, memory_limit=None, n_jobs=None):
            return [(path, final)] * len(lams), None

    saved = _choice.engine_for
    _choice.engine_for = lambda backend: Instant
    try:
        call = lambda: _api.fair_order(s, y, g, lam=lam, backend="cupy", solver="paper")  # noqa: E731
        rows.append(("fair_order without the GPU call (all host work)", best(call)[0]))
    finally:
        _choice.engine_for = saved

    if args.gpu:
        from gpu_xorder import fair_order
        from gpu_xorder.engine import _cupy_engine as ce

        for kernel in ("tiles", "strips"):
            ce.DEFAULT_KERNEL = kernel
            fair_order(s[:200], y[:200], g[:200], lam=lam, backend="cupy", solver="paper")
            rows.append((f"fair_order on the GPU, {kernel} (whole call)",
                         best(lambda: fair_order(s, y, g, lam=lam, backend="cupy",
                                                 solver="paper"), 2)[0]))
            rows.append((f"  _cupy_engine.solve, {kernel}",
                         best(lambda: ce.solve(lat, [lam]), 2)[0]))
        ce.DEFAULT_KERNEL = "tiles"
        rows.append(("  _cupy_engine.dp_orders (device sort and copies)",
                     best(lambda: ce.dp_orders(s, index, 2))[0]))

    print(f"host-side work of fair_order, {args.n} items per group, xauc, lam {lam}, "
          "solver paper (best of 3)")
    for name, seconds in rows:
        print(f"  {name:<52} {seconds * 1e3:9.1f} ms")


if __name__ == "__main__":
    main()
