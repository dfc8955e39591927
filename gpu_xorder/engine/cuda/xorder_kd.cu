// K-D xOrder (docs/design.md, section 4): one launch per hyperplane of the K-D lattice,
// one thread per cell, and the traceback. Launch schedule: gpu_xorder/engine/_launch.py (kd).
// NumPy twin: cpu_reference.solve_kd; the objective (KdObjective: gains and G-hat) is
// xorder_objective.cuh's. Multi-group disparity is always absolute.
//
// Every function that decides cells is __host__ __device__ and templated on the metric:
// the tests' host build (XO_HOST_TEST, drivers in tests/support/cuda_host/) replays
// each launch with this very code for every metric.
#include "xorder_objective.cuh"

#define KMAX 32  // most groups of a K-D lattice

// Cells in the sorted-box layout of cpu_reference.KdLayout: position p of the box of the
// K - 1 axes other than `last`, sorted by coordinate sum; on hyperplane d the cell at p
// has x_last = d - sums[p]. Counter rows (each `box` long): the K-D counter order of
// xorder_objective.cuh (pair_index).
struct KdLattice {
    int k, last, box;
    const int* axis;          // (k - 1) group of each box axis
    const int* coords;        // (k - 1, box) coordinates of the sorted box cells
    const int* sums;          // (box) their coordinate sums
    const long long* pred;    // (k - 1, box) position of the predecessor along each axis
    const int* sizes;         // (k) n_g
    const double* ys;         // labels of every group, DP order, concatenated
    const long long* ys_off;  // (k) offset of group g in ys
    const double* negleft;    // n_g0 - Q_g(x), length n_g + 1 per group, concatenated
    const long long* nl_off;  // (k) offset of group g in negleft
    const double* wts;        // items of every row (its weight on U), laid out as ys
    const double* items_left; // items of g below its first x rows, laid out as negleft
};

// Kernel parameters, by name (gpu_xorder/engine/_kernel_source.py launches by these names).
#define KD_PARAMS                                                                       \
    const int* __restrict__ axis, const int* __restrict__ coords,                        \
    const int* __restrict__ sums, const long long* __restrict__ pred,                    \
    const int* __restrict__ sizes, const double* __restrict__ ys,                        \
    const long long* __restrict__ ys_off, const double* __restrict__ negleft,            \
    const long long* __restrict__ nl_off, const double* __restrict__ wts,                \
    const double* __restrict__ items_left, const double* __restrict__ inv_x,             \
    const double* __restrict__ inv_p, const double* __restrict__ w_g,                    \
    const double* __restrict__ inv_u, double w, double inv_auc, double lam, int k,       \
    int last, int box, const double* __restrict__ prev, double* __restrict__ cur,        \
    unsigned int* __restrict__ words, long long plane_words, int nbits, int d,           \
    long long lo, long long hi, long long base_d
#define KD_LATTICE                                                                      \
    KdLattice{k,      last,    box,    axis, coords,    sums, pred, sizes, ys,              \
              ys_off, negleft, nl_off, wts,  items_left}
#define KD_OBJECTIVE(METRIC_) KdObjective<METRIC_>{k, w, inv_auc, inv_x, inv_p, w_g, inv_u}

// Counter (u: 0 = C, 1 = U) of pair (g, h) after a step along axis s from the cell at
// src (coordinates x of the cell being decided).
XO_HD double kd_counter(const KdLattice& L, const double* from, long long src, int u, int g,
                        int h, int s, const int* x) {
    const int npairs = L.k * (L.k - 1);
    double v = from[(long long)(u * npairs + pair_index(g, h, L.k)) * L.box + src];
    if (g == s)
        v += kd_step_gain(u, L.ys[L.ys_off[s] + x[s] - 1], L.negleft[L.nl_off[h] + x[h]],
                          L.wts[L.ys_off[s] + x[s] - 1], L.items_left[L.nl_off[h] + x[h]]);
    return v;
}

