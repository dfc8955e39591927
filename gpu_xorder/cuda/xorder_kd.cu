// Multi-group xOrder (docs/design.md, section 4): one step of iterative xOrder and the
// hyperplanes of K-D xOrder, for K >= 3 groups (two groups use the 2-D kernels).
//
// Launchers: gpu_xorder/_multi_launch.py on gpu_xorder/_cupy_engine.py. NumPy references:
// cpu_reference/_iterative.py (step_fill) and cpu_reference/_kd.py (fill_kd); the G-hat
// below is the operation sequence of cpu_reference/_kgroups.ghat. Counters are doubles
// holding exact integers (all below 2**53), so their sums may be regrouped freely; every
// rounded operation is the NumPy one. Compile with --fmad=false.
//
// Every function that decides cells is __host__ __device__: the test suite compiles
// this file for the host with XO_HOST_TEST (the *_host drivers at the end replay the
// kernels' launch schedule cell by cell), so the kernels' logic is checked against
// NumPy on machines without a GPU.
//
// METRIC (from xorder_common.cuh): 0 = xauc, 1 = prf, 2 = urf. Multi-group disparity
// is always absolute.
#include "xorder_common.cuh"

#define XO_HD __host__ __device__ __forceinline__
#define KMAX 32  // most groups of a K-D lattice

// ------------------------------------------------------------------ iterative step
// Lattice (n_a + 1) x (n_b + 1): axis a is the merged sequence (old groups, compact
// indices q = 0..m-1), axis b the group being merged. Counter rows of a diagonal buffer
// (each n_a + 1 long, cell (i, d - i) at column i): C[q][b] (rows 0..m-1), C[b][q]
// (m..2m-1), and for URF U[q][b] (2m..3m-1), U[b][q] (3m..4m-1).
struct IterArgs {
    int n_a, n_b, m, b_group;
    const int* seq_q;          // (n_a) compact old-group index of merged item i - 1
    const int* seq_g;          // (n_a) its group index
    const double* seq_y;       // (n_a) its label
    const double* y_b;         // (n_b) labels of b, DP order
    const double* neg_b;       // (n_b + 1) n_b0 - Q_b(j)
    const double* negleft_a;   // (m, n_a + 1) n_q0 - Q_q(i) over the merged prefix
    const double* left_a;      // (m, n_a + 1) n_q - count_q(i) (URF)
    const double* qc;          // (m, 8) per old group, see iter_ghat
    double s_const, w, inv_auc, floor_d, w_b, inv_p_b, lam;
};

// Counter (row, q) of the candidate reached by a step along a (side 0: item i - 1 of
// the merged sequence, old group qs) or along b (side 1: item j - 1 of b), read from
// the predecessor's column col of buffer from.
XO_HD double iter_counter(const IterArgs& A, const double* from, int col, int side,
                          int row, int q, int i, int j, int qs) {
    const long long stride = (long long)A.n_a + 1;
    double v = from[(long long)(row * A.m + q) * stride + col];
    if (side == 0) {
        if (q == qs && row == 0) v += A.seq_y[i - 1] * A.neg_b[j];
        if (q == qs && row == 2) v += (double)(A.n_b - j);
    } else {
        if (row == 1) v += A.y_b[j - 1] * A.negleft_a[(long long)q * stride + i];
        if (row == 3) v += A.left_a[(long long)q * stride + i];
    }
    return v;
}

// G-hat of one candidate: _kgroups.ghat over the merged groups plus b, with the pairs
// without b folded into s_const (their C sum) and floor_d (the maximum of their |term|;
// 0 when there are none). qc[q] = {inv_x[q][b], inv_x[b][q], inv_u[q,b], q < b,
// R_q of the pairs without b, w_q, inv_p[q], 0}.
XO_HD double iter_ghat(const IterArgs& A, const double* from, int col, int side, int i,
                       int j, int qs) {
    double s = 0.0, d = A.floor_d;
#if METRIC == 1
    double r_b = 0.0, p_max = 0.0, p_min = 0.0;
#endif
    for (int q = 0; q < A.m; ++q) {
        const double* k = A.qc + 8 * q;
        const double c_qb = iter_counter(A, from, col, side, 0, q, i, j, qs);
        const double c_bq = iter_counter(A, from, col, side, 1, q, i, j, qs);
        s += c_qb + c_bq;
#if METRIC == 0
        const double t = k[3] != 0.0 ? c_qb * k[0] - c_bq * k[1] : c_bq * k[1] - c_qb * k[0];
        d = fmax(d, fabs(t));
#elif METRIC == 1
        r_b += c_bq;
        const double p = ((k[4] + c_qb) + k[5]) * k[6];
        p_max = q == 0 ? p : fmax(p_max, p);
        p_min = q == 0 ? p : fmin(p_min, p);
#else
        const double u_qb = iter_counter(A, from, col, side, 2, q, i, j, qs);
        const double u_bq = iter_counter(A, from, col, side, 3, q, i, j, qs);
        const double t = k[3] != 0.0 ? (u_qb - u_bq) * k[2] : (u_bq - u_qb) * k[2];
        d = fmax(d, fabs(t));
#endif
    }
#if METRIC == 1
    // max over pairs of |P_g - P_h| is P_max - P_min: rounding is monotone
    const double p = (r_b + A.w_b) * A.inv_p_b;
    d = fmax(p_max, p) - fmin(p_min, p);
#endif
    const double auc = ((s + A.s_const) + A.w) * A.inv_auc;
    return auc - d * A.lam;
}

