// Host drivers of xorder_kd.cu (kd_plane_kernel, kd_traceback_kernel) for the tests:
// the package's source, unchanged, then drivers that replay one launch with its
// __host__ __device__ code. Built by tests/support/cuda_host.py.
#include "xorder_kd.cu"

// One launch of kd_plane_kernel replayed on the host: every warp of
// the grid, its 32 threads in turn, the ballots formed from their results.
template <int Metric_>
void kd_plane_launch(long long grid, int block_dim, KD_PARAMS) {
    const KdObjective<Metric_> o = KD_OBJECTIVE(Metric_);
    const KdLattice L = KD_LATTICE;
    for (long long bx = 0; bx < grid; ++bx)
        for (int w0 = 0; w0 < block_dim; w0 += 32) {
            int choice[32];
            for (int t = 0; t < 32; ++t)
                choice[t] = kd_thread(o, lam, L, prev, cur, kd_position(lo, bx, block_dim, w0 + t),
                                      d, lo, hi);
            for (int b = 0; b < nbits; ++b) {
                unsigned int ballot = 0;
                for (int t = 0; t < 32; ++t) ballot |= (unsigned int)((choice[t] >> b) & 1) << t;
                kd_store(words, ballot, b, plane_words, kd_position(lo, bx, block_dim, w0),
                         lo, hi, base_d);
            }
        }
}

extern "C" int kd_plane_launch_host(int metric, long long grid, int block_dim, KD_PARAMS) {
#define XO_KD_CASE(METRIC_)                                                             \
    if (metric == METRIC_)                                                               \
        return kd_plane_launch<METRIC_>(grid, block_dim, axis, coords, sums, pred, sizes,  \
                                        ys, ys_off, negleft, nl_off, wts, items_left,      \
                                        inv_x, inv_p, w_g,                                 \
                                        inv_u, w, inv_auc, lam, k, last, box, prev, cur,   \
                                        words, plane_words, nbits, d, lo, hi, base_d), 0;
    XO_KD_CASE(METRIC_XAUC) XO_KD_CASE(METRIC_PRF) XO_KD_CASE(METRIC_URF)
    return -1;
}

extern "C" void kd_walk_host(KD_WALK_PARAMS) {
    kd_walk(words, plane_words, nbits, lo, base, rank, stride, k, last, sizes, path);
}