// Decide the cell at position p of hyperplane d: scan the axes in increasing order, a
// later axis replacing the best on >= (the highest group index wins ties). Writes the
// counters to cur and returns the axis.
template <int Metric_>
XO_HD int kd_cell(const KdObjective<Metric_>& o, double lam, const KdLattice& L,
                  const double* prev, double* cur, long long p, int d) {
    int x[KMAX];
    for (int a = 0; a < L.k - 1; ++a) x[L.axis[a]] = L.coords[(long long)a * L.box + p];
    x[L.last] = d - L.sums[p];
    double best = -1.0e308;
    int choice = -1;
    long long src_choice = p;
    for (int s = 0; s < L.k; ++s) {
        if (x[s] < 1) continue;
        long long src = p;
        if (s != L.last) {
            int a = 0;
            while (L.axis[a] != s) ++a;
            src = L.pred[(long long)a * L.box + p];
        }
        const double value = ghat(o, [&](int u, int g, int h) {
            return kd_counter(L, prev, src, u, g, h, s, x);
        }, lam);
        if (choice < 0 || value >= best) { best = value; choice = s; src_choice = src; }
    }
    const int npairs = L.k * (L.k - 1);
    for (int u = 0; u < KdObjective<Metric_>::kinds; ++u)
        for (int g = 0; g < L.k; ++g)
            for (int h = 0; h < L.k; ++h)
                if (g != h)
                    cur[(long long)(u * npairs + pair_index(g, h, L.k)) * L.box + p] =
                        kd_counter(L, prev, src_choice, u, g, h, choice, x);
    return choice;
}

// Decision words of hyperplane d: bit r = p - (lo & ~31) of plane b holds bit b of the
// chosen axis, in word base_d + (r >> 5) of the plane (planes plane_words apart).
XO_HD long long kd_word(long long p, long long lo, long long base_d) {
    return base_d + ((p - (lo & ~31LL)) >> 5);
}

// One hyperplane d, positions [lo, hi): thread x handles p = (lo & ~31) + x. Split into
// the thread's cell and the warp's stores so that kd_plane_launch_host replays a launch.
XO_HD long long kd_position(long long lo, long long block, int block_dim, int thread) {
    return (lo & ~31LL) + block * block_dim + thread;
}

template <int Metric_>
XO_HD int kd_thread(const KdObjective<Metric_>& o, double lam, const KdLattice& L,
                    const double* prev, double* cur, long long p, int d, long long lo,
                    long long hi) {
    return p >= lo && p < hi ? kd_cell(o, lam, L, prev, cur, p, d) : 0;
}

// Store of lane 0 (position p) of bit plane b.
XO_HD void kd_store(unsigned int* words, unsigned int ballot, int b, long long plane_words,
                    long long p, long long lo, long long hi, long long base_d) {
    if (p < hi) words[b * plane_words + kd_word(p, lo, base_d)] = ballot;
}

extern "C" __global__ void kd_plane_kernel(KD_PARAMS) {
    const long long p = kd_position(lo, blockIdx.x, blockDim.x, threadIdx.x);
    const int choice = kd_thread(KD_OBJECTIVE(METRIC), lam, KD_LATTICE, prev, cur, p, d,
                                 lo, hi);
    for (int b = 0; b < nbits; ++b) {
        const unsigned int ballot = __ballot_sync(0xffffffffu, (choice >> b) & 1);
        if ((threadIdx.x & 31) == 0) kd_store(words, ballot, b, plane_words, p, lo, hi, base_d);
    }
}

// Walk the K-D decisions back from the last cell (one thread). path[r] = group of rank r.
XO_HD void kd_walk(const unsigned int* words, long long plane_words, int nbits,
                   const long long* lo, const long long* base, const long long* rank,
                   const long long* stride, int k, int last, const int* sizes,
                   signed char* path) {
    int x[KMAX];
    long long flat = 0, n = 0;
    for (int g = 0; g < k; ++g) {
        x[g] = sizes[g];
        n += sizes[g];
        if (g != last) flat += (long long)x[g] * stride[g];
    }
    for (long long d = n; d >= 1; --d) {
        const long long p = rank[flat];
        const long long r = p - (lo[d] & ~31LL);
        const long long w = base[d] + (r >> 5);
        int g = 0;
        for (int b = 0; b < nbits; ++b)
            g |= (int)((words[b * plane_words + w] >> (r & 31)) & 1u) << b;
        path[d - 1] = (signed char)g;
        x[g] -= 1;
        if (g != last) flat -= stride[g];
    }
}

#define KD_WALK_PARAMS                                                                  \
    const unsigned int* __restrict__ words, long long plane_words, int nbits,            \
    const long long* __restrict__ lo, const long long* __restrict__ base,                \
    const long long* __restrict__ rank, const long long* __restrict__ stride, int k,     \
    int last, const int* __restrict__ sizes, signed char* __restrict__ path

extern "C" __global__ void kd_traceback_kernel(KD_WALK_PARAMS) {
    if (blockIdx.x == 0 && threadIdx.x == 0)
        kd_walk(words, plane_words, nbits, lo, base, rank, stride, k, last, sizes, path);
}
