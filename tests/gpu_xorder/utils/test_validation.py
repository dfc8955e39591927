"""Input checks shared by the API (``gpu_xorder.utils._validation``): the messages that name
the problem instead of NumPy's."""

import decimal
import fractions
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_xorder import XOrder, fair_order
from gpu_xorder.utils import _params as params
from gpu_xorder.utils import _validation as v
from support.callers import assert_warned_at_the_call
from support.properties import examples


@pytest.mark.parametrize("groups", [
    [0, "a", 1, "a"],                                   # a list NumPy would make text
    np.array([0, "a", 1, "a"], dtype=object),           # an object column
    [["x", 0], ["y", "a"], ["x", 1], ["y", "a"]],       # one attribute column mixed
])
def test_mixed_label_types_are_refused(groups):
    with pytest.raises(TypeError, match="mix labels of types int and str"):
        v.encode_groups(groups, 4)


def test_one_type_per_attribute_column_is_fine():
    labels, index = v.encode_groups([["x", 0], ["y", 1], ["x", 1], ["y", 0]], 4)
    assert labels.tolist() == ["x & 0", "x & 1", "y & 0", "y & 1"]
    assert index.tolist() == [0, 3, 1, 2]


@pytest.mark.parametrize("groups", [
    [[0, 1], [0], [1, 1], [0, 0]],
    np.array([[0, 1], [0], [1, 1], [0, 0]], dtype=object),
])
def test_ragged_groups_are_refused(groups):
    with pytest.raises(ValueError, match=re.escape(v.MSG_GROUPS_RAGGED)):
        v.encode_groups(groups, 4)


@pytest.mark.parametrize("groups,label", [
    (np.array([7, 7, 7, 7], dtype=object), 7),          # Python ints: no .item()
    (np.array(["a", "a", "a", "a"], dtype=object), "a"),
    (np.array([7, 7, 7, 7]), 7),
    (np.array(["a", "a", "a", "a"]), "a"),
])
def test_one_group_is_named_whatever_the_label_type(groups, label):
    message = re.escape(v.MSG_ONE_GROUP.format(label=label))
    labels, _ = v.encode_groups(groups, 4)
    with pytest.raises(ValueError, match=message):
        v.check_n_groups(labels)
    with pytest.raises(ValueError, match=message):
        fair_order([0.9, 0.1, 0.5, 0.4], [1, 0, 1, 0], groups, backend="numpy")


def test_lam_none_is_named():
    with pytest.raises(TypeError, match=re.escape(v.MSG_LAM.format(value=None))):
        v.check_lam(None)
    with pytest.raises(TypeError, match="got None"):
        fair_order([0.9, 0.1, 0.5, 0.4], [1, 0, 1, 0], [0, 0, 1, 1], lam=None)


@pytest.mark.parametrize("dtype,value,warns", [
    (np.int64, 2**53, False),            # exact
    (np.int64, 2**60, False),            # exact: a power of two
    (np.int64, 2**53 + 1, True),
    (np.int64, -(2**53) - 1, True),
    (np.int64, 2**63 - 1, True),          # rounds to 2**63, beyond int64
    (np.uint64, 2**64 - 1, True),
])
def test_integer_scores_beyond_2_53_warn(dtype, value, warns):
    scores = np.array([3, value, 5], dtype=dtype)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = v.check_scores(scores)
    assert out.dtype == np.float64
    messages = [str(w.message) for w in caught]
    if warns:
        assert messages == [v.MSG_INEXACT_SCORES.format(name="scores", index=1,
                                                        value=value)]
    else:
        assert messages == []


@pytest.mark.parametrize("text,size", [
    ("2GB", 2 * 10**9), ("512MiB", 512 * 2**20), ("1e9", 10**9), ("123456", 123456),
    ("1.5 KiB", 1536), ("1.1kB", 1100), (" 3 gb ", 3 * 10**9), ("7B", 7), ("1TiB", 2**40)])
def test_memory_sizes_with_units(text, size):
    assert v.parse_memory_size(text) == size
    assert v.check_memory_limit(text) == size


