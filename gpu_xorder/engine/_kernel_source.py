"""Source text, NVRTC options and named parameters of the CUDA kernels.

Free of CuPy, so that the test suite compiles exactly what the CuPy engine compiles (with
NVRTC where it is installed) and launches by the same names on machines without a GPU.
Kernel inputs are named: the launchers build a dict keyed by the kernels' C parameter
names, and ``launch_args`` orders it by the parameter list read from the source.
"""

import functools
import re
from importlib import resources

import numpy as np

from cpu_reference import COUNTER_KINDS

from ..utils._metrics import METRICS

#: Always ``--fmad=false``: no fused multiply-add, so G-hat rounds as NumPy does
#: (docs/design.md, section 3.7).
NVRTC_OPTIONS = ("--fmad=false", "-std=c++14")

#: The ``.cu`` file of every kernel.
KERNEL_FILES = {
    "tile_kernel": "xorder_tiled.cu",
    "strip_kernel": "xorder_tiled.cu",
    "traceback_kernel": "xorder_traceback.cu",
    "band_traceback_kernel": "xorder_traceback.cu",
    "kd_plane_kernel": "xorder_kd.cu",
    "kd_traceback_kernel": "xorder_kd.cu",
}
HEADER = "xorder_objective.cuh"

#: The code of every metric, from the registry (``utils._metrics.METRICS``): the numba
#: kernels read it, and the CUDA sources name the codes ``METRIC_XAUC``, ... that
#: ``metric_defines`` generates from it and ``kernel_source`` prepends (the kernels'
#: ``METRIC`` constant is one of them).
METRIC_CODE = {name: m.code for name, m in METRICS.items()}

#: NumPy type of each C type of a kernel parameter (CuPy passes a NumPy scalar by its
#: dtype's size and an array as a bare pointer, checking neither against the kernel).
C_TYPES = {"int": np.int32, "long long": np.int64, "unsigned int": np.uint32,
           "double": np.float64, "signed char": np.int8, "bool": np.bool_}

#: Static shared memory of one block, at most.
SHARED_BYTES = 48 * 1024

#: Most old groups M of a 2-D kernel (an iterative step; 20 groups in all): the
#: instances the tests' host build holds and the device tests compile (registers spill
#: from M = 8 for URF, 2.4 kB at M = 19).
MAX_OLD_GROUPS = 19

#: Most groups of ``kd_plane_kernel`` (``KMAX`` in ``xorder_kd.cu``).
KD_MAX_GROUPS = 32


def warps_per_block(tile_j, n_counters):
    """Warps per block of ``tile_kernel``: its static shared memory is
    ``(2 + n_counters) * 8 * tile_j`` bytes per warp."""
    per_warp = (2 + n_counters) * 8 * tile_j
    if tile_j <= 128 and 4 * per_warp <= SHARED_BYTES:
        return 4
    return 1


def strip_bytes(chunk, n_counters):
    """Static shared memory of one warp of ``strip_kernel``: ``2 + n_counters`` staged
    doubles per column of a chunk's window (``STRIP_SPAN = chunk + 32`` columns)."""
    return (2 + n_counters) * 8 * (chunk + 32)


def strip_warps(chunk, n_counters):
    """Warps per block of ``strip_kernel``: 4, or fewer where their staged columns do
    not fit the shared memory (0: not even one warp's)."""
    return next((w for w in (4, 2, 1) if w * strip_bytes(chunk, n_counters) <= SHARED_BYTES),
                0)


def constants(kernel, metric="xauc", signed=False, old_groups=1, tile_j=128, chunk=32):
    """The compile-time constants of ``kernel`` (the key of a compiled module): those its
    file reads, the others left out so that equal code compiles once. ``tile_j`` is
    ``tile_kernel``'s tile width, ``chunk`` the steps between ``strip_kernel``'s
    waits."""
    c = {}
    if KERNEL_FILES[kernel] in ("xorder_tiled.cu", "xorder_kd.cu"):
        c["METRIC"] = METRIC_CODE[metric]
    n_counters = COUNTER_KINDS[metric].per_pair * old_groups
    if kernel == "tile_kernel":
        c.update(SIGNED=int(signed), OLD_GROUPS=old_groups, TILE_J=tile_j,
                 WARPS_PER_BLOCK=warps_per_block(tile_j, n_counters))
    elif kernel == "strip_kernel":
        c.update(SIGNED=int(signed), OLD_GROUPS=old_groups, STRIPS=1, CHUNK=chunk,
                 STRIP_WARPS=strip_warps(chunk, n_counters))
    return c


