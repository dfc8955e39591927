"""
Auditing a risk score where a high score is harmful
===================================================

A logistic regression scores the risk that a defendant re-offends within two years
(COMPAS, ``y = 1``: re-offended). A high score is *harmful*: it argues for detention. The
audit measures the AUC and every ranking disparity with 95% confidence intervals, says
in words which group a disparity disadvantages, and draws the xROC curves of the two
groups with their confidence bands, before and after xOrder.
"""

# %%
# The data and the score
# ----------------------
# Seven features of COMPAS, a 70/30 split stratified by outcome, and a logistic
# regression's probabilities. The protected attribute is race, ``"non-white"`` or
# ``"white"``.
import matplotlib.pyplot as plt
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from gpu_xorder import XOrder, metrics, plot_xroc
from gpu_xorder.datasets import load_compas

data = load_compas(as_frame=True)
features = ["sex", "age", "race", "juv_fel_count", "juv_misd_count", "juv_other_count",
            "priors_count"]
X_tr, X_te, y_tr, y_te, a_tr, a_te = train_test_split(
    data.X[features], data.y, data.sensitive, test_size=0.3, stratify=data.y,
    random_state=0)
model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X_tr, y_tr)
s_tr, s_te = model.predict_proba(X_tr)[:, 1], model.predict_proba(X_te)[:, 1]

# %%
# Every metric with its interval
# ------------------------------
# ``confidence_intervals`` gives the AUC and each disparity (xAUC, PRF and URF) with
# intervals; DeLong's method is closed-form, the bootstrap (the default) is
# distribution-free. On a test split of about 1,850 people the sampling error of each
# metric is a few hundredths: report the intervals, not only the estimates.
ci = metrics.confidence_intervals(y_te, s_te, sensitive_features=a_te, method="delong")
print(f"AUC {ci.auc.estimate:.3f} [{ci.auc.low:.3f}, {ci.auc.high:.3f}]")
for name, gap in ci.disparity.items():
    print(f"Delta-{name.upper():4} {gap.estimate:.3f} [{gap.low:.3f}, {gap.high:.3f}]")

# %%
# Which group is disadvantaged
# ----------------------------
# The sign of a disparity means nothing until one knows whether a high score helps or
# harms. Here it harms, so ``high_score="harmful"``: the group whose negatives are ranked
# above the other group's positives is the one disadvantaged.
print(metrics.disadvantaged_group(y_te, s_te, sensitive_features=a_te,
                                  high_score="harmful").text)

# %%
# The pictures
# ------------
# xROC(g, h) traces the positives of g against the negatives of h over every threshold;
# its area is xAUC(g, h). Two curves of a pair far apart are the disparity. xOrder,
# learnt on the training scores with ``lam = 0.5``, brings them together on the test
# split; the bands are pointwise 95% intervals.
xo = XOrder(lam=0.5).fit(s_tr, y_tr, sensitive_features=a_tr)
s_te_fair = xo.transform(s_te, sensitive_features=a_te)

fig, axes = plt.subplots(1, 2, figsize=(10, 4.6), sharey=True)
plot_xroc(y_te, s_te, sensitive_features=a_te, band=0.95, positive="re-offended", ax=axes[0])
axes[0].set_title("logistic regression")
plot_xroc(y_te, s_te_fair, sensitive_features=a_te, band=0.95, positive="re-offended",
          ax=axes[1])
axes[1].set_title("after xOrder (lam = 0.5)")
fig.tight_layout()

# %%
# The adjusted scores after xOrder, audited the same way:
after = metrics.confidence_intervals(y_te, s_te_fair, sensitive_features=a_te, method="delong")
gap = after.disparity["xauc"]
print(f"AUC {after.auc.estimate:.3f}, Delta-xAUC {gap.estimate:.3f} "
      f"[{gap.low:.3f}, {gap.high:.3f}]")

# %%
# On the command line, ``gpu-xorder audit FILE.csv --score risk --label two_year_recid
# --group race --high-score harmful --json audit.json --plot audit/`` prints the same
# tables and writes the pictures (see :doc:`plot_model_files`).
