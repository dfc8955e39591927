"""``gpu-xorder audit``'s intervals (by default; --ci, --bootstrap, --ci-method, --seed,
--no-ci), the disadvantaged group in words under either reading of a high score
(--high-score), output for logs (--format, no wrapping) and the pictures (--plot DIR,
all or nothing)."""

import io
import json
import os
import re
import sys

import numpy as np
import pytest
from rich.console import Console

import gpu_xorder.io
from gpu_xorder import metrics
from gpu_xorder.cli import _output, main
from gpu_xorder.cli._audit import MSG_NO_CI
from support.console import table_rows
from support.oracles import pair_frac

pytestmark = pytest.mark.usefixtures("plain_consoles")


def write_csv(path, n=300, seed=0, groups=("black", "white")):
    """Scores that rank the positives of the first group low, and a fair column."""
    rng = np.random.default_rng(seed)
    g = np.asarray(groups)[rng.integers(0, len(groups), n)]
    y = rng.integers(0, 2, n)
    s = y + 0.8 * (g != groups[0]) + rng.normal(0, 1, n)
    fair = s - 0.8 * (g != groups[0])
    lines = ["risk,fair,outcome,race"] + [f"{float(s[i])!r},{float(fair[i])!r},{y[i]},{g[i]}"
                                          for i in range(n)]
    path.write_text("\n".join(lines) + "\n")
    return s, fair, y, g


def audit(path, *options):
    return main(["audit", str(path), "--score", "risk", "fair", "--label", "outcome",
                 "--group", "race", *options])


def test_intervals_in_the_tables_and_the_json(tmp_path, capsys):
    path, report = tmp_path / "d.csv", tmp_path / "a.json"
    s, fair, y, g = write_csv(path, groups=("a", "b", "c"))
    assert audit(path, "--ci", "0.9", "--bootstrap", "300", "--seed", "4",
                 "--json", str(report)) == 0
    out = capsys.readouterr().out
    ci = metrics.confidence_intervals(y, s, sensitive_features=g, level=0.9, n_bootstrap=300,
                                      random_state=4)
    summary = table_rows(out, "Summary")
    assert summary[0][1] == (f"{ci.auc.estimate:.4f} [{ci.auc.low:.4f}, "
                             f"{ci.auc.high:.4f}]")
    iv = ci.disparity["xauc"]
    assert summary[0][2] == f"{iv.estimate:.4f} [{iv.low:.4f}, {iv.high:.4f}]"
    xauc = {r[0]: r[1] for r in table_rows(out, "\nxAUC(g, h) ")}
    iv = ci.xauc["c", "a"]
    assert xauc["c > a"] == f"{iv.estimate:.4f} [{iv.low:.4f}, {iv.high:.4f}]"
    assert "90% confidence intervals, stratified bootstrap (group x label), 300 " in out
    doc = json.loads(report.read_text())
    assert doc["ci"] == {"level": 0.9, "method": "bootstrap", "n_bootstrap": 300, "seed": 4}
    entry = doc["scores"]["risk"]["ci"]
    assert entry["auc"] == [ci.auc.low, ci.auc.high]
    assert entry["disparity"]["prf"] == [ci.disparity["prf"].low, ci.disparity["prf"].high]
    assert entry["xauc"]["c > a"] == [iv.low, iv.high]
    assert entry["urf"]["a ~ b"] == list(ci.urf["a", "b"][1:])
    assert entry["auc_within"]["b"] == list(ci.auc_within["b"][1:])


def test_delong_and_implied_level(tmp_path, capsys):
    path = tmp_path / "d.csv"
    path.write_text("risk,fair,outcome,race\n0.9,1,1,a\n0.8,1,0,a\n0.7,1,0,b\n"
                    "0.6,1,0,b\n0.5,1,1,a\n0.4,1,0,a\n")  # b has no positives
    assert audit(path, "--ci-method", "delong") == 0
    out = capsys.readouterr().out
    assert "95% confidence intervals, DeLong variances, normal" in out
    summary = table_rows(out, "Summary")
    assert summary[0][2:4] == ["n/a", "n/a"]
    assert summary[1][1] == "0.5000 [0.5000, 0.5000]"  # a constant score
    assert {r[0]: r[1] for r in table_rows(out, "\nPRF(g) ")}["b"] == "n/a"
    assert audit(path, "--bootstrap", "50") == 0
    assert "95% confidence intervals, stratified bootstrap (group x label), 50 " in (
        capsys.readouterr().out)
    assert audit(path, "--ci", "1.5") == 2
    assert "must be a number strictly between 0 and 1" in capsys.readouterr().err


