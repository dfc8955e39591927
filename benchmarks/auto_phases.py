"""Where the CPU time of ``solver="auto"`` goes, in units of the cell rule's: the fills
of the lattice, of its lattice of label runs and of the coarse start's block lattices,
the coarse start's own work, the relinks, and the rest (the search's bookkeeping, the
result; on a lattice of at most ``EXACT_MAX_CELLS`` cells, 2**22, also the polish, the
bounded front and the exact solver: at 500 per group, urf, lam 2, NumPy, "rest" was 75
rule calls of auto's 80), per case.

Run from the source tree (or with ``PYTHONPATH`` at another tree's checkout, to measure
its code: a part its code lacks counts in "rest")::

    PYTHONPATH=. python benchmarks/auto_phases.py [--sizes 3000 10000]
        [--metrics xauc prf urf] [--lams 0.05 0.5 2] [--backend numba] [--threads 1]
        [--repeat 5] [--out FILE]

The cases are ``auto_vs_rule.py``'s. ``solver="paper"`` and ``"auto"`` are run
alternately ``--repeat`` times; of each, the run of least CPU time (the process's, every
thread) counts, with the CPU time of each part in it, timed around the engine's fills
(``solve`` and ``final_counters``: a lattice of the solve's size is the lattice, a block
lattice of ``cpu_reference.block_lattice`` the coarse start's, any other the lattice of
label runs), ``_solvers._coarse`` (less its fills) and ``_solvers._item_path`` (the
coarse paths expanded to items where needed, after the coarse start): "coarse other",
and ``_solvers._relinked`` (the relinks of the candidates, their states and candidates).
Each part is given over the rule's whole call (of which its one fill is given too: the
rest of it, validation, the lattice, the result, auto pays as well and counts in its
"rest"): the parts add up to auto's CPU ratio.
``--threads`` sets numba's threads (default 1: the CPU time is the work alone, without
the waits of a threaded fill's pipeline).
"""

import collections
import functools
import time
import warnings

from auto_vs_rule import case_parser, cases, set_threads

PARTS = ("lattice fills", "runs fills", "coarse fills", "coarse other", "relinks", "rest")


class Clock:
    """CPU seconds of the parts of one call, from wrappers around the functions that
    make them."""

    def __init__(self):
        self.parts = collections.defaultdict(float)
        self.blocks = {}         # the block lattices of the call, by id (kept alive,
        #                          so that no other lattice takes an id of theirs)
        self.cells = None        # the lattice's cells

    def timed(self, fn, part):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            c0 = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self.parts[part(*args) if callable(part) else part] += (
                    time.process_time() - c0)
        return run

    def fill_part(self, lat, *_):
        if lat.n_cells == self.cells:
            return "lattice fills"
        return "coarse fills" if id(lat) in self.blocks else "runs fills"


def instrument(clock, engine):
    """Wrap the engine's fills, the block lattices, the coarse start and the relinks;
    a part the code lacks is left out."""
    import cpu_reference
    from gpu_xorder.core import _solvers

    for name in ("solve", "final_counters"):
        setattr(engine, name, clock.timed(getattr(engine, name), clock.fill_part))
    block_lattice = cpu_reference.block_lattice

    def blocks(lat, k):
        out = block_lattice(lat, k)
        clock.blocks[id(out)] = out
        return out

    cpu_reference.block_lattice = blocks
    for name, part in (("_coarse", "coarse"), ("_item_path", "coarse"),
                       ("_relinked", "relinks")):
        if hasattr(_solvers, name):
            setattr(_solvers, name, clock.timed(getattr(_solvers, name), part))


def measure(clock, problem, metric, lam, solver, backend):
    from gpu_xorder import fair_order

    s, y, g = problem
    clock.parts.clear()
    clock.blocks.clear()
    clock.cells = (int((g == 0).sum()) + 1) * (int((g == 1).sum()) + 1)
    c0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        fair_order(s, y, g, metric=metric, lam=lam, solver=solver, backend=backend)
    total = time.process_time() - c0
    parts = dict(clock.parts)
    if "coarse" in parts:
        parts["coarse other"] = parts.pop("coarse") - parts.get("coarse fills", 0.0)
    parts["rest"] = total - sum(parts.values())
    return total, parts


def main(argv=None):
    parser = case_parser(__doc__, "auto_phases.md", "numba", 5)
    parser.set_defaults(sizes=[3000, 10000])
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    from rich.console import Console
    from table_output import emit

    from gpu_xorder.engine import _backend

    set_threads(args.threads)
    clock = Clock()
    instrument(clock, _backend.engine(args.backend))
    console = Console(width=200)
    rows = []
    for data, n, problem, metric, lam in cases(args, console):
        runs = {"paper": [], "auto": []}
        for _ in range(args.repeat):
            for solver in runs:
                runs[solver].append(measure(clock, problem, metric, lam, solver,
                                            args.backend))
        rule, rule_parts = min(runs["paper"], key=lambda r: r[0])
        auto, parts = min(runs["auto"], key=lambda r: r[0])
        row = {"data": data, "n": n, "metric": metric, "lam": lam, "rule_cpu": rule,
               "rule_fill": rule_parts.get("lattice fills", 0.0) / rule,
               "auto_cpu": auto, "ratio": auto / rule}
        row.update({part: parts.get(part, 0.0) / rule for part in PARTS})
        rows.append(row)
        console.print(row)
    cols = [("data", "data", "{}"), ("n", "n per group", "{}"), ("metric", "metric", "{}"),
            ("lam", "lam", "{:g}"), ("rule_cpu", "rule CPU s", "{:.4f}"),
            ("rule_fill", "of it its fill", "{:.2f}"),
            ("auto_cpu", "auto CPU s", "{:.4f}"), ("ratio", "CPU ratio", "{:.2f}")]
    cols += [(part, part, "{:.2f}") for part in PARTS]
    emit(console, rows, cols, "where solver='auto' spends its CPU time, in rule calls",
         f"{args.backend}, {args.threads} thread(s)", "auto_phases.py",
         args.out)


if __name__ == "__main__":
    main()
