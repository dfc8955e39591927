"""Launch schedules of the CUDA kernels, device-neutral.

docs/design.md, section 9. Written against a small device interface so that the same
schedule runs on CuPy (``_cupy_engine``) and, in the tests, on host arrays with every
launch replayed by the kernel's own code compiled for the host.
"""

BLOCK = 32  # rows of a tile: one warp, one 32-row block of the decision-bit layout

MSG_BOTTOM = "the last row is kept for whole 32-row blocks only, n_a = {n_a}"


def tile_schedule(n_a, n_b, tile_j):
    """Tile diagonals in launch order: ``[(tile_diag, r_first, n_tiles), ...]``."""
    n_r, n_j = -(-n_a // BLOCK), -(-n_b // tile_j)
    out = []
    for k in range(n_r + n_j - 1):
        r_first, r_last = max(0, k - n_j + 1), min(n_r - 1, k)
        out.append((k, r_first, r_last - r_first + 1))
    return out