def test_the_findings_in_words(tmp_path, capsys):
    path, report = tmp_path / "d.csv", tmp_path / "a.json"
    s, fair, y, g = write_csv(path)
    # --no-ci: no interval, so no verdict, and the values without a direction claimed
    assert audit(path, "--json", str(report), "--no-ci") == 0
    out = capsys.readouterr().out
    assert "reading a high score as favourable, the default: give --high-score" in out
    low = metrics.xauc(y, s, sensitive_features=g, g="black", h="white")
    high = metrics.xauc(y, s, sensitive_features=g, g="white", h="black")
    found = metrics.ranking_finding(y, s, sensitive_features=g, high_score="favourable",
                                    level=None,
                                    score="risk")
    assert found.verdict == "inconclusive" and found.interval is None
    assert (f"xAUC(black, white) = {low:.3f} < xAUC(white, black) = {high:.3f}; gap "
            f"{abs(high - low):.3f}; no interval was computed, so no verdict") in found.text
    assert f"risk, Delta-xAUC: {found.text}\n" in out  # one line, not wrapped
    doc = json.loads(report.read_text())
    assert doc["high_score"] == "favourable" and doc["high_score_stated"] is False
    assert doc["delta"] == 0.05 and doc["decision"] is None
    written = doc["scores"]["risk"]["findings"]
    assert written["xauc"] == json.loads(json.dumps(found.to_dict()))
    # with intervals (DeLong by default), the layer's verdict, rule and level
    assert audit(path, "--json", str(report), "--delta", "0.2", "--decision",
                 "an interview", "--high-score", "favourable") == 0
    out = capsys.readouterr().out
    ci = metrics.confidence_intervals(y, s, sensitive_features=g, method="delong")
    doc = json.loads(report.read_text())
    for metric in ("xauc", "prf", "urf"):
        want = metrics.ranking_finding(y, s, sensitive_features=g, measure=metric,
                                       high_score="favourable",
                                       intervals=ci, delta=0.2, decision="an interview",
                                       score="risk")
        got = doc["scores"]["risk"]["findings"][metric]
        assert got == json.loads(json.dumps(want.to_dict()))
        assert got["delta"] == 0.2 and got["level"] == 0.95  # two groups: one pair
        assert "'parity within 0.2'" in got["rule"]
        title = {"xauc": "Delta-xAUC", "prf": "Delta-PRF", "urf": "Delta-URF"}[metric]
        assert f"risk, {title}: {want.text}\n" in out
        assert "a high score leads to an interview" in want.text


def write_risk_csv(path, n=400, seed=3):
    """Risk scores (a high score harmful) where the negatives of group p are pushed up."""
    rng = np.random.default_rng(seed)
    g = rng.choice(["p", "q"], n)
    y = rng.integers(0, 2, n)
    s = y + rng.normal(0, 1, n) + 1.0 * ((g == "p") & (y == 0))
    path.write_text("risk,fair,outcome,race\n" + "".join(
        f"{float(s[i])!r},{float(s[i])!r},{y[i]},{g[i]}\n" for i in range(n)))
    return s, y, g


def test_pushed_up_negatives_name_their_group_only_when_high_scores_harm(tmp_path, capsys):
    path, report = tmp_path / "d.csv", tmp_path / "a.json"
    s, y, g = write_risk_csv(path)
    for reading, expected in (("harmful", "p"), ("favourable", "q")):
        assert audit(path, "--high-score", reading, "--json", str(report)) == 0
        out = capsys.readouterr().out
        doc = json.loads(report.read_text())
        assert doc["high_score"] == reading
        for metric in ("xauc", "urf"):
            found = doc["scores"]["risk"]["findings"][metric]
            assert found["group"] == expected and found["high_score"] == reading
            assert found["verdict"] == "disadvantages"  # the direction is clear at 95%
            assert found["interval"][0] > 0 or found["interval"][1] < 0
            assert found["text"].startswith(f"disadvantages '{expected}' (against")
            assert f"a high score is {reading} to a person" in found["text"]
            assert found["text"] in out
        assert f"reading a high score as {reading}; rule: " in out
    # the harmful xAUC sentence states the oracle's numbers: P(S_0^p > S_1^q) and reverse
    assert audit(path, "--high-score", "harmful") == 0
    neg_p_above_pos_q = pair_frac(s[(g == "p") & (y == 0)], s[(g == "q") & (y == 1)])
    neg_q_above_pos_p = pair_frac(s[(g == "q") & (y == 0)], s[(g == "p") & (y == 1)])
    assert (f"negatives of 'p' are ranked above positives of 'q' more often than "
            f"the reverse, 1 - xAUC(q, p) = {neg_p_above_pos_q:.3f} > 1 - xAUC(p, q) = "
            f"{neg_q_above_pos_p:.3f}") in capsys.readouterr().out


