"""More than two groups: K-D and iterative xOrder (cpu_reference._kd, ._iterative)."""

import itertools
import zlib

import numpy as np
import pytest

import cpu_reference as cr
from gpu_xorder import XOrder, fair_order, metrics
from gpu_xorder.datasets import age_bands, load_dataset
from gpu_xorder.utils import _validation as v
from support.backends import cpu_backend
from support.oracles import order_scores, pair_frac, pair_term
from support.problems import random_problem

METRICS = ("xauc", "prf", "urf")
TOL = dict(rel=1e-12, abs=1e-12)


def brute_objective(order, y, groups, k, metric, lam):
    """``(auc, D, auc - lam D)`` of an ordering by O(n^2) pair definitions."""
    s = order_scores(order)
    auc = pair_frac(s[y == 1], s[y == 0])
    d = 0.0
    for g, h in itertools.combinations(range(k), 2):
        d = max(d, abs(pair_term(s, y, groups == g, groups == h, metric)))
    return auc, d, auc - lam * d


def interleavings(sizes):
    """Every sequence of group indices with ``sizes[g]`` copies of g."""
    def rec(left):
        if not any(left):
            yield ()
            return
        for g, c in enumerate(left):
            if c:
                left[g] -= 1
                for rest in rec(left):
                    yield (g,) + rest
                left[g] += 1
    yield from rec(list(sizes))


def best_by_enumeration(scores, y, groups, k, metric, lam):
    members = [np.flatnonzero(groups == g) for g in range(k)]
    members = [m[np.argsort(-scores[m], kind="stable")] for m in members]
    best = -np.inf
    for seq in interleavings([m.size for m in members]):
        seq = np.array(seq)
        order = np.empty(seq.size, dtype=np.int64)
        for g in range(k):
            order[seq == g] = members[g]
        best = max(best, brute_objective(order, y, groups, k, metric, lam)[2])
    return best


def check_valid(res, scores, groups, k):
    n = scores.size
    assert sorted(res.order.tolist()) == list(range(n))
    for g in range(k):
        ranked = res.order[res.path == g]
        assert np.array_equal(np.sort(ranked), np.flatnonzero(groups == g))
        assert np.all(np.diff(scores[ranked]) <= 0)
    assert np.array_equal(groups[res.order], res.path)


# ---------------------------------------------------------------------------------------
# Exactness and consistency on tiny inputs.


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("k", [3, 4])
def test_kd_at_lam0_is_global_optimum(metric, k):
    rng = np.random.default_rng(zlib.crc32(f"kd{metric}{k}".encode()))
    for _ in range(6 if k == 3 else 1):
        sizes = rng.integers(2, 4, k) if k == 3 else np.full(k, 2)
        scores, y, groups = random_problem(rng, sizes, metric)
        res = fair_order(scores, y, groups, metric=metric, method="kd", backend="numpy")
        assert res.method == "kd"
        best = best_by_enumeration(scores, y, groups, k, metric, 0.0)
        assert res.objective == pytest.approx(best, **TOL)


