"""What ``gpu-xorder demo``, ``fit`` (several lams, ``--choose``, intersections of
several ``--group`` columns, label spellings) and the bootstrap with several jobs give,
against oracles.

The metrics are computed here from their definitions (docs/design.md, section 2): every
pair counted, 1 where the upper score is strictly larger, 1/2 on a tie, in exact integer
counts (numpy broadcasting over all pairs for the demo's hundreds of rows); with more
than two groups the largest pair's |D|. The demo's data are rebuilt from its documented
protocol (a 70/30 stratified split by ``seed``, a logistic regression on standardised
features) with scikit-learn directly. What tests/gpu_xorder/cli/test_fit_transform_numbers.py
already checks (one group column, lams in increasing order) is not repeated.
"""

import itertools
import json
import re
from fractions import Fraction

import numpy as np
import pytest

from gpu_xorder import XOrder, metrics
from gpu_xorder.cli import main
from support.csvfiles import read_column, write_csv

pytestmark = pytest.mark.usefixtures("plain_consoles")


# ---------------------------------------------------------------------------------------
# Oracles


def share(s, upper, lower):
    """P(s[upper] > s[lower]), ties 1/2, over every pair, exactly (None without pairs)."""
    a, b = s[upper], s[lower]
    if a.size == 0 or b.size == 0:
        return None
    twice = int(2 * (a[:, None] > b[None, :]).sum() + (a[:, None] == b[None, :]).sum())
    return Fraction(twice, 2 * a.size * b.size)


def definitions(scores, y, groups):
    """``{"auc", "xauc", "prf", "urf"}`` and, per metric, the signed term of every
    ordered pair ``(g, h)`` of sorted labels."""
    s, y, groups = np.asarray(scores, float), np.asarray(y), np.asarray(groups)
    pos, neg = y == 1, y == 0
    out = {"auc": share(s, pos, neg), "xauc": Fraction(0), "prf": Fraction(0),
           "urf": Fraction(0), "pairs": {}}
    for g, h in itertools.combinations(sorted(set(groups.tolist())), 2):
        G, H = groups == g, groups == h
        terms = {"xauc": (share(s, G & pos, H & neg), share(s, H & pos, G & neg)),
                 "prf": (share(s, G & pos, neg), share(s, H & pos, neg)),
                 "urf": (share(s, G, H), share(s, H, G))}
        for m, (first, second) in terms.items():
            out["pairs"][m, g, h] = (first, second)
            if first is None or second is None or out[m] is None:
                out[m] = None
            else:
                out[m] = max(out[m], abs(first - second))
    return out


def tsv_table(text, title):
    """The rows of the tab-separated table after ``# title``: {label: cells}."""
    lines = text.split(f"# {title}\n", 1)[1].splitlines()
    rows = {}
    for line in lines[1:]:
        if line.startswith("#") or not line:
            break
        cells = line.split("\t")
        rows[cells[0]] = cells[1:]
    return rows


def assert_row(cells, exact):
    """Printed AUC, Delta-xAUC, Delta-PRF, Delta-URF (4 decimals) against the exact
    values."""
    for cell, name in zip(cells, ("auc", "xauc", "prf", "urf")):
        assert abs(float(cell) - float(exact[name])) <= 5e-5 + 1e-12, (name, cells, exact)


# ---------------------------------------------------------------------------------------
# demo


