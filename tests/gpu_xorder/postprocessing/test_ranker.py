"""FairRanker: out-of-fold scores by cross-fitting, prefit estimators, fair scores and
their selection score, the groups from a column of X, sample weights, and real
scikit-learn machinery around it (clone, Pipeline, GridSearchCV over lam with
sensitive_features routed). Searches that choose lam: tests/test_model_selection.py."""

import re

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from gpu_xorder import FairRanker, XOrder
from gpu_xorder.postprocessing._ranker import (
    MSG_COLUMN,
    MSG_GROUPS_TWICE,
    MSG_NO_COLUMN,
    MSG_NO_GROUPS,
    MSG_NO_METHOD,
    MSG_NOT_A_FRAME,
    MSG_WEIGHTED,
)
from support.oracles import pair_term

RNG = np.random.default_rng(11)
N = 300
A = RNG.integers(0, 2, N)
X = np.column_stack([RNG.normal(size=N), RNG.normal(size=N), A])
Y = (X[:, 0] + 0.5 * X[:, 1] + 0.8 * A + RNG.normal(size=N) > 0.6).astype(int)
FOLDS = StratifiedKFold(3)
FAST = dict(backend="numpy", solver="paper")  # the cell rule: milliseconds


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


def test_xorder_learns_from_out_of_fold_scores():
    ranker = FairRanker(LogisticRegression(), cv=FOLDS, lam=1.0, **FAST)
    ranker.fit(X, Y, sensitive_features=A)
    oof = cross_val_predict(LogisticRegression(), X, Y, cv=FOLDS,
                            method="decision_function")
    np.testing.assert_array_equal(ranker.fit_scores_, oof)
    want = XOrder(lam=1.0, **FAST).fit(oof, Y, sensitive_features=A)
    np.testing.assert_array_equal(ranker.xorder_.train_scores_adjusted_,
                                  want.train_scores_adjusted_)
    full = LogisticRegression().fit(X, Y)
    np.testing.assert_array_equal(ranker.estimator_.coef_, full.coef_)
    fair = ranker.decision_function(X[:40], sensitive_features=A[:40])
    np.testing.assert_array_equal(
        fair, want.transform(full.decision_function(X[:40]), sensitive_features=A[:40]))
    assert ranker.response_method_ == "decision_function" and ranker.n_features_in_ == 3
    # score: AUC - |Delta-xAUC| of the fair scores, by scikit-learn's AUC and pair loops
    fair = ranker.decision_function(X, sensitive_features=A)
    want_score = roc_auc_score(Y, fair) - abs(pair_term(fair, Y, A == 0, A == 1, "xauc"))
    assert ranker.score(X, Y, sensitive_features=A) == pytest.approx(want_score, abs=1e-12)


def test_prefit_scores_the_data_given_to_fit():
    held, rest = slice(0, 150), slice(150, None)
    model = LogisticRegression().fit(X[rest], Y[rest])
    ranker = FairRanker(model, prefit=True, lam=0.5, response_method="predict_proba",
                        **FAST)
    ranker.fit(X[held], Y[held], sensitive_features=A[held])
    assert ranker.estimator_ is model
    np.testing.assert_array_equal(ranker.fit_scores_, model.predict_proba(X[held])[:, 1])
    with pytest.raises(NotFittedError):
        FairRanker(LogisticRegression(), prefit=True).fit(X, Y, sensitive_features=A)


def test_exact_budget_reaches_xorder_and_prefit_is_a_bool():
    """``exact_budget`` is XOrder's (0: the search alone; the default lets the exact
    solver answer); ``prefit`` is a bool, not read by its truth ("False" was true)."""
    for budget, solver in [(0.0, "lagrangian"), (2.0, "exact")]:
        ranker = FairRanker(LogisticRegression(), cv=FOLDS, lam=1.0, backend="numpy",
                            exact_budget=budget).fit(X, Y, sensitive_features=A)
        assert ranker.xorder_.exact_budget == budget
        assert ranker.xorder_.result_.solver == solver
    with pytest.raises(ValueError, match="exact_budget must be a number of seconds"):
        FairRanker(LogisticRegression(), exact_budget=-1).fit(X, Y, sensitive_features=A)
    model = LogisticRegression().fit(X, Y)
    for bad in ("False", 0, None):
        with pytest.raises(TypeError, match="prefit must be True or False"):
            FairRanker(model, prefit=bad, **FAST).fit(X, Y, sensitive_features=A)


