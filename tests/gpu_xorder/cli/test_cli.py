import functools
import io
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from gpu_xorder.cli import _audit, _fit, _info, _output, main
from gpu_xorder.cli._common import LAM_NOTE
from gpu_xorder.engine import _numba_engine, _numpy_engine
from gpu_xorder.experiments._experiment import MSG_NO_AGE
from gpu_xorder.io._files import MSG_NO_FOLDER
from support import REPO
from support.console import table_rows

HEADERS = ("lam", "AUC", "Delta-xAUC", "Delta-PRF", "Delta-URF")
NUMBER = re.compile(r"\d+\.\d{4}")


pytestmark = pytest.mark.usefixtures("plain_consoles")


def test_demo_german(capsys):
    assert main(["demo", "--data", "german", "--lam", "0", "1.5"]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert "german: 1000 rows, 58 features" in out
    # lam 0: the cell rule, exact; lam 1.5: the default solver's exact solve (105 x 597)
    assert ("xOrder metric xauc, method auto (2d), solver auto (paper, exact), backend auto ("
            in " ".join(out.split()))
    for title in ("Test split", "Training split"):
        assert title in out
        rows = table_rows(out, title)
        assert [row[0] for row in rows] == ["unadjusted", "0", "1.5"]
        for row in rows:
            values = [float(cell) for cell in row[1:5]]
            assert all(NUMBER.fullmatch(cell) for cell in row[1:5])
            assert all(0.0 <= value <= 1.0 for value in values)
            assert values[0] > 0.5  # AUC of a fitted logistic regression
    for header in HEADERS:
        assert header in out
    assert "fit s" in out
    assert " ".join(LAM_NOTE.split()) in " ".join(out.split())


def test_demo_large_lam_does_not_raise_train_disparity(capsys):
    assert main(["demo", "--data", "german", "--lam", "50"]) == 0
    rows = table_rows(capsys.readouterr().out, "Training split")
    unadjusted, adjusted = (float(row[2]) for row in rows)
    assert adjusted <= unadjusted + 1e-12


def test_demo_with_live_progress(monkeypatch):
    """A terminal console renders the progress bar fed by the fit's callback."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=120, force_terminal=True, color_system=None)
    monkeypatch.setattr(_output, "console", console)
    assert main(["demo", "--data", "german", "--metric", "urf", "--lam", "2"]) == 0
    out = buffer.getvalue()
    assert "Delta-URF" in out
    # "done/total cells" appears once the fit has reported progress at least once.
    assert re.search(r"xOrder lam=2 .* \d+/\d+ cells", out)


@pytest.mark.parametrize("groups,names", [
    ("age", ["age <= 25", "25 < age <= 40", "age > 40"]),
    ("race-sex", ["non-white female", "non-white male", "white female", "white male"])])
def test_demo_with_more_groups(groups, names, capsys):
    # A small training split keeps the multi-group DP cheap.
    assert main(["demo", "--data", "compas", "--groups", groups, "--test-size", "0.95",
                 "--lam", "1", "--method", "iterative"]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert "method iterative" in " ".join(out.split())
    assert all(f"{name} " in out for name in names)
    assert [row[0] for row in table_rows(out, "Test split")] == ["unadjusted", "1"]


def test_demo_age_groups_need_age_in_years(capsys):
    assert main(["demo", "--data", "german", "--groups", "age"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert err == "error: " + MSG_NO_AGE.format(name="german")


def test_demo_library_error_is_one_clean_line(capsys):
    assert main(["demo", "--data", "german", "--lam", "0.5", "-1"]) == 2
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and out == ""  # refused before the first fit
    assert err.startswith("error: ") and "lam" in err and err.count("\n") == 1


def test_demo_unavailable_forced_backend(capsys):
    from gpu_xorder.engine._backend import cupy_status

    if cupy_status()[0]:
        pytest.skip("CuPy is usable here")
    assert main(["demo", "--data", "german", "--backend", "cupy", "--lam", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "cupy" in err


def test_info(capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    for name in ("Versions", "gpu_xorder", "numpy", "scikit-learn", "Python", "Backend"):
        assert name in out


@pytest.mark.parametrize(
    "argv",
    [[], ["demo", "--bogus"], ["demo", "--data", "iris"], ["demo", "--lam"],
     ["demo", "--test-size", "1.5"], ["frobnicate"]],
)
def test_bad_arguments_exit_2(argv, capsys):
    assert main(argv) == 2
    assert "usage: gpu-xorder" in capsys.readouterr().err


def test_help_exits_0(capsys):
    assert main(["demo", "--help"]) == 0
    assert "--lam" in capsys.readouterr().out


@pytest.mark.parametrize(
    "key, value, shown",
    [
        ("memory_bytes", 80 * 2**30, f"{80 * 2**30} (80.0 GiB)"),
        ("compute_capability", (9, 0), "9.0"),
        ("available", False, "False"),
        ("device_name", "NVIDIA H100", "NVIDIA H100"),
    ],
)
def test_format_value(key, value, shown):
    assert _info.format_value(key, value) == shown


def test_python_dash_m_info():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(REPO)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    proc = subprocess.run(
        [sys.executable, "-m", "gpu_xorder", "info"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Versions" in proc.stdout and "numpy" in proc.stdout
    assert "Traceback" not in proc.stderr


# ---------------------------------------------------------------------------- fit, transform

def _write_csv(path, n=700, seed=0, groups=("f", "m")):
    import numpy as np

    rng = np.random.default_rng(seed)
    s = rng.random(n)
    y = (rng.random(n) < s).astype(int)
    g = np.asarray(groups)[rng.integers(0, len(groups), n)]
    s[g == groups[0]] *= 0.8  # a disadvantaged group
    lines = ["id,score,outcome,sex"] + [f"{i},{float(s[i])!r},{y[i]},{g[i]}"
                                        for i in range(n)]
    path.write_text("\n".join(lines) + "\n")
    return s, y, g


def test_fit_then_transform_match_the_library(tmp_path, capsys):
    import json

    import numpy as np

    from gpu_xorder import XOrder, metrics
    from gpu_xorder.io._csv import Table as CsvTable

    train, test = tmp_path / "train.csv", tmp_path / "test.csv"
    s, y, g = _write_csv(train)
    s2, y2, g2 = _write_csv(test, n=300, seed=1)
    model, out = tmp_path / "model.json", tmp_path / "train_fair.csv"
    assert main(["fit", str(train), "--score", "score", "--label", "outcome", "--group", "sex",
                 "--model", str(model), "--output", str(out), "--lam", "1",
                 "--backend", "numpy"]) == 0
    text = capsys.readouterr().out
    rows = table_rows(text, "Training data")
    assert [r[0] for r in rows] == ["unadjusted", "1"]
    assert float(rows[1][2]) < float(rows[0][2]) / 5  # Delta-xAUC well down
    want = XOrder(lam=1.0, backend="numpy").fit(s, y, sensitive_features=g)
    written = CsvTable(out)
    assert written.header == ["id", "score", "outcome", "sex", "score_fair"]
    np.testing.assert_array_equal(written.numbers("score_fair"), want.train_scores_adjusted_)
    # the printed and the saved training metrics are one number; the file names the
    # columns it was fitted on
    doc = json.loads(model.read_text())
    assert rows[1][1] == f"{doc['summary']['auc']:.4f}"
    assert rows[1][2] == f"{doc['summary']['disparity']:.4f}"
    assert doc["summary"]["disparity"] == want.train_disparity_ == metrics.disparity(y,
                                                                                     want.train_scores_adjusted_,
                                                                                     sensitive_features=g,
                                                                                     metric="xauc")
    assert doc["columns"] == {"score": "score", "label": "outcome", "group": ["sex"]}

    fair = tmp_path / "test_fair.csv"
    assert main(["transform", str(test), "--model", str(model), "--score", "score",
                 "--group", "sex", "--label", "outcome", "--output", str(fair),
                 "--column", "adjusted"]) == 0
    text = capsys.readouterr().out
    assert [r[0] for r in table_rows(text, "Data")] == ["unadjusted", "1"]
    np.testing.assert_array_equal(CsvTable(fair).numbers("adjusted"),
                                  want.transform(s2, sensitive_features=g2))


def test_several_group_columns_are_intersected(tmp_path, capsys):
    """--group sex race: the groups are the intersections, as the library makes them
    from the two columns; fit, transform and audit agree with it."""
    import json

    import numpy as np

    from gpu_xorder import XOrder, metrics
    from gpu_xorder.io._csv import Table as CsvTable

    path = tmp_path / "data.csv"
    s, y, sex = _write_csv(path, n=400, seed=3)
    race = np.random.default_rng(4).choice(["x", "y"], s.size)
    lines = path.read_text().splitlines()
    path.write_text("\n".join([lines[0] + ",race"] + [
        line + "," + r for line, r in zip(lines[1:], race)]) + "\n")
    columns = np.column_stack([sex, race])
    model, out, report = tmp_path / "m.json", tmp_path / "fair.csv", tmp_path / "a.json"
    assert main(["fit", str(path), "--score", "score", "--label", "outcome", "--group",
                 "sex", "race", "--model", str(model), "--lam", "1", "--backend",
                 "numpy"]) == 0
    assert "groups by sex & race: f & x " in capsys.readouterr().out
    want = XOrder(lam=1.0, backend="numpy").fit(s, y, sensitive_features=columns)
    assert json.loads(model.read_text())["groups"] == ["f & x", "f & y", "m & x", "m & y"]
    assert main(["transform", str(path), "--model", str(model), "--score", "score",
                 "--group", "sex", "race", "--output", str(out)]) == 0
    np.testing.assert_array_equal(CsvTable(out).numbers("score_fair"),
                                  want.train_scores_adjusted_)
    assert main(["transform", str(path), "--model", str(model), "--score", "score",
                 "--group", "sex", "--output", str(out)]) == 2
    assert "group 'f', not seen in fit" in capsys.readouterr().err
    assert main(["audit", str(path), "--score", "score", "--label", "outcome", "--group",
                 "sex", "race", "--json", str(report)]) == 0
    doc = json.loads(report.read_text())
    assert doc["group"] == "sex & race"
    assert sorted(doc["groups"]) == ["f & x", "f & y", "m & x", "m & y"]
    assert doc["scores"]["score"]["disparity"]["xauc"] == metrics.disparity(y, s,
                                                                            sensitive_features=columns)


def test_fit_and_transform_never_write_over_their_inputs(tmp_path, capsys):
    train = tmp_path / "train.csv"
    _write_csv(train)
    before = train.read_text()
    cols = ["--score", "score", "--label", "outcome", "--group", "sex", "--backend", "numpy"]
    assert main(["fit", str(train), *cols, "--model", str(train)]) == 2
    assert main(["fit", str(train), *cols, "--model", str(tmp_path / "m.json"),
                 "--output", str(train)]) == 2
    assert main(["fit", str(train), *cols, "--model", str(tmp_path / "m.json"),
                 "--output", str(tmp_path / "m.json")]) == 2
    assert not (tmp_path / "m.json").exists()
    assert main(["fit", str(train), *cols, "--model", str(tmp_path / "m.json")]) == 0
    for output in (train, tmp_path / "m.json"):
        assert main(["transform", str(train), "--model", str(tmp_path / "m.json"),
                     "--score", "score", "--group", "sex", "--output", str(output)]) == 2
    err = capsys.readouterr().err
    assert err.count("it is also an input of this command") == 4
    assert err.count("twice: two outputs of this command name it") == 1
    assert "Traceback" not in err
    assert train.read_text() == before


@pytest.mark.parametrize("field,value,message", [
    (2, "2", "line 5: column 'outcome' holds '2', not a label 0 or 1; code the outcome"),
    (1, "nan", "line 5: column 'score' holds 'nan', not a finite number"),
    (1, "abc", "line 5: column 'score' holds 'abc', not a number"),
])
def test_fit_reports_bad_data_in_one_line(tmp_path, capsys, field, value, message):
    train = tmp_path / "train.csv"
    _write_csv(train)
    lines = train.read_text().splitlines()
    cells = lines[4].split(",")
    cells[field] = value
    lines[4] = ",".join(cells)
    train.write_text("\n".join(lines) + "\n")
    assert main(["fit", str(train), "--score", "score", "--label", "outcome", "--group",
                 "sex", "--model", str(tmp_path / "m.json"), "--backend", "numpy"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "m.json").exists()


def test_transform_reports_unseen_group_and_bad_model(tmp_path, capsys):
    train, other = tmp_path / "train.csv", tmp_path / "other.csv"
    _write_csv(train)
    _write_csv(other, groups=("f", "x"))
    model = tmp_path / "m.json"
    assert main(["fit", str(train), "--score", "score", "--label", "outcome", "--group",
                 "sex", "--model", str(model), "--backend", "numpy"]) == 0
    out = tmp_path / "out.csv"
    assert main(["transform", str(other), "--model", str(model), "--score", "score",
                 "--group", "sex", "--output", str(out)]) == 2
    assert "not seen in fit" in capsys.readouterr().err
    assert main(["transform", str(other), "--model", str(train), "--score", "score",
                 "--group", "sex", "--output", str(out)]) == 2
    assert "invalid JSON" in capsys.readouterr().err
    assert not out.exists()


def test_audit_reports_the_library_metrics(tmp_path, capsys):
    import numpy as np

    from gpu_xorder import metrics

    path = tmp_path / "scores.csv"
    s, y, g = _write_csv(path, groups=("a", "b", "c"))
    lines = path.read_text().splitlines()
    lines = [lines[0] + ",half"] + [f"{line},{float(s[i]) / 2!r}"
                                     for i, line in enumerate(lines[1:])]
    path.write_text("\n".join(lines) + "\n")
    assert main(["audit", str(path), "--score", "score", "half", "--label", "outcome",
                 "--group", "sex", "--no-ci"]) == 0
    out = capsys.readouterr().out
    summary = table_rows(out, "Summary")
    assert [r[0] for r in summary] == ["score", "half"]
    for row in summary:  # halving the scores changes no ranking
        assert row[1:] == summary[0][1:]
    assert float(summary[0][1]) == pytest.approx(metrics.auc(y, s), abs=5e-5)
    assert float(summary[0][2]) == pytest.approx(metrics.disparity(y, s, sensitive_features=g,
                                                                   metric="xauc"), abs=5e-5)
    xauc = {r[0]: float(r[1]) for r in table_rows(out, "\nxAUC(g, h) ")}
    assert len(xauc) == 6
    assert xauc["b > c"] == pytest.approx(metrics.xauc(y, s, sensitive_features=g, g="b",
                                                       h="c"), abs=5e-5)
    prf = {r[0]: float(r[1]) for r in table_rows(out, "\nPRF(g) ")}
    assert prf["a"] == pytest.approx(metrics.prf(y, s, sensitive_features=g, g="a"), abs=5e-5)
    within = {r[0]: float(r[1]) for r in table_rows(out, "\nAUC within g ")}
    assert list(within) == ["a", "b", "c"]
    assert within["c"] == pytest.approx(metrics.auc(y[g == "c"], s[g == "c"]), abs=5e-5)
    urf = {r[0]: float(r[2]) for r in table_rows(out, "\nURF(g, h) ")}
    assert list(urf) == ["a ~ b", "a ~ c", "b ~ c"]
    assert urf["a ~ c"] == pytest.approx(metrics.urf(None, s / 2, sensitive_features=g, g="a",
                                                     h="c"), abs=5e-5)
    assert np.isfinite(list(urf.values())).all()


def test_audit_marks_undefined_metrics(tmp_path, capsys):
    path = tmp_path / "scores.csv"
    path.write_text("s,y,g\n0.9,1,a\n0.8,0,a\n0.7,0,b\n0.6,0,b\n")  # b has no positives
    assert main(["audit", str(path), "--score", "s", "--label", "y", "--group", "g",
                 "--no-ci"]) == 0
    out = capsys.readouterr().out
    summary = table_rows(out, "Summary")
    assert summary[0][2:] == ["n/a", "n/a", "1.0000"]  # xAUC, PRF undefined; URF = 1
    assert {r[0]: r[1] for r in table_rows(out, "\nPRF(g) ")} == {"a": "1.0000", "b": "n/a"}
    assert main(["audit", str(path), "--score", "t", "--label", "y", "--group", "g"]) == 2
    assert "no column 't'" in capsys.readouterr().err


def test_audit_json_holds_exact_values(tmp_path, capsys):
    import json

    from gpu_xorder import metrics

    path = tmp_path / "scores.csv"
    s, y, g = _write_csv(path, groups=("a", "b", "c"))
    report = tmp_path / "audit.json"
    assert main(["audit", str(path), "--score", "score", "--label", "outcome", "--group",
                 "sex", "--json", str(report)]) == 0
    doc = json.loads(report.read_text())
    assert doc["groups"]["b"] == {"n": int((g == "b").sum()),
                                  "positives": int(y[g == "b"].sum())}
    entry = doc["scores"]["score"]
    assert entry["auc"] == metrics.auc(y, s)
    assert entry["disparity"]["prf"] == metrics.disparity(y, s, sensitive_features=g,
                                                          metric="prf")
    assert entry["xauc"]["c > a"] == metrics.xauc(y, s, sensitive_features=g, g="c", h="a")
    assert entry["urf"]["a ~ b"] == metrics.urf(None, s, sensitive_features=g, g="a", h="b")
    assert entry["auc_within"]["b"] == metrics.xauc(y, s, sensitive_features=g, g="b", h="b")
    assert entry["auc_within"]["b"] == pytest.approx(metrics.auc(y[g == "b"], s[g == "b"]),
                                                     abs=1e-15)
    assert main(["audit", str(path), "--score", "score", "--label", "outcome", "--group",
                 "sex", "--json", str(path)]) == 2
    assert "also an input" in capsys.readouterr().err


def test_audit_json_marks_undefined_as_null(tmp_path):
    import json

    path, report = tmp_path / "scores.csv", tmp_path / "audit.json"
    path.write_text("s,y,g\n0.9,1,a\n0.8,0,a\n0.7,0,b\n0.6,0,b\n")
    assert main(["audit", str(path), "--score", "s", "--label", "y", "--group", "g",
                 "--json", str(report)]) == 0
    entry = json.loads(report.read_text())["scores"]["s"]
    assert entry["disparity"] == {"xauc": None, "prf": None, "urf": 1.0}
    assert entry["prf"] == {"a": 1.0, "b": None}


# ---------------------------------------------------------------------------------------
# paper


def test_paper_prints_the_library_summary_and_writes_json(tmp_path, capsys):
    from gpu_xorder import paper_experiment

    out_json = tmp_path / "paper.json"
    args = ["paper", "--data", "german", "compas", "--repeats", "2", "--lam", "0", "0.5",
            "--seed", "4", "--backend", "numpy", "--json", str(out_json),
            "--methods", "xorder"]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and err == ""
    doc = json.loads(out_json.read_text())
    assert [e["data"] for e in doc["experiments"]] == ["german", "compas"]
    for exp_doc in doc["experiments"]:
        exp = paper_experiment(exp_doc["data"], lams=[0.0, 0.5], repeats=2, seed=4,
                               backend="numpy")
        assert exp_doc["records"] == json.loads(json.dumps(exp.to_dict()["records"]))
        rows = table_rows(out, f"{exp.data}, test split: mean ± sd over 2 repetitions")
        assert [row[0] for row in rows] == ["unadjusted", "0", "0.5"]
        for row, summary in zip(rows, exp.summary("test")):
            for cell, key in zip(row[1:], ("auc", "xauc", "prf", "urf")):
                assert cell == "{:.3f} ± {:.3f}".format(*summary[key])
    figures = table_rows(out, "compas: figures quoted by the paper (unadjusted, test)")
    assert [row[:2] for row in figures] == [["larger xAUC", "0.790"],
                                            ["smaller xAUC", "0.578"]]
    assert "german: groups by age (young 149, adult 851); 2 repetitions" in out


def test_paper_one_repetition_shows_no_deviation(capsys):
    assert main(["paper", "--data", "german", "--repeats", "1", "--lam", "0.5",
                 "--backend", "numpy", "--methods", "xorder"]) == 0
    rows = table_rows(capsys.readouterr().out,
                      "german, test split: mean ± sd over 1 repetition")
    assert [row[0] for row in rows] == ["unadjusted", "0.5"]
    assert all(re.fullmatch(r"\d\.\d{3}", cell) for row in rows for cell in row[1:])


def test_paper_errors(tmp_path, capsys):
    assert main(["paper", "--data", "german", "--groups", "age"]) == 2
    assert capsys.readouterr().err.strip() == "error: " + MSG_NO_AGE.format(name="german")
    assert main(["paper", "--repeats", "0"]) == 2
    assert "must be an integer >= 1" in capsys.readouterr().err
    assert main(["paper", "--data", "mnist"]) == 2
    assert "invalid choice" in capsys.readouterr().err
    # an output folder that does not exist is refused before the repetitions run
    missing = tmp_path / "no" / "paper.json"
    assert main(["paper", "--data", "adult", "--json", str(missing)]) == 2
    out, err = capsys.readouterr()
    assert err.strip() == "error: " + MSG_NO_FOLDER.format(path=missing,
                                                           folder=missing.parent)
    assert "adult" not in out
    assert not list(tmp_path.iterdir())


# ---------------------------------------------------------------------------------------
# malformed inputs: every bad input one line on stderr, exit 2, nothing written

FIT = ["--score", "score", "--label", "outcome", "--group", "sex", "--backend", "numpy"]


@functools.cache
def _model_text(labels):
    """The model file of the data of groups ``labels``, fitted once (each fit of these
    200 rows spends about 0.1 s in the default solver's exact solver; the malformed
    models' cases edit copies)."""
    import tempfile

    from gpu_xorder import XOrder

    with tempfile.TemporaryDirectory() as folder:
        s, y, g = _write_csv(Path(folder) / "data.csv", n=200, groups=labels)
        path = Path(folder) / "model.json"
        XOrder(lam=1.0, backend="numpy").fit(s, y, sensitive_features=g).save(path)
        return path.read_text()


def _model(tmp_path, edit=None, labels=("f", "m")):
    """A model fitted on ``data.csv`` (written too), its document edited by ``edit``."""
    _write_csv(tmp_path / "data.csv", n=200, groups=labels)
    path = tmp_path / "model.json"
    path.write_text(_model_text(tuple(labels)))
    if edit is not None:
        doc = json.loads(path.read_text())
        edit(doc)
        path.write_text(json.dumps(doc))
    return path


def _edit_data(tmp_path, line, text):
    """data.csv with line ``line`` (1-based, the header is 1) replaced by ``text``."""
    path = tmp_path / "data.csv"
    lines = path.read_text().splitlines()
    lines[line - 1] = text
    path.write_text("\n".join(lines) + "\n")


def _fit_case(change):
    def setup(tmp_path):
        _write_csv(tmp_path / "data.csv", n=200)
        change(tmp_path)
        return ["fit", "data.csv", *FIT, "--model", "m.json", "--output", "out.csv"]
    return setup


def _transform_case(edit):
    def setup(tmp_path):
        _model(tmp_path, edit)
        return ["transform", "data.csv", "--model", "model.json", "--score", "score",
                "--group", "sex", "--output", "out.csv"]
    return setup


def _gz(tmp_path):
    import gzip

    data = (tmp_path / "data.csv").read_bytes()
    (tmp_path / "data.csv").unlink()
    (tmp_path / "data.csv").write_bytes(gzip.compress(data)[:300])


BIG = 10**400

MALFORMED = {
    # files
    "truncated gzip": (_fit_case(_gz), "data.csv: cannot read the gzip data"),
    "not UTF-8": (_fit_case(lambda p: (p / "data.csv").write_bytes(b"a\n\xff\n")),
                  "data.csv, line 2: not UTF-8 text"),
    "blank group": (_fit_case(lambda p: _edit_data(p, 5, "3,0.5,1,")),
                    "data.csv, line 5: column 'sex' is blank"),
    "blank score": (_fit_case(lambda p: _edit_data(p, 5, "3,,1,f")),
                    "data.csv, line 5: column 'score' is blank"),
    "NaN score": (_fit_case(lambda p: _edit_data(p, 7, "3,NaN,1,f")),
                  "data.csv, line 7: column 'score' holds 'NaN', not a finite number"),
    "duplicate column": (_fit_case(lambda p: _edit_data(p, 1, "id,score,outcome,score")),
                         "data.csv: the header names column 'score' twice"),
    "ragged row": (_fit_case(lambda p: _edit_data(p, 9, "1,2")),
                   "data.csv, line 9: 2 fields, the header has 4"),
    "open quote": (_fit_case(lambda p: _edit_data(p, 9, '1,"0.5,1,f')),
                   "data.csv, line 9: malformed CSV"),
    "labels not 0/1": (_fit_case(lambda p: _edit_data(p, 9, "1,0.5,2,f")),
                       "data.csv, line 9: column 'outcome' holds '2', not a label 0 or 1"),
    "span beyond float64 with a subnormal score": (
        _fit_case(lambda p: (_edit_data(p, 2, "0,1e308,1,m"), _edit_data(p, 3, "1,-1e308,0,f"),
                             _edit_data(p, 4, "1,5e-324,0,f"))),
        "span more than float64 holds"),
    "missing file": (lambda p: ["audit", "nope.csv", "--score", "s", "--label", "y",
                                "--group", "g"], "nope.csv: No such file or directory"),
    "a folder as data": (lambda p: ["audit", ".", "--score", "s", "--label", "y",
                                    "--group", "g"], ".: Is a directory"),
    # models
    "model 400-digit bound": (_transform_case(lambda d: d.update(bounds=[0, BIG])),
                              "'bounds' must be a finite number"),
    "model 400-digit knot": (_transform_case(lambda d: d["maps"][0].update(x=[BIG])),
                             "x must be a finite number"),
    "model lam null": (_transform_case(lambda d: d["params"].update(lam=None)),
                       "'params.lam' must be a finite number >= 0, got None"),
    "model clip NaN": (_transform_case(lambda d: d.update(clip=[math.nan, math.nan])),
                       "NaN is not a JSON number"),
    "model clip reversed": (_transform_case(lambda d: (
        [d.pop(f) for f in ("package_version", "columns", "fields")],
        d.update(version=1, clip=[1, 0]))), "'clip' must hold two numbers, the lower first"),
    "model version true": (_transform_case(lambda d: d.update(version=True)),
                           "'version' must be an integer, got True"),
    "model groups text": (_transform_case(lambda d: d.update(groups="fm")),
                          "'groups' must be a list of group labels"),
    "model not JSON": (_transform_case(lambda d: d.clear()), "'format' field"),
    # outputs
    "output standard output": (lambda p: (_model(p), [
        "transform", "data.csv", "--model", "model.json", "--score", "score", "--group",
        "sex", "--output", "-"])[1], "refusing to write -: it is this command's standard "
                                     "output"),
    "output a folder": (lambda p: (_model(p), (p / "sub").mkdir(), [
        "transform", "data.csv", "--model", "model.json", "--score", "score", "--group",
        "sex", "--output", "sub"])[2], "refusing to write sub: it is a folder"),
    "output no folder": (_fit_case(lambda p: None), None),  # see below: out in no/
    "labels bad in transform": (lambda p: (_model(p), _edit_data(p, 4, "2,0.5,7,f"), [
        "transform", "data.csv", "--model", "model.json", "--score", "score", "--group",
        "sex", "--label", "outcome", "--output", "out.csv"])[2],
        "data.csv, line 4: column 'outcome' holds '7', not a label 0 or 1"),
    "subsample beyond a group": (lambda p: (_write_csv(p / "data.csv", n=200), [
        "fit", "data.csv", *FIT, "--model", "m.json", "--subsample", "500"])[1],
        "subsample=500 keeps 2 of the 200 items (the smallest group, 'f' with"),
    "ID-like groups": (lambda p: (_write_csv(p / "data.csv", n=200), [
        "audit", "data.csv", "--score", "score", "--label", "outcome", "--group", "id",
        "--json", "a.json"])[1],
        "data.csv: id gives 200 groups, more than --max-groups 20 (an ID-like column?)"),
    "int groups not int": (lambda p: (_model(p, labels=(0, 1)), _edit_data(p, 3, "1,0.5,1,x"),
                                      ["transform", "data.csv", "--model", "model.json",
                                       "--score", "score", "--group", "sex", "--output",
                                       "out.csv"])[2],
                           "data.csv, line 3: column 'sex' holds 'x', not an integer"),
}
MALFORMED["output no folder"] = (
    lambda p: (_write_csv(p / "data.csv", n=200),
               ["fit", "data.csv", *FIT, "--model", "m.json", "--output", "no/out.csv"])[1],
    "cannot write no/out.csv: no folder")


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_inputs_give_one_line_and_write_nothing(case, tmp_path, capsys,
                                                          monkeypatch):
    setup, message = MALFORMED[case]
    monkeypatch.chdir(tmp_path)
    argv = setup(tmp_path)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and err.startswith("error: "), err
    assert message in err, err
    assert "Traceback" not in out + err
    after = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    assert after == before  # nothing written, nothing left behind


def test_outputs_are_checked_before_the_data_is_read(tmp_path, capsys, monkeypatch):
    """A folder where no file can be created is reported before any work: here before
    the data, which would fail too."""
    from gpu_xorder.io import _files

    (tmp_path / "data.csv").write_text("not,a\n")

    def locked(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(_files.tempfile, "mkstemp", locked)
    assert main(["fit", str(tmp_path / "data.csv"), *FIT, "--model",
                 str(tmp_path / "m.json")]) == 2
    assert "cannot create files in" in capsys.readouterr().err


def test_a_failed_save_leaves_no_output(tmp_path, capsys, monkeypatch):
    """fit writes --output and --model together, at the end, or neither."""
    import gpu_xorder.io

    _write_csv(tmp_path / "data.csv", n=200)

    def fails(doc):
        raise ValueError("Out of range float values are not JSON compliant")

    monkeypatch.setattr(gpu_xorder.io, "json_text", fails)
    assert main(["fit", str(tmp_path / "data.csv"), *FIT, "--model",
                 str(tmp_path / "m.json"), "--output", str(tmp_path / "out.csv")]) == 2
    assert "not JSON compliant" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.csv"]


def test_spreadsheet_files_and_compressed_outputs(tmp_path, capsys):
    """A byte-order mark, CRLF lines, spaces around labels, huge cells: fit reads them
    (warning about the spaces); outputs named .gz are gzip and read back."""
    import gzip

    import numpy as np

    s, y, g = _write_csv(tmp_path / "plain.csv", n=200)
    lines = (tmp_path / "plain.csv").read_text().splitlines()
    lines = [lines[0] + ",note"] + [
        (line.replace(",m", ", m ") if k % 2 else line) + ',"' + "x" * 140_000 * (k == 3)
        + '"' for k, line in enumerate(lines[1:])]
    data = tmp_path / "excel.csv"
    data.write_bytes(("\ufeff" + "\r\n".join(lines) + "\r\n").encode("utf-8"))
    model, out = tmp_path / "m.json", tmp_path / "fair.csv.gz"
    assert main(["fit", str(data), *FIT, "--model", str(model), "--output", str(out)]) == 0
    captured = capsys.readouterr()
    assert "groups by sex: f" in captured.out and " m " in captured.out
    assert captured.err.startswith("warning: ") and "spaces around the group label" in \
        captured.err
    with gzip.open(out, "rt") as f:
        assert f.readline() == "id,score,outcome,sex,note,score_fair\n"
    assert main(["audit", str(out), "--score", "score", "score_fair", "--label",
                 "outcome", "--group", "sex"]) == 0
    assert "Traceback" not in capsys.readouterr().err
    from gpu_xorder import XOrder
    want = XOrder(lam=0.5, backend="numpy").fit(s, y, sensitive_features=g)
    from gpu_xorder.io._csv import Table as CsvTable
    np.testing.assert_array_equal(CsvTable(out).numbers("score_fair"),
                                  want.train_scores_adjusted_)


def test_a_python_model_on_integer_groups_transforms_from_the_command_line(tmp_path,
                                                                            capsys):
    import numpy as np

    from gpu_xorder import XOrder
    from gpu_xorder.io._csv import Table as CsvTable

    model = _model(tmp_path, labels=(0, 1))
    s, _, g = _write_csv(tmp_path / "new.csv", n=100, seed=5, groups=(0, 1))
    out = tmp_path / "out.csv"
    assert main(["transform", str(tmp_path / "new.csv"), "--model", str(model), "--score",
                 "score", "--group", "sex", "--output", str(out)]) == 0
    np.testing.assert_array_equal(CsvTable(out).numbers("score_fair"),
                                  XOrder.load(model).transform(s, sensitive_features=g))
    # and fit --group-type int saves integer labels, as Python would
    assert main(["fit", str(tmp_path / "data.csv"), *FIT, "--group-type", "int",
                 "--reference-group", "1", "--model", str(tmp_path / "cli.json")]) == 0
    doc = json.loads((tmp_path / "cli.json").read_text())
    assert doc["groups"] == [0, 1] and doc["reference_group"] == 1
    capsys.readouterr()


def test_links_are_written_through(tmp_path, capsys):
    model = _model(tmp_path)
    target, link = tmp_path / "real.csv", tmp_path / "link.csv"
    target.write_text("old\n")
    link.symlink_to(target)
    assert main(["transform", str(tmp_path / "data.csv"), "--model", str(model), "--score",
                 "score", "--group", "sex", "--output", str(link)]) == 0
    assert link.is_symlink() and target.read_text().startswith("id,score,outcome,sex,")
    capsys.readouterr()


def test_warnings_for_inexact_integers_and_many_groups_when_asked(tmp_path, capsys):
    path = tmp_path / "data.csv"
    _write_csv(path, n=60, groups=tuple("abcdefghijklmnopqrstuvwxy"))
    _edit_data(tmp_path, 2, "0,9007199254740993,1,a")
    assert main(["audit", str(path), "--score", "score", "--label", "outcome", "--group",
                 "sex", "--max-groups", "25"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("warning: ") and "beyond 2**53" in err and err.count("\n") == 1


def test_ctrl_c_exits_130_quietly(tmp_path, capsys, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(_audit, "run", interrupted)
    _write_csv(tmp_path / "data.csv", n=50)
    assert main(["audit", str(tmp_path / "data.csv"), "--score", "score", "--label",
                 "outcome", "--group", "sex"]) == 130
    assert capsys.readouterr().err == ""


def test_unexpected_errors_are_one_line_too(tmp_path, capsys, monkeypatch):
    def broken(args):
        raise KeyError("multi\nline")

    monkeypatch.setattr(_audit, "run", broken)
    assert main(["audit", "x.csv", "--score", "s", "--label", "y", "--group", "g"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: unexpected KeyError")


def test_long_cpu_fits_get_an_estimate_and_a_progress_bar(tmp_path, capsys, monkeypatch):
    _write_csv(tmp_path / "data.csv", n=300)
    # as if the data were huge; default solver: the cell rule and about 11 more fills
    cpu_engines = (_numpy_engine, _numba_engine)
    for eng in cpu_engines:
        monkeypatch.setattr(eng, "FILL_SECONDS_PER_CELL", 5e-5)
    buffer = io.StringIO()
    monkeypatch.setattr(_output, "console", Console(file=buffer, width=120,
                                                 force_terminal=True, color_system=None))
    assert main(["fit", str(tmp_path / "data.csv"), *FIT, "--model",
                 str(tmp_path / "m.json")]) == 0
    assert capsys.readouterr().err == ""  # about 20 s: below LONG_FIT_SECONDS, no note
    for eng in cpu_engines:
        monkeypatch.setattr(eng, "FILL_SECONDS_PER_CELL", 1e-3)
    assert main(["fit", str(tmp_path / "data.csv"), *FIT, "--model",
                 str(tmp_path / "m.json")]) == 0
    err = capsys.readouterr().err
    assert re.match(r"estimate: about \d+ min \d* ?s? ?\(the fit on the (numpy|numba) "
                    r"engine\)\n", err), err
    err = " ".join(err.split("\n", 1)[1].split())
    assert re.match(r"note: this fit fills about \d\.\de\+05 lattice cells: roughly "
                    r"\d+ min on the (numpy|numba) engine of a 2-core CPU\. --subsample \d+ "
                    r"would learn the order on 1 in "
                    r"\d+ items of each group in about \d+ s; a GPU \(--backend cupy\)",
                    err), err
    assert "xOrder" in buffer.getvalue() and "left" in buffer.getvalue()


@pytest.mark.parametrize("labels,method,subsample", [
    (("f", "m"), "auto", None), (("f", "m"), "kd", None), (("a", "b", "c"), "auto", None),
    (("a", "b", "c"), "iterative", 2), (("a", "b", "c"), "best", None)])
def test_the_estimate_counts_the_cells_the_fit_fills(tmp_path, labels, method, subsample):
    from gpu_xorder import XOrder

    s, y, g = _write_csv(tmp_path / "data.csv", n=90, groups=labels)
    totals = []
    model = XOrder(lam=1.0, backend="numpy", method=method, subsample=subsample)
    model.fit(s, y, sensitive_features=g, progress=lambda done, total: totals.append(total))
    # two groups: the fills the search is expected to take (the total reported first);
    # with a method named, the cell rule's one fill (the fit carries out its plan)
    assert model.plan(s, y, sensitive_features=g).cells == totals[0]


def test_fit_prints_the_solver_and_its_certificate(tmp_path, capsys):
    from gpu_xorder import XOrder

    train = tmp_path / "train.csv"
    s, y, g = _write_csv(train)
    args = ["fit", str(train), "--score", "score", "--label", "outcome", "--group", "sex",
            "--backend", "numpy"]
    assert main(args + ["--model", str(tmp_path / "a.json"), "--lam", "1",
                        "--solver", "lagrangian"]) == 0
    text = capsys.readouterr().out
    want = XOrder(lam=1.0, solver="lagrangian", backend="numpy").fit(
        s, y, sensitive_features=g).result_
    assert "solver lagrangian" in text
    if want.gap == 0:
        assert "proven optimal" in text
    else:
        assert f"upper bound {want.upper_bound:.6f}, gap {want.gap:.2g}" in text
    assert main(args + ["--model", str(tmp_path / "b.json"), "--solver", "paper"]) == 0
    assert "no bound computed" in capsys.readouterr().out
    assert main(args + ["--model", str(tmp_path / "c.json"), "--max-disparity", "0.05"]) == 0
    text = capsys.readouterr().out
    rows = table_rows(text, "Training data")
    assert rows[1][0] == "|D|<=0.05" and float(rows[1][2]) <= 0.05
    assert "max |D| 0.05" in text and "AUC " in text


def test_fit_warns_when_signed_mode_widens_the_disparity(tmp_path, capsys):
    train = tmp_path / "train.csv"
    _write_csv(train)
    assert main(["fit", str(train), "--score", "score", "--label", "outcome", "--group", "sex",
                 "--model", str(tmp_path / "m.json"), "--lam", "5", "--disparity", "signed",
                 "--backend", "numpy"]) == 0
    err = capsys.readouterr().err
    assert "warning:" in err and "signed" in err and len(err.strip().splitlines()) == 1


# ----------------------------------------------------------- version, help, fit paths

def test_version(capsys):
    from gpu_xorder.cli._info import own_version

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"gpu-xorder {own_version()}\n"


def test_help_does_not_import_the_heavy_modules():
    """`gpu-xorder --help` stays fast (docs/user_guide/guarantees.md: about 0.2 s)
    because the parser needs
    neither scikit-learn (and SciPy) nor pandas, CuPy or matplotlib."""
    code = ("import sys\nfrom gpu_xorder.cli import main\n"
            "for argv in (['--help'], ['fit', '--help'], ['--version']):\n"
            "    assert main(argv) == 0\n"
            "heavy = ('sklearn', 'scipy', 'pandas', 'cupy', 'matplotlib')\n"
            "print('LOADED', sorted({m.split('.')[0] for m in sys.modules} & set(heavy)))\n"
            "print('REFERENCE', sorted(m for m in sys.modules if m.startswith('cpu_ref')))\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "LOADED []" in proc.stdout
    # no reference: the choices of --metric come from the registry, utils/_metrics.py
    assert "REFERENCE []" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "gpu_xorder", "--help"], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "--version" in proc.stdout


def test_fit_several_lams_prints_the_path_and_saves_the_chosen_model(tmp_path, capsys):
    import numpy as np

    from gpu_xorder import XOrder
    from gpu_xorder.io._csv import Table as CsvTable

    train = tmp_path / "train.csv"
    s, y, g = _write_csv(train, n=300)
    base = ["fit", str(train), "--score", "score", "--label", "outcome", "--group", "sex",
            "--backend", "numpy", "--lam", "0", "0.5", "2"]
    assert main(base + ["--model", str(tmp_path / "last.json")]) == 0
    text = capsys.readouterr().out
    assert [r[0] for r in table_rows(text, "Training data")] == ["unadjusted", "0", "0.5", "2"]
    assert "lams 0 0.5 2" in text and "(lam 2)" in text
    assert all(f"lam {lam}: objective" in text for lam in ("0", "0.5", "2"))
    assert XOrder.load(tmp_path / "last.json").lam == 2.0

    assert main(base + ["--choose", "0.5", "--model", str(tmp_path / "m.json"),
                        "--output", str(tmp_path / "out.csv")]) == 0
    capsys.readouterr()
    want = XOrder(lam=0.5, backend="numpy").fit(s, y, sensitive_features=g)
    assert XOrder.load(tmp_path / "m.json").lam == 0.5
    np.testing.assert_array_equal(CsvTable(tmp_path / "out.csv").numbers("score_fair"),
                                  want.train_scores_adjusted_)


def test_fit_takes_the_exact_budget(tmp_path, capsys):
    """--exact-budget reaches the model (its parameters, the solver's reason) as
    XOrder(exact_budget=...) does; a negative or non-finite one is refused by the parser,
    before any work."""
    import json

    from gpu_xorder import XOrder

    train = tmp_path / "train.csv"
    s, y, g = _write_csv(train, n=60)
    args = ["fit", str(train), "--score", "score", "--label", "outcome", "--group", "sex",
            "--backend", "numpy", "--lam", "1"]
    solvers = []
    for budget in ("0", "2"):
        path = tmp_path / f"m{budget}.json"
        assert main(args + ["--model", str(path), "--exact-budget", budget]) == 0
        text = capsys.readouterr().out
        want = XOrder(lam=1.0, backend="numpy", exact_budget=float(budget)).fit(
            s, y, sensitive_features=g)
        assert json.loads(path.read_text())["params"]["exact_budget"] == float(budget)
        assert XOrder.load(path).exact_budget == float(budget)
        assert f"solver auto ({want.result_.solver})" in " ".join(text.split())
        solvers.append(want.result_.solver)
    assert solvers == ["lagrangian", "exact"]  # 30 per group: the default budget fits
    for bad in ("-1", "inf", "nan", "1e308", "1000000001"):
        assert main(args + ["--model", str(tmp_path / "x.json"), "--exact-budget",
                            bad]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err[-1] == ("gpu-xorder fit: error: argument --exact-budget: must be a "
                           f"number of seconds from 0 to 1e+09, got {bad}")  # usage
        assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize("extra,message", [
    (["--lam", "0.1", "1", "--choose", "0.3"], "--choose 0.3 is not one of the --lam "
                                              "values (0.1, 1)"),
    (["--lam", "1", "--max-disparity", "0.05"], "give --lam or --max-disparity, not both"),
    (["--max-disparity", "0.05", "--choose", "1"], "--choose picks one of several"),
])
def test_fit_lam_choices_are_checked_before_any_work(tmp_path, capsys, extra, message):
    _write_csv(tmp_path / "train.csv", n=100)
    model = tmp_path / "m.json"
    assert main(["fit", str(tmp_path / "train.csv"), "--score", "score", "--label",
                 "outcome", "--group", "sex", "--model", str(model), *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {message}") and err.count("\n") == 1
    assert not model.exists()


def test_fit_memory_limit_takes_units(tmp_path, capsys):
    from gpu_xorder import XOrder

    _write_csv(tmp_path / "train.csv", n=1000)
    args = ["fit", str(tmp_path / "train.csv"), "--score", "score", "--label", "outcome",
            "--group", "sex", "--backend", "numpy", "--solver", "paper", "--lam", "1"]
    assert main(args + ["--model", str(tmp_path / "a.json"), "--memory-limit", "32KiB"]) == 0
    assert "2 bands" in capsys.readouterr().out  # about 500 x 500 bits: over 32 KiB
    assert XOrder.load(tmp_path / "a.json").memory_limit == 32 * 1024
    assert main(args + ["--model", str(tmp_path / "b.json"), "--memory-limit", "2XB"]) == 2
    assert "is not a memory size" in capsys.readouterr().err


def test_max_groups_is_what_the_gpu_takes():
    """--max-groups defaults to the most groups the GPU's iterative xOrder runs."""
    from gpu_xorder.cli._common import MAX_GROUPS
    from gpu_xorder.engine._kernel_source import MAX_OLD_GROUPS

    assert MAX_GROUPS == MAX_OLD_GROUPS + 1


def test_the_estimate_prices_many_groups_by_the_calibrated_model():
    """Issue #25: 1000 groups of 4 items were priced at 15 ns a lattice cell (0.15 s)
    and took 305 s on NumPy; the plan's estimate now follows the calibrated model of
    the NumPy reference's iterative steps (engine._plan.estimate_seconds), so such a
    fit gets its note."""
    pytest.importorskip("numba")
    from gpu_xorder.core import _choice
    from gpu_xorder.engine._plan import NUMBA_ITERATIVE_SECONDS, numpy_work
    from gpu_xorder.engine._plan import estimate_seconds as numpy_seconds

    def seconds(backend):
        return _choice.plan([4] * 1000, [0.5], metric="xauc", mode="absolute",
                            backend=backend, method="auto", solver="auto",
                            max_disparity=None, memory_limit=None).seconds

    assert seconds("numpy") == numpy_seconds("iterative", [4] * 1000, "numpy", "xauc")
    assert seconds("numpy") > _fit.LONG_FIT_SECONDS
    # numba: its own rates; many small groups cost it as much as NumPy, or more
    work = numpy_work("iterative", [4] * 1000, "xauc")
    assert seconds("numba") == pytest.approx(sum(
        NUMBA_ITERATIVE_SECONDS.get(key, 0.0) * amount for key, amount in work.items()))
    assert seconds("numba") > seconds("numpy")


def test_fit_plan_prints_what_would_run_and_writes_nothing(tmp_path, capsys):
    """``fit --plan``: the plan of the fit (engine, route, cells, memory, seconds), exit
    0, no model or output written (and --model not needed)."""
    from gpu_xorder import XOrder

    s, y, g = _write_csv(tmp_path / "data.csv", n=120)
    before = sorted(os.listdir(tmp_path))
    args = ["fit", str(tmp_path / "data.csv"), "--score", "score", "--label", "outcome",
            "--group", "sex", "--backend", "numpy", "--lam", "0", "1"]
    assert main(args + ["--plan", "--output", str(tmp_path / "out.csv")]) == 0
    assert sorted(os.listdir(tmp_path)) == before
    printed = capsys.readouterr().out
    plan = XOrder(lam=[0.0, 1.0], backend="numpy").plan(s, y, sensitive_features=g)
    assert printed.strip() == str(plan)
    for field in ("engine   numpy", "route    2-D DP", f"cells    {plan.cells:.3g}",
                  "memory   ", "seconds  about"):
        assert field in printed
    assert main(args) == 2  # without --plan, --model is required
    assert "--model is required" in capsys.readouterr().err
    assert sorted(os.listdir(tmp_path)) == before


def test_the_demo_warm_up_asks_the_engine_layer(monkeypatch, tmp_path):
    """Whether a demo warms up and says it compiles is the engine layer's answer: the
    GPU needs no warm-up; numba compiles where its cache holds no index file."""
    from gpu_xorder.engine import _backend

    assert _backend.warms_up("numpy")
    monkeypatch.setattr(_backend, "resolve_backend", lambda name: "cupy")
    assert not _backend.warms_up("auto")
    assert not _backend.compiles_on_first_use("numpy")
    assert not _backend.compiles_on_first_use("cupy")
    monkeypatch.setattr(_backend.os.path, "dirname", lambda path: str(tmp_path))
    assert _backend.compiles_on_first_use("numba")  # an empty cache
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "_numba_kernels.fill-1.py311.nbi").write_text("")
    assert not _backend.compiles_on_first_use("auto")
