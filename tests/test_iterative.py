"""The vectorised iterative step (cpu_reference._iterative.step_fill) against the
cell-by-cell definition of docs/design.md, section 4
(``oracles.cellwise_iterative_step``)."""

import numpy as np
import pytest

import cpu_reference as cr
from cpu_reference import _iterative
from cpu_reference import _kgroups as kg

from oracles import cellwise_iterative_step
from test_multigroup import random_problem

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
        steps = _iterative.step_path(words, seq_g.size, prob.sizes[b])
        seq_g, seq_y = _iterative.merge_step(seq_g, seq_y, steps, b, prob.ys[b])
    return seq_g


def assert_steps_are_the_definition(prob, lam):
    """Every step of iterative xOrder: the decisions and final counters of ``step_fill``
    are those of the cell-by-cell definition."""
    def compare(cs, seq_g, seq_y, b, const_c, const_u):
        words, fc, fu = _iterative.step_fill(prob, lam, cs, seq_g, seq_y, b, const_c,
                                             const_u)
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
def test_first_step_by_the_2d_fill_equals_the_step(metric, mode):
    """``pair_step`` (the 2-D fill, lattice oriented a = the lower group index) gives the
    path and counters of ``step_fill`` on the step's own orientation, exact ties
    included, whichever of the two groups is merged first."""
    rng = np.random.default_rng(17 + len(metric) + len(mode))
    for sizes in ((9, 4), (4, 9), (6, 6), (12, 2, 5)):
        if mode == "signed" and len(sizes) > 2:
            continue
        for ties in (False, True):
            s, y, g = random_problem(rng, sizes, metric, ties)
            prob = cr.build_problem(s, y, g, len(sizes), metric, mode)
            first, b = _iterative.merge_order(prob.sizes)[:2]
            cs = kg.build_constants(prob, (first, b))
            seq_g = np.full(prob.sizes[first], first, dtype=np.int64)
            for lam in (0.0, 0.4, 7.0):
                words, fc, fu = _iterative.step_fill(prob, lam, cs, seq_g, prob.ys[first],
                                                     b, {}, {})
                steps, c, u = _iterative.pair_step(prob, lam, first, b)
                np.testing.assert_array_equal(
                    steps, _iterative.step_path(words, seq_g.size, prob.sizes[b]))
                assert (c, u) == (fc, fu)


@pytest.mark.parametrize("metric", METRICS)
def test_pair_lattice_is_the_2d_lattice_of_the_two_groups(metric):
    """The first step's lattice equals what ``build_lattice`` makes of the two groups'
    scores: the same prefix arrays (dtype included, the GPU kernels read int64) and the
    very same G-hat constants."""
    rng = np.random.default_rng(8)
    s, y, g = random_problem(rng, (17, 13, 6), metric, ties=True)
    prob = cr.build_problem(s, y, g, 3, metric, "absolute")
    for first, second in ((0, 1), (0, 2), (1, 2)):
        pair = _iterative.pair_lattice(prob, first, second)
        keep = (g == first) | (g == second)
        ref = cr.build_lattice(s[keep], y[keep], (g[keep] == second).astype(np.int64),
                               metric, "absolute")
        for name in ("y_a", "y_b_rev", "negleft_a", "negleft_b_rev", "left_a",
                     "left_b_rev"):
            got, want = getattr(pair, name), getattr(ref, name)
            assert got.dtype == want.dtype == np.int64
            np.testing.assert_array_equal(got, want)
        assert pair.consts == ref.consts
