"""The CPU engines side by side (issue #26): ns per cell of the NumPy reference fill and
of the numba engine (one thread and two), with and without decision bits, in one run.

Run from the source tree (numba installed)::

    PYTHONPATH=. python benchmarks/cpu_engines.py [--sizes 1000 3000 10000 30000]
        [--rounds 3] [--numpy-max 30000] [--out FILE]

Input: random two-group data, n_a = n_b = n, distinct scores, metric ``xauc``,
lam = 0.5, absolute disparity; cells = (n + 1)^2. Every round times every
configuration once, in a rotated order, so that the engines share the machine's phases;
each configuration reports its fastest round and the spread (slowest / fastest).
Every row also reports the CPU time of the process (all its threads,
``time.process_time``), which a busy machine inflates far less than wall time: on the
2-core machine shared with other jobs, wall times of two threads say little.

Also printed:

- the fixed cost per anti-diagonal of the NumPy fill: a least-squares fit of its CPU
  time on lattices of n_a = 16..1024 rows and 3000 columns, ``t = a * diagonals + b *
  cells + c``, and its share of each square fill's CPU time (``2 n a / t``);
- a yardstick: the engine's arithmetic for one cell (both candidates, both G-hats, the
  choice, the winner's state and the decision byte) in a numba loop over independent
  cells held in L1, one thread: the pace of the hardware for this arithmetic;
- the numba engine's time per call at 50 x 50 (``solve``: fill and traceback);
- iterative xOrder of three groups of 1500 (every step on the engine), per metric.
"""

import argparse
import functools
import os
import time

import numba
import numpy as np
from numba import njit

import cpu_reference as cr
from gpu_xorder.engine import _numba_engine as ne

LAM = 0.5


def lattice(n_a, n_b, seed=0):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.array([0, 1], dtype=np.int64), [n_a, n_b])
    scores = rng.random(n_a + n_b) + 0.1 * groups  # distinct scores, a mild group shift
    y = (rng.random(n_a + n_b) < scores / scores.max()).astype(np.int64)
    return cr.build_lattice(scores, y, groups, "xauc", "absolute")


def timed(run):
    """(wall seconds, CPU seconds of the process: every thread)."""
    t, c = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - t, time.process_time() - c


def numba_fill(lat, threads, batch=1, bits=True):
    def run():
        numba.set_num_threads(threads)
        ne.fill(lat, [LAM] * batch, bits=bits)
    return run


def configurations(lat, numpy_ok):
    """``{name: (run, lattices per run, threads)}``."""
    out = {}
    if numpy_ok:
        out["numpy bits"] = (lambda: cr.fill(lat, LAM), 1, 1)
        out["numpy no bits"] = (lambda: cr.fill(lat, LAM, bits=False), 1, 1)
    out["numba 1T bits"] = (numba_fill(lat, 1), 1, 1)
    out["numba 1T no bits"] = (numba_fill(lat, 1, bits=False), 1, 1)
    out["numba 2T bits"] = (numba_fill(lat, 2), 1, 2)
    out["numba 2T no bits"] = (numba_fill(lat, 2, bits=False), 1, 2)
    out["numba 2T bits, 2 lams"] = (numba_fill(lat, 2, batch=2), 2, 2)
    return out


def measure(n, rounds, numpy_ok):
    lat = lattice(n, n)
    configs = configurations(lat, numpy_ok)
    ne.fill(lattice(40, 40), [LAM])  # compile (or load the cache) outside the timings
    names = list(configs)
    times = {name: [] for name in names}
    load = os.getloadavg()[0]
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            run, batch, threads = configs[name]
            wall, cpu = timed(run)
            per = 1e9 / (batch * lat.n_cells)
            times[name].append((wall * per, cpu * per))
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    return lat, times, (load, os.getloadavg()[0])


def numpy_fixed_cost():
    """``(a, b)``: seconds per anti-diagonal and per cell of the NumPy fill."""
    rows, diag, cells, t = [], [], [], []
    for n_a in (16, 64, 256, 1024):
        lat = lattice(n_a, 3000)
        cr.fill(lat, LAM)
        best = min(timed(functools.partial(cr.fill, lat, LAM))[1] for _ in range(3))  # CPU
        diag.append(lat.n_a + lat.n_b)
        cells.append(lat.n_cells)
        t.append(best)
        rows.append((n_a, best))
    design = np.c_[diag, cells, np.ones(len(t))]
    a, b, _ = np.linalg.lstsq(design, np.array(t), rcond=None)[0]
    return a, b, rows


@njit(boundscheck=False, nogil=True)
def _yardstick(p0, p1, q0, q1, ya, nlb, ybr, nla, dec, w, inv_auc, i_0, i_1, lam, reps):
    n = q0.size
    for _ in range(reps):
        for t in range(n):
            a0 = p0[t] + ya[t] * nlb[t]
            a1 = p1[t]
            b0 = p0[t + 1]
            b1 = p1[t + 1] + ybr[t] * nla[t]
            ga = ((a0 + a1) + w) * inv_auc - abs(a0 * i_0 - a1 * i_1) * lam
            gb = ((b0 + b1) + w) * inv_auc - abs(b0 * i_0 - b1 * i_1) * lam
            d = ga > gb
            q0[t] = a0 if d else b0
            q1[t] = a1 if d else b1
            dec[t] = d


