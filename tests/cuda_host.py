"""The multi-group CUDA kernels' cell functions, compiled for the host (``XO_HOST_TEST``).

``cuda/xorder_multi.cu`` keeps every function that decides cells ``__host__
__device__`` and adds host drivers that replay the kernels' launch schedule. nvcc builds
them into a shared library that ctypes calls on the arrays of
``gpu_xorder._multi_inputs``: the kernels' logic runs against NumPy on any machine with
nvcc, GPU or not. Host arithmetic is IEEE double without contraction
(``-ffp-contract=off``), as on the device with ``--fmad=false``.
"""

import ctypes
import shutil
import subprocess
from importlib import resources

import numpy as np

from gpu_xorder import _multi_inputs as mi
from cpu_reference._bits import n_words

SOURCE = resources.files("gpu_xorder") / "cuda" / "xorder_multi.cu"


def available():
    return shutil.which("nvcc") is not None


def build(metric, folder):
    """Compile the host drivers for ``metric`` into ``folder``; return the library."""
    lib = folder / f"xorder_multi_host_{metric}.so"
    if not lib.exists():
        proc = subprocess.run(
            ["nvcc", "-shared", "-Xcompiler", "-fPIC", "-Xcompiler", "-ffp-contract=off",
             "--fmad=false", "-DXO_HOST_TEST", f"-DMETRIC={mi.METRIC_CODE[metric]}",
             "-o", str(lib), str(SOURCE)],
            capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return ctypes.CDLL(str(lib))


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
