"""Where the time of one ``fair_order`` call goes (cProfile), after a warm-up call.

Run from the source tree::

    PYTHONPATH=. python benchmarks/profile_fit.py [--n 30000] [--solver auto]
        [--backend cupy] [--metric xauc] [--lam 0.5] [--top 30]

Two groups of ``--n`` items (the synthetic problem of ``solver_table.py``, whose groups
differ, so that the solvers' searches do their work); prints the
seconds of the warm-up and of the profiled call, then the functions with the most
cumulative time.
"""

import argparse
import cProfile
import pstats
import time

from solver_table import problem

from gpu_xorder import fair_order


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=30000)
    parser.add_argument("--solver", default="auto")
    parser.add_argument("--backend", default="cupy")
    parser.add_argument("--metric", default="xauc")
    parser.add_argument("--lam", type=float, default=0.5)
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args(argv)
    s, y, g = problem(args.n)
    kw = dict(metric=args.metric, lam=args.lam, solver=args.solver, backend=args.backend)
    for what in ("warm-up", "profiled"):
        profiler = cProfile.Profile() if what == "profiled" else None
        t = time.perf_counter()
        if profiler:
            profiler.enable()
        res = fair_order(s, y, g, **kw)
        if profiler:
            profiler.disable()
        print(f"{what}: {time.perf_counter() - t:.3f} s ({res.solver})", flush=True)
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