def demo_split(seed, test_size=0.3):
    """The demo's documented protocol, rebuilt: scores, labels, groups of both parts."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    from gpu_xorder.datasets import load_dataset

    data = load_dataset("german")
    X_tr, X_te, y_tr, y_te, a_tr, a_te = train_test_split(
        data.X, data.y, data.sensitive, test_size=test_size, random_state=seed,
        stratify=data.y)
    scaler = StandardScaler().fit(X_tr)
    model = LogisticRegression(max_iter=1000, random_state=seed).fit(
        scaler.transform(X_tr), y_tr)
    return data, [(model.predict_proba(scaler.transform(X))[:, 1], y, a)
                  for X, y, a in ((X_tr, y_tr, a_tr), (X_te, y_te, a_te))]


@pytest.mark.parametrize("metric,seed,lams,test_size", [("xauc", 0, ["0", "0.5"], 0.3),
                                                        ("urf", 4, ["2", "0.01"], 0.25)])
def test_demo_prints_the_definitions_of_its_split(capsys, metric, seed, lams, test_size):
    assert main(["demo", "--data", "german", "--lam", *lams, "--metric", metric,
                 "--backend", "numpy", "--solver", "paper", "--seed", str(seed),
                 "--test-size", str(test_size), "--format", "tsv"]) == 0
    text = capsys.readouterr().out
    data, ((s_tr, y_tr, a_tr), (s_te, y_te, a_te)) = demo_split(seed, test_size)

    # what it says about the data and the run
    head = text.splitlines()
    counts = {0: int((data.sensitive == 0).sum()), 1: int((data.sensitive == 1).sum())}
    assert head[0] == (f"# german: 1000 rows, 58 features; label positives "
                       f"{int(data.y.sum())}; groups by age: young {counts[0]}, adult "
                       f"{counts[1]}")
    assert head[1] == (f"# split {y_tr.size} train / {y_te.size} test (seed {seed}); "
                       f"logistic regression on standardised features; xOrder metric "
                       f"{metric}, method auto (2d), solver paper, backend numpy")
    assert y_te.size == round(1000 * test_size) and y_tr.size + y_te.size == 1000

    for title, (s, y, a), part in (("Test split", (s_te, y_te, a_te), 1),
                                   ("Training split", (s_tr, y_tr, a_tr), 0)):
        rows = tsv_table(text, title)
        assert list(rows) == ["unadjusted", *[f"{float(x):g}" for x in lams]]
        assert_row(rows["unadjusted"], definitions(s, y, a))
        for lam in lams:
            est = XOrder(lam=float(lam), metric=metric, backend="numpy",
                         solver="paper").fit(s_tr, y_tr, sensitive_features=a_tr)
            adjusted = est.transform(s, sensitive_features=a)
            assert_row(rows[f"{float(lam):g}"], definitions(adjusted, y, a))
            if part == 0:  # the training rows: the fit's own adjusted scores
                assert np.array_equal(adjusted, est.train_scores_adjusted_)


# ---------------------------------------------------------------------------------------
# fit: several lams in any order, --choose, intersections


def intersection_data(seed, n=48):
    """Two columns (sex, race) whose four intersections are the groups; scores mostly
    distinct (a few ties), both labels in every intersection."""
    rng = np.random.default_rng(seed)
    sex = np.array(["f", "m"])[np.arange(n) % 2]
    race = np.array(["x y", "w"])[(np.arange(n) // 2) % 2]
    y = np.array([1, 1, 1, 1, 0, 0, 0, 0] + list(rng.integers(0, 2, n - 8)))
    s = np.round(rng.random(n) * 0.7 + 0.2 * (sex == "m") + 0.1 * y, 3)
    return s, y, sex, race


def test_fit_lams_in_any_order_chooses_the_asked_model_of_the_intersections(tmp_path,
                                                                            capsys):
    s, y, sex, race = intersection_data(1)
    data, model, out = tmp_path / "d.csv", tmp_path / "m.json", tmp_path / "o.csv"
    write_csv(data, {"score": s, "label": y, "sex": sex, "race": race})
    lams = ["3", "0", "0.25"]
    assert main(["fit", str(data), "--score", "score", "--label", "label", "--group",
                 "sex", "race", "--model", str(model), "--output", str(out), "--lam",
                 *lams, "--choose", "0.25", "--backend", "numpy", "--solver", "paper",
                 "--format", "tsv"]) == 0
    text = capsys.readouterr().out
    groups = np.array([f"{a} & {b}" for a, b in zip(sex, race)])
    names, sizes = np.unique(groups, return_counts=True)
    assert ("groups by sex & race: " + ", ".join(f"{g} {c}" for g, c in zip(names, sizes))
            in text.splitlines()[0])
    rows = tsv_table(text, "Training data")
    assert list(rows) == ["unadjusted", "3", "0", "0.25"]  # the order asked
    assert_row(rows["unadjusted"], definitions(s, y, groups))
    fits = {lam: XOrder(lam=float(lam), backend="numpy", solver="paper").fit(
        s, y, sensitive_features=groups) for lam in lams}
    for lam, est in fits.items():
        assert_row(rows[lam], definitions(est.train_scores_adjusted_, y, groups))
    # --choose 0.25: that lam's model is saved and its scores are written
    doc = json.loads(model.read_text())
    assert doc["params"]["lam"] == 0.25
    written = read_column(out, "score_fair")
    assert np.array_equal(written, fits["0.25"].train_scores_adjusted_)
    exact = definitions(written, y, groups)
    assert doc["summary"]["auc"] == pytest.approx(float(exact["auc"]), abs=1e-12)
    assert doc["summary"]["disparity"] == pytest.approx(float(exact["xauc"]), abs=1e-12)
    assert text.rstrip().endswith(f"# model saved to {model} (lam 0.25); scores written "
                                  f"to {out} (column score_fair)")
    # the sentence on the disadvantaged group: the most disparate pair, its two xAUCs
    for label, scores in (("unadjusted", s), ("0.25", written)):
        line = next(x for x in text.splitlines() if x.startswith(f"# {label}: "))
        # the findings layer's sentence: the worst pair judged at 95% family-wise
        assert line == "# " + label + ": " + metrics.ranking_finding(
            y, scores, sensitive_features=groups, high_score="favourable").text
        m = re.search(r"xAUC\((.+?), (.+?)\) = ([\d.]+) < xAUC\((.+?), (.+?)\) = "
                      r"([\d.]+)[;,]", line)
        assert m, line
        low_g, low_h, low, hi_g, hi_h, hi = m.groups()
        assert (hi_g, hi_h) == (low_h, low_g)
        if line.startswith(f"# {label}: disadvantages"):
            assert line.startswith(f"# {label}: disadvantages '{low_g}'")
        d = definitions(scores, y, groups)
        g, h = sorted([low_g, low_h])
        first, second = d["pairs"]["xauc", g, h]
        assert abs(first - second) == d["xauc"]  # the most disparate pair
        value = {(g, h): first, (h, g): second}
        assert abs(float(low) - float(value[low_g, low_h])) <= 5e-4 + 1e-12
        assert abs(float(hi) - float(value[hi_g, hi_h])) <= 5e-4 + 1e-12
        assert value[low_g, low_h] < value[hi_g, hi_h]


@pytest.mark.parametrize("spelling,ok", [
    (("1.0", "0.0"), True), ((" 1", "-0"), True), (("1e0", "0e5"), True),
    (("True", "False"), False), (("yes", "no"), False), (("2", "0"), False),
])
def test_fit_reads_label_spellings_by_their_value(tmp_path, capsys, spelling, ok):
    s, y, sex, _ = intersection_data(2, n=20)
    data, model, out = tmp_path / "d.csv", tmp_path / "m.json", tmp_path / "o.csv"
    write_csv(data, {"score": s, "label": [spelling[0] if t else spelling[1] for t in y],
                     "sex": sex})
    code = main(["fit", str(data), "--score", "score", "--label", "label", "--group", "sex",
                 "--model", str(model), "--output", str(out), "--lam", "0.5",
                 "--backend", "numpy", "--solver", "paper", "--format", "tsv"])
    captured = capsys.readouterr()
    if not ok:  # refused, not read as something else
        assert code == 2 and not model.exists() and not out.exists()
        assert captured.err.startswith("error: ") and "not a label 0 or 1" in captured.err
        return
    assert code == 0
    rows = tsv_table(captured.out, "Training data")
    assert_row(rows["unadjusted"], definitions(s, y, sex))
    est = XOrder(lam=0.5, backend="numpy", solver="paper").fit(s, y, sensitive_features=sex)
    assert np.array_equal(read_column(out, "score_fair"), est.train_scores_adjusted_)
    assert_row(rows["0.5"], definitions(est.train_scores_adjusted_, y, sex))


# ---------------------------------------------------------------------------------------
# the bootstrap in two worker processes: the intervals of one, bit for bit


def flat(intervals):
    """Every ``(where, estimate, low, high)`` of a MetricIntervals, floats as their
    bits (nested dicts walked)."""
    out = []

    def bits(v):
        return None if v is None else np.float64(v).view(np.int64).item()

    def walk(where, value):
        if isinstance(value, dict):
            for key in sorted(value, key=repr):
                walk(where + (key,), value[key])
        elif value is None or (isinstance(value, tuple) and hasattr(value, "low")):
            out.append((where, None if value is None else tuple(map(bits, value))))

    for field in ("auc", "auc_within", "xauc", "prf", "urf", "disparity_pairs",
                  "disparity"):
        walk((field,), getattr(intervals, field))
    return out


def test_bootstrap_with_two_jobs_is_that_of_one(tmp_path, capsys):
    rng = np.random.default_rng(5)
    n = 90
    g = np.array(["p", "q", "r"])[rng.integers(0, 3, n)]
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n) + 0.3 * y, 2)
    one = metrics.confidence_intervals(y, s, sensitive_features=g, n_bootstrap=301,
                                       random_state=11, n_jobs=1)
    two = metrics.confidence_intervals(y, s, sensitive_features=g, n_bootstrap=301,
                                       random_state=11, n_jobs=2)
    assert flat(one) == flat(two)
    assert len(flat(one)) > 20 and one.n_bootstrap == 301
    # and the audit command's JSON with --jobs 2 and --jobs 1
    data = tmp_path / "d.csv"
    write_csv(data, {"score": s, "label": y, "group": g})
    docs = []
    for jobs in ("1", "2"):
        assert main(["audit", str(data), "--score", "score", "--label", "label", "--group",
                     "group", "--bootstrap", "301", "--seed", "11", "--jobs", jobs,
                     "--format", "json"]) == 0
        docs.append(capsys.readouterr().out)
    assert docs[0] == docs[1]
    assert json.loads(docs[0])


def test_fit_reads_boolean_group_spellings_as_two_groups(tmp_path, capsys):
    s, y, _, _ = intersection_data(4, n=24)
    spellings = ["True", "false", " TRUE ", "0", "1", "False"]
    flag = [spellings[(i // 2) % 6] for i in range(24)]
    other = [["1", "0"][i % 2] for i in range(24)]
    truth = {"true": True, "1": True, "false": False, "0": False}
    groups = np.array([truth[f.strip().lower()] for f in flag])
    data, model, out = tmp_path / "d.csv", tmp_path / "m.json", tmp_path / "o.csv"
    write_csv(data, {"score": s, "label": y, "flag": flag, "other": other})
    for columns, labels in ((["flag"], groups.astype(str)),
                            (["flag", "other"],
                             np.array([f"{g} & {truth[o]}" for g, o in zip(groups, other)]))):
        assert main(["fit", str(data), "--score", "score", "--label", "label", "--group",
                     *columns, "--group-type", "bool", "--model", str(model), "--output",
                     str(out), "--lam", "0.5", "--backend", "numpy", "--solver", "paper",
                     "--format", "tsv"]) == 0
        captured = capsys.readouterr()
        assert "spells one group two ways" in captured.err
        names, sizes = np.unique(labels, return_counts=True)
        assert (f"groups by {' & '.join(columns)}: "
                + ", ".join(f"{g} {c}" for g, c in zip(names, sizes))) in captured.out
        rows = tsv_table(captured.out, "Training data")
        assert_row(rows["unadjusted"], definitions(s, y, labels))
        assert_row(rows["0.5"], definitions(read_column(out, "score_fair"), y, labels))
        out.unlink()