@pytest.mark.parametrize("metric", METRICS)
def test_kd_chunks_of_a_hyperplane_decide_as_one(metric, monkeypatch):
    """The K-D fill decides a hyperplane in chunks of cells; chunks of 1 and 5 cells
    give the bits and counters of one chunk per hyperplane, ties and all lam included,
    and still the enumeration's optimum at lam 0."""
    from cpu_reference import _kd

    rng = np.random.default_rng(zlib.crc32(f"chunks{metric}".encode()))
    for sizes, ties in (((6, 5, 4), False), ((5, 4, 3, 3), True)):
        scores, y, groups = random_problem(rng, sizes, metric, ties=ties)
        prob = cr.build_problem(scores, y, groups, len(sizes), metric, "absolute")
        for lam in (0.0, 0.7, 5.0):
            monkeypatch.setattr(_kd, "CHUNK_BYTES", 2**40)
            whole = _kd.fill_kd(prob, lam)
            for cells in (1, 5):
                rows = (3 if metric == "urf" else 2) * len(sizes) * (len(sizes) - 1) // 2
                monkeypatch.setattr(_kd, "CHUNK_BYTES", cells * 8 * rows * len(sizes))
                chunked = _kd.fill_kd(prob, lam)
                for a, b in zip(whole[0][1:], chunked[0][1:]):
                    assert all(np.array_equal(pa, pb) for pa, pb in zip(a, b))
                assert whole[1:3] == chunked[1:3]
    monkeypatch.setattr(_kd, "CHUNK_BYTES", 8 * 3 * 3)  # 1 cell per chunk (3 groups)
    scores, y, groups = random_problem(rng, (3, 3, 2), metric)
    res = fair_order(scores, y, groups, metric=metric, method="kd", backend="numpy")
    assert res.objective == pytest.approx(
        best_by_enumeration(scores, y, groups, 3, metric, 0.0), **TOL)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("method", ["kd", "iterative"])
@pytest.mark.parametrize("lam", [0.0, 0.7, 5.0])
def test_valid_merge_and_values_match_the_order(metric, method, lam):
    rng = np.random.default_rng(zlib.crc32(f"v{metric}{method}{lam}".encode()))
    for _ in range(5):
        k = int(rng.integers(3, 5))
        sizes = rng.integers(2, 6, k)
        scores, y, groups = random_problem(rng, sizes, metric)
        res = fair_order(scores, y, groups, metric=metric, lam=lam, method=method,
                         backend="numpy")
        check_valid(res, scores, groups, k)
        adjusted = order_scores(res.order)
        assert res.auc == pytest.approx(metrics.auc(y, adjusted), **TOL)
        assert res.disparity == pytest.approx(
            metrics.disparity(y, adjusted, sensitive_features=groups, metric=metric), **TOL)
        auc, d, obj = brute_objective(res.order, y, groups, k, metric, lam)
        assert res.objective == pytest.approx(obj, **TOL)
        assert res.method == method and res.backend == "numpy"


@pytest.mark.parametrize("metric", METRICS)
def test_iterative_is_never_better_than_kd(metric):
    rng = np.random.default_rng(zlib.crc32(f"ik{metric}".encode()))
    for _ in range(5):
        scores, y, groups = random_problem(rng, rng.integers(2, 4, 3), metric)
        best = best_by_enumeration(scores, y, groups, 3, metric, 0.0)
        it = fair_order(scores, y, groups, metric=metric, method="iterative",
                        backend="numpy")
        assert it.objective <= best + 1e-12


@pytest.mark.parametrize("metric", METRICS)
def test_best_keeps_the_higher_objective_of_kd_and_iterative(metric):
    """method="best": per lam, the result of the method with the higher objective (K-D
    on a tie), with both objectives recorded; progress covers both methods' cells."""
    rng = np.random.default_rng(zlib.crc32(f"best{metric}".encode()))
    lams = [0.0, 0.3, 1.0, 4.0]
    winners = set()
    for _ in range(4):
        scores, y, groups = random_problem(rng, (7, 6, 5), metric)
        kd = fair_order(scores, y, groups, metric=metric, lam=lams, method="kd",
                        backend="numpy")
        it = fair_order(scores, y, groups, metric=metric, lam=lams, method="iterative",
                        backend="numpy")
        seen = []
        best = fair_order(scores, y, groups, metric=metric, lam=lams, method="best",
                          backend="numpy",
                          progress=lambda d, t, seen=seen: seen.append((d, t)))
        for a, b, c in zip(kd, it, best):
            want = a if a.objective >= b.objective else b
            assert c.method == want.method and c.objective == max(a.objective, b.objective)
            np.testing.assert_array_equal(c.order, want.order)
            assert c.counters == want.counters
            assert c.extra["objectives"] == {"kd": a.objective, "iterative": b.objective}
            winners.add(c.method)
        total = len(lams) * (cr.kd_cells((7, 6, 5)) + cr.iterative_cells((7, 6, 5)))
        assert seen[-1] == (total, total) and all(t == total for _, t in seen)
        assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:]))
    assert winners == {"kd", "iterative"}  # each wins somewhere: "best" is not one of them


