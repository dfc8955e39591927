"""The multi-group CUDA kernels' cell functions, compiled for the host (``XO_HOST_TEST``).

``cuda/xorder_multi.cu`` keeps every function that decides cells ``__host__
__device__`` and adds host drivers that replay the kernels' launch schedule. nvcc builds
them into a shared library that ctypes calls on the arrays of
``gpu_xorder._multi_inputs``: the kernels' logic runs against NumPy on any machine with
nvcc, GPU or not. Host arithmetic is IEEE double without contraction
(``-ffp-contract=off``), as on the device with ``--fmad=false``.
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

from gpu_xorder import _multi_inputs as mi
from cpu_reference._bits import n_words

CUDA = resources.files("gpu_xorder") / "cuda"


def available():
    return shutil.which("nvcc") is not None


@functools.lru_cache(maxsize=None)
def build(metric, source="xorder_multi.cu"):
    """The host drivers of ``source`` compiled for ``metric``, as a loaded library.

    Built once: the library is kept in a folder of the system's temporary directory
    under a name holding a hash of everything that makes it (the ``.cu`` file, the
    header, the nvcc options and version), so a session builds it at most once (every
    test module shares it) and later sessions reuse it until one of those changes.
    """
    flags = ["-shared", "-Xcompiler", "-fPIC", "-Xcompiler", "-ffp-contract=off",
             "--fmad=false", "-DXO_HOST_TEST", f"-DMETRIC={mi.METRIC_CODE[metric]}"]
    key = hashlib.sha256()
    for piece in ((CUDA / source).read_bytes(), (CUDA / "xorder_common.cuh").read_bytes(),
                 " ".join(flags).encode(), _nvcc_version().encode()):
        key.update(piece + b"\0")
    user = os.getuid() if hasattr(os, "getuid") else ""
    folder = Path(tempfile.gettempdir()) / f"gpu_xorder_cuda_host{user}"
    folder.mkdir(exist_ok=True)
    lib = folder / f"{source.split('.')[0]}_{metric}_{key.hexdigest()[:16]}.so"
    if not lib.exists():
        # built under a name of its own, then renamed: a concurrent session never loads
        # a half-written library
        part = lib.with_name(f"{lib.stem}.{os.getpid()}.part")
        proc = subprocess.run(["nvcc", *flags, "-o", str(part), str(CUDA / source)],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        os.replace(part, lib)
    return ctypes.CDLL(str(lib))


@functools.lru_cache(maxsize=None)
def _nvcc_version():
    return subprocess.run(["nvcc", "--version"], capture_output=True, text=True,
                          check=True).stdout


def c_arg(value):
    if isinstance(value, np.ndarray):
        assert value.flags.c_contiguous
        return ctypes.c_void_p(value.ctypes.data)
    if isinstance(value, np.int32):
        return ctypes.c_int(int(value))
    if isinstance(value, np.int64):
        return ctypes.c_longlong(int(value))
    raise TypeError(type(value))


def iter_fill(lib, arrays):
    """``(words, final_counter_rows)`` of one iterative step, by the host driver."""
    n_a, n_b = int(arrays["n_a"]), int(arrays["n_b"])
    rows = arrays["rows"]
    prev = np.zeros((rows, n_a + 1))
    cur = np.zeros_like(prev)
    words = np.zeros(n_words(n_a, n_b), dtype=np.uint32)
    final = np.zeros(rows)
    args = [c_arg(arrays[f]) for f in mi.ITER_FIELDS] + [
        c_arg(prev), c_arg(cur), c_arg(words), c_arg(final)]
    lib.iter_fill_host(*args)
    return words, final


def kd_fill(lib, arrays):
    """``(words, final_counter_rows)`` of the K-D DP, by the host driver."""
    box, rows = int(arrays["box"]), arrays["rows"]
    prev = np.zeros((rows, box))
    cur = np.zeros_like(prev)
    words = np.zeros(arrays["nbits"] * arrays["plane_words"], dtype=np.uint32)
    final = np.zeros(rows)
    args = [c_arg(arrays[f]) for f in mi.KD_FIELDS] + [
        c_arg(prev), c_arg(cur), c_arg(words), ctypes.c_longlong(arrays["plane_words"]),
        ctypes.c_int(arrays["nbits"]), c_arg(arrays["lo"]), c_arg(arrays["hi"]),
        c_arg(arrays["base"]), ctypes.c_int(arrays["n_planes"]),
        ctypes.c_longlong(arrays["end"]), c_arg(final)]
    lib.kd_fill_host(*args)
    return words, final


def kd_walk(lib, arrays, words):
    path = np.zeros(arrays["n_planes"], dtype=np.int8)
    lib.kd_walk_host(
        c_arg(words), ctypes.c_longlong(arrays["plane_words"]), ctypes.c_int(arrays["nbits"]),
        c_arg(arrays["lo"]), c_arg(arrays["base"]), c_arg(arrays["rank"]),
        c_arg(arrays["stride"]), c_arg(arrays["k"]), c_arg(arrays["last"]),
        c_arg(arrays["sizes"]), c_arg(path))
    return path


class HostDevice:
    """The device interface of ``gpu_xorder._multi_launch`` on host arrays: each launch
    is replayed by the kernel's own code compiled for the host (``*_launch_host``)."""

    def __init__(self, lib):
        self.lib = lib
        self.launches = 0

    asarray = staticmethod(np.ascontiguousarray)

    @staticmethod
    def zeros(shape, dtype):
        return np.zeros(shape, dtype=dtype)

    @staticmethod
    def get(a):
        return np.array(a)

    def launch(self, name, grid, block, args):
        assert block % 32 == 0 and grid >= 1
        replay = {"iter_diag_kernel": self.lib.iter_diag_launch_host,
                  "kd_plane_kernel": self.lib.kd_plane_launch_host}[name]
        grid_arg = ctypes.c_int(grid) if name == "iter_diag_kernel" else ctypes.c_longlong(grid)
        replay(grid_arg, ctypes.c_int(block), *[c_arg(a) for a in args])
        self.launches += 1

    @staticmethod
    def traceback(words, n_a, n_b):
        from cpu_reference import traceback  # the twin of traceback_kernel
        return traceback(words, n_a, n_b)

    def kd_traceback(self, words, arrays):
        return kd_walk(self.lib, arrays, words)