def test_auto_takes_the_decision_function_first_as_ranking_scorers_do():
    # a classifier with both: its log-odds, which keep apart what its probabilities
    # round together (saturated probabilities tie at 1.0)
    far = np.column_stack([np.linspace(30, 60, 40), np.zeros(40), np.zeros(40)])
    Xf, Yf, Af = np.vstack([X, far]), np.concatenate([Y, np.ones(40, int)]), np.concatenate(
        [A, np.arange(40) % 2])
    model = LogisticRegression(C=100.0).fit(Xf, Yf)
    assert np.unique(model.predict_proba(far)[:, 1]).size < 40  # ties at 1.0
    ranker = FairRanker(model, prefit=True, **FAST).fit(Xf, Yf, sensitive_features=Af)
    assert ranker.response_method_ == "decision_function"
    np.testing.assert_array_equal(ranker.fit_scores_, model.decision_function(Xf))
    assert np.unique(ranker.fit_scores_[-40:]).size == 40
    # a classifier with predict_proba only: its probabilities
    nb = GaussianNB().fit(X, Y)
    ranker = FairRanker(nb, prefit=True, **FAST).fit(X, Y, sensitive_features=A)
    assert ranker.response_method_ == "predict_proba"
    np.testing.assert_array_equal(ranker.fit_scores_, nb.predict_proba(X)[:, 1])


def test_decision_function_scores_and_bad_settings():
    ranker = FairRanker(LinearSVC(), cv=FOLDS, lam=0.5, **FAST).fit(
        X, Y, sensitive_features=A)
    assert ranker.response_method_ == "decision_function"
    with pytest.raises(TypeError, match=MSG_NO_METHOD.format(name="LinearSVC",
                                                             method="predict_proba")):
        FairRanker(LinearSVC(), response_method="predict_proba").fit(
            X, Y, sensitive_features=A)
    with pytest.raises(ValueError, match="unknown response_method"):
        FairRanker(LinearSVC(), response_method="predict").fit(X, Y, sensitive_features=A)
    with pytest.raises(ValueError, match="y must be binary"):  # before any fit
        FairRanker(LogisticRegression()).fit(X, Y + 1, sensitive_features=A)
    with pytest.raises(NotFittedError):
        FairRanker(LogisticRegression()).decision_function(X, sensitive_features=A)


def test_clone_and_nested_parameters():
    ranker = FairRanker(LogisticRegression(C=0.5), lam=0.2)
    copy = clone(ranker).set_params(lam=2.0, estimator__C=3.0)
    assert copy.get_params()["estimator__C"] == 3.0 and ranker.estimator.C == 0.5
    assert copy.lam == 2.0 and ranker.lam == 0.2


