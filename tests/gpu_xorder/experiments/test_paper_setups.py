"""The paper's figures as it set them up: absolute training sizes (Fig 13), the
train-test study (Figs 14-15), the public code's RankBoost (Fig 8), xOrder on
subsamples of a large set (Fig 11); each checked against the protocol done by hand."""

import numpy as np
import pytest

from gpu_xorder import metrics
from gpu_xorder.cli import main
from gpu_xorder.datasets import load_dataset
from gpu_xorder.experiments import _studies
from gpu_xorder.experiments._matched import corrected_interval, train_test_table
from gpu_xorder.experiments._studies import _split, compare_methods
from gpu_xorder.experiments._tables import markdown
from gpu_xorder.experiments.models import RankBoost, make_model


def _data(n=300, p=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n) > 0.3).astype(int)
    return X, y


def test_public_rankboost_is_fifty_rounds_scored_by_the_weighted_vote():
    X, y = _data()
    public = make_model("rankboost-public").fit(X, y)
    assert len(public.stumps_) == 50
    alphas = np.array([alpha for *_, alpha in public.stumps_])
    votes = np.array([(X[:, j] > t) if d > 0 else (X[:, j] <= t)
                      for j, t, d, _ in public.stumps_], dtype=float)
    expected = alphas @ votes / alphas.sum()  # sum alpha h / sum alpha, by hand
    p = public.predict_proba(X)[:, 1]
    assert p == pytest.approx(np.clip(expected, 1e-9, 1 - 1e-9), abs=1e-12)
    assert p.min() >= 0.0 and p.max() <= 1.0
    # the same 50 rounds as the package's RankBoost cut at 50: one ranking, two scales
    margin = RankBoost(n_rounds=50).fit(X, y)
    assert margin.stumps_ == public.stumps_
    assert metrics.auc(y, p) == metrics.auc(y, margin.predict_proba(X)[:, 1])
    with pytest.raises(ValueError, match="score"):
        RankBoost(score="sigmoid").fit(X, y)


def test_sizes_train_on_that_many_items_stratified():
    """--sizes: the base model and every method on exactly that many training items
    (the paper's Figure 13), drawn by the study's stratified subset."""
    c = compare_methods("german", study="samples-retrain", sizes=[300, 150], lams=[0.5],
                        repeats=1, seed=2, methods=["xorder", "corr-reg"],
                        backend="numpy")
    assert list(dict.fromkeys(r["setting"] for r in c.records)) == [300, 150]
    data = load_dataset("german")
    train, test = _split(data, data.sensitive, 0.3, 2)
    idx = _studies._subset(train[1], train[2], 150, 2)
    assert idx.size == 150
    model = make_model("lr", random_state=2).fit(train[0][idx], train[1][idx])
    (rec,) = [r for r in c.records if (r["method"], r["setting"], r["split"])
              == ("unadjusted", 150, "test")]
    assert rec["auc"] == metrics.auc(test[1], model.predict_proba(test[0])[:, 1])
    # corr-reg trained on the same 150 items, every weight recorded per size
    assert {r["parameter"] for r in c.records if r["method"] == "corr-reg"
            and r["setting"] == 150} == set(_studies.DEFAULT_PARAMETERS["corr-reg"])
    assert "#### 150 training items (samples-retrain)" in markdown([c])
    for kw, message in (({"sizes": [800]}, "more than the 700 training items"),
                        ({"sizes": [100], "fractions": [0.5]}, "not both"),
                        ({"sizes": [100, 100]}, "sizes must be distinct")):
        with pytest.raises(ValueError, match=message):
            compare_methods("german", study="samples-retrain", repeats=1, **kw)
    with pytest.raises(ValueError, match="needs sizes"):
        compare_methods("german", study="subsample", repeats=1)


def test_train_test_table_is_the_gap_by_hand():
    c = compare_methods("german", study="train-test", lams=[0.05, 0.5], repeats=3,
                        seed=1, methods=["xorder", "post-logit-public"], backend="numpy")
    value = {(r["method"], r["parameter"], r["split"], r["repeat"]): r["xauc"]
             for r in c.records}
    gaps = {m: [value[(m, p, "test", k)] - value[(m, p, "train", k)] for k in range(3)]
            for m, p in (("xorder", 0.5), ("post-logit-public", None))}
    table = train_test_table(c)
    mean, lo, hi = corrected_interval(gaps["xorder"], 0.3)
    assert "| german | xorder (lam 0.5) |" in table
    assert f"{mean:+.4f} [{lo:+.4f}, {hi:+.4f}]" in table
    diff = np.subtract(gaps["xorder"], gaps["post-logit-public"])
    mean, lo, hi = corrected_interval(diff, 0.3)
    assert f"| german | post-logit-public | {mean:+.4f} [{lo:+.4f}, {hi:+.4f}] |" in table
    assert table in markdown([c])
    # repetition 0's training and test scores are kept for the histograms
    train = c.curves["train-test"]["train"]
    assert train[0].size == 700


def test_subsample_study_learns_xorder_on_every_kth_item_and_the_rest_on_all():
    c = compare_methods("german", study="subsample", sizes=[350, 140], lams=[0.5],
                        repeats=1, seed=0, methods=["xorder", "post-logit-public"],
                        backend="numpy")
    data = load_dataset("german")
    train, test = _split(data, data.sensitive, 0.3, 0)
    model = make_model("lr", random_state=0).fit(train[0], train[1])
    s_tr, s_te = (model.predict_proba(X)[:, 1] for X in (train[0], test[0]))
    from gpu_xorder.postprocessing._path import xorder_path

    for size, k in ((350, 2), (140, 5)):  # k: the 700 training items over the size
        (fitted,) = xorder_path(s_tr, train[1], sensitive_features=train[2], lams=[0.5],
                                metric="xauc", backend="numpy", method="auto",
                                solver="paper", subsample=k)
        (rec,) = [r for r in c.records if (r["method"], r["setting"], r["split"])
                  == ("xorder", size, "test")]
        assert rec["xauc"] == metrics.disparity(
            test[1], fitted.transform(s_te,
                                      sensitive_features=test[2]), sensitive_features=test[2])
    public = [r for r in c.records if r["method"] == "post-logit-public"]
    assert ({tuple(sorted((k, str(v)) for k, v in r.items() if k != "setting"))
             for r in public if r["setting"] == 350}
            == {tuple(sorted((k, str(v)) for k, v in r.items() if k != "setting"))
                for r in public if r["setting"] == 140})


@pytest.mark.slow
def test_paper_options_write_the_figures(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "tt"
    assert main(["paper", "--data", "german", "--study", "train-test", "--model",
                 "rankboost-public", "--lam", "0.5", "--repeats", "2", "--backend",
                 "numpy", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.glob("*.png")) == [
        "german_default_rankboost-public_train-test.png",
        "german_default_rankboost-public_train-test_tradeoff.png"]
    out = tmp_path / "sizes"
    assert main(["paper", "--data", "german", "--study", "samples-retrain", "--sizes",
                 "400", "200", "--methods", "xorder", "--lam", "0.5", "--repeats", "2",
                 "--backend", "numpy", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.glob("*.png")) == [
        "german_default_lr_samples-retrain-sizes.png",
        "german_default_lr_samples-retrain-sizes_200_tradeoff.png",
        "german_default_lr_samples-retrain-sizes_400_tradeoff.png"]
