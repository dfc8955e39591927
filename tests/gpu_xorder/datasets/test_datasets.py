import dataclasses

import numpy as np
import pytest

from gpu_xorder.datasets import (
    Dataset,
    age_bands,
    load_adult,
    load_compas,
    load_dataset,
    load_framingham,
    load_german,
)
from gpu_xorder.datasets._loaders import MSG_AGE_NAN, MSG_UNKNOWN_DATASET

# name: (rows, features, sensitive column, sensitive values, positives)
EXPECTED = {
    "adult": (30162, 98, "race", [0, 1], 7508),
    "compas": (6167, 401, "race", [0, 1], 2809),
    "german": (1000, 58, "age", [0, 1], 300),
    "framingham": (4658, 8, "sex", [1, 2], 1465),
}
LOADERS = {
    "adult": load_adult,
    "compas": load_compas,
    "german": load_german,
    "framingham": load_framingham,
}
DROPPED = {
    "adult": {"income-per-year", "race-sex"},
    "compas": {"two_year_recid", "sex-race"},
    "german": {"credit", "sex-age"},
    "framingham": {"chdfate", "id"},
}


@pytest.fixture(params=sorted(EXPECTED), scope="module")
def name(request):
    return request.param


def test_shapes_and_dtypes(name):
    rows, p, sensitive_name, values, positives = EXPECTED[name]
    data = LOADERS[name]()
    assert isinstance(data, Dataset)
    assert data.name == name
    assert data.X.shape == (rows, p)
    assert data.X.dtype == np.float64
    assert np.isfinite(data.X).all()
    assert data.y.shape == (rows,) and data.y.dtype == np.int64
    assert set(np.unique(data.y).tolist()) == {0, 1}
    assert int(data.y.sum()) == positives
    assert data.sensitive.shape == (rows,) and data.sensitive.dtype == np.int64
    assert sorted(np.unique(data.sensitive).tolist()) == values
    assert data.sensitive_name == sensitive_name
    assert isinstance(data.feature_names, tuple) and len(data.feature_names) == p


def test_columns(name):
    data = LOADERS[name]()
    names = data.feature_names
    assert len(set(names)) == len(names)
    assert not DROPPED[name] & set(names)
    # The sensitive attribute stays among the features, as in the paper's public code.
    column = data.X[:, names.index(data.sensitive_name)]
    np.testing.assert_array_equal(column, data.sensitive)


def test_age(name):
    data = LOADERS[name]()
    if name == "german":
        assert data.age is None
        return
    assert data.age.dtype == np.float64 and data.age.shape == data.y.shape
    assert 16 <= data.age.min() and data.age.max() <= 100
    np.testing.assert_array_equal(data.X[:, data.feature_names.index("age")], data.age)


def test_load_dataset_matches_loader(name):
    a, b = load_dataset(name), LOADERS[name]()
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    np.testing.assert_array_equal(a.sensitive, b.sensitive)
    assert a.feature_names == b.feature_names


def test_calls_do_not_share_arrays(name):
    first = LOADERS[name]()
    X, y, s = first.X.copy(), first.y.copy(), first.sensitive.copy()
    ages = () if first.age is None else (first.age,)
    for arr in (first.X, first.y, first.sensitive) + ages:
        assert arr.flags.writeable
        arr[...] = -7
    second = LOADERS[name]()
    np.testing.assert_array_equal(second.X, X)
    np.testing.assert_array_equal(second.y, y)
    np.testing.assert_array_equal(second.sensitive, s)
    assert not np.shares_memory(first.X, second.X)


def test_german_label_is_bad_credit():
    data = load_german()
    # 700 good (credit == 1) and 300 bad (credit == 2) in the file; y = 1 is bad credit.
    assert np.bincount(data.y).tolist() == [700, 300]


def test_framingham_drops_rows_with_empty_cells():
    data = load_framingham()
    assert data.X.shape[0] == 4658  # 4,699 rows in the file, 41 with an empty cell
    assert "followup" in data.feature_names


def test_compas_feature_names_with_commas_survive():
    names = load_compas().feature_names
    assert "c_charge_desc_Aggr Child Abuse-Torture,Punish" in names


def test_dataset_is_frozen():
    data = load_german()
    with pytest.raises(dataclasses.FrozenInstanceError):
        data.name = "other"
    assert "german" in repr(data) and "n_features=58" in repr(data)


def test_unknown_dataset():
    with pytest.raises(ValueError, match="unknown data set 'iris'"):
        load_dataset("iris")
    assert MSG_UNKNOWN_DATASET.startswith("unknown data set")


def test_age_bands_boundaries():
    got = age_bands([17, 25, 25.01, 26, 40, 40.5, 41, 90])
    assert got.dtype == np.int64
    assert got.tolist() == [0, 0, 1, 1, 1, 2, 2, 2]


