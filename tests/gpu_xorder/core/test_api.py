"""Public API of ``gpu_xorder.fair_order``: bad input, edge cases, lam sequences."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gpu_xorder
from gpu_xorder import BackendUnavailableError, fair_order, metrics
from gpu_xorder.engine._backend import cupy_status
from support.backends import auto_backend
from support.properties import examples

SCORES = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
Y = np.array([1, 0, 1, 0, 1, 0, 1, 0])
GROUPS = np.array([0, 0, 0, 0, 1, 1, 1, 1])


def call(scores=SCORES, y=Y, groups=GROUPS, **kw):
    kw.setdefault("backend", "numpy")
    return fair_order(scores, y, groups, **kw)


def assert_valid_merge(res, scores, groups):
    """``order`` is a permutation keeping each group's descending (stable) order."""
    scores, groups = np.asarray(scores, dtype=float), np.asarray(groups)
    order = np.asarray(res.order)
    assert sorted(order.tolist()) == list(range(scores.size))
    for g in np.unique(groups):
        members = np.flatnonzero(groups == g)
        expected = members[np.argsort(-scores[members], kind="stable")]
        got = order[groups[order] == g]
        np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(
        res.path, np.searchsorted(res.groups, groups[order]).astype(np.int8))


def realising_scores(order):
    """Strictly decreasing scores in the order ``order`` (top first)."""
    s = np.empty(order.size)
    s[order] = np.arange(order.size, 0, -1, dtype=float)
    return s


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_scores(bad):
    s = SCORES.copy()
    s[3] = bad
    with pytest.raises(ValueError, match="NaN or infinite values.*index 3"):
        call(scores=s)


def test_too_many_items(monkeypatch):
    from gpu_xorder.utils import _validation
    monkeypatch.setattr(_validation, "MAX_ITEMS", 7)
    with pytest.raises(ValueError, match="8 items is more than xOrder supports"):
        call()


def test_non_numeric_scores():
    with pytest.raises(TypeError, match="must be numeric"):
        call(scores=np.array(["a"] * 8))


@pytest.mark.parametrize("y", [[1, 0, 2, 0, 1, 0, 1, 0], [1, 0, -1, 0, 1, 0, 1, 0],
                               [1, 0, 0.5, 0, 1, 0, 1, 0]])
def test_labels_not_binary(y):
    with pytest.raises(ValueError, match="y must be binary"):
        call(y=np.array(y))


def test_length_mismatch_y():
    with pytest.raises(ValueError, match="y has length 7, expected 8"):
        call(y=Y[:7])


def test_length_mismatch_groups():
    with pytest.raises(ValueError, match="sensitive features has length 9, expected 8"):
        call(groups=np.append(GROUPS, 1))


def test_one_group():
    with pytest.raises(ValueError, match="need at least two groups"):
        call(groups=np.zeros(8, dtype=int))


def test_three_groups_are_merged():
    groups = np.array([0, 0, 0, 1, 1, 1, 2, 2])
    res = call(groups=groups, metric="urf")
    assert res.method == "kd" and sorted(res.order.tolist()) == list(range(8))


def test_three_groups_signed():
    groups = np.array([0, 0, 0, 1, 1, 1, 2, 2])
    with pytest.raises(ValueError, match="disparity='signed' is defined for two groups"):
        call(groups=groups, metric="urf", disparity="signed")


def test_unknown_method():
    with pytest.raises(ValueError, match="unknown method"):
        call(method="greedy")


@pytest.mark.parametrize("lam", [-0.1, np.inf, -np.inf, np.nan, [0.1, -1.0],
                                 [0.0, np.nan]])
def test_bad_lam_value(lam):
    with pytest.raises(ValueError, match="lam must be a finite number >= 0"):
        call(lam=lam)


def test_lam_empty():
    with pytest.raises(ValueError, match="lam is an empty sequence"):
        call(lam=[])


@pytest.mark.parametrize("lam", ["0.5", b"1", ["a", "b"], {"a": 1}])
def test_lam_wrong_type(lam):
    with pytest.raises(TypeError, match="lam must be a finite number"):
        call(lam=lam)


@pytest.mark.parametrize("name, value", [
    ("metric", "auc"), ("metric", "XAUC"), ("disparity", "abs"), ("backend", "torch"),
    ("backend", None),
])
def test_unknown_choice(name, value):
    with pytest.raises(ValueError, match=f"unknown {name} {value!r}"):
        call(**{name: value})


@pytest.mark.parametrize("metric", ["xauc", "prf"])
def test_group_without_positives(metric):
    y = np.array([1, 0, 1, 0, 0, 0, 0, 0])
    with pytest.raises(ValueError, match=f"group 1 has no positives.*{metric!r}"):
        call(y=y, metric=metric)


