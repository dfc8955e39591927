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