def test_intervals_by_default_are_delong_and_no_ci_skips_them(tmp_path, capsys):
    path, report = tmp_path / "d.csv", tmp_path / "a.json"
    s, fair, y, g = write_csv(path)
    assert audit(path, "--json", str(report)) == 0
    out = capsys.readouterr().out
    ci = metrics.confidence_intervals(y, s, sensitive_features=g, method="delong")
    assert "95% confidence intervals, DeLong variances, normal" in out
    iv = ci.xauc["white", "black"]
    xauc = {r[0]: r[1] for r in table_rows(out, "\nxAUC(g, h) ")}
    assert xauc["white > black"] == f"{iv.estimate:.4f} [{iv.low:.4f}, {iv.high:.4f}]"
    doc = json.loads(report.read_text())
    assert doc["ci"] == {"level": 0.95, "method": "delong", "n_bootstrap": None,
                         "seed": None}
    assert doc["scores"]["risk"]["ci"]["xauc"]["white > black"] == [iv.low, iv.high]
    assert audit(path, "--ci", "0.8") == 0  # a level alone keeps DeLong
    assert "80% confidence intervals, DeLong" in capsys.readouterr().out
    assert audit(path, "--no-ci", "--json", str(report)) == 0
    out = capsys.readouterr().out
    assert "confidence intervals" not in out and " [" not in out
    assert "ci" not in json.loads(report.read_text())
    assert audit(path, "--no-ci", "--ci", "0.9", "--bootstrap", "10") == 2
    assert capsys.readouterr().err == ("error: " + MSG_NO_CI.format(
        options="--ci, --bootstrap") + "\n")


def test_table_formats_for_logs(tmp_path, capsys):
    path, report = tmp_path / "d.csv", tmp_path / "a.json"
    s, fair, y, g = write_csv(path, groups=("a", "b", "c"))
    assert audit(path, "--format", "json", "--json", str(report)) == 0
    printed = capsys.readouterr().out
    assert json.loads(printed) == json.loads(report.read_text())
    assert audit(path, "--format", "tsv") == 0
    lines = capsys.readouterr().out.splitlines()
    at = lines.index("# xAUC(g, h)")
    assert lines[at + 1] == "groups\trisk\tfair"
    rows = [line.split("\t") for line in lines[at + 2:at + 8]]
    ci = metrics.confidence_intervals(y, s, sensitive_features=g, method="delong")
    iv = ci.xauc["c", "a"]
    assert {r[0]: r[1] for r in rows}["c > a"] == (
        f"{iv.estimate:.4f} [{iv.low:.4f}, {iv.high:.4f}]")
    assert all(len(r) == 3 for r in rows) and not lines[at + 8].count("\t")
    assert all(line.startswith("#") or "\t" in line or line == "" for line in lines)


def test_a_narrow_log_gets_no_wrapped_rows(tmp_path, monkeypatch):
    """stdout not a terminal: whatever the console's width, every table row is one
    line with all its cells (a plain rich console of that width wraps them)."""
    path = tmp_path / "d.csv"
    write_csv(path)

    def rows_of(console):
        monkeypatch.setattr(_output, "console", console)
        assert audit(path) == 0
        return [line for line in console.file.getvalue().splitlines()
                if line.startswith("│")]

    narrow = dict(width=60, force_terminal=False, color_system=None)
    rows = rows_of(_output.Output(file=io.StringIO(), **narrow))
    assert rows and all(len(line.strip("│").split("│")) in (3, 5) for line in rows)
    assert all(re.search(r"\d\.\d{4} \[\d\.\d{4}, \d\.\d{4}\]", line)
               for line in rows)
    wrapped = rows_of(Console(file=io.StringIO(), **narrow))
    assert not all(re.search(r"\[\d\.\d{4}, \d\.\d{4}\]", line) for line in wrapped)


