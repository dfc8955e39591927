"""
Carrying a fitted model to new scores: files and the command line
==================================================================

A fitted :class:`~gpu_xorder.XOrder` is a monotone map per group, saved as JSON (never
pickle) and loaded anywhere, so the scores of new people are adjusted without the
training data. The command line does the same on CSV files: ``gpu-xorder fit`` saves a
model, ``gpu-xorder transform`` applies it and ``gpu-xorder audit`` measures the result.
This example runs the commands in-process (``gpu_xorder.cli.main`` takes the words a
shell would pass and returns the exit status), on files in a scratch folder.
"""

# %%
# Scores of COMPAS, as CSV files
# ------------------------------
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from gpu_xorder import XOrder, plot_score_distributions
from gpu_xorder.cli import main as gpu_xorder
from gpu_xorder.datasets import load_compas

data = load_compas(as_frame=True)
features = ["sex", "age", "race", "juv_fel_count", "juv_misd_count", "juv_other_count",
            "priors_count"]
X_tr, X_te, y_tr, y_te, a_tr, a_te = train_test_split(
    data.X[features], data.y, data.sensitive, test_size=0.3, stratify=data.y,
    random_state=0)
model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X_tr, y_tr)
s_tr, s_te = model.predict_proba(X_tr)[:, 1], model.predict_proba(X_te)[:, 1]

work = Path(tempfile.mkdtemp())       # a scratch folder for the files
train_csv = str(work / "compas_train.csv")
test_csv = str(work / "compas_test.csv")
model_json = str(work / "xorder.json")
cli_json = str(work / "cli_model.json")
fair_csv = str(work / "compas_test_fair.csv")
pd.DataFrame({"risk": s_tr, "two_year_recid": y_tr, "race": a_tr}).to_csv(
    train_csv, index=False)
pd.DataFrame({"risk": s_te, "two_year_recid": y_te, "race": a_te}).to_csv(
    test_csv, index=False)

# %%
# In Python: save and load
# ------------------------
xo = XOrder(lam=0.5).fit(s_tr, y_tr, sensitive_features=a_tr)
xo.save(model_json)
same = XOrder.load(model_json)
print(np.array_equal(same.transform(s_te, sensitive_features=a_te),
                     xo.transform(s_te, sensitive_features=a_te)))

# %%
# On the command line: fit, transform, audit
# ------------------------------------------
# The same three steps as shell commands would run them. ``fit`` prints the ordering it
# found and its certificate; ``transform`` writes the adjusted scores as a new column,
# ``score_fair``; ``audit`` measures both columns side by side, with intervals.
status = gpu_xorder(["fit", train_csv, "--score", "risk", "--label", "two_year_recid",
                     "--group", "race", "--lam", "0.5", "--high-score", "harmful",
                     "--model", cli_json])
status += gpu_xorder(["transform", test_csv, "--model", cli_json, "--score", "risk",
                      "--group", "race", "--output", fair_csv])
status += gpu_xorder(["audit", fair_csv, "--score", "risk", "score_fair",
                      "--label", "two_year_recid", "--group", "race",
                      "--high-score", "harmful", "--format", "tsv"])
print("exit status", status)

# %%
# The adjusted scores
# -------------------
# The reference group (by default the one of higher mean training score) keeps its
# scores; the other group's scores move, each group keeping its own order.
print("reference group:", xo.reference_group_)
fair = pd.read_csv(fair_csv)
fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
plot_score_distributions(None, fair["risk"], sensitive_features=fair["race"], ax=axes[0])
axes[0].set_title("risk score")
plot_score_distributions(None, fair["score_fair"], sensitive_features=fair["race"], ax=axes[1])
axes[1].set_title("after xOrder (the saved model)")
fig.tight_layout()

# %%
# A model file records the version that wrote it, the settings and the maps; loading
# checks them, and a file of another format version is refused with a message naming
# it. ``gpu-xorder audit ... --json audit.json --plot audit/`` also writes every value
# and the report's pictures.
