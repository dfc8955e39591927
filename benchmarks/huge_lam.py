"""The default solver at huge weights (lam 1e3-1e8, where users ask for parity): its
objective against the exact optimum, and its time (issue #44).

Run from the source tree::

    PYTHONPATH=. python benchmarks/huge_lam.py [--cases 24] [--backend numba]
        [--budget 2] [--cache FILE] [--out FILE]

Case ``k`` (seeded by ``k``): two groups of 60 to 120 items, labels with prevalence
0.2 to 0.5, scores ``effect * y + shift * g + N(0, 1)``, metric ``("xauc", "prf",
"urf")[k % 3]``, lam ``10 ** (3 + 5 * u)`` for u uniform in [0, 1]. The exact optimum
(``solver="exact"``) is kept in ``--cache`` (JSON) and read back on later runs. The
default solver (``exact_budget=--budget``) is timed (CPU seconds). Reported per case:
the shortfall to the optimum, both disparities, whether the bound lies at or above the
optimum, the solver that ran and the times; then the shortfalls' distribution.
"""

import argparse
import json
import os
import sys

import numpy as np

from gpu_xorder import fair_order

METRICS = ("xauc", "prf", "urf")


def case(k):
    """``(scores, y, groups, metric, lam)`` of case ``k``."""
    rng = np.random.default_rng(5000 + k)
    n_a, n_b = (int(v) for v in rng.integers(60, 121, size=2))
    g = np.repeat([0, 1], [n_a, n_b])
    y = (rng.random(n_a + n_b) < rng.uniform(0.2, 0.5)).astype(np.int64)
    s = (rng.uniform(0.5, 1.5) * y + rng.uniform(0.2, 1.0) * g
         + rng.normal(0.0, 1.0, n_a + n_b))
    lam = float(10 ** (3 + 5 * rng.random()))
    return s, y, g, METRICS[k % 3], lam


def optimum(kw, cache, k, path):
    """``solver="exact"``'s answer to case ``k`` (keyword arguments ``kw``), timed,
    kept in ``cache`` and written to ``path`` at once (JSON)."""
    from search_shortfall import cpu_seconds

    ex, seconds = cpu_seconds(**kw, solver="exact")
    cache[str(k)] = {"objective": ex.objective, "disparity": ex.disparity,
                     "seconds": seconds, "states": ex.extra.get("front_states", 0)}
    with open(path + ".tmp", "w") as f:
        json.dump(cache, f)
    os.replace(path + ".tmp", path)
    return cache[str(k)]


def main(argv=None):
    from search_shortfall import cpu_seconds, report

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for option, default in (("--cases", 24), ("--first", 0), ("--budget", 2.0),
                            ("--backend", "numba"), ("--cache", "huge_lam_exact.json"),
                            ("--out", None)):
        parser.add_argument(option, default=default,
                            type=None if default is None else type(default))
    args = parser.parse_args(argv)
    cache = json.load(open(args.cache)) if os.path.exists(args.cache) else {}
    s, y, g, _, _ = case(0)
    fair_order(s[::4], y[::4], g[::4], lam=1.0, backend=args.backend)  # compile, load
    rows = []
    for k in range(args.first, args.first + args.cases):
        s, y, g, metric, lam = case(k)
        kw = dict(scores=s, y=y, sensitive_features=g, metric=metric, lam=lam,
                  backend=args.backend)
        opt = cache.get(str(k)) or optimum(kw, cache, k, args.cache)
        got, t_got = cpu_seconds(**kw, exact_budget=args.budget)
        row = dict(case=k, n_a=int((g == 0).sum()), n_b=int((g == 1).sum()),
                   metric=metric, lam=lam, shortfall=opt["objective"] - got.objective,
                   d_auto=got.disparity, d_exact=opt["disparity"],
                   bound_ok=got.upper_bound >= opt["objective"] - 1e-12,
                   solver=got.solver, why=got.extra.get("solver_reason", ""),
                   t_auto=t_got, t_exact=opt["seconds"], states=opt["states"])
        rows.append(row)
        print(f"{k:3d} {row['n_a']:4d}x{row['n_b']:<4d} {metric:4s} lam={lam:9.3g}"
              f" short={row['shortfall']:.2e} D={got.disparity:.2e}"
              f" (exact {opt['disparity']:.2e}) bound_ok={row['bound_ok']}"
              f" {row['solver']:10s} t={t_got:.2f}s exact={opt['seconds']:.2f}s",
              flush=True)
    short = np.array([r["shortfall"] for r in rows])
    summary = {
        "cases": len(rows), "budget": args.budget, "backend": args.backend,
        "at_most_1e-4": int((short <= 1e-4).sum()),
        "over_1e-3": int((short > 1e-3).sum()),
        "over_1": int((short > 1).sum()),
        "bound_below_optimum": int(sum(not r["bound_ok"] for r in rows)),
        "median": float(np.median(short)), "worst": float(short.max()),
        "exact_ran": int(sum(r["solver"] == "exact" for r in rows)),
        "cpu_median": float(np.median([r["t_auto"] for r in rows])),
        "cpu_max": float(max(r["t_auto"] for r in rows)),
        "exact_cpu_median": float(np.median([r["t_exact"] for r in rows])),
    }
    return report(summary, rows, args.out)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
