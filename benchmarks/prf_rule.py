"""PRF cell rules against the exact optimum (two groups, ``AUC - lam |D_PRF|``).

Run from the source tree::

    PYTHONPATH=. python benchmarks/prf_rule.py [--out FILE] [--cases 40]

Ours (the library's cell rule): G-hat counts the within-group positive-above-negative
pairs ``W_a``, ``W_b`` in the PRF terms from the first cell. The public reference code's
rule counts a within-group pair only once it is decided, i.e. once its upper item is
placed: at cell ``(i, j)`` the a-term holds ``W_a(i)``, the pairs whose positive is among
the first ``i`` items of a. Both keep one state per cell; both are compared with the
exact optimum (``solver="exact"``) on random data with distinct scores. Measurement
only: the library keeps its rule (docs/user_guide/solvers.md, "Solvers and the
certificate").
"""

import argparse
import os

import numpy as np
from rich.console import Console
from table_output import emit

import cpu_reference as cr
from gpu_xorder import fair_order


def problem(rng, n_a, n_b):
    g = np.repeat([0, 1], [n_a, n_b])
    y = (rng.random(n_a + n_b) < 0.4).astype(np.int64)
    for k, n in ((0, n_a), (1, n_b)):  # a positive and a negative in every group
        start = 0 if k == 0 else n_a
        y[start], y[start + n - 1] = 1, 0
    s = 0.8 * y + 0.4 * g + rng.normal(0.0, 1.0, n_a + n_b)
    return s, y, g


def decided_rule(lat, lam):
    """The public code's PRF rule, cell by cell: ``(path, final counters)``."""
    y_a, y_b = lat.y_a, lat.y_b_rev[:-1][::-1]
    negleft_a, negleft_b = lat.negleft_a[0], lat.negleft_b_rev[::-1]
    # W(i): within-group pairs whose positive is among the first i items (negatives below)
    w_a = np.concatenate(([0], np.cumsum(y_a * negleft_a[1:])))
    w_b = np.concatenate(([0], np.cumsum(y_b * negleft_b[1:])))
    c = lat.consts
    n_a, n_b = lat.n_a, lat.n_b
    state = {(0, 0): (0, 0)}
    came = {}

    def value(cab, cba, i, j):
        auc = (cab + cba + c.w) * c.inv_auc
        d = (cab + w_a[i]) * c.inv_p[0] - (cba + w_b[j]) * c.inv_p_b
        return auc - lam * abs(d)

    for d in range(1, n_a + n_b + 1):
        for i in range(max(0, d - n_b), min(d, n_a) + 1):
            j = d - i
            cands = []
            if i > 0:
                cab, cba = state[i - 1, j]
                cands.append((value(cab + y_a[i - 1] * negleft_b[j], cba, i, j), 0,
                              (cab + y_a[i - 1] * negleft_b[j], cba)))
            if j > 0:
                cab, cba = state[i, j - 1]
                cands.append((value(cab, cba + y_b[j - 1] * negleft_a[i], i, j), 1,
                              (cab, cba + y_b[j - 1] * negleft_a[i])))
            best = cands[0] if len(cands) == 1 or cands[0][0] > cands[1][0] else cands[-1]
            state[i, j] = best[2]
            came[i, j] = best[1]
    path, i, j = [], n_a, n_b
    while i or j:
        path.append(came[i, j])
        i, j = (i - 1, j) if came[i, j] == 0 else (i, j - 1)
    return path[::-1], np.array(state[n_a, n_b], dtype=np.int64)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.environ.get("OUT", "."),
                                                      "prf_rule.md"))
    parser.add_argument("--cases", type=int, default=40)
    args = parser.parse_args(argv)
    console = Console(width=140)
    rows = []
    for sizes, lam in [((12, 22), 0.1), ((12, 22), 0.5), ((12, 22), 2.0),
                       ((60, 60), 0.5), ((60, 60), 2.0)]:
        rng = np.random.default_rng(0)
        cases = args.cases if sizes[1] <= 22 else max(4, args.cases // 5)
        gaps_ours, gaps_public, ours_better, public_better = [], [], 0, 0
        for _ in range(cases):
            n_a, n_b = (int(rng.integers(sizes[0], sizes[1] + 1)) for _ in range(2))
            s, y, g = problem(rng, n_a, n_b)
            lat = cr.build_lattice(s, y, g, "prf", "absolute")
            ours = fair_order(s, y, g, metric="prf", lam=lam, solver="paper",
                              backend="numpy").objective
            exact = fair_order(s, y, g, metric="prf", lam=lam, solver="exact",
                               backend="numpy").objective
            _, final = decided_rule(lat, lam)
            public = cr.cell_values(final, lat.consts, lam, "prf", "absolute")[0]
            gaps_ours.append(exact - ours)
            gaps_public.append(exact - public)
            ours_better += ours > public + 1e-12
            public_better += public > ours + 1e-12
        row = {"sizes": f"{sizes[0]}-{sizes[1]}", "lam": lam, "cases": cases,
               "ours_opt": sum(gap <= 1e-12 for gap in gaps_ours),
               "public_opt": sum(gap <= 1e-12 for gap in gaps_public),
               "ours_gap": float(np.mean(gaps_ours)),
               "public_gap": float(np.mean(gaps_public)),
               "ours_better": ours_better, "public_better": public_better}
        rows.append(row)
        console.print(row)
    cols = [("sizes", "items per group", "{}"), ("lam", "lam", "{:g}"),
            ("cases", "cases", "{}"), ("ours_opt", "ours optimal", "{}"),
            ("public_opt", "public optimal", "{}"), ("ours_gap", "ours mean gap", "{:.4f}"),
            ("public_gap", "public mean gap", "{:.4f}"),
            ("ours_better", "ours higher", "{}"), ("public_better", "public higher", "{}")]
    emit(console, rows, cols, "PRF cell rules against the exact optimum", "numpy",
         "prf_rule.py", args.out)


if __name__ == "__main__":
    main()
