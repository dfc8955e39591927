"""The self-checks of the GPU engine (docs/design.md, section 7).

Two layers, both comparing the device with the NumPy reference decision for decision
(decision words, final counters, paths):

- ``check_variant``: every compiled kernel variant (kernel, metric, mode, old groups,
  tile width or chunk) solves a small lattice of its own kind before its first use in
  a process (``_cupy_engine.check_variant``), so that no variant a user can reach runs
  unchecked; a difference raises.
- ``run``, before the CuPy backend is first used in a process: the launch geometry
  and the paths between kernels, through the engine's own entry points: every metric
  and mode (ties, lam 0, ragged shapes), a launch of several blocks per tile diagonal,
  a batch of lam values past the grid's 65535 lattices, iterative steps of one to three
  old groups for every metric, a banded solve, K-D for every metric, the device sort,
  the strip kernel where it is the default. The first difference makes the backend
  unusable (``_backend.cupy_status``).

Device-neutral: ``engine`` is ``_cupy_engine``, or in the tests the same module over an
emulated device.
"""

import dataclasses
import functools
import time

import numpy as np

import cpu_reference as cr

from ..utils._metrics import METRIC_NAMES
from . import _launch, _plan
from ._kernel_source import METRIC_CODE

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
    propagate. The kernels it launches are compiled at once first
    (``_cupy_engine.prepare``)."""
    start = time.perf_counter()
    kernel = engine.default_kernel()
    rng = np.random.default_rng(SEED)
    checks = [(f"{metric} {mode} {n_a}x{n_b}", metric, mode, _whole, (n_a, n_b))
              for metric, mode, (n_a, n_b) in WHOLE]
    if kernel == "strips":
        checks.append(("strips, one block for 15 strips", "xauc", "absolute", _one_block,
                       (150, 70)))
    checks += [("xauc 200x700, several blocks per tile diagonal", "xauc", "absolute",
                _whole, (200, 700)),
               (f"{BIG_BATCH} lam values of a 5x6 lattice", "xauc", "absolute", _big_batch,
                (5, 6)),
               ("banded urf 100x60, 32-row bands", "urf", "absolute", _banded, (100, 60)),
               ("device sort of 3000 scores, 3 groups", "xauc", "absolute", _sort, (3000, 3))]
    checks += [(f"iterative steps {metric} 40+30+20+10", metric, "absolute", _steps,
                (40, 30, 20, 10)) for metric in METRICS]
    checks += [(f"K-D {metric} 6x5x7", metric, "absolute", _kd, (6, 5, 7))
               for metric in METRICS]
    lattices = 0
    try:
        engine.prepare(_run_variants(kernel))
        for name, metric, mode, check, shape in checks:
            lattices += check(engine, rng, name, metric, mode, shape)
    except (_Found, engine.KernelCheckError) as found:  # a case, or a variant's check
        return Report(kernel, lattices, time.perf_counter() - start, found.mismatch)
    return Report(kernel, lattices, time.perf_counter() - start)


METRICS = METRIC_NAMES

#: Lam values of the batch check: past the grid's 65535 lattices of one launch.
BIG_BATCH = _launch.MAX_GRID_Y + 3


def _run_variants(kernel):
    """The kernel variants ``run`` launches (compiled at once before it starts)."""
    out = []
    for metric in METRICS:
        out += _plan.fill_variants(metric, "signed", 2, kernel=kernel)
        out += _plan.fill_variants(metric, "absolute", 4, sizes=(10, 20, 30, 40),
                                   kernel=kernel)
        out += _plan.kd_variants(metric)
    return out


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


def _big_batch(engine, rng, case, metric, mode, shape):
    """One fill of ``BIG_BATCH`` lattices (three lam values over and over): the tile
    kernel's launches split the batch at the grid's 65535; every lattice's words, final
    counters and device path equal NumPy's of its lam."""
    s, y, g = problem(rng, shape)
    lat = cr.build_lattice(s, y, g, metric, mode)
    which = np.arange(BIG_BATCH) % len(LAMS)
    words, final = engine.fill(lat, np.asarray(LAMS)[which])
    paths = engine.DEVICE.get(engine.traceback(lat, words))
    words, final = engine.DEVICE.get(words), engine.DEVICE.get(final)
    for k, lam in enumerate(LAMS):
        ref_words, ref_final = cr.fill(lat, lam)
        ref_path = cr.traceback(ref_words, lat.n_a, lat.n_b)
        for what, got, want in (("decision words", words, ref_words),
                                ("final counters", final, ref_final),
                                ("path", paths, ref_path)):
            bad = np.flatnonzero((got[which == k] != want).any(axis=1))
            if bad.size:
                raise _Found(Mismatch(case, metric, mode, lam, (
                    f"{what} of lattice {int(np.flatnonzero(which == k)[bad[0]])} differ "
                    f"({bad.size} lattices)")))
    return BIG_BATCH


