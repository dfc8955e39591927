"""Every number of ``gpu-xorder paper --out`` on a small setting, against oracles.

German, 3 repetitions, ``--methods xorder post-logit-public``, ``--lam 0 0.5``, NumPy
(about 2 s). The records of the unadjusted and the xOrder scores are recomputed from the
documented protocol (docs/user_guide/paper.md, "The protocol of the paper": a
stratified 70/30
split with seed ``seed + r``, features standardised on the training split, a logistic
regression, xOrder fitted on the training scores and transferred to the test scores)
and the metrics' pair definitions (exact integer counts over every pair); the printed
table, ``summary.csv`` and ``tables.md`` are recomputed from ``records.json`` with
Python's ``statistics`` (mean, sample standard deviation) and the rules the guide and
tables.md's header state.
"""

import csv
import json
import re
import statistics
from fractions import Fraction

import pytest

from gpu_xorder import XOrder
from gpu_xorder.cli import main

pytestmark = pytest.mark.usefixtures("plain_consoles")

LAMS = (0.0, 0.5)
REPEATS, SEED = 3, 0
KEYS = ("auc", "xauc", "prf", "urf")


def share(s, upper, lower):
    a, b = s[upper], s[lower]
    twice = int(2 * (a[:, None] > b[None, :]).sum() + (a[:, None] == b[None, :]).sum())
    return Fraction(twice, 2 * a.size * b.size)


def definitions(s, y, a):
    """AUC, the three disparities and both xAUC directions of two groups 0 and 1."""
    pos, neg, g, h = y == 1, y == 0, a == 0, a == 1
    x01, x10 = share(s, g & pos, h & neg), share(s, h & pos, g & neg)
    return {"auc": share(s, pos, neg), "xauc": abs(x01 - x10),
            "prf": abs(share(s, g & pos, neg) - share(s, h & pos, neg)),
            "urf": abs(share(s, g, h) - share(s, h, g)),
            "xauc_pairs": {"0 > 1": x01, "1 > 0": x10}}


def protocol(r):
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    from gpu_xorder.datasets import load_dataset

    data = load_dataset("german")
    X_tr, X_te, y_tr, y_te, a_tr, a_te = train_test_split(
        data.X, data.y, data.sensitive, test_size=0.3, random_state=SEED + r,
        stratify=data.y)
    scaler = StandardScaler().fit(X_tr)
    lr = LogisticRegression(max_iter=1000, random_state=SEED + r).fit(
        scaler.transform(X_tr), y_tr)
    return ((lr.predict_proba(scaler.transform(X_tr))[:, 1], y_tr, a_tr),
            (lr.predict_proba(scaler.transform(X_te))[:, 1], y_te, a_te))


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("paper") / "out"
    import io
    from contextlib import redirect_stdout

    from gpu_xorder.cli import _output

    buffer = io.StringIO()
    console = _output.Output(color_system=None, force_terminal=False, highlight=False,
                             file=buffer, width=200)
    saved = _output.console
    _output.console = console
    try:
        with redirect_stdout(buffer):
            assert main(["paper", "--data", "german", "--repeats", str(REPEATS),
                         "--seed", str(SEED), "--methods", "xorder", "post-logit-public",
                         "--lam", *map(str, LAMS), "--backend", "numpy",
                         "--out", str(out)]) == 0
    finally:
        _output.console = saved
    doc = json.loads((out / "records.json").read_text())["experiments"][0]
    return doc, out, buffer.getvalue()


def groups_of(records):
    """Records by (split, method, setting, parameter), in repetition order."""
    out = {}
    for r in records:
        out.setdefault((r["split"], r["method"], r["setting"], r["parameter"]), []).append(r)
    for rs in out.values():
        rs.sort(key=lambda r: r["repeat"])
    return out


def mean_sd(values):
    values = [v for v in values if v is not None]
    return statistics.fmean(values), (statistics.stdev(values) if len(values) > 1
                                      else float("nan"))


def test_records_are_the_protocol_by_the_definitions(run):
    doc, _, _ = run
    by = groups_of(doc["records"])
    assert {k[1] for k in by} == {"unadjusted", "xorder", "post-logit-public"}
    for r in range(REPEATS):
        train, test = protocol(r)
        fits = {lam: XOrder(lam=lam, backend="numpy", solver="paper").fit(
            train[0], train[1], sensitive_features=train[2]) for lam in LAMS}
        for split, (s, y, a) in (("train", train), ("test", test)):
            cases = [(("unadjusted", None), s)] + [
                (("xorder", lam), fits[lam].transform(s, sensitive_features=a))
                for lam in LAMS]
            for (method, parameter), scores in cases:
                rec = by[split, method, None, parameter][r]
                assert rec["repeat"] == r
                exact = definitions(scores, y, a)
                for key in KEYS:
                    assert rec[key] == pytest.approx(float(exact[key]), abs=1e-12), (
                        split, method, parameter, r, key)
                for pair, value in exact["xauc_pairs"].items():
                    assert rec["xauc_pairs"][pair] == pytest.approx(float(value), abs=1e-12)
    # every record: Delta-xAUC is the gap of its two directions
    for rec in doc["records"]:
        pairs = list(rec["xauc_pairs"].values())
        assert rec["xauc"] == pytest.approx(abs(pairs[0] - pairs[1]), abs=1e-12)