def test_best_with_two_groups_is_the_2d_dp():
    rng = np.random.default_rng(21)
    scores, y, groups = random_problem(rng, (9, 8), "xauc")
    two = fair_order(scores, y, groups, lam=1.0, backend="numpy", solver="paper")
    best = fair_order(scores, y, groups, lam=1.0, method="best", backend="numpy")
    np.testing.assert_array_equal(two.order, best.order)
    assert two.objective == best.objective and "objectives" not in best.extra


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("mode", ["absolute", "signed"])
def test_two_groups_reduce_to_the_2d_dp(metric, mode):
    rng = np.random.default_rng(zlib.crc32(f"2d{metric}{mode}".encode()))
    for trial in range(40):
        sizes = rng.integers(2, 9, 2)
        scores, y, groups = random_problem(rng, sizes, metric, ties=trial % 2 == 0)
        lam = float(rng.choice([0.0, 0.3, 1.0, 5.0]))
        ref = fair_order(scores, y, groups, metric=metric, lam=lam, disparity=mode,
                         backend="numpy", solver="paper")
        assert ref.method == "2d"
        for method in ("kd", "iterative"):
            res = fair_order(scores, y, groups, metric=metric, lam=lam, disparity=mode,
                             method=method, backend="numpy")
            assert np.array_equal(res.order, ref.order)
            assert res.counters == ref.counters
            assert (res.objective, res.auc, res.disparity) == (
                ref.objective, ref.auc, ref.disparity)


def test_kd_and_iterative_agree_with_enumeration_on_ties():
    rng = np.random.default_rng(7)
    for _ in range(5):
        scores, y, groups = random_problem(rng, [3, 2, 3], "urf", ties=True)
        res = fair_order(scores, y, groups, metric="urf", method="kd", backend="numpy")
        check_valid(res, scores, groups, 3)


# ---------------------------------------------------------------------------------------
# Method choice, merge order, results.


def test_merge_order_largest_first_ties_lower_index():
    assert cr.merge_order((3, 5, 5, 1)) == [1, 2, 0, 3]
    assert cr.merge_order((2, 2)) == [0, 1]


def test_merge_order_recorded_with_labels():
    rng = np.random.default_rng(3)
    sizes = [3, 6, 6]
    scores, y, groups = random_problem(rng, sizes, "urf")
    names = np.array(["young", "middle", "old"])[groups]
    res = fair_order(scores, y, names, metric="urf", method="iterative", backend="numpy")
    # Sorted labels: middle (6), old (6), young (3).
    assert res.extra["merge_order"] == ["middle", "old", "young"]
    assert res.groups.tolist() == ["middle", "old", "young"]
    assert set(res.counters) == {f"{k}[{g}][{h}]" for k in "CU" for g in res.groups
                                 for h in res.groups if g != h}


@pytest.mark.parametrize("method", ["iterative", "best"])
def test_merge_order_of_python_object_labels(method):
    """Group labels held as Python ints in an object array (a column of a mixed
    ``np.column_stack``) have no ``item()``: the merge order lists them as they are."""
    rng = np.random.default_rng(5)
    scores, y, groups = random_problem(rng, [3, 6, 5], "xauc")
    race = np.array(["a", "b", "c"])[groups]
    band = np.column_stack([race, np.array([10, 20, 30], dtype=object)[groups]])[:, 1]
    assert band.dtype == object and isinstance(band[0], int)
    for labels in (band, np.array([10, 20, 30], dtype=object)[groups]):
        res = fair_order(scores, y, labels, lam=0.5, method=method, backend="numpy")
        want = fair_order(scores, y, groups * 10 + 10, lam=0.5, method=method,
                          backend="numpy")
        np.testing.assert_array_equal(res.order, want.order)
        assert res.extra == want.extra
        if method == "iterative":
            assert res.extra["merge_order"] == [20, 30, 10]  # sizes 6, 5, 3


