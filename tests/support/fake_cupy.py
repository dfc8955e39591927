"""A stand-in for the ``cupy`` module, so that ``gpu_xorder.engine._cupy_engine`` runs on any
machine with nvcc: arrays are NumPy arrays with ``.get()``, and every kernel launch is
replayed by the kernel's own code compiled for the host (``cuda_host``).

Every launch is first checked against the kernel's C signature, read from the source
the engine compiles (``_kernel_source.kernel_parameters``): the grid and block, the
count of arguments, the NumPy scalar type of every scalar and the dtype of every array,
which a real CuPy launch does not check (a mismatch shifts or misreads the arguments on
a GPU). Then the launch runs, with the compile-time constants the engine prepended.
"""

import functools
import re
import types

import numpy as np

from gpu_xorder.engine._kernel_source import C_TYPES, kernel_parameters
from support import cuda_host

__version__ = "0.0+fake"

int8, int64, uint32, float64 = np.int8, np.int64, np.uint32, np.float64

#: (free, total) bytes reported by ``cuda.runtime.memGetInfo``; tests may change it.
MEMORY = [16 * 2**30, 16 * 2**30]
#: Launches so far: "count" in all, and per kernel name.
LAUNCHES = {"count": 0}
#: Blocks of a kernel one multiprocessor holds (``cuda.driver``'s occupancy query); the
#: fake device has one multiprocessor, so a persistent grid has this many blocks.
RESIDENT_BLOCKS = [2]


class ndarray(np.ndarray):
    """A "device" array: a NumPy array with CuPy's ``get``."""

    def get(self):
        return np.array(self)


def asarray(a, dtype=None):
    return np.array(a, dtype=dtype).view(ndarray)


def zeros(shape, dtype=float):
    return np.zeros(shape, dtype=dtype).view(ndarray)


def empty(shape, dtype=float):
    out = np.empty(shape, dtype=dtype)
    out.view(np.uint8)[...] = 0xA5  # garbage, as on a device
    return out.view(ndarray)


def zeros_like(a):
    return np.zeros_like(a).view(ndarray)


def asnumpy(a):
    return np.array(a)


def argsort(a, axis=-1, kind=None):
    """A stable sort, as CuPy's (thrust); floats ordered by their bits as a radix sort
    orders them, -0.0 before 0.0 (NumPy takes them as equal)."""
    a = np.asarray(a)
    if a.dtype == np.float64:
        bits = a.view(np.int64)
        a = bits ^ ((bits >> 63) & np.int64(0x7FFFFFFFFFFFFFFF))
    return np.argsort(a, axis=axis, kind="stable").view(ndarray)


def memoize(for_each_device=False):
    return functools.lru_cache(maxsize=None)


class _Pool:
    @staticmethod
    def free_bytes():
        return 0

    @staticmethod
    def free_all_blocks():
        pass


def get_default_memory_pool():
    return _Pool()


class _Device:
    compute_capability = "90"

    def __init__(self, device=0):
        self.id = device

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def synchronize(self):
        pass


def _occupancy(function_ptr, threads, dynamic_shared):
    assert isinstance(function_ptr, int) and threads % 32 == 0 and dynamic_shared == 0
    return RESIDENT_BLOCKS[0]


cuda = types.SimpleNamespace(
    is_available=lambda: True,
    Device=_Device,
    driver=types.SimpleNamespace(occupancyMaxActiveBlocksPerMultiprocessor=_occupancy),
    runtime=types.SimpleNamespace(
        memGetInfo=lambda: tuple(MEMORY),
        getDeviceProperties=lambda i: {"name": b"fake device (NumPy emulation)",
                                       "multiProcessorCount": 1},
    ),
)


class RawModule:
    """Reads the ``#define``s the engine prepends and the kernels' parameters;
    ``get_function`` returns a checked launch replayed on the host."""

    def __init__(self, code, options=()):
        assert "--fmad=false" in options, "kernels must be compiled without FMA"
        # the engine's defines come first; the source's #ifndef fallbacks later
        self.defines = {}
        for name, value in re.findall(r"#define (\w+) (\d+)\n", code):
            self.defines.setdefault(name, int(value))
        self.parameters = kernel_parameters(code)
        self.bounds = dict(re.findall(
            r'extern "C" __global__ void __launch_bounds__\(([^)]*)\) (\w+)\(', code))
        self.bounds = {name: expr for expr, name in self.bounds.items()}

    def get_function(self, name):
        # xorder_tiled.cu compiles strip_kernel where STRIPS = 1, else tile_kernel
        other = {"tile_kernel": 1, "strip_kernel": 0}.get(name)
        if name not in self.parameters or self.defines.get("STRIPS", 0) == other:
            raise AttributeError(f"the module has no kernel {name!r}")
        function = functools.partial(_checked_launch, name, self.parameters[name],
                                     dict(self.defines), self._launch_bound(name))
        function.ptr = id(function)  # the handle CuPy's occupancy query takes
        return function

    def _launch_bound(self, name):
        """Most threads per block of kernel ``name`` (its ``__launch_bounds__``), or
        None."""
        expr = self.bounds.get(name)
        if expr is None:
            return None
        expr = expr.split(",")[0]  # the most threads; a second bound is blocks per SM
        expr = re.sub(r"[A-Za-z_]\w*", lambda m: str(self.defines[m.group(0)]), expr)
        assert re.fullmatch(r"[\d\s*+()]+", expr), expr
        return int(eval(expr))


def _checked_launch(name, parameters, defines, launch_bound, grid, block, args):
    """Check the launch shape and every argument against the kernel's parameter, then
    replay the launch on the host."""
    grid, block = tuple(grid), tuple(block)
    assert 1 <= len(grid) <= 3 and 1 <= len(block) <= 3, (name, grid, block)
    assert all(isinstance(v, (int, np.integer)) and v >= 1 for v in grid + block), (
        f"{name}: grid {grid} and block {block} need positive integers")
    assert grid[0] < 2**31 and all(v <= 65535 for v in grid[1:]), f"{name}: grid {grid}"
    assert len(block) == 1, f"{name}: the kernels use blockDim.x only, got {block}"
    threads = int(np.prod(block))
    assert threads <= 1024 and threads % 32 == 0, (
        f"{name}: block {block}: at most 1024 threads, whole warps (the kernels ballot "
        "with a full mask)")
    assert launch_bound is None or threads <= launch_bound, (
        f"{name}: {threads} threads per block, over its __launch_bounds__ {launch_bound}")
    assert len(args) == len(parameters), (
        f"{name}: {len(args)} arguments for {len(parameters)} parameters")
    for k, ((pname, pointer, ctype), a) in enumerate(zip(parameters, args)):
        want = np.dtype(C_TYPES[ctype])
        if pointer:
            assert isinstance(a, np.ndarray) and a.dtype == want, (
                f"{name} argument {k} ({pname}): {ctype}* needs a {want} array, got "
                f"{_kind(a)}")
        else:
            assert isinstance(a, np.generic) and a.dtype == want, (
                f"{name} argument {k} ({pname}): {ctype} needs a NumPy {want} scalar, got "
                f"{_kind(a)}")
    LAUNCHES["count"] += 1
    LAUNCHES[name] = LAUNCHES.get(name, 0) + 1
    cuda_host.replay(name, defines, grid, block, parameters, args)


def _kind(a):
    return f"{type(a).__name__} of {a.dtype}" if hasattr(a, "dtype") else type(a).__name__
