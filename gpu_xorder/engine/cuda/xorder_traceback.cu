// On-device traceback of 2-D lattices (two groups, iterative steps, bands of rows):
// docs/design.md, section 9.3. Launch schedules: gpu_xorder/engine/_launch.py.
// words: [batch][n_words] uint32, the skewed 32-row block layout of cpu_reference's
// decision bits (a set bit: the cell was entered along a).
//
// The walks are __host__ __device__: the tests' host build (XO_HOST_TEST) runs the
// kernels' bodies (drivers in tests/support/cuda_host/).
#define XO_WALK_HD __host__ __device__ __forceinline__

// Walk the decision bits back from cell (i, j) until the path meets row 0 or column 0,
// writing the group of every step before *end (last rank last): twin of
// cpu_reference._traceback.walk. Returns with (i, j) the edge cell reached and end moved
// back over the steps written. __host__ __device__: the tests run it on the host.
XO_WALK_HD void walk_back(const unsigned int* __restrict__ w, long long stride, int& i,
                          int& j, signed char*& end) {
    while (i > 0 && j > 0) {
        const int t = (i - 1) & 31;
        if ((w[((i - 1) >> 5) * stride + j + t - 1] >> t) & 1u) { *--end = 0; --i; }
        else { *--end = 1; --j; }
    }
}

// Path of one lattice (twin of cpu_reference._traceback.traceback).
XO_WALK_HD void traceback_one(const unsigned int* w, signed char* p, int n_a, int n_b) {
    int i = n_a, j = n_b;
    signed char* end = p + n_a + n_b;
    walk_back(w, (long long)n_b + 31, i, j, end);
    while (end > p) *--end = i > 0 ? 0 : 1;  // forced from the edge
}

// One band of rows of lattice b, walked from the band's last row at column js[b]
// (cpu_reference._banded): the steps land before path[b] + ks[b]; when the walk meets
// column 0, or row 0 of the top band (row_offset 0), the forced rest is written too and
// ks[b] becomes 0. words: the band's bits, layout of a lattice of n_rows rows.
XO_WALK_HD void band_walk_one(const unsigned int* w, signed char* p, int n_rows, int n_b,
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
