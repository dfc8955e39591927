"""The two-group DP of cpu_reference against exhaustive enumeration and pair definitions."""

import zlib

import numpy as np
import pytest

import cpu_reference as cr
from gpu_xorder import fair_order
from support.oracles import best_objective, brute_terms, cellwise_fill, order_scores
from support.problems import random_problem, two_group_problem

METRICS = ("xauc", "prf", "urf")


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("mode,lams", [("absolute", [0.0]), ("signed", [0.0, 0.3, 1.0, 5.0])])
def test_objective_is_global_optimum(metric, mode, lams):
    rng = np.random.default_rng(zlib.crc32(f"{metric}{mode}".encode()))
    for _ in range(25):
        n_a, n_b = rng.integers(1, 8, size=2)
        if metric == "xauc":
            n_a, n_b = max(n_a, 2), max(n_b, 2)
        elif metric == "prf":
            n_b = max(n_b, 3 - n_a)  # both groups need a positive, someone a negative
        s, y, g = random_problem(rng, (n_a, n_b), metric)
        for res, lam in zip(fair_order(s, y, g, metric=metric, lam=lams, disparity=mode,
                                       backend="numpy"), lams):
            best = best_objective(s, y, g, metric, lam, mode)
            assert res.objective == pytest.approx(best, abs=1e-12)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("mode", ["absolute", "signed"])
def test_reported_values_match_order(metric, mode):
    rng = np.random.default_rng(7)
    for lam in (0.0, 0.5, 3.0):
        s, y, g = random_problem(rng, (23, 17), metric)
        res = fair_order(s, y, g, metric=metric, lam=lam, disparity=mode, backend="numpy")
        auc, d, absd = brute_terms(order_scores(res.order), y, g, metric)
        assert res.auc == pytest.approx(auc, abs=1e-12)
        assert res.disparity == pytest.approx(absd, abs=1e-12)
        expected = auc - lam * (d if mode == "signed" else absd)
        assert res.objective == pytest.approx(expected, abs=1e-12)
        # permutation that keeps each group's descending score order
        assert sorted(res.order.tolist()) == list(range(s.size))
        for k in (0, 1):
            ranked = s[res.order][g[res.order] == k]
            assert np.all(np.diff(ranked) < 0)


def test_hand_computed_case():
    # a: positives on top of b's negatives; lam = 0 keeps the AUC-optimal merge.
    s = np.array([0.9, 0.1, 0.8, 0.2])
    y = np.array([1, 0, 1, 0])
    g = np.array([0, 0, 1, 1])
    res = fair_order(s, y, g, metric="xauc", lam=0.0, backend="numpy")
    assert res.auc == 1.0
    assert res.order.tolist() == [0, 2, 3, 1] or res.order.tolist() == [2, 0, 1, 3] \
        or res.order.tolist() in ([0, 2, 1, 3], [2, 0, 3, 1])
    assert res.counters == {"cab": 1, "cba": 1}


@pytest.mark.parametrize("lam", [0.0, 0.5, 7.0])
def test_tie_rule_prefers_group_b(lam):
    # a = (pos, neg), b = (pos, neg). Cell (1, 1) is reached with counters
    # (cab, cba, uab, uba) = (1, 1, 1, 2) through (0, 1) and (1, 1, 2, 1) through
    # (1, 0): equal AUC and equal |URF|, an exact G-hat tie at every lam, which the
    # step along b (the higher group index) must win.
    s = np.array([0.5, 0.4, 0.3, 0.2])
    y = np.array([1, 1, 0, 0])
    g = np.array([0, 1, 0, 1])
    lat = cr.build_lattice(s, y, g, "urf", "absolute")
    via_a = cr.cell_values([1, 1, 1, 2], lat.consts, lam, "urf", "absolute")[0]
    via_b = cr.cell_values([1, 1, 2, 1], lat.consts, lam, "urf", "absolute")[0]
    assert via_a == via_b
    words, _ = cr.fill(lat, lam)
    assert not cr.bits_to_matrix(words, lat.n_a, lat.n_b)[0, 0]


def test_counters_against_pair_counts():
    rng = np.random.default_rng(3)
    s, y, g = random_problem(rng, (30, 20), "urf")
    res = fair_order(s, y, g, metric="urf", lam=0.7, backend="numpy")
    r = order_scores(res.order)
    a, b = g == 0, g == 1
    cab = int(((r[a & (y == 1)][:, None] > r[b & (y == 0)][None, :])).sum())
    cba = int(((r[b & (y == 1)][:, None] > r[a & (y == 0)][None, :])).sum())
    uab = int((r[a][:, None] > r[b][None, :]).sum())
    assert res.counters == {"cab": cab, "cba": cba, "uab": uab, "uba": a.sum() * b.sum() - uab}


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("mode", ["absolute", "signed"])
def test_fill_equals_cellwise_contract(metric, mode):
    """Every decision of the vectorised fill (exact float64 state rows, padded
    diagonals, packed bits) is the one a cell-by-cell DP on int64 counters takes with
    the documented G-hat sequence, exact G-hat ties included."""
    rng = np.random.default_rng(len(metric) * 10 + len(mode))
    shapes = [(1, 1), (1, 9), (9, 1), (5, 7), (33, 4), (4, 70), (40, 37), (70, 66)]
    for k, (n_a, n_b) in enumerate(shapes):
        s, y, g = two_group_problem(rng, n_a, n_b, ties=k % 2 == 0)
        lat = cr.build_lattice(s, y, g, metric, mode)
        for lam in (0.0, 0.37, 6.0):
            words, final = cr.fill(lat, lam)
            dec, want = cellwise_fill(lat, lam)
            np.testing.assert_array_equal(cr.bits_to_matrix(words, n_a, n_b), dec)
            np.testing.assert_array_equal(final, want)


def test_within_group_pairs_from_the_sorted_order():
    """``half_wins2_within`` (one pass over a group in descending order, the lattice's W)
    equals the sort-and-search count ``half_wins2``, ties, distinct scores and empty
    groups included."""
    from cpu_reference._counting import half_wins2_within

    rng = np.random.default_rng(21)
    for trial in range(300):
        n = int(rng.integers(0, 40))
        s = np.round(rng.random(n) * rng.integers(1, 6)) / 3 if trial % 2 else rng.random(n)
        y = rng.integers(0, 2, n)
        order = np.argsort(-s, kind="stable")
        s, y = s[order], y[order]
        assert half_wins2_within(s, y) == cr.half_wins2(s[y == 1], s[y == 0])
