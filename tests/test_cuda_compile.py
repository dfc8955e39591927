"""Every .cu file compiles with nvcc for sm_80 and sm_90, for every metric and mode."""

import re
import shutil
import subprocess
from importlib import resources

import pytest

CUDA_DIR = resources.files("gpu_xorder") / "cuda"
CU_FILES = sorted(p.name for p in CUDA_DIR.iterdir() if p.name.endswith(".cu"))

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")


ARCHS = ("80", "90")


@pytest.mark.parametrize("name", CU_FILES)
@pytest.mark.parametrize("metric", [0, 1, 2])
@pytest.mark.parametrize("signed", [0, 1])
def test_cu_compiles_without_spills(name, metric, signed, tmp_path):
    gencode = [f"-gencode=arch=compute_{a},code=sm_{a}" for a in ARCHS]
    proc = subprocess.run(
        ["nvcc", *gencode, "-c", "--fmad=false", "-Xptxas", "-v",
         f"-DMETRIC={metric}", f"-DSIGNED={signed}", "-I", str(CUDA_DIR),
         "-o", str(tmp_path / "k.o"), str(CUDA_DIR / name)],
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
