"""The numbers ``fairness_scorer`` gives inside scikit-learn's searches, against oracles.

Every fold score is recomputed here from the definitions (docs/design.md, section 2;
docs/user_guide/choosing_lam.md, "Cross-validation"): the AUC and the disparities as
O(n^2) pair loops in
exact fractions (a pair counts 1 where the upper score is strictly larger, 1/2 on a tie;
more than two groups: the largest pair's |D|), of the scores that fold's fitted model
gives that fold's held-out rows with that fold's own groups. The folds are the ones
scikit-learn reports (``return_indices`` / the same ``cv`` object), the models the ones it
fitted (``return_estimator``) or clones fitted here outside any search.

Unlike tests/gpu_xorder/postprocessing/test_model_selection.py (two groups 0/1, scored
with ``roc_auc_score``), the groups here are three string labels passed as a pandas Series
whose index runs backwards (a label-aligned lookup anywhere would mix the rows up), and a
plain classifier (a baseline) is scored by the same scorer.

(One search over both, ``[{"fair": [FairRanker(...)]}, {"fair": [LogisticRegression()]}]``,
fails under routing in scikit-learn itself: the search routes by the template pipeline,
so the plain candidate's ``Pipeline.fit`` is handed ``sensitive_features``, "not routed
to any object". The baseline is therefore cross-validated on its own here.)
"""

import itertools
import warnings
from fractions import Fraction

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_validate
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from gpu_xorder import FairRanker, fairness_scorer

pd = pytest.importorskip("pandas")

N = 150
RNG = np.random.default_rng(7)
LABELS = np.array(["b", "a c", "Z"])
A = LABELS[RNG.integers(0, 3, N)]
SHIFT = {"b": 1.0, "a c": 0.0, "Z": -0.6}
X = np.column_stack([RNG.normal(size=N), RNG.normal(size=N),
                     [SHIFT[a] for a in A]])
Y = (X[:, 0] + 0.5 * X[:, 1] + 1.3 * X[:, 2] + RNG.normal(size=N) > 0.3).astype(int)
# the groups as a Series whose index is not the rows' positions
GROUPS = pd.Series(A, index=np.arange(N)[::-1] + 1000)
CV = StratifiedKFold(3)
FAST = dict(backend="numpy", solver="paper", cv=StratifiedKFold(3))


@pytest.fixture(autouse=True)
def one_blas_thread():
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield


# ---------------------------------------------------------------------------------------
# Oracles


def share(s, upper, lower):
    """P(s_upper > s_lower), ties 1/2, over every pair, exactly."""
    twice = sum(2 * (s[i] > s[j]) + (s[i] == s[j]) for i in upper for j in lower)
    return Fraction(int(twice), 2 * len(upper) * len(lower))


def oracle_auc_and_d(scores, y, groups, metric):
    s = [float(v) for v in scores]
    y = [int(v) for v in y]
    groups = list(groups)
    n = len(s)

    def of(g=None, label=None):
        return [i for i in range(n)
                if (g is None or groups[i] == g) and (label is None or y[i] == label)]

    auc = share(s, of(label=1), of(label=0))
    worst = Fraction(0)
    for g, h in itertools.combinations(sorted(set(groups)), 2):
        if metric == "xauc":
            d = share(s, of(g, 1), of(h, 0)) - share(s, of(h, 1), of(g, 0))
        elif metric == "prf":
            d = share(s, of(g, 1), of(label=0)) - share(s, of(h, 1), of(label=0))
        else:
            d = share(s, of(g), of(h)) - share(s, of(h), of(g))
        worst = max(worst, abs(d))
    return auc, worst


def oracle_parts(scores, y, groups, metric, lam=None, eps=None):
    """``{"objective", "auc", "neg_disparity"}`` as the guide defines them."""
    auc, d = oracle_auc_and_d(scores, y, groups, metric)
    if eps is None:
        objective = float(auc) - lam * float(d)
    elif d <= Fraction(eps):
        objective = float(auc)
    else:
        objective = float(auc) - 1 - (float(d) - eps)
    return {"objective": objective, "auc": float(auc), "neg_disparity": -float(d)}


# ---------------------------------------------------------------------------------------
# cross_validate of a FairRanker, groups routed


