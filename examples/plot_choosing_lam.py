"""
Choosing lam by cross-validation
================================

``lam`` weighs the disparity against the AUC; the right trade is measured on data the
model has not seen. :class:`~gpu_xorder.FairRanker` is a classifier and xOrder as one
scikit-learn estimator (xOrder learnt from the classifier's out-of-fold scores), and
:func:`~gpu_xorder.fairness_scorer` scores each held-out fold by ``AUC - lam * |D|``.
This example chooses ``lam`` three ways: ``GridSearchCV`` without metadata routing (the
groups ride along as a column of ``X``), ``GridSearchCV`` with routing
(``sensitive_features`` passed to ``fit``), and ``cross_validate`` of a few candidates,
whose per-fold scores it draws.
"""

# %%
# The data
# --------
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import sklearn
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_validate, train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from gpu_xorder import FairRanker, fairness_scorer, metrics
from gpu_xorder.datasets import load_compas

data = load_compas(as_frame=True)
features = ["sex", "age", "race", "juv_fel_count", "juv_misd_count", "juv_other_count",
            "priors_count"]
X_tr, X_te, y_tr, y_te, a_tr, a_te = train_test_split(
    data.X[features], data.y, data.sensitive, test_size=0.3, stratify=data.y,
    random_state=0)
lams = [0, 0.05, 0.5]

# %%
# Without metadata routing: the groups as a column
# ------------------------------------------------
# ``FairRanker(sensitive_features="group")`` reads the groups from the column
# ``"group"`` of ``X``; the classifier drops it. The search then needs no metadata at
# all, and its ``decision_function(X)`` works too.
drop_group = ColumnTransformer([("group", "drop", ["group"])], remainder=StandardScaler())
ranker = FairRanker(Pipeline([("prep", drop_group), ("lr", LogisticRegression())]),
                    cv=3, sensitive_features="group")
by_column = GridSearchCV(ranker, {"lam": lams}, cv=3, scoring=fairness_scorer(lam=1.0))
by_column.fit(X_tr.assign(group=a_tr), y_tr)
fair = by_column.decision_function(X_te.assign(group=a_te))
gap = metrics.disparity(y_te, fair, sensitive_features=a_te, metric="xauc")
print(by_column.best_params_, f"test AUC {metrics.auc(y_te, fair):.3f}, "
      f"Delta-xAUC {gap:.3f}")

# %%
# With metadata routing: the groups passed to ``fit``
# ---------------------------------------------------
# With routing on, ``sensitive_features`` reaches every fold's ``fit`` and the scorer.
# ``multimetric=True`` gives three scorers (``"objective"``, ``"auc"`` and
# ``"neg_disparity"``), so that ``cv_results_`` shows each candidate's AUC and disparity.
sklearn.set_config(enable_metadata_routing=True)
pipe = Pipeline([("scale", StandardScaler()),
                 ("fair", FairRanker(LogisticRegression(), cv=3))])
routed = GridSearchCV(pipe, {"fair__lam": lams}, cv=3, refit="objective",
                      scoring=fairness_scorer(lam=1.0, multimetric=True))
routed.fit(X_tr, y_tr, sensitive_features=a_tr)
table = pd.DataFrame(routed.cv_results_).set_index("param_fair__lam")
print(table[["mean_test_auc", "mean_test_neg_disparity", "mean_test_objective"]].round(3))
print(routed.best_params_)

# %%
# ``cross_validate``: every fold of every candidate
# -------------------------------------------------
# A search reports means; ``cross_validate`` gives each fold's AUC and disparity, which
# shows how much they vary from fold to fold, next to the classifier alone (scored by
# the same scorer, the groups routed to it).
scoring = fairness_scorer(lam=1.0, multimetric=True)
folds = {}
folds["classifier alone"] = cross_validate(
    Pipeline([("scale", StandardScaler()), ("lr", LogisticRegression())]), X_tr, y_tr, cv=5,
    scoring=scoring, params={"sensitive_features": a_tr})
for lam in lams[1:]:
    pipe_lam = Pipeline([("scale", StandardScaler()),
                         ("fair", FairRanker(LogisticRegression(), cv=3, lam=lam))])
    folds[f"FairRanker, lam {lam}"] = cross_validate(
        pipe_lam, X_tr, y_tr, cv=5, scoring=scoring, params={"sensitive_features": a_tr})
sklearn.set_config(enable_metadata_routing=False)

fig, ax = plt.subplots(figsize=(6.4, 4.4))
for (name, res), marker in zip(folds.items(), "osD"):
    ax.scatter(-res["test_neg_disparity"], res["test_auc"], marker=marker, label=name)
    print(f"{name:22} AUC {np.mean(res['test_auc']):.3f} +- {np.std(res['test_auc']):.3f}"
          f"  Delta-xAUC {-np.mean(res['test_neg_disparity']):.3f}"
          f" +- {np.std(res['test_neg_disparity']):.3f}")
ax.set_xlabel("Delta-xAUC of the held-out fold (0: parity)")
ax.set_ylabel("AUC of the held-out fold")
ax.set_title("5-fold cross-validation on COMPAS (race)")
ax.legend()
fig.tight_layout()

# %%
# The folds of the classifier alone sit far to the right: a disparity of about 0.2 in
# every fold. xOrder moves every fold towards parity for a small loss of AUC. Choose the
# candidate on such held-out numbers, then measure it once on the test split.
