"""Does the training objective the default solver gains carry over to new data?

Run from the source tree::

    PYTHONPATH=. python benchmarks/held_out.py [--data compas adult german framingham]
        [--seeds 0 1 2 3 4] [--metrics xauc prf] [--lams 0.1 0.5 1] [--backend numpy]
        [--out FILE]

For each bundled data set and split seed (the paper's protocol: a stratified 70/30
split, standardised features, a logistic regression; the paper's attribute), each
metric and lam, three fits on the training scores, scored on the test split by the
objective ``AUC - lam |D|`` of the transferred scores:

- ``paper``: ``XOrder(lam, solver="paper")``, the cell rule;
- ``auto``: ``XOrder(lam)``, the default solver;
- ``held-out``: the weight the DP uses chosen on held-out data: ``XOrder(lam,
  validation=0.3)`` fits the weights ``VALIDATION_LAMS`` on 70% of the training data,
  keeps the one whose transferred held-out scores score the best ``AUC - lam |D|``, and
  refits with it on all the training data.

Prints one row per fit and a summary per metric (mean test gain over ``paper``, how
many fits gained and lost), and writes both as Markdown.
"""

import argparse
import os
import time
import warnings

import numpy as np
from rich.console import Console
from table_output import emit

from gpu_xorder import XOrder, metrics
from gpu_xorder.datasets import load_dataset
from gpu_xorder.experiments._experiment import grouping, split_scores


def test_objective(model, test, metric, lam):
    s, y, a = test
    adjusted = model.transform(s, sensitive_features=a)
    return metrics.auc(y, adjusted) - lam * metrics.disparity(y, adjusted,
                                                              sensitive_features=a,
                                                              metric=metric)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.environ.get("OUT", "."),
                                                      "held_out.md"))
    parser.add_argument("--data", nargs="+",
                        default=["compas", "adult", "german", "framingham"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--metrics", nargs="+", default=["xauc", "prf"])
    parser.add_argument("--lams", type=float, nargs="+", default=[0.1, 0.5, 1.0])
    parser.add_argument("--backend", default="numpy")
    args = parser.parse_args(argv)
    console = Console(width=170)
    rows = []
    for name in args.data:
        dataset = load_dataset(name)
        for seed in args.seeds:
            train, test = split_scores(dataset, grouping(dataset, "default"), seed=seed)
            for metric in args.metrics:
                for lam in args.lams:
                    row = {"data": name, "seed": seed, "metric": metric, "lam": lam}
                    fits = {"paper": dict(solver="paper"), "auto": {},
                            "held": dict(validation=0.3)}
                    for key, kw in fits.items():
                        t0 = time.perf_counter()
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore", UserWarning)
                            model = XOrder(metric=metric, lam=lam, backend=args.backend,
                                           **kw).fit(train[0], train[1],
                                                     sensitive_features=train[2])
                        row[f"{key}_s"] = time.perf_counter() - t0
                        row[f"{key}_train"] = model.result_.objective
                        row[f"{key}_test"] = test_objective(model, test, metric, lam)
                        if key == "held":
                            row["chosen"] = model.validation_["chosen"]
                    for key in ("auto", "held"):
                        row[f"{key}_gain"] = row[f"{key}_test"] - row["paper_test"]
                    row["train_gain"] = row["auto_train"] - row["paper_train"]
                    rows.append(row)
                    console.print({k: (round(v, 6) if isinstance(v, float) else v)
                                   for k, v in row.items()})
    summary = []
    for metric in args.metrics:
        for lam in [None] + list(args.lams):
            sel = [r for r in rows if r["metric"] == metric and (lam is None
                                                                  or r["lam"] == lam)]
            if not sel:
                continue
            out = {"metric": metric, "lam": "all" if lam is None else f"{lam:g}",
                   "fits": len(sel),
                   "train_gain": np.mean([r["train_gain"] for r in sel])}
            for key in ("auto", "held"):
                gains = np.array([r[f"{key}_gain"] for r in sel])
                out[f"{key}_mean"] = gains.mean()
                out[f"{key}_better"] = int((gains > 1e-12).sum())
                out[f"{key}_worse"] = int((gains < -1e-12).sum())
            summary.append(out)
    cols = [("data", "data", "{}"), ("seed", "seed", "{}"), ("metric", "metric", "{}"),
            ("lam", "lam", "{:g}"), ("paper_train", "train J paper", "{:.5f}"),
            ("train_gain", "train gain auto", "{:+.5f}"),
            ("paper_test", "test J paper", "{:.5f}"),
            ("auto_gain", "test gain auto", "{:+.5f}"),
            ("held_gain", "test gain held-out", "{:+.5f}"),
            ("chosen", "held-out weight", "{:g}"), ("paper_s", "paper s", "{:.2f}"),
            ("auto_s", "auto s", "{:.2f}"), ("held_s", "held-out s", "{:.2f}")]
    emit(console, rows, cols, "Training gains on test data", args.backend, "held_out.py",
         args.out)
    scols = [("metric", "metric", "{}"), ("lam", "lam", "{}"), ("fits", "fits", "{}"),
             ("train_gain", "mean train gain auto", "{:+.5f}"),
             ("auto_mean", "mean test gain auto", "{:+.5f}"),
             ("auto_better", "auto better", "{}"), ("auto_worse", "auto worse", "{}"),
             ("held_mean", "mean test gain held-out", "{:+.5f}"),
             ("held_better", "held-out better", "{}"),
             ("held_worse", "held-out worse", "{}")]
    base, ext = os.path.splitext(args.out)
    emit(console, summary, scols, "Summary (test objective against the cell rule)",
         args.backend, "held_out.py", f"{base}_summary{ext}")


if __name__ == "__main__":
    main()
