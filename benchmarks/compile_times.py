"""Cold compile times of the CUDA kernels (issue #33): a sample of the kernel variants
compiled one after another, in threads and in worker processes, each mode in a fresh
process with an empty CuPy kernel cache; then the first use of the GPU engine in a fresh
process (the self-check, compiles included) with an empty cache and with a warm one.

Run from the source tree on a machine with CuPy and a GPU::

    PYTHONPATH=. python benchmarks/compile_times.py [--count 16] [--jobs 16] [--out FILE]

Writes the seconds as JSON (default ``$OUT/compile_times.json``) and prints them.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

#: Compiles ``count`` variants spread over ``every_variant()`` with ``mode``; prints the
#: seconds. The variants' checks are left out: compiles only.
COMPILE = """
import sys, time
from gpu_xorder.engine import _cupy_engine as ce, _plan
count, jobs, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
every = _plan.every_variant()
variants = every[::max(1, len(every) // count)][:count]
ce.check_variant = lambda name, constants: None
t = time.perf_counter()
n = ce.prepare(variants, jobs=1 if mode == "serial" else jobs, processes=mode == "processes")
print(n, time.perf_counter() - t)
"""

FIRST_USE = """
import time
t = time.perf_counter()
from gpu_xorder.engine._backend import backend_info
info = backend_info()
print(info["self_check"], "|", info.get("self_check_seconds"), "|", time.perf_counter() - t)
"""


def run(code, cache, *args):
    env = {**os.environ, "CUPY_CACHE_DIR": cache}
    out = subprocess.run([sys.executable, "-c", code, *map(str, args)], env=env,
                         capture_output=True, text=True, check=True)
    return out.stdout.strip().splitlines()[-1]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=16)
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("--modes", nargs="+", default=["serial", "threads", "processes"])
    parser.add_argument("--out", default=os.path.join(os.environ.get("OUT", "."),
                                                      "compile_times.json"))
    args = parser.parse_args(argv)
    result = {"count": args.count, "jobs": args.jobs}
    for mode in args.modes:
        with tempfile.TemporaryDirectory() as cache:
            t = time.perf_counter()
            n, seconds = run(COMPILE, cache, args.count, args.jobs, mode).split()
            result[mode] = {"modules": int(n), "seconds": float(seconds),
                            "process_seconds": time.perf_counter() - t}
            print(f"{mode}: {n} variants in {float(seconds):.2f} s "
                  f"({float(seconds) / max(1, int(n)):.2f} s each)", flush=True)
    with tempfile.TemporaryDirectory() as cache:
        for when in ("cold", "warm"):
            check, seconds, total = (v.strip() for v in run(FIRST_USE, cache).split("|"))
            result[f"first_use_{when}"] = {"self_check": check, "seconds": float(seconds),
                                           "process_seconds": float(total)}
            print(f"first use, {when} cache: {check}; self-check {seconds} s, "
                  f"{float(total):.2f} s with imports", flush=True)
    with open(args.out, "w") as fh:
        json.dump(result, fh, indent=1)
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
