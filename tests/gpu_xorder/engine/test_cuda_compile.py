"""Every .cu file compiles with nvcc for sm_80 and sm_90, for every metric and mode, and
with NVRTC (where libnvrtc is found) exactly as the CuPy engine compiles it.

Device code only (``-fatbin``): CuPy compiles nothing else, and skipping the host pass
takes a third off each compile. A file is compiled for the constants it reads
(``_kernel_source.constants``): the tile kernel and the strip kernel (the same file,
``STRIPS`` choosing) for every metric and mode with one old group (the two-group
lattice: no register spills allowed), the K-D kernels for every metric, the walks once.
The tile and strip kernels for more old groups (iterative steps, up to
``MAX_OLD_GROUPS`` = 19) are compiled for sm_90 and their registers and spills printed
(``-s`` shows them); spills are allowed only where the counters outgrow the registers:
URF from 8 old groups, xAUC and PRF from 14 (``-m slow`` compiles every M from 9 to 19).
"""

import re
import shutil
import subprocess
from importlib import resources

import pytest

from gpu_xorder.engine._kernel_source import (
    KERNEL_FILES,
    MAX_OLD_GROUPS,
    METRIC_CODE,
    constants,
    metric_defines,
)
from support import cuda_host
from support.nvrtc import find_nvrtc, nvrtc_compile

CUDA_DIR = resources.files("gpu_xorder.engine") / "cuda"
CU_FILES = sorted(p.name for p in CUDA_DIR.iterdir() if p.name.endswith(".cu"))
ARCHS = ("80", "90")


def _variants():
    """``(file, defines)`` of every distinct compile."""
    out = []
    for name in CU_FILES:
        seen = []
        for kernel in (k for k, f in KERNEL_FILES.items() if f == name):
            for metric in ("xauc", "prf", "urf"):
                for signed in (False, True):
                    defines = constants(kernel, metric, signed)
                    if defines not in seen:
                        seen.append(defines)
                        out.append(pytest.param(name, defines, id=f"{name}-{defines}"))
    return out


needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")


def _ptxas(name, defines, archs, tmp_path):
    """``(registers, spill store bytes)`` per compiled function and the report."""
    gencode = [f"-gencode=arch=compute_{a},code=sm_{a}" for a in archs]
    proc = subprocess.run(
        ["nvcc", *gencode, "-fatbin", "--fmad=false", "-std=c++14", "-Xptxas", "-v",
         *[f"-D{k}={v}" for k, v in {**metric_defines(), **defines}.items()],
         "-I", str(CUDA_DIR),
         "-o", str(tmp_path / "k.fatbin"), str(CUDA_DIR / name)],
        capture_output=True, text=True)
    report = proc.stdout + proc.stderr
    assert proc.returncode == 0, report
    assert "error" not in report.lower() and "warning" not in report.lower(), report
    regs = [int(r) for r in re.findall(r"Used (\d+) registers", report)]
    spills = [int(s) for s in re.findall(r"(\d+) bytes spill stores", report)]
    assert regs and len(spills) == len(regs), report
    for arch in archs:
        assert f"sm_{arch}" in report, report
    return regs, spills


@needs_nvcc
@pytest.mark.parametrize("name,defines", _variants())
def test_cu_compiles_without_spills(name, defines, tmp_path):
    regs, spills = _ptxas(name, defines, ARCHS, tmp_path)
    assert max(spills) == 0, (regs, spills)
    print(f"{name} {defines}: registers {regs}")


STEP_VARIANTS = (
    [("tile_kernel", metric, m) for m in (2, 4, 8) for metric in ("xauc", "prf", "urf")]
    + [("strip_kernel", metric, 4) for metric in ("xauc", "prf", "urf")]
    + [("strip_kernel", "urf", 8), ("tile_kernel", "xauc", MAX_OLD_GROUPS),
       ("tile_kernel", "urf", MAX_OLD_GROUPS), ("strip_kernel", "urf", MAX_OLD_GROUPS)])


def _step_compile(kernel, metric, old_groups, tmp_path):
    """Registers and spills of ``kernel`` for a step of ``old_groups``, tiles at the
    widest the engine gives a step (``_plan.tile_width``: 128 columns, 64 where 128
    would not fit the shared memory)."""
    tile_j = 64 if (2 + (4 if metric == "urf" else 2) * old_groups) * 8 * 128 > 48 * 1024 \
        else 128
    defines = constants(kernel, metric, old_groups=old_groups, tile_j=tile_j)
    (regs,), (spill,) = _ptxas("xorder_tiled.cu", defines, ("90",), tmp_path)
    print(f"{kernel} {metric} M={old_groups} sm_90: {regs} registers, "
          f"{spill} bytes spill stores")
    # the counters (2 or 4 per old group, and the candidates') outgrow the registers:
    # nvcc 13, sm_90, spills from M = 8 for URF and M = 14 for xAUC and PRF
    assert spill == 0 or old_groups >= (8 if metric == "urf" else 14)


@needs_nvcc
@pytest.mark.parametrize("kernel,metric,old_groups", STEP_VARIANTS)
def test_2d_kernels_for_iterative_steps(kernel, metric, old_groups, tmp_path):
    _step_compile(kernel, metric, old_groups, tmp_path)


@needs_nvcc
@pytest.mark.slow
@pytest.mark.parametrize("kernel", ["tile_kernel", "strip_kernel"])
@pytest.mark.parametrize("metric", ["xauc", "prf", "urf"])
def test_2d_kernels_for_9_to_19_old_groups(kernel, metric, tmp_path):
    for old_groups in range(9, MAX_OLD_GROUPS + 1):
        _step_compile(kernel, metric, old_groups, tmp_path)


