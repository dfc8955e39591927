"""Memory planning and method choice, for both backends (docs/design.md, sections 3.5, 4,
6 and 9): which two-group solver and which K-group method run, what a solve needs,
whether its decision bits fit whole or in bands of rows (host memory for NumPy, device
memory for the GPU), and the tile width of the GPU fill."""

import numpy as np

import cpu_reference as cr

from . import _parallel, _solvers
from ._backend import host_memory_available
from ._kernel_source import SHARED_BYTES, strip_warps

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

DEFAULT_TILE_J = 128

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

def choose_solver(solver, mode, lams, n_cells, engine_name):
    """The two-group solver that runs: the cell rule where it is exact (signed mode,
    lam = 0) or where ``"auto"`` finds the search out of proportion
    (``uncertified_reason``)."""
    if mode == "signed" or not np.any(np.asarray(lams) > 0) or solver == "paper":
        return "paper"
    if solver != "auto":
        return solver
    if engine_name == "numpy" and n_cells > _solvers.AUTO_LAGRANGIAN_CELLS_NUMPY:
        return "paper"
    return "auto"


#: Seconds per lattice cell of one fill with decision bits and its traceback, per
#: backend, where the caller has no better figure: NumPy on the 2-core development
#: machine (benchmarks/auto_vs_rule.py: 0.07-0.09 s at 1000 per group, 1.3 s at 10^4).
FILL_SECONDS_PER_CELL = {"numpy": 1.5e-8}

#: Seconds per state of the exact solver's fronts (NumPy: 185 s for 2.1e8 states) and
#: states per lattice cell a solve typically stores (COMPAS and Adult samples of 1000
#: per group: 0.1 to 200, median near 10; docs/design.md, section 3.5).
EXACT_SECONDS_PER_STATE = 1e-6
EXACT_STATES_PER_CELL = 10.0

MSG_UNCERTIFIED = (
    "solver='auto' ran the cell rule without a certificate (upper_bound=None): the "
    "{n_a} x {n_b} lattice ({cells:.3g} cells) is above what the {engine} backend "
    "certifies in the time of a few fills ({limit:.3g} cells); solver='lagrangian' "
    "certifies it in about {seconds:.0f} s ({fills} fills of the lattice), or use a "
    "GPU (backend='cupy')"
)


def uncertified_reason(solver, chosen, lams, n_a, n_b, engine_name):
    """Why ``solver="auto"`` runs the cell rule without a certificate (the message of
    the warning), or None where it certifies or the rule is exact."""
    cells = (n_a + 1) * (n_b + 1)
    if solver != "auto" or chosen != "paper" or not np.any(np.asarray(lams) > 0):
        return None
    if cells <= _solvers.AUTO_LAGRANGIAN_CELLS_NUMPY:
        return None  # signed mode: the rule is exact
    fills = sum(_solvers.expected_fills("lagrangian", lam, max(n_a, n_b)) for lam in lams)
    return MSG_UNCERTIFIED.format(
        n_a=n_a, n_b=n_b, cells=cells, engine=engine_name,
        limit=_solvers.AUTO_LAGRANGIAN_CELLS_NUMPY, fills=fills,
        seconds=fills * cells * FILL_SECONDS_PER_CELL.get(engine_name, 0.0))


