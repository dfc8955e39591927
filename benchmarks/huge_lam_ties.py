"""The exact solver at weights where ``AUC - lam |D|`` rounds the AUC away (lam 1e16 and
up): against every interleaving, is its ordering of the least ``|D|`` also of the
largest AUC among those? (issue #44; docs/design.md, "At such weights the objective
itself rounds the AUC away").

Run from the source tree::

    PYTHONPATH=.:tests python benchmarks/huge_lam_ties.py [--seed 1] [--problems 200]
        [--lams 1e16 1e20 1e300] [--backends numpy numba]

Problem ``k``: two groups of 1 to 5 items (``support.problems.two_group_problem``, tied
scores in half of them), every metric that is defined, ``solver="exact"``. The oracle
enumerates every interleaving (``all_interleavings`` of the solver tests: AUC and the
signed D of each); a solve is wrong where its ``|D|`` exceeds the least, or its AUC
lies below the largest at the least ``|D|`` (1e-12 either way). Printed: the solves,
the wrong ones, and the first few with their data.
"""

import argparse
import os
import sys
import warnings

import numpy as np

from gpu_xorder import fair_order

sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                             "gpu_xorder", "core"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--problems", type=int, default=200)
    parser.add_argument("--lams", type=float, nargs="+", default=[1e16, 1e20, 1e300])
    parser.add_argument("--backends", nargs="+", default=["numpy", "numba"])
    args = parser.parse_args()
    from test_solvers import all_interleavings

    from support.problems import two_group_problem

    warnings.simplefilter("ignore")
    rng = np.random.default_rng(args.seed)
    solves = wrong = 0
    for _ in range(args.problems):
        n_a, n_b = int(rng.integers(1, 6)), int(rng.integers(1, 6))
        s, y, g = two_group_problem(rng, n_a, n_b, ties=bool(rng.random() < 0.5))
        for metric in ("xauc", "prf", "urf"):
            auc, d = all_interleavings(s, y, g, metric)
            if not (np.all(np.isfinite(d)) and np.all(np.isfinite(auc))):
                continue
            least = np.abs(d).min()
            best = auc[np.abs(d) <= least + 1e-15].max()
            for lam in args.lams:
                for backend in args.backends:
                    try:
                        r = fair_order(s, y, g, metric=metric, lam=lam, solver="exact",
                                       backend=backend)
                    except ValueError:
                        continue
                    solves += 1
                    if r.disparity > least + 1e-12 or r.auc < best - 1e-12:
                        wrong += 1
                        if wrong <= 3:
                            print(f"wrong: {metric} lam={lam:g} {backend} AUC {r.auc:.6f} "
                                  f"(best {best:.6f}) |D| {r.disparity!r} (least "
                                  f"{least!r}); scores {s.tolist()} y {y.tolist()} "
                                  f"groups {g.tolist()}")
    print(f"solves {solves}, wrong {wrong}")


if __name__ == "__main__":
    main()
