// Tiled fill of the two-group xOrder lattice: one launch per anti-diagonal of tiles.
//
// Launcher: gpu_xorder/_cupy_engine.py (fill_batch_tiled). NumPy twin, step for step:
// cpu_reference/_tiled.py. docs/design.md, section 9.2.
//
// A warp owns a tile of 32 rows (one decision block, rows 32R+1 .. 32R+32) by TILE_J
// columns (j0 .. j0+TILE_J-1). At step s lane t decides cell (32R+1+t, j0+s-t): all
// lanes of a step lie on one global anti-diagonal, so one ballot is one decision word.
// The a-predecessor (i-1, j) comes from lane t-1 by __shfl_up_sync (lane 0: from the
// row-boundary array), the b-predecessor (i, j-1) from the lane's own registers (first
// column: from the column-boundary array). Each tile reads its top/left boundary
// segments and overwrites them with its bottom/right ones; tiles of one tile diagonal
// touch disjoint segments, so launches need no other synchronisation.
// Boundary arrays hold int64 counters; inside a tile the counters live in registers as
// doubles holding the same exact integers (all below 2**53, see ghat in
// xorder_common.cuh), which keeps int-to-float conversions off the per-step chain.
// A band of rows of a larger lattice (cpu_reference/_banded.py) is filled as a lattice
// of its own: the launcher offsets the a-axis inputs, starts rowbuf from the band's
// checkpoint row and passes the number of a items below the band as a_below.
#include "xorder_common.cuh"

#ifndef TILE_J
#define TILE_J 128
#endif
#ifndef WARPS_PER_BLOCK
#define WARPS_PER_BLOCK 4
#endif

extern "C" __global__ void __launch_bounds__(32 * WARPS_PER_BLOCK) tile_kernel(
    const long long* __restrict__ y_a, const long long* __restrict__ y_b_rev,
    const long long* __restrict__ negleft_a, const long long* __restrict__ negleft_b_rev,
    const double* __restrict__ consts, const double* __restrict__ lams,
    long long* __restrict__ rowbuf,  // [batch][NCOUNT][n_b + 1]: cells (32R, j)
    long long* __restrict__ colbuf,  // [batch][NCOUNT][n_a + 1]: cells (i, j0 - 1)
    unsigned int* __restrict__ words, long long n_words,
    int n_a, int n_b, int tile_diag, int r_first, int n_tiles,
    int a_below) {  // a items below the lattice: > 0 for a band of rows (URF gains)
    // Staged per warp: the b-axis gains and the top boundary of the tile's columns.
    __shared__ double sh_yb[WARPS_PER_BLOCK][TILE_J];
    __shared__ double sh_negb[WARPS_PER_BLOCK][TILE_J];
    __shared__ double sh_top[WARPS_PER_BLOCK][NCOUNT][TILE_J];

    const int wib = threadIdx.x >> 5;
    const int lane = threadIdx.x & 31;
    const int tile = blockIdx.x * WARPS_PER_BLOCK + wib;
    if (tile >= n_tiles) return;  // whole warps only: blockDim is a multiple of 32
    const int b = blockIdx.y;
    const int R = r_first + tile;
    const int J = tile_diag - R;
    const int i0 = 32 * R + 1;
    const int i = i0 + lane;
    const int j0 = J * TILE_J + 1;
    const int width = min(n_b - j0 + 1, TILE_J);
    const long long rs = (long long)(n_b + 1), cs = (long long)(n_a + 1);
    long long* rb = rowbuf + (long long)b * NCOUNT * rs;
    long long* cb = colbuf + (long long)b * NCOUNT * cs;
    unsigned int* wb = words + (long long)b * n_words;

    for (int c = lane; c < width; c += 32) {
        const int k = n_b - (j0 + c);
        sh_yb[wib][c] = (double)y_b_rev[k];
        sh_negb[wib][c] = (double)negleft_b_rev[k];
#pragma unroll
        for (int q = 0; q < NCOUNT; ++q) sh_top[wib][q][c] = (double)rb[q * rs + j0 + c];
    }
    __syncwarp();

    const bool row_ok = i <= n_a;
    const Consts cst = load_consts(consts);
    const double lam = lams[b];
    const double ya_i = row_ok ? (double)y_a[i - 1] : 0.0;
    const double nega_i = row_ok ? (double)negleft_a[i] : 0.0;
    // The left boundary of the lane's row, loaded before the loop: read at step s = lane
    // it would put one global-load latency on the warp's critical path per step.
    double left[NCOUNT], mine[NCOUNT];
#pragma unroll
    for (int q = 0; q < NCOUNT; ++q) {
        left[q] = row_ok ? (double)cb[q * cs + i] : 0.0;
        mine[q] = 0.0;
    }

    for (int s = 0; s < width + 31; ++s) {
        double up[NCOUNT];
#pragma unroll
        for (int q = 0; q < NCOUNT; ++q) up[q] = __shfl_up_sync(0xffffffffu, mine[q], 1);
        const int c = s - lane;  // column offset of this lane's cell
        bool take_a = false;
        if (row_ok && c >= 0 && c < width) {
            const int j = j0 + c;
            double from_a[NCOUNT], from_b[NCOUNT], out[NCOUNT];
#pragma unroll
            for (int q = 0; q < NCOUNT; ++q) {
                from_a[q] = lane == 0 ? sh_top[wib][q][c] : up[q];
                from_b[q] = c == 0 ? left[q] : mine[q];
            }
            const Gains<double> g = make_gains<double>(
                ya_i, nega_i, sh_yb[wib][c], sh_negb[wib][c], n_a + a_below - i, n_b - j);
            take_a = cell_update(from_a, from_b, g, lam, cst, out);
#pragma unroll
            for (int q = 0; q < NCOUNT; ++q) mine[q] = out[q];
            if (lane == 31) {
#pragma unroll
                for (int q = 0; q < NCOUNT; ++q) rb[q * rs + j] = (long long)out[q];
            }
            if (c == width - 1) {
#pragma unroll
                for (int q = 0; q < NCOUNT; ++q) cb[q * cs + i] = (long long)out[q];
            }
        }
        const unsigned int ballot = __ballot_sync(0xffffffffu, take_a);
        if (lane == 0) {
            // Word of block R on diagonal d = i0 + j0 + s (layout of cpu_reference._bits).
            unsigned int* w = wb + (long long)R * (n_b - 1) + i0 + j0 + s - 2;
            if (s >= 31 && s < TILE_J) {
                *w = ballot;  // every cell of this word belongs to this tile
            } else if (ballot) {
                atomicOr(w, ballot);  // shared with the neighbouring column tile
            }
        }
    }
}