def test_pictures_are_written_into_the_folder(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    path, pictures = tmp_path / "d.csv", tmp_path / "pics"
    write_csv(path, n=100, groups=("a b", "c/d"))
    assert audit(path, "--plot", str(pictures)) == 0
    assert "5 pictures written to" in capsys.readouterr().out
    names = sorted(os.listdir(pictures))
    assert names == ["intervals.png", "scores_fair.png", "scores_risk.png",
                     "xroc_fair_a-b_c-d.png", "xroc_risk_a-b_c-d.png"]
    for name in names:
        blob = (pictures / name).read_bytes()
        assert blob.startswith(b"\x89PNG") and len(blob) > 10000
    # into an existing folder: its other files stay, the pictures are replaced
    (pictures / "notes.txt").write_text("mine")
    (pictures / "scores_risk.png").write_bytes(b"old")
    assert audit(path, "--plot", str(pictures)) == 0
    assert (pictures / "notes.txt").read_text() == "mine"
    assert (pictures / "scores_risk.png").read_bytes().startswith(b"\x89PNG")
    assert sorted(os.listdir(pictures)) == sorted(names + ["notes.txt"])


def test_a_failed_audit_writes_no_pictures(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    path, pictures = tmp_path / "d.csv", tmp_path / "pics"
    write_csv(path, n=60)
    before = sorted(os.listdir(tmp_path))

    def failing(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(gpu_xorder.io, "write_json", failing)  # after the pictures were drawn
    assert audit(path, "--plot", str(pictures), "--json", str(tmp_path / "a.json")) == 2
    assert "No space left on device" in capsys.readouterr().err
    assert sorted(os.listdir(tmp_path)) == before  # no folder, no temporary one
    monkeypatch.undo()
    (tmp_path / "file").write_text("x")
    assert audit(path, "--plot", str(tmp_path / "file")) == 2
    assert "it is a file, not a folder" in capsys.readouterr().err
    assert audit(path, "--plot", str(tmp_path / "no" / "pics")) == 2
    assert "no folder" in capsys.readouterr().err


def test_plot_without_matplotlib_names_the_extra(tmp_path, capsys, monkeypatch):
    path = tmp_path / "d.csv"
    write_csv(path, n=40)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert audit(path, "--plot", str(tmp_path / "pics")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and 'pip install "gpu-xorder[plot]"' in err
    assert not (tmp_path / "pics").exists()


def test_scheduler_without_dask_names_the_extra(tmp_path, capsys, monkeypatch):
    path = tmp_path / "d.csv"
    write_csv(path, n=40)
    monkeypatch.setitem(sys.modules, "distributed", None)
    assert audit(path, "--ci", "0.9", "--scheduler", "tcp://127.0.0.1:8786") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and 'pip install "gpu-xorder[dask]"' in err


def test_pair_keys_stay_distinct_whatever_the_labels(tmp_path):
    """Labels holding the pair separator (issue #25: ("a > b", "c") and ("a", "b > c")
    were both "a > b > c", and one pair was lost): every ordered pair keeps its own
    key, which reads back to its labels, with the value of its own pair."""
    from gpu_xorder.utils._validation import split_pair_key

    labels = ("a > b", "c", "a", "b > c", "d ~ e", "d", "e")
    path, report = tmp_path / "d.csv", tmp_path / "a.json"
    s, _, y, g = write_csv(path, n=700, seed=3, groups=labels)
    assert audit(path, "--json", str(report), "--max-groups", "7") == 0
    entry = json.loads(report.read_text())["scores"]["risk"]
    assert len(entry["xauc"]) == 7 * 6 and len(entry["urf"]) == 7 * 6 // 2
    for key, value in entry["xauc"].items():
        a, b = split_pair_key(key)
        assert value == metrics.xauc(y, s, sensitive_features=g, g=a, h=b)
    for key, value in entry["urf"].items():
        a, b = split_pair_key(key, " ~ ")
        assert a < b and value == metrics.urf(None, s, sensitive_features=g, g=a, h=b)
    assert entry["xauc"]["c > a"] == metrics.xauc(y, s, sensitive_features=g, g="c",
                                                  h="a")  # plain labels as before
