"""xOrder on the synthetic large-ICU stand-in (gpu_xorder.datasets.make_icu): the
paper's eICU shape, 127,564 rows and 78 features, age in 2, 5 and 10 bands.

A 70/30 stratified split, a logistic regression, then xOrder (xauc, lam 0.5, the
paper's cell rule) learnt on all 89,294 training scores (the full lattice) and with the
paper's subsampling (every k-th item of each group), each timed, and measured on the
test scores. ``--backend cupy`` runs the full lattices on a GPU. ``--repeats R`` runs
the splits of seeds ``seed`` to ``seed + R - 1`` (the paper's protocol; rows per
repetition, then mean ± sd); ``--kd`` adds, with more than two bands, K-D xOrder and
iterative xOrder on the same every-k-th-item subsample, k the smallest that keeps the
K-D lattice within the library's limit (``experiments._studies.kd_subsample``).

    python benchmarks/icu_standin.py --backend numpy --bands 2 5 10 --subsample 10 50
"""

import argparse
import json
import time

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from gpu_xorder import XOrder, metrics
from gpu_xorder.datasets import icu_age_groups, make_icu
from gpu_xorder.experiments._studies import kd_subsample


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="numpy")
    parser.add_argument("--bands", type=int, nargs="+", default=[2, 5, 10])
    parser.add_argument("--subsample", type=int, nargs="*", default=[10, 50])
    parser.add_argument("--full", type=int, nargs="*", default=None,
                        help="bands whose full lattice runs (default: every --bands)")
    parser.add_argument("--lam", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=0,
                        help="the split of repetition r has seed + r (default 0)")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--kd", action="store_true",
                        help="K-D and iterative xOrder on the K-D subsample too")
    parser.add_argument("--json", help="also write the rows as JSON")
    args = parser.parse_args()
    start = time.perf_counter()
    data = make_icu()
    print(f"generated {data.X.shape} in {time.perf_counter() - start:.1f} s, "
          f"prevalence {data.y.mean():.3f}")
    rows = []
    print("| repetition | bands | how | xOrder s | train Δ-xAUC | test AUC | test Δ-xAUC |")
    print("|---|---|---|---:|---:|---:|---:|")
    for r in range(args.repeats):
        rows += repetition(data, args, args.seed + r, r)
    if args.repeats > 1:
        print("\n| bands | how | xOrder s | train Δ-xAUC | test AUC | test Δ-xAUC |")
        print("|---|---|---:|---:|---:|---:|")
        for key in dict.fromkeys((row["bands"], row["how"]) for row in rows):
            chosen = [row for row in rows if (row["bands"], row["how"]) == key]
            cells = [np.array([row[k] for row in chosen]) for k in
                     ("seconds", "train_xauc", "test_auc", "test_xauc")]
            print(f"| {key[0]} | {key[1]} | " + " | ".join(
                f"{x.mean():.{1 if i == 0 else 3}f} ± {x.std(ddof=1):.{1 if i == 0 else 3}f}"
                for i, x in enumerate(cells)) + " |", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"backend": args.backend, "lam": args.lam, "seed": args.seed,
                       "repeats": args.repeats, "rows": rows}, f, indent=1)


def repetition(data, args, seed, r):
    """One split (seed ``seed``): the rows of every band count and way, printed."""
    idx_tr, idx_te = train_test_split(np.arange(data.y.size), test_size=0.3,
                                      random_state=seed, stratify=data.y)
    scaler = StandardScaler().fit(data.X[idx_tr])
    model = LogisticRegression(max_iter=1000).fit(scaler.transform(data.X[idx_tr]),
                                                  data.y[idx_tr])
    scores = model.predict_proba(scaler.transform(data.X))[:, 1]
    rows = []
    for bands in args.bands:
        groups = icu_age_groups(data.age, bands)
        tr = (scores[idx_tr], data.y[idx_tr], groups[idx_tr])
        te = (scores[idx_te], data.y[idx_te], groups[idx_te])
        ways = [("unadjusted", None, "auto")]
        if args.full is None or bands in args.full:
            ways.append(("full lattice", 1, "auto"))
        ways += [(f"subsample {k}", k, "auto") for k in args.subsample]
        if args.kd and bands > 2:
            k = kd_subsample(np.unique(tr[2], return_counts=True)[1])
            ways += [(f"iterative, subsample {k}", k, "iterative"),
                     (f"K-D, subsample {k}", k, "kd")]
        for how, k, method in ways:
            seconds, s_tr, s_te = 0.0, tr[0], te[0]
            if k is not None:
                start = time.perf_counter()
                xo = XOrder(metric="xauc", lam=args.lam, backend=args.backend,
                            solver="paper", method=method,
                            subsample=None if k == 1 else k)
                xo.fit(tr[0], tr[1], sensitive_features=tr[2])
                seconds = time.perf_counter() - start
                s_tr = xo.transform(tr[0], sensitive_features=tr[2])
                s_te = xo.transform(te[0], sensitive_features=te[2])
            row = {"repetition": r, "seed": seed, "bands": bands, "how": how,
                   "seconds": seconds,
                   "train_xauc": metrics.disparity(tr[1], s_tr, sensitive_features=tr[2]),
                   "test_auc": metrics.auc(te[1], s_te),
                   "test_xauc": metrics.disparity(te[1], s_te, sensitive_features=te[2])}
            rows.append(row)
            print(f"| {r} | {bands} | {how} | {seconds:.1f} | {row['train_xauc']:.3f} | "
                  f"{row['test_auc']:.3f} | {row['test_xauc']:.3f} |", flush=True)
    return rows


if __name__ == "__main__":
    main()
