"""Calibration of ``gpu_xorder.engine._plan.estimate_seconds`` (issue #25: a fit of 1000
groups ran for minutes with nothing said).

Runs the NumPy reference on two-group lattices, iterative xOrder with few large and many
small groups, and K-D xOrder; times each solve in CPU seconds (``time.process_time``, so
that other jobs on a shared machine inflate the numbers little); fits the constants of
``_plan.NUMPY_SECONDS`` to the work ``_plan.numpy_work`` counts (non-negative least
squares on relative errors), and prints the measured and the predicted time of every
run with both the fitted and the current constants::

    PYTHONPATH=. python benchmarks/plan_calibration.py [--quick]
"""

import argparse
import time

import numpy as np
from scipy.optimize import nnls

import cpu_reference as cr
from gpu_xorder.engine import _plan

RUNS = [  # (method, sizes, metric)
    ("2d", (1000, 1000), "xauc"), ("2d", (2000, 2000), "prf"), ("2d", (3000, 3000), "urf"),
    ("2d", (6000, 6000), "xauc"),
    ("2d", (200, 20000), "xauc"), ("2d", (20000, 200), "xauc"),
    ("iterative", (4,) * 60, "xauc"), ("iterative", (4,) * 150, "xauc"),
    ("iterative", (4,) * 150, "urf"), ("iterative", (4,) * 150, "prf"),
    ("iterative", (2,) * 250, "xauc"), ("iterative", (50,) * 20, "xauc"),
    ("iterative", (300,) * 8, "prf"), ("iterative", (1500,) * 4, "xauc"),
    ("iterative", (20,) * 60, "xauc"), ("iterative", (10,) * 100, "xauc"),
    ("iterative", (100,) * 30, "urf"),
    ("iterative", (3000, 200, 100, 50), "urf"),
    ("kd", (60, 60, 60), "xauc"), ("kd", (100, 100, 100), "urf"),
    ("kd", (20, 20, 20, 20), "xauc"), ("kd", (8, 8, 8, 8, 8), "prf"),
]
QUICK = [0, 4, 6, 10, 11, 14, 15, 18, 20]


def problem(sizes, metric, seed=0):
    rng = np.random.default_rng(seed)
    g = np.repeat(np.arange(len(sizes)), sizes)
    y = np.concatenate([np.arange(n) % 2 for n in sizes])  # both labels in every group
    s = rng.random(g.size) + 0.1 * g
    return cr.build_problem(s, y, g, len(sizes), metric, "absolute"), (s, y, g)


def cpu_seconds(method, sizes, metric, lam=0.5):
    prob, (s, y, g) = problem(sizes, metric)
    start = time.process_time()
    if method == "2d":
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        cr.solve_lattice(lat, lam)
    elif method == "kd":
        cr.solve_kd(prob, lam)
    else:
        cr.solve_iterative(prob, lam)
    return time.process_time() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few runs only")
    args = parser.parse_args()
    runs = [RUNS[i] for i in QUICK] if args.quick else RUNS
    keys = list(_plan.NUMPY_SECONDS)
    rows, times = [], []
    for method, sizes, metric in runs:
        seconds = cpu_seconds(method, sizes, metric)
        work = _plan.numpy_work(method, sizes, metric)
        rows.append([work[k] for k in keys])
        times.append(seconds)
        print(f"{method:9s} {len(sizes):4d} groups of {max(sizes):5d} {metric:4s} "
              f"{seconds:8.2f} s", flush=True)
    a, t = np.array(rows), np.array(times)
    fitted, _ = nnls(a / t[:, None], np.ones_like(t))
    print("fitted:  " + ", ".join(f'"{k}": {c:.2g}' for k, c in zip(keys, fitted)))
    current = np.array([_plan.NUMPY_SECONDS[k] for k in keys])
    print(f"{'run':40s} {'measured':>9s} {'fitted':>9s} {'current':>9s}")
    for (method, sizes, metric), row, seconds in zip(runs, a, t):
        name = f"{method} {len(sizes)} x {max(sizes)} {metric}"
        print(f"{name:40s} {seconds:9.2f} {row @ fitted:9.2f} {row @ current:9.2f}")


if __name__ == "__main__":
    main()
