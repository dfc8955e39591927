"""The CUDA kernels compiled for the host (``XO_HOST_TEST``), replaying launches.

Every ``.cu`` file of the package keeps what a thread does ``__host__ __device__``; its
host drivers, test code the package does not ship, live in ``cuda_host/<file>_host.cu``
next to this module: the package's file ``#include``d unchanged, then drivers that
replay one launch with that very code (a warp's lanes in turn; a shuffle reads the
lower lane's register of the previous step, a ballot gathers the lanes' bits). nvcc
builds each once into a shared library holding every metric, mode and number of old
groups the drivers instantiate; ``replay`` runs a kernel launch, given as the kernel's
compile-time constants and its ordered arguments, on host arrays. Host arithmetic is
IEEE double without contraction (``-ffp-contract=off``), as on the device with
``--fmad=false``.
"""

import ctypes
import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
from importlib import resources
from pathlib import Path

import numpy as np

from gpu_xorder.engine._kernel_source import HEADER, KERNEL_FILES, metric_defines

CUDA = resources.files("gpu_xorder.engine") / "cuda"
#: The host drivers: ``<file>_host.cu`` of every ``.cu`` file of the package.
DRIVERS = Path(__file__).resolve().parent / "cuda_host"
FLAGS = ("-shared", "-Xcompiler", "-fPIC", "-Xcompiler", "-ffp-contract=off", "--fmad=false",
         "-std=c++14", "-DXO_HOST_TEST",
         # the metric codes, as kernel_source prepends them to what NVRTC compiles
         *(f"-D{name}={code}" for name, code in metric_defines().items()))


def driver(source):
    """The host drivers of the package's ``cuda/<source>``."""
    return DRIVERS / source.replace(".cu", "_host.cu")


def available():
    return shutil.which("nvcc") is not None


@functools.lru_cache(maxsize=None)
def build(source):
    """The host drivers of ``cuda/<source>`` (``driver(source)``), as a loaded library.

    Built once: the library is kept in a folder of the system's temporary directory
    under a name holding a hash of everything that makes it (the drivers, the package's
    ``.cu`` file and header, the nvcc options and version), so a session builds it at
    most once (every test module shares it) and later sessions reuse it until one of
    those changes.
    """
    key = hashlib.sha256()
    for piece in (driver(source).read_bytes(), (CUDA / source).read_bytes(),
                  (CUDA / HEADER).read_bytes(), " ".join(FLAGS).encode(),
                  _nvcc_version().encode()):
        key.update(piece + b"\0")
    user = os.getuid() if hasattr(os, "getuid") else ""
    folder = Path(tempfile.gettempdir()) / f"gpu_xorder_cuda_host{user}"
    folder.mkdir(exist_ok=True)
    lib = folder / f"{source.split('.')[0]}_{key.hexdigest()[:16]}.so"
    if not lib.exists():
        # built under a name of its own, then renamed: a concurrent session never loads
        # a half-written library
        part = lib.with_name(f"{lib.stem}.{os.getpid()}.part")
        proc = subprocess.run(["nvcc", *FLAGS, "-I", str(CUDA), "-o", str(part),
                               str(driver(source))], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        os.replace(part, lib)
    return ctypes.CDLL(str(lib))


@functools.lru_cache(maxsize=None)
def _nvcc_version():
    return subprocess.run(["nvcc", "--version"], capture_output=True, text=True,
                          check=True).stdout


_SCALARS = {"int": ctypes.c_int, "long long": ctypes.c_longlong, "double": ctypes.c_double,
            "unsigned int": ctypes.c_uint, "signed char": ctypes.c_byte,
            "bool": ctypes.c_bool}


def c_args(parameters, args):
    """ctypes values of a kernel's ordered arguments (arrays: host arrays, C order)."""
    out = []
    for (name, pointer, ctype), value in zip(parameters, args, strict=True):
        if pointer:
            assert isinstance(value, np.ndarray) and value.flags.c_contiguous, name
            out.append(ctypes.c_void_p(value.ctypes.data))
        else:
            scalar = value.item() if isinstance(value, np.generic) else value
            out.append(_SCALARS[ctype](scalar))
    return out


#: Launches of ``strip_kernel`` replayed so far: the seed of the next one's interleaving.
STRIP_LAUNCHES = [0]


def replay(kernel, defines, grid, block, parameters, args):
    """One launch of ``kernel`` (compiled for ``defines``), replayed on the host.

    ``strip_kernel``: its ``grid[0] * block / 32`` warps in a pseudo-random interleaving
    (a new one per launch) of the ticket takes and chunks that their progress flags
    allow; a deadlock fails the replay."""
    lib = build(KERNEL_FILES[kernel])
    values = c_args(parameters, args)
    grid = tuple(grid) + (1,) * (3 - len(grid))
    threads = block[0]
    if kernel == "tile_kernel":
        assert threads == 32 * defines["WARPS_PER_BLOCK"], (block, defines)
        status = lib.tile_launch_host(
            defines["METRIC"], defines["SIGNED"], defines["OLD_GROUPS"], defines["TILE_J"],
            grid[0], grid[1], threads, *values)
    elif kernel == "strip_kernel":
        assert defines["STRIPS"] == 1 and threads == 32 * defines["STRIP_WARPS"], (
            block, defines)
        STRIP_LAUNCHES[0] += 1
        status = lib.strip_launch_host(
            defines["METRIC"], defines["SIGNED"], defines["OLD_GROUPS"], defines["CHUNK"],
            grid[0] * threads // 32, ctypes.c_uint(STRIP_LAUNCHES[0]), *values)
        assert status != -2, "strip_kernel: deadlock, every warp holding a strip waits"
    elif kernel == "kd_plane_kernel":
        status = lib.kd_plane_launch_host(defines["METRIC"], ctypes.c_longlong(grid[0]),
                                          threads, *values)
    elif kernel in ("traceback_kernel", "band_traceback_kernel"):
        batch = args[[p[0] for p in parameters].index("batch")]
        assert grid[0] * threads >= batch, (kernel, grid, block)
        getattr(lib, kernel.replace("kernel", "host"))(*values)
        status = 0
    elif kernel == "kd_traceback_kernel":
        lib.kd_walk_host(*values)
        status = 0
    else:
        raise NotImplementedError(f"no host replay of kernel {kernel!r}")
    assert status == 0, f"{kernel}: the host build holds no instance for {defines}"
