"""xOrder learned from training scores against out-of-fold scores (FairRanker).

Run from the source tree::

    PYTHONPATH=. python benchmarks/oof_scores.py [--out FILE] [--repeats 10]

COMPAS (race), the paper's split (stratified 70/30, seed r for repetition r). For each
model, one fit on the training split scores the test split; xOrder (lam 0.05, lam 0.5,
or the constraint |D| <= 0.05) is learned (a) from the model's own training-split
scores, as the paper's protocol does, and (b) from out-of-fold scores of 5-fold
cross-fitting on the training split (``FairRanker``, whose final model is the same
fit). Test AUC and Delta-xAUC, mean and sd over the repetitions, and the paired
difference. Measurement only (docs/user_guide/choosing_lam.md, "Why FairRanker learns
from out-of-fold scores").
"""

import argparse
import os
import time

import numpy as np
from rich.console import Console
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from table_output import emit

from gpu_xorder import FairRanker, XOrder, metrics
from gpu_xorder.datasets import load_compas

MODELS = {
    "gradient boosting": lambda r: GradientBoostingClassifier(random_state=r),
    "logistic regression": lambda r: make_pipeline(StandardScaler(),
                                                   LogisticRegression(max_iter=1000)),
}


#: xOrder settings compared: (label, XOrder parameters).
SETTINGS = (("lam 0.05", {"lam": 0.05}), ("lam 0.5", {"lam": 0.5}),
            ("max_disparity 0.05", {"max_disparity": 0.05}))


def repetition(data, name, r):
    """Test AUC and Delta-xAUC of every setting, xOrder learned from training scores
    and from out-of-fold scores, on split ``r``."""
    X_tr, X_te, y_tr, y_te, a_tr, a_te = train_test_split(
        data.X, data.y, data.sensitive, test_size=0.3, stratify=data.y, random_state=r)
    start = time.perf_counter()
    ranker = FairRanker(MODELS[name](r), cv=5, lam=0.5).fit(X_tr, y_tr,
                                                            sensitive_features=a_tr)
    seconds = time.perf_counter() - start
    model = ranker.estimator_
    s_tr, s_te = (model.predict_proba(X)[:, 1] for X in (X_tr, X_te))
    out = {"seconds": seconds, "fit_auc_train": metrics.auc(y_tr, s_tr),
           "fit_auc_oof": metrics.auc(y_tr, ranker.fit_scores_),
           "raw_auc": metrics.auc(y_te, s_te),
           "raw_dx": metrics.disparity(y_te, s_te, sensitive_features=a_te, metric="xauc")}
    for label, params in SETTINGS:
        for key, fit_scores in (("train", s_tr), ("oof", ranker.fit_scores_)):
            # what FairRanker(**params) gives, from the same fits
            # (tests/gpu_xorder/postprocessing/test_ranker.py)
            fair = XOrder(**params).fit(fit_scores, y_tr, sensitive_features=a_tr)
            scores = fair.transform(s_te, sensitive_features=a_te)
            out[f"{label} {key} auc"] = metrics.auc(y_te, scores)
            out[f"{label} {key} dx"] = metrics.disparity(y_te, scores, sensitive_features=a_te,
                                                         metric="xauc")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.environ.get("OUT", "."),
                                                      "oof_scores.md"))
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    data = load_compas()
    console = Console()
    rows = []
    for name in MODELS:
        runs = [repetition(data, name, r) for r in range(args.repeats)]

        def stat(key, runs=runs):
            values = np.array([run[key] for run in runs])
            return f"{values.mean():.3f} ± {values.std(ddof=1):.3f}"

        for label, _ in SETTINGS:
            diff = np.array([run[f"{label} oof dx"] - run[f"{label} train dx"]
                             for run in runs])
            rows.append({
                "model": name, "setting": label,
                "input": f"{stat('fit_auc_train')} / {stat('fit_auc_oof')}",
                "raw": f"{stat('raw_auc')} / {stat('raw_dx')}",
                "train": f"{stat(label + ' train auc')} / {stat(label + ' train dx')}",
                "oof": f"{stat(label + ' oof auc')} / {stat(label + ' oof dx')}",
                "diff": f"{diff.mean():+.3f} ± {diff.std(ddof=1):.3f}",
                "wins": f"{int((diff < 0).sum())} of {diff.size}",
                "met": (f"{sum(run[label + ' train dx'] <= 0.05 for run in runs)} / "
                        f"{sum(run[label + ' oof dx'] <= 0.05 for run in runs)}"),
                "seconds": stat("seconds")})
    cols = [("model", "model", "{}"), ("setting", "xOrder", "{}"),
            ("input", "AUC of xOrder's input: training / out-of-fold scores", "{}"),
            ("raw", "test AUC / Δ-xAUC unadjusted", "{}"),
            ("train", "test AUC / Δ-xAUC, xOrder on training scores", "{}"),
            ("oof", "test AUC / Δ-xAUC, xOrder on out-of-fold scores", "{}"),
            ("diff", "Δ-xAUC out-of-fold minus training (paired)", "{}"),
            ("wins", "splits out-of-fold lower", "{}"),
            ("met", "splits with test Δ-xAUC <= 0.05: training / out-of-fold", "{}"),
            ("seconds", "FairRanker fit s", "{}")]
    emit(console, rows, cols, f"COMPAS (race), {args.repeats} splits", "numpy",
         "oof_scores.py", args.out)


if __name__ == "__main__":
    main()
