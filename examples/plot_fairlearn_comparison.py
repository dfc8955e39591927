"""
FairRanker beside fairlearn's ThresholdOptimizer
================================================

The same COMPAS split and the same logistic regression, post-processed two ways:
fairlearn's ``ThresholdOptimizer`` turns the scores into *decisions*, one threshold per
group, under a fairness constraint; gpu-xorder's ``FairRanker`` turns them into *fair
scores* (xOrder, Delta-xAUC, ``lam=0.5``), a ranking any threshold can cut. To compare
decisions with decisions, the fair scores (and the unadjusted ones) are cut so that they
select the same share of people as ``ThresholdOptimizer`` does. Side by side: the gaps
between the groups of that decision (selection rate, true and false positive rates,
precision, each with its 95% interval), and what is left of the ranking (AUC,
Delta-xAUC). The page :doc:`/fairlearn` maps every name of fairlearn to gpu-xorder's.
This example needs fairlearn (``pip install ".[docs]"`` installs it).
"""

# %%
# One split, one model
# --------------------
# The tour's split of COMPAS (race, "non-white" or "white"; ``y = 1``: re-offended within
# two years) and its logistic regression, trained afresh by each post-processing.
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from fairlearn.postprocessing import ThresholdOptimizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from gpu_xorder import FairRanker
from gpu_xorder.datasets import load_compas
from gpu_xorder.metrics import RankingMetricFrame

data = load_compas(as_frame=True)
features = ["sex", "age", "race", "juv_fel_count", "juv_misd_count", "juv_other_count",
            "priors_count"]
X_tr, X_te, y_tr, y_te, a_tr, a_te = train_test_split(
    data.X[features], data.y, data.sensitive, test_size=0.3, stratify=data.y,
    random_state=0)


def model():
    return make_pipeline(StandardScaler(), LogisticRegression())


unadjusted = model().fit(X_tr, y_tr).predict_proba(X_te)[:, 1]
ranker = FairRanker(model(), lam=0.5, cv=3).fit(X_tr, y_tr, sensitive_features=a_tr)
fair = ranker.decision_function(X_te, sensitive_features=a_te)

# %%
# The decisions, measured alike
# -----------------------------
# ``RankingMetricFrame`` measures all three: ``decisions()`` gives the rates of a
# decision per group with Wilson intervals and their largest difference between the
# groups with Newcombe's; ``overall`` and ``difference()`` the ranking metrics of the
# score. ``ThresholdOptimizer``'s output is a 0/1 decision: cut at 1 it selects whom
# it selected, and as a score it is a ranking with two ranks (its AUC is that of the
# decision).
RATES = ["selection_rate", "tpr", "fpr", "precision"]


def measured(score, cut):
    frame = RankingMetricFrame(y_te, score, sensitive_features=a_te)
    row = frame.decisions(**cut).loc["difference"].iloc[0]  # the largest gaps, flat
    gaps = pd.DataFrame({part: [row[rate + suffix] for rate in RATES] for part, suffix
                         in (("estimate", ""), ("low", "_low"), ("high", "_high"))},
                        index=RATES)
    return gaps, frame.overall["auc"], frame.difference()["xauc"]


def side_by_side(constraints):
    """ThresholdOptimizer under ``constraints``, and the two scores cut at its share."""
    optimizer = ThresholdOptimizer(estimator=model(), constraints=constraints,
                                   predict_method="predict_proba")
    optimizer.fit(X_tr, y_tr, sensitive_features=a_tr)
    decided = optimizer.predict(X_te, sensitive_features=a_te, random_state=0)
    share = float(np.mean(decided))
    runs = {"unadjusted": measured(unadjusted, {"top_share": share}),
            "ThresholdOptimizer": measured(decided, {"threshold": 1}),
            "FairRanker": measured(fair, {"top_share": share})}
    table = pd.DataFrame({name: [*gaps["estimate"], auc, xauc]
                          for name, (gaps, auc, xauc) in runs.items()},
                         index=[f"{rate} gap" for rate in RATES] + ["AUC", "Delta-xAUC"])
    return share, table, {name: gaps for name, (gaps, _, _) in runs.items()}


results = {}
for constraints in ("demographic_parity", "equalized_odds"):
    share, table, gaps = side_by_side(constraints)
    if results:
        print()
    results[constraints] = share, table, gaps
    print(f"{constraints}: ThresholdOptimizer selects {share:.3f}; the scores are cut at "
          "that share")
    print(table.round(3).to_string())

# %%
# The gaps with their intervals
# -----------------------------
# Each panel is one constraint of ``ThresholdOptimizer``; the bars are the largest
# differences between the groups of the decision's rates, the lines their 95%
# intervals, and the legend gives each score's AUC.
fig, axes = plt.subplots(1, 2, figsize=(10, 5), sharex=True, constrained_layout=True)
colours = {"unadjusted": "0.6", "ThresholdOptimizer": "tab:orange", "FairRanker": "tab:blue"}
for ax, (constraints, (share, table, gaps)) in zip(axes, results.items()):
    rows = np.arange(len(RATES))
    for k, (name, gap) in enumerate(gaps.items()):
        est = gap["estimate"].to_numpy()
        err = np.vstack([est - gap["low"].to_numpy(), gap["high"].to_numpy() - est])
        ax.barh(rows + (k - 1) * 0.27, est, height=0.25, xerr=err, color=colours[name],
                capsize=2, label=f"{name} (AUC {table.loc['AUC', name]:.3f})")
    ax.set_yticks(rows, RATES)
    ax.invert_yaxis()
    ax.set_title(f"{constraints}: {share:.0%} selected", fontsize=10)
    ax.set_xlabel("largest difference between the groups")
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.15))
fig.suptitle("COMPAS test split: the decisions of ThresholdOptimizer and of FairRanker's "
             "scores cut at the same share", fontsize=10)

# %%
# What the numbers say
# --------------------
# Cut at the share ``ThresholdOptimizer`` selects, FairRanker's scores make a decision
# whose gaps are of the size of ``ThresholdOptimizer``'s at one constraint and not at the
# other: xOrder makes the *ranking* fair (Delta-xAUC near 0), which treats the groups
# alike over all thresholds on average, not at every one. What it keeps is the ranking:
# its AUC stays near the unadjusted model's, while ``ThresholdOptimizer``'s output ranks
# with two values only. When one decision at a known operating point is the goal, a
# threshold per group aims at it directly; when the score is used as a ranking (a
# review queue, several cut-offs), xOrder's scores keep the order, and
# ``RankingMetricFrame.decisions`` audits any cut of them.
