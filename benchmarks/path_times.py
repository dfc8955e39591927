"""The 11-lam path and the held-out choice of lam at 800 items: CPU seconds of this
tree against another git revision's, in one run (issue #44, deliverable 3).

Run from the source tree::

    PYTHONPATH=. python benchmarks/path_times.py [--baseline 9de83f7 [REV ...]]
        [--n 400] [--backends numpy numba] [--repeat 3] [--budget B] [--parts]

Cases: ``xorder_path`` over ``VALIDATION_LAMS`` (11 values) and
``XOrder(lam=1, validation=0.3).fit`` on the synthetic problem of ``solver_table.py``
(``--n`` items per group, xAUC). Each runs ``--repeat`` times in a subprocess per tree,
the trees alternating (the same machine, the same run; several ``--baseline`` revisions: each
against this tree); the fastest CPU time counts
(``time.process_time``: every thread of the process). ``--budget``: this tree's
``exact_budget`` (default: the library's default); the baseline has no such parameter.
``--parts``: besides, where the path's CPU time goes in each tree (one more path run,
``PARTS`` timed by wrappers, CPU seconds): the exact solver's fronts (its tries and the
bounded front), their completion tables, the polish and the search.
"""

import argparse
import importlib
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def worker(args):
    sys.path.insert(0, HERE)
    from solver_table import problem

    from gpu_xorder import XOrder, xorder_path
    from gpu_xorder.postprocessing._held_out import VALIDATION_LAMS

    s, y, g = problem(args.n)
    kw = {} if args.budget is None else {"exact_budget": args.budget}
    XOrder(lam=1.0, backend=args.backend, **kw).fit(s[::8], y[::8], sensitive_features=g[::8])
    out = {}
    for name, run in (
            ("path", lambda: xorder_path(s, y, sensitive_features=g, lams=VALIDATION_LAMS,
                                         backend=args.backend, **kw)),
            ("validation", lambda: XOrder(lam=1.0, validation=0.3, backend=args.backend,
                                          **kw).fit(s, y, sensitive_features=g))):
        best = float("inf")
        for _ in range(args.repeat):
            t0 = time.process_time()
            models = run()
            best = min(best, time.process_time() - t0)
        out[name] = best
        if name == "path" and args.parts:
            out["parts"] = parts(run)
        if name == "path":
            out["solvers"] = sorted({m.result_.solver for m in models})
        else:
            out["chosen"] = models.validation_["chosen"]
    print(json.dumps(out))


#: The parts of a path ``--parts`` reports: (name, module, function), each timed by a
#: wrapper around the module's attribute (where the tree has it).
PARTS = (("fronts", "cpu_reference", "solve_fronts"),
         ("fronts", "gpu_xorder.engine._numba_fronts", "solve_fronts"),
         ("tables", "cpu_reference", "completion_values"),
         ("tables", "gpu_xorder.engine._numba_fronts", "completion_tables"),
         ("polish", "gpu_xorder.core._polish", "polish"),
         ("search", "gpu_xorder.core._solvers", "lagrangian"))


def parts(run):
    """CPU seconds of ``PARTS`` in one more ``run()`` (each function wrapped by a
    timer; a module the tree lacks or cannot import is left out), and the run's."""
    out = {"total": 0.0}
    saved = []

    def timed(name, function):
        def wrapper(*args, **kwargs):
            t0 = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                out[name] += time.process_time() - t0
        return wrapper

    for name, module, function in PARTS:
        out.setdefault(name, 0.0)
        try:
            mod = importlib.import_module(module)
        except ImportError:
            continue
        if hasattr(mod, function):
            saved.append((mod, function, getattr(mod, function)))
            setattr(mod, function, timed(name, getattr(mod, function)))
    try:
        t0 = time.process_time()
        run()
        out["total"] = time.process_time() - t0
    finally:
        for mod, function, original in saved:
            setattr(mod, function, original)
    return out


def run_tree(tree, args, backend, budget):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--n", str(args.n),
           "--backend", backend, "--repeat", str(args.repeat)]
    if args.parts:
        cmd.append("--parts")
    if budget is not None:
        cmd += ["--budget", str(budget)]
    env = dict(os.environ, PYTHONPATH=tree)
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", nargs="+", default=["9de83f7"])
    parser.add_argument("--n", type=int, default=400)
    parser.add_argument("--backends", nargs="+", default=["numpy", "numba"])
    parser.add_argument("--backend", default="numpy")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--budget", type=float, default=None)
    parser.add_argument("--parts", action="store_true")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args)
    sys.path.insert(0, HERE)
    from auto_vs_rule import baseline_tree

    olds = [(ref, baseline_tree(ref)) for ref in args.baseline]
    new = os.path.dirname(HERE)
    for backend in args.backends:
        befores = [(ref, run_tree(old, args, backend, None)) for ref, old in olds]
        after = run_tree(new, args, backend, args.budget)
        for ref, before in befores:
            for name in ("path", "validation"):
                print(f"{backend:6s} {name:10s} {ref} {before[name]:7.3f}s this tree "
                      f"{after[name]:7.3f}s ratio {after[name] / before[name]:.2f}",
                      flush=True)
            print(f"{backend:6s} solvers {ref} {before['solvers']} this tree "
                  f"{after['solvers']}; chosen lam {ref} {before['chosen']} this tree "
                  f"{after['chosen']}", flush=True)
            if args.parts:
                for tree, got in ((ref, before), ("this tree", after)):
                    print(f"{backend:6s} parts {tree}: " + ", ".join(
                        f"{k} {v:.3f}s" for k, v in got["parts"].items()), flush=True)


if __name__ == "__main__":
    main()