def test_age_bands_on_data():
    bands = age_bands(load_compas().age)
    assert np.bincount(bands).tolist() == [1632, 2858, 1677]


def test_age_bands_rejects_bad_input():
    with pytest.raises(ValueError, match=MSG_AGE_NAN):
        age_bands([20.0, np.nan])
    with pytest.raises(ValueError, match="one-dimensional"):
        age_bands([[20, 30]])


def test_as_frame_names_columns_and_groups(name):
    """The same data as pandas objects; the protected attribute's codes become the
    named categories of GROUP_NAMES (from the data sets' README)."""
    from gpu_xorder.datasets._loaders import GROUP_NAMES

    pd = pytest.importorskip("pandas")
    arrays = LOADERS[name]()
    frame = load_dataset(name, as_frame=True)
    assert isinstance(frame.X, pd.DataFrame)
    assert frame.X.columns.tolist() == list(arrays.feature_names)
    np.testing.assert_array_equal(frame.X.to_numpy(), arrays.X)
    assert isinstance(frame.y, pd.Series) and frame.y.name == (
        "bad_credit" if name == "german" else EXPECTED_LABEL[name])
    np.testing.assert_array_equal(frame.y.to_numpy(), arrays.y)
    sensitive = frame.sensitive
    assert sensitive.name == arrays.sensitive_name and sensitive.dtype == "category"
    assert sensitive.cat.categories.tolist() == list(GROUP_NAMES[name].values())
    for code, label in GROUP_NAMES[name].items():
        np.testing.assert_array_equal(sensitive.to_numpy() == label, arrays.sensitive == code)
    if arrays.age is None:
        assert frame.age is None
    else:
        assert frame.age.name == "age"
        np.testing.assert_array_equal(frame.age.to_numpy(), arrays.age)


EXPECTED_LABEL = {"adult": "income-per-year", "compas": "two_year_recid",
                  "framingham": "chdfate"}


def test_named_groups_follow_the_readme():
    pd = pytest.importorskip("pandas")
    compas = load_compas(as_frame=True)
    # README: compas race 1 = white; german age 1 = adult; framingham sex 1 = male
    assert (compas.sensitive[compas.X["race"] == 1] == "white").all()
    assert (load_german(as_frame=True).sensitive[load_german().sensitive == 0]
            == "young").all()
    bands = age_bands(compas.age)
    assert isinstance(bands, pd.Series) and bands.name == "age_band"
    assert bands.index.equals(compas.age.index)
    assert bands.cat.categories.tolist() == ["age <= 25", "25 < age <= 40", "age > 40"]
    np.testing.assert_array_equal(bands.cat.codes.to_numpy(), age_bands(compas.age.to_numpy()))


def test_as_frame_round_trips_through_fair_ranker():
    """German as DataFrames into FairRanker, the groups named: the same fair scores as
    the arrays with the names as plain strings, and as the groups read from a column."""
    pytest.importorskip("pandas")
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    from gpu_xorder import FairRanker

    data, arrays = load_german(as_frame=True), load_german()
    train, test = np.arange(700), np.arange(700, 1000)
    params = dict(lam=1.0, backend="numpy", solver="paper", cv=StratifiedKFold(3))

    def model():
        return Pipeline([("scale", StandardScaler()), ("lr", LogisticRegression())])

    named = FairRanker(model(), **params).fit(data.X.iloc[train], data.y.iloc[train],
                                              sensitive_features=data.sensitive.iloc[train])
    assert named.xorder_.groups_.tolist() == ["adult", "young"]
    assert named.feature_names_in_.tolist() == list(data.feature_names)
    fair = named.decision_function(data.X.iloc[test],
                                   sensitive_features=data.sensitive.iloc[test])
    strings = np.where(arrays.sensitive == 1, "adult", "young")
    plain = FairRanker(model(), **params).fit(arrays.X[train], arrays.y[train],
                                              sensitive_features=strings[train])
    # a DataFrame reaches LogisticRegression in another memory layout: last bits only
    np.testing.assert_allclose(
        fair, plain.decision_function(arrays.X[test], sensitive_features=strings[test]),
        rtol=0, atol=1e-10)
    table = data.X.assign(age_group=data.sensitive)
    drop = ColumnTransformer([("g", "drop", ["age_group"])], remainder="passthrough")
    by_column = FairRanker(Pipeline([("drop", drop), *model().steps]),
                           sensitive_features="age_group", **params).fit(
        table.iloc[train], data.y.iloc[train])
    np.testing.assert_allclose(by_column.decision_function(table.iloc[test]), fair,
                               rtol=0, atol=1e-10)
