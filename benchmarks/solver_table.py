"""The |D| solvers against each other: objective, certified gap and time.

Run from the source tree::

    PYTHONPATH=. python benchmarks/solver_table.py [--out FILE] [--sizes 20 200 2000]
        [--lams 0.05 0.5 2] [--metrics xauc prf urf] [--exact-max 200]
        [--exact-bytes BYTES] [--backend numpy]

Two groups of ``n`` items each (synthetic scores: a label signal plus a group shift, so
the unadjusted ranking is unfair), every metric and lam: ``fair_order`` with
``solver="paper"`` (the cell rule), ``"lagrangian"`` and, for ``n <= --exact-max``,
``"exact"`` (within ``--exact-bytes`` of fronts; "over" when they outgrow it). Each row
gives the objective ``AUC - lam |D|``, the certified gap ``upper_bound - objective`` and
the seconds of the whole call. Prints a rich table and writes it as Markdown.
"""

import argparse
import os
import time

import numpy as np
from rich.console import Console
from table_output import emit

from gpu_xorder import fair_order


def problem(n, seed=0):
    """``n`` items per group; group 1 scores higher at equal label, labels ~ 30%."""
    rng = np.random.default_rng(seed)
    g = np.repeat([0, 1], n)
    y = (rng.random(2 * n) < 0.3).astype(np.int64)
    s = 1.2 * y + 0.6 * g + rng.normal(0.0, 1.0, 2 * n)
    return s, y, g


def timed(s, y, g, **kw):
    t0 = time.perf_counter()
    try:
        res = fair_order(s, y, g, **kw)
    except MemoryError:
        return None, time.perf_counter() - t0
    return res, time.perf_counter() - t0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.environ.get("OUT", "."),
                                                      "solver_table.md"))
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 200, 2000, 20000])
    parser.add_argument("--lams", type=float, nargs="+", default=[0.05, 0.5, 2.0])
    parser.add_argument("--metrics", nargs="+", default=["xauc", "prf", "urf"])
    parser.add_argument("--exact-max", type=int, default=200)
    parser.add_argument("--exact-bytes", type=int, default=2**30)
    parser.add_argument("--backend", default="numpy")
    args = parser.parse_args(argv)
    console = Console(width=160)
    rows = []
    for n in args.sizes:
        s, y, g = problem(n)
        for metric in args.metrics:
            for lam in args.lams:
                row = {"n": n, "metric": metric, "lam": lam}
                common = dict(metric=metric, lam=lam, backend=args.backend)
                paper, row["t_paper"] = timed(s, y, g, solver="paper", **common)
                row["paper"] = paper.objective
                lag, row["t_lag"] = timed(s, y, g, solver="lagrangian", **common)
                row.update(lag=lag.objective, gap_lag=lag.gap,
                           fills=lag.extra["signed_fills"])
                if n <= args.exact_max:
                    ex, t = timed(s, y, g, solver="exact", memory_limit=args.exact_bytes,
                                  **common)
                    row["t_exact"] = t
                    if ex is None:
                        row["exact"] = "over"
                    else:
                        row["exact"] = f"{ex.objective:.5f}"
                        row["gain"] = ex.objective - paper.objective
                rows.append(row)
                console.print(row)
    cols = [("n", "items per group", "{}"), ("metric", "metric", "{}"),
            ("lam", "lam", "{:g}"), ("paper", "paper J", "{:.5f}"),
            ("lag", "lagrangian J", "{:.5f}"), ("gap_lag", "lagrangian gap", "{:.2g}"),
            ("exact", "exact J", "{}"), ("gain", "exact - paper", "{:+.4f}"),
            ("t_paper", "paper s", "{:.3g}"), ("t_lag", "lagrangian s", "{:.3g}"),
            ("fills", "signed fills", "{}"), ("t_exact", "exact s", "{:.3g}")]
    emit(console, rows, cols, "Solvers for AUC - lam |D|", args.backend,
         "solver_table.py", args.out)


if __name__ == "__main__":
    main()
