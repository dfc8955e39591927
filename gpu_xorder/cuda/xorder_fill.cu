// Per-diagonal fill and on-device traceback of the two-group xOrder lattice.
//
// Launchers: gpu_xorder/_cupy_engine.py. Layouts (shared with cpu_reference):
//   counters  [batch][NCOUNT][n_a + 1] int64, cell (i, d - i) of a diagonal at column i;
//   words     [batch][n_words] uint32, the skewed 32-row block layout of cpu_reference._bits.
#include "xorder_common.cuh"

// One anti-diagonal d of every lattice of the batch (blockIdx.y = lattice).
// Thread x handles row i = first_row + x, where first_row starts a 32-row block, so a
// warp covers one block and one ballot yields the block's decision word of diagonal d.
// Twin of the loop body of cpu_reference._fill.fill (DiagonalStep + store_diagonal
// + the two edge cells).
extern "C" __global__ void diag_kernel(
    const long long* __restrict__ y_a, const long long* __restrict__ y_b_rev,
    const long long* __restrict__ negleft_a, const long long* __restrict__ negleft_b_rev,
    const long long* __restrict__ col0, const long long* __restrict__ row0,
    const double* __restrict__ consts, const double* __restrict__ lams,
    const long long* __restrict__ prev, long long* __restrict__ cur,
    unsigned int* __restrict__ words, long long n_words,
    int n_a, int n_b, int d, int i_lo, int i_hi) {
    const int b = blockIdx.y;
    const long long cstride = (long long)(n_a + 1);
    const long long* pv = prev + (long long)b * NCOUNT * cstride;
    long long* cu = cur + (long long)b * NCOUNT * cstride;
    const int first_row = ((i_lo - 1) & ~31) + 1;
    const int i = first_row + blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x & 31;

    bool take_a = false;
    if (i_lo <= i_hi && i >= i_lo && i <= i_hi) {
        const Consts c = load_consts(consts);
        const int j = d - i;
        long long from_a[NCOUNT], from_b[NCOUNT], out[NCOUNT];
#pragma unroll
        for (int q = 0; q < NCOUNT; ++q) {
            from_a[q] = pv[q * cstride + i - 1];
            from_b[q] = pv[q * cstride + i];
        }
        Gains<long long> g = step_gains(i, j, n_a, n_b, y_a, y_b_rev, negleft_a, negleft_b_rev);
        take_a = cell_update(from_a, from_b, g, lams[b], c, out);
#pragma unroll
        for (int q = 0; q < NCOUNT; ++q) cu[q * cstride + i] = out[q];
    }
    const unsigned int ballot = __ballot_sync(0xffffffffu, take_a);
    const int block_first = i - lane;  // first row of this warp's 32-row block
    if (i_lo <= i_hi && lane == 0 && block_first <= i_hi) {
        const long long r = (block_first - 1) >> 5;
        words[(long long)b * n_words + r * (long long)(n_b - 1) + d - 2] = ballot;
    }
    // The forced edge cells (d, 0) and (0, d).
    if (blockIdx.x == 0 && threadIdx.x == 0) {
#pragma unroll
        for (int q = 0; q < NCOUNT; ++q) {
            if (d <= n_a) cu[q * cstride + d] = col0[q * cstride + d];
            if (d <= n_b) cu[q * cstride] = row0[q * (long long)(n_b + 1) + d];
        }
    }
}

// Walk the decision bits of each lattice back from (n_a, n_b), one thread per lattice.
// Twin of cpu_reference._traceback.traceback; path[k] = group index of rank k.
extern "C" __global__ void traceback_kernel(
    const unsigned int* __restrict__ words, long long n_words,
    signed char* __restrict__ path, int n_a, int n_b, int batch) {
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch) return;
    const unsigned int* w = words + (long long)b * n_words;
    signed char* p = path + (long long)b * (n_a + n_b);
    const long long stride = (long long)n_b + 31;
    int i = n_a, j = n_b, k = n_a + n_b;
    while (i > 0 && j > 0) {
        const int t = (i - 1) & 31;
        const unsigned int word = w[((i - 1) >> 5) * stride + j + t - 1];
        --k;
        if ((word >> t) & 1u) { p[k] = 0; --i; } else { p[k] = 1; --j; }
    }
    while (i > 0) { p[--k] = 0; --i; }
    while (j > 0) { p[--k] = 1; --j; }
}
