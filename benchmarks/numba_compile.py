"""Cold and warm start of the numba engine (issue #47): CPU seconds to compile (or load
from numba's cache) the kernels of every kind of lattice, each phase in a new process.

Run from the source tree (numba installed)::

    PYTHONPATH=. python benchmarks/numba_compile.py [--runs 2] [--threads 1 2]

Every run uses a new, empty ``NUMBA_CACHE_DIR``: a first process compiles (cold), a
second one loads what the first cached (warm). Each process imports the engine and
runs ``smoke_test`` (the two-group xAUC fill and the traceback), then fills one small
lattice of each kind: two groups (xAUC, PRF, URF; the two lean kinds) and an iterative
step with two old groups per metric (the three block kinds), with ``numba.
set_num_threads(t)`` and ``PARALLEL_CELLS = 0`` (every fill on ``t`` threads). Printed:
CPU seconds (``time.process_time``, every thread) and wall seconds of the import, the
smoke test and the kinds, per thread count, cold and warm, and the load average.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

PHASES = """
import json, time, sys
c0, w0 = time.process_time(), time.perf_counter()
import numba, numpy as np
import cpu_reference as cr
from gpu_xorder.engine import _numba_engine as ne
from support.problems import random_problem, two_group_problem
out = {}
def mark(name):
    global c0, w0
    out[name] = (time.process_time() - c0, time.perf_counter() - w0)
    c0, w0 = time.process_time(), time.perf_counter()
ne.available()
mark("import")
ne.smoke_test()
mark("smoke_test")
threads = int(sys.argv[1])
numba.set_num_threads(threads)
ne.PARALLEL_CELLS = 0
rng = np.random.default_rng(0)
for metric in ("xauc", "prf", "urf"):
    s, y, g = two_group_problem(rng, 90, 70, ties=True)
    ne.fill(cr.build_lattice(s, y, g, metric, "absolute"), [0.5])
mark("two-group kinds")
for metric in ("xauc", "prf", "urf"):
    prob = cr.build_problem(*random_problem(rng, (40, 35, 50), metric, True), 3, metric,
                            "absolute")
    ne.solve_multi(prob, 0.5, "iterative")
mark("block kinds")
print(json.dumps(out))
"""


def phases(cache, threads):
    here = os.path.dirname(os.path.abspath(__file__))
    tests = os.path.join(os.path.dirname(here), "tests")
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=os.pathsep.join(
        [tests] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    out = subprocess.run([sys.executable, "-c", PHASES, str(threads)], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args(argv)
    print("| threads | run | cache | import | smoke_test | two-group kinds | block kinds | "
          "total CPU s | total wall s | load |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|---|")
    for threads in args.threads:
        for run in range(args.runs):
            with tempfile.TemporaryDirectory() as cache:
                for when in ("cold", "warm"):
                    load = os.getloadavg()[0]
                    got = phases(cache, threads)
                    cells = " | ".join(f"{got[k][0]:.2f}" for k in got)
                    cpu = sum(v[0] for v in got.values())
                    wall = sum(v[1] for v in got.values())
                    print(f"| {threads} | {run + 1} | {when} | {cells} | {cpu:.2f} | "
                          f"{wall:.2f} | {load:.1f} -> {os.getloadavg()[0]:.1f} |",
                          flush=True)


if __name__ == "__main__":
    main()
