"""Lattices of runs (``merged_lattice``, ``expand_merged``, ``tie_runs``): what XOrder's
orderings are solved on for xAUC and PRF (docs/design.md, section 5)."""


import numpy as np
import pytest

import cpu_reference as cr


def tied(seed, n=(9, 7)):
    rng = np.random.default_rng(seed)
    g = np.repeat([0, 1], n)
    y = rng.integers(0, 2, g.size)
    y[[0, 1, n[0], n[0] + 1]] = [0, 1, 0, 1]
    return rng.integers(0, 4, g.size) / 4.0, y, g


@pytest.mark.parametrize("metric", ["xauc", "prf", "urf"])
def test_merging_single_rows_gives_the_lattice_back(metric):
    s, y, g = tied(0)
    lat = cr.build_lattice(s, y, g, metric, "absolute")
    same = cr.merged_lattice(lat, np.ones(lat.n_a, int), np.ones(lat.n_b, int))
    for f in ("n_a", "n_b", "y_a", "y_b_rev", "negleft_a", "negleft_b_rev", "left_a",
              "left_b_rev"):
        assert np.array_equal(getattr(same, f), getattr(lat, f)), f


def test_tie_runs_are_the_runs_of_equal_scores_in_dp_order():
    s = np.array([0.5, 0.25, 0.5, 0.75, 0.25, 0.25, 0.0])
    assert cr.tie_runs(s, np.array([3, 0, 2, 1, 4, 5, 6])).tolist() == [1, 2, 3, 1]
    assert cr.tie_runs(s, np.array([6])).tolist() == [1]


@pytest.mark.parametrize("metric", ["xauc", "prf"])
@pytest.mark.parametrize("seed", range(4))
def test_a_path_of_runs_keeps_runs_whole_with_exact_counters(metric, seed):
    """Every path of the lattice of runs, expanded, is a path of the items that keeps
    each run whole, with the run lattice's final counters (exact for xAUC and PRF)."""
    s, y, g = tied(seed)
    lat = cr.build_lattice(s, y, g, metric, "absolute")
    runs = cr.tie_runs(s, lat.perm_a), cr.tie_runs(s, lat.perm_b)
    merged = cr.merged_lattice(lat, *runs)
    rng = np.random.default_rng(seed)
    for lam in (0.0, 0.5, 3.0):
        words, final = cr.fill(merged, lam)[:2]
        path = cr.expand_merged(cr.traceback(words, merged.n_a, merged.n_b), *runs)
        assert np.array_equal(cr.path_counters(lat, path), final)
    for _ in range(5):  # any path of runs
        steps = rng.permutation(np.repeat(np.array([0, 1], np.int8), [merged.n_a,
                                                                      merged.n_b]))
        items = cr.expand_merged(steps, *runs)
        assert items.size == lat.n_a + lat.n_b
        # no step of the other group inside a run: the path positions of each run's
        # items are consecutive
        for side, sizes in ((0, runs[0]), (1, runs[1])):
            where = np.flatnonzero(items == side)
            for start, size in zip(np.cumsum(sizes) - sizes, sizes):
                block = where[start:start + size]
                assert np.array_equal(block, np.arange(block[0], block[0] + size))
        assert np.array_equal(cr.path_counters(lat, items), cr.path_counters(merged, steps))


def test_label_runs_are_the_runs_of_equal_labels_in_dp_order():
    """On a lattice of items, the runs of equal labels of each group in DP order; on a
    lattice of tie runs, of rows with the same share of positives."""
    s = np.array([9.0, 8, 7, 6, 5, 4, 9, 8, 7])
    y = np.array([1, 1, 0, 1, 1, 1, 0, 0, 1])
    g = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1])
    lat = cr.build_lattice(s, y, g, "xauc", "signed")
    assert [r.tolist() for r in cr.label_runs(lat)] == [[2, 1, 3], [2, 1]]
    # rows of 1 of 2 and 2 of 4 positives have the same share; 1 of 3 does not
    rows = cr.merged_lattice(lat, np.array([2, 4]), np.array([1, 2]))
    assert [r.tolist() for r in cr.label_runs(rows)] == [[1, 1], [1, 1]]
    even = cr.merged_lattice(lat, np.array([1, 1, 2, 2]), np.array([3]))
    assert [r.tolist() for r in cr.label_runs(even)] == [[2, 1, 1], [1]]


def _signed_value(lat, final, mu):
    _, auc, d = cr.cell_values(final, lat.consts, 0.0, lat.metric, "signed")
    return auc - mu * d


@pytest.mark.parametrize("metric", ["xauc", "prf", "urf"])
@pytest.mark.parametrize("seed", range(6))
def test_label_runs_keep_the_signed_optimum(metric, seed):
    """The signed fill of the lattice of label runs reaches the optimum of ``AUC - mu
    D`` (the lattice's own fill's, and over all interleavings by the exhaustive oracle
    where scores are distinct), for weights of both signs, on lattices of items and of
    tie runs; its expanded path has its final counters."""
    from tests.support.oracles import best_objective

    s, y, g = tied(seed, n=(8, 7)) if seed % 2 else tied(seed, n=(7, 8))
    if seed >= 4:  # distinct scores: a lattice of items
        s = s + np.random.default_rng(seed).permutation(s.size) * 1e-3
    lat = cr.build_lattice(s, y, g, metric, "signed")
    for base in (lat, cr.merged_lattice(lat, cr.tie_runs(s, lat.perm_a),
                                        cr.tie_runs(s, lat.perm_b))):
        sizes = cr.label_runs(base)
        runs = cr.merged_lattice(base, *sizes)
        assert runs.n_cells < base.n_cells or base is not lat
        for mu in (-3.0, -0.4, 0.0, 0.05, 0.7, 5.0):
            words, final = cr.fill(runs, mu)[:2]
            path = cr.expand_merged(cr.traceback(words, runs.n_a, runs.n_b), *sizes)
            assert np.array_equal(cr.path_counters(base, path), final)
            got = _signed_value(base, final, mu)
            want = _signed_value(base, cr.fill(base, mu)[1], mu)
            assert abs(got - want) <= 1e-12, (mu, got, want)
            if seed >= 4 and base is lat:  # the oracle counts tied pairs as ranked
                assert abs(got - best_objective(s, y, g, metric, mu, "signed")) <= 1e-12
