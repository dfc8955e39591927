"""
Coming from fairlearn
=====================

fairlearn's workflow, step by step, in gpu-xorder's terms (the side-by-side table of
names is on the page :doc:`/fairlearn`). fairlearn judges *decisions*: a classifier's
0/1 predictions, compared across groups by selection rate, error rates and the like, and
``ThresholdOptimizer`` picks a threshold per group. gpu-xorder judges a *ranking*: the
order of the scores themselves, across every threshold at once (AUC, xAUC, PRF, URF), and
xOrder changes only how the groups interleave. This example needs no fairlearn.
"""

# %%
# A classifier, and the groups as ``sensitive_features``
# ------------------------------------------------------
# As in fairlearn, the protected attribute is a separate array (or DataFrame of several
# columns: their intersections) passed as ``sensitive_features``; it need not be a
# feature of the model.
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from gpu_xorder import FairRanker, plot_tradeoff, xorder_path
from gpu_xorder.datasets import load_compas
from gpu_xorder.metrics import RankingMetricFrame

data = load_compas(as_frame=True)
features = ["sex", "age", "race", "juv_fel_count", "juv_misd_count", "juv_other_count",
            "priors_count"]
X_tr, X_te, y_tr, y_te, a_tr, a_te = train_test_split(
    data.X[features], data.y, data.sensitive, test_size=0.3, stratify=data.y,
    random_state=0)
model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X_tr, y_tr)
s_tr, s_te = model.predict_proba(X_tr)[:, 1], model.predict_proba(X_te)[:, 1]

# %%
# ``MetricFrame`` becomes ``RankingMetricFrame``
# ----------------------------------------------
# fairlearn's ``MetricFrame(metrics=..., y_true=..., y_pred=..., sensitive_features=...)``
# has ``overall``, ``by_group`` and ``difference()``. ``RankingMetricFrame`` takes the
# *scores* instead of predictions and has the same three, plus ``by_pair`` (the
# cross-group metrics compare two groups) and ``intervals()``.
frame = RankingMetricFrame(y_te, s_te, sensitive_features=a_te)
print(frame.overall)
print(frame.by_group.round(3))
print(frame.by_pair[["xauc_ab", "xauc_ba", "xauc"]].round(3))
print(frame.difference().round(3))

# %%
# ``ThresholdOptimizer`` becomes ``FairRanker`` (or ``XOrder``)
# -------------------------------------------------------------
# ``ThresholdOptimizer(estimator=..., constraints="equalized_odds")`` wraps a classifier
# and post-processes its scores into decisions, per group. ``FairRanker(estimator,
# lam=...)`` wraps a classifier and post-processes its scores into *fair scores*,
# learnt from out-of-fold scores; ``XOrder`` does the same to scores you already have.
# Both take ``sensitive_features`` in ``fit`` and in ``decision_function`` /
# ``transform``, as ``ThresholdOptimizer`` does in ``fit`` and ``predict``.
ranker = FairRanker(make_pipeline(StandardScaler(), LogisticRegression()), lam=0.5, cv=3)
ranker.fit(X_tr, y_tr, sensitive_features=a_tr)
fair = ranker.decision_function(X_te, sensitive_features=a_te)
print(RankingMetricFrame(y_te, fair, sensitive_features=a_te).difference().round(3))

# %%
# ``plot_model_comparison`` becomes ``plot_tradeoff``
# ---------------------------------------------------
# fairlearn's ``plot_model_comparison`` draws one point per model, a performance metric
# against a disparity. ``plot_tradeoff`` draws one point per xOrder model of a path (one
# ``lam`` each), AUC against Delta-xAUC of its adjusted held-out scores, with DeLong
# error bars, the unadjusted scores marked and the chosen model highlighted.
path = xorder_path(s_tr, y_tr, sensitive_features=a_tr, lams=[0, 0.01, 0.05, 0.5, 2])
ax = plot_tradeoff(path, chosen=0.5, data=(y_te, s_te, a_te), positive="re-offended")
ax.set_title("xOrder path, test split of COMPAS (race)")

# %%
# Where the goals differ
# ----------------------
# A threshold rule makes group-wise *decisions* equal at one operating point; it may
# change the order within a group and says nothing about other thresholds. xOrder keeps
# every group's own order and equalises how the groups' positives and negatives
# interleave over *all* thresholds, which is what matters when the score is read as a
# ranking (who is reviewed first, a risk list, a triage queue). Decide per group with a
# threshold afterwards if a decision is needed; the ranking metrics then describe the
# score every threshold is cut from.
