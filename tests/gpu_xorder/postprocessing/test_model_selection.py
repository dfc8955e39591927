"""Choosing lam by cross-validation: GridSearchCV over FairRanker, alone or at the end of
a Pipeline, with metadata routing on (sensitive_features routed) and off (the groups a
column of a DataFrame X), scored by FairRanker's own score or by fairness_scorer.

The oracle: every fold run by hand (the same splits, clones fitted without the search)
and scored by scikit-learn's roc_auc_score and the O(n^2) pair definition of |D|
(tests/oracles.py); the search must record the same numbers, no NaN, no warning, and
choose the lam of their largest mean."""

import re
import warnings

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_validate
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from gpu_xorder import FairRanker, fairness_scorer
from gpu_xorder.postprocessing._scorer import (
    MSG_LAM_AND_CEILING,
    MSG_NO_GROUPS,
    MSG_ONE_LAM,
    MSG_REQUEST,
)
from support.oracles import pair_term

pd = pytest.importorskip("pandas")

RNG = np.random.default_rng(21)
N = 600
A = RNG.integers(0, 2, N)
X = np.column_stack([RNG.normal(size=N), RNG.normal(size=N), A])
# the group shifts the outcome and the features carry it: unadjusted Delta-xAUC ~ 0.3
Y = (X[:, 0] + 0.5 * X[:, 1] + 1.2 * A + RNG.normal(size=N) > 0.8).astype(int)
TABLE = pd.DataFrame({"x1": X[:, 0], "x2": X[:, 1], "a": A,
                      "group": np.where(A == 1, "g1", "g0")})  # sorted as A: same ties
LAMS = [0.0, 0.1, 1.0]
CV = StratifiedKFold(3)
FAST = dict(backend="numpy", solver="paper", cv=StratifiedKFold(3))


@pytest.fixture(autouse=True)
def one_blas_thread():
    """Logistic regressions of a few features: two BLAS threads only add contention (on
    the shared 2-core machine 15x slower); the numbers are the same."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield


def routed_pipeline():
    """The issue's pipeline: groups as metadata, routed."""
    return Pipeline([("scale", StandardScaler()),
                     ("fair", FairRanker(LogisticRegression(), **FAST))])


def column_pipeline():
    """The same model without routing: the groups ride along in X as a column, which
    the ranker reads and its classifier drops."""
    prep = ColumnTransformer([("scale", StandardScaler(), ["x1", "x2", "a"])],
                             remainder="passthrough", verbose_feature_names_out=False)
    drop = ColumnTransformer([("groups", "drop", ["group"])], remainder="passthrough")
    classifier = Pipeline([("drop", drop), ("lr", LogisticRegression())])
    return Pipeline([("prep", prep),
                     ("fair", FairRanker(classifier, sensitive_features="group", **FAST))]
                    ).set_output(transform="pandas")


def by_hand(make, lam_of, criterion, routed):
    """Mean over CV's folds of ``criterion(y, fair scores, groups)`` for every lam:
    each fold fitted here, outside any search."""
    means = []
    for lam in LAMS:
        values = []
        for train, test in CV.split(X, Y):
            model = make().set_params(**{lam_of: lam})
            if routed and isinstance(model, Pipeline):  # no routing: steps by hand
                model.fit(X[train], Y[train], fair__sensitive_features=A[train])
                fair = model[-1].decision_function(model[:-1].transform(X[test]),
                                                   sensitive_features=A[test])
            elif routed:
                model.fit(X[train], Y[train], sensitive_features=A[train])
                fair = model.decision_function(X[test], sensitive_features=A[test])
            else:
                model.fit(TABLE.iloc[train], Y[train])
                fair = model.decision_function(TABLE.iloc[test])
            values.append(criterion(Y[test], fair, A[test]))
        means.append(np.mean(values))
    return np.array(means)


def objective(lam):
    """AUC - lam |Delta-xAUC|: scikit-learn's AUC, the pair loops' Delta."""
    return lambda y, s, a: roc_auc_score(y, s) - lam * abs(pair_term(s, y, a == 0, a == 1,
                                                                    "xauc"))


