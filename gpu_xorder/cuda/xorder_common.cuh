// Shared device functions of the xOrder lattice (docs/design.md, sections 3.2 and 3.3).
//
// Each function mirrors a NumPy function of cpu_reference and must perform the very
// same sequence of float64 operations, so that both backends take the same decision
// in every cell, exact G-hat ties included. Compile with --fmad=false.
#ifndef XORDER_COMMON_CUH
#define XORDER_COMMON_CUH

// METRIC: 0 = xauc, 1 = prf, 2 = urf.  SIGNED: 0 = |D|, 1 = D (paper eq. 14).
#ifndef METRIC
#define METRIC 0
#endif
#ifndef SIGNED
#define SIGNED 0
#endif
#if METRIC == 2
#define NCOUNT 4  // cab, cba, uab, uba
#else
#define NCOUNT 2  // cab, cba
#endif

// The float64 constants of G-hat, in the order of GhatConstants.astuple().
struct Consts {
    double w, w_a, w_b, inv_auc, inv_ab, inv_ba, inv_pa, inv_pb, inv_u;
};

__device__ __forceinline__ Consts load_consts(const double* __restrict__ c) {
    Consts k;
    k.w = c[0]; k.w_a = c[1]; k.w_b = c[2]; k.inv_auc = c[3]; k.inv_ab = c[4];
    k.inv_ba = c[5]; k.inv_pa = c[6]; k.inv_pb = c[7]; k.inv_u = c[8];
    return k;
}

// Twin of cpu_reference._ghat.ghat (auc_into, disparity_into, then auc - lam * d).
// Counter is long long, or double holding the same exact integer (every counter is
// below 2**53): (double)(x0 + x1) and (double)(x2 - x3) then take the same value either
// way, so the result is bit-identical; the double form spares the tiled kernel the
// int-to-float conversions on its per-step critical path.
template <typename Counter>
__device__ __forceinline__ double ghat(const Counter* x, double lam, const Consts& c) {
    double auc = ((double)(x[0] + x[1]) + c.w) * c.inv_auc;
#if METRIC == 0
    double d = (double)x[0] * c.inv_ab - (double)x[1] * c.inv_ba;
#elif METRIC == 1
    double d = ((double)x[0] + c.w_a) * c.inv_pa - ((double)x[1] + c.w_b) * c.inv_pb;
#else
    double d = (double)(x[2] - x[3]) * c.inv_u;
#endif
#if !SIGNED
    d = fabs(d);
#endif
    return auc - lam * d;
}

// Step gains of cell (i, j): twin of the gain lines of cpu_reference._fill.DiagonalStep.
template <typename Counter>
struct Gains {
    Counter ca, cb;  // cab gain of the a-step, cba gain of the b-step
    Counter ua, ub;  // uab gain of the a-step, uba gain of the b-step (URF)
};

// Counter is long long, or double (inputs and products are exact integers below 2**53).
template <typename Counter>
__device__ __forceinline__ Gains<Counter> make_gains(
    Counter y_a_i, Counter negleft_a_i, Counter y_b_j, Counter negleft_b_j,
    int left_a_i, int left_b_j) {
    // y_a_i = y_a[i-1], negleft_a_i = n_a0 - Q_a(i), y_b_j = y_b[j-1],
    // negleft_b_j = n_b0 - Q_b(j), left_a_i = n_a - i, left_b_j = n_b - j.
    Gains<Counter> g;
    g.ca = y_a_i * negleft_b_j;
    g.cb = y_b_j * negleft_a_i;
    g.ua = (Counter)left_b_j;
    g.ub = (Counter)left_a_i;
    return g;
}

__device__ __forceinline__ Gains<long long> step_gains(
    int i, int j, int n_a, int n_b,
    const long long* __restrict__ y_a, const long long* __restrict__ y_b_rev,
    const long long* __restrict__ negleft_a, const long long* __restrict__ negleft_b_rev) {
    const int k = n_b - j;
    return make_gains<long long>(y_a[i - 1], negleft_a[i], y_b_rev[k], negleft_b_rev[k],
                                 n_a - i, k);
}

// Twin of cpu_reference._fill.DiagonalStep for one cell: candidates from the
// a-predecessor (i-1, j) and the b-predecessor (i, j-1); the a-step wins only on a
// strictly larger G-hat. Writes the chosen counters to out, returns the decision bit.
// Counter: long long, or double holding exact integers (see ghat).
template <typename Counter>
__device__ __forceinline__ bool cell_update(
    const Counter* from_a, const Counter* from_b, const Gains<Counter>& g,
    double lam, const Consts& c, Counter* out) {
    Counter ca[NCOUNT], cb[NCOUNT];
#pragma unroll
    for (int q = 0; q < NCOUNT; ++q) { ca[q] = from_a[q]; cb[q] = from_b[q]; }
    ca[0] += g.ca;
    cb[1] += g.cb;
#if NCOUNT == 4
    ca[2] += g.ua;
    cb[3] += g.ub;
#endif
    bool take_a = ghat(ca, lam, c) > ghat(cb, lam, c);
#pragma unroll
    for (int q = 0; q < NCOUNT; ++q) out[q] = take_a ? ca[q] : cb[q];
    return take_a;
}

#endif  // XORDER_COMMON_CUH
