"""The default solver against the cell rule: time ratio, objective gain, certified gap
and fills, optionally against the default solver of another git revision.

Run from the source tree::

    PYTHONPATH=. python benchmarks/auto_vs_rule.py [--sizes 1000 3000 10000]
        [--metrics xauc prf urf] [--lams 0.05 0.5 2] [--data synth compas adult]
        [--backend numpy] [--repeat 2] [--baseline REF] [--force] [--threads N]
        [--out FILE]

Each case is one ``fair_order`` call with one lam on two groups of ``n`` items
(``synth``: the synthetic problem of ``solver_table.py``; ``compas``, ``adult``: ``n``
items drawn from each group of the training split's logistic-regression scores, the
paper's protocol, repetition 0). ``solver="paper"`` (the cell rule) and ``"auto"`` are
timed alternately ``--repeat`` times (the fastest run counts). Reported: both
objectives ``J = AUC - lam |D|``, the gain, auto's certified gap, the solver that ran,
both times (wall clock and the process's CPU time) and their ratios, and auto's fills:
with decision bits, without (final counters only), how many of them ran on the lattice
of label runs (the signed fills) and their cells, and the coarse start's cells, in
fills of the lattice; "fill ratio" is their sum over the rule's one fill, the unit that
carries to another engine.

``--baseline REF`` solves the same cases with the code of git revision REF (extracted
with ``git archive`` to a temporary directory, run in a subprocess, alternately with
this tree's code: the same machine, the same run): its objective, whether its
ordering and bound are this tree's, its time over this run's rule time (wall and CPU)
and its fill ratio. ``--force`` lifts the NumPy size
limit of ``solver="auto"`` (``_numpy_engine.CERTIFIED_CELLS``) in both, so that the search
runs at 10^4 per group. ``--threads N`` sets numba's threads in both (one: the CPU time is
the work alone, without the waits of two threads' pipeline, which vary with the load).
Prints a rich table and writes it as Markdown.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def case_data(data, n):
    """``(scores, y, groups)`` of a case, or None when a group has fewer than n items."""
    if data == "synth":
        from solver_table import problem

        return problem(n)
    from gpu_xorder.datasets import load_dataset
    from gpu_xorder.experiments._experiment import grouping, split_scores

    dataset = load_dataset(data)
    (s, y, a), _ = split_scores(dataset, grouping(dataset, "default"), seed=0)
    labels = np.unique(a)
    if min((a == g).sum() for g in labels) < n:
        return None
    rng = np.random.default_rng(0)
    idx = np.concatenate([rng.choice(np.flatnonzero(a == g), n, replace=False)
                          for g in labels])
    return s[idx], y[idx], np.searchsorted(labels, a[idx])


def solve(problem, metric, lam, solver, backend):
    """``(result, seconds, cpu seconds)`` of one ``fair_order`` call (wall clock and the
    process's CPU time, every thread)."""
    import warnings

    from gpu_xorder import fair_order

    s, y, g = problem
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        res = fair_order(s, y, g, metric=metric, lam=lam, solver=solver, backend=backend)
    return res, time.perf_counter() - t0, time.process_time() - c0


def force_search():
    from gpu_xorder.core import _solvers
    from gpu_xorder.engine import _numpy_engine

    _numpy_engine.CERTIFIED_CELLS = float("inf")
    _solvers.AUTO_LAGRANGIAN_CELLS_NUMPY = float("inf")  # a --baseline before #34


def set_threads(threads):
    """``--threads``: the threads of numba's fills (``numba.set_num_threads``; None:
    numba's default, every core). With one thread the process's CPU time is the fills'
    work alone: no thread waits for another's strip, spinning or sleeping."""
    if threads is not None:
        import numba

        numba.set_num_threads(threads)


def worker(args):
    """One case and solver, several runs: a JSON line (the ``--baseline`` subprocess)."""
    if args.force:
        force_search()
    set_threads(args.threads)
    problem = case_data(args.data[0], args.sizes[0])
    runs = [solve(problem, args.metrics[0], args.lams[0], "auto", args.backend)
            for _ in range(args.repeat)]
    res = runs[-1][0]
    print(json.dumps({"J": res.objective, "bound": res.upper_bound,
                      "s": min(r[1] for r in runs), "cpu": min(r[2] for r in runs),
                      "solver": res.solver, "order": res.order.tolist(),
                      "fills": res.extra.get("fills", {})}))


def baseline_tree(ref):
    """A temporary directory holding ``gpu_xorder`` and ``cpu_reference`` at ``ref``."""
    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True,
                          text=True, check=True, cwd=HERE).stdout.strip()
    tmp = tempfile.mkdtemp(prefix="auto_vs_rule_")
    archive = subprocess.run(["git", "archive", ref, "gpu_xorder", "cpu_reference"],
                             capture_output=True, check=True, cwd=root).stdout
    subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
    return tmp


