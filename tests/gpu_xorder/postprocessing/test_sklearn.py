"""XOrder as a scikit-learn transformer: one column of scores, 1-D or 2-D, pandas in and
out, metadata routing of ``sensitive_features`` through Pipeline and ColumnTransformer,
``set_output``, ``get_feature_names_out``, and scikit-learn's own estimator checks."""

import pickle

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils.estimator_checks import check_estimator

from gpu_xorder import XOrder
from gpu_xorder.postprocessing._model_file import model_document
from gpu_xorder.postprocessing._scores import MSG_ONE_COLUMN, MSG_SPARSE

RNG = np.random.default_rng(5)
N = 200
Y = (RNG.random(N) < 0.4).astype(int)
GROUPS = np.where(RNG.random(N) < 0.5, "a", "b")
SCORES = 0.5 * Y + 0.3 * (GROUPS == "a") + RNG.normal(0, 0.3, N)
NEW = RNG.normal(0.3, 0.4, 50)
NEW_GROUPS = np.where(RNG.random(50) < 0.5, "a", "b")


def xorder(**kw):
    return XOrder(lam=1.0, backend="numpy", solver="paper", **kw)  # the fast rule


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


def test_a_column_of_scores_gives_a_column_and_the_same_values():
    flat = xorder().fit(SCORES, Y, sensitive_features=GROUPS)
    column = xorder().fit(SCORES[:, None], Y, sensitive_features=GROUPS)
    np.testing.assert_array_equal(column.train_scores_adjusted_, flat.train_scores_adjusted_)
    want = flat.transform(NEW, sensitive_features=NEW_GROUPS)
    assert want.shape == (50,)
    got = column.transform(NEW[:, None], sensitive_features=NEW_GROUPS)
    assert got.shape == (50, 1)
    np.testing.assert_array_equal(got[:, 0], want)
    np.testing.assert_array_equal(column.transform(NEW, sensitive_features=NEW_GROUPS), want)
    adjusted = xorder().fit_transform(SCORES[:, None], Y, sensitive_features=GROUPS)
    assert adjusted.shape == (N, 1)
    assert column.n_features_in_ == 1 and not hasattr(column, "feature_names_in_")
    assert column.get_feature_names_out().tolist() == ["x0"]


def test_more_than_one_column_or_sparse_scores_are_refused():
    with pytest.raises(ValueError, match=r"one column of scores .* got shape \(200, 2\)"):
        xorder().fit(np.column_stack([SCORES, SCORES]), Y, sensitive_features=GROUPS)
    sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(TypeError, match=MSG_SPARSE):
        xorder().fit(sparse.csr_matrix(SCORES[:, None]), Y, sensitive_features=GROUPS)
    assert "one-column DataFrame" in MSG_ONE_COLUMN


def test_y_none_and_memory_sizes():
    with pytest.raises(ValueError, match="requires y to be passed, but the target y is None"):
        xorder().fit(SCORES, None, sensitive_features=GROUPS)
    est = xorder(memory_limit="1MiB").fit(SCORES, Y, sensitive_features=GROUPS)
    assert model_document(est)["params"]["memory_limit"] == 2**20
    with pytest.raises(ValueError, match="is not a memory size"):
        xorder(memory_limit="lots").fit(SCORES, Y, sensitive_features=GROUPS)


def test_pandas_in_pandas_out_with_the_index():
    pd = pytest.importorskip("pandas")
    index = pd.Index([f"row{i}" for i in range(N)], name="id")
    series = pd.Series(SCORES, index=index, name="risk")
    frame = series.to_frame()
    a = pd.Series(GROUPS, index=index)

    est = xorder().fit(series, pd.Series(Y, index=index), sensitive_features=a)
    out = est.transform(series, sensitive_features=a)
    assert isinstance(out, pd.Series) and out.name == "risk" and out.index.equals(index)
    np.testing.assert_array_equal(out.to_numpy(),
                                  est.transform(SCORES, sensitive_features=GROUPS))
    assert not hasattr(est, "feature_names_in_")  # a Series is not a table

    est = xorder().fit(frame, Y, sensitive_features=a)
    assert est.feature_names_in_.tolist() == ["risk"]
    assert est.get_feature_names_out().tolist() == ["risk"]
    out = est.transform(frame.iloc[::-1], sensitive_features=a.iloc[::-1])
    assert isinstance(out, pd.DataFrame) and out.columns.tolist() == ["risk"]
    assert out.index.equals(index[::-1])
    fitted = est.fit_transform(frame, Y, sensitive_features=a)
    assert isinstance(fitted, pd.DataFrame) and fitted.index.equals(index)
    np.testing.assert_array_equal(fitted["risk"].to_numpy(), est.train_scores_adjusted_)
    with pytest.raises(ValueError, match="feature names should match"):
        est.transform(frame.rename(columns={"risk": "other"}), sensitive_features=a)