def metric_defines():
    """``{"METRIC_XAUC": 0, ...}``: the metric codes of ``METRIC_CODE`` as the CUDA
    sources name them (``kernel_source`` prepends them; the tests' host build passes
    them to nvcc)."""
    return {f"METRIC_{name.upper()}": code for name, code in METRIC_CODE.items()}


def kernel_source(name, defines):
    """The text NVRTC compiles for ``cuda/<name>``: the metric codes' and the constants'
    ``#define`` lines, then the file with the objective header pasted in (NVRTC has no
    include path here)."""
    folder = resources.files("gpu_xorder.engine") / "cuda"
    header = (folder / HEADER).read_text()
    lines = "".join(f"#define {k} {v}\n" for k, v in metric_defines().items())
    lines += "".join(f"#define {k} {v}\n" for k, v in sorted(defines.items()))
    return lines + (folder / name).read_text().replace(f'#include "{HEADER}"', header)


@functools.lru_cache(maxsize=None)
def kernel_parameters(code):
    """``{kernel name: [(parameter name, is_pointer, C type), ...]}`` of the ``extern "C"
    __global__`` functions of ``code``, parameter macros (``TILE_PARAMS``, ...)
    expanded."""
    code = re.sub(r"//[^\n]*", "", code)
    code = re.sub(r"/\*.*?\*/", "", code, flags=re.S).replace("\\\n", " ")
    macros = dict(re.findall(r"#define (\w+)[ \t]+([^\n]*)", code))
    for _ in range(len(macros)):  # macros naming macros: expand until none is left
        expanded = {name: _expand(body, macros) for name, body in macros.items()}
        if expanded == macros:
            break
        macros = expanded
    out = {}
    head = re.compile(r'extern "C" __global__ void (?:__launch_bounds__\([^)]*\) )?(\w+)\(')
    for match in head.finditer(code):
        depth, end = 1, match.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(code[end], 0)
            end += 1
        params = code[match.end():end - 1]
        out[match.group(1)] = [_parameter(p) for p in _expand(params, macros).split(",")]
    return out


def _expand(text, macros):
    for name, body in macros.items():
        text = re.sub(rf"\b{name}\b", body.replace("\\", "\\\\"), text)
    return text


def _parameter(text):
    words = [w for w in text.replace("*", " * ").split() if w not in ("const", "__restrict__")]
    pointer = "*" in words
    ctype = " ".join(w for w in words[:-1] if w != "*")
    assert ctype in C_TYPES, f"parameter {text.strip()!r}: C type {ctype!r} not in C_TYPES"
    return words[-1], pointer, ctype


def launch_args(parameters, args):
    """The kernel arguments of the dict ``args`` in the order of ``parameters`` (an entry
    of ``kernel_parameters``): scalars as the NumPy type of their C type; arrays (device
    arrays) must already have the parameter's dtype."""
    missing = [name for name, _, _ in parameters if name not in args]
    extra = sorted(set(args) - {name for name, _, _ in parameters})
    if missing or extra:
        raise TypeError(f"kernel arguments: missing {missing}, unknown {extra}")
    out = []
    for name, pointer, ctype in parameters:
        value, want = args[name], np.dtype(C_TYPES[ctype])
        if pointer:
            if getattr(value, "dtype", None) != want:
                raise TypeError(f"{name}: {ctype}* needs a {want} array, got "
                                f"{getattr(value, 'dtype', type(value).__name__)}")
            out.append(value)
        else:
            out.append(C_TYPES[ctype](value))
    return tuple(out)


class BoundKernel:
    """A kernel with its arguments ordered once (``args``: every parameter by name), the
    parameters named in ``varying`` given anew per launch: ``bound(grid, block,
    *values)``. A launch schedule makes thousands of launches; only their few changing
    arguments are converted each time. ``function(grid, block, args)`` launches on a
    device."""

    def __init__(self, function, parameters, args, varying=()):
        self.function = function
        names = [name for name, _, _ in parameters]
        self.args = list(launch_args(parameters, args))
        self.slots = [(names.index(v),) + tuple(parameters[names.index(v)][1:])
                      for v in varying]

    def __call__(self, grid, block, *values):
        for (k, pointer, ctype), value in zip(self.slots, values):
            self.args[k] = value if pointer else C_TYPES[ctype](value)
        self.function(grid, block, tuple(self.args))
