"""``gpu-xorder paper`` with every method: records, summary, figures; seeded."""

import csv
import json
import time

import numpy as np
import pytest

from gpu_xorder import XOrder, metrics
from gpu_xorder.cli import main
from gpu_xorder.datasets import load_dataset, make_icu
from gpu_xorder.experiments import _paper_plots, _studies
from gpu_xorder.experiments._experiment import grouping
from gpu_xorder.experiments._matched import matched_paired_table
from gpu_xorder.experiments._settings import FRACTIONS
from gpu_xorder.experiments._studies import (
    _split,
    compare_methods,
    default_methods,
    kd_subsample,
)
from gpu_xorder.experiments._tables import matched_table, paired_table
from gpu_xorder.experiments.baselines import PostLogit
from gpu_xorder.experiments.models import make_model
from support import REPO

METHODS = default_methods(2)


def test_paper_command_end_to_end_on_german(tmp_path, capsys, monkeypatch):
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
    tables = (outs[0] / "tables.md").read_text()
    assert "| german | post-logit-public |" in tables and "least train Δ" in tables
    with open(outs[0] / "timings.csv", newline="") as f:
        timings = list(csv.DictReader(f))
    assert {t["method"] for t in timings} == set(METHODS)
    assert all(float(t["cpu_seconds"]) >= 0 for t in timings)
    # the same seed gives the same JSON, here with only two methods to keep it short
    # (and without the figures, drawn after records.json: 0.8 s a run)
    monkeypatch.setattr(_paper_plots, "write_figures", lambda *args, **kwargs: [])
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
    # a study's default: the post-processing methods
    assert doc["methods"] == ["unadjusted", "xorder", "post-logit", "post-logit-public"]
    assert doc["model"] == "rankboost" and doc["study"] == "shift"
    if _has_matplotlib():
        assert sorted(p.name for p in (tmp_path / "shift").glob("*.png")) == [
            "german_default_rankboost_shift.png",
            "german_default_rankboost_shift_histograms.png"]
    assert main(["paper", "--data", "german", "--study", "shift",
                 "--methods", "corr-reg"]) == 2
    assert "compares post-processing only" in capsys.readouterr().err
    assert main(["paper", "--data", "adult", "--groups", "age",
                 "--methods", "post-logit"]) == 2
    assert "post-logit handles two groups" in capsys.readouterr().err


def _has_matplotlib():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def test_a_second_run_into_the_folder_leaves_no_figure_of_the_first(tmp_path):
    """--out into the folder of an earlier run: its figures that this run does not
    write are removed (they would pass for this run's), the user's own files stay."""
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    run = ["paper", "--repeats", "1", "--methods", "xorder", "--lam", "0.5", "--backend",
           "numpy", "--subsample", "20", "--out", str(folder)]
    assert main(run + ["--data", "german"]) == 0
    assert {"german_default_lr_tradeoff.png", "german_default_lr_xroc.png"} <= {
        p.name for p in folder.iterdir()}
    assert main(run + ["--data", "framingham"]) == 0
    assert sorted(p.name for p in folder.iterdir()) == [
        "framingham_default_lr_tradeoff.png", "framingham_default_lr_xroc.png",
        "notes.txt", "records.json", "summary.csv", "tables.md", "timings.csv"]
    doc = json.loads((folder / "records.json").read_text())
    assert [e["data"] for e in doc["experiments"]] == ["framingham"]


def test_summary_ranges_are_the_single_runs_extremes():
    c = compare_methods("german", methods=["xorder"], lams=[0.5], repeats=2, seed=1,
                        backend="numpy")
    for row, spread in zip(c.summary("test"), c.ranges("test")):
        values = [r["xauc"] for r in c.records if r["split"] == "test"
                  and (r["method"], r["parameter"]) == (row["method"], row["parameter"])]
        assert spread["xauc"] == (min(values), max(values))
        assert row["xauc"][0] == pytest.approx(np.mean(values))
    rows = [r for r in csv.DictReader(c.csv_text().splitlines()) if r["split"] == "test"]
    assert [(float(r["xauc_min"]), float(r["xauc_max"])) for r in rows] == [
        spread["xauc"] for spread in c.ranges("test")]


