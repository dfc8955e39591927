"""Two constants of the default solver's cost against measurements: the fills a search
takes per lam (``core._solvers.EXPECTED_AUTO_FILLS``, what progress reports and the
plan's estimates count on) and the bounded front's worst-case cost
(``core._exact.beam_cost``, which ``beam_fits`` sets against the budget).

Run from the source tree::

    PYTHONPATH=. python benchmarks/cost_constants.py [--cases 51] [--backend numba]
        [--out FILE]

The problems are those of ``search_shortfall.py``. Per case: the default solver at
``exact_budget=0`` (the search alone), its fills of the lattice (bit fills, bitless
fills and the coarse start's cells in lattices); then the bounded front after that
search (``BEAM_AT_ZERO_BUDGET``, the compiled fronts only), its CPU time against
``beam_cost`` and its states against the worst case ``BEAM_WIDTH`` per cell.
"""

import os
import sys

import numpy as np

from gpu_xorder import fair_order
from gpu_xorder.core import _exact, _solvers


def main(argv=None):
    from exact_estimate import options, timing
    from search_shortfall import case, report

    args = options(argv, __doc__)
    timed = {}
    plain = _solvers.beam
    beam = timing(plain, timed)
    s, y, g, _, _ = case(0)
    fair_order(s[::8], y[::8], g[::8], lam=1.0, backend=args.backend)  # compile, load
    cost = _exact.fronts_for(args.backend).cost
    rows = []
    for k in range(args.first, args.first + args.cases):
        s, y, g, metric, lam = case(k)
        n_a, n_b = int((g == 0).sum()), int((g == 1).sum())
        kw = dict(metric=metric, lam=lam, backend=args.backend, exact_budget=0)
        res = fair_order(s, y, g, **kw)
        fills = _solvers.lattice_fills(res.extra["fills"], (n_a + 1) * (n_b + 1))
        timed.clear()
        _solvers.beam, _exact.BEAM_AT_ZERO_BUDGET = beam, True
        try:
            fair_order(s, y, g, **kw)
        finally:
            _solvers.beam, _exact.BEAM_AT_ZERO_BUDGET = plain, False
        row = dict(case=k, n_a=n_a, n_b=n_b, metric=metric, lam=lam, fills=fills,
                   bit_fills=res.extra["fills"]["bit_fills"],
                   final_fills=res.extra["fills"]["final_fills"])
        if "seconds" in timed:
            worst = _exact.beam_cost(n_a, n_b, _exact.BEAM_WIDTH, cost)
            states = timed["stats"].get("states", 0)
            row.update(beam_seconds=timed["seconds"], beam_model=worst,
                       beam_ratio=timed["seconds"] / worst,
                       beam_states_per_cell=states / ((n_a + 1) * (n_b + 1)))
        rows.append(row)
        print(f"{k:3d} {n_a:4d}x{n_b:<4d} {metric:4s} fills={fills:5.2f}"
              + (f" beam {row['beam_seconds']:.3f}s model {row['beam_model']:.3f}s"
                 f" ratio {row['beam_ratio']:.2f} states/cell"
                 f" {row['beam_states_per_cell']:.2f}" if "beam_seconds" in row else ""),
              flush=True)
    fills = np.array([r["fills"] for r in rows])
    ratio = np.array([r["beam_ratio"] for r in rows if "beam_ratio" in r])
    summary = {"cases": len(rows), "backend": args.backend,
               "fills_mean": float(fills.mean()), "fills_median": float(np.median(fills)),
               "fills_max": float(fills.max()),
               "expected_auto_fills": _solvers.EXPECTED_AUTO_FILLS,
               "beam_cases": int(ratio.size)}
    if ratio.size:
        summary.update(beam_ratio_median=float(np.median(ratio)),
                       beam_ratio_max=float(ratio.max()),
                       beam_ratio_min=float(ratio.min()))
    return report(summary, rows, args.out)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
