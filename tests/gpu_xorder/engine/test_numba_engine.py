"""What only the numba engine has, against the NumPy reference: fills without bits,
bands from given edges, its strip pipeline on threads, its lazy import. The properties
every engine shares (fills, solves, bands, K groups, golden digests) are in
test_engines.py.

Oracle: ``cpu_reference`` (``fill``, ``solve_iterative``), itself checked cell by cell
and by enumeration in tests/cpu_reference/.
"""

import dataclasses
import multiprocessing
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

numba = pytest.importorskip("numba")

import cpu_reference as cr  # noqa: E402
from gpu_xorder.engine import _numba_engine as ne  # noqa: E402
from gpu_xorder.engine import _numba_tiles as tiles  # noqa: E402
from gpu_xorder.utils._metrics import MSG_SIGNED_TWO  # noqa: E402
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
    message = re.escape(MSG_SIGNED_TWO.format(n_groups=3))
    with pytest.raises(ValueError, match=message):
        cr.fill(signed, 0.5)
    with pytest.raises(ValueError, match=message):
        ne.fill(signed, [0.5])


def _two_threads(monkeypatch, tile_steps, threads=2, spins=None):
    """Strips of 32 rows, chunks of ``tile_steps`` steps, ``threads`` Python threads on
    every batch (more than the cores: the waits return to sleep), one thread's calls a
    few strips each."""
    monkeypatch.setattr(ne, "LANES", 32)
    monkeypatch.setattr(ne, "BLOCK_LANES", 32)
    monkeypatch.setattr(ne, "TILE_STEPS", tile_steps)
    monkeypatch.setattr(ne, "LEAD_STEPS", tile_steps)
    monkeypatch.setattr(ne, "PARALLEL_CELLS", 0)
    monkeypatch.setattr(ne, "CALL_CELLS", 2000)
    monkeypatch.setattr(ne, "PROGRESS_SECONDS", 0.001)
    if spins is not None:
        monkeypatch.setattr(ne, "SPINS", spins)
    monkeypatch.setattr(ne, "n_threads", lambda: threads)


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("tile_steps, threads, spins",
                         [(7, 2, None), (40, 3, 0), (512, 1, None)])
def test_tiled_wavefront_equals_reference(metric, tile_steps, threads, spins, monkeypatch):
    """The strip pipeline on threads against the reference fill: words, final counters
    and last row of every lam, ties, strips and chunks cut short (7-step chunks: a strip
    waits for the chunk 5 ahead in the strip above; 40 steps on 3 threads, every wait
    returning to sleep at once: the kernel resumes where it waited; one thread: whole
    strips, a few per call), groups of one item; progress to the last cell, never
    back."""
    _two_threads(monkeypatch, tile_steps, threads, spins)
    rng = np.random.default_rng(9 + tile_steps)
    lams = [0.0, 0.4, 3.0]
    for k, (n_a, n_b) in enumerate(((150, 90), (33, 70), (97, 1), (1, 45), (1, 1))):
        s, y, g = two_group_problem(rng, n_a, n_b, ties=k % 2 == 0)
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        seen = []
        words, finals, last = ne.fill(lat, lams, bottom=True,
                                      progress=lambda d, t, seen=seen: seen.append((d, t)))
        for b, lam in enumerate(lams):
            want = cr.fill(lat, lam, bottom=True)
            np.testing.assert_array_equal(words[b], want[0])
            np.testing.assert_array_equal(finals[b], want[1])
            np.testing.assert_array_equal(last[b], want[2])
        assert seen[-1][0] == seen[-1][1] == len(lams) * lat.n_cells
        assert all(d1 <= d2 for (d1, _), (d2, _) in zip(seen, seen[1:]))