def test_auto_picks_kd_then_iterative(monkeypatch):
    rng = np.random.default_rng(4)
    scores, y, groups = random_problem(rng, [4, 5, 3], "xauc")
    assert fair_order(scores, y, groups, backend="numpy").method == "kd"
    from gpu_xorder.engine import _plan
    monkeypatch.setattr(_plan, "KD_MAX_CELLS", 5 * 6 * 4 - 1)
    assert fair_order(scores, y, groups, backend="numpy").method == "iterative"


@pytest.mark.parametrize("metric", METRICS)
def test_time_estimate_counts_the_work_the_fill_does(metric, monkeypatch):
    """``_plan.numpy_work`` (what ``estimate_seconds`` prices) counts the lanes the
    iterative fill computes: state rows times padded diagonal lengths of every step
    with more than one old group, and their anti-diagonals, as the fill's decider sees
    them."""
    from cpu_reference import _objective
    from gpu_xorder.engine import _plan

    sizes = (9, 7, 7, 5, 3)
    seen = {"lane": 0, "calls": 0}
    decider = _objective.StepObjective.decider

    def counting(self, max_len):
        decide = decider(self, max_len)

        def wrapped(pred, cand, i_lo, k_lo, length, dec_out):
            if self.m > 1:
                seen["lane"] += self.rows * length
            seen["calls"] += 1
            return decide(pred, cand, i_lo, k_lo, length, dec_out)
        return wrapped

    monkeypatch.setattr(_objective.StepObjective, "decider", counting)
    s, y, g = random_problem(np.random.default_rng(2), sizes, metric)
    cr.solve_iterative(cr.build_problem(s, y, g, 5, metric, "absolute"), 0.5)
    work = _plan.numpy_work("iterative", sizes, metric)
    assert work["lane"] == seen["lane"]
    assert seen["calls"] <= work["diagonal"] == sum(m + n for m, n in cr.step_shapes(sizes))


def test_time_estimate_before_a_long_solve():
    """What the command line asks before it starts: 1000 groups of 4 by iterative xOrder
    (issue #25: over two minutes with nothing said) is estimated long, and the estimate
    grows as K^3 for small groups; methods add up, GPUs are not estimated."""
    from gpu_xorder.engine._plan import choose_method, estimate_seconds

    many, half = estimate_seconds("iterative", [4] * 1000), estimate_seconds(
        "iterative", [4] * 500)
    assert many > 120 and 6 < many / half < 9
    assert estimate_seconds("auto", [4] * 1000) == many
    assert estimate_seconds("auto", [300, 400]) == estimate_seconds("2d", [300, 400])
    assert estimate_seconds("best", [30] * 3) == pytest.approx(
        estimate_seconds("kd", [30] * 3) + estimate_seconds("iterative", [30] * 3))
    assert estimate_seconds("auto", [30] * 3) == estimate_seconds(
        choose_method("auto", [30] * 3), [30] * 3)
    assert estimate_seconds("2d", [500, 500], n_fills=3) == pytest.approx(
        3 * estimate_seconds("2d", [500, 500]))
    assert estimate_seconds("kd", [4] * 1000) > 1e100
    assert estimate_seconds("2d", [10, 10], backend="cupy") is None


def test_lam_sequence_and_counters_sum():
    rng = np.random.default_rng(5)
    scores, y, groups = random_problem(rng, [4, 5, 3], "xauc")
    out = fair_order(scores, y, groups, lam=[0.0, 2.0], backend="numpy")
    assert [r.lam for r in out] == [0.0, 2.0]
    n1, n0 = int(y.sum()), int((1 - y).sum())
    for r in out:
        w2 = sum(2 * pair_frac(scores[(groups == g) & (y == 1)],
                               scores[(groups == g) & (y == 0)])
                 * ((groups == g) & (y == 1)).sum() * ((groups == g) & (y == 0)).sum()
                 for g in range(3))
        assert r.auc == pytest.approx((sum(r.counters.values()) + w2 / 2) / (n1 * n0))


