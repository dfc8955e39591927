"""The self-check of the GPU engine at first use (docs/design.md, section 7).

Before the CuPy backend is used in a process, ``run`` solves a few small lattices on
the device, chosen to reach every compiled variant a solve may take (every metric and
mode, ties and lam 0, ragged shapes, an iterative step, a banded solve, a K-D lattice,
the strip kernel where it is the default) through the engine's own entry points, and
compares them with the NumPy reference decision for decision: decision words, final
counters and paths. The first difference makes the backend unusable
(``_backend.cupy_status``). Device-neutral: ``engine`` is ``_cupy_engine``, or in the
tests the same module over an emulated device.
"""

import dataclasses
import time

import numpy as np

import cpu_reference as cr

from . import _launch
from . import _plan

#: The whole-lattice cases, one per metric and mode: ragged shapes (last row block and
#: column tile partial, a lattice narrower than a warp, two rows), scores from four
#: values (ties, and G-hat ties at lam 0).
WHOLE = (("xauc", "absolute", (70, 150)), ("xauc", "signed", (129, 95)),
         ("prf", "absolute", (150, 70)), ("prf", "signed", (33, 200)),
         ("urf", "absolute", (64, 31)), ("urf", "signed", (2, 45)))
LAMS = (0.0, 0.5, 4.0)
SEED = 20


@dataclasses.dataclass(frozen=True)
class Mismatch:
    """The first difference from the NumPy reference: the case, its metric and mode,
    the lam value and what differed."""

    case: str
    metric: str
    mode: str
    lam: float
    what: str

    def __str__(self):
        return f"{self.case} ({self.metric}, {self.mode}, lam {self.lam:g}): {self.what}"


@dataclasses.dataclass(frozen=True)
class Report:
    """What ``run`` found: the 2-D kernel checked, the lattices solved, the seconds it
    took (compiles included) and the first mismatch (None: every decision agreed)."""

    kernel: str
    lattices: int
    seconds: float
    mismatch: Mismatch | None = None

    @property
    def ok(self):
        return self.mismatch is None

    def summary(self):
        if self.ok:
            return (f"passed: {self.lattices} lattices ({self.kernel} kernel) equal to "
                    f"NumPy in {self.seconds:.2f} s")
        return f"FAILED: {self.mismatch}"


class _Found(Exception):
    def __init__(self, mismatch):
        self.mismatch = mismatch


def run(engine):
    """Solve the self-check's lattices with ``engine`` and compare them with
    ``cpu_reference``; returns a ``Report``. Errors of the device (a compile, a launch)
    propagate."""
    start = time.perf_counter()
    kernel = engine.default_kernel()
    rng = np.random.default_rng(SEED)
    checks = [(f"{metric} {mode} {n_a}x{n_b}", metric, mode, _whole, (n_a, n_b))
              for metric, mode, (n_a, n_b) in WHOLE]
    if kernel == "strips":
        checks.append(("strips, one block for 15 strips", "xauc", "absolute", _one_block,
                       (150, 70)))
    checks += [("banded urf 100x60, 32-row bands", "urf", "absolute", _banded, (100, 60)),
               ("iterative steps xauc 40+30+20", "xauc", "absolute", _steps, (40, 30, 20)),
               ("K-D xauc 6x5x7", "xauc", "absolute", _kd, (6, 5, 7))]
    lattices = 0
    try:
        for name, metric, mode, check, shape in checks:
            lattices += check(engine, rng, name, metric, mode, shape)
    except _Found as found:
        return Report(kernel, lattices, time.perf_counter() - start, found.mismatch)
    return Report(kernel, lattices, time.perf_counter() - start)


# ------------------------------------------------------------------ inputs

def problem(rng, sizes, ties=True):
    """Scores (from four values with ``ties``), labels with a positive first and a
    negative last in every group, and shuffled group indices 0 .. len(sizes) - 1."""
    g = rng.permutation(np.repeat(np.arange(len(sizes)), sizes))
    s = rng.integers(0, 4, g.size).astype(float) if ties else rng.random(g.size)
    y = rng.integers(0, 2, g.size)
    for k in range(len(sizes)):
        idx = np.flatnonzero(g == k)
        y[idx[0]], y[idx[-1]] = 1, 0
    return s, y, g


# ------------------------------------------------------------------ comparisons