@pytest.mark.parametrize("text,message", [
    ("2XB", "is not a memory size"), ("abc", "is not a memory size"),
    ("-1", "is not a memory size"), ("", "is not a memory size"),
    ("0.1", "memory_limit must be None, a positive integer")])
def test_bad_memory_sizes_are_named(text, message):
    with pytest.raises(ValueError, match=message):
        v.parse_memory_size(text)


def test_fair_order_takes_a_memory_size():
    s = np.array([0.9, 0.8, 0.7, 0.6])
    y, g = np.array([1, 0, 1, 0]), np.array([0, 0, 1, 1])
    assert fair_order(s, y, g, memory_limit="1MiB", backend="numpy").order.tolist() == \
        fair_order(s, y, g, backend="numpy").order.tolist()


def test_fair_order_groups_is_a_deprecated_alias_of_sensitive_features():
    s = np.array([0.9, 0.8, 0.7, 0.6])
    y, g = np.array([1, 0, 1, 0]), np.array([0, 0, 1, 1])
    want = fair_order(s, y, g, lam=1.0, backend="numpy")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # neither the keyword nor the position warns
        keyword = fair_order(s, y, sensitive_features=g, lam=1.0, backend="numpy")
    with pytest.warns(FutureWarning, match=re.escape("fair_order(groups=...) is deprecated")):
        old = fair_order(s, y, groups=g, lam=1.0, backend="numpy")
    assert want.order.tolist() == keyword.order.tolist() == old.order.tolist()
    with pytest.raises(TypeError, match="not both"):
        fair_order(s, y, g, groups=g, backend="numpy")
    with pytest.raises(TypeError, match="missing the required argument 'sensitive_features'"):
        fair_order(s, y, backend="numpy")


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8,
                                   np.uint16, np.uint32, np.uint64])
def test_integer_groups_encoded_as_np_unique_does(dtype):
    """Integer labels of a small range are counted instead of sorted: the same labels
    (values and dtype) and indices as ``np.unique``, extremes of the dtype included;
    wide ranges and uint64 go through ``np.unique`` itself."""
    rng = np.random.default_rng(np.dtype(dtype).itemsize)
    info = np.iinfo(dtype)
    for values in ([info.min, info.min + 3, info.min + 1], [info.max, info.max - 7],
                   [0, 5, 3, 5], [info.min, info.max], list(range(-3, 4)) if info.min else
                   [1, 2, 9]):
        groups = rng.choice(np.array(values, dtype=dtype), 500)
        labels, index = v.encode_groups(groups, 500)
        want_labels, want_index = np.unique(groups, return_inverse=True)
        assert labels.dtype == want_labels.dtype
        np.testing.assert_array_equal(labels, want_labels)
        np.testing.assert_array_equal(index, want_index)
        assert index.dtype == np.int64


def test_labels_checked_without_a_sort():
    """``check_labels`` names the values of a non-binary y as before."""
    y = np.array([0, 1, 2, 1, 0, 7, 3, 5, 9])
    with pytest.raises(ValueError, match=re.escape("got [0, 1, 2, 3, 5, '...']")):
        v.check_labels(y, y.size)
    assert v.check_labels(np.array([1, 0, 1]), 3).tolist() == [1, 0, 1]


# ---------------------------------------------------------------- real numbers (issue #25)

S4, Y4, G4 = np.array([0.9, 0.8, 0.7, 0.6]), np.array([1, 0, 1, 0]), np.array([0, 0, 1, 1])
ONE_HALF = [decimal.Decimal("0.5"), fractions.Fraction(1, 2), np.float32(0.5),
            np.float64(0.5), np.array(0.5), np.array(0.5, dtype=np.float16)]


@pytest.mark.parametrize("lam", ONE_HALF)
def test_every_real_number_type_is_one_lam(lam):
    assert v.check_lam(lam) == (pytest.approx([0.5]), False)
    res = fair_order(S4, Y4, G4, lam=lam, backend="numpy")
    assert not isinstance(res, list) and res.lam == 0.5
    assert XOrder(lam=lam, backend="numpy").fit(S4, Y4, sensitive_features=G4).lam_ == 0.5
    values, batch = v.check_lam([lam, 1])
    assert batch and values.tolist() == [0.5, 1.0]


