"""Source text and NVRTC options of the CUDA kernels, for one set of compile-time
constants. Free of CuPy, so that the test suite compiles exactly what the CuPy engine
compiles (with NVRTC where it is installed) on machines without a GPU."""

from importlib import resources

#: Always ``--fmad=false``: no fused multiply-add, so G-hat rounds as NumPy does
#: (docs/design.md, section 3.7).
NVRTC_OPTIONS = ("--fmad=false", "-std=c++14")


def warps_per_block(tile_j):
    """Warps per block of the tiled kernel: its static shared memory is
    ``(2 + NCOUNT) * 8 * TILE_J`` bytes per warp."""
    return 4 if tile_j <= 128 else 1


def kernel_source(name, metric_code, signed, tile_j):
    """The text NVRTC compiles for ``cuda/<name>``: the constants' ``#define`` lines, then
    the file with ``xorder_common.cuh`` pasted in (NVRTC has no include path here)."""
    folder = resources.files("gpu_xorder") / "cuda"
    common = (folder / "xorder_common.cuh").read_text()
    defines = (f"#define METRIC {metric_code}\n#define SIGNED {int(signed)}\n"
               f"#define TILE_J {tile_j}\n#define WARPS_PER_BLOCK {warps_per_block(tile_j)}\n")
    return defines + (folder / name).read_text().replace('#include "xorder_common.cuh"',
                                                          common)
