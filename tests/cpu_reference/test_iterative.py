"""Iterative xOrder: every step, a ``StepLattice`` on the one 2-D fill, against the
cell-by-cell definition of docs/design.md, section 4 (``oracles.cellwise_iterative_step``)."""

import numpy as np
import pytest

import cpu_reference as cr
from cpu_reference import _iterative
from cpu_reference import _kgroups as kg
from support.oracles import cellwise_iterative_step
from support.problems import random_problem

METRICS = ("xauc", "prf", "urf")


def walk_steps(prob, lam, compare):
    """Run iterative xOrder step by step: ``compare(cs, seq_g, seq_y, b, const_c,
    const_u)`` checks a step and returns its ``(words, C, U)``."""
    order = _iterative.merge_order(prob.sizes)
    seq_g = np.full(prob.sizes[order[0]], order[0], dtype=np.int64)
    seq_y = prob.ys[order[0]]
    const_c, const_u, merged = {}, {}, [order[0]]
    for b in order[1:]:
        merged.append(b)
        cs = kg.build_constants(prob, merged)
        words, fc, fu = compare(cs, seq_g, seq_y, b, const_c, const_u)
        const_c.update(fc)
        const_u.update(fu)
        steps = cr.traceback(words, seq_g.size, prob.sizes[b]) == 0
        seq_g, seq_y = _iterative.merge_step(seq_g, seq_y, steps, b, prob.ys[b])
    return seq_g


def step_fill(prob, lam, cs, seq_g, seq_y, b, const_c, const_u):
    """``(words, C, U)`` of one step by the NumPy fill of its ``StepLattice``."""
    lat = cr.step_lattice(prob, cs, seq_g, seq_y, b, const_c, const_u)
    words, final = cr.fill(lat, lam)
    return (words, *cr.step_counters(lat, final))


def assert_steps_are_the_definition(prob, lam):
    """Every step of iterative xOrder: the decisions and final counters of the fill are
    those of the cell-by-cell definition."""
    def compare(cs, seq_g, seq_y, b, const_c, const_u):
        words, fc, fu = step_fill(prob, lam, cs, seq_g, seq_y, b, const_c, const_u)
        dec, want_c, want_u = cellwise_iterative_step(prob, lam, cs, seq_g, seq_y, b,
                                                      const_c, const_u)
        np.testing.assert_array_equal(
            cr.bits_to_matrix(words, seq_g.size, prob.sizes[b]), dec)
        assert (fc, fu) == (want_c, want_u)
        return words, fc, fu

    walk_steps(prob, lam, compare)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("sizes", [(5, 3, 4), (2, 6, 3), (7, 6, 2, 3), (2, 2, 2, 2, 2)])
def test_step_equals_the_cell_by_cell_definition(metric, sizes):
    """Every decision (exact G-hat ties included: tied scores, lam 0) and the final
    counters of every step."""
    rng = np.random.default_rng(sum(sizes) * 31 + len(metric))
    for ties in (False, True):
        s, y, g = random_problem(rng, sizes, metric, ties)
        prob = cr.build_problem(s, y, g, len(sizes), metric, "absolute")
        for lam in (0.0, 0.3, 5.0):
            assert_steps_are_the_definition(prob, lam)


@pytest.mark.parametrize("metric", METRICS)
def test_two_groups_signed_step_equals_the_definition(metric):
    rng = np.random.default_rng(5 + len(metric))
    for sizes in ((6, 4), (3, 8)):
        s, y, g = random_problem(rng, sizes, metric, ties=True)
        prob = cr.build_problem(s, y, g, 2, metric, "signed")
        for lam in (0.0, 0.7, 6.0):
            assert_steps_are_the_definition(prob, lam)


def test_progress_counts_every_cell_of_every_step():
    rng = np.random.default_rng(3)
    s, y, g = random_problem(rng, (9, 5, 7), "urf")
    prob = cr.build_problem(s, y, g, 3, "urf", "absolute")
    calls = []
    cr.solve_iterative(prob, 0.5, lambda done, total: calls.append((done, total)))
    total = _iterative.total_cells(prob.sizes)
    assert calls[-1] == (total, total)
    assert [c[0] for c in calls] == sorted(c[0] for c in calls)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("mode", ["absolute", "signed"])
def test_two_groups_iterative_is_the_2d_dp(metric, mode):
    """With two groups the iteration is the 2-D DP: the same path and counters whichever
    group is merged first (the first step's lattice is then the 2-D one or its
    transpose, with the tie rule turned around), exact ties included."""
    rng = np.random.default_rng(17 + len(metric) + len(mode))
    for sizes in ((9, 4), (4, 9), (6, 6)):
        for ties in (False, True):
            s, y, g = random_problem(rng, sizes, metric, ties)
            prob = cr.build_problem(s, y, g, 2, metric, mode)
            lat = cr.build_lattice(s, y, g, metric, mode)
            for lam in (0.0, 0.4, 7.0):
                path, c, u, _, _ = cr.solve_iterative(prob, lam)
                words, final = cr.fill(lat, lam)
                np.testing.assert_array_equal(path, cr.traceback(words, lat.n_a, lat.n_b))
                assert [c[(0, 1)], c[(1, 0)]] + ([u[(0, 1)], u[(1, 0)]] if u else []) == (
                    [int(v) for v in final])