@pytest.mark.parametrize("lam", [True, np.True_, np.array(False), [0.5, True],
                                 np.array([True, False])])
def test_a_bool_lam_is_refused(lam):
    with pytest.raises(TypeError,
                       match=r"lam must be a number, not the bool (np\.)?(True|False)"):
        fair_order(S4, Y4, G4, lam=lam, backend="numpy")


def test_a_two_dimensional_lam_is_refused():
    for lam in (np.ones((2, 2)), [[0.1], [0.2]]):
        with pytest.raises(ValueError, match=re.escape(v.MSG_LAM_NDIM.format(shape=(2, 2)))
                           if np.shape(lam) == (2, 2) else "shape \\(2, 1\\)"):
            fair_order(S4, Y4, G4, lam=lam, backend="numpy")


def test_every_real_number_parameter_takes_every_real_number_type():
    from gpu_xorder import metrics
    for half in ONE_HALF:
        assert v.check_max_disparity(half) == 0.5
        assert params.check("level", half) == 0.5
        assert XOrder(max_disparity=half, validation=half).get_params()["validation"] is half
    with pytest.raises(TypeError, match="max_disparity must be a number, not the bool True"):
        v.check_max_disparity(True)
    for huge in (10**400, fractions.Fraction(10**400)):  # beyond float64: out of range
        with pytest.raises(ValueError, match="lam must be a finite number >= 0, got inf"):
            v.check_lam(huge)
    # finite but beyond MAX_LAM: refused before the exact solver's sums overflow (lam
    # 1e308 ran on for minutes at 48 items), from every entry
    assert v.check_lam(v.MAX_LAM)[0][0] == v.MAX_LAM
    want = re.escape(v.MSG_LAM_HUGE.format(limit=v.MAX_LAM, value=1e308))
    for lam in (1e308, [0.5, 1e308]):
        with pytest.raises(ValueError, match=want):
            v.check_lam(lam)
    from gpu_xorder import fair_order
    with pytest.raises(ValueError, match=want):
        fair_order(S4, Y4, G4, lam=1e308)
    with pytest.raises(ValueError, match=want):
        XOrder(lam=1e308).fit(S4, Y4, sensitive_features=G4)
    ci = metrics.confidence_intervals(Y4, S4, sensitive_features=G4,
                                      level=decimal.Decimal("0.9"), method="delong")
    assert ci.level == 0.9


def test_a_model_with_a_decimal_lam_saves(tmp_path):
    model = XOrder(lam=decimal.Decimal("0.5"), backend="numpy").fit(
        S4, Y4, sensitive_features=G4)
    model.save(tmp_path / "m.json")
    assert XOrder.load(tmp_path / "m.json").lam == 0.5


# ---------------------------------------------------------------- pandas indexes

def test_misaligned_pandas_indexes_warn():
    """pandas objects are used by position (scikit-learn's convention); when their
    indexes differ a warning says so, since rows that share an index label may be
    meant to belong together."""
    pd = pytest.importorskip("pandas")
    from gpu_xorder import metrics
    from gpu_xorder.utils._frames import MSG_MISALIGNED

    s = pd.Series(S4, index=[10, 11, 12, 13])
    y_same, y_other = pd.Series(Y4, index=s.index), pd.Series(Y4, index=[13, 12, 11, 10])
    g = pd.Series(G4, index=s.index)
    message = re.escape(MSG_MISALIGNED.format(names="scores, y and sensitive_features"))
    with pytest.warns(UserWarning, match=message):
        fair_order(s, y_other, g, backend="numpy")
    with pytest.warns(UserWarning, match="scores and y are pandas objects"):
        metrics.auc(y_other, s)
    with pytest.warns(UserWarning, match="scores, y and groups are pandas objects"):
        metrics.disparity(y_other, s, sensitive_features=g)
    with pytest.warns(UserWarning, match=message):
        XOrder(backend="numpy").fit(s, y_other, sensitive_features=g)
    model = XOrder(backend="numpy").fit(s, y_same, sensitive_features=g)
    with pytest.warns(UserWarning, match="scores and sensitive_features are pandas"):
        model.transform(s, sensitive_features=g.reset_index(drop=True))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # aligned, or one pandas object among arrays
        fair_order(s, y_same, g, backend="numpy")
        fair_order(s, Y4, G4, backend="numpy")
        metrics.disparity(y_same, s, sensitive_features=g.to_frame())
        model.transform(s, sensitive_features=G4)