def yardstick():
    """ns per cell of the cell arithmetic alone (no dependencies between cells)."""
    n, reps = 1024, 20000
    rng = np.random.default_rng(0)
    p0, p1, ya, nlb, ybr, nla = (rng.integers(0, 1000, n + 1).astype(float)
                                 for _ in range(6))
    q0, q1, dec = np.empty(n), np.empty(n), np.empty(n, dtype=np.bool_)
    args = (p0, p1, q0, q1, ya, nlb, ybr, nla, dec, 3.0, 1e-6, 1e-5, 2e-5, LAM)
    _yardstick(*args, 1)
    best = min(timed(lambda: _yardstick(*args, reps))[1] for _ in range(3))
    return best / (n * reps) * 1e9


def iterative(sizes=(1500, 1500, 1500), rounds=2):
    """Iterative xOrder of three groups, NumPy against numba (one thread), per metric."""
    from gpu_xorder.engine._numba_engine import solve_multi

    numba.set_num_threads(1)
    cells = cr.iterative_cells(list(sizes))
    rng = np.random.default_rng(1)
    for metric in ("xauc", "prf", "urf"):
        groups = rng.permutation(np.repeat(np.arange(len(sizes)), sizes))
        scores = rng.random(groups.size)
        y = (rng.random(groups.size) < 0.4).astype(np.int64)
        prob = cr.build_problem(scores, y, groups, len(sizes), metric, "absolute")
        solve_multi(prob, LAM, "iterative")
        t_np = min(timed(functools.partial(cr.solve_iterative, prob, LAM))[1]
                   for _ in range(rounds))
        t_nb = min(timed(functools.partial(solve_multi, prob, LAM, "iterative"))[1]
                   for _ in range(rounds))
        print(f"iterative {sizes}, {metric}: NumPy {t_np / cells * 1e9:.1f}, numba 1T "
              f"{t_nb / cells * 1e9:.2f} ns per cell (CPU), {t_np / t_nb:.1f}x")
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


def small_call():
    lat = lattice(50, 50)
    ne.solve(lat, [LAM])
    reps = 200
    wall = min(timed(lambda: [ne.solve(lat, [LAM]) for _ in range(reps)])[0]
               for _ in range(3))
    return wall / reps


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000, 10000, 30000])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--numpy-max", type=int, default=30000,
                    help="largest n timed on NumPy (about 10 ns per cell)")
    ap.add_argument("--out", help="also write the table as Markdown")
    args = ap.parse_args()
    print(f"numba {numba.__version__}, {numba.config.NUMBA_NUM_THREADS} threads available, "
          f"lanes per strip {ne.LANES}; {os.cpu_count()} CPUs")
    a, b, fit_rows = numpy_fixed_cost()
    print(f"NumPy fill, fit of t = a diagonals + b cells + c on n_a x 3000 "
          f"({', '.join(f'{n}: {t * 1e3:.1f} ms' for n, t in fit_rows)}): "
          f"a = {a * 1e6:.2f} us per anti-diagonal, b = {b * 1e9:.2f} ns per cell")
    print(f"yardstick (cell arithmetic, independent cells, one thread): "
          f"{yardstick():.3f} ns per cell (CPU)")
    print(f"numba solve of 50 x 50 (fill and traceback): {small_call() * 1e6:.0f} us "
          "per call")
    iterative()
    table = []
    for n in args.sizes:
        lat, times, load = measure(n, args.rounds, n <= args.numpy_max)
        for name, values in times.items():
            walls = [w for w, _ in values]
            row = dict(n=n, config=name, wall=min(walls), spread=max(walls) / min(walls),
                       cpu=min(c for _, c in values), load=load)
            table.append(row)
        numpy_wall = (min(w for w, _ in times["numpy bits"]) if "numpy bits" in times
                      else None)
        for row in table[-len(times):]:
            row["vs_numpy"] = numpy_wall / row["wall"] if numpy_wall else None
            if row["config"] == "numpy bits":
                row["fixed"] = a * 2 * n / (row["cpu"] * 1e-9 * lat.n_cells)
        print(f"n = {n}: load {load[0]:.1f} -> {load[1]:.1f}")
        for row in table[-len(times):]:
            print(_line(row))
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(_markdown(table))


HEAD = ("| n per group | configuration | wall ns/cell (best) | spread | CPU ns/cell | "
        "x NumPy (wall) | NumPy fixed-cost share |")


def _line(row):
    cpu = f"{row['cpu']:.2f}"
    vs = f"{row['vs_numpy']:.1f}" if row.get("vs_numpy") else "-"
    fixed = f"{row['fixed']:.0%}" if "fixed" in row else "-"
    return (f"| {row['n']:,} | {row['config']} | {row['wall']:.2f} | {row['spread']:.2f} | "
            f"{cpu} | {vs} | {fixed} |")


def _markdown(table):
    return "\n".join([HEAD, "|---:|---|---:|---:|---:|---:|---:|"]
                     + [_line(r) for r in table]) + "\n"


if __name__ == "__main__":
    main()
