"""Memory planning and method choice, for every engine (docs/design.md, sections 4, 6
and 9): which K-group method runs, what a solve needs, whether its decision bits fit
whole or in bands of rows (host memory on the CPU, device memory for the GPU), the tile
width of the GPU fill, and time estimates of the NumPy reference's work."""

import numpy as np

import cpu_reference as cr

from ..utils import _parallel
from ..utils._memory import host_memory_available
from ..utils._metrics import METRIC_NAMES
from ._kernel_source import MAX_OLD_GROUPS, SHARED_BYTES, constants, strip_warps
from ._launch import MSG_KD_GROUPS, MSG_OLD_GROUPS

#: ``method="auto"`` with more than two groups runs the K-D DP (the whole lattice) up to
#: this many lattice cells, prod(n_g + 1), and iterative xOrder beyond.
KD_MAX_CELLS = 10**8

#: With ``memory_limit=None`` the NumPy backend lets the decision bits take this share
#: of the host memory available when the call starts.
HOST_MEMORY_SHARE = 0.75

MSG_HOST_MEMORY = (
    "the {n_a} x {n_b} xOrder lattice does not fit in {budget:.3g} GiB ({source}), not "
    "even in bands of rows with counter checkpoints (at least {least:.3g} GiB); "
    "subsample each group (XOrder(subsample=k), docs/design.md, section 6)"
)

#: Columns of a tile of ``tile_kernel`` (two groups): 64 was faster than 128 at 10^4,
#: 3 x 10^4 and 10^5 per group on an H200 (benchmarks/RESULTS.md, 2026-11-28).
DEFAULT_TILE_J = 64

MSG_DEVICE_MEMORY = (
    "the xOrder lattice needs {need:.2f} GiB of device memory but {free:.2f} GiB is free "
    "({n_a} x {n_b} cells, {batch} lam value(s)); subsample each group (learn the "
    "ordering on every k-th item, docs/design.md, section 6) or pass fewer lam values "
    "at once"
)
MSG_DEVICE_MEMORY_MULTI = (
    "{method} xOrder of groups of sizes {sizes} needs {need:.2f} GiB of device memory but "
    "{free:.2f} GiB is free; use method='iterative' or subsample each group"
)


# ------------------------------------------------------------------ choices

def choose_method(method, sizes, memory_limit=None):
    """The K-group method that runs: ``"auto"`` is K-D up to ``KD_MAX_CELLS`` cells while
    its bits fit ``memory_limit``, else iterative."""
    if method != "auto":
        return method
    if cr.kd_cells(sizes) > KD_MAX_CELLS:
        return "iterative"
    if memory_limit is not None and decision_bytes(sizes, "kd") > memory_limit:
        return "iterative"
    return "kd"


def kernel_refusal(method, k, max_old_groups, max_kd_groups):
    """Why an engine's kernels cannot run the K-group ``method`` on ``k`` groups
    (iterative steps merge at most ``max_old_groups`` groups into the next; K-D takes at
    most ``max_kd_groups``; None: no limit), or None."""
    if method == "iterative" and max_old_groups is not None and k > max_old_groups + 1:
        return MSG_OLD_GROUPS.format(most=max_old_groups, all=max_old_groups + 1, k=k)
    if method == "kd" and max_kd_groups is not None and k > max_kd_groups:
        return MSG_KD_GROUPS.format(most=max_kd_groups, k=k)
    return None