def test_signed_needs_two_groups():
    rng = np.random.default_rng(6)
    scores, y, groups = random_problem(rng, [3, 3, 3], "xauc")
    with pytest.raises(ValueError, match=r"disparity='signed' is defined for two groups"):
        fair_order(scores, y, groups, disparity="signed", backend="numpy")


@pytest.mark.parametrize("metric,what", [("xauc", "positives"), ("prf", "positives")])
def test_group_without_positives_is_an_error(metric, what):
    scores = np.arange(9.0)
    y = np.array([1, 0, 1, 0, 1, 0, 0, 0, 0])
    groups = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2])
    with pytest.raises(ValueError, match=v.MSG_GROUP_LACKS.format(
            label=2, what=what, metric=metric).replace("'", ".")):
        fair_order(scores, y, groups, metric=metric, backend="numpy")


@pytest.mark.parametrize("k", [129, pytest.param(200, marks=pytest.mark.slow)])
def test_more_than_128_groups(k):
    """Group indices beyond int8 (issue #25: group 128 wrapped to -128): 129 and 200
    groups of two items solve, and at lam = 0 (exact) reach the best AUC. Oracle: the
    m groups ranked (negative, positive) by score are chains whose cross pairs lose at
    least one pair in two (``n_i > p_i`` and ``n_j > p_j`` forbid ``p_i > n_j`` and
    ``p_j > n_i`` together), plus their own pair; the order ``n_1 p_1 n_2 p_2 ...``
    between every other positive (on top) and negative (at the bottom) loses no more.
    So the best AUC is ``1 - (m + m (m - 1) / 2) / (n_1 n_0)``."""
    rng = np.random.default_rng(k)
    kinds = rng.integers(0, 4, k)  # labels of the upper, lower item: 10, 01, 11, 00
    kinds[:2] = (0, 1)
    upper, lower = np.array([1, 0, 1, 0])[kinds], np.array([0, 1, 1, 0])[kinds]
    scores = rng.permutation(2 * k).reshape(k, 2) / (2 * k)
    scores.sort(axis=1)
    groups = np.repeat(np.arange(k), 2)
    y = np.column_stack((lower, upper)).ravel()  # column 0: the lower score
    scores = scores.ravel()
    res = fair_order(scores, y, groups, metric="urf", method="iterative", backend="numpy")
    assert res.path.dtype == np.int16 and res.path.max() == k - 1
    check_valid(res, scores, groups, k)
    m = int((kinds == 1).sum())
    n_1 = int(y.sum())
    best = 1 - (m + m * (m - 1) / 2) / (n_1 * (y.size - n_1))
    assert res.auc == pytest.approx(best, **TOL)
    ranked = order_scores(res.order)
    assert pair_frac(ranked[y == 1], ranked[y == 0]) == pytest.approx(best, **TOL)
    assert cr.group_dtype(128) == np.int8 and cr.group_dtype(129) == np.int16
    assert cr.group_dtype(2**15 + 1) == np.int32


@pytest.mark.parametrize("method", ["kd", "iterative"])
def test_single_item_group_and_uneven_sizes(method):
    rng = np.random.default_rng(8)
    scores, y, groups = random_problem(rng, [1, 40, 7], "urf")
    res = fair_order(scores, y, groups, metric="urf", lam=3.0, method=method,
                     backend="numpy")
    check_valid(res, scores, groups, 3)
    assert res.disparity == pytest.approx(
        metrics.disparity(y, order_scores(res.order), sensitive_features=groups,
                          metric="urf"), **TOL)