def test_samples_retrain_trains_the_base_model_on_each_share():
    c = compare_methods("german", study="samples-retrain", lams=[0.5], repeats=1, seed=4,
                        methods=["xorder", "post-logit-public"], backend="numpy")
    assert {r["setting"] for r in c.records} == set(FRACTIONS)
    train, test = _split(load_dataset("german"), load_dataset("german").sensitive, 0.3, 4)
    for fraction in (0.2, 1.0):
        idx = _studies._subset(train[1], train[2], fraction, 4)
        model = make_model("lr", random_state=4).fit(train[0][idx], train[1][idx])
        s_te = model.predict_proba(test[0])[:, 1]
        (rec,) = [r for r in c.records if (r["method"], r["setting"], r["split"])
                  == ("unadjusted", fraction, "test")]
        assert rec["auc"] == metrics.auc(test[1], s_te)
        s_tr = model.predict_proba(train[0][idx])[:, 1]
        public = PostLogit().fit(s_tr, train[1][idx], sensitive_features=train[2][idx])
        (rec,) = [r for r in c.records if (r["method"], r["setting"], r["split"])
                  == ("post-logit-public", fraction, "test")]
        assert rec["xauc"] == metrics.disparity(test[1],
                                                public.transform(s_te,
                                                                 sensitive_features=test[2]),
                                                sensitive_features=test[2])
    # unlike --study samples, the unadjusted test scores change with the share
    assert len({r["auc"] for r in c.records
                if r["method"] == "unadjusted" and r["split"] == "test"}) == len(FRACTIONS)


