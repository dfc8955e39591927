"""The numba engine against the NumPy reference, decision for decision.

Oracle: ``cpu_reference`` (``fill``, ``traceback``, ``solve_banded``,
``solve_iterative``), itself checked cell by cell and by enumeration in test_dp.py,
test_banded.py and test_iterative.py; and the golden digests of test_golden.py.
"""

import dataclasses
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("numba")

import cpu_reference as cr  # noqa: E402
from gpu_xorder.engine import _numba_engine as ne  # noqa: E402
from gpu_xorder.engine import _plan  # noqa: E402

from support import golden  # noqa: E402
from support.problems import random_problem, two_group_problem  # noqa: E402
from support.problems import ragged_lattices as lattices  # noqa: E402

METRICS = ("xauc", "prf", "urf")
MODES = ("absolute", "signed")
LAMS = [0.0, 0.3, 1.7, 40.0]


def assert_fill_equal(lat, lams, **kw):
    """Words, finals and last rows of one batched numba fill == one NumPy fill per lam."""
    words, finals, last = ne.fill(lat, lams, bottom=True, **kw)
    for b, lam in enumerate(lams):
        want_words, want_final, want_last = cr.fill(lat, lam, bottom=True, **kw)
        np.testing.assert_array_equal(words[b], want_words)
        np.testing.assert_array_equal(finals[b], want_final)
        np.testing.assert_array_equal(last[b], want_last)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("mode", MODES)
def test_fill_equals_reference(metric, mode):
    """Ragged shapes (1 x 1, 33 x 1, 31 x 2, ...), distinct scores and ties inside and
    across groups (four score values), lam 0 and a batch of different lams."""
    for lat in lattices(metric, mode, len(metric) * 3 + len(mode)):
        assert_fill_equal(lat, LAMS)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("mode", MODES)
def test_one_row_one_column_and_several_strips(metric, mode):
    """1 x n and n x 1 lattices, and strips of 128 rows: three strips, the last one
    short, over an axis b shorter than a strip's ramps."""
    rng = np.random.default_rng(8)
    shapes = [(300, 7), (2, 260), (260, 2)]
    if metric == "urf":  # one-item groups have no positive and no negative
        shapes += [(1, 40), (40, 1)]
    for n_a, n_b in shapes:
        s, y, g = two_group_problem(rng, n_a, n_b, ties=True)
        assert_fill_equal(cr.build_lattice(s, y, g, metric, mode), [0.0, 0.9])


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("mode", MODES)
def test_equal_scores_everywhere_tie_every_cell(metric, mode):
    """All scores equal: G-hat ties are everywhere at lam 0 and the b-step must win."""
    rng = np.random.default_rng(3)
    s, y, g = two_group_problem(rng, 45, 38)
    lat = cr.build_lattice(np.zeros_like(s), y, g, metric, mode)
    assert_fill_equal(lat, [0.0, 0.5])


@settings(max_examples=25, deadline=None)
@given(n_a=st.integers(1, 80), n_b=st.integers(1, 80), ties=st.booleans(),
       metric=st.sampled_from(METRICS), mode=st.sampled_from(MODES),
       lam=st.sampled_from([0.0, 0.05, 0.7, 3.0]), seed=st.integers(0, 2**16))
def test_fill_random_shapes(n_a, n_b, ties, metric, mode, lam, seed):
    if metric != "urf":
        n_a, n_b = max(n_a, 2), max(n_b, 2)
    s, y, g = two_group_problem(np.random.default_rng(seed), n_a, n_b, ties)
    assert_fill_equal(cr.build_lattice(s, y, g, metric, mode), [lam])


@pytest.mark.parametrize("metric", METRICS)
def test_final_counters_without_bits(metric):
    for lat in lattices(metric, "absolute", 11):
        got = ne.final_counters(lat, LAMS)
        assert got.shape == (len(LAMS), lat.n_counters) and got.dtype == np.int64
        for b, lam in enumerate(LAMS):
            np.testing.assert_array_equal(got[b], cr.fill(lat, lam, bits=False)[1])
        words, finals = ne.fill(lat, LAMS, bits=False)
        assert words is None
        np.testing.assert_array_equal(finals, got)


@pytest.mark.parametrize("metric", METRICS)
def test_band_edges_equal_reference(metric):
    """A band (rows 64..127 and the last rows) filled from the reference's own
    checkpoint row and first column, one top row per lam."""
    rng = np.random.default_rng(5)
    s, y, g = two_group_problem(rng, 150, 61, ties=True)
    lat = cr.build_lattice(s, y, g, metric, "absolute")
    col0, _ = cr.edge_counters(lat)
    lams = [0.0, 0.8]
    for i0, i1 in ((64, 128), (128, 150)):
        band = cr.band_lattice(lat, i0, i1)
        tops = np.stack([_row_above(lat, lam, i0) for lam in lams])
        words, finals, last = ne.fill(band, lams, edges=(col0[:, i0:i1 + 1], tops),
                                      bottom=True)
        for b, lam in enumerate(lams):
            want = cr.fill(band, lam, edges=(col0[:, i0:i1 + 1], tops[b]), bottom=True)
            np.testing.assert_array_equal(words[b], want[0])
            np.testing.assert_array_equal(finals[b], want[1])
            np.testing.assert_array_equal(last[b], want[2])


