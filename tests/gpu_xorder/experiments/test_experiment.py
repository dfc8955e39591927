"""Tests of gpu_xorder.paper_experiment: the paper's protocol, recomputed independently."""

import json
import re
from dataclasses import replace

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from gpu_xorder import XOrder, metrics, paper_experiment
from gpu_xorder.datasets import age_bands, load_dataset
from gpu_xorder.experiments._experiment import (
    MSG_NO_AGE,
    MSG_NO_RACE_SEX,
    MSG_REPEATS,
    PAPER_FIGURES,
    grouping,
)
from gpu_xorder.utils._parallel import MSG_N_JOBS
from gpu_xorder.utils._validation import MSG_TEST_SIZE

GERMAN = dict(lams=[0.0, 0.5], repeats=2, backend="numpy")


@pytest.fixture(scope="module")
def german():
    return paper_experiment("german", seed=3, **GERMAN)


def test_records_equal_the_protocol_done_by_hand(german):
    data = load_dataset("german")
    for r in range(2):
        X_tr, X_te, y_tr, y_te, a_tr, a_te = train_test_split(
            data.X, data.y, data.sensitive, test_size=0.3, random_state=3 + r,
            stratify=data.y)
        scaler = StandardScaler().fit(X_tr)
        model = LogisticRegression(max_iter=1000, random_state=3 + r).fit(
            scaler.transform(X_tr), y_tr)
        s_tr = model.predict_proba(scaler.transform(X_tr))[:, 1]
        s_te = model.predict_proba(scaler.transform(X_te))[:, 1]
        for lam in (None, 0.0, 0.5):
            if lam is None:
                scores = {"train": s_tr, "test": s_te}
            else:
                xo = XOrder(lam=lam, backend="numpy", solver="paper").fit(
                    s_tr, y_tr, sensitive_features=a_tr)
                scores = {"train": xo.transform(s_tr, sensitive_features=a_tr),
                          "test": xo.transform(s_te, sensitive_features=a_te)}
            for split, y, a in (("train", y_tr, a_tr), ("test", y_te, a_te)):
                (rec,) = [x for x in german.records
                          if (x["repeat"], x["lam"], x["split"]) == (r, lam, split)]
                assert rec["auc"] == metrics.auc(y, scores[split])
                for name in ("xauc", "prf", "urf"):
                    assert rec[name] == metrics.disparity(y, scores[split],
                                                          sensitive_features=a, metric=name)
                assert rec["xauc_pairs"] == {
                    "0 > 1": metrics.xauc(y, scores[split], sensitive_features=a, g=0, h=1),
                    "1 > 0": metrics.xauc(y, scores[split], sensitive_features=a, g=1, h=0)}
    assert len(german.records) == 2 * 3 * 2
    assert german.group_labels == (0, 1) and german.lams == (0.0, 0.5)
    assert german.backends == ("numpy",) and german.methods == ("2d",)
    assert len(german.fit_seconds) == 2


def test_worker_processes_give_the_same_experiment(german):
    """Repetitions in two worker processes: the same records, in order; progress after
    every round."""
    calls = []
    parallel = paper_experiment("german", seed=3, n_jobs=2,
                                progress=lambda done, total: calls.append((done, total)),
                                **GERMAN)
    assert parallel.records == german.records
    assert (parallel.backends, parallel.methods) == (german.backends, german.methods)
    assert len(parallel.fit_seconds) == 2 and calls == [(2, 2)]


def test_summary_is_mean_and_sample_sd_over_repetitions(german):
    for split in ("train", "test"):
        rows = german.summary(split)
        assert [row["lam"] for row in rows] == [None, 0.0, 0.5]
        for row in rows:
            for key in ("auc", "xauc", "prf", "urf"):
                values = [x[key] for x in german.records
                          if x["lam"] == row["lam"] and x["split"] == split]
                assert row[key] == pytest.approx((np.mean(values), np.std(values, ddof=1)),
                                                 rel=1e-12, abs=1e-15)
    with pytest.raises(ValueError, match="split"):
        german.summary("validation")


def test_to_dict_is_strict_json(german):
    doc = json.loads(json.dumps(german.to_dict(), allow_nan=False))
    assert doc["data"] == "german" and doc["repeats"] == 2 and len(doc["records"]) == 12
    assert doc["summary"]["test"][0]["auc"] == list(german.summary("test")[0]["auc"])
    assert doc["paper_figures"] == []  # the paper quotes no figure for German