def search(estimator, grid, scoring, routed, **kw):
    """GridSearchCV fitted with errors raised and every warning an error."""
    out = GridSearchCV(estimator, grid, cv=CV, scoring=scoring, error_score="raise", **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with sklearn.config_context(enable_metadata_routing=routed):
            if routed:
                out.fit(X, Y, sensitive_features=A)
            else:
                out.fit(TABLE, Y)
    return out


@pytest.mark.parametrize("routed", [True, False], ids=["routing", "no-routing"])
@pytest.mark.parametrize("scoring", ["default", "fairness_scorer"])
def test_pipeline_search_chooses_lam_like_the_folds_by_hand(routed, scoring):
    make = routed_pipeline if routed else column_pipeline
    scorer = None if scoring == "default" else fairness_scorer(lam=0.5)
    got = search(make(), {"fair__lam": LAMS}, scorer, routed)
    scores = got.cv_results_["mean_test_score"]
    assert np.isfinite(scores).all()
    for k in range(CV.get_n_splits()):
        assert np.isfinite(got.cv_results_[f"split{k}_test_score"]).all()
    # default score: AUC - 1 * |D| (FairRanker.score); the scorer: AUC - 0.5 |D|
    with sklearn.config_context(enable_metadata_routing=False):
        want = by_hand(make, "fair__lam", objective(1.0 if scorer is None else 0.5), routed)
    np.testing.assert_allclose(scores, want, rtol=0, atol=1e-12)
    assert got.best_params_["fair__lam"] == LAMS[int(np.argmax(want))]
    assert got.best_params_["fair__lam"] != 0.0  # unadjusted Delta-xAUC is ~0.3
    assert scores[0] < max(scores) - 0.05
    # refit: the best pipeline scores new data
    best = got.best_estimator_
    with sklearn.config_context(enable_metadata_routing=routed):
        fair = (best.decision_function(X[:50], sensitive_features=A[:50]) if routed
                else best.decision_function(TABLE.iloc[:50]))
        again = (got.score(X, Y, sensitive_features=A) if routed else got.score(TABLE, Y))
        every = (best.decision_function(X, sensitive_features=A) if routed
                 else best.decision_function(TABLE))
    assert fair.shape == (50,) and np.isfinite(fair).all()
    assert again == pytest.approx(objective(1.0 if scorer is None else 0.5)(Y, every, A),
                                  abs=1e-12)


def test_routing_and_column_pipelines_record_the_same_scores():
    """Same features, same folds: groups routed or read from X give one search."""
    routed = search(routed_pipeline(), {"fair__lam": LAMS}, fairness_scorer(), True)
    column = search(column_pipeline(), {"fair__lam": LAMS}, fairness_scorer(), False)
    np.testing.assert_allclose(routed.cv_results_["mean_test_score"],
                               column.cv_results_["mean_test_score"], rtol=0, atol=1e-12)


def test_ranker_alone_and_the_search_predicts_by_column():
    """GridSearchCV(FairRanker(...)) without a Pipeline, both ways; with the groups in a
    column, the fitted search's own decision_function works (it passes no metadata)."""
    ranker = FairRanker(LogisticRegression(), **FAST)
    routed = search(ranker, {"lam": LAMS}, fairness_scorer(), True)
    with sklearn.config_context(enable_metadata_routing=False):
        want = by_hand(lambda: FairRanker(LogisticRegression(), **FAST), "lam",
                       objective(1.0), True)
    np.testing.assert_allclose(routed.cv_results_["mean_test_score"], want, atol=1e-12)
    assert routed.best_params_["lam"] == LAMS[int(np.argmax(want))] != 0.0

    table = TABLE.drop(columns="a")
    named = FairRanker(Pipeline([("drop", ColumnTransformer([("g", "drop", ["group"])],
                                                            remainder="passthrough")),
                                 ("lr", LogisticRegression())]),
                       sensitive_features="group", **FAST)
    got = GridSearchCV(named, {"lam": LAMS}, cv=CV, scoring=fairness_scorer(),
                       error_score="raise")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got.fit(table, Y)
    assert np.isfinite(got.cv_results_["mean_test_score"]).all()
    np.testing.assert_array_equal(got.decision_function(table),
                                  got.best_estimator_.decision_function(table))


def test_nested_cross_validation():
    """cross_validate of a search: each outer fold scored on the inner search's best
    pipeline, the groups routed."""
    inner = GridSearchCV(routed_pipeline(), {"fair__lam": [0.0, 1.0]}, cv=StratifiedKFold(2),
                         scoring=fairness_scorer(), error_score="raise")
    with sklearn.config_context(enable_metadata_routing=True):
        got = cross_validate(inner, X, Y, cv=CV, scoring=fairness_scorer(),
                             error_score="raise", params={"sensitive_features": A},
                             return_estimator=True)
        for value, search_k, (_, test) in zip(got["test_score"], got["estimator"],
                                                  CV.split(X, Y)):
            fair = search_k.best_estimator_.decision_function(X[test],
                                                              sensitive_features=A[test])
            assert value == pytest.approx(objective(1.0)(Y[test], fair, A[test]), abs=1e-12)


def test_roc_auc_beside_the_fairness_scorer_names_multimetric():
    """Regression (issue 42): "roc_auc" beside fairness_scorer() scored NaN folds with
    no hint of fairness_scorer(multimetric=True): the error (raised, or in the NaN
    fold's warning) now names it."""
    scoring = {"roc_auc": "roc_auc", "fair": fairness_scorer()}
    with pytest.raises(ValueError, match=re.escape("fairness_scorer(multimetric=True)")):
        search(routed_pipeline(), {"fair__lam": [0.0]}, scoring, True, refit="fair")
    quiet = GridSearchCV(routed_pipeline(), {"fair__lam": [0.0]}, cv=CV, scoring=scoring,
                         refit="fair")
    with sklearn.config_context(enable_metadata_routing=True), \
            pytest.warns(UserWarning, match=re.escape("fairness_scorer(multimetric=True)")):
        quiet.fit(X, Y, sensitive_features=A)
    assert np.isnan(quiet.cv_results_["mean_test_roc_auc"]).all()


def test_multimetric_scorers_pick_by_hand():
    scorers = fairness_scorer(lam=0.5, multimetric=True)
    assert list(scorers) == ["objective", "auc", "neg_disparity"]
    got = search(routed_pipeline(), {"fair__lam": LAMS}, scorers, True, refit="objective")
    res = got.cv_results_
    for k in range(CV.get_n_splits()):  # objective = auc - 0.5 |D|, fold by fold
        np.testing.assert_allclose(
            res[f"split{k}_test_objective"],
            res[f"split{k}_test_auc"] + 0.5 * res[f"split{k}_test_neg_disparity"],
            rtol=0, atol=1e-12)
    with sklearn.config_context(enable_metadata_routing=False):
        auc = by_hand(routed_pipeline, "fair__lam",
                      lambda y, s, a: roc_auc_score(y, s), True)
        dis = by_hand(routed_pipeline, "fair__lam",
                      lambda y, s, a: abs(pair_term(s, y, a == 0, a == 1, "xauc")), True)
    np.testing.assert_allclose(res["mean_test_auc"], auc, atol=1e-12)
    np.testing.assert_allclose(res["mean_test_neg_disparity"], -dis, atol=1e-12)

    def within_01(results):
        """The best AUC among the candidates with mean |D| <= 0.1."""
        ok = np.flatnonzero(-results["mean_test_neg_disparity"] <= 0.1)
        return int(ok[np.argmax(results["mean_test_auc"][ok])])

    by_rule = search(routed_pipeline(), {"fair__lam": LAMS}, scorers, True, refit=within_01)
    assert by_rule.best_index_ == within_01(res)
    assert -res["mean_test_neg_disparity"][by_rule.best_index_] <= 0.1


def test_max_disparity_scorer():
    """AUC within the ceiling, AUC - 1 - (|D| - eps) beyond it."""
    eps = 0.05

    def constrained(y, s, a):
        d = abs(pair_term(s, y, a == 0, a == 1, "xauc"))
        return roc_auc_score(y, s) - (0 if d <= eps else 1 + d - eps)

    got = search(routed_pipeline(), {"fair__lam": LAMS}, fairness_scorer(max_disparity=eps),
                 True)
    with sklearn.config_context(enable_metadata_routing=False):
        want = by_hand(routed_pipeline, "fair__lam", constrained, True)
    np.testing.assert_allclose(got.cv_results_["mean_test_score"], want, atol=1e-12)
    assert got.best_params_["fair__lam"] != 0.0
    assert got.cv_results_["mean_test_score"][0] < 0  # lam = 0 breaks the ceiling


def test_weighted_scorer_with_routing():
    """sample_weight reaches the scorer (requested) while the model declines it (every
    consumer in it: the scaler, the ranker and its classifier)."""
    weights = np.where(A == 1, 2.0, 1.0)
    scorer = fairness_scorer(lam=0.5).set_score_request(sample_weight=True)
    pipe = routed_pipeline()
    with sklearn.config_context(enable_metadata_routing=True):
        pipe[0].set_fit_request(sample_weight=False)
        pipe[-1].set_fit_request(sample_weight=False)
        pipe[-1].estimator.set_fit_request(sample_weight=False)
        got = cross_validate(pipe, X, Y, cv=CV, scoring=scorer, error_score="raise",
                             params={"sensitive_features": A, "sample_weight": weights})
    from support.oracles import weighted_delta, weighted_metric

    for value, (train, test) in zip(got["test_score"], CV.split(X, Y)):
        with sklearn.config_context(enable_metadata_routing=False):
            model = clone(pipe).fit(X[train], Y[train], fair__sensitive_features=A[train])
            fair = model[-1].decision_function(model[:-1].transform(X[test]),
                                               sensitive_features=A[test])
        w, y, a = weights[test], Y[test], A[test]
        want = (weighted_metric(fair, y, a, w, "auc")
                - 0.5 * weighted_delta(fair, y, a, w, "xauc", 0, 1))
        assert value == pytest.approx(want, abs=1e-12)


def test_scorer_of_a_plain_classifier_and_its_errors():
    """Any other classifier is scored on its own scores; groups are needed from
    somewhere; bad settings are named."""
    scorer = fairness_scorer()
    model = LogisticRegression().fit(X, Y)
    s = model.predict_proba(X)[:, 1]
    assert scorer(model, X, Y, sensitive_features=A) == pytest.approx(
        objective(1.0)(Y, s, A), abs=1e-12)
    with pytest.raises(ValueError, match=re.escape(MSG_NO_GROUPS)):
        scorer(model, X, Y)
    ranker = FairRanker(LogisticRegression(), **FAST).fit(X, Y, sensitive_features=A)
    with pytest.raises(ValueError, match=re.escape(MSG_NO_GROUPS)):
        scorer(ranker, X, Y)
    with pytest.raises(ValueError, match=MSG_LAM_AND_CEILING):
        fairness_scorer(lam=1.0, max_disparity=0.1)
    with pytest.raises(ValueError, match=MSG_ONE_LAM.format(k=2)):
        fairness_scorer(lam=[0.1, 1.0])
    with pytest.raises(ValueError, match="unknown metric 'auc'"):
        fairness_scorer(metric="auc")
    with pytest.raises(ValueError, match="max_disparity must be None or a number"):
        fairness_scorer(max_disparity=2)
    with pytest.raises(ValueError, match=re.escape(MSG_REQUEST.format(
            known=["sensitive_features", "sample_weight"], unknown=["groups"]))):
        scorer.set_score_request(groups=True)
    assert repr(fairness_scorer(metric="prf", lam=0.2)) == \
        "fairness_scorer(metric='prf', lam=0.2)"
    assert repr(fairness_scorer(max_disparity=0.05, multimetric=True)["auc"]) == \
        "fairness_scorer(metric='xauc', max_disparity=0.05)['auc']"


@pytest.mark.parametrize("scoring", [None, "fairness_scorer"])
def test_non_routing_metadata_style_fails_at_fit_with_the_two_ways_out(scoring):
    """Without routing a search cannot give its scorer the groups, which would score
    every fold NaN (and pick lam = 0): FairRanker.fit says so, naming routing and the
    DataFrame column, raised at once (error_score="raise") or, by default, as the
    reason of scikit-learn's "all the fits failed"."""
    from gpu_xorder.postprocessing._ranker import MSG_UNROUTED

    scorer = fairness_scorer() if scoring else None
    for error_score in ("raise", np.nan):
        got = GridSearchCV(routed_pipeline(), {"fair__lam": [0.0, 1.0]}, cv=CV,
                           scoring=scorer, error_score=error_score)
        with sklearn.config_context(enable_metadata_routing=False), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the default's FitFailedWarning
            with pytest.raises(ValueError, match=re.escape(MSG_UNROUTED)):
                got.fit(X, Y, fair__sensitive_features=A)
    # the ranker alone, and cross_validate with the groups as params: the same
    with sklearn.config_context(enable_metadata_routing=False):
        with pytest.raises(ValueError, match=re.escape(MSG_UNROUTED)):
            GridSearchCV(FairRanker(LogisticRegression(), **FAST), {"lam": [0.0, 1.0]},
                         cv=CV, scoring=scorer, error_score="raise").fit(
                X, Y, sensitive_features=A)
        with pytest.raises(ValueError, match=re.escape(MSG_UNROUTED)):
            cross_validate(routed_pipeline(), X, Y, cv=CV, scoring=scorer,
                           error_score="raise", params={"fair__sensitive_features": A})
    assert "enable_metadata_routing=True" in MSG_UNROUTED
    assert "sensitive_features='column'" in MSG_UNROUTED
    # outside cross-validation the same fit is fine: the caller passes the groups on
    with sklearn.config_context(enable_metadata_routing=False), warnings.catch_warnings():
        warnings.simplefilter("error")
        model = clone(routed_pipeline()).fit(X, Y, fair__sensitive_features=A)
        assert np.isfinite(model[-1].score(model[:-1].transform(X), Y,
                                           sensitive_features=A))