def test_misaligned_pandas_indexes_warn_at_the_callers_line():
    """The warning names the line of the user's call of every face (it named the line
    of the call of the function that made the call: one frame too far)."""
    pd = pytest.importorskip("pandas")
    from gpu_xorder import metrics, xorder_path

    rng = np.random.default_rng(0)
    s = pd.Series(np.round(rng.random(40), 1))
    y = pd.Series(np.tile([0, 1], 20), index=np.arange(40) + 3)
    g = np.repeat(["a", "b"], 20)
    g_moved = pd.Series(g, index=np.arange(40) + 1)
    model = XOrder(backend="numpy").fit(s.to_numpy(), y.to_numpy(), sensitive_features=g)
    est, held = XOrder(backend="numpy"), XOrder(backend="numpy", lam=1.0, validation=0.3)
    kw = dict(sensitive_features=g)
    faces = {  # each a call on one line: the line the warning must name
        "fair_order": lambda: fair_order(s, y, g, backend="numpy"),
        "metrics.auc": lambda: metrics.auc(y, s),
        "metrics.disparity": lambda: metrics.disparity(y, s, **kw),
        "XOrder.fit": lambda: est.fit(s, y, **kw),
        "XOrder.plan": lambda: est.plan(s, y, **kw),
        "XOrder.plan with validation": lambda: held.plan(s, y, **kw),
        "xorder_path": lambda: xorder_path(s, y, lams=[0.0, 1.0], backend="numpy", **kw),
        "XOrder.transform": lambda: model.transform(s, sensitive_features=g_moved),
    }
    assert_warned_at_the_call(faces, "pandas objects", once=True)


# ---------------------------------------------------------------- report keys

@given(st.lists(st.text(alphabet="ab >~[]\\", max_size=6), min_size=2, max_size=5,
                unique=True))
@settings(max_examples=examples(200), deadline=None)
def test_pair_keys_are_unambiguous(labels):
    """Distinct pairs get distinct keys, and a key reads back to its pair, for labels
    made of the separators' characters and backslashes."""
    from gpu_xorder.utils._validation import pair_key, split_pair_key

    for sep in (" > ", " ~ "):
        keys = {pair_key(g, h, sep): (g, h) for g in labels for h in labels if g != h}
        assert len(keys) == len(labels) * (len(labels) - 1)
        assert all(split_pair_key(k, sep) == pair for k, pair in keys.items())
    assert pair_key("white", "black") == "white > black"


def test_inexact_integer_scores_warn_at_the_callers_line():
    """Integer scores beyond 2**53: the warning names the user's call of every face
    (it named ``utils/_params.py`` or ``metrics/_counts.py``)."""
    from gpu_xorder import metrics

    s = np.array([2**60 + 1, 2**60 + 3, 7, 6, 5, 4, 3, 2], dtype=np.int64)
    y, g = np.tile([1, 0], 4), np.array([1, 1, 1, 0, 1, 0, 0, 0])
    est = XOrder(backend="numpy", lam=1.0)
    faces = {  # each a call on one line: the line the warning must name
        "fair_order": lambda: fair_order(s, y, g, backend="numpy"),
        "XOrder.fit": lambda: est.fit(s, y, sensitive_features=g),
        "metrics.auc": lambda: metrics.auc(y, s),
        "metrics.xauc": lambda: metrics.xauc(y, s, sensitive_features=g, g=0, h=1),
    }
    assert_warned_at_the_call(faces, "beyond 2**53")