def test_edges_of_the_wrong_shape_are_refused():
    lat = next(lattices("xauc", "absolute", 3))
    col0, row0 = cr.edge_counters(lat)
    prefix = ne.MSG_EDGES.split("{")[0]
    with pytest.raises(ValueError, match=prefix):
        ne.fill(lat, [0.5], edges=(col0[:, :-1], row0))
    with pytest.raises(ValueError, match=prefix):
        ne.fill(lat, [0.5, 0.6], edges=(col0, np.stack([row0] * 3)))


def _row_above(lat, lam, i0):
    """int64 counters of row ``i0`` of the whole lattice (the reference's fill of the
    rows above)."""
    return cr.fill(cr.band_lattice(lat, 0, i0), lam, bits=False, bottom=True)[2]


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("mode", MODES)
def test_solve_in_bands_equals_whole_and_reference(metric, mode):
    """A budget under one lattice's bits: bands with checkpoints (a tall lattice, where
    the checkpoint rows are short), as many lams at once as fit."""
    rng = np.random.default_rng(len(metric) + 7 * len(mode))
    s, y, g = two_group_problem(rng, 1500, 30, ties=True)
    lat = cr.build_lattice(s, y, g, metric, mode)
    whole, rows = ne.solve(lat, LAMS)
    assert rows is None
    bits = cr.n_words(lat.n_a, lat.n_b) * 4
    banded, rows = ne.solve(lat, LAMS, memory_limit=bits - 1)
    assert rows is not None and rows < lat.n_a
    reference = cr.solve_banded(lat, len(LAMS), rows, cr.numpy_band_fill(LAMS))
    for (p1, f1), (p2, f2), (p3, f3), lam in zip(whole, banded, reference, LAMS):
        words, final = cr.fill(lat, lam)
        np.testing.assert_array_equal(p1, cr.traceback(words, lat.n_a, lat.n_b))
        np.testing.assert_array_equal(f1, final)
        np.testing.assert_array_equal(p2, p1)
        np.testing.assert_array_equal(f2, f1)
        np.testing.assert_array_equal(p3, p1)
        np.testing.assert_array_equal(f3, f1)


def test_lams_that_fit_only_one_at_a_time():
    """A budget for one lattice's bits: the lams are solved whole, one after the other."""
    s, y, g = two_group_problem(np.random.default_rng(2), 70, 90, ties=True)
    lat = cr.build_lattice(s, y, g, "xauc", "absolute")
    bits = cr.n_words(lat.n_a, lat.n_b) * 4
    got, rows = ne.solve(lat, LAMS, memory_limit=bits)
    assert rows is None
    for (path, final), (want_path, want_final) in zip(got, ne.solve(lat, LAMS)[0]):
        np.testing.assert_array_equal(path, want_path)
        np.testing.assert_array_equal(final, want_final)


def test_memory_limit_below_any_band_is_a_memory_error():
    s, y, g = two_group_problem(np.random.default_rng(2), 70, 90)
    lat = cr.build_lattice(s, y, g, "xauc", "absolute")
    prefix = _plan.MSG_HOST_MEMORY.split("{")[0]
    with pytest.raises(MemoryError, match=prefix):
        ne.solve(lat, [0.5], memory_limit=100)


@pytest.mark.parametrize("metric", METRICS)
def test_traceback_equals_reference(metric):
    for lat in lattices(metric, "absolute", 4):
        words, _ = cr.fill(lat, 0.6)
        np.testing.assert_array_equal(ne.traceback(words, lat.n_a, lat.n_b),
                                      cr.traceback(words, lat.n_a, lat.n_b))


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
def test_iterative_steps_equal_reference(metric, k):
    """Steps with M = 1 .. k - 1 old groups (k = 2: the two-group lattice, both
    orientations), ties included."""
    rng = np.random.default_rng(k * 10 + len(metric))
    for ties in (False, True):
        sizes = tuple(int(v) for v in rng.integers(3, 40, k))
        s, y, g = random_problem(rng, sizes, metric, ties)
        modes = MODES if k == 2 else ("absolute",)
        for mode in modes:
            prob = cr.build_problem(s, y, g, k, metric, mode)
            for lam in (0.0, 0.5, 2.0):
                want = cr.solve_iterative(prob, lam)
                got = ne.solve_multi(prob, lam, "iterative")
                np.testing.assert_array_equal(got[0], want[0])
                assert got[1] == want[1] and got[2] == want[2] and got[4] == want[4]