def test_fractions_choose_the_shares_and_each_share_is_a_comparison(tmp_path, capsys):
    """--fractions: the samples studies at the shares given (the paper's Adult at .01
    and .02 of the training split), in tables.md each share compared as a comparison
    is (its records, the setting dropped) and, with --out, each share's trade-off."""
    from gpu_xorder.experiments._tables import comparison_table, markdown

    c = compare_methods("german", study="samples-retrain", lams=[0.5], repeats=2, seed=4,
                        methods=["xorder", "post-logit-public"], backend="numpy",
                        fractions=[0.3, 0.15])
    assert list(dict.fromkeys(r["setting"] for r in c.records)) == [0.3, 0.15]
    share = c.at_setting(0.15)
    assert share.study is None and len(share.records) == len(c.records) // 2
    assert [{**r, "setting": 0.15} for r in share.records] == [
        r for r in c.records if r["setting"] == 0.15]
    tables = markdown([c])
    at = tables.index("#### Share 0.15 of the training split (samples-retrain)")
    assert comparison_table([share]) in tables[at:]
    assert paired_table(share) in tables[at:] and matched_paired_table(share) in tables[at:]
    for bad, study in (([0.5], "shift"), ([0.5], None), ([0.0], "samples"),
                       ([0.2, 0.2], "samples"), ([1.5], "samples-retrain")):
        with pytest.raises(ValueError, match="fractions"):
            compare_methods("german", study=study, fractions=bad, repeats=1)
    pytest.importorskip("matplotlib")
    out = tmp_path / "out"
    assert main(["paper", "--data", "german", "--study", "samples", "--fractions", "0.5",
                 "1", "--methods", "xorder", "--lam", "0.5", "--repeats", "2",
                 "--backend", "numpy", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.glob("*.png")) == [
        "german_default_lr_samples.png", "german_default_lr_samples_0.5_tradeoff.png",
        "german_default_lr_samples_1_tradeoff.png"]
    # a later run into the folder with other shares removes the earlier shares' figures
    assert main(["paper", "--data", "german", "--study", "samples", "--fractions", "0.2",
                 "--methods", "xorder", "--lam", "0.5", "--repeats", "2",
                 "--backend", "numpy", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.glob("*.png")) == [
        "german_default_lr_samples.png", "german_default_lr_samples_0.2_tradeoff.png"]
    assert main(["paper", "--data", "german", "--study", "shift", "--fractions", "0.2",
                 "--repeats", "1", "--backend", "numpy"]) == 2
    assert "error: fractions are the shares" in capsys.readouterr().err


def test_kd_subsample_is_the_smallest_step_within_the_limit():
    for sizes, limit in (([10, 20, 30], 1000), ([1142, 2000, 1174], 10**8), ([5, 5], 36)):
        k = kd_subsample(sizes, limit)
        cells = [np.prod([-(-n // j) + 1 for n in sizes]) for j in range(1, k + 1)]
        assert cells[-1] <= limit and all(c > limit for c in cells[:-1])


def test_multi_group_post_logit_against_kd_and_iterative_xorder(tmp_path, monkeypatch,
                                                                 capsys):
    """--groups age: the public post-logit with one alpha per shifted band, K-D xOrder
    on every k-th item and iterative xOrder, each as fitting it by hand gives."""
    import gpu_xorder.engine._plan as plan

    monkeypatch.setattr(plan, "KD_MAX_CELLS", 2 * 10**5)  # a small lattice: seconds
    assert main(["paper", "--data", "compas", "--groups", "age", "--repeats", "1",
                 "--lam", "0.5", "--backend", "numpy", "--seed", "5",
                 "--out", str(tmp_path / "age")]) == 0
    doc = json.loads((tmp_path / "age" / "records.json").read_text())["experiments"][0]
    assert doc["methods"] == ["unadjusted", "xorder", "xorder-kd", "post-logit-public"]
    data = load_dataset("compas")
    train, test = _split(data, grouping(data, "age"), 0.3, 5)
    model = make_model("lr", random_state=5).fit(*train[:2])
    s_tr, s_te = (model.predict_proba(X)[:, 1] for X in (train[0], test[0]))
    k = kd_subsample(np.unique(train[2], return_counts=True)[1], 2 * 10**5)
    assert doc["notes"]["xorder-kd subsample"] == [[k]] and k > 1
    fitted = {
        "xorder": XOrder(lam=0.5, backend="numpy", solver="paper"),
        "xorder-kd": XOrder(lam=0.5, backend="numpy", solver="paper", method="kd",
                            subsample=k),
        "post-logit-public": PostLogit(widen=_studies.PUBLIC_WIDEN)}
    for method, est in fitted.items():
        est.fit(s_tr, train[1], sensitive_features=train[2])
        (rec,) = [r for r in doc["records"] if (r["method"], r["split"])
                  == (method, "test")]
        assert rec["xauc"] == metrics.disparity(test[1],
                                                est.transform(s_te,
                                                              sensitive_features=test[2]),
                                                sensitive_features=test[2])
    assert set(fitted["post-logit-public"].shifts_) == {0, 1}  # every band but the last
    public = fitted["post-logit-public"]
    assert doc["notes"]["post-logit-public alpha grid"] == [[{
        "low": 0.0, "high": public.alphas_[-1], "interior": public.interior_}]]
    assert public.alphas_[-1] == pytest.approx(9.9 * 3 ** public.widenings_)
    tables = (tmp_path / "age" / "tables.md").read_text()
    assert "| compas | xorder-kd |" in tables
    assert main(["paper", "--data", "compas", "--methods", "xorder-kd"]) == 2
    assert "xorder-kd compares the K-D lattice" in capsys.readouterr().err
    with pytest.raises(ValueError, match="unknown post_logit_search 'alpha'"):
        compare_methods("german", post_logit_search="alpha")


def test_icu_standin_runs_every_method(tmp_path, monkeypatch, capsys):
    """--data icu-standin: the baselines on the synthetic ICU table (here a small draw
    of it, so that the test takes seconds), the figures with its groups' names (the
    figures once looked the data set up among the bundled ones and failed at the end)."""
    monkeypatch.setattr(_studies, "_icu_standin", lambda: make_icu(3000))
    folder = tmp_path / "icu"
    assert main(["paper", "--data", "icu-standin", "--repeats", "1", "--lam", "0.5",
                 "--backend", "numpy", "--out", str(folder)]) == 0
    doc = json.loads((folder / "records.json").read_text())["experiments"][0]
    assert doc["data"] == "icu-standin" and set(doc["methods"]) == set(METHODS)
    assert {p.name for p in folder.glob("*.png")} == {
        "icu-standin_default_lr_tradeoff.png", "icu-standin_default_lr_xroc.png"}
    capsys.readouterr()
    assert main(["paper", "--data", "icu-standin", "--groups", "age"]) == 2
    assert "the ICU stand-in has its two age bands (groups 'default')" in \
        capsys.readouterr().err


def test_icu_standin_figure_12_bands(tmp_path, monkeypatch):
    """--groups age5 on the ICU stand-in (a small draw): the paper's Figure 12 bands,
    iterative xOrder and the coordinate-search post-logit (K-D xOrder's 1e8 cells
    would take minutes here), their paired comparison in tables.md, and the figure's
    title naming every band's edges."""
    from gpu_xorder.experiments._experiment import band_names
    from gpu_xorder.experiments._paper_plots import _between

    monkeypatch.setattr(_studies, "_icu_standin", lambda: make_icu(4000))
    folder = tmp_path / "icu5"
    assert main(["paper", "--data", "icu-standin", "--groups", "age5", "--repeats", "2",
                 "--methods", "xorder", "post-logit-coord", "--lam", "0.1", "0.5",
                 "--backend", "numpy", "--out", str(folder)]) == 0
    doc = json.loads((folder / "records.json").read_text())["experiments"][0]
    assert doc["methods"] == ["unadjusted", "xorder", "post-logit-coord"]
    assert doc["group_labels"] == [0, 1, 2, 3, 4]  # codes, as the figures name them
    assert len(doc["notes"]["post-logit-coord alphas"]) == 2
    tables = (folder / "tables.md").read_text()
    assert "| icu-standin | post-logit-coord | " in tables  # its row and its pair
    assert tables.count("| icu-standin | post-logit-coord | ") >= 2
    assert (folder / "icu-standin_age5_lr_tradeoff.png").is_file()
    c = compare_methods("icu-standin", groups="age10", methods=["post-logit-coord"],
                        repeats=1, backend="numpy")
    title = _between(c, band_names("age10")).replace("\u00a0", " ")
    assert title.startswith("largest over pairs of 10 groups (age <= 35, 35 < age <= 45")
    assert title.endswith("75 < age <= 85, age > 85)")
    # the public post-logit's every combination of alphas over 4 shifted bands (1e8)
    # is refused before any repetition, by the fit's own message (it failed mid-run)
    with pytest.raises(ValueError, match=r"the public search would try 100000000 "
                                         r"combinations of alpha \(4 shifted groups"):
        compare_methods("icu-standin", groups="age5", methods=["post-logit-public"],
                        repeats=1, backend="numpy")
    assert main(["paper", "--data", "icu-standin", "--groups", "age5", "--methods",
                 "post-logit-public", "--out", str(tmp_path / "never")]) == 2
    assert not (tmp_path / "never").exists()


@pytest.mark.slow
def test_icu_standin_full_size(tmp_path):
    c = compare_methods("icu-standin", methods=["xorder", "post-logit-public"],
                        lams=[0.5], repeats=1, backend="numpy", subsample=50)
    assert sum(r["split"] == "train" for r in c.records) == 3
    (rec,) = [r for r in c.records if (r["method"], r["split"]) == ("unadjusted", "test")]
    assert rec["auc"] > 0.85


def test_study_figure_draws_the_sd_of_every_setting():
    """The error bars of the study figure span mean ± sd of the summary, and the
    title gives the number of repetitions."""
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from gpu_xorder.experiments._paper_plots import plot_study

    c = compare_methods("german", study="samples", methods=["post-logit-public"],
                        lams=[0.5], repeats=2, backend="numpy")
    fig = Figure()
    axes = plot_study(c, fig.subplots(1, 2))
    assert "over 2 repetitions" in fig.get_suptitle()
    rows = {(r["method"], r["setting"]): r for r in c.summary("test")}
    for ax, key in zip(axes, ("xauc", "auc")):
        assert [c.get_label() for c in ax.containers] == ["unadjusted", "post-logit-public"]
        for container in ax.containers:
            method = container.get_label()
            segments = container.lines[2][0].get_segments()
            for fraction, segment in zip(FRACTIONS, segments):
                mean, sd = rows[(method, fraction)][key]
                np.testing.assert_allclose([p[1] for p in segment],
                                           [mean - sd, mean + sd])


def test_paired_differences_script(tmp_path):
    """benchmarks/paired_differences.py, which docs/RESULTS.md quotes: per data set the
    mean ± sd over repetitions of A - B, from the records, against the same by hand."""
    import subprocess
    import sys

    c = compare_methods("german", methods=["xorder", "post-logit-public"], lams=[0.5],
                        repeats=3, backend="numpy")
    path = tmp_path / "records.json"
    path.write_text(json.dumps({"experiments": [c.to_dict()]}))
    script = REPO / "benchmarks" / "paired_differences.py"
    out = subprocess.run([sys.executable, str(script), str(path), "xorder:0.5",
                          "post-logit-public"], capture_output=True, text=True,
                         check=True).stdout
    rows = [line.split(" | ") for line in out.splitlines()[2:]]
    for key, name in (("auc", "AUC"), ("xauc", "Δ-xAUC")):
        value = {m: [r[key] for r in c.records if r["method"] == m and r["split"] == "test"]
                 for m in ("xorder", "post-logit-public")}
        d = np.subtract(value["xorder"], value["post-logit-public"])
        (row,) = [r for r in rows if r[1] == name]
        assert row[2] == f"{d.mean():+.4f} ± {d.std(ddof=1):.4f}"
        assert row[3].startswith(f"{int((d > 0).sum())} of 3")
        # the corrected resampled t interval: t_2 (4.3027) * sqrt((1/3 + 3/7) * var)
        half = 4.30265 * np.sqrt((1 / 3 + 0.3 / 0.7) * d.var(ddof=1))
        assert row[4] == f"[{d.mean() - half:+.4f}, {d.mean() + half:+.4f}]"
        assert row[5].rstrip(" |") == ("yes" if abs(d.mean()) > half else "no")
        # tables.md pairs xOrder at its largest lam with every other method the same way
        (line,) = [x for x in paired_table(c).splitlines() if "post-logit-public" in x]
        cell = line.split(" | ")[2 if key == "auc" else 4]
        assert cell == (f"{d.mean():+.4f} [{d.mean() - half:+.4f}, "
                        f"{d.mean() + half:+.4f}]")
    # AUC at matched disparity: xOrder's curve runs from the unadjusted point (lam 0) to
    # lam 0.5; the public post-logit's single point is compared where the curve reaches
    mean = {m: (np.mean([r["xauc"] for r in c.records if r["method"] == m
                         and r["split"] == "test"]),
                np.mean([r["auc"] for r in c.records if r["method"] == m
                         and r["split"] == "test"]))
            for m in ("unadjusted", "xorder", "post-logit-public")}
    (line,) = [x for x in matched_table(c).splitlines() if "post-logit-public" in x]
    (dx, ax), (du, au), (dp, ap) = (mean[m] for m in ("xorder", "unadjusted",
                                                      "post-logit-public"))
    if min(dx, du) <= dp <= max(dx, du):
        diff = ax + (au - ax) * (dp - dx) / (du - dx) - ap
        assert line.endswith(f"| 1 | {diff:+.4f} ({diff:+.4f} - {diff:+.4f}) |")
    else:
        assert line.endswith("| none | 0 | n/a |")
    # the same per repetition, from the records (runs that predate the table)
    out = subprocess.run([sys.executable, str(script), str(path), "--matched"],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == matched_paired_table(c)
