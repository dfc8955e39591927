"""The CuPy engine: the device interface of ``_launch`` on CuPy.

docs/design.md, sections 3.7, 7 and 9. The only module of the package that imports CuPy.
Kernels live in ``cuda/*.cu``, are compiled by NVRTC with ``--fmad=false`` (bit-identical
G-hat) and memoized per device and compile-time constants; launches go by the kernels'
parameter names (``_kernel_source.BoundKernel``). The schedules are ``_launch``'s, the
memory plans ``_plan``'s.
"""

import contextlib

import cupy as cp
import numpy as np

import cpu_reference

from . import _launch
from . import _plan
from . import _kernel_source
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


@cp.memoize(for_each_device=True)
def get_module(name, defines):
    """Compiled RawModule of ``cuda/<name>`` for the ``(constant, value)`` pairs
    ``defines``, and its kernels' parameters; memoized per device."""
    code = kernel_source(name, dict(defines))
    return cp.RawModule(code=code, options=NVRTC_OPTIONS), kernel_parameters(code)


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
        module, parameters = get_module(KERNEL_FILES[name], tuple(sorted(constants.items())))
        return module.get_function(name), parameters[name]

    @staticmethod
    def resident_blocks(function, threads):
        """Multiprocessors x blocks of ``function`` each holds (the occupancy API; where
        CuPy lacks it, a full multiprocessor's 2048 threads: extra blocks only find no
        strip left)."""
        props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
        try:
            per_sm = cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(
                function.ptr, threads, 0)
        except Exception:  # only a grid size: the decisions do not depend on it
            per_sm = 2048 // threads
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


#: The 2-D fill of ``kernel=None``: ``"tiles"`` (``tile_kernel``, one launch per tile
#: diagonal) or ``"strips"`` (``strip_kernel``, persistent); benchmarks switch it to time
#: ``fair_order`` end to end on either.
DEFAULT_KERNEL = "tiles"


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
    ``StepLattice`` (two groups, or an iterative step); ``band_rows`` is None unless the lattice
    was filled in bands (its decision bits over ``memory_limit`` bytes or what the device
    has free). ``progress`` counts the cells of every lattice (they fill together);
    ``n_jobs`` is the NumPy engine's (a batch fills at once here). ``kernel``,
    ``tile_j``, ``chunk``: as in ``fill``."""
    band_rows = _plan.band_plan(lat, len(lams), free_bytes(), memory_limit)
    kernel, width = _width(lat, kernel, tile_j, chunk)
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
        return _launch.kd(DEVICE, prob, lam, progress)
    return cpu_reference.solve_iterative(prob, lam, progress, solve=solve_step)
