"""The default solver's search against the exact optimum: the distribution of the
shortfall in ``J = AUC - lam |D|`` on random two-group problems (issue #44).

Run from the source tree::

    PYTHONPATH=. python benchmarks/search_shortfall.py [--cases 51] [--first 0]
        [--budget 0] [--backend numba] [--beam B] [--cache FILE] [--out FILE]

(``--first 51 --cases 50``: fifty more, which no choice of the default was tuned on;
benchmarks/RESULTS.md, issue #44 section 17.)

Case ``k`` (seeded by ``k``): 400 to 2,000 items in two groups of 30 to 70 %, labels
with prevalence 0.2 to 0.5, scores ``effect * y + shift * g + N(0, 1)``, lam
log-uniform in [0.5, 10], metric ``("xauc", "prf", "urf")[k % 3]``. The exact optimum
(``solver="exact"``, minutes for the whole set) is kept in ``--cache`` (JSON) and read
back on later runs. The default solver runs with ``exact_budget=--budget`` (0: the
search alone, never the exact solver). Reported per case: the shortfall to the
optimum, the gain over the cell rule, whether the bound lies at or above the optimum,
the times; ``--beam B``: the bounded front of ``B`` states per cell
(``core._exact.BEAM_WIDTH``; 0: none) after the search, before the exact solve, also
at ``--budget 0``, and its CPU time against the
search alone's (measured on the same case just before; without ``--beam``: the
library's default, which runs no beam at budget 0); then the distribution of the
shortfalls against the targets (at most 1e-4 in >= 90 % of the cases, never over 1e-3,
never below the cell rule).
"""

import argparse
import json
import os
import sys
import time

import numpy as np

from gpu_xorder import fair_order
from gpu_xorder.core import _exact

METRICS = ("xauc", "prf", "urf")


def case(k):
    """``(scores, y, groups, metric, lam)`` of case ``k``."""
    rng = np.random.default_rng(1000 + k)
    n = int(rng.integers(400, 2001))
    n_a = int(round(n * rng.uniform(0.3, 0.7)))
    g = np.repeat([0, 1], [n_a, n - n_a])
    y = (rng.random(n) < rng.uniform(0.2, 0.5)).astype(np.int64)
    s = rng.uniform(0.5, 1.5) * y + rng.uniform(0.2, 1.0) * g + rng.normal(0.0, 1.0, n)
    lam = float(np.exp(rng.uniform(np.log(0.5), np.log(10.0))))
    return s, y, g, METRICS[k % 3], lam


def cpu_seconds(**kw):
    t0 = time.process_time()
    res = fair_order(**kw)
    return res, time.process_time() - t0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=51)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--budget", type=float, default=0.0)
    parser.add_argument("--backend", default="numba")
    parser.add_argument("--beam", type=int, default=None)
    parser.add_argument("--cache", default="search_shortfall_exact.json")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    cache = {}
    if os.path.exists(args.cache):
        with open(args.cache) as f:
            cache = json.load(f)
    s, y, g, _, _ = case(0)
    fair_order(s[::8], y[::8], g[::8], lam=1.0, backend=args.backend)  # compile, load
    width, zero = _exact.BEAM_WIDTH, _exact.BEAM_AT_ZERO_BUDGET
    rows = []
    for k in range(args.first, args.first + args.cases):
        s, y, g, metric, lam = case(k)
        kw = dict(scores=s, y=y, sensitive_features=g, metric=metric, lam=lam,
                  backend=args.backend)
        if str(k) not in cache:
            ex, t_ex = cpu_seconds(**kw, solver="exact")
            cache[str(k)] = {"objective": ex.objective, "seconds": t_ex,
                             "states": ex.extra.get("front_states", 0)}
            tmp = args.cache + ".tmp"
            with open(tmp, "w") as f:
                json.dump(cache, f)
            os.replace(tmp, args.cache)
        opt = cache[str(k)]["objective"]
        rule, t_rule = cpu_seconds(**kw, solver="paper")
        t_search = None
        if args.beam:
            _exact.BEAM_WIDTH = 0
            _, t_search = cpu_seconds(**kw, exact_budget=args.budget)
        if args.beam is not None:
            _exact.BEAM_WIDTH, _exact.BEAM_AT_ZERO_BUDGET = args.beam, True
        got, t_got = cpu_seconds(**kw, exact_budget=args.budget)
        _exact.BEAM_WIDTH, _exact.BEAM_AT_ZERO_BUDGET = width, zero
        row = dict(case=k, n=s.size, n_a=int((g == 0).sum()), metric=metric, lam=lam,
                   shortfall=opt - got.objective, gain=got.objective - rule.objective,
                   bound_ok=got.upper_bound is None or got.upper_bound >= opt - 1e-12,
                   solver=got.solver, why=got.extra.get("solver_reason", ""),
                   t_rule=t_rule, t_auto=t_got, t_exact=cache[str(k)]["seconds"],
                   states=cache[str(k)]["states"], t_search=t_search,
                   beam_states=got.extra.get("beam_states"),
                   beam_dive=got.extra.get("beam_dive"))
        rows.append(row)
        print(f"{k:3d} n={row['n']:5d} {metric:4s} lam={lam:5.2f} short={row['shortfall']:.2e}"
              f" gain={row['gain']:.2e} bound_ok={row['bound_ok']} {row['solver']:10s}"
              f" t={t_got:.3f}s rule={t_rule:.3f}s exact={row['t_exact']:.1f}s"
              + (f" search={t_search:.3f}s beam_states={row['beam_states']}"
                 if args.beam else ""),
              flush=True)
    short = np.array([r["shortfall"] for r in rows])
    summary = {
        "cases": len(rows), "budget": args.budget, "backend": args.backend,
        "beam": args.beam,
        "at_most_1e-4": int((short <= 1e-4).sum()),
        "over_1e-3": int((short > 1e-3).sum()),
        "below_rule": int(sum(r["gain"] < -1e-12 for r in rows)),
        "bound_below_optimum": int(sum(not r["bound_ok"] for r in rows)),
        "median": float(np.median(short)), "p90": float(np.quantile(short, 0.9)),
        "worst": float(short.max()),
        "time_ratio_median": float(np.median([r["t_auto"] / r["t_rule"] for r in rows])),
        "cpu_median": float(np.median([r["t_auto"] for r in rows])),
        "cpu_max": float(max(r["t_auto"] for r in rows)),
    }
    if args.beam:
        ratio = [r["t_auto"] / r["t_search"] for r in rows]
        summary.update(search_cpu_median=float(np.median([r["t_search"] for r in rows])),
                       over_search_median=float(np.median(ratio)),
                       over_search_max=float(max(ratio)))
    return report(summary, rows, args.out)


def report(summary, rows, out):
    """Print ``summary``; with ``out``, write it and the ``rows`` as JSON."""
    print(json.dumps(summary, indent=1))
    if out:
        with open(out, "w") as f:
            json.dump({"summary": summary, "rows": rows}, f, indent=1)
    return summary


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