def run_baseline(tree, data, n, metric, lam, args):
    cmd = [sys.executable, os.path.join(HERE, "auto_vs_rule.py"), "--worker", "--data",
           data, "--sizes", str(n), "--metrics", metric, "--lams", str(lam), "--backend",
           args.backend, "--repeat", str(args.repeat)] + (["--force"] if args.force else [])
    if args.threads is not None:
        cmd += ["--threads", str(args.threads)]
    env = dict(os.environ, PYTHONPATH=tree)
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def case_parser(doc, out, backend, repeat):
    """The options that choose the cases, the backend, the repetitions and the output."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.environ.get("OUT", "."), out))
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000])
    parser.add_argument("--lams", type=float, nargs="+", default=[0.05, 0.5, 2.0])
    parser.add_argument("--metrics", nargs="+", default=["xauc", "prf", "urf"])
    parser.add_argument("--data", nargs="+", default=["synth"])
    parser.add_argument("--backend", default=backend)
    parser.add_argument("--repeat", type=int, default=repeat)
    return parser


def cases(args, console):
    """``(data, n, problem, metric, lam)`` of every case the options name."""
    for data in args.data:
        for n in args.sizes:
            problem = case_data(data, n)
            if problem is None:
                console.print(f"{data}: a group has fewer than {n} items; skipped")
                continue
            for metric in args.metrics:
                for lam in args.lams:
                    yield data, n, problem, metric, lam


def coarse_share(fills, n):
    """The coarse start's cells in fills of the ``n`` x ``n`` lattice."""
    return fills.get("coarse_cells", 0) / ((n + 1) ** 2)


def runs_share(fills, n):
    """The cells of the signed fills that ran on the lattice of label runs, in fills
    of the ``n`` x ``n`` lattice."""
    return fills.get("run_cells", 0) / ((n + 1) ** 2)


def fill_ratio(fills, n):
    """Fills of the lattice (with bits, without; those on the lattice of label runs by
    their cells) and the coarse start's cells, over the cell rule's one fill."""
    from gpu_xorder.core._solvers import lattice_fills

    return lattice_fills(fills, (n + 1) ** 2)