def test_fit_params_reach_the_estimator(routing):
    """Weights for the classifier alone travel under another name (routing); unequal
    sample_weight is refused, since xOrder cannot use it; equal weights reach the
    classifier where it takes them."""
    weights = RNG.uniform(0.5, 2.0, N)
    want = LogisticRegression().fit(X, Y, sample_weight=weights).coef_
    est = LogisticRegression().set_fit_request(sample_weight="classifier_weight")
    ranker = FairRanker(est, cv=FOLDS, **FAST).fit(X, Y, sensitive_features=A,
                                                   classifier_weight=weights)
    np.testing.assert_array_equal(ranker.estimator_.coef_, want)
    with sklearn.config_context(enable_metadata_routing=False):  # the folds weighted too
        oof = cross_val_predict(LogisticRegression(), X, Y, cv=FOLDS,
                                method="decision_function", params={"sample_weight": weights})
    np.testing.assert_array_equal(ranker.fit_scores_, oof)
    unweighted = FairRanker(LogisticRegression(), cv=FOLDS, **FAST).fit(
        X, Y, sensitive_features=A)
    assert not np.array_equal(unweighted.estimator_.coef_, want)
    for routing_on in (True, False):
        with sklearn.config_context(enable_metadata_routing=routing_on):
            with pytest.raises(ValueError, match=r"FairRanker cannot weigh items .* "
                                                 r"from 0\.5"):
                FairRanker(LogisticRegression(), cv=FOLDS, **FAST).fit(
                    X, Y, sensitive_features=A, sample_weight=weights)
    assert "prefit=True" in MSG_WEIGHTED
    twos = np.full(N, 2.0)
    with sklearn.config_context(enable_metadata_routing=False):
        plain = FairRanker(LogisticRegression(), cv=FOLDS, **FAST).fit(
            X, Y, sensitive_features=A, sample_weight=twos)
        np.testing.assert_array_equal(
            plain.estimator_.coef_, LogisticRegression().fit(X, Y, sample_weight=twos).coef_)
        np.testing.assert_array_equal(plain.xorder_.train_scores_adjusted_,
                                      XOrder(**FAST).fit(plain.fit_scores_, Y,
                                                         sensitive_features=A)
                                      .train_scores_adjusted_)
    # under routing the classifier gets sample_weight only where it requests it
    declined = LogisticRegression().set_fit_request(sample_weight=False)
    ranker = FairRanker(declined, cv=FOLDS, **FAST).set_fit_request(
        sample_weight=True).fit(X, Y, sensitive_features=A, sample_weight=twos)
    np.testing.assert_array_equal(ranker.estimator_.coef_, unweighted.estimator_.coef_)
    taken = LogisticRegression().set_fit_request(sample_weight=True)
    ranker = FairRanker(taken, cv=FOLDS, **FAST).set_fit_request(
        sample_weight=True).fit(X, Y, sensitive_features=A, sample_weight=twos)
    np.testing.assert_array_equal(ranker.estimator_.coef_, plain.estimator_.coef_)


def test_grid_search_over_lam_routes_sensitive_features(routing):
    """FairRanker requests sensitive_features by default: no set_*_request needed."""
    ranker = FairRanker(LogisticRegression(), cv=FOLDS, **FAST)
    search = GridSearchCV(ranker, {"lam": [0.0, 2.0]}, cv=StratifiedKFold(2))
    search.fit(X, Y, sensitive_features=A)
    # the score of lam = 2 by hand: every fold gets its own rows' groups
    by_hand = []
    for train, test in StratifiedKFold(2).split(X, Y):
        fitted = clone(ranker).set_params(lam=2.0).fit(X[train], Y[train],
                                                        sensitive_features=A[train])
        by_hand.append(fitted.score(X[test], Y[test], sensitive_features=A[test]))
    assert search.cv_results_["mean_test_score"][1] == pytest.approx(np.mean(by_hand))
    assert search.best_estimator_.lam == search.best_params_["lam"]
    declined = FairRanker(LogisticRegression()).set_fit_request(sensitive_features=False)
    with pytest.raises(ValueError, match="FairRanker.fit needs the protected group"):
        GridSearchCV(declined, {"lam": [0.0]}, error_score="raise").fit(
            X, Y, sensitive_features=A)


def test_in_a_pipeline(routing):
    pd = pytest.importorskip("pandas")
    table = pd.DataFrame(X, columns=["x1", "x2", "group"])
    ranker = FairRanker(LogisticRegression(), cv=FOLDS, lam=1.0, **FAST)
    ranker.set_fit_request(sensitive_features=True)
    ranker.set_decision_function_request(sensitive_features=True)
    pipe = Pipeline([("scale", StandardScaler()), ("rank", ranker)])
    pipe.fit(table, Y, sensitive_features=table["group"])
    fair = pipe.decision_function(table, sensitive_features=table["group"])
    alone = FairRanker(LogisticRegression(), cv=FOLDS, lam=1.0, **FAST).fit(
        StandardScaler().fit_transform(table), Y, sensitive_features=A)
    np.testing.assert_allclose(
        fair, alone.decision_function(StandardScaler().fit(table).transform(table),
                                      sensitive_features=A), rtol=0, atol=1e-12)
    ranker_alone = FairRanker(LogisticRegression(), cv=FOLDS, **FAST).fit(
        table, Y, sensitive_features=table["group"])
    assert ranker_alone.feature_names_in_.tolist() == ["x1", "x2", "group"]
    assert isinstance(ranker_alone.decision_function(table, sensitive_features=A),
                      np.ndarray)