def _sort(engine, rng, case, metric, mode, shape):
    """The device's sort into DP order (``_cupy_engine.dp_orders``) against NumPy's stable
    sort: ties, ``-0.0`` beside ``0.0``, groups interleaved."""
    n, k = shape
    s = rng.integers(-3, 4, n) / 2.0
    s[rng.random(n) < 0.1] = -0.0
    g = rng.integers(0, k, n)
    got = engine.dp_orders(s, g, k)
    for group in range(k):
        idx = np.flatnonzero(g == group)
        want = idx[cr.dp_order(s[idx])]
        if not np.array_equal(got[group], want):
            raise _Found(Mismatch(case, metric, mode, 0.0,
                                  f"group {group}'s order differs from NumPy's"))
    return 0


# ------------------------------------------------------------------ every variant

#: The metric of a ``METRIC`` constant.
METRIC_OF_CODE = {code: metric for metric, code in METRIC_CODE.items()}

def describe(name, const):
    """The variant's constants in words, e.g. ``"urf, absolute, 3 old groups, tiles of
    64 columns"``."""
    words = []
    if "METRIC" in const:
        words.append(METRIC_OF_CODE[const["METRIC"]])
    if "SIGNED" in const:
        words.append("signed" if const["SIGNED"] else "absolute")
    if "OLD_GROUPS" in const:
        words.append(f"{const['OLD_GROUPS']} old group(s)")
    if "TILE_J" in const:
        words.append(f"tiles of {const['TILE_J']} columns")
    if "CHUNK" in const:
        words.append(f"chunks of {const['CHUNK']} steps")
    return ", ".join(words) or "no constants"


def check_variant(engine, name, const):
    """The first difference from NumPy (a ``Mismatch``) when the variant ``(name,
    const)`` solves a small lattice of its own kind (its metric, mode and old groups;
    ties, lam 0, URF weights on U), or None. Fill variants: decision words and final
    counters of three lam values; the traceback kernels: paths of NumPy's words and of
    a banded solve; K-D: path and counters."""
    metric = METRIC_OF_CODE[const.get("METRIC", 0)]
    case = f"{name} ({describe(name, const)})"
    try:
        if name in ("tile_kernel", "strip_kernel"):
            _variant_fill(engine, case, name, const, metric)
        elif name == "traceback_kernel":
            lat, refs = _variant_lattice("xauc", "absolute", 1)
            words = engine.DEVICE.asarray(np.stack([w for w, _ in refs]))
            paths = engine.DEVICE.get(_launch.traceback(engine.DEVICE, words, lat.n_a,
                                                        lat.n_b))
            for b, (lam, (ref_words, _)) in enumerate(zip(LAMS, refs)):
                _same(case, lat, lam, "path", paths[b],
                      cr.traceback(ref_words, lat.n_a, lat.n_b))
        elif name == "band_traceback_kernel":
            _banded(engine, np.random.default_rng(SEED), case, "prf", "absolute", (70, 40))
        else:  # the K-D pair
            _kd(engine, np.random.default_rng(SEED), case, metric, "absolute", (4, 3, 5))
    except _Found as found:
        return found.mismatch
    return None


def _variant_fill(engine, case, name, const, metric):
    mode = "signed" if const["SIGNED"] else "absolute"
    m = const["OLD_GROUPS"]
    lat, refs = _variant_lattice(metric, mode, m)
    kernel, width = (("tiles", const["TILE_J"]) if name == "tile_kernel" else
                     ("strips", const["CHUNK"]))
    assert _launch.fill_variant(lat, kernel, width) == (name, const), const
    words, final = _launch.fill(engine.DEVICE, lat, LAMS, kernel, width)
    words, final = engine.DEVICE.get(words), engine.DEVICE.get(final)
    for b, (lam, (ref_words, ref_final)) in enumerate(zip(LAMS, refs)):
        _words(case, lat, lam, words[b], ref_words)
        _same(case, lat, lam, "final counters", final[b], ref_final)


@functools.lru_cache(maxsize=None)
def _variant_lattices(metric, mode, k):
    """``{M: lattice}``: the steps of iterative xOrder of ``k`` small groups (problem
    of runs: scores with ties, so URF's weights on U are not all 1), M old groups each;
    for two groups the lattice of runs of ``k = 2``."""
    rng = np.random.default_rng(SEED + k)
    sizes = tuple(int(v) for v in rng.integers(5, 12, k))
    s, y, g = problem(rng, sizes)
    prob = cr.runs_problem(cr.build_problem(s, y, g, k, metric, mode), s)
    lattices = {}

    def solve(lat, lam, progress=None):
        lattices[lat.m] = lat
        return cr.solve_lattice(lat, lam)

    cr.solve_iterative(prob, LAMS[1], solve=solve)
    return lattices


@functools.lru_cache(maxsize=None)
def _variant_lattice(metric, mode, m):
    """A step lattice of ``m`` old groups (the last step of ``m + 1`` groups: the
    first-use checks of small ``m`` solve only the steps they need) and NumPy's
    ``(words, final)`` at ``LAMS``."""
    lat = _variant_lattices(metric, mode, m + 1)[m]
    return lat, [cr.fill(lat, lam) for lam in LAMS]