// Decide cell (i, d - i) (edges included), write its counters to cur; returns the bit.
// Tie rule of _iterative.step_fill: on equal G-hat the item of the higher group index wins.
XO_HD bool iter_cell(const IterArgs& A, const double* prev, double* cur, int i, int d) {
    const int j = d - i;
    const int qs = i >= 1 ? A.seq_q[i - 1] : 0;
    bool take_a;
    if (i == 0) {
        take_a = false;
    } else if (j == 0) {
        take_a = true;
    } else {
        const double g_a = iter_ghat(A, prev, i - 1, 0, i, j, qs);
        const double g_b = iter_ghat(A, prev, i, 1, i, j, qs);
        take_a = g_a > g_b || (g_a == g_b && A.seq_g[i - 1] > A.b_group);
    }
    const int rows = METRIC == 2 ? 4 : 2;
    const long long stride = (long long)A.n_a + 1;
    for (int row = 0; row < rows; ++row)
        for (int q = 0; q < A.m; ++q)
            cur[(long long)(row * A.m + q) * stride + i] = iter_counter(
                A, prev, take_a ? i - 1 : i, take_a ? 0 : 1, row, q, i, j, qs);
    return take_a;
}

// Word of the 2-D decision layout (cpu_reference._bits) holding the 32-row block of
// row i on diagonal d.
XO_HD long long block_word(int i, int d, int n_b) {
    return (long long)((i - 1) >> 5) * (n_b - 1) + d - 2;
}

#define ITER_PARAMS                                                                     \
    const int* __restrict__ seq_q, const int* __restrict__ seq_g,                        \
    const double* __restrict__ seq_y, const double* __restrict__ y_b,                    \
    const double* __restrict__ neg_b, const double* __restrict__ negleft_a,              \
    const double* __restrict__ left_a, const double* __restrict__ qc,                    \
    const double* __restrict__ scal, int n_a, int n_b, int m, int b_group
#define ITER_ARGS                                                                       \
    IterArgs A = {n_a, n_b, m, b_group, seq_q, seq_g, seq_y, y_b, neg_b, negleft_a,      \
                  left_a, qc, scal[0], scal[1], scal[2], scal[3], scal[4], scal[5],      \
                  scal[6]}

// One anti-diagonal d of an iterative step: thread x decides interior row
// i = first_row + x (first_row starts a 32-row block, so a warp's ballot is one word);
// thread 0 of block 0 also decides the edge cells (0, d) and (d, 0). The kernel body is
// split into the thread part, the warp's word store and the edges, so that the host
// driver iter_diag_launch_host replays a launch with the very same code.
XO_HD int iter_row(int i_lo, int block, int block_dim, int thread) {
    return ((i_lo - 1) & ~31) + 1 + block * block_dim + thread;
}

XO_HD bool iter_thread(const IterArgs& A, const double* prev, double* cur, int i, int d,
                       int i_lo, int i_hi) {
    return i_lo <= i_hi && i >= i_lo && i <= i_hi ? iter_cell(A, prev, cur, i, d) : false;
}

// Store of lane 0 of the warp whose lane 0 handles row i.
XO_HD void iter_store(unsigned int* words, unsigned int ballot, int i, int d, int i_lo,
                      int i_hi, int n_b) {
    if (i_lo <= i_hi && i <= i_hi) words[block_word(i, d, n_b)] = ballot;
}

XO_HD void iter_edges(const IterArgs& A, const double* prev, double* cur, int d) {
    if (d <= A.n_b) iter_cell(A, prev, cur, 0, d);
    if (d <= A.n_a) iter_cell(A, prev, cur, d, d);
}