def estimate_solver_seconds(solver, n_a, n_b, lams, seconds_per_cell, *,
                            bitless_seconds_per_cell=None, max_disparity=None,
                            seconds_per_state=EXACT_SECONDS_PER_STATE,
                            engine_name="numpy"):
    """Expected seconds of a two-group solve, from the rate of one fill.

    Parameters
    ----------
    solver : {"auto", "paper", "lagrangian", "exact"}
        As given to ``fair_order`` (``"auto"`` is resolved as it would be).
    n_a, n_b : int
        Group sizes.
    lams : sequence of float
    seconds_per_cell : float
        One fill with decision bits and its traceback, per lattice cell.
    bitless_seconds_per_cell : float, optional
        One fill of final counters only (default: ``seconds_per_cell``).
    max_disparity : float, optional
        The constrained solve instead (``lams`` ignored).
    seconds_per_state : float
        The exact solver's fronts, per state.
    engine_name : str
        The backend (its size limit for ``"auto"``).

    Returns
    -------
    float
        The fills' time, plus for exact solves the completion values (a fill each) and
        ``EXACT_STATES_PER_CELL`` states per cell (``AUTO_EXACT_STATES`` at most for
        ``"auto"``); measured spreads are in docs/design.md, section 3.5.
    """
    cells = (n_a + 1) * (n_b + 1)
    bitless = seconds_per_cell if bitless_seconds_per_cell is None else (
        bitless_seconds_per_cell)
    n = max(n_a, n_b)
    if max_disparity is not None:
        if cells <= _solvers.CONSTRAINT_EXACT_CELLS:
            fronts = min(EXACT_STATES_PER_CELL * cells, _solvers.CONSTRAINT_EXACT_STATES)
            return (_solvers.CONSTRAINT_SEARCH_FILLS + _solvers.EXACT_MUS + 2) * cells * (
                seconds_per_cell) + fronts * seconds_per_state
        return (_solvers.CONSTRAINT_SEARCH_FILLS * seconds_per_cell
                + _solvers.CONSTRAINT_SOLVES * _solvers.EXPECTED_AUTO_FILLS * bitless) * cells
    chosen = choose_solver(solver, "absolute", lams, cells, engine_name)
    seconds = 0.0
    for lam in lams:
        fills = _solvers.expected_fills(chosen, lam, n)
        seconds += cells * (seconds_per_cell + (fills - 1) * (seconds_per_cell + bitless) / 2)
        exact = lam > 0 and (chosen == "exact" or (
            chosen == "auto" and cells <= _solvers.AUTO_EXACT_CELLS))
        if exact:
            states = EXACT_STATES_PER_CELL * cells
            if chosen == "auto":
                states = min(states, _solvers.AUTO_EXACT_STATES)
            seconds += _solvers.EXACT_MUS * cells * seconds_per_cell + (
                states * seconds_per_state)
    return seconds


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
    """Columns of a tile. Two groups: 128 (the speed table's best). An iterative step,
    whose axis b (one group) is short beside its axis a, runs at most ``n_b / tile_j``
    tiles at once: 64 or 32 where 128 would leave the device idle (a guess until
    ``benchmarks/multi_table.py`` measures the widths). Fewer where one warp's staged
    columns (``(2 + n_counters) * 8`` bytes each) would not fit the shared memory."""
    tile_j = DEFAULT_TILE_J
    if lat.m > 1:
        while tile_j > 32 and lat.n_b < tile_j * BUSY_TILES:
            tile_j //= 2
    while tile_j > 1 and (2 + lat.n_counters) * 8 * tile_j > SHARED_BYTES:
        tile_j //= 2
    return tile_j


#: Steps between the strip kernel's waits on the strip above. Strip r starts the chunk
#: at s0 once strip r - 1 has published s0 + chunk columns, which its lane 31 stores 31
#: steps after its lane 0: the wavefront's lag per strip is chunk * ceil((chunk + 31) /
#: chunk) steps (64 at 32, 128 at 64), on the critical path n_strips times; longer
#: chunks wait less often. A guess until a device run measures 16..128.
DEFAULT_CHUNK = 32


def strip_chunk(lat, chunk=None):
    """Steps per chunk of ``strip_kernel``: ``chunk`` (default ``DEFAULT_CHUNK``), halved
    while not even one warp's staged window fits the shared memory."""
    chunk = DEFAULT_CHUNK if chunk is None else chunk
    while chunk > 1 and not strip_warps(chunk, lat.n_counters):
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
    m = k // (4 if lat.metric == "urf" else 2)
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
    per_pair = 2 if prob.metric == "urf" else 1
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
