"""What each pass of ``solver="auto"`` buys: the default against variants that leave a
pass of the lattice out, in objective and in time over the cell rule.

Run from the source tree::

    PYTHONPATH=. python benchmarks/auto_variants.py [--sizes 1000 3000 10000]
        [--metrics xauc prf urf] [--lams 0.05 0.5 2] [--data synth compas adult]
        [--backend numba] [--repeat 3] [--out FILE]

``auto`` fills the lattice three or four times (docs/design.md, section 3.5): the cell
rule at lam (without bits), the rule at ``RULE_RATIO |mu0|``, the signed fill at the
coarse start's ``mu0`` and, in most cases, one refinement round. The variants (the
solver's module patched for the call, nothing else changed):

- ``no ratio rule``: without the rule at ``RULE_RATIO |mu0|``;
- ``block rules``: that rule replaced by the rule at ``(1, 1.25, 1.5, 2) |mu0|`` and at
  lam on the finest coarse block lattice (1/64 of the cells or fewer), the paths
  expanded to the item lattice;
- ``no refinement``: ``AUTO_FINE_ROUNDS = 0``;
- ``two passes``: neither the ratio rule nor the refinement.

The cases are those of ``auto_vs_rule.py``; the cell rule and every solver are timed
alternately ``--repeat`` times (the fastest run counts). Reported: auto's objective and
certified gap, each variant's objective minus auto's and its time over the rule's.
"""

import contextlib
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from auto_vs_rule import case_parser, cases, solve  # noqa: E402

#: Weights (in |mu0|) of the block-lattice rules of the ``block rules`` variant.
BLOCK_RATIOS = (1.0, 1.25, 1.5, 2.0)

VARIANTS = ("no ratio rule", "block rules", "no refinement", "two passes")


@contextlib.contextmanager
def variant(name):
    """The solver's module patched for ``name`` while the block runs."""
    import cpu_reference
    from gpu_xorder.core import _solvers

    saved = {k: getattr(_solvers, k) for k in ("_rules", "_coarse", "AUTO_FINE_ROUNDS")}
    rules, coarse, seen = saved["_rules"], saved["_coarse"], {}

    def start(lat_signed, hi, fills, search, tally):
        seen["mu0"], found = coarse(lat_signed, hi, fills, search, tally)
        return seen["mu0"], found

    def without_ratio(lat, lams, extra, done):
        at_lams, _ = rules(lat, lams, [], done)
        if name != "block rules" or seen.get("mu0") is None:
            return at_lams, []
        k = _solvers.coarse_levels(max(lat.n_a, lat.n_b))[-1]
        blocks = cpu_reference.block_lattice(lat, k)
        weights = [r * abs(seen["mu0"]) for r in BLOCK_RATIOS] + [float(x) for x in lams]
        out = []
        for path, _ in done._fills(blocks, np.array(weights)):  # not the lattice's
            item_path = cpu_reference.expand_path(path, k, lat.n_a, lat.n_b)
            out.append(_solvers.candidate(lat, item_path,
                                          cpu_reference.path_counters(lat, item_path)))
        done.tally.coarse_fills += len(weights)
        done.tally.coarse_cells += len(weights) * blocks.n_cells
        return at_lams, out

    try:
        _solvers._coarse = start
        if name in ("no ratio rule", "block rules", "two passes"):
            _solvers._rules = without_ratio
        if name in ("no refinement", "two passes"):
            _solvers.AUTO_FINE_ROUNDS = 0
        yield
    finally:
        for k, v in saved.items():
            setattr(_solvers, k, v)


def main(argv=None):
    parser = case_parser(__doc__, "auto_variants.md", "numba", 3)
    args = parser.parse_args(argv)
    from rich.console import Console
    from table_output import emit

    console = Console(width=200)
    rows = []
    for data, n, problem, metric, lam in cases(args, console):
        times, got = {}, {}
        for solver in ("paper", "auto"):  # warm: numba's cache, the data
            solve(problem, metric, lam, solver, args.backend)
        for _ in range(args.repeat):
            for name in ("rule", "auto") + VARIANTS:
                solver = "paper" if name == "rule" else "auto"
                with variant(name) if name in VARIANTS else contextlib.nullcontext():
                    res, seconds, _ = solve(problem, metric, lam, solver, args.backend)
                times[name] = min(times.get(name, np.inf), seconds)
                got[name] = res
        auto = got["auto"]
        row = {"data": data, "n": n, "metric": metric, "lam": lam,
               "auto_J": auto.objective, "gap": auto.gap,
               "auto_x": times["auto"] / times["rule"]}
        for k, name in enumerate(VARIANTS):
            row[f"d{k}"] = got[name].objective - auto.objective
            row[f"x{k}"] = times[name] / times["rule"]
        rows.append(row)
        console.print(row)
    cols = [("data", "data", "{}"), ("n", "n per group", "{}"), ("metric", "metric", "{}"),
            ("lam", "lam", "{:g}"), ("auto_J", "auto J", "{:.6f}"),
            ("gap", "auto gap", "{:.1e}"), ("auto_x", "auto / rule", "{:.1f}")]
    for k, name in enumerate(VARIANTS):
        cols += [(f"d{k}", f"{name}: J - auto J", "{:+.1e}"),
                 (f"x{k}", f"{name} / rule", "{:.1f}")]
    emit(console, rows, cols, "solver='auto' against variants without a pass",
         args.backend, "auto_variants.py", args.out)
    for k, name in enumerate(VARIANTS):
        d = np.array([r[f"d{k}"] for r in rows])
        x = np.array([r[f"x{k}"] for r in rows])
        lower = d < -1e-12
        worst = f" (at most {-d.min():.1e})" if lower.any() else ""
        console.print(f"{name}: lower than auto in {lower.sum()} of {d.size} cases{worst}, "
                      f"higher in {(d > 1e-12).sum()}; time over the rule "
                      f"{x.min():.1f}-{x.max():.1f}")


if __name__ == "__main__":
    main()