extern "C" __global__ void iter_diag_kernel(
    ITER_PARAMS, const double* __restrict__ prev, double* __restrict__ cur,
    unsigned int* __restrict__ words, int d, int i_lo, int i_hi) {
    ITER_ARGS;
    const int i = iter_row(i_lo, blockIdx.x, blockDim.x, threadIdx.x);
    const bool take_a = iter_thread(A, prev, cur, i, d, i_lo, i_hi);
    const unsigned int ballot = __ballot_sync(0xffffffffu, take_a);
    if ((threadIdx.x & 31) == 0) iter_store(words, ballot, i, d, i_lo, i_hi, n_b);
    if (blockIdx.x == 0 && threadIdx.x == 0) iter_edges(A, prev, cur, d);
}

// ------------------------------------------------------------------ K-D hyperplanes
// Cells in the sorted-box layout of cpu_reference._kd._Layout: position p of the box of
// the K - 1 axes other than `last`, sorted by coordinate sum; on hyperplane d the cell
// at p has x_last = d - sums[p]. Counter rows (each `box` long): C[g][h] for the ordered
// pairs g != h in lexicographic order, then (URF) U[g][h] likewise.
struct KdArgs {
    int k, last, box;
    const int* axis;         // (k - 1) group of each box axis
    const int* coords;       // (k - 1, box) coordinates of the sorted box cells
    const int* sums;         // (box) their coordinate sums
    const long long* pred;   // (k - 1, box) position of the predecessor along each axis
    const int* sizes;        // (k) n_g
    const double* ys;        // labels of every group, DP order, concatenated
    const long long* ys_off;       // (k) offset of group g in ys
    const double* negleft;   // n_g0 - Q_g(x), length n_g + 1 per group, concatenated
    const long long* nl_off;       // (k) offset of group g in negleft
    const double* inv_x;     // (k, k) 1 / (n_g1 n_h0)
    const double* inv_p;     // (k) 1 / (n_g1 n_0)
    const double* w_g;       // (k) within-group pairs of g (ties 1/2)
    const double* inv_u;     // (k, k) 1 / (n_g n_h)
    double w, inv_auc, lam;
};

XO_HD int pair_index(int g, int h, int k) { return g * (k - 1) + (h < g ? h : h - 1); }

// Counter (u: 0 = C, 1 = U) of pair (g, h) after a step along axis s from the cell at
// src (coordinates x of the cell being decided).
XO_HD double kd_counter(const KdArgs& A, const double* from, long long src, int u, int g,
                        int h, int s, const int* x) {
    const int npairs = A.k * (A.k - 1);
    double v = from[(long long)(u * npairs + pair_index(g, h, A.k)) * A.box + src];
    if (g == s) {
        if (u == 0) v += A.ys[A.ys_off[s] + x[s] - 1] * A.negleft[A.nl_off[h] + x[h]];
        else v += (double)(A.sizes[h] - x[h]);
    }
    return v;
}

// _kgroups.ghat over all K groups (absolute disparity).
XO_HD double kd_ghat(const KdArgs& A, const double* from, long long src, int s,
                     const int* x) {
    double total = 0.0, d = 0.0;
    for (int g = 0; g < A.k; ++g)
        for (int h = 0; h < A.k; ++h)
            if (g != h) total += kd_counter(A, from, src, 0, g, h, s, x);
#if METRIC == 1
    double p_max = 0.0, p_min = 0.0;
    for (int g = 0; g < A.k; ++g) {
        double r = 0.0;
        for (int h = 0; h < A.k; ++h)
            if (h != g) r += kd_counter(A, from, src, 0, g, h, s, x);
        const double p = (r + A.w_g[g]) * A.inv_p[g];
        p_max = g == 0 ? p : fmax(p_max, p);
        p_min = g == 0 ? p : fmin(p_min, p);
    }
    d = p_max - p_min;  // max over pairs of |P_g - P_h|: rounding is monotone
#else
    for (int g = 0; g < A.k; ++g) {
        for (int h = g + 1; h < A.k; ++h) {
#if METRIC == 0
            const double t = kd_counter(A, from, src, 0, g, h, s, x) * A.inv_x[g * A.k + h]
                           - kd_counter(A, from, src, 0, h, g, s, x) * A.inv_x[h * A.k + g];
#else
            const double t = (kd_counter(A, from, src, 1, g, h, s, x)
                              - kd_counter(A, from, src, 1, h, g, s, x)) * A.inv_u[g * A.k + h];
#endif
            d = fmax(d, fabs(t));
        }
    }
#endif
    const double auc = (total + A.w) * A.inv_auc;
    return auc - d * A.lam;
}