def test_kd_is_the_reference():
    s, y, g = random_problem(np.random.default_rng(1), (5, 4, 6), "prf", True)
    prob = cr.build_problem(s, y, g, 3, "prf", "absolute")
    got, want = ne.solve_multi(prob, 0.5, "kd"), cr.solve_kd(prob, 0.5)
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1] == want[1] and got[2] == want[2]


def test_signed_step_with_old_groups_is_refused_like_the_reference():
    s, y, g = random_problem(np.random.default_rng(1), (5, 4, 6), "xauc")
    steps = []

    def keep(lat, lam, progress=None):
        steps.append(lat)
        return cr.solve_lattice(lat, lam, progress)

    cr.solve_iterative(cr.build_problem(s, y, g, 3, "xauc", "absolute"), 0.5, solve=keep)
    signed = dataclasses.replace(steps[-1], mode="signed")
    assert signed.m == 2
    with pytest.raises(ValueError, match="one pair of groups"):
        cr.fill(signed, 0.5)
    with pytest.raises(ValueError, match="one pair of groups"):
        ne.fill(signed, [0.5])


@pytest.mark.parametrize("metric", METRICS)
def test_threads_pipeline_equals_one_thread(metric, monkeypatch):
    """Strips of 32 rows, 7 steps per kernel call, three threads on a lam batch and on
    iterative steps: every wait of the pipeline is exercised."""
    rng = np.random.default_rng(9)
    s, y, g = two_group_problem(rng, 150, 90, ties=True)
    lat = cr.build_lattice(s, y, g, metric, "absolute")
    lams = [0.0, 0.4, 3.0]
    want = ne.fill(lat, lams, bottom=True)
    monkeypatch.setattr(ne, "LANES", 32)
    monkeypatch.setattr(ne, "CHUNK_STEPS", 7)
    monkeypatch.setattr(ne, "PARALLEL_CELLS", 0)
    monkeypatch.setattr(ne, "n_threads", lambda: 3)
    seen = []
    got = ne.fill(lat, lams, bottom=True, progress=lambda d, t: seen.append((d, t)))
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    assert seen[-1][0] == seen[-1][1] == len(lams) * lat.n_cells
    assert all(d1 <= d2 for (d1, _), (d2, _) in zip(seen, seen[1:]))
    prob = cr.build_problem(*random_problem(rng, (40, 35, 50), metric, True), 3, metric,
                            "absolute")
    want = cr.solve_iterative(prob, 0.5)
    got = ne.solve_multi(prob, 0.5, "iterative")
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1] == want[1] and got[2] == want[2]


def test_pipeline_error_reaches_the_caller(monkeypatch):
    lat = next(lattices("xauc", "absolute", 1))
    monkeypatch.setattr(ne, "PARALLEL_CELLS", 0)
    monkeypatch.setattr(ne, "n_threads", lambda: 2)

    def broken(*args):
        raise RuntimeError("kernel failed")

    monkeypatch.setattr(ne._Pipeline, "_segment", broken)
    with pytest.raises(RuntimeError, match="kernel failed"):
        ne.fill(lat, [0.5, 0.6])


def test_progress_of_one_thread_reaches_the_total():
    lat = next(lattices("urf", "absolute", 2))
    seen = []
    ne.solve(lat, [0.1, 0.2], progress=lambda d, t: seen.append((d, t)))
    assert seen and seen[-1][0] == seen[-1][1]
    assert all(d <= t for d, t in seen)


def test_golden_digests(monkeypatch):
    """The digests of release 0.3's decisions (test_golden.py), every 2-D fill, banded
    solve and iterative step on the numba engine (K-D stays on the reference)."""

    class Engine:
        def __getattr__(self, name):
            return getattr(cr, name)

        @staticmethod
        def fill(lat, lam, progress=None, **kw):
            out = ne.fill(lat, [lam], progress, **kw)
            return tuple(None if a is None else a[0] for a in out)

        numpy_band_fill = staticmethod(ne.band_fill)

        @staticmethod
        def solve_banded(lat, n, band_rows, fill_band, progress=None):
            return cr.solve_banded(lat, n, band_rows, fill_band, progress,
                                   ne._Walker(lat, n))

        @staticmethod
        def solve_iterative(prob, lam, progress=None):
            return cr.solve_iterative(prob, lam, progress, solve=ne.solve_step)

    got = golden.digests(Engine())
    changed = sorted(k for k in golden.GOLDEN if got[k] != golden.GOLDEN[k])
    assert got.keys() == golden.GOLDEN.keys() and not changed, changed


def test_status_and_lazy_import():
    assert ne.available() and ne.status()[1].startswith("numba ")
    ne.smoke_test()
    code = ("import sys, gpu_xorder; from gpu_xorder import fair_order; "
            "from gpu_xorder.engine import _numba_engine; "
            "print('numba' in sys.modules, 'gpu_xorder.engine._numba_kernels' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False"]
