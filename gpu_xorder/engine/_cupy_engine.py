"""The CuPy engine: the device interface of ``_launch`` on CuPy.

docs/design.md, sections 3.7, 7 and 9. The only module of the package that imports CuPy.
Kernels live in ``cuda/*.cu``, are compiled by NVRTC with ``--fmad=false`` (bit-identical
G-hat) and memoized per device and compile-time constants; launches go by the kernels'
parameter names (``_kernel_source.BoundKernel``). The schedules are ``_launch``'s, the
memory plans ``_plan``'s.
"""

import concurrent.futures
import contextlib
import logging
import multiprocessing
import os
import sys

import cupy as cp
import numpy as np

import cpu_reference

from . import _kernel_source, _launch, _plan
from ._kernel_source import KERNEL_FILES, NVRTC_OPTIONS, kernel_parameters, kernel_source
from ._plan import MSG_DEVICE_MEMORY, DeviceMemoryError, required_bytes  # noqa: F401

# The capabilities of ``_interface.Engine``: the kernels' limits, the device's memory.
NAME = "cupy"
BATCHED_FILLS = True
WORKER_PROCESSES = False
OWN_MEMORY = True
MAX_OLD_GROUPS = _kernel_source.MAX_OLD_GROUPS
MAX_KD_GROUPS = _kernel_source.KD_MAX_GROUPS
CERTIFIED_CELLS = float("inf")
FILL_SECONDS_PER_CELL = None


def session():
    """Nothing to share between the fills of a solve."""
    return contextlib.nullcontext()


logger = logging.getLogger("gpu_xorder")

#: Compiled kernels: ``{(device id, file, defines): {kernel name: function}}`` and the
#: variants checked against NumPy in this process (``check_variant``).
_MODULES = {}
_CHECKED = set()

MSG_VARIANT = ("the GPU kernel {case} differs from the NumPy reference on a small lattice "
               "at its first use: {what}; use backend='numpy' or 'numba'")


class KernelCheckError(RuntimeError):
    """A compiled kernel variant gave other decisions than NumPy at its first use;
    ``mismatch`` (a ``_selfcheck.Mismatch``) says where."""

    def __init__(self, mismatch):
        super().__init__(MSG_VARIANT.format(case=mismatch.case, what=mismatch.what))
        self.mismatch = mismatch


def get_function(name, defines):
    """``(function, parameters)`` of kernel ``name`` compiled for the ``(constant,
    value)`` pairs ``defines`` on the current device: NVRTC, or CuPy's disk cache of
    kernels compiled before; memoized per device. Thread-safe (``prepare`` compiles in
    threads: NVRTC runs without the GIL)."""
    file = KERNEL_FILES[name]
    key = (cp.cuda.Device().id, file, defines)
    entry = _MODULES.get(key)
    if entry is None:
        code = kernel_source(file, dict(defines))
        entry = _MODULES.setdefault(key, (cp.RawModule(code=code, options=NVRTC_OPTIONS),
                                          kernel_parameters(code), {}))
    module, parameters, functions = entry
    function = functions.get(name)
    if function is None:  # the first get_function compiles the module
        function = functions.setdefault(name, module.get_function(name))
    return function, parameters[name]


def prepare(variants, jobs=None, processes=False):
    """Compile the kernels of ``variants`` (``[(kernel name, constants), ...]``, e.g.
    ``_plan.fill_variants``) not yet compiled in this process, ``jobs`` at once (default:
    one per CPU), and check each against NumPy (``check_variant``). Threads by default
    (NVRTC runs without the GIL); with ``processes``, worker processes compile into
    CuPy's kernel cache and this process loads the results. Returns the number compiled
    or loaded from CuPy's cache."""
    device = cp.cuda.Device().id
    todo = {}
    for name, const in variants:
        defines = tuple(sorted(const.items()))
        entry = _MODULES.get((device, KERNEL_FILES[name], defines))
        if entry is None or name not in entry[2]:
            todo.setdefault((name, defines), const)
    workers = min(len(todo), jobs or os.cpu_count() or 1)
    if workers > 1 and processes:
        context = multiprocessing.get_context("spawn")  # CUDA does not survive a fork
        with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context) as pool:
            list(pool.map(_compile_one, [(device, *key) for key in todo]))
    elif workers > 1:
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            list(pool.map(_compile_one, [(device, *key) for key in todo]))
    for (name, _), const in todo.items():
        DEVICE.kernel(name, const)  # compiles (or loads) where not done above, checks once
    return len(todo)