def test_an_error_in_progress_stops_the_threads(monkeypatch):
    """An exception in the caller's thread while the strips run (a progress callback,
    Ctrl-C) stops the fill's threads after their chunk and reaches the caller."""
    _two_threads(monkeypatch, 7, threads=3)
    lat = cr.build_lattice(*two_group_problem(np.random.default_rng(1), 400, 300),
                           "xauc", "absolute")
    before = threading.active_count()

    def progress(done, total):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ne.fill(lat, [0.5, 0.7], progress=progress)
    assert threading.active_count() == before
    np.testing.assert_array_equal(ne.fill(lat, [0.5])[0][0], cr.fill(lat, 0.5)[0])


@pytest.mark.parametrize("metric", METRICS)
def test_tiled_wavefront_of_iterative_steps(metric, monkeypatch):
    """Steps with old groups (the block lane passes) on the strip pipeline: the
    reference's iterative solve."""
    _two_threads(monkeypatch, 7)
    rng = np.random.default_rng(4)
    prob = cr.build_problem(*random_problem(rng, (40, 35, 50), metric, True), 3, metric,
                            "absolute")
    want = cr.solve_iterative(prob, 0.5)
    got = ne.solve_multi(prob, 0.5, "iterative")
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1] == want[1] and got[2] == want[2]


def test_threaded_fills_from_two_python_threads_at_once(monkeypatch):
    """Two callers fill on threads at the same time (each fill has its own ticket and
    flags): both get the reference's words."""
    _two_threads(monkeypatch, 7, threads=2)
    rng = np.random.default_rng(8)
    lats = [cr.build_lattice(*two_group_problem(rng, n_a, n_b, ties=True), "urf",
                             "absolute") for n_a, n_b in ((130, 90), (100, 120))]
    got = [None, None]

    def run(k):
        got[k] = ne.fill(lats[k], [0.2, 1.5])

    callers = [threading.Thread(target=run, args=(k,)) for k in range(2)]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join()
    for lat, (words, finals) in zip(lats, got):
        for b, lam in enumerate([0.2, 1.5]):
            want = cr.fill(lat, lam)
            np.testing.assert_array_equal(words[b], want[0])
            np.testing.assert_array_equal(finals[b], want[1])


@pytest.mark.parametrize("lanes, n_a, n_b, width",
                         [(32, 100, 70, 7), (32, 100, 70, 40), (128, 300, 500, 256),
                          (128, 129, 3, 1), (32, 33, 1, 2)])