def _without(*columns):
    """The classifier of the tests below: the group columns dropped, then logistic
    regression."""
    from sklearn.compose import ColumnTransformer

    return Pipeline([("drop", ColumnTransformer([("groups", "drop", list(columns))],
                                                remainder="passthrough")),
                     ("lr", LogisticRegression())])


def test_groups_from_a_column_of_x():
    """FairRanker(sensitive_features="group") reads the groups from X, which the
    classifier still gets whole: the very fit of passing that column as metadata."""
    pd = pytest.importorskip("pandas")
    table = pd.DataFrame({"x1": X[:, 0], "x2": X[:, 1], "a": A,
                          "group": np.where(A == 1, "b", "a")})
    by_column = FairRanker(_without("group"), cv=FOLDS, lam=1.0, sensitive_features="group",
                           **FAST).fit(table, Y)
    by_keyword = FairRanker(_without("group"), cv=FOLDS, lam=1.0, **FAST).fit(
        table, Y, sensitive_features=table["group"])
    np.testing.assert_array_equal(by_column.fit_scores_, by_keyword.fit_scores_)
    np.testing.assert_array_equal(
        by_column.decision_function(table),
        by_keyword.decision_function(table, sensitive_features=table["group"]))
    assert by_column.score(table, Y) == by_keyword.score(table, Y,
                                                         sensitive_features=table["group"])
    assert by_column.xorder_.groups_.tolist() == ["a", "b"]
    assert by_column.n_features_in_ == 4  # the classifier got X whole
    # regression (issue 42): summary() ignored the column and needed the keyword
    got = by_column.summary(table, Y, high_score="harmful")
    want = by_keyword.summary(table, Y, sensitive_features=table["group"],
                              high_score="harmful")
    assert got == want
    assert got["adjusted"]["disadvantaged"].group in ("a", "b")
    with pytest.raises(ValueError, match=re.escape(MSG_GROUPS_TWICE.format(
            column="group", method="summary"))):
        by_column.summary(table, Y, sensitive_features=table["group"])
    # several columns: their intersections (on 60 rows: the K-D lattice of four groups
    # of all 300 took 3 s)
    table["band"] = np.where(X[:, 1] > 0, "hi", "lo")
    both = FairRanker(_without("group", "band"), cv=FOLDS,
                      sensitive_features=["group", "band"], **FAST).fit(table[:60], Y[:60])
    assert both.xorder_.groups_.tolist() == ["a & hi", "a & lo", "b & hi", "b & lo"]


def test_groups_missing_twice_or_misnamed():
    pd = pytest.importorskip("pandas")
    table = pd.DataFrame({"x1": X[:, 0], "group": A})
    ranker = FairRanker(LogisticRegression(), cv=FOLDS, **FAST)
    with pytest.raises(ValueError, match=MSG_NO_GROUPS.format(method="fit")[:40]):
        ranker.fit(X, Y)
    fitted = ranker.fit(X, Y, sensitive_features=A)
    for method in ("decision_function", "score", "summary"):
        with pytest.raises(ValueError, match=rf"FairRanker\.{method} needs the protected"):
            getattr(fitted, method)(*((X,) if method == "decision_function" else (X, Y)))
    named = FairRanker(LogisticRegression(), cv=FOLDS, sensitive_features="group", **FAST)
    with pytest.raises(ValueError, match=re.escape(MSG_GROUPS_TWICE.format(
            column="group", method="fit"))):
        named.fit(table, Y, sensitive_features=A)
    with pytest.raises(TypeError, match=re.escape(MSG_NOT_A_FRAME.format(
            column="group", kind="ndarray"))):
        named.fit(X, Y)
    with pytest.raises(ValueError, match=re.escape(MSG_NO_COLUMN.format(
            missing="group", column="group"))):
        named.fit(table.rename(columns={"group": "race"}), Y)
    for bad in (3, [], ["group", 2]):
        with pytest.raises(ValueError, match=re.escape(MSG_COLUMN.format(value=bad))):
            FairRanker(LogisticRegression(), sensitive_features=bad).fit(table, Y)
