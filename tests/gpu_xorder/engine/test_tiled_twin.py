"""The NumPy twin of the tiled CUDA schedule equals the reference fill, bit for bit."""

import numpy as np
import pytest

import cpu_reference as cr
from gpu_xorder.engine._launch import tile_schedule
from support.problems import random_problem, two_group_problem
from support.tile_twin import fill_strips, fill_tiled

SHAPES = [(2, 2), (2, 33), (33, 2), (31, 64), (64, 31), (65, 97), (100, 41)]


@pytest.mark.parametrize("metric", ["xauc", "prf", "urf"])
@pytest.mark.parametrize("mode", ["absolute", "signed"])
@pytest.mark.parametrize("tile_j", [1, 32, 40, 128])
def test_twin_equals_reference(metric, mode, tile_j):
    # One-column tiles cost 32 steps per row block and column: the two largest shapes
    # (partial third and fourth row blocks, which (33, 2) and (64, 31) cover on a
    # smaller scale) run for them in test_one_column_tiles_on_larger_lattices.
    _check_twin(metric, mode, tile_j, SHAPES if tile_j > 1 else SHAPES[:5])


@pytest.mark.slow
@pytest.mark.parametrize("metric", ["xauc", "prf", "urf"])
@pytest.mark.parametrize("mode", ["absolute", "signed"])
def test_one_column_tiles_on_larger_lattices(metric, mode):
    _check_twin(metric, mode, 1, SHAPES)


def _check_twin(metric, mode, tile_j, shapes):
    rng = np.random.default_rng(tile_j * 7 + len(metric) + len(mode))
    for k, (n_a, n_b) in enumerate(shapes):
        s, y, g = two_group_problem(rng, n_a, n_b, ties=k % 2 == 1)
        lat = cr.build_lattice(s, y, g, metric, mode)
        for lam in (0.0, 5.0):
            ref_words, ref_final = cr.fill(lat, lam)
            words, final = fill_tiled(lat, lam, tile_j)
            np.testing.assert_array_equal(words, ref_words)
            np.testing.assert_array_equal(final, ref_final)


def test_schedule_covers_every_tile_once():
    n_a, n_b, tile_j = 100, 70, 16
    seen = [(r, k - r) for k, r0, n in tile_schedule(n_a, n_b, tile_j)
            for r in range(r0, r0 + n)]
    n_r, n_j = -(-n_a // 32), -(-n_b // tile_j)
    assert sorted(seen) == [(r, j) for r in range(n_r) for j in range(n_j)]
    # a tile's top and left neighbours come in earlier launches
    when = {}
    for step, (k, r0, n) in enumerate(tile_schedule(n_a, n_b, tile_j)):
        for r in range(r0, r0 + n):
            when[(r, k - r)] = step
    for (r, j), step in when.items():
        assert r == 0 or when[(r - 1, j)] < step
        assert j == 0 or when[(r, j - 1)] < step
    assert len(tile_schedule(n_a, n_b, tile_j)) == n_r + n_j - 1


@pytest.mark.parametrize("metric", ["xauc", "prf", "urf"])
def test_twin_fills_iterative_steps_like_the_reference(metric):
    """The tile schedule serves iterative steps too: every step of a 4-group problem
    (ties included, so the tie rule of the merged items is exercised) by the twin
    equals the reference fill's words and final counters."""
    rng = np.random.default_rng(3 + len(metric))
    s, y, g = random_problem(rng, (37, 20, 12, 9), metric, ties=True)
    prob = cr.build_problem(s, y, g, 4, metric, "absolute")
    seen = []

    def solve(lat, lam, progress):
        words, final = cr.fill(lat, lam)
        t_words, t_final = fill_tiled(lat, lam, 16)
        np.testing.assert_array_equal(t_words, words)
        np.testing.assert_array_equal(t_final, final)
        seen.append(lat.m)
        return cr.traceback(words, lat.n_a, lat.n_b), final

    for lam in (0.0, 0.8):
        cr.solve_iterative(prob, lam, solve=solve)
    assert seen == [1, 2, 3] * 2


@pytest.mark.parametrize("metric", ["xauc", "prf", "urf"])
@pytest.mark.parametrize("n_warps", [1, 2, 5])
def test_strip_schedule_equals_reference(metric, n_warps):
    """The persistent kernel's schedule (strips of 32 rows handed out in order, progress
    flags every ``chunk`` columns, one shared row buffer), in random interleavings of
    fewer warps than strips: the reference fill's words, final counters and last row,
    and no deadlock."""
    rng = np.random.default_rng(11 + n_warps)
    for n_a, n_b, chunk in ((96, 45, 8), (70, 33, 32), (128, 9, 4), (5, 60, 16)):
        s, y, g = two_group_problem(rng, n_a, n_b, ties=True)
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        for lam in (0.0, 0.9):
            words, final, *last = cr.fill(lat, lam, bottom=n_a % 32 == 0)
            got = fill_strips(lat, lam, chunk, n_warps, bottom=n_a % 32 == 0,
                              seed=n_a + n_b)
            np.testing.assert_array_equal(got[0], words)
            np.testing.assert_array_equal(got[1], final)
            if last:
                np.testing.assert_array_equal(got[2], last[0])