@pytest.mark.parametrize("metric", METRICS)
def test_two_group_lattice_is_the_first_step(metric):
    """The two-group lattice of two groups of a problem is the first step's lattice of
    the same two groups (a = the lower index): the same prefix arrays (int64, which the
    GPU kernels read), constants and edge counters."""
    rng = np.random.default_rng(8)
    s, y, g = random_problem(rng, (17, 13, 6), metric, ties=True)
    prob = cr.build_problem(s, y, g, 3, metric, "absolute")
    for first, second in ((0, 1), (0, 2), (1, 2)):
        keep = (g == first) | (g == second)
        lat = cr.build_lattice(s[keep], y[keep], (g[keep] == second).astype(np.int64),
                               metric, "absolute")
        pair = lat
        assert pair.m == 1 and pair.old == (0,) and pair.b == 1
        cs = kg.build_constants(prob, (first, second))
        step = cr.step_lattice(prob, cs, np.full(prob.sizes[first], first), prob.ys[first],
                               second, {}, {})
        for name in ("y_a", "seq_q", "a_wins_ties", "y_b_rev", "negleft_b_rev", "negleft_a",
                     "left_a", "left_b_rev", "size_a"):
            got, want = getattr(step, name), getattr(pair, name)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
        for name in ("s_const", "w", "inv_auc", "inv_qb", "inv_bq", "inv_u", "old_first",
                     "row_const", "w_q", "inv_p", "w_b", "inv_p_b", "floor"):
            np.testing.assert_array_equal(getattr(step.consts, name),
                                          getattr(pair.consts, name))
        for got, want in zip(cr.edge_counters(step), cr.edge_counters(pair)):
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("metric", METRICS)
def test_contract_orients_the_signed_term(metric):
    """The two-group contract on a step lattice whose b precedes its old group (old
    group 1, b = 0: the first step when group 1 is the larger) gives the signed D of the
    pair ordered (0, 1): bit for bit the two-group lattice's values on the same
    counters in its order, at the step's final cell."""
    rng = np.random.default_rng(31)
    s, y, g = random_problem(rng, (5, 11), metric, ties=True)
    prob = cr.build_problem(s, y, g, 2, metric, "signed")
    step = cr.step_lattice(prob, kg.build_constants(prob, (0, 1)), np.full(11, 1),
                           prob.ys[1], 0, {}, {})
    lat = cr.build_lattice(s, y, g, metric, "signed")
    assert (step.old, step.b, lat.old, lat.b) == ((1,), 0, (0,), 1)
    swap = [1, 0, 3, 2][:lat.n_counters]  # C[1][0], C[0][1](, U[1][0], U[0][1])
    for lam in (0.0, 0.3, 2.0):
        _, final = cr.solve_lattice(step, lam)
        got = cr.cell_values(final, step.consts, lam, metric, "signed")
        want = cr.cell_values(final[swap], lat.consts, lam, metric, "signed")
        assert got == want
        assert got[2] != 0.0  # a disparity whose sign the check sees


def test_a_band_of_a_step_fills_like_the_step():
    """The banded solve serves iterative steps too: a step lattice in bands of 32 rows
    gives the whole fill's path and final counters."""
    rng = np.random.default_rng(4)
    s, y, g = random_problem(rng, (40, 30, 29), "urf", ties=True)
    prob = cr.build_problem(s, y, g, 3, "urf", "absolute")
    order = cr.merge_order(prob.sizes)
    cs = kg.build_constants(prob, order)
    first = cr.step_lattice(prob, kg.build_constants(prob, order[:2]),
                            np.full(prob.sizes[order[0]], order[0]), prob.ys[order[0]],
                            order[1], {}, {})
    path, final = cr.solve_lattice(first, 0.5)
    fc, fu = cr.step_counters(first, final)
    seq_g, seq_y = _iterative.merge_step(np.full(prob.sizes[order[0]], order[0]),
                                         prob.ys[order[0]], path == 0, order[1],
                                         prob.ys[order[1]])
    lat = cr.step_lattice(prob, cs, seq_g, seq_y, order[2], fc, fu)
    assert lat.m == 2 and lat.n_a == 70
    for lam in (0.0, 0.5, 3.0):
        want = cr.solve_lattice(lat, lam)
        (path, final), = cr.solve_banded(lat, 1, 32, cr.numpy_band_fill([lam]))
        np.testing.assert_array_equal(path, want[0])
        np.testing.assert_array_equal(final, want[1])


@pytest.mark.parametrize("metric", METRICS)
def test_running_sums_equal_the_sums_over_all_pairs(metric):
    """``solve_iterative`` keeps the constants of the merged pairs up to date step by
    step (``MergedSums.add``, O(K) a step); each step's constants equal, bit for bit,
    those summed anew over all pairs merged so far."""
    rng = np.random.default_rng(11)
    s, y, g = random_problem(rng, (9, 7, 7, 5, 4, 3), metric, ties=True)
    prob = cr.build_problem(s, y, g, 6, metric, "absolute")
    seen = []

    def solve(lat, lam, progress):
        seen.append(lat)
        return cr.solve_lattice(lat, lam, progress)

    _, const_c, const_u, _, order = cr.solve_iterative(prob, 0.8, solve=solve)
    for t, lat in enumerate(seen):
        merged = order[:t + 2]
        old = merged[:-1]
        c = {p: v for p, v in const_c.items() if p[0] in old and p[1] in old}
        u = {p: v for p, v in const_u.items() if p[0] in old and p[1] in old}
        cs = kg.build_constants(prob, merged)
        fresh = _iterative.MergedSums(prob, cs, sorted(old), c, u)
        assert fresh.floor == lat.consts.floor
        assert (fresh.floor > 0) == (metric != "prf" and t > 0)
        assert float(fresh.total) == lat.consts.s_const
        np.testing.assert_array_equal([fresh.row[q] for q in lat.old], lat.consts.row_const)