def test_host_build_holds_every_supported_step():
    """The tests' host build instantiates the 2-D kernels for M = 1 .. MAX_OLD_GROUPS,
    the numbers of old groups the engine launches."""
    source = cuda_host.driver("xorder_tiled.cu").read_text()
    body = re.search(r"#define XO_EACH_M\(C, METRIC_\)(.*?)\n\S", source, re.S).group(1)
    assert [int(m) for m in re.findall(r"C\(METRIC_, 0, (\d+)\)", body)] == list(
        range(1, MAX_OLD_GROUPS + 1))


def test_the_package_ships_device_code_only():
    """The package's CUDA sources hold no test code: no ``XO_HOST_TEST`` block and no
    host entry point (every ``extern "C"`` function a ``__global__`` kernel); the host
    drivers of each ``.cu`` file are the tests' (``tests/support/cuda_host/``)."""
    for path in CUDA_DIR.iterdir():
        if not path.name.endswith((".cu", ".cuh")):
            continue
        code = re.sub(r"//[^\n]*", "", path.read_text())
        assert "XO_HOST_TEST" not in code, path.name
        assert re.findall(r'extern "C" (?!__global__)', code) == [], path.name
        if path.name.endswith(".cu"):
            assert f'#include "{path.name}"' in cuda_host.driver(path.name).read_text()


@pytest.mark.skipif(shutil.which("cpp") is None, reason="no C preprocessor")
@pytest.mark.parametrize("arch,strips,refused", [(600, 1, True), (700, 1, False),
                                                 (600, 0, False)])
def test_strip_kernel_refuses_devices_before_sm_70(arch, strips, refused):
    """The strip kernel's source stops a compile for a device older than sm_70 with a
    message (nvcc 13 compiles nothing older than sm_75, so the preprocessor plays the
    device pass); the tile kernel has no such bound."""
    proc = subprocess.run(
        ["cpp", "-x", "c++", f"-D__CUDA_ARCH__={arch}", f"-DSTRIPS={strips}",
         "-I", str(CUDA_DIR), str(CUDA_DIR / "xorder_tiled.cu")],
        capture_output=True, text=True)
    message = "strip_kernel needs a device of compute capability 7.0 or newer"
    assert (proc.returncode != 0) == refused, proc.stderr[-2000:]
    assert (message in proc.stderr) == refused


def test_metric_codes_come_from_one_table():
    """The CUDA sources name the metric codes (``METRIC_XAUC``, ...), never a number:
    ``kernel_source`` prepends them from ``METRIC_CODE``, which the numba kernels read
    too, so a new code is written once."""
    from gpu_xorder.engine._kernel_source import kernel_source

    assert metric_defines() == {"METRIC_XAUC": METRIC_CODE["xauc"],
                                "METRIC_PRF": METRIC_CODE["prf"],
                                "METRIC_URF": METRIC_CODE["urf"]}
    header = (CUDA_DIR / "xorder_objective.cuh").read_text()
    assert re.search(r"enum Metric \{ XAUC = METRIC_XAUC, PRF = METRIC_PRF, "
                     r"URF = METRIC_URF \};", header)
    for name in CU_FILES:
        code = kernel_source(name, {"METRIC": METRIC_CODE["urf"]})
        for define, value in metric_defines().items():
            assert f"#define {define} {value}\n" in code
        body = re.sub(r"//[^\n]*", "", code)
        # no metric compared with, or instantiated at, a literal code
        assert not re.search(r"(metric|METRIC_?)\s*[=!]=\s*\d|<\s*\d\s*[,>]", body), name


def test_there_are_kernels():
    assert CU_FILES == ["xorder_kd.cu", "xorder_tiled.cu", "xorder_traceback.cu"]
    assert sorted(set(KERNEL_FILES.values())) == CU_FILES
    assert len(_variants()) == 6 + 6 + 3 + 1


# ---------------------------------------------------------------- NVRTC, as CuPy compiles

@pytest.mark.parametrize("name,defines", _variants())
def test_cu_compiles_with_nvrtc_as_cupy_does(name, defines):
    """The very text and options that ``_cupy_engine.get_module`` gives CuPy's NVRTC
    compile without errors or warnings (runs where libnvrtc is found: a CUDA toolkit
    with NVRTC, CuPy's machines, or ``pip install nvidia-cuda-nvrtc-cu12``); the tile
    kernel also with 4 and 1 warps per block and 6 and 19 old groups, the strip kernel
    with chunks of 16 and 128 and 6 and 19 old groups."""
    from gpu_xorder.engine._kernel_source import NVRTC_OPTIONS, kernel_source

    lib = find_nvrtc()
    if lib is None:
        pytest.skip("libnvrtc not found")
    variants = [defines]
    if name == "xorder_tiled.cu" and not defines["SIGNED"]:
        metric = {code: m for m, code in METRIC_CODE.items()}[defines["METRIC"]]
        if defines.get("STRIPS"):
            variants = [constants("strip_kernel", metric, chunk=c, old_groups=m)
                        for c, m in ((16, 1), (128, 1), (32, 6), (32, MAX_OLD_GROUPS))]
        else:
            variants = [constants("tile_kernel", metric, tile_j=t, old_groups=m)
                        for t, m in ((32, 1), (128, 1), (512, 1), (64, 6),
                                     (64, MAX_OLD_GROUPS))]
    for variant in variants:
        for arch in ARCHS:
            status, log = nvrtc_compile(lib, kernel_source(name, variant),
                                         [*NVRTC_OPTIONS, f"-arch=compute_{arch}"])
            assert status == 0 and not log.strip(), (variant, arch, log)
