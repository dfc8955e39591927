"""The exact solver's cost model (``core._exact.exact_cost``) against its measured
times: the estimate ``solver="auto"`` turns ``exact_budget`` into front states by.

Run from the source tree::

    PYTHONPATH=. python benchmarks/exact_estimate.py [--first 0] [--cases 51]
        [--backend numba] [--out FILE]

The problems are those of ``search_shortfall.py``. Each is solved by ``fair_order``
with ``exact_budget`` large enough for any of them, so that the exact solver always
runs to its end; its call is timed (CPU seconds, the search before it excluded) and
compared with the model's estimate from the tables and states it used. Reported per
case: tables, states, tries (lower bounds guessed), measured and estimated seconds and
their ratio; then the ratio's distribution, and how many cases the default budget
would have sent to the exact solver by the estimate and by the measurement.
"""

import argparse
import os
import sys
import time

import numpy as np

from gpu_xorder import fair_order
from gpu_xorder.core import _exact, _solvers


def options(argv, doc):
    """The options over the problems of search_shortfall.py: ``--cases``, ``--first``,
    ``--backend``, ``--out`` (the description: ``doc``'s first line)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--cases", type=int, default=51)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--backend", default="numba")
    parser.add_argument("--out", default=None)
    return parser.parse_args(argv)


def timing(plain, timed):
    """``plain`` (a solver's step returning ``(answer, stats)``), its CPU seconds and
    stats of the last call kept in the dict ``timed``."""

    def call(*a, **kw):
        t0 = time.process_time()
        out = plain(*a, **kw)
        timed["seconds"] = time.process_time() - t0
        timed["stats"] = out[1]
        return out

    return call


def main(argv=None):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from search_shortfall import case, report

    args = options(argv, __doc__)
    timed = {}
    _solvers.exact = timing(_solvers.exact, timed)
    rows = []
    for k in range(args.first, args.first + args.cases):
        s, y, g, metric, lam = case(k)
        timed.clear()
        res = fair_order(s, y, g, metric=metric, lam=lam, backend=args.backend,
                         exact_budget=1e6)
        if "stats" not in timed or not timed["stats"].get("tables"):
            continue  # proven by the search's bound: no exact solve
        st = timed["stats"]
        row = dict(case=k, n_a=int((g == 0).sum()), n_b=int((g == 1).sum()),
                   metric=metric, lam=lam, tables=st["tables"], states=st["states"],
                   tries=st["tries"], measured=timed["seconds"], estimate=st["estimate"],
                   solver=res.solver)
        row["ratio"] = row["measured"] / row["estimate"]
        rows.append(row)
        print(f"{k:3d} {row['n_a']:4d}x{row['n_b']:4d} {metric:4s} lam={lam:5.2f} "
              f"tables={row['tables']:3d} states={row['states']:10d} tries={row['tries']} "
              f"measured={row['measured']:7.2f}s estimate={row['estimate']:7.2f}s "
              f"ratio={row['ratio']:.2f}", flush=True)
    ratio = np.array([r["ratio"] for r in rows])
    budget = _exact.EXACT_BUDGET
    summary = {
        "cases": len(rows), "ratio_median": float(np.median(ratio)),
        "ratio_min": float(ratio.min()), "ratio_max": float(ratio.max()),
        "ratio_p10": float(np.quantile(ratio, 0.1)),
        "ratio_p90": float(np.quantile(ratio, 0.9)),
        "within_budget_by_estimate": int(sum(r["estimate"] <= budget for r in rows)),
        "within_budget_measured": int(sum(r["measured"] <= budget for r in rows)),
        "budget": budget,
    }
    return report(summary, rows, args.out)


if __name__ == "__main__":
    main()
