"""Every .cu file compiles with nvcc for sm_80 and sm_90, for every metric and mode, and
with NVRTC (where libnvrtc is found) exactly as the CuPy engine compiles it.

Device code only (``-fatbin``): CuPy compiles nothing else, and skipping the host pass
takes a third off each compile. A file compiles with ``SIGNED=1`` only if it reads the
mode: ``SIGNED`` changes nothing but ``ghat`` of ``xorder_common.cuh``, which a file
reaches through ``ghat`` or ``cell_update``; the others (``xorder_multi.cu``, whose
disparity is always absolute) are the same code for both values."""

import re
import shutil
import subprocess
from importlib import resources

import pytest

CUDA_DIR = resources.files("gpu_xorder") / "cuda"
CU_FILES = sorted(p.name for p in CUDA_DIR.iterdir() if p.name.endswith(".cu"))
#: (file, SIGNED) pairs that compile to different code
VARIANTS = [(name, signed) for name in CU_FILES
            for signed in ((0, 1) if re.search(r"\b(ghat|cell_update)\(",
                                               (CUDA_DIR / name).read_text()) else (0,))]

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")


ARCHS = ("80", "90")


@needs_nvcc
@pytest.mark.parametrize("name,signed", VARIANTS)
@pytest.mark.parametrize("metric", [0, 1, 2])
def test_cu_compiles_without_spills(name, metric, signed, tmp_path):
    gencode = [f"-gencode=arch=compute_{a},code=sm_{a}" for a in ARCHS]
    proc = subprocess.run(
        ["nvcc", *gencode, "-fatbin", "--fmad=false", "-Xptxas", "-v",
         f"-DMETRIC={metric}", f"-DSIGNED={signed}", "-I", str(CUDA_DIR),
         "-o", str(tmp_path / "k.fatbin"), str(CUDA_DIR / name)],
        capture_output=True, text=True)
    report = proc.stdout + proc.stderr
    assert proc.returncode == 0, report
    assert "error" not in report.lower()
    regs = [int(r) for r in re.findall(r"Used (\d+) registers", report)]
    assert regs, report
    spills = [int(s) for s in re.findall(r"(\d+) bytes spill stores", report)]
    assert spills and max(spills) == 0, report
    for arch in ARCHS:
        assert f"sm_{arch}" in report, report
    print(f"{name} METRIC={metric} SIGNED={signed}: registers {regs}")


def test_there_are_kernels():
    assert "xorder_fill.cu" in CU_FILES
    assert ("xorder_tiled.cu", 1) in VARIANTS and ("xorder_multi.cu", 1) not in VARIANTS


# ---------------------------------------------------------------- NVRTC, as CuPy compiles

def _find_nvrtc():
    """libnvrtc from the loader path, CUDA_PATH or the ``nvidia-cuda-nvrtc-cu12`` wheel;
    None where there is none."""
    import ctypes
    import ctypes.util
    import glob
    import os

    candidates = [ctypes.util.find_library("nvrtc")]
    for root in (os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root:
            candidates += glob.glob(os.path.join(root, "lib64", "libnvrtc.so*"))
    try:
        import nvidia.cuda_nvrtc

        candidates += glob.glob(os.path.join(nvidia.cuda_nvrtc.__path__[0], "lib",
                                             "libnvrtc.so*"))
    except ImportError:
        pass
    for path in filter(None, candidates):
        try:
            return ctypes.CDLL(path)
        except OSError:
            continue
    return None


def _nvrtc_compile(lib, source, options):
    """NVRTC's status and log for ``source`` compiled with ``options``."""
    import ctypes

    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), b"kernel.cu", 0,
                                  None, None) == 0
    try:
        opts = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
        status = lib.nvrtcCompileProgram(prog, len(options), opts)
        size = ctypes.c_size_t()
        lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetProgramLog(prog, log)
        return status, log.value.decode(errors="replace")
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


@pytest.mark.parametrize("name,signed", VARIANTS)
@pytest.mark.parametrize("metric", [0, 1, 2])
def test_cu_compiles_with_nvrtc_as_cupy_does(name, metric, signed):
    """The very text and options that ``_cupy_engine.get_module`` gives CuPy's NVRTC
    compile without errors or warnings (runs where libnvrtc is found: a CUDA toolkit
    with NVRTC, CuPy's machines, or ``pip install nvidia-cuda-nvrtc-cu12``)."""
    from gpu_xorder._kernel_source import NVRTC_OPTIONS, kernel_source

    lib = _find_nvrtc()
    if lib is None:
        pytest.skip("libnvrtc not found")
    for tile_j in (32, 128, 512):  # 4 warps per block, and 1 (see warps_per_block)
        for arch in ARCHS:
            status, log = _nvrtc_compile(
                lib, kernel_source(name, metric, signed, tile_j),
                [*NVRTC_OPTIONS, f"-arch=compute_{arch}"])
            assert status == 0 and not log.strip(), (tile_j, arch, log)