def test_undefined_values_are_none_and_skipped_in_means():
    exp = paper_experiment("german", lams=[0.0], repeats=2, backend="numpy")
    rec = dict(exp.records[0])
    fake = exp.records[:1] + ({**rec, "repeat": 1, "xauc": None},)
    partial = replace(exp, records=fake, lams=())
    mean, sd = partial.summary("train")[0]["xauc"]
    assert mean == rec["xauc"] and np.isnan(sd)  # one defined value: no deviation
    assert partial.to_dict()["summary"]["train"][0]["xauc"] == [rec["xauc"], None]
    missing = replace(exp, records=({**rec, "xauc": None},), lams=())
    assert np.isnan(missing.summary("train")[0]["xauc"]).all()
    assert missing.to_dict()["summary"]["train"][0]["xauc"] == [None, None]


#: Adult's model scores its surest items 1.0 and 0.9999999999999998: an ordering that
#: moves items between them has no float64 left to give them distinct scores, and the
#: transfer says so (test_transfer.py checks the warning); these tests read the
#: unadjusted figures only.
NO_ROOM_AT_ONE = pytest.mark.filterwarnings("ignore:.* adjusted training scores share a value")


@NO_ROOM_AT_ONE
def test_compas_and_adult_match_the_figures_the_paper_quotes():
    """The data, split and model reproduce the paper's unadjusted xAUC figures (mean of
    three repetitions) within 0.03, except Adult's smaller xAUC: 0.867 here against the
    paper's 0.829 (docs/user_guide/paper.md, "The paper's experiments"). The lattice is
    subsampled, as only
    the unadjusted scores are compared."""
    tolerance = {("compas", "larger xAUC"): 0.03, ("compas", "smaller xAUC"): 0.03,
                 ("adult", "larger xAUC"): 0.03, ("adult", "smaller xAUC"): 0.05}
    for data in ("compas", "adult"):
        exp = paper_experiment(data, lams=[0.0], repeats=3, subsample=50, backend="numpy")
        figures = exp.paper_figures()
        assert [f.quantity for f, _ in figures] == ["larger xAUC", "smaller xAUC"]
        for fig, (mean, sd) in figures:
            assert abs(mean - fig.value) < tolerance[data, fig.quantity], (fig, mean)
            assert 0 <= sd < 0.02


@NO_ROOM_AT_ONE
def test_adult_age_bands_urf_is_near_the_paper():
    """Unadjusted Delta-URF of the age bands: the paper says about 0.75; one split gives
    about 0.81 here (the paper's exact model and split are not known)."""
    exp = paper_experiment("adult", groups="age", lams=[0.0], repeats=1, subsample=200,
                           backend="numpy")
    ((fig, (mean, _)),) = exp.paper_figures()
    assert fig == PAPER_FIGURES[-1] and abs(mean - 0.75) < 0.1
    assert exp.group_labels == (0, 1, 2)
    data = load_dataset("adult")
    assert np.array_equal(np.bincount(age_bands(data.age)),
                          [sum(1 for x in data.age if x <= 25),
                           sum(1 for x in data.age if 25 < x <= 40),
                           sum(1 for x in data.age if x > 40)])


def test_race_sex_grouping_is_the_intersection_of_the_two_columns():
    """Codes 2 * race + sex, the same groups as the library's intersection of the two
    columns; the four intersections on COMPAS, and no paper figures for them."""
    data = load_dataset("compas")
    race = data.X[:, data.feature_names.index("race")]
    sex = data.X[:, data.feature_names.index("sex")]
    codes = grouping(data, "race-sex")
    assert np.array_equal(codes, 2 * race + sex)
    assert np.array_equal(np.bincount(codes), [np.sum((race == r) & (sex == s))
                                               for r in (0, 1) for s in (0, 1)])
    exp = paper_experiment("compas", groups="race-sex", lams=[0.0, 2.0], repeats=1,
                           subsample=4, backend="numpy")
    assert exp.group_labels == (0, 1, 2, 3) and exp.paper_figures() == []
    unadjusted, _, large = exp.summary("train")
    assert large["xauc"][0] < 0.5 * unadjusted["xauc"][0]
    for name in ("german", "framingham"):
        with pytest.raises(ValueError, match=re.escape(MSG_NO_RACE_SEX.format(name=name))):
            grouping(load_dataset(name), "race-sex")