@pytest.mark.parametrize("metric,lam", [("xauc", 0.7), ("urf", 2.0)])
def test_cross_validate_scores_each_fold_by_its_own_held_out_groups(metric, lam):
    ranker = FairRanker(LogisticRegression(), lam=0.5, metric=metric, **FAST)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with sklearn.config_context(enable_metadata_routing=True):
            got = cross_validate(ranker, X, Y, cv=CV, error_score="raise",
                                 scoring=fairness_scorer(metric=metric, lam=lam,
                                                         multimetric=True),
                                 params={"sensitive_features": GROUPS},
                                 return_estimator=True, return_indices=True)
    powered = False
    for k, (train, test) in enumerate(zip(got["indices"]["train"], got["indices"]["test"])):
        model = got["estimator"][k]
        own = A[test]
        fair = model.decision_function(X[test], sensitive_features=own)
        # the fair scores: the fitted classifier's, moved by the fold's xOrder model
        raw = model.estimator_.decision_function(X[test])
        assert np.array_equal(fair, model.xorder_.transform(raw, sensitive_features=own))
        want = oracle_parts(fair, Y[test], own, metric, lam=lam)
        for part in ("objective", "auc", "neg_disparity"):
            assert got[f"test_{part}"][k] == pytest.approx(want[part], abs=1e-12), (k, part)
        # the test can tell the fold's groups from any others: the training fold's
        # first rows, or the held-out groups shuffled
        other = A[train][:test.size]
        wrong = oracle_parts(model.decision_function(X[test], sensitive_features=other),
                             Y[test], other, metric, lam=lam)
        powered |= abs(wrong["objective"] - want["objective"]) > 1e-6
    assert powered


# ---------------------------------------------------------------------------------------
# GridSearchCV over a Pipeline whose last step is a FairRanker or a plain classifier


def by_hand(pipe, params, train, test):
    """The held-out scores of a clone of ``pipe`` set to ``params``, fitted here (a
    plain classifier: its decision function, else its probability of class 1)."""
    model = clone(pipe).set_params(**params)
    with sklearn.config_context(enable_metadata_routing=False):
        if not isinstance(model[-1], FairRanker):
            model.fit(X[train], Y[train])
            if hasattr(model, "decision_function"):
                return model.decision_function(X[test])
            return model.predict_proba(X[test])[:, 1]
        model.fit(X[train], Y[train], fair__sensitive_features=A[train])
        return model[-1].decision_function(model[:-1].transform(X[test]),
                                           sensitive_features=A[test])


def test_search_over_a_pipeline_records_the_definitions():
    pipe = Pipeline([("scale", StandardScaler()),
                     ("fair", FairRanker(LogisticRegression(), **FAST))])
    scorers = fairness_scorer(metric="prf", lam=0.4, multimetric=True)
    search = GridSearchCV(pipe, {"fair__lam": [0.0, 3.0]}, cv=CV, scoring=scorers,
                          refit="objective", error_score="raise")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with sklearn.config_context(enable_metadata_routing=True):
            search.fit(X, Y, sensitive_features=GROUPS)
    res = search.cv_results_
    means = []
    for c, params in enumerate(res["params"]):
        per_fold = []
        for k, (train, test) in enumerate(CV.split(X, Y)):
            want = oracle_parts(by_hand(pipe, params, train, test), Y[test], A[test], "prf",
                                lam=0.4)
            for part in ("objective", "auc", "neg_disparity"):
                assert res[f"split{k}_test_{part}"][c] == pytest.approx(
                    want[part], abs=1e-12), (params, k, part)
            per_fold.append(want["objective"])
        means.append(np.mean(per_fold))
    assert search.best_index_ == int(np.argmax(means))
    np.testing.assert_allclose(res["mean_test_objective"], means, rtol=0, atol=1e-12)