def _compile_one(job):
    device, name, defines = job
    with cp.cuda.Device(device):
        get_function(name, defines)


def check_variant(name, constants):
    """Solve a small lattice with the variant ``(name, constants)`` and compare it with
    NumPy (``_selfcheck.check_variant``), once per variant and process; a difference
    raises ``KernelCheckError``: no kernel runs a user's fill unchecked."""
    key = (cp.cuda.Device().id, name, tuple(sorted(constants.items())))
    if key in _CHECKED:
        return
    from . import _selfcheck

    _CHECKED.add(key)  # first: the check's own launches of this variant run unchecked
    mismatch = _selfcheck.check_variant(sys.modules[__name__], name, constants)
    if mismatch is not None:
        _CHECKED.discard(key)
        raise KernelCheckError(mismatch)


class CupyDevice:
    """The device interface of ``_launch`` on the current CuPy device."""

    asarray = staticmethod(cp.asarray)

    @staticmethod
    def zeros(shape, dtype):
        return cp.zeros(shape, dtype=dtype)

    @staticmethod
    def get(a):
        return cp.asnumpy(a)

    @staticmethod
    def kernel(name, constants):
        found = get_function(name, tuple(sorted(constants.items())))
        check_variant(name, constants)
        return found

    @staticmethod
    def resident_blocks(function, threads):
        """Multiprocessors x blocks of ``function`` each holds (the occupancy API; where
        CuPy lacks it, a full multiprocessor's 2048 threads: extra blocks only find no
        strip left); asked once per kernel and block size (the device's properties take
        a millisecond)."""
        key = (cp.cuda.Device().id, id(function), threads)  # functions live in _MODULES
        if key not in _RESIDENT:
            _RESIDENT[key] = _resident_blocks(function, threads)
        return _RESIDENT[key]


#: ``resident_blocks`` by (device, kernel, threads per block).
_RESIDENT = {}


def _resident_blocks(function, threads):
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    try:  # a RawKernel's driver function is its ``kernel`` (CuPy 14 has no ``ptr`` on it)
        handle = function.kernel.ptr if hasattr(function, "kernel") else function.ptr
        per_sm = cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(handle, threads, 0)
    except Exception as exc:  # only a grid size: the decisions do not depend on it
        per_sm = 2048 // threads
        # said, not hidden: this fallback once hid a missing attribute for months
        logger.info("gpu_xorder: occupancy query failed (%s: %s); %d blocks per "
                    "multiprocessor assumed", type(exc).__name__, exc, per_sm)
    return int(props["multiProcessorCount"]) * max(1, int(per_sm))


DEVICE = CupyDevice()


def smoke_test():
    """Compile the 2-D kernels and solve a 2 x 2 lattice; raises if the device is
    unusable."""
    if not cp.cuda.is_available():
        raise RuntimeError("no CUDA device is visible")
    lat = cpu_reference.build_lattice(np.array([0.9, 0.8, 0.7, 0.6]), np.array([1, 0, 1, 0]),
                                      np.array([0, 0, 1, 1]), "xauc", "absolute")
    _launch.solve(DEVICE, lat, [0.5], None, _plan.DEFAULT_TILE_J)


def dp_orders(scores, group_index, k):
    """Each group's input indices in descending score order, equal scores in input order
    (``cpu_reference``'s ``dp_order``), sorted on the device: one stable sort by score
    (``-0.0`` and ``0.0`` one key, as NumPy compares them, not two as a radix sort of
    their bits would), one stable sort by group."""
    order = cp.argsort(-cp.asarray(scores, dtype=cp.float64) + 0.0)
    order = order[cp.argsort(cp.asarray(group_index)[order])]
    counts = np.bincount(group_index, minlength=k)
    return np.split(cp.asnumpy(order), np.cumsum(counts)[:-1])


def device_info():
    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    free, total = cp.cuda.runtime.memGetInfo()
    name = props["name"]
    return {
        "cupy_version": cp.__version__,
        "device_name": name.decode() if isinstance(name, bytes) else name,
        "compute_capability": dev.compute_capability,
        "memory_bytes": int(total),
        "free_memory_bytes": int(free),
        "multiprocessors": int(props["multiProcessorCount"]),
    }


def free_bytes():
    return cp.cuda.runtime.memGetInfo()[0] + cp.get_default_memory_pool().free_bytes()


