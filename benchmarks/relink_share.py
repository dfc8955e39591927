"""The relink's share of a default solve, with the NumPy reference and with numba's
compiled twin (issue #44, deliverable 4; issue #46, deliverable 1), in one run.

Run from the source tree::

    PYTHONPATH=. python benchmarks/relink_share.py [--sizes 3000 10000]
        [--metrics xauc prf urf] [--lams 0.5 2] [--repeat 3]

Each case (the synthetic problem of ``solver_table.py``, ``n`` per group, numba
engine) is solved by the cell rule and by ``solver="auto"`` with each relink
(``core._solvers.relink_for`` patched), alternately, ``--repeat`` times; the fastest
CPU time counts (``time.process_time``, every thread). Reported: the relinks' CPU
seconds, their share of the solve, and the solve over the cell rule, for each relink;
the two answers are checked equal.
"""

import argparse
import os
import sys
import time

import numpy as np

import cpu_reference
from gpu_xorder import fair_order
from gpu_xorder.core import _solvers


def main(argv=None):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from solver_table import problem

    from gpu_xorder.engine._numba_relink import relink as compiled

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[3000, 10000])
    parser.add_argument("--metrics", nargs="+", default=["xauc", "prf", "urf"])
    parser.add_argument("--lams", type=float, nargs="+", default=[0.5, 2.0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    spent = [0.0]

    def timed(relink):
        def run(*a, **kw):
            t0 = time.process_time()
            out = relink(*a, **kw)
            spent[0] += time.process_time() - t0
            return out
        return run

    relinks = {"numpy": timed(cpu_reference.relink), "numba": timed(compiled)}
    s, y, g = problem(200)
    fair_order(s, y, g, lam=1.0, backend="numba", exact_budget=0)  # compile, load
    print("n metric lam | rule s | numpy: auto s, relink s, share, ratio | numba: auto s, "
          "relink s, share, ratio")
    for n in args.sizes:
        s, y, g = problem(n)
        for metric in args.metrics:
            for lam in args.lams:
                best = {"rule": np.inf, "numpy": (np.inf, 0.0), "numba": (np.inf, 0.0)}
                answers = {}
                for _ in range(args.repeat):
                    t0 = time.process_time()
                    fair_order(s, y, g, metric=metric, lam=lam, solver="paper",
                               backend="numba")
                    best["rule"] = min(best["rule"], time.process_time() - t0)
                    for name, relink in relinks.items():
                        _solvers.relink_for = lambda engine, relink=relink: relink
                        spent[0] = 0.0
                        t0 = time.process_time()
                        res = fair_order(s, y, g, metric=metric, lam=lam, backend="numba")
                        total = time.process_time() - t0
                        if total < best[name][0]:
                            best[name] = (total, spent[0])
                        answers[name] = (res.order.tolist(), res.objective)
                assert answers["numpy"] == answers["numba"]
                rule = best["rule"]
                line = f"{n} {metric} {lam:g} | {rule:.3f}"
                for name in relinks:
                    total, rel = best[name]
                    line += (f" | {total:.3f} {rel:.4f} {rel / total:5.1%} "
                             f"{total / rule:.2f}x")
                print(line, flush=True)


if __name__ == "__main__":
    main()