def _words(case, lat, lam, got, want):
    """The first cell whose decision bit differs, named by its row and column."""
    if got.shape != want.shape:
        raise _Found(Mismatch(case, lat.metric, lat.mode, lam,
                              f"{got.size} decision words, NumPy has {want.size}"))
    diff = np.flatnonzero(got != want)
    if diff.size:
        w = int(diff[0])
        x = int(got[w]) ^ int(want[w])
        t = (x & -x).bit_length() - 1  # the lowest differing bit: the lane
        r, c = divmod(w, lat.n_b + _launch.BLOCK - 1)  # the layout of cpu_reference
        raise _Found(Mismatch(case, lat.metric, lat.mode, lam,
                              f"decision of cell ({32 * r + t + 1}, {c - t + 1}) differs "
                              f"(word {w}, {diff.size} words differ)"))


def _same(case, lat, lam, what, got, want):
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or not np.array_equal(got, want):
        detail = (f"rank {int(np.flatnonzero(got != want)[0])}"
                  if what == "path" and got.shape == want.shape else
                  f"{got.tolist()} against NumPy's {want.tolist()}")
        raise _Found(Mismatch(case, lat.metric, lat.mode, lam, f"{what} differs: {detail}"))


# ------------------------------------------------------------------ cases

def _whole(engine, rng, case, metric, mode, shape):
    """The engine's whole-lattice fill and device traceback of a batch of lam values."""
    s, y, g = problem(rng, shape)
    lat = cr.build_lattice(s, y, g, metric, mode)
    words, final = engine.fill(lat, LAMS)
    return _compare_fill(engine, case, lat, LAMS, words, final)


def _one_block(engine, rng, case, metric, mode, shape):
    """The strip kernel on a grid of one block, fewer warps than strips: warps take
    several strips and wait on strips of later waves."""
    s, y, g = problem(rng, shape)
    lat = cr.build_lattice(s, y, g, metric, mode)
    chunk = _plan.strip_chunk(lat)
    words, final = _launch.fill_strips(engine.DEVICE, lat, LAMS, chunk, blocks=1)
    return _compare_fill(engine, case, lat, LAMS, words, final)


def _compare_fill(engine, case, lat, lams, words, final):
    paths = engine.DEVICE.get(engine.traceback(lat, words))
    words, final = engine.DEVICE.get(words), engine.DEVICE.get(final)
    for b, lam in enumerate(lams):
        ref_words, ref_final = cr.fill(lat, lam)
        _words(case, lat, lam, words[b], ref_words)
        _same(case, lat, lam, "final counters", final[b], ref_final)
        _same(case, lat, lam, "path", paths[b], cr.traceback(ref_words, lat.n_a, lat.n_b))
    return len(lams)


def _banded(engine, rng, case, metric, mode, shape):
    """The engine's solve in 32-row bands (checkpoints, band walks on the device)."""
    s, y, g = problem(rng, shape, ties=False)
    lat = cr.build_lattice(s, y, g, metric, mode)
    lams = LAMS[:2]
    limit = len(lams) * cr.n_words(32, lat.n_b) * 4
    solutions, band_rows = engine.solve(lat, lams, memory_limit=limit)
    assert band_rows == 32, band_rows  # the case must reach the banded solve
    for lam, (path, final) in zip(lams, solutions):
        ref_words, ref_final = cr.fill(lat, lam)
        _same(case, lat, lam, "final counters", final, ref_final)
        _same(case, lat, lam, "path", path, cr.traceback(ref_words, lat.n_a, lat.n_b))
    return len(lams)


def _steps(engine, rng, case, metric, mode, sizes):
    """Every step of iterative xOrder (one and two old groups) on the engine's fill."""
    s, y, g = problem(rng, sizes)
    prob = cr.build_problem(s, y, g, len(sizes), metric, mode)
    lam = LAMS[1]

    def solve(lat, lam, progress=None):
        ref_words, ref_final = cr.fill(lat, lam)
        words, final = engine.fill(lat, [lam])
        step = f"{case}, step of {lat.m} old group(s)"
        _words(step, lat, lam, engine.DEVICE.get(words)[0], ref_words)
        _same(step, lat, lam, "final counters", engine.DEVICE.get(final)[0], ref_final)
        return cr.traceback(ref_words, lat.n_a, lat.n_b), ref_final

    cr.solve_iterative(prob, lam, solve=solve)
    return len(sizes) - 1


def _kd(engine, rng, case, metric, mode, sizes):
    """The K-D hyperplane kernel and its traceback."""
    s, y, g = problem(rng, sizes)
    prob = cr.build_problem(s, y, g, len(sizes), metric, mode)
    lam = LAMS[1]
    path, c, u, _ = engine.solve_multi(prob, lam, "kd")
    ref_path, ref_c, ref_u, _ = cr.solve_kd(prob, lam)
    _same(case, prob, lam, "path", path, ref_path)
    for what, got, want in (("C counters", c, ref_c), ("U counters", u, ref_u)):
        pairs = sorted(want)
        _same(case, prob, lam, what, [got.get(p) for p in pairs], [want[p] for p in pairs])
    return 1
