"""The exact solver on samples of the bundled data: time, fronts, and what auto keeps.

Run from the source tree::

    PYTHONPATH=. python benchmarks/exact_bundled.py [--sizes 120 1000]
        [--data compas adult] [--metrics xauc prf urf] [--lams 0.5 2] [--out FILE]

Each case: ``n`` items drawn from each group of the training split's
logistic-regression scores (the paper's protocol, repetition 0; ``auto_vs_rule.py``'s
sample), one lam. ``solver="exact"`` (NumPy): seconds, fronts' states (all guesses of
the lower bound together), the optimum; ``solver="lagrangian"``: its objective and
certified gap; ``solver="auto"``: the solver it ran and its objective. Prints a rich
table and writes it as Markdown.
"""

import argparse
import os
import time

from auto_vs_rule import case_data
from rich.console import Console
from table_output import emit

from gpu_xorder import fair_order


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.environ.get("OUT", "."),
                                                      "exact_bundled.md"))
    parser.add_argument("--sizes", type=int, nargs="+", default=[120, 1000])
    parser.add_argument("--data", nargs="+", default=["compas", "adult"])
    parser.add_argument("--metrics", nargs="+", default=["xauc", "prf", "urf"])
    parser.add_argument("--lams", type=float, nargs="+", default=[0.5, 2.0])
    args = parser.parse_args(argv)
    console = Console(width=160)
    rows = []
    for n in args.sizes:
        for data in args.data:
            s, y, g = case_data(data, n)
            for metric in args.metrics:
                for lam in args.lams:
                    row = {"data": data, "n": n, "metric": metric, "lam": lam}
                    for solver in ("exact", "lagrangian", "auto"):
                        t0 = time.perf_counter()
                        res = fair_order(s, y, g, metric=metric, lam=lam, solver=solver,
                                         backend="numpy")
                        row[f"{solver}_s"] = time.perf_counter() - t0
                        row[f"{solver}_J"] = res.objective
                        if solver == "exact":
                            row["states"] = res.extra.get("front_states", 0)
                        if solver == "lagrangian":
                            row["gap"] = res.gap
                        if solver == "auto":
                            row["auto_ran"] = res.solver
                    row["below"] = row["exact_J"] - row["lagrangian_J"]
                    rows.append(row)
                    console.print(row)
    cols = [("data", "data", "{}"), ("n", "n per group", "{}"), ("metric", "metric", "{}"),
            ("lam", "lam", "{:g}"), ("exact_J", "optimum", "{:.6f}"),
            ("exact_s", "exact s", "{:.2f}"), ("states", "fronts' states", "{:.3g}"),
            ("lagrangian_J", "lagrangian J", "{:.6f}"),
            ("below", "optimum - lagrangian", "{:.2e}"), ("gap", "lagrangian gap", "{:.2e}"),
            ("lagrangian_s", "lagrangian s", "{:.2f}"), ("auto_ran", "auto ran", "{}"),
            ("auto_s", "auto s", "{:.2f}")]
    emit(console, rows, cols, "The exact solver on samples of the bundled data", "numpy",
         "exact_bundled.py", args.out)


if __name__ == "__main__":
    main()