// Decide the cell at position p of hyperplane d: scan the axes in increasing order, a
// later axis replacing the best on >= (the highest group index wins ties). Writes the
// counters to cur and returns the axis.
XO_HD int kd_cell(const KdArgs& A, const double* prev, double* cur, long long p, int d) {
    int x[KMAX];
    for (int a = 0; a < A.k - 1; ++a) x[A.axis[a]] = A.coords[(long long)a * A.box + p];
    x[A.last] = d - A.sums[p];
    double best = -1.0e308;
    int choice = -1;
    long long src_choice = p;
    for (int s = 0; s < A.k; ++s) {
        if (x[s] < 1) continue;
        long long src = p;
        if (s != A.last) {
            int a = 0;
            while (A.axis[a] != s) ++a;
            src = A.pred[(long long)a * A.box + p];
        }
        const double value = kd_ghat(A, prev, src, s, x);
        if (choice < 0 || value >= best) { best = value; choice = s; src_choice = src; }
    }
    const int npairs = A.k * (A.k - 1);
    const int rows = METRIC == 2 ? 2 : 1;
    for (int u = 0; u < rows; ++u)
        for (int g = 0; g < A.k; ++g)
            for (int h = 0; h < A.k; ++h)
                if (g != h)
                    cur[(long long)(u * npairs + pair_index(g, h, A.k)) * A.box + p] =
                        kd_counter(A, prev, src_choice, u, g, h, choice, x);
    return choice;
}

// Decision words of hyperplane d: bit r = p - (lo & ~31) of plane b holds bit b of the
// chosen axis, in word base[d] + (r >> 5) of the plane (planes plane_words apart).
XO_HD long long kd_word(long long p, long long lo, long long base_d) {
    return base_d + ((p - (lo & ~31LL)) >> 5);
}

#define KD_PARAMS                                                                       \
    const int* __restrict__ axis, const int* __restrict__ coords,                        \
    const int* __restrict__ sums, const long long* __restrict__ pred,                    \
    const int* __restrict__ sizes, const double* __restrict__ ys,                        \
    const long long* __restrict__ ys_off, const double* __restrict__ negleft,            \
    const long long* __restrict__ nl_off, const double* __restrict__ inv_x,              \
    const double* __restrict__ inv_p, const double* __restrict__ w_g,                    \
    const double* __restrict__ inv_u, const double* __restrict__ scal, int k, int last,  \
    int box
#define KD_ARGS                                                                         \
    KdArgs A = {k, last, box, axis, coords, sums, pred, sizes, ys, ys_off, negleft,      \
                nl_off, inv_x, inv_p, w_g, inv_u, scal[0], scal[1], scal[2]}

// One hyperplane d, positions [lo, hi): thread x handles p = (lo & ~31) + x; split like
// iter_diag_kernel (host replay: kd_plane_launch_host).
XO_HD long long kd_position(long long lo, int block, int block_dim, int thread) {
    return (lo & ~31LL) + (long long)block * block_dim + thread;
}

XO_HD int kd_thread(const KdArgs& A, const double* prev, double* cur, long long p, int d,
                    long long lo, long long hi) {
    return p >= lo && p < hi ? kd_cell(A, prev, cur, p, d) : 0;
}

// Store of lane 0 (position p) of bit plane b.
XO_HD void kd_store(unsigned int* words, unsigned int ballot, int b, long long plane_words,
                    long long p, long long lo, long long hi, long long base_d) {
    if (p < hi) words[b * plane_words + kd_word(p, lo, base_d)] = ballot;
}

