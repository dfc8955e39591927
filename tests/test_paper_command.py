"""``gpu-xorder paper`` with every method: records, summary, figures; seeded."""

import csv
import json
import time

import pytest

from gpu_xorder.cli import main
from gpu_xorder.experiments._studies import METHODS, compare_methods


def test_paper_command_end_to_end_on_german(tmp_path, capsys):
    outs = [tmp_path / "one", tmp_path / "two", tmp_path / "three"]
    args = ["paper", "--data", "german", "--repeats", "1", "--backend", "numpy",
            "--seed", "2"]
    start = time.perf_counter()
    assert main(args + ["--out", str(outs[0])]) == 0
    assert time.perf_counter() - start < 60
    out = capsys.readouterr().out
    assert "german, test split: mean ± sd over 1 repetition" in out
    doc = json.loads((outs[0] / "records.json").read_text())
    records = doc["experiments"][0]["records"]
    assert {r["method"] for r in records} == set(METHODS)
    for r in records:
        assert set(r) >= {"method", "parameter", "repeat", "split", "auc", "xauc", "prf",
                          "urf", "xauc_pairs"}
    with open(outs[0] / "summary.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(records)  # one repetition: one row per record
    assert {row["method"] for row in rows} == set(METHODS)
    pytest.importorskip("matplotlib")
    names = sorted(p.name for p in outs[0].glob("*.png"))
    assert names == ["german_default_lr_tradeoff.png", "german_default_lr_xroc.png"]
    # the same seed gives the same JSON, here with only two methods to keep it short
    assert main(args + ["--out", str(outs[1]), "--methods", "xorder", "corr-reg"]) == 0
    again = json.loads((outs[1] / "records.json").read_text())["experiments"][0]
    assert again["records"] == [r for r in records
                                if r["method"] in ("unadjusted", "xorder", "corr-reg")]
    assert main(args + ["--out", str(outs[2]), "--methods", "xorder", "corr-reg"]) == 0
    assert (outs[1] / "records.json").read_bytes() == (outs[2] / "records.json").read_bytes()


def test_studies_and_other_models(tmp_path, capsys):
    samples = compare_methods("german", methods=["xorder", "post-logit"], study="samples",
                              model="paper-linear", lams=[0.0, 0.5], repeats=1,
                              backend="numpy")
    settings = {r["setting"] for r in samples.records}
    assert settings == {0.05, 0.1, 0.2, 0.5, 1.0}
    # the test split is the same whatever the share the adjustment learns on
    unadjusted = [r for r in samples.records
                  if r["method"] == "unadjusted" and r["split"] == "test"]
    assert len({r["auc"] for r in unadjusted}) == 1
    assert main(["paper", "--data", "german", "--repeats", "1", "--backend", "numpy",
                 "--model", "rankboost", "--study", "shift",
                 "--lam", "0.5", "--out", str(tmp_path / "shift")]) == 0
    doc = json.loads((tmp_path / "shift" / "records.json").read_text())["experiments"][0]
    assert {r["setting"] for r in doc["records"]} == {"in-sample", "held-out"}
    assert doc["methods"] == ["unadjusted", "xorder", "post-logit"]  # a study's default
    assert doc["model"] == "rankboost" and doc["study"] == "shift"
    assert main(["paper", "--data", "german", "--study", "shift",
                 "--methods", "corr-reg"]) == 2
    assert "compares post-processing only" in capsys.readouterr().err
    assert main(["paper", "--data", "adult", "--groups", "age",
                 "--methods", "post-logit"]) == 2
    assert "post-logit handles two groups" in capsys.readouterr().err