def test_group_without_negatives_xauc():
    y = np.array([1, 0, 1, 0, 1, 1, 1, 1])
    with pytest.raises(ValueError, match="group 1 has no negatives.*'xauc'"):
        call(y=y, metric="xauc")


def test_group_without_negatives_prf_urf_ok():
    y = np.array([1, 0, 1, 0, 1, 1, 1, 1])
    for metric in ("prf", "urf"):
        assert_valid_merge(call(y=y, metric=metric, lam=1.0), SCORES, GROUPS)


def test_progress_not_callable():
    with pytest.raises(TypeError, match="progress must be callable"):
        call(progress=3)


def test_inputs_not_modified():
    rng = np.random.default_rng(1)
    s = rng.random(30)
    y = (rng.random(30) < 0.5).astype(int)
    y[:2], y[15:17] = [0, 1], [0, 1]
    g = np.repeat(["x", "y"], 15)
    copies = s.copy(), y.copy(), g.copy()
    for arr in (s, y, g):
        arr.setflags(write=False)
    res = call(scores=s, y=y, groups=g, lam=[0.0, 0.3], metric="prf")
    for arr, orig in zip((s, y, g), copies):
        np.testing.assert_array_equal(arr, orig)
    assert len(res) == 2


@pytest.mark.skipif(cupy_status()[0], reason="CuPy is usable here")
def test_cupy_unavailable():
    with pytest.raises(BackendUnavailableError, match="backend='cupy' is not usable"):
        call(backend="cupy")


def test_auto_backend_falls_back():
    res = call(backend="auto")
    assert res.backend == auto_backend()


# ---------------------------------------------------------------- lam and labels

def test_lam_list_equals_single_calls():
    rng = np.random.default_rng(2)
    s = rng.random(40)
    y = np.arange(40) % 2
    g = (np.arange(40) % 5 < 2).astype(int)
    lams = [0.0, 0.05, 0.5, 3.0]
    batch = call(scores=s, y=y, groups=g, lam=lams)
    assert isinstance(batch, list) and len(batch) == len(lams)
    for lam, res in zip(lams, batch):
        one = call(scores=s, y=y, groups=g, lam=lam)
        np.testing.assert_array_equal(res.order, one.order)
        np.testing.assert_array_equal(res.path, one.path)
        assert res.lam == lam
        assert (res.auc, res.disparity, res.objective) == (
            one.auc, one.disparity, one.objective)
        assert res.counters == one.counters


def test_lam_numpy_array_and_scalar_array():
    batch = call(lam=np.array([0.0, 1.0]))
    assert isinstance(batch, list) and len(batch) == 2
    single = call(lam=np.float64(1.0))
    assert not isinstance(single, list)
    np.testing.assert_array_equal(single.order, batch[1].order)


def test_string_group_labels():
    g = np.array(["white", "white", "black", "black"] * 2)
    res = call(groups=g, lam=1.0)
    assert res.groups.tolist() == ["black", "white"]
    assert_valid_merge(res, SCORES, g)
    as_int = call(groups=(g == "white").astype(int), lam=1.0)
    np.testing.assert_array_equal(res.order, as_int.order)