def test_set_output_pandas():
    pd = pytest.importorskip("pandas")
    est = xorder().set_output(transform="pandas").fit(SCORES, Y, sensitive_features=GROUPS)
    out = est.transform(NEW, sensitive_features=NEW_GROUPS)
    assert isinstance(out, pd.DataFrame) and out.columns.tolist() == ["x0"]
    np.testing.assert_array_equal(out["x0"].to_numpy(),
                                  xorder().fit(SCORES, Y, sensitive_features=GROUPS)
                                  .transform(NEW, sensitive_features=NEW_GROUPS))


def test_clone_params_and_pickle():
    est = xorder(metric="prf", memory_limit="2GB")
    copy = clone(est)
    assert copy.get_params() == est.get_params() and copy is not est
    est.fit(SCORES, Y, sensitive_features=GROUPS)
    back = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(back.transform(NEW, sensitive_features=NEW_GROUPS),
                                  est.transform(NEW, sensitive_features=NEW_GROUPS))


def test_metadata_requests_name_sensitive_features_not_the_scores(routing):
    requests = XOrder().get_metadata_routing()
    assert set(requests.fit.requests) == {"sensitive_features", "sample_weight", "progress"}
    assert set(requests.transform.requests) == {"sensitive_features"}


def test_sample_weight_equal_or_refused():
    """The DP counts items: None and equal weights give the same fit, unequal ones a
    ValueError that says so (never a TypeError from the signature)."""
    want = xorder().fit(SCORES, Y, sensitive_features=GROUPS)
    for weights in (None, np.full(N, 0.25), [3] * N):
        got = xorder().fit(SCORES, Y, sensitive_features=GROUPS, sample_weight=weights)
        np.testing.assert_array_equal(got.train_scores_adjusted_, want.train_scores_adjusted_)
    uneven = np.linspace(0.5, 2.0, N)
    with pytest.raises(ValueError, match=r"XOrder cannot weigh items: .* from 0\.5 to 2\.0"):
        xorder().fit(SCORES, Y, sensitive_features=GROUPS, sample_weight=uneven)
    with pytest.raises(ValueError, match="sample_weight is zero for every item"):
        xorder().fit_transform(SCORES, Y, sensitive_features=GROUPS, sample_weight=np.zeros(N))
    with pytest.raises(ValueError, match=r"got shape \(3,\)"):
        xorder().fit(SCORES, Y, sensitive_features=GROUPS, sample_weight=[1, 1, 1])


def test_pipeline_routes_sensitive_features(routing):
    pd = pytest.importorskip("pandas")
    table = pd.DataFrame({"risk": SCORES, "other": RNG.random(N)})
    fair = xorder().set_fit_request(sensitive_features=True).set_transform_request(
        sensitive_features=True)
    pipe = Pipeline([("risk", FunctionTransformer(lambda t: t[["risk"]])), ("fair", fair)])
    pipe.fit(table, Y, sensitive_features=GROUPS)
    want = xorder().fit(SCORES, Y, sensitive_features=GROUPS)
    out = pipe.transform(table, sensitive_features=GROUPS)
    assert isinstance(out, pd.DataFrame) and out.index.equals(table.index)
    np.testing.assert_array_equal(out["risk"].to_numpy(), want.train_scores_adjusted_)
    with pytest.raises(ValueError, match=r"\[sensitive_features\] are passed but are not"):
        Pipeline([("fair", xorder())]).fit(SCORES[:, None], Y, sensitive_features=GROUPS)


def test_column_transformer_routes_sensitive_features(routing):
    pd = pytest.importorskip("pandas")
    table = pd.DataFrame({"risk": SCORES, "age": RNG.integers(18, 80, N)},
                         index=np.arange(N) * 10)
    fair = xorder().set_fit_request(sensitive_features=True).set_transform_request(
        sensitive_features=True)
    ct = ColumnTransformer([("fair", fair, ["risk"])], remainder="passthrough")
    ct.set_output(transform="pandas")
    out = ct.fit_transform(table, Y, sensitive_features=GROUPS)
    assert out.columns.tolist() == ["fair__risk", "remainder__age"]
    assert out.index.equals(table.index)
    want = xorder().fit(SCORES, Y, sensitive_features=GROUPS)
    np.testing.assert_array_equal(out["fair__risk"].to_numpy(), want.train_scores_adjusted_)
    new = pd.DataFrame({"risk": NEW, "age": 30})
    np.testing.assert_array_equal(
        ct.transform(new, sensitive_features=NEW_GROUPS)["fair__risk"].to_numpy(),
        want.transform(NEW, sensitive_features=NEW_GROUPS))


