"""The default solver against the paper's cell rule on the bundled data sets.

Run from the source tree::

    PYTHONPATH=. python benchmarks/solver_bundled.py [--out FILE] [--lams 0.05 0.5 2]
        [--data compas adult german framingham] [--metric xauc] [--backend numpy]

For each data set, the paper's protocol once (repetition 0: a stratified 70/30 split,
standardised features, a logistic regression; the paper's attribute), then
``XOrder(lam, solver=...)`` fitted on the training scores with ``solver="paper"`` and
``"auto"``: the training objective ``AUC - lam |D|``, its certified gap, the fit time,
and the test AUC and ``|D|`` of the transferred scores. Prints a rich table and writes
it as Markdown.
"""

import argparse
import os
import time

from rich.console import Console
from table_output import emit

from gpu_xorder import XOrder, metrics
from gpu_xorder.datasets import load_dataset
from gpu_xorder.experiments._experiment import grouping, split_scores


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.environ.get("OUT", "."),
                                                      "solver_bundled.md"))
    parser.add_argument("--lams", type=float, nargs="+", default=[0.05, 0.5, 2.0])
    parser.add_argument("--data", nargs="+",
                        default=["compas", "adult", "german", "framingham"])
    parser.add_argument("--metric", default="xauc")
    parser.add_argument("--backend", default="numpy")
    args = parser.parse_args(argv)
    console = Console(width=170)
    rows = []
    for name in args.data:
        dataset = load_dataset(name)
        (s_tr, y_tr, a_tr), (s_te, y_te, a_te) = split_scores(
            dataset, grouping(dataset, "default"), seed=0)
        for lam in args.lams:
            row = {"data": name, "sizes": "/".join(str(int((a_tr == g).sum()))
                                                   for g in sorted(set(a_tr))), "lam": lam}
            for solver in ("paper", "auto"):
                t0 = time.perf_counter()
                xo = XOrder(metric=args.metric, lam=lam, solver=solver,
                            backend=args.backend).fit(s_tr, y_tr, sensitive_features=a_tr)
                seconds = time.perf_counter() - t0
                test = xo.transform(s_te, sensitive_features=a_te)
                r = xo.result_
                row.update({f"{solver}_J": r.objective, f"{solver}_s": seconds,
                            f"{solver}_auc": metrics.auc(y_te, test),
                            f"{solver}_d": metrics.disparity(y_te, test,
                                                             sensitive_features=a_te,
                                                             metric=args.metric)})
                if solver == "auto":
                    row.update(solver=r.solver, gap=r.gap)
            row["gain"] = row["auto_J"] - row["paper_J"]
            rows.append(row)
            console.print(row)
    cols = [("data", "data", "{}"), ("sizes", "train groups", "{}"), ("lam", "lam", "{:g}"),
            ("paper_J", "paper J", "{:.5f}"), ("auto_J", "auto J", "{:.5f}"),
            ("gain", "gain", "{:+.5f}"), ("gap", "auto gap", "{:.2g}"),
            ("solver", "auto ran", "{}"), ("paper_s", "paper s", "{:.2f}"),
            ("auto_s", "auto s", "{:.2f}"),
            ("paper_auc", "test AUC paper", "{:.4f}"), ("auto_auc", "test AUC auto", "{:.4f}"),
            ("paper_d", "test |D| paper", "{:.4f}"), ("auto_d", "test |D| auto", "{:.4f}")]
    emit(console, rows, cols, f"Default solver vs the paper's rule ({args.metric}, training "
         "objective; test metrics of the transferred scores)", args.backend,
         "solver_bundled.py", args.out)


if __name__ == "__main__":
    main()