def test_text_labels_are_encoded_without_padding_every_item():
    """Text labels given as Python strings (a list, a pandas object column) are encoded
    through a dict: only the sorted unique labels become a fixed-width array (issue
    #25: one label of 1 MiB in 400 rows took 5 GB). A 1000-character label in one of
    20,000 rows: well under the 80 MB a padded array of every item's label takes."""
    import tracemalloc

    from gpu_xorder.utils import _validation as v

    n = 20000
    groups = ["a", "b"] * (n // 2)
    groups[7] = "x" * v.MAX_LABEL_CHARS
    want_labels = np.array(sorted(set(groups)))
    want_index = np.searchsorted(want_labels, np.array(groups))
    objects = np.array(groups, dtype=object)
    # (the two columns stacked as objects: stacking the lists padded 160 MB, 1.4 s)
    for data in (groups, objects, objects[:, None], np.column_stack((objects, objects))):
        tracemalloc.start()
        labels, index = v.encode_groups(data, n)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 3 * 10**6, peak
        np.testing.assert_array_equal(index, want_index)
        if data is groups or data.shape[1:] in ((), (1,)):
            assert labels.tolist() == want_labels.tolist()
            assert labels.dtype == want_labels.dtype
    small = groups[:300]
    res = call(scores=np.linspace(1, 0, 300), y=np.arange(300) % 3 == 0, groups=small,
               metric="urf", lam=0.5)
    assert res.groups.tolist() == want_labels.tolist()
    assert_valid_merge(res, np.linspace(1, 0, 300), np.array(small))


def test_counter_keys_are_unambiguous():
    """``counters`` of K > 2 groups: ``"C[g][h]"`` with escaped labels, so ``("a][b",
    "c")`` and ``("a", "b][c")`` keep a counter each."""
    labels = np.array(["a][b", "c", "a", "b][c"])
    rng = np.random.default_rng(1)
    g = labels[np.arange(48) % 4]
    res = call(scores=rng.random(48), y=np.arange(48) // 4 % 2, groups=g, lam=0.5,
               method="iterative")
    assert len(res.counters) == 12
    assert {"C[a\\]\\[b][c]", "C[a][b\\]\\[c]", "C[c][a]"} <= set(res.counters)


@pytest.mark.parametrize("make", [list, lambda g: np.array(g, dtype=object), np.array])
def test_a_label_longer_than_the_limit_is_refused(make):
    from gpu_xorder.utils import _validation as v

    groups = ["a", "b"] * 200
    # 4096 characters: a fixed-width array of 400 of them is 6.5 MB (2**20 made 1.6 GB)
    groups[7] = "x" * 2**12
    with pytest.raises(ValueError, match=r"a group label of item 7 has 4096 characters, "
                                         r"more than 1000 \(is it the group column\?\)"):
        call(scores=np.linspace(1, 0, 400), y=np.arange(400) % 2, groups=make(groups))
    assert v.MAX_LABEL_CHARS == 1000


# ---------------------------------------------------------------- intersections

def intersection_problem(seed=4, n=60):
    rng = np.random.default_rng(seed)
    s = rng.random(n)
    y = (rng.random(n) < s).astype(int)
    race = rng.choice(["black", "white"], n)
    sex = rng.integers(0, 2, n)
    return s, y, race, sex


@pytest.mark.parametrize("method", ["auto", "kd", "iterative"])
def test_two_dimensional_groups_are_intersections(method):
    """One column per attribute: the groups are the intersections, labelled by their
    values joined with ' & ', and the result is that of the joined labels."""
    s, y, race, sex = intersection_problem()
    columns = np.column_stack([race, sex.astype(object)]).astype(object)
    columns[:, 1] = sex  # an object array with a str and an int column, as pandas gives
    joined = np.array([f"{r} & {x}" for r, x in zip(race, sex)])
    res = call(scores=s, y=y, groups=columns, lam=2.0, method=method)
    want = call(scores=s, y=y, groups=joined, lam=2.0, method=method)
    assert res.groups.tolist() == ["black & 0", "black & 1", "white & 0", "white & 1"]
    np.testing.assert_array_equal(res.order, want.order)
    assert res.counters == want.counters
    assert (res.auc, res.disparity, res.method) == (want.auc, want.disparity, want.method)
    assert_valid_merge(res, s, joined)


@pytest.mark.parametrize("columns,values", [(2, 3), (8, 900)])
def test_intersections_equal_the_joined_labels(columns, values):
    """Many columns of many values (their product far beyond int64): the groups are
    those of the labels joined by hand."""
    from gpu_xorder.utils import _validation as v

    rng = np.random.default_rng(columns)
    table = rng.integers(0, values, (500, columns))
    joined = np.array([" & ".join(map(str, row)) for row in table])
    labels, index = v.encode_groups(table, 500)
    want_labels, want_index = v.encode_groups(joined, 500)
    assert labels.tolist() == want_labels.tolist()
    np.testing.assert_array_equal(index, want_index)


def test_one_column_of_groups_is_that_column():
    s, y, race, _ = intersection_problem()
    res = call(scores=s, y=y, groups=race[:, None], lam=1.0)
    want = call(scores=s, y=y, groups=race, lam=1.0)
    assert res.groups.tolist() == ["black", "white"]
    np.testing.assert_array_equal(res.order, want.order)


def test_bad_two_dimensional_groups():
    s, y, race, sex = intersection_problem()
    with pytest.raises(ValueError, match="one row per item"):
        call(scores=s, y=y, groups=np.vstack([race, sex]))
    with pytest.raises(ValueError, match="same intersection label 'a & b & c'"):
        call(scores=s[:4], y=y[:4], groups=np.array(
            [["a & b", "c"], ["a", "b & c"], ["a", "c"], ["a", "c"]]))
    with_none = np.column_stack([race, sex]).astype(object)
    with_none[3, 1] = None
    with pytest.raises(ValueError, match="missing values"):
        call(scores=s, y=y, groups=with_none)
    with pytest.raises(ValueError, match="length 59, expected 60"):
        call(scores=s, y=y, groups=np.column_stack([race, sex])[:-1])
    with pytest.raises(ValueError, match="got shape"):
        call(scores=s, y=y, groups=np.zeros((60, 2, 1)))
    with pytest.raises(ValueError, match="got shape"):
        call(scores=s, y=y, groups=np.zeros((60, 0)))


# ---------------------------------------------------------------- edge cases

def test_ties_in_scores():
    s = np.array([0.5, 0.5, 0.5, 0.2, 0.5, 0.5, 0.1, 0.1])
    y = np.array([1, 0, 1, 0, 0, 1, 1, 0])
    g = np.array([0, 0, 1, 1, 0, 1, 0, 1])
    for lam in (0.0, 0.5, 5.0):
        assert_valid_merge(call(scores=s, y=y, groups=g, lam=lam), s, g)


def test_all_equal_scores():
    s = np.full(10, 0.3)
    y = np.array([1, 0] * 5)
    g = np.array([0] * 5 + [1] * 5)
    for metric in ("xauc", "prf", "urf"):
        res = call(scores=s, y=y, groups=g, lam=1.0, metric=metric)
        assert_valid_merge(res, s, g)
        assert 0.0 <= res.auc <= 1.0


def test_one_item_groups():
    # urf: two one-item groups; prf: a one-item group holding a positive.
    cases = [
        ("urf", [0.7, 0.3], [1, 0], [0, 1]),
        ("urf", [0.3, 0.7], [1, 0], [0, 1]),
        ("prf", [0.7, 0.3, 0.5], [1, 0, 1], [0, 0, 1]),
        ("prf", [0.7, 0.3, 0.9], [1, 0, 1], [0, 0, 1]),
    ]
    for metric, s, y, g in cases:
        s, y, g = np.array(s), np.array(y), np.array(g)
        for lam in (0.0, 1.0):
            res = call(scores=s, y=y, groups=g, metric=metric, lam=lam)
            assert_valid_merge(res, s, g)
            assert res.auc == pytest.approx(metrics.auc(y, realising_scores(res.order)),
                                            abs=1e-12)


@pytest.mark.parametrize("metric", ["xauc", "prf", "urf"])
def test_unbalanced_groups(metric):
    rng = np.random.default_rng(3)
    n = 51
    s = rng.permutation(n) / n + 0.001
    g = np.zeros(n, dtype=int)
    g[7] = 1
    y = (rng.random(n) < 0.5).astype(int)
    y[:2] = [1, 0]
    y[7] = 1
    if metric == "xauc":
        g[8] = 1
        y[8] = 0
    for lam in (0.0, 0.2, 10.0):
        res = call(scores=s, y=y, groups=g, metric=metric, lam=lam)
        assert_valid_merge(res, s, g)
        assert res.auc == pytest.approx(metrics.auc(y, realising_scores(res.order)),
                                        abs=1e-12)


def test_distinct_scores_auc_matches_metrics():
    rng = np.random.default_rng(4)
    s = rng.permutation(60).astype(float)
    y = np.arange(60) % 2
    g = (np.arange(60) % 3 == 0).astype(int)
    for lam in (0.0, 0.1, 1.0):
        res = call(scores=s, y=y, groups=g, lam=lam)
        r = realising_scores(res.order)
        assert res.auc == pytest.approx(metrics.auc(y, r), abs=1e-12)
        assert res.disparity == pytest.approx(metrics.disparity(y, r, sensitive_features=g,
                                                                metric="xauc"),
                                              abs=1e-12)


def test_result_is_exported():
    assert isinstance(call(), gpu_xorder.FairOrderResult)


# ---------------------------------------------------------------- property

@st.composite
def problems(draw):
    n = draw(st.integers(2, 14))
    scores = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    g = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    return np.array(scores, dtype=float), np.array(y), np.array(g)


@settings(max_examples=examples(50), deadline=None)
@given(problems(), st.sampled_from(["xauc", "prf", "urf"]),
       st.sampled_from([0.0, 0.1, 0.5, 2.0]))
def test_property_valid_merge_and_objective(problem, metric, lam):
    s, y, g = problem
    try:
        res = call(scores=s, y=y, groups=g, metric=metric, lam=lam)
    except ValueError as exc:
        assert any(word in str(exc) for word in ("group", "y has no"))
        return
    assert_valid_merge(res, s, g)
    assert res.objective == pytest.approx(res.auc - lam * res.disparity, abs=1e-12)
    assert 0.0 <= res.auc <= 1.0 and 0.0 <= res.disparity <= 1.0

