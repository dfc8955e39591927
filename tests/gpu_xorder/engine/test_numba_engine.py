"""What only the numba engine has, against the NumPy reference: fills without bits,
bands from given edges, its threads' pipeline, its lazy import. The properties
every engine shares (fills, solves, bands, K groups, golden digests) are in
test_engines.py.

Oracle: ``cpu_reference`` (``fill``, ``solve_iterative``), itself checked cell by cell
and by enumeration in tests/cpu_reference/.
"""

import dataclasses
import re
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("numba")

import cpu_reference as cr  # noqa: E402
from gpu_xorder.engine import _numba_engine as ne  # noqa: E402
from support.problems import ragged_lattices as lattices  # noqa: E402
from support.problems import random_problem, step_lattices, two_group_problem  # noqa: E402

METRICS = ("xauc", "prf", "urf")
MODES = ("absolute", "signed")
LAMS = [0.0, 0.3, 1.7, 40.0]


@pytest.mark.parametrize("metric", METRICS)
def test_fill_without_bits(metric):
    for lat in lattices(metric, "absolute", 11):
        words, finals = ne.fill(lat, LAMS, bits=False)
        assert words is None
        np.testing.assert_array_equal(finals, ne.final_counters(lat, LAMS))
        for b, lam in enumerate(LAMS):
            np.testing.assert_array_equal(finals[b], cr.fill(lat, lam, bits=False)[1])


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


def test_signed_step_with_old_groups_is_refused_like_the_reference():
    steps = step_lattices("xauc", (5, 4, 6), False, 0.5)
    signed = dataclasses.replace(steps[-1], mode="signed")
    assert signed.m == 2
    message = re.escape(cr.MSG_SIGNED_TWO.format(n_groups=3))
    with pytest.raises(ValueError, match=message):
        cr.fill(signed, 0.5)
    with pytest.raises(ValueError, match=message):
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


def test_status_and_lazy_import():
    assert ne.available() and ne.status()[1].startswith("numba ")
    ne.smoke_test()
    code = ("import sys, gpu_xorder; from gpu_xorder import fair_order; "
            "from gpu_xorder.engine import _numba_engine; "
            "print('numba' in sys.modules, 'gpu_xorder.engine._numba_kernels' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False"]