def decision_bytes(sizes, method):
    """Bytes of decision bits a K-group method keeps at once: ``ceil(log2 K)`` bits per
    cell of the K-D lattice, or the words of the largest iterative step."""
    if method == "kd":
        planes = max(1, (len(sizes) - 1).bit_length())
        return planes * -(-cr.kd_cells(sizes) // 8)
    return max(cr.n_words(m, n) * 4 for m, n in cr.step_shapes(sizes))


# ------------------------------------------------------------------ host memory (NumPy)

def host_budget(memory_limit):
    """``(bytes, what they are)`` the NumPy backend's decision bits may take: the
    ``memory_limit`` given, else a share of the available host memory (None where it
    cannot be read)."""
    if memory_limit is not None:
        return memory_limit, "memory_limit"
    available = host_memory_available()
    budget = None if available is None else int(HOST_MEMORY_SHARE * available)
    return budget, f"{HOST_MEMORY_SHARE:.0%} of the available host memory"


def numpy_plan(lat, batch, memory_limit, n_jobs=1):
    """``(band_rows, n_workers)`` of ``batch`` NumPy fills of ``lat``: whole lattices
    (``band_rows`` None) while their decision bits fit the host budget, else bands with
    counter checkpoints; as many lattices at once (worker processes) as ``n_jobs`` and
    the budget allow, fewer at once rather than no plan. ``MemoryError`` when not even
    32-row bands fit."""
    budget, source = host_budget(memory_limit)
    bits = cr.n_words(lat.n_a, lat.n_b) * 4
    most = _parallel.workers(n_jobs, batch)
    if budget is None or bits <= budget:
        return None, most if budget is None else max(1, min(most, budget // bits))
    for n_workers in range(most, 0, -1):
        band_rows = cr.plan_bands(lat.n_a, lat.n_b, budget // n_workers, lat.n_counters)
        if band_rows is not None:
            return band_rows, n_workers
    least = cr.least_banded_bytes(lat.n_a, lat.n_b, lat.n_counters)
    raise MemoryError(MSG_HOST_MEMORY.format(
        n_a=lat.n_a, n_b=lat.n_b, budget=budget / 2**30, source=source,
        least=least / 2**30))


# ------------------------------------------------------------------ device memory (GPU)

class DeviceMemoryError(MemoryError):
    """The lattice does not fit in the free device memory."""


#: Tiles a tile diagonal should hold to keep an H100 busy: two warps per multiprocessor.
BUSY_TILES = 2 * 132


def tile_width(lat):
    """Columns of a tile. Two groups: ``DEFAULT_TILE_J`` (the speed table's best). An
    iterative step, whose axis b (one group) is short beside its axis a, runs at most
    ``n_b / tile_j`` tiles at once: 32 where 64 would leave the device idle
    (``benchmarks/multi_table.py``: 32 and 64 within 6% at 8 x 2 x 10^4, 128 slower).
    Fewer where one warp's staged columns (``(2 + n_counters) * 8`` bytes each) would not
    fit the shared memory."""
    return _tile_width(lat.m, lat.n_b, lat.n_counters)


def _tile_width(m, n_b, n_counters):
    tile_j = DEFAULT_TILE_J
    if m > 1:
        while tile_j > 32 and n_b < tile_j * BUSY_TILES:
            tile_j //= 2
    while tile_j > 1 and (2 + n_counters) * 8 * tile_j > SHARED_BYTES:
        tile_j //= 2
    return tile_j


def fill_variants(metric, mode="absolute", k=2, sizes=None, kernel="tiles", chunk=None):
    """``[(kernel name, constants), ...]``: every compiled variant the fills of a fit of
    ``k`` groups can launch (``_kernel_source.constants``), for ``kernel`` ``"tiles"``
    or ``"strips"``: two groups, one fill variant; iterative steps, one per number of
    old groups M = 1 .. k - 1 and tile width (``tile_width``; over ``sizes``, the groups'
    sizes, or every width where None), and the tracebacks. What a fit compiles at once
    and ``gpu-xorder info --warm`` compiles for every metric."""
    per_pair = cr.COUNTER_KINDS[metric].per_pair
    signed = mode == "signed"
    out = [("traceback_kernel", {}), ("band_traceback_kernel", {})]
    for m in range(1, k):
        n_counters = per_pair * m
        if kernel == "strips":
            out.append(("strip_kernel", constants("strip_kernel", metric, signed, m,
                                                  chunk=_strip_chunk(chunk, n_counters))))
            continue
        # n_b in each width's range where the sizes are not known
        spans = sizes if sizes is not None else [32 * BUSY_TILES * f for f in (1, 2, 4)]
        for width in sorted({_tile_width(m, n_b, n_counters) for n_b in spans}):
            out.append(("tile_kernel", constants("tile_kernel", metric, signed, m, width)))
    return _unique(out)


def kd_variants(metric):
    """The K-D DP's two kernels for ``metric``."""
    return [(name, constants(name, metric)) for name in ("kd_plane_kernel",
                                                          "kd_traceback_kernel")]


def every_variant(metrics=METRIC_NAMES, kernels=("tiles", "strips")):
    """Every variant a fit can reach with the engine's own choices (no ``tile_j`` or
    ``chunk`` of the caller's): both modes of two groups, iterative steps of 1 ..
    ``MAX_OLD_GROUPS`` old groups at every width, K-D, tracebacks."""
    out = []
    for metric in metrics:
        for kernel in kernels:
            out += fill_variants(metric, "signed", 2, kernel=kernel)
            out += fill_variants(metric, "absolute", MAX_OLD_GROUPS + 1, kernel=kernel)
        out += kd_variants(metric)
    return _unique(out)


def _unique(variants):
    seen, out = set(), []
    for name, const in variants:
        key = (name, tuple(sorted(const.items())))
        if key not in seen:
            seen.add(key)
            out.append((name, const))
    return out


#: Least compute capability (major * 10 + minor) of ``strip_kernel``: acquire/release
#: loads and ``__nanosleep`` are sm_70's.
STRIPS_MIN_CAPABILITY = 70

MSG_STRIPS_CAPABILITY = (
    "kernel='strips' needs a device of compute capability 7.0 or newer, this one is "
    "{major}.{minor}; use kernel='tiles'")


def choose_kernel(kernel, default, capability):
    """The 2-D fill that runs on a device of compute ``capability`` (e.g. 90): ``kernel``
    (None: ``default``); the tile kernel where the default is the strip kernel and the
    device is older than ``STRIPS_MIN_CAPABILITY``, a ``ValueError`` where ``"strips"``
    was asked for there."""
    if capability >= STRIPS_MIN_CAPABILITY:
        return default if kernel is None else kernel
    if kernel is None:
        return "tiles" if default == "strips" else default
    if kernel == "strips":
        raise ValueError(MSG_STRIPS_CAPABILITY.format(major=capability // 10,
                                                      minor=capability % 10))
    return kernel


#: Steps between the strip kernel's waits on the strip above. Strip r starts the chunk
#: at s0 once strip r - 1 has published s0 + chunk columns, which its lane 31 stores 31
#: steps after its lane 0: the wavefront's lag per strip is chunk * ceil((chunk + 31) /
#: chunk) steps (64 at 32, 128 at 64), on the critical path n_strips times; longer
#: chunks wait less often. A guess until a device run measures 16..128.
DEFAULT_CHUNK = 32


def strip_chunk(lat, chunk=None):
    """Steps per chunk of ``strip_kernel``: ``chunk`` (default ``DEFAULT_CHUNK``), halved
    while not even one warp's staged window fits the shared memory."""
    return _strip_chunk(chunk, lat.n_counters)


def _strip_chunk(chunk, n_counters):
    chunk = DEFAULT_CHUNK if chunk is None else chunk
    while chunk > 1 and not strip_warps(chunk, n_counters):
        chunk //= 2
    return chunk


def bits_bytes(lat, batch):
    """Decision words of ``batch`` fills of the whole lattice."""
    return batch * cr.n_words(lat.n_a, lat.n_b) * 4


def required_bytes(lat, batch):
    """Device memory of one tiled solve: decision bits, the boundary arrays, inputs,
    paths."""
    k, n_a, n_b = lat.n_counters, lat.n_a, lat.n_b
    boundary = batch * k * (n_a + n_b + 2) * 8
    m = lat.m
    inputs = (17 + 2 * m) * (n_a + 1) + 24 * (n_b + 1) + 8 * (7 * m + 6 + batch)
    paths = batch * (n_a + n_b)
    return bits_bytes(lat, batch) + boundary + inputs + paths


def bits_budget(lat, batch, free, memory_limit):
    """Bytes the decision words of one solve may take: 90% of the free device memory
    less everything else, and at most ``memory_limit``."""
    budget = int(0.9 * free) - (required_bytes(lat, batch) - bits_bytes(lat, batch))
    return budget if memory_limit is None else min(budget, memory_limit)


def check_whole(lat, batch, free):
    """``DeviceMemoryError`` when one whole-lattice solve does not fit."""
    need = required_bytes(lat, batch)
    if need > 0.9 * free:
        raise DeviceMemoryError(MSG_DEVICE_MEMORY.format(
            need=need / 2**30, free=free / 2**30, n_a=lat.n_a, n_b=lat.n_b, batch=batch))


def band_plan(lat, batch, free, memory_limit=None):
    """None when the whole lattice's bits fit, else the rows per band of the fewest bands
    that fit; ``DeviceMemoryError`` when not even 32-row bands do."""
    budget = bits_budget(lat, batch, free, memory_limit)
    if budget >= bits_bytes(lat, batch):
        return None
    rows = cr.plan_bands(lat.n_a, lat.n_b, budget, lat.n_counters, batch, checkpoints=False)
    if rows is None:
        need = (required_bytes(lat, batch) - bits_bytes(lat, batch)
                + batch * cr.n_words(min(32, lat.n_a), lat.n_b) * 4)
        raise DeviceMemoryError(MSG_DEVICE_MEMORY.format(
            need=need / 2**30, free=free / 2**30, n_a=lat.n_a, n_b=lat.n_b, batch=batch))
    return rows


def kd_required_bytes(prob):
    """Device memory of the K-D solve of ``prob``: decision words, two counter buffers,
    layout arrays."""
    sizes, k = prob.sizes, prob.k
    per_pair = len(cr.COUNTER_KINDS[prob.metric].kinds)  # C, and U for URF
    n_cells = cr.kd_cells(sizes)
    box = n_cells // (max(sizes) + 1)
    words = max(1, (k - 1).bit_length()) * (n_cells // 32 + sum(sizes) + 1) * 4
    counters = 2 * per_pair * k * (k - 1) * box * 8
    layout = box * (k - 1) * (4 + 8) + box * (4 + 8)
    return words + counters + layout


def check_kd(prob, free):
    """``DeviceMemoryError`` when the K-D solve of ``prob`` does not fit. (Iterative
    steps plan their own bands, like two-group lattices.)"""
    need = kd_required_bytes(prob)
    if need > 0.9 * free:
        raise DeviceMemoryError(MSG_DEVICE_MEMORY_MULTI.format(
            method="kd", sizes=prob.sizes, need=need / 2**30, free=free / 2**30))


# ------------------------------------------------------------------ time (NumPy)

#: CPU seconds of the NumPy reference per unit of the work :func:`numpy_work` counts,
#: fitted by ``benchmarks/plan_calibration.py`` on the 2-core development machine
#: (process time, so other jobs on the machine inflate them little). Keys: ``cell``
#: (a cell of a two-group lattice, per state row), ``diagonal`` (one anti-diagonal of
#: any 2-D fill), ``lane`` (an iterative step's state row times the padded lanes of
#: its diagonals), ``row`` (an iterative step's old groups times its anti-diagonals:
#: NumPy's cost per row of a short diagonal, and the step's inputs), ``kd_lane`` (a
#: K-D cell times its candidates times its state rows) and ``kd_call`` (a K-D chunk
#: of a hyperplane times K**2, the NumPy calls of its gains).
NUMPY_SECONDS = {"cell": 1.5e-9, "diagonal": 9.3e-6, "lane": 4.2e-9, "row": 2.6e-7,
                 "kd_lane": 1.7e-9, "kd_call": 3.7e-6}
#: CPU seconds of the numba engine's iterative steps per unit of the same work (K-D
#: runs the NumPy reference), fitted on ten shapes from 3 groups of 1500 to 300 groups
#: of 4 on the 2-core development machine (each within 1.5 times of the measured
#: time): an old group's rows of a step cost numba more than NumPy (``row``), so that
#: many small groups take numba as long as NumPy, or longer, while large groups take
#: it a fraction.
NUMBA_ITERATIVE_SECONDS = {"cell": 1.5e-9, "lane": 1.5e-9, "row": 3.5e-7}


def numpy_work(method, sizes, metric="xauc"):
    """The work of one NumPy solve of ``method`` (``"2d"``, ``"kd"`` or
    ``"iterative"``) on groups of ``sizes``, as the counts :data:`NUMPY_SECONDS` prices
    (a dict of floats)."""
    kinds = cr.COUNTER_KINDS[metric].state_rows
    work = dict.fromkeys(NUMPY_SECONDS, 0.0)
    if method == "kd":
        k = len(sizes)
        rows = kinds * k * (k - 1) // 2
        cells = float(min(cr.kd_cells(sizes), 10**300))  # beyond: no float, no hope
        chunk = max(1, cr.KD_CHUNK_BYTES // (8 * rows * k))
        planes = sum(sizes)
        work["kd_lane"] = cells * k * rows
        work["kd_call"] = (planes + cells / chunk) * k * k
        return work
    shapes = [tuple(sizes)] if method == "2d" else cr.step_shapes(list(sizes))
    for step, (n_a, n_b) in enumerate(shapes):
        work["diagonal"] += n_a + n_b
        if method == "2d" or step == 0:  # one old group: the two-group fill
            work["cell"] += kinds * (n_a + 1.0) * (n_b + 1.0)
            continue
        m = step + 1  # old groups (every step merges one)
        work["lane"] += kinds * m * _padded_lanes(n_a, n_b)
        work["row"] += m * float(n_a + n_b)
    return work


def _padded_lanes(n_a, n_b):
    """Lanes of all anti-diagonals of an ``n_a`` x ``n_b`` fill, each diagonal's
    interior cells rounded up as ``cpu_reference._fill`` pads them."""
    longest = min(n_a, n_b)
    pad = min(cr.PAD, max(1, longest))
    d = np.arange(1, n_a + n_b + 1)
    length = np.maximum(np.minimum(d - 1, n_a) - np.maximum(d - n_b, 1) + 1, 0)
    return float((-(-length // pad) * pad).sum())


def estimate_seconds(method, sizes, backend="numpy", metric="xauc", n_fills=1):
    """Seconds ``n_fills`` solves of ``method`` on groups of ``sizes`` are expected to
    take, for a refusal or a warning before the work starts (the command line's).

    Parameters
    ----------
    method : {"auto", "2d", "kd", "iterative", "best"}
        ``"auto"``: what :func:`choose_method` picks (``"2d"`` for two groups).
    sizes : sequence of int
        Items per group (after any subsampling).
    backend : {"numpy", "numba", "cupy"}
        numba: its iterative steps at :data:`NUMBA_ITERATIVE_SECONDS`, the rest as
        NumPy (the reference runs it). The GPU has no calibrated model here: None.
    metric : {"xauc", "prf", "urf"}
    n_fills : int
        Lattices filled: the lam values, times the fills a solver's search expects
        (``_solvers.expected_fills``).

    Returns
    -------
    float or None
        CPU seconds on the development machine (2-core AMD EPYC; within a factor of
        two of the measured times of ``benchmarks/plan_calibration.py``); a machine
        twice as fast takes half.
    """
    if backend not in ("numpy", "numba"):
        return None
    sizes = [int(n) for n in sizes]
    if method == "auto":
        method = "2d" if len(sizes) == 2 else choose_method("auto", sizes)
    if len(sizes) == 2 and method in ("kd", "iterative", "best"):
        method = "2d"  # the same 2-D DP
    methods = ("kd", "iterative") if method == "best" else (method,)
    total = 0.0
    for name in methods:
        work = numpy_work(name, sizes, metric)
        rates = NUMBA_ITERATIVE_SECONDS if (backend, name) == ("numba", "iterative") else (
            NUMPY_SECONDS)
        total += sum(rates.get(key, 0.0) * amount for key, amount in work.items())
    return n_fills * total
