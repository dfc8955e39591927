"""Counter checkpoints (docs/design.md, section 6): lattices filled in bands of rows
give the very same paths and counters as whole lattices, on the NumPy fill and the tiled
twin."""

import numpy as np
import pytest

import cpu_reference as cr
from cpu_reference import _banded
from support.oracles import cellwise_fill
from support.problems import ragged_lattices as lattices
from support.problems import two_group_problem
from support.tile_twin import fill_tiled

METRICS = ("xauc", "prf", "urf")
MODES = ("absolute", "signed")


def whole(lat, lam):
    words, final = cr.fill(lat, lam)
    return cr.traceback(words, lat.n_a, lat.n_b), final


def twin_band_fill(lams, tile_j):
    """``fill_band`` on the tiled twin: the schedule of the CuPy engine's banded solve."""
    def fill_band(band, col0, top, bits):
        out = [fill_tiled(band, lam, tile_j, edges=(col0, top[b]), bottom=band.n_a % 32 == 0)
               for b, lam in enumerate(lams)]
        last = np.stack([o[2] for o in out]) if len(out[0]) == 3 else None
        return [o[0] for o in out], np.stack([o[1] for o in out]), last
    return fill_band


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("mode", MODES)
def test_banded_equals_whole_lattice(metric, mode):
    lams = [0.0, 0.3, 4.0]
    for lat in lattices(metric, mode, len(metric) + len(mode)):
        want = [whole(lat, lam) for lam in lams]
        for band_rows in (32, 64, 96):
            got = cr.solve_banded(lat, len(lams), band_rows, cr.numpy_band_fill(lams))
            for (path, final), (want_path, want_final) in zip(got, want):
                np.testing.assert_array_equal(path, want_path)
                np.testing.assert_array_equal(final, want_final)


@pytest.mark.parametrize("metric", METRICS)
def test_banded_twin_schedule_equals_whole_lattice(metric):
    """The tiled twin in bands (what the GPU runs when the bits do not fit)."""
    lams = [0.0, 2.0]
    for lat in lattices(metric, "absolute", 7):
        if lat.n_a * lat.n_b > 3000:
            continue
        want = [whole(lat, lam) for lam in lams]
        got = cr.solve_banded(lat, len(lams), 32, twin_band_fill(lams, 16))
        for (path, final), (want_path, want_final) in zip(got, want):
            np.testing.assert_array_equal(path, want_path)
            np.testing.assert_array_equal(final, want_final)


@pytest.mark.parametrize("metric", METRICS)
def test_band_fill_edges_and_last_row_match_cellwise_oracle(metric):
    """Rows i0..i1 of a lattice from the oracle's counters of row i0: the band's
    decisions and last row are the oracle's, cell by cell."""
    rng = np.random.default_rng(3)
    s, y, g = two_group_problem(rng, 70, 23, ties=True)
    lat = cr.build_lattice(s, y, g, metric, "absolute")
    col0, _ = cr.edge_counters(lat)
    for lam in (0.0, 1.5):
        dec, counters = cellwise_fill(lat, lam, every_cell=True)
        for i0, i1 in [(0, 32), (32, 64), (32, 70), (64, 70)]:
            band = cr.band_lattice(lat, i0, i1)
            top = counters[i0].T
            words, final, last = cr.fill(band, lam, edges=(col0[:, i0:i1 + 1], top),
                                         bottom=True)
            np.testing.assert_array_equal(cr.bits_to_matrix(words, i1 - i0, lat.n_b),
                                          dec[i0:i1])
            np.testing.assert_array_equal(last, counters[i1].T)
            np.testing.assert_array_equal(final, counters[i1, -1])
            if (i1 - i0) % 32 == 0:
                t_words, _, t_last = fill_tiled(band, lam, 8, bottom=True,
                                                edges=(col0[:, i0:i1 + 1], top))
                np.testing.assert_array_equal(t_words, words)
                np.testing.assert_array_equal(t_last, last)
            no_bits = cr.fill(band, lam, edges=(col0[:, i0:i1 + 1], top), bits=False)
            assert no_bits[0] is None
            np.testing.assert_array_equal(no_bits[1], final)