def test_backends_for_more_groups():
    from gpu_xorder import BackendUnavailableError
    from gpu_xorder.engine._backend import cupy_status

    rng = np.random.default_rng(9)
    scores, y, groups = random_problem(rng, [3, 3, 3], "xauc")
    assert fair_order(scores, y, groups, backend="numpy").backend == "numpy"
    if cupy_status()[0]:
        assert fair_order(scores, y, groups, backend="cupy").backend == "cupy"
    else:
        with pytest.raises(BackendUnavailableError, match="backend='cupy' is not usable"):
            fair_order(scores, y, groups, backend="cupy", method="iterative")
        assert fair_order(scores, y, groups, backend="auto").backend == cpu_backend()


def test_progress_reaches_total():
    rng = np.random.default_rng(10)
    scores, y, groups = random_problem(rng, [3, 4, 5], "xauc")
    for method in ("kd", "iterative"):
        calls = []
        fair_order(scores, y, groups, method=method, backend="numpy",
                   progress=lambda done, total, calls=calls: calls.append((done, total)))
        assert calls and calls[-1][0] == calls[-1][1]


# ---------------------------------------------------------------------------------------
# The estimator with three groups.


def test_xorder_three_groups_fit_transform():
    rng = np.random.default_rng(11)
    scores, y, groups = random_problem(rng, [30, 40, 25], "xauc")
    scores = 1 / (1 + np.exp(-(rng.normal(size=scores.size) + y - 0.5 * groups)))
    xo = XOrder(lam=5.0, backend="numpy", method="iterative").fit(
        scores, y, sensitive_features=groups)
    assert xo.result_.method == "iterative"
    ref = int(np.flatnonzero(xo.groups_ == xo.reference_group_)[0])
    assert sorted(xo.maps_) == [g for g in range(3) if g != ref]
    new = rng.random(200)
    new_groups = rng.integers(0, 3, 200)
    out = xo.transform(new, sensitive_features=new_groups)
    np.testing.assert_array_equal(out[new_groups == ref], new[new_groups == ref])
    for g in range(3):
        m = new_groups == g
        o = np.argsort(new[m])
        assert np.all(np.diff(out[m][o]) >= 0)
    adjusted = xo.train_scores_adjusted_
    assert np.array_equal(np.argsort(-adjusted, kind="stable"), xo.order_)
    assert metrics.disparity(y, adjusted, sensitive_features=groups) == pytest.approx(
        xo.result_.disparity, **TOL)


# ---------------------------------------------------------------------------------------
# Real data: age bands of Adult and COMPAS.


def age_band_sample(name, per_band, seed=0):
    """``per_band`` random items of every age band, scored by a logistic regression
    fitted on 3000 other random rows."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    data = load_dataset(name)
    bands = age_bands(data.age)
    rng = np.random.default_rng(seed)
    take = np.concatenate([rng.choice(np.flatnonzero(bands == g), per_band, replace=False)
                           for g in range(3)])
    rest = rng.choice(np.setdiff1d(np.arange(bands.size), take), 3000, replace=False)
    scaler = StandardScaler().fit(data.X[rest])
    model = LogisticRegression(max_iter=1000).fit(scaler.transform(data.X[rest]),
                                                  data.y[rest])
    s = model.predict_proba(scaler.transform(data.X[take]))[:, 1]
    return s, data.y[take].astype(int), bands[take]


@pytest.mark.parametrize("name", ["adult", "compas"])
@pytest.mark.parametrize("method,per_band", [("iterative", 300), ("kd", 120)])
def test_age_bands_disparity_drops(name, method, per_band):
    s, y, g = age_band_sample(name, per_band)
    before = metrics.disparity(y, s, sensitive_features=g, metric="xauc")
    res = fair_order(s, y, g, metric="xauc", lam=10.0, method=method, backend="numpy")
    print(f"\n{name} age bands, {per_band}/band, {method}: Delta-xAUC "
          f"{before:.4f} -> {res.disparity:.4f}, AUC {metrics.auc(y, s):.4f} -> "
          f"{res.auc:.4f}")
    assert res.disparity < 0.5 * before