def main(argv=None):
    parser = case_parser(__doc__, "auto_vs_rule.md", "numpy", 2)
    parser.add_argument("--baseline", default=None)
    parser.add_argument("--force", action="store_true")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args)
    set_threads(args.threads)
    from rich.console import Console
    from table_output import emit

    if args.force:
        force_search()
    console = Console(width=200)
    # the default engine is NumPy's: a run meant for numba must say --backend numba
    # (section 11 of issue #44 in RESULTS was measured on NumPy by its omission)
    console.print(f"engine: {args.backend}"
                  + (" (the default; --backend numba for the compiled engine)"
                     if args.backend == "numpy" else ""))
    tree = baseline_tree(args.baseline) if args.baseline else None
    rows = []
    for data, n, problem, metric, lam in cases(args, console):
        row = {"data": data, "n": n, "metric": metric, "lam": lam}
        times = {"paper": [], "auto": []}
        for _ in range(args.repeat):
            for solver in ("paper", "auto"):
                res, seconds, cpu = solve(problem, metric, lam, solver, args.backend)
                times[solver].append((seconds, cpu))
                row[solver] = res
        rule, auto = row.pop("paper"), row.pop("auto")
        fills = auto.extra.get("fills", {})
        row.update(
            rule_J=rule.objective, auto_J=auto.objective,
            gain=auto.objective - rule.objective, gap=auto.gap,
            ran=auto.solver, rule_s=min(t[0] for t in times["paper"]),
            auto_s=min(t[0] for t in times["auto"]),
            rule_cpu=min(t[1] for t in times["paper"]),
            auto_cpu=min(t[1] for t in times["auto"]), bits=fills.get("bit_fills", 0),
            finals=fills.get("final_fills", 0), runs=fills.get("run_fills", 0),
            runs_share=runs_share(fills, n), coarse=coarse_share(fills, n))
        row["ratio"] = row["auto_s"] / row["rule_s"]
        row["cpu_ratio"] = row["auto_cpu"] / row["rule_cpu"]
        row["fill_ratio"] = fill_ratio(fills, n)
        if tree is not None:
            old = run_baseline(tree, data, n, metric, lam, args)
            row.update(old_J=old["J"], vs_old=auto.objective - old["J"],
                       same=old["order"] == auto.order.tolist()
                       and old["bound"] == auto.upper_bound,
                       old_s=old["s"], old_ratio=old["s"] / row["rule_s"],
                       old_cpu_ratio=old["cpu"] / row["rule_cpu"],
                       old_fill_ratio=fill_ratio(old["fills"], n), old_ran=old["solver"])
            if old["bound"] is not None:
                row["old_gap"] = old["bound"] - old["J"]
        rows.append(row)
        console.print({k: v for k, v in row.items()})
    cols = [("data", "data", "{}"), ("n", "n per group", "{}"), ("metric", "metric", "{}"),
            ("lam", "lam", "{:g}"), ("rule_J", "rule J", "{:.6f}"),
            ("auto_J", "auto J", "{:.6f}"), ("gain", "gain", "{:+.2e}"),
            ("gap", "auto gap", "{:.2e}"), ("ran", "auto ran", "{}"),
            ("rule_s", "rule s", "{:.3f}"), ("auto_s", "auto s", "{:.3f}"),
            ("ratio", "time ratio", "{:.1f}"), ("rule_cpu", "rule CPU s", "{:.3f}"),
            ("auto_cpu", "auto CPU s", "{:.3f}"), ("cpu_ratio", "CPU ratio", "{:.1f}"),
            ("bits", "bit fills", "{}"),
            ("finals", "bitless fills", "{}"), ("runs", "of them on runs", "{}"),
            ("runs_share", "runs (fills)", "{:.2f}"), ("coarse", "coarse (fills)", "{:.2f}"),
            ("fill_ratio", "fill ratio", "{:.2f}")]
    if tree is not None:
        cols += [("old_J", f"{args.baseline} J", "{:.6f}"),
                 ("vs_old", "auto - old", "{:+.2e}"), ("old_gap", "old gap", "{:.2e}"),
                 ("same", "same order and bound", "{}"), ("old_ran", "old ran", "{}"),
                 ("old_s", "old s", "{:.3f}"), ("old_ratio", "old time ratio", "{:.1f}"),
                 ("old_cpu_ratio", "old CPU ratio", "{:.1f}"),
                 ("old_fill_ratio", "old fill ratio", "{:.2f}")]
    emit(console, rows, cols, "solver='auto' against the cell rule", args.backend,
         "auto_vs_rule.py", args.out)


if __name__ == "__main__":
    main()