extern "C" __global__ void kd_plane_kernel(
    KD_PARAMS, const double* __restrict__ prev, double* __restrict__ cur,
    unsigned int* __restrict__ words, long long plane_words, int nbits, int d,
    long long lo, long long hi, long long base_d) {
    KD_ARGS;
    const long long p = kd_position(lo, blockIdx.x, blockDim.x, threadIdx.x);
    const int choice = kd_thread(A, prev, cur, p, d, lo, hi);
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

extern "C" __global__ void kd_traceback_kernel(
    const unsigned int* __restrict__ words, long long plane_words, int nbits,
    const long long* __restrict__ lo, const long long* __restrict__ base,
    const long long* __restrict__ rank, const long long* __restrict__ stride, int k,
    int last, const int* __restrict__ sizes, signed char* __restrict__ path) {
    if (blockIdx.x == 0 && threadIdx.x == 0)
        kd_walk(words, plane_words, nbits, lo, base, rank, stride, k, last, sizes, path);
}

#ifdef XO_HOST_TEST
// Host drivers: the kernels' launch schedule, cell by cell, on host arrays.
extern "C" void iter_fill_host(ITER_PARAMS, double* prev, double* cur,
                               unsigned int* words, double* final_counters) {
    ITER_ARGS;
    const int rows = (METRIC == 2 ? 4 : 2) * m;
    const long long stride = (long long)n_a + 1;
    for (int d = 1; d <= n_a + n_b; ++d) {
        const int i_lo = d - n_b > 1 ? d - n_b : 1, i_hi = n_a < d - 1 ? n_a : d - 1;
        for (int i = i_lo; i <= i_hi; ++i)
            if (iter_cell(A, prev, cur, i, d))
                words[block_word(i, d, n_b)] |= 1u << ((i - 1) & 31);
        if (d <= n_b) iter_cell(A, prev, cur, 0, d);
        if (d <= n_a) iter_cell(A, prev, cur, d, d);
        double* t = prev; prev = cur; cur = t;
    }
    for (int r = 0; r < rows; ++r) final_counters[r] = prev[r * stride + n_a];
}

extern "C" void kd_fill_host(KD_PARAMS, double* prev, double* cur, unsigned int* words,
                             long long plane_words, int nbits, const long long* lo,
                             const long long* hi, const long long* base, int n_planes,
                             long long end, double* final_counters) {
    KD_ARGS;
    for (int d = 1; d <= n_planes; ++d) {
        for (long long p = lo[d]; p < hi[d]; ++p) {
            const int choice = kd_cell(A, prev, cur, p, d);
            const long long r = p - (lo[d] & ~31LL);
            for (int b = 0; b < nbits; ++b)
                if ((choice >> b) & 1)
                    words[b * plane_words + kd_word(p, lo[d], base[d])] |= 1u << (r & 31);
        }
        double* t = prev; prev = cur; cur = t;
    }
    const int rows = (METRIC == 2 ? 2 : 1) * k * (k - 1);
    for (int r = 0; r < rows; ++r) final_counters[r] = prev[r * (long long)box + end];
}

// One kernel launch replayed on the host: every warp of the grid, its 32 threads in
// turn, the ballot formed from their results. Blocks are multiples of 32 threads.
extern "C" void iter_diag_launch_host(int grid, int block_dim, ITER_PARAMS,
                                      const double* prev, double* cur, unsigned int* words,
                                      int d, int i_lo, int i_hi) {
    ITER_ARGS;
    for (int bx = 0; bx < grid; ++bx)
        for (int w0 = 0; w0 < block_dim; w0 += 32) {
            unsigned int ballot = 0;
            for (int t = 0; t < 32; ++t) {
                const int i = iter_row(i_lo, bx, block_dim, w0 + t);
                if (iter_thread(A, prev, cur, i, d, i_lo, i_hi)) ballot |= 1u << t;
            }
            iter_store(words, ballot, iter_row(i_lo, bx, block_dim, w0), d, i_lo, i_hi, n_b);
        }
    iter_edges(A, prev, cur, d);
}

extern "C" void kd_plane_launch_host(long long grid, int block_dim, KD_PARAMS,
                                     const double* prev, double* cur, unsigned int* words,
                                     long long plane_words, int nbits, int d, long long lo,
                                     long long hi, long long base_d) {
    KD_ARGS;
    for (long long bx = 0; bx < grid; ++bx)
        for (int w0 = 0; w0 < block_dim; w0 += 32) {
            int choice[32];
            for (int t = 0; t < 32; ++t)
                choice[t] = kd_thread(A, prev, cur, kd_position(lo, (int)bx, block_dim, w0 + t),
                                      d, lo, hi);
            for (int b = 0; b < nbits; ++b) {
                unsigned int ballot = 0;
                for (int t = 0; t < 32; ++t) ballot |= (unsigned int)((choice[t] >> b) & 1) << t;
                kd_store(words, ballot, b, plane_words, kd_position(lo, (int)bx, block_dim, w0),
                         lo, hi, base_d);
            }
        }
}

extern "C" void kd_walk_host(const unsigned int* words, long long plane_words, int nbits,
                             const long long* lo, const long long* base,
                             const long long* rank, const long long* stride, int k,
                             int last, const int* sizes, signed char* path) {
    kd_walk(words, plane_words, nbits, lo, base, rank, stride, k, last, sizes, path);
}
#endif