def test_large_lam_reduces_test_disparity_on_compas():
    exp = paper_experiment("compas", lams=[0.0, 0.5], repeats=2, backend="numpy")
    unadjusted, lam0, lam_large = exp.summary("test")
    assert lam_large["xauc"][0] < 0.3 * unadjusted["xauc"][0]
    assert lam_large["auc"][0] > unadjusted["auc"][0] - 0.02
    # the training split obeys the paper's bound on Delta-xAUC after xOrder
    train = [x for x in exp.records if x["lam"] == 0.5 and x["split"] == "train"]
    assert all(x["xauc"] < 0.01 for x in train)


@pytest.mark.parametrize("kw,error,message", [
    (dict(data="mnist"), ValueError, "unknown data set 'mnist'"),
    (dict(data="german", groups="age"), ValueError,
     re.escape(MSG_NO_AGE.format(name="german"))),
    (dict(groups="race"), ValueError, "groups"),
    (dict(metric="auc"), ValueError, "metric"),
    (dict(lams=[]), ValueError, "lam"),
    (dict(lams=[-1.0]), ValueError, "lam"),
    (dict(repeats=0), ValueError, re.escape(MSG_REPEATS.format(value=0))),
    (dict(repeats=1.5), ValueError, re.escape(MSG_REPEATS.format(value=1.5))),
    (dict(test_size=1.0), ValueError, re.escape(MSG_TEST_SIZE.format(value=1.0))),
    (dict(test_size=True), TypeError, "test_size must be a number, not the bool True"),
    (dict(backend="tpu"), ValueError, "backend"),
    (dict(n_jobs=0), ValueError, re.escape(MSG_N_JOBS.format(value=0))),
    (dict(n_jobs=True), ValueError, re.escape(MSG_N_JOBS.format(value=True))),
    (dict(n_jobs=2.0), ValueError, re.escape(MSG_N_JOBS.format(value=2.0))),
])
def test_bad_arguments(kw, error, message):
    kw.setdefault("data", "german")
    with pytest.raises(error, match=message):
        paper_experiment(kw.pop("data"), repeats=kw.pop("repeats", 1), **kw)


def test_records_and_summary_as_data_frames(german):
    pd = pytest.importorskip("pandas")
    frame = german.to_frame()
    assert len(frame) == len(german.records)
    assert {"repeat", "lam", "split", "auc", "xauc", "prf", "urf",
            "xauc_pairs.0 > 1", "xauc_pairs.1 > 0"} <= set(frame.columns)
    assert frame["lam"].isna().sum() == 2 * 2  # unadjusted: two repetitions, two splits
    first = german.records[0]
    assert frame.loc[0, "auc"] == first["auc"]
    assert frame.loc[0, "xauc_pairs.1 > 0"] == first["xauc_pairs"]["1 > 0"]
    summary = german.summary_frame("train")
    assert len(summary) == 3 and pd.isna(summary.loc[0, "lam"])
    assert summary["lam"].tolist()[1:] == [0.0, 0.5]
    row = german.summary("train")[2]
    assert (summary.loc[2, "xauc_mean"], summary.loc[2, "xauc_std"]) == row["xauc"]


def test_pandas_missing_is_named_with_the_extra(german, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "pandas", None)  # as if not installed
    with pytest.raises(ImportError, match=re.escape("pip install 'gpu-xorder[pandas]'")):
        german.to_frame()


def test_figure_12_age_bands():
    """The paper's Figure 12 bands: age <= edge, by hand at and beside every edge,
    named with their edges."""
    from types import SimpleNamespace

    from gpu_xorder.experiments._experiment import band_names
    from gpu_xorder.experiments._studies import default_methods

    data = SimpleNamespace(age=np.array([18, 45, 45.5, 55, 56, 65, 75, 75.5, 90]),
                           name="x")
    assert grouping(data, "age5").tolist() == [0, 0, 1, 1, 2, 2, 3, 4, 4]
    assert grouping(data, "age10").tolist() == [0, 1, 2, 3, 4, 5, 7, 8, 9]
    assert band_names("age5") == {0: "age <= 45", 1: "45 < age <= 55",
                                  2: "55 < age <= 65", 3: "65 < age <= 75",
                                  4: "age > 75"}
    assert band_names("age10")[5] == "60 < age <= 65" and len(band_names("age10")) == 10
    # the public grid's every combination fits three groups, not five
    assert "post-logit-public" in default_methods(3)
    assert "post-logit-coord" not in default_methods(3) + default_methods(2)
    assert default_methods(5) == ("unadjusted", "xorder", "xorder-kd",
                                  "post-logit-coord")
