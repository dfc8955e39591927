// Host drivers of xorder_traceback.cu (traceback_kernel, band_traceback_kernel) for
// the tests: the package's source, unchanged, then the kernels' bodies for every lattice
// in turn. Built by tests/support/cuda_host.py.
#include "xorder_traceback.cu"

// The kernels' bodies for every lattice in turn.
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