def test_strip_schedule(lanes, n_a, n_b, width):
    """The chunks of the strips run in random orders that ``needed_step`` allows
    (strips taken in order by 1-4 threads, with and without a lead): no deadlock, and
    every row-buffer column a strip reads (``top[c]`` at step ``c <= n_b``) holds the
    last row of the strip above (written at its step ``c + rows - 1``), not yet
    overwritten by the strip itself (``top[c - rows + 1]`` at step ``c``)."""
    n_strips = -(-n_a // lanes)
    rows = [min(lanes, n_a - s * lanes) for s in range(n_strips)]
    last = [n_b + r - 1 for r in rows]
    rng = np.random.default_rng(lanes + n_a + width)
    for threads, lead in ((1, 0), (2, 0), (4, 0), (2, 2 * width)):
        writer = np.full(n_b + 1, -1)  # strip whose last row top[j] holds
        done = [0] * n_strips  # steps published
        ticket, running = 0, []
        while True:
            while len(running) < threads and ticket < n_strips:
                running.append(ticket)
                ticket += 1
            if not running:
                break
            ready = [s for s in running if s == 0 or done[s - 1] >= tiles.needed_step(
                min(done[s] + 1 + width, last[s] + 1), n_b, lanes, lead)]
            assert ready, "deadlock"
            s = ready[rng.integers(len(ready))]
            c_hi = min(done[s] + 1 + width, last[s] + 1)
            for c in range(done[s] + 1, c_hi):
                if c <= n_b:
                    assert writer[c] == s - 1
                if c >= rows[s]:
                    writer[c - rows[s] + 1] = s
            done[s] = c_hi - 1
            if done[s] == last[s]:
                running.remove(s)
        assert done == last and (writer[1:] == n_strips - 1).all()


def test_the_threads_buffers_start_on_cache_lines():
    """``_on_lines``: zeros of the shape and type asked, starting on a 64-byte line
    whatever the allocator gave (the strips' lane buffers, padded to whole lines, and
    the progress flags: two threads never write one line); many allocations, so an
    unaligned start is met."""
    starts = set()
    for k in range(40):
        lanes = (1 + k % 3, 2 + k % 5, 2, 1 + k % 2, 520)
        for dtype, shape in ((np.float64, lanes), (np.int64, (8 * (k + 1),))):
            buf = ne._on_lines(shape, dtype)
            assert buf.shape == shape and buf.dtype == dtype
            assert buf.ctypes.data % 64 == 0 and buf.flags.c_contiguous
            assert not buf.any()
            starts.add(buf.base.ctypes.data % 64)
    assert len(starts) > 1  # the allocator's own starts vary: the shift was tested


def test_status_and_lazy_import():
    assert ne.available() and ne.status()[1].startswith("numba ")
    ne.smoke_test()
    code = ("import sys, gpu_xorder; from gpu_xorder import fair_order; "
            "from gpu_xorder.engine import _numba_engine; "
            "print('numba' in sys.modules, 'gpu_xorder.engine._numba_kernels' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False"]


def _fill_in_child(lat, lams, queue):
    words, finals = ne.fill(lat, lams)
    queue.put((words, finals))


@pytest.mark.skipif(sys.platform != "linux", reason="fork")
def test_a_forked_child_fills_on_threads(monkeypatch):
    """After a fill on threads, a child forked from this process fills the reference's
    words on threads too (the fill's threads end with it; numba's threading layer,
    whose GNU OpenMP threads a child may not use, is never entered)."""
    _two_threads(monkeypatch, 40)
    s, y, g = two_group_problem(np.random.default_rng(3), 90, 70, ties=True)
    lat = cr.build_lattice(s, y, g, "xauc", "absolute")
    lams = [0.0, 0.6]
    ne.fill(lat, lams)
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_fill_in_child, args=(lat, lams, queue))
    child.start()
    words, finals = queue.get(timeout=120)
    child.join(timeout=60)
    assert child.exitcode == 0
    for b, lam in enumerate(lams):
        want = cr.fill(lat, lam)
        np.testing.assert_array_equal(words[b], want[0])
        np.testing.assert_array_equal(finals[b], want[1])


CACHED_KINDS = """
import numpy as np, cpu_reference as cr
from support.problems import random_problem
from gpu_xorder.engine import _numba_engine as ne
ne.PARALLEL_CELLS = {parallel_cells}
rng = np.random.default_rng(5)
same = []
for metric in ("xauc", "urf", "prf"):
    prob = cr.build_problem(*random_problem(rng, (70, 60, 50), metric, True), 3, metric,
                            "absolute")
    def solve(lat, lam, progress=None):
        words, final = cr.fill(lat, lam)
        got = ne.fill(lat, [lam])
        same.append(bool(np.array_equal(got[0][0], words)
                         and np.array_equal(got[1][0], final)))
        return cr.traceback(words, lat.n_a, lat.n_b), final
    cr.solve_iterative(prob, 0.7, solve=solve)
print(same)
"""


@pytest.mark.parametrize("parallel_cells", [0, 10**12])
def test_kernels_from_the_cache_in_a_new_process(parallel_cells, monkeypatch):
    """Every kind of fill, compiled here (so cached), then loaded from numba's cache by
    a new process, kind after kind, threaded and not, equals the reference: cached
    callers of closures that share a qualified name linked to one another's machine
    code (wrong counters, a corrupted heap) before the tile rounds were inlined."""
    code = CACHED_KINDS.format(parallel_cells=parallel_cells)
    monkeypatch.setattr(ne, "PARALLEL_CELLS", ne.PARALLEL_CELLS)  # the code sets it
    exec(compile(code, "cached_kinds", "exec"), {"__name__": "cached_kinds"})
    tests = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [tests] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True).stdout
    assert out.split()[-1] == "True]" and "False" not in out and out.count("True") == 6