def test_summary_csv_is_the_records_mean_sd_min_max(run):
    doc, out, _ = run
    by = groups_of(doc["records"])
    with open(out / "summary.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(by)
    seen = set()
    for row in rows:
        parameter = None if row["parameter"] == "" else float(row["parameter"])
        setting = None if row["setting"] == "" else row["setting"]
        key = (row["split"], row["method"], setting, parameter)
        rs = by[key]
        seen.add(key)
        assert (row["data"], row["groups"], row["model"]) == ("german", "default", "lr")
        assert int(row["repeats"]) == len(rs) == REPEATS
        for k in KEYS:
            values = [rec[k] for rec in rs]
            mean, sd = mean_sd(values)
            assert float(row[f"{k}_mean"]) == pytest.approx(mean, abs=1e-14), (key, k)
            assert float(row[f"{k}_sd"]) == pytest.approx(sd, abs=1e-14), (key, k)
            assert float(row[f"{k}_min"]) == min(values)
            assert float(row[f"{k}_max"]) == max(values)
    assert seen == set(by)


def test_printed_table_is_the_test_records_mean_sd(run):
    doc, _, text = run
    by = groups_of(doc["records"])
    printed = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("│").split("│")]
        if line.startswith("│") and len(cells) == 6:
            printed[cells[0], cells[1]] = cells[2:]
    assert set(printed) == {("unadjusted", ""), ("xorder", "lam 0"), ("xorder", "lam 0.5"),
                            ("post-logit-public", "least train D")}
    for (method, label), cells in printed.items():
        parameter = (float(label.split()[1]) if label.startswith("lam") else None)
        rs = by["test", method, None, parameter]
        for cell, k in zip(cells, KEYS):
            m, s = (float(x) for x in cell.split(" ± "))
            mean, sd = mean_sd([rec[k] for rec in rs])
            assert abs(m - mean) <= 5e-4 + 1e-12 and abs(s - sd) <= 5e-4 + 1e-12, (
                method, label, k, cell, mean, sd)


def numbers(cell):
    return [float(x) for x in re.findall(r"\d+\.\d+", cell)]


def test_tables_md_follows_its_header_from_the_records(run):
    doc, out, _ = run
    by = groups_of(doc["records"])
    lines = (out / "tables.md").read_text().splitlines()
    assert lines[0] == ("### german, groups default, base model lr, Δ-xAUC: 3 repetitions, "
                        "test split unless said, mean ± sd")
    table = lines[:lines.index("", 2)]  # the comparison table; paired tables follow
    rows = {line.split(" | ")[1]: [c.strip() for c in line.strip("|").split("|")]
            for line in table if line.startswith("| german |")}
    assert set(rows) == {"xorder", "post-logit-public"}

    def ms(split, method, parameter, k):
        return mean_sd([rec[k] for rec in by[split, method, None, parameter]])

    def close(got, want):
        assert len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            assert abs(g - w) <= 5e-4 + 1e-12, (got, want)

    for method, cells in rows.items():
        _, _, unadjusted, lowest, single, train, best = cells
        close(numbers(unadjusted), [*ms("test", "unadjusted", None, "auc"),
                                    *ms("test", "unadjusted", None, "xauc")])
        grid = [p for (split, m, _, p) in by if split == "test" and m == method]
        means = {p: ms("test", method, p, "xauc")[0] for p in grid}
        at = min(grid, key=lambda p: means[p])  # the lowest mean test Delta
        close(numbers(lowest), [*ms("test", method, at, "xauc"),
                                *ms("test", method, at, "auc"),
                                *([] if at is None else [at])])
        assert lowest.endswith("least train Δ)" if at is None else f"lam {at:g})")
        runs = [rec["xauc"] for rec in by["test", method, None, at]]
        close(numbers(single), [min(runs), max(runs)])
        train_runs = [rec["xauc"] for rec in by["train", method, None, at]]
        close(numbers(train), [*ms("train", method, at, "xauc"), min(train_runs),
                               max(train_runs)])
        ok = [p for p in grid if means[p] <= 0.05]
        if not ok:
            assert best == "none"
            continue
        b = max(ok, key=lambda p: ms("test", method, p, "auc")[0])
        close(numbers(best), [ms("test", method, b, "auc")[0], means[b],
                              *([] if b is None else [b])])