def test_band_lattice_rows_keep_whole_lattice_counts():
    rng = np.random.default_rng(4)
    s, y, g = two_group_problem(rng, 100, 40)
    lat = cr.build_lattice(s, y, g, "urf", "absolute")
    band = cr.band_lattice(lat, 64, 96)
    assert (band.n_a, band.n_b, band.row_offset) == (32, 40, 64)
    np.testing.assert_array_equal(band.perm_a, lat.perm_a[64:96])
    np.testing.assert_array_equal(band.y_a, lat.y_a[64:96])
    np.testing.assert_array_equal(band.negleft_a, lat.negleft_a[:, 64:97])
    # left_a keeps the whole lattice's counts (the kernels read it): the 4 a items below
    # the band are still to come at its last row
    assert int(band.left_a[0, -1]) == 100 - 96
    np.testing.assert_array_equal(band.left_a, lat.left_a[:, 64:97])
    np.testing.assert_array_equal(band.seq_q, np.zeros(32))
    np.testing.assert_array_equal(band.a_wins_ties, np.zeros(32, dtype=bool))


def test_walk_stops_early_when_path_reaches_column_zero():
    """Group a: 99 positives then a negative, above group b: a positive then negatives.
    At lam 0 the path ends (walking back) by leaving column 0 at row 99, inside the
    bottom band, so pass 2 fills that band only."""
    s = np.concatenate([np.linspace(1.0, 0.6, 100), np.linspace(0.5, 0.1, 30)])
    y = np.array([1] * 99 + [0] + [1] + [0] * 29)
    g = np.array([0] * 100 + [1] * 30)
    lat = cr.build_lattice(s, y, g, "urf", "absolute")
    calls = []
    inner = cr.numpy_band_fill([0.0])

    def counting(band, col0, top, bits):
        calls.append((band.row_offset, bits))
        return inner(band, col0, top, bits)

    (path, final), = cr.solve_banded(lat, 1, 32, counting)
    want_path, want_final = whole(lat, 0.0)
    np.testing.assert_array_equal(path, want_path)
    np.testing.assert_array_equal(final, want_final)
    assert path[:99].tolist() == [0] * 99 and path[99] == 1
    assert calls == [(0, False), (32, False), (64, False), (96, True)]


def test_progress_reports_both_passes():
    rng = np.random.default_rng(5)
    s, y, g = two_group_problem(rng, 100, 60)
    lat = cr.build_lattice(s, y, g, "xauc", "absolute")
    seen = []
    cr.solve_banded(lat, 1, 32, cr.numpy_band_fill([1.0]), lambda d, t: seen.append((d, t)))
    done = [d for d, _ in seen]
    assert done == sorted(done) and seen[-1][0] == seen[-1][1]
    rows = [32, 32, 32, 4]  # the last band is filled once, the others twice
    assert seen[-1][1] == sum(2 * (r + 1) * 61 for r in rows[:-1]) + 5 * 61


def test_plan_bands_takes_the_fewest_bands_that_fit():
    n_a, n_b, k = 1000, 700, 2
    for budget in (10**5, 2 * 10**5, 10**6):
        rows = cr.plan_bands(n_a, n_b, budget, k)
        assert rows % 32 == 0
        assert cr.banded_bytes(n_a, n_b, rows, k) <= budget
        n_bands = -(-n_a // rows)
        # one band fewer (the tallest heights that give it) does not fit
        fewer = [r for r in range(32, 1025, 32) if -(-n_a // r) < n_bands]
        assert all(cr.banded_bytes(n_a, n_b, r, k) > budget for r in fewer)
    whole_bits = cr.n_words(n_a, n_b) * 4
    assert cr.plan_bands(n_a, n_b, whole_bits, k) == 1024  # one band: the whole lattice
    least = cr.least_banded_bytes(n_a, n_b, k)
    assert cr.plan_bands(n_a, n_b, least, k) is not None
    assert cr.plan_bands(n_a, n_b, least - 1, k) is None
    # the GPU keeps checkpoints on the host: only one band's bits count
    assert cr.plan_bands(n_a, n_b, cr.n_words(32, n_b) * 4, k, checkpoints=False) == 32


def test_band_rows_must_be_whole_blocks():
    with pytest.raises(ValueError, match="multiple of 32"):
        _banded.band_bounds(100, 48)