class HostBandWalker:
    """``cpu_reference._banded.HostWalker``'s interface on ``band_traceback_kernel``'s
    body compiled for the host (``band_traceback_host`` of ``xorder_fill.cu``)."""

    def __init__(self, lib, lat, n_lattices):
        self.lib, self.n_b, self.batch = lib, lat.n_b, n_lattices
        self.length = lat.n_a + lat.n_b
        self.path = np.zeros((n_lattices, self.length), dtype=np.int8)
        self.js = np.full(n_lattices, lat.n_b, dtype=np.int32)
        self.ks = np.full(n_lattices, self.length, dtype=np.int64)

    def walk(self, words, i0, i1):
        words = np.ascontiguousarray(np.stack(words), dtype=np.uint32)
        self.lib.band_traceback_host(
            c_arg(words), ctypes.c_longlong(words.shape[1]), c_arg(self.path),
            ctypes.c_longlong(self.length), ctypes.c_int(i1 - i0), ctypes.c_int(self.n_b),
            ctypes.c_int(i0), c_arg(self.js), c_arg(self.ks), ctypes.c_int(self.batch))
        return not self.ks.any()

    def paths(self):
        return list(self.path)


def traceback(lib, words, n_a, n_b):
    """Paths of a batch of decision words by ``traceback_kernel``'s body on the host."""
    words = np.ascontiguousarray(words, dtype=np.uint32)
    path = np.zeros((words.shape[0], n_a + n_b), dtype=np.int8)
    lib.traceback_host(c_arg(words), ctypes.c_longlong(words.shape[1]), c_arg(path),
                       ctypes.c_int(n_a), ctypes.c_int(n_b), ctypes.c_int(words.shape[0]))
    return path