#: The 2-D fill of ``kernel=None``: ``"strips"`` (``strip_kernel``, persistent; on
#: compute capability 7.0 or newer, else ``"tiles"``), faster than the tile kernel at
#: every size of the H200 speed table (benchmarks/RESULTS.md, 2026-11-28: 87 against 71
#: GCUPS at 10^5 per group, 197 against 143 for 8 lams, iterative 8 x 2 x 10^4 0.97
#: against 1.06-1.58 s); benchmarks switch it to time ``fair_order`` on either.
DEFAULT_KERNEL = "strips"


def compute_capability():
    """The current device's compute capability as an int, e.g. 90."""
    return int(cp.cuda.Device().compute_capability)


def default_kernel():
    """The 2-D fill that ``kernel=None`` runs on this device (``DEFAULT_KERNEL``, or the
    tile kernel where the strip kernel cannot run)."""
    return _plan.choose_kernel(None, DEFAULT_KERNEL, compute_capability())


def _width(lat, kernel, tile_j, chunk):
    """The kernel that runs and its width: tile columns, or steps per chunk."""
    kernel = _plan.choose_kernel(kernel, DEFAULT_KERNEL, compute_capability())
    if kernel == "strips":
        return kernel, _plan.strip_chunk(lat, chunk)
    return kernel, _plan.tile_width(lat) if tile_j is None else tile_j


def fill(lat, lams, tile_j=None, progress=None, kernel=None, chunk=None):
    """Device arrays ``(words, final)`` of one whole-lattice fill per lam value
    (``_launch.fill``: ``kernel`` ``"tiles"`` with ``tile_j`` columns or ``"strips"``
    with ``chunk`` steps per wait); ``DeviceMemoryError`` when it does not fit."""
    _plan.check_whole(lat, len(lams), free_bytes())
    kernel, width = _width(lat, kernel, tile_j, chunk)
    return _launch.fill(DEVICE, lat, lams, kernel, width, progress)


def traceback(lat, words):
    """Device paths ``(B, n_a + n_b)`` of ``fill``'s words, walked on the device."""
    return _launch.traceback(DEVICE, words, lat.n_a, lat.n_b)


def solve(lat, lams, progress=None, memory_limit=None, n_jobs=None, tile_j=None,
          kernel=None, chunk=None):
    """``([(path, final_counters), ...], band_rows)`` on the host, one per lam value, of a
    ``StepLattice`` (two groups, or an iterative step); ``band_rows`` is None unless the
    lattice was filled in bands (its decision bits over ``memory_limit`` bytes or what the
    device has free). ``progress`` counts the cells of every lattice (they fill together);
    ``n_jobs`` is the NumPy engine's (a batch fills at once here). ``kernel``,
    ``tile_j``, ``chunk``: as in ``fill``."""
    band_rows = _plan.band_plan(lat, len(lams), free_bytes(), memory_limit)
    kernel, width = _width(lat, kernel, tile_j, chunk)
    prepare([_launch.fill_variant(lat, kernel, width), ("traceback_kernel", {}),
             ("band_traceback_kernel", {})])
    if progress is not None and len(lams) > 1:
        one, n = progress, len(lams)
        progress = lambda done, total: one(done * n, total * n)  # noqa: E731
    return _launch.solve(DEVICE, lat, lams, band_rows, width, progress, kernel), band_rows


def final_counters(lat, lams):
    """int64 ``(len(lams), K)``: the final counters of ``lat`` at every lam (the solvers'
    searches; the device keeps the decision bits of its fill)."""
    return np.array([final for _, final in solve(lat, lams)[0]],
                    dtype=np.int64).reshape(len(lams), -1)


def solve_step(lat, lam, progress=None):
    """``(path, final)`` of one lattice (an iterative step): the ``solve`` of
    ``cpu_reference.solve_iterative``."""
    (solution,), _ = solve(lat, [lam], progress)
    return solution


def solve_multi(prob, lam, method, progress=None):
    """K-D (``method="kd"``) or iterative xOrder of ``prob`` on this device:
    ``(path, C, U, constants[, merge_order])`` as the NumPy solvers return them."""
    if method == "kd":
        _plan.check_kd(prob, free_bytes())
        prepare(_plan.kd_variants(prob.metric))
        return _launch.kd(DEVICE, prob, lam, progress)
    # every step's kernel compiled at once (M = 1 .. k - 1 old groups, their widths)
    prepare(_plan.fill_variants(prob.metric, prob.mode, prob.k, sizes=prob.sizes,
                                kernel=default_kernel()))
    return cpu_reference.solve_iterative(prob, lam, progress, solve=solve_step)
