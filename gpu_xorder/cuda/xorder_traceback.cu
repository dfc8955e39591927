// Per-diagonal fill and on-device traceback of the two-group xOrder lattice.
//
// Launchers: gpu_xorder/_cupy_engine.py. Layouts (shared with cpu_reference):
//   counters  [batch][NCOUNT][n_a + 1] int64, cell (i, d - i) of a diagonal at column i;
//   words     [batch][n_words] uint32, the skewed 32-row block layout of cpu_reference._bits.
#include "xorder_common.cuh"

#define XO_FILL_HD __host__ __device__ __forceinline__

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

// Walk the decision bits back from cell (i, j) until the path meets row 0 or column 0,
// writing the group of every step before *end (last rank last): twin of
// cpu_reference._traceback.walk. Returns with (i, j) the edge cell reached and end moved
// back over the steps written. __host__ __device__: the tests run it on the host.
XO_FILL_HD void walk_back(const unsigned int* __restrict__ w, long long stride, int& i,
                          int& j, signed char*& end) {
    while (i > 0 && j > 0) {
        const int t = (i - 1) & 31;
        if ((w[((i - 1) >> 5) * stride + j + t - 1] >> t) & 1u) { *--end = 0; --i; }
        else { *--end = 1; --j; }
    }
}

// Path of one lattice (twin of cpu_reference._traceback.traceback).
XO_FILL_HD void traceback_one(const unsigned int* w, signed char* p, int n_a, int n_b) {
    int i = n_a, j = n_b;
    signed char* end = p + n_a + n_b;
    walk_back(w, (long long)n_b + 31, i, j, end);
    while (end > p) *--end = i > 0 ? 0 : 1;  // forced from the edge
}

// One band of rows of lattice b, walked from the band's last row at column js[b]
// (cpu_reference._banded): the steps land before path[b] + ks[b]; when the walk meets
// column 0, or row 0 of the top band (row_offset 0), the forced rest is written too and
// ks[b] becomes 0. words: the band's bits, layout of a lattice of n_rows rows.
XO_FILL_HD void band_walk_one(const unsigned int* w, signed char* p, int n_rows, int n_b,
                              int row_offset, int& j, long long& k) {
    if (k == 0) return;  // this lattice's path is complete
    int i = n_rows;
    signed char* end = p + k;
    walk_back(w, (long long)n_b + 31, i, j, end);
    if (j == 0 || row_offset == 0) {
        while (end > p) *--end = j == 0 ? 0 : 1;
    }
    k = end - p;
}

// Every lattice of the batch, one thread each; path[b] has n_a + n_b entries.
extern "C" __global__ void traceback_kernel(
    const unsigned int* __restrict__ words, long long n_words,
    signed char* __restrict__ path, int n_a, int n_b, int batch) {
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch) return;
    traceback_one(words + (long long)b * n_words, path + (long long)b * (n_a + n_b), n_a,
                  n_b);
}

// One band of every lattice of the batch, one thread each (see band_walk_one);
// path_len = n_a + n_b of the whole lattice.
extern "C" __global__ void band_traceback_kernel(
    const unsigned int* __restrict__ words, long long n_words,
    signed char* __restrict__ path, long long path_len, int n_rows, int n_b,
    int row_offset, int* __restrict__ js, long long* __restrict__ ks, int batch) {
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch) return;
    band_walk_one(words + (long long)b * n_words, path + (long long)b * path_len, n_rows,
                  n_b, row_offset, js[b], ks[b]);
}

#ifdef XO_HOST_TEST
// Host drivers (tests/cuda_host.py): the kernels' bodies for every lattice in turn.
extern "C" void traceback_host(const unsigned int* words, long long n_words,
                               signed char* path, int n_a, int n_b, int batch) {
    for (int b = 0; b < batch; ++b)
        traceback_one(words + (long long)b * n_words, path + (long long)b * (n_a + n_b),
                      n_a, n_b);
}

extern "C" void band_traceback_host(const unsigned int* words, long long n_words,
                                    signed char* path, long long path_len, int n_rows,
                                    int n_b, int row_offset, int* js, long long* ks,
                                    int batch) {
    for (int b = 0; b < batch; ++b)
        band_walk_one(words + (long long)b * n_words, path + (long long)b * path_len,
                      n_rows, n_b, row_offset, js[b], ks[b]);
}
#endif