# ---------------------------------------------------------------------------- check_estimator

def _first_column(X):
    """The first column of the checks' data, which have several features."""
    if hasattr(X, "tocsr"):
        return X
    if hasattr(X, "iloc"):
        return X.iloc[:, :1] if X.ndim == 2 and X.shape[1] > 1 else X
    arr = np.asarray(X)
    return arr[:, :1] if arr.ndim == 2 and arr.shape[1] > 1 else X


def _groups_of(X):
    """Two groups, a function of each score (so that the groups of a row do not depend
    on the rows around it, as the invariance checks need)."""
    if hasattr(X, "tocsr"):
        return np.zeros(X.shape[0], dtype=int)
    col = np.asarray(X)
    col = col.reshape(col.shape[0], -1)
    if col.shape[1] == 0 or col.dtype.kind not in "fiub":
        return np.zeros(col.shape[0], dtype=int)
    with np.errstate(all="ignore"):
        return np.nan_to_num(np.round(np.abs(col[:, 0].astype(float)) * 997) % 2).astype(int)


def _binary(y):
    """The checks' labels (often three classes) as 0/1."""
    if y is None:
        return y
    y = np.asarray(y)
    if y.ndim != 1 or np.unique(y).size < 2:
        return y
    return (y == y.max()).astype(int)


class _XOrderForChecks(XOrder):
    """XOrder as scikit-learn's checks can call it. The checks pass no metadata and data
    of several features; this subclass gives XOrder the first column as the scores and
    groups computed from the scores, and everything else (parameters, cloning, pickling,
    fitted state, output containers, feature names of one column) is XOrder's own."""

    def fit(self, X, y=None, sensitive_features=None, sample_weight=None, progress=None):
        X = _first_column(X)
        return super().fit(X, _binary(y), sensitive_features=_groups_of(X),
                           sample_weight=sample_weight)

    def transform(self, X, sensitive_features=None):
        X = _first_column(X)
        return super().transform(X, sensitive_features=_groups_of(X))

    def fit_transform(self, X, y=None, sensitive_features=None, sample_weight=None,
                      progress=None):
        X = _first_column(X)
        return super().fit_transform(X, _binary(y), sensitive_features=_groups_of(X),
                                     sample_weight=sample_weight)


#: Checks that fail, and why (docs/user_guide/sklearn_pandas.md, "scikit-learn and
#: pandas").
EXPECTED_FAILED_CHECKS = {
    "check_n_features_in": "the checks' several features reach XOrder as one column "
                           "(_XOrderForChecks), so n_features_in_ is 1",
    "check_n_features_in_after_fitting": "as check_n_features_in",
    "check_transformer_general": "transform with another number of features is the "
                                 "first column again (_XOrderForChecks)",
    "check_fit1d": "1-D scores are XOrder's documented input, not an error",
    "check_fit2d_predict1d": "1-D scores are XOrder's documented input, not an error",
    "check_fit2d_1sample": "one item is one group: the error says 'need at least two "
                           "groups', not 'one sample'",
    "check_complex_data": "complex scores raise TypeError naming the dtype, as every "
                          "non-real input of the library does",
    "check_dtype_object": "scores of dtype object are refused (TypeError), not "
                          "converted",
    "check_estimators_empty_data_messages": "an array of 0 columns is refused by "
                                            "XOrder's one-column message",
    "check_sample_weights_not_overwritten": "unequal weights are refused (the DP counts "
                                            "items), before anything could change them",
    "check_sample_weight_equivalence_on_dense_data": "unequal weights are refused (the "
                                                     "DP counts items)",
}


def test_scikit_learn_estimator_checks():
    results = check_estimator(_XOrderForChecks(backend="numpy", metric="urf"),
                              expected_failed_checks=EXPECTED_FAILED_CHECKS,
                              on_skip=None, on_fail=None)
    status = {}
    for r in results:
        status.setdefault(r["check_name"], set()).add(r["status"])
    failed = sorted(name for name, s in status.items() if "failed" in s)
    assert failed == [], failed
    assert {name for name, s in status.items() if "xfail" in s} == set(EXPECTED_FAILED_CHECKS)
    assert sum("passed" in s for s in status.values()) >= 25