@pytest.mark.parametrize("last", ["logistic", "tree"])
def test_plain_classifier_is_scored_on_its_own_scores_with_routed_groups(last):
    from sklearn.tree import DecisionTreeClassifier

    # a shallow tree: predict_proba only, its probabilities tied in large blocks
    model = (LogisticRegression() if last == "logistic"
             else DecisionTreeClassifier(max_depth=2, random_state=0))
    pipe = Pipeline([("scale", StandardScaler()), ("last", model)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with sklearn.config_context(enable_metadata_routing=True):
            got = cross_validate(pipe, X, Y, cv=CV, error_score="raise",
                                 scoring=fairness_scorer(metric="xauc", lam=1.5),
                                 params={"sensitive_features": GROUPS})
    for k, (train, test) in enumerate(CV.split(X, Y)):
        want = oracle_parts(by_hand(pipe, {}, train, test), Y[test], A[test], "xauc",
                            lam=1.5)
        assert got["test_score"][k] == pytest.approx(want["objective"], abs=1e-12)


# ---------------------------------------------------------------------------------------
# max_disparity: the AUC within the ceiling, AUC - 1 - (|D| - eps) beyond


class ColumnScores:
    """A fitted 'classifier' whose scores are the first column of X."""

    def decision_function(self, X):
        return np.asarray(X, dtype=float)[:, 0]


def two_groups(up_a, up_b):
    """Two groups, each one positive at 5.0 and ten negatives of which ``up_a`` (of
    group b) / ``up_b`` (of group a) lie below the other group's positive: xAUC(a, b)
    = up_a / 10, xAUC(b, a) = up_b / 10 exactly."""
    s = [5.0] + [1.0] * up_a + [9.0] * (10 - up_a) + [5.0] + [1.0] * up_b + [9.0] * (10 - up_b)
    y = [1] + [0] * 10 + [1] + [0] * 10
    g = ["a"] + ["b"] * 10 + ["b"] + ["a"] * 10
    return np.array(s)[:, None], np.array(y), np.array(g)


@pytest.mark.parametrize("up_a,up_b,eps", [
    (7, 2, 0.5),     # |D| = 1/2 = eps exactly (0.7 - 0.2 rounds to 0.49999999999999994)
    (6, 1, 0.25),    # |D| = 1/2 > eps: the penalty
    (5, 5, 0.0),     # |D| = 0 = eps
    (10, 0, 0.99),   # |D| = 1 > 0.99
])
def test_max_disparity_scorer_by_the_definition(up_a, up_b, eps):
    X2, y2, g2 = two_groups(up_a, up_b)
    want = oracle_parts(X2[:, 0], y2, g2, "xauc", eps=eps)
    scorers = fairness_scorer(max_disparity=eps, multimetric=True)
    for part, scorer in scorers.items():
        assert scorer(ColumnScores(), X2, y2, sensitive_features=g2) == pytest.approx(
            want[part], abs=1e-12), part
    assert fairness_scorer(max_disparity=eps)(ColumnScores(), X2, y2,
                                              sensitive_features=g2) == \
        pytest.approx(want["objective"], abs=1e-12)


def test_max_disparity_scorer_at_a_ceiling_that_rounding_crosses():
    # the ceiling holds up to the constraint's tolerance (EPS_TOLERANCE, the solvers'):
    # 0.8 - 0.7 rounds to 0.1 + 9e-17, and scored AUC - 1 before
    X2, y2, g2 = two_groups(8, 7)     # xAUC 8/10 and 7/10: |D| = 1/10 exactly
    want = oracle_parts(X2[:, 0], y2, g2, "xauc", eps=0.1)
    assert want["objective"] == 0.75
    assert fairness_scorer(max_disparity=0.1)(ColumnScores(), X2, y2,
                                              sensitive_features=g2) == want["objective"]


def test_held_out_choice_keeps_a_weight_whose_disparity_sits_on_the_ceiling(monkeypatch):
    """``XOrder(max_disparity=eps, validation=...)`` keeps the held-out AUC's best weight
    among those with ``|D| <= eps`` up to the constraint's tolerance: a held-out |D| of
    exactly 1/10 that rounds to 0.1 + 1e-16 is within 0.1."""
    from gpu_xorder import XOrder
    from gpu_xorder.postprocessing import _held_out
    from gpu_xorder.postprocessing._fitted import check_params

    X2, y2, g2 = two_groups(8, 7)                     # |D| 1/10, AUC 0.75
    fair = two_groups(5, 5)[0][:, 0]                  # the same items: |D| 0, AUC 0.5
    low = oracle_parts(fair, y2, g2, "xauc", eps=0.1)
    assert low["objective"] == low["auc"] == 0.5

    class Model:
        def __init__(self, scores):
            self.scores, self.result_ = scores, None

        def transform(self, scores, sensitive_features):
            return self.scores

    def fit_path_quietly(template, scores, y, groups, lams, *args, **kwargs):
        # the first weight's model is on the ceiling (no fitting: no promises to check)
        return [Model(X2[:, 0])] + [Model(fair) for _ in lams[1:]], None

    monkeypatch.setattr(_held_out, "fit_path_quietly", fit_path_quietly)
    monkeypatch.setattr(_held_out, "warn_unrealised", lambda *args: None)
    est = XOrder(max_disparity=0.1, validation=(X2[:, 0], y2, g2))
    chosen, table = _held_out.validated_fit(est, check_params(est.get_params()), X2[:, 0],
                                            y2, g2, None)
    assert table["chosen"] == _held_out.VALIDATION_LAMS[0]
    assert np.array_equal(chosen.scores, X2[:, 0])
    assert table["disparity"][0] == pytest.approx(0.1, abs=1e-15)
