// The xOrder objective on the device (docs/design.md, sections 3.1-3.3 and 4): per
// metric, the counters a cell keeps, the gains of a step and G-hat.
//
// Twin of cpu_reference/_objective.py, with the same names: the disparity term, written
// once (pair_term, prf_share), StepObjective (a "step lattice": M old groups on axis a
// against the group b being merged; M = 1 is the two-group lattice) and KdObjective
// (every group of a K-D lattice); step_gains, ghat, decide. The counters a metric keeps
// are counter_kinds (cpu_reference COUNTER_KINDS). Every rounded float64 operation below
// is the NumPy one, in the same order;
// counters are doubles holding exact integers (all below 2**53), so their sums may be
// regrouped freely. Compile with --fmad=false.
//
// The metric (METRIC_XAUC, METRIC_PRF, METRIC_URF: prepended from _kernel_source's
// METRIC_CODE), the mode (Signed: D instead of |D|, paper eq. 14)
// and M are template parameters: a kernel instantiates the ones prepended as METRIC,
// SIGNED and OLD_GROUPS, and the tests' host build (XO_HOST_TEST) instantiates them all.
#ifndef XORDER_OBJECTIVE_CUH
#define XORDER_OBJECTIVE_CUH

#define XO_HD __host__ __device__ __forceinline__

#ifndef METRIC
#define METRIC METRIC_XAUC
#endif
#ifndef SIGNED
#define SIGNED 0
#endif
#ifndef OLD_GROUPS
#define OLD_GROUPS 1
#endif

enum Metric { XAUC = METRIC_XAUC, PRF = METRIC_PRF, URF = METRIC_URF };

XO_HD double dmax(double a, double b) { return a > b ? a : b; }
XO_HD double dmin(double a, double b) { return a < b ? a : b; }

// Kinds of pair counter a metric keeps: C (positive above negative), and U (any above
// any) for URF. Twin of cpu_reference's COUNTER_KINDS.
__host__ __device__ constexpr int counter_kinds(int metric) {
    return metric == URF ? 2 : 1;
}

// ------------------------------------------------------------------ the disparity term
// The signed term of a pair of groups g, h (twin of _objective.pair_term, the operands
// as there): first * scale_first - second * scale_second, for URF first * scale_first.
//   xauc: first = C[g][h], second = C[h][g]; scales 1/(n_g1 n_h0), 1/(n_h1 n_g0)
//   prf:  first = R_g + w_g, second = R_h + w_h (P_g - P_h); 1/(n_g1 n_0), 1/(n_h1 n_0)
//   urf:  first = U[g][h] - U[h][g]; scale 1/(n_g n_h)
template <int Metric_>
XO_HD double pair_term(double first, double second, double scale_first,
                       double scale_second) {
    return Metric_ == URF ? first * scale_first
                          : first * scale_first - second * scale_second;
}

// PRF's share of a group: P_g = ((double)R_g + w_g) * inv_p[g] (twin of
// _objective.prf_share); R_g sums C[g][h] over the other groups (an exact integer).
XO_HD double prf_share(double r, double w, double inv_p) { return (r + w) * inv_p; }

// ------------------------------------------------------------------ step lattice
// Counters of a cell, NCOUNT = KINDS * M doubles: C[q][b] at q, C[b][q] at M + q, and for
// URF U[q][b] at 2M + q, U[b][q] at 3M + q (the rows of the boundary arrays and of the
// final counters; M = 1: cab, cba, uab, uba).
template <int Metric_, int Signed_, int M>
struct StepObjective {
    static constexpr int metric = Metric_, m = M;
    static constexpr bool is_signed = Signed_ != 0;
    static constexpr int n_counters = 2 * counter_kinds(Metric_) * M;  // both directions

    // The G-hat constants (cpu_reference StepConstants). With M = 1 there is no pair
    // without b, so s_const, row_const and floor are 0 and left out of the sequence.
    double s_const, w, inv_auc, w_b, inv_p_b, floor;
    double inv_qb[M], inv_bq[M], inv_u[M], row_const[M], w_q[M], inv_p[M];
    bool old_first;  // old group 0 precedes b: the orientation of D (signed, M = 1)
};

// Axis-a inputs of row i (merged item i - 1), loaded once per row.
template <int M>
struct StepRow {
    double y;          // its label, y_a[i - 1]
    int q;             // its old group, seq_q[i - 1]
    bool wins_ties;    // a_wins_ties[i - 1]: on equal G-hat the a-step wins
    double negleft[M]; // negleft_a[q][i], negatives of q not among the first i items
    double left[M];    // left_a[q][i], items of q not among the first i (URF)
    double u;          // u_a[i - 1], the row's items: its weight on U (URF; 1 for an item)
};

// Axis-b inputs of column j, at k = n_b - j.
// left_b_rev[k]: the items of b not among its first j columns (n_b - j on a lattice of
// items); u_b_rev[k]: the items of column j, its weight on U (URF; 1 for an item).
struct StepColumn {
    double y, negleft, left, u;  // y_b_rev[k], negleft_b_rev[k], left_b_rev[k], u_b_rev[k]
};

// The candidates of cell (i, j): ca from the a-predecessor (i - 1, j) plus the a-step's
// gains, cb from the b-predecessor (i, j - 1) plus the b-step's. Twin of
// _objective.step_gains: along a, item i - 1 (old group qs) adds y (n_b0 - Q_b(j)) to
// C[qs][b] and r_a (n_b - j) to U[qs][b]; along b, item j - 1 adds y (n_q0 - Q_q(i)) to
// every C[b][q] and r_b (n_q - count_q(i)) to every U[b][q] (r: a run's items, its weight
// on U; 1 on a lattice of items, where the products are the same integers). A gain of
// 0.0 leaves an exact integer unchanged, so the a-step's gain is added to every q, masked.
template <class Obj>
XO_HD void step_gains(const StepRow<Obj::m>& row, const StepColumn& col,
                      const double* from_a, const double* from_b, double* ca, double* cb) {
    constexpr int M = Obj::m;
    const double gain_c = row.y * col.negleft;
#pragma unroll
    for (int x = 0; x < Obj::n_counters; ++x) { ca[x] = from_a[x]; cb[x] = from_b[x]; }
#pragma unroll
    for (int q = 0; q < M; ++q) {
        const bool mine = M == 1 || q == row.q;
        ca[q] += mine ? gain_c : 0.0;
        cb[M + q] += col.y * row.negleft[q];
        if (Obj::metric == URF) {
            ca[2 * M + q] += mine ? row.u * col.left : 0.0;
            cb[3 * M + q] += col.u * row.left[q];
        }
    }
}

// G-hat of the counters x: twin of _objective.ghat for a StepObjective.
template <class Obj>
XO_HD double ghat(const Obj& o, const double* x, double lam) {
    constexpr int M = Obj::m;
    double total = x[0] + x[M];  // C of every pair with b: an exact integer
#pragma unroll
    for (int q = 1; q < M; ++q) total += x[q] + x[M + q];
    const double auc = ((M == 1 ? total : total + o.s_const) + o.w) * o.inv_auc;
    double d;  // the disparity term, oriented or absolute
    if (Obj::metric == PRF) {
        double p_max = 0.0, p_min = 0.0, c_b = 0.0;
#pragma unroll
        for (int q = 0; q < M; ++q) {
            const double p = prf_share(M == 1 ? x[q] : x[q] + o.row_const[q], o.w_q[q],
                                       o.inv_p[q]);
            p_max = q == 0 ? p : dmax(p_max, p);
            p_min = q == 0 ? p : dmin(p_min, p);
            c_b += x[M + q];
        }
        const double p_b = prf_share(c_b, o.w_b, o.inv_p_b);
        if (Obj::is_signed) d = p_max - p_b;  // M = 1: P_0 - P_b; orientation: see the end
        // max over pairs of |P_g - P_h| is P_max - P_min (rounding is monotone); with
        // one pair that is |P_0 - P_b|
        else d = M == 1 ? fabs(p_max - p_b) : dmax(p_max, p_b) - dmin(p_min, p_b);
    } else {
        d = M == 1 ? 0.0 : o.floor;
#pragma unroll
        for (int q = 0; q < M; ++q) {
            // the pair (q, b): C[q][b] * inv_qb - C[b][q] * inv_bq, or
            // (U[q][b] - U[b][q]) * inv_u
            const double t = Obj::metric == XAUC
                ? pair_term<XAUC>(x[q], x[M + q], o.inv_qb[q], o.inv_bq[q])
                : pair_term<URF>(x[2 * M + q] - x[3 * M + q], 0.0, o.inv_u[q], 0.0);
            if (Obj::is_signed) d = t;  // M = 1; orientation: see the end
            else d = M == 1 ? fabs(t) : dmax(d, fabs(t));
        }
    }
    // Signed: D is the term of the pair ordered g < h, so -t when b precedes old group 0.
    // (-t) * lam and t * (-lam) are the same double, and the sign of lam is loop-invariant.
    if (Obj::is_signed && !o.old_first) lam = -lam;
    return auc - d * lam;
}

// The cell rule: take the a-step on a larger G-hat, or on a tie where row i's item
// outranks b (twin of _objective.decide).
XO_HD bool decide(double g_a, double g_b, bool wins_ties) {
    return g_a > g_b || (wins_ties && g_a == g_b);
}

// ------------------------------------------------------------------ K-D lattice
// Counters of a cell: C[g][h] for the K (K - 1) ordered pairs g != h in lexicographic
// order, then (URF) U[g][h] likewise.
XO_HD int pair_index(int g, int h, int k) { return g * (k - 1) + (h < g ? h : h - 1); }

template <int Metric_>
struct KdObjective {
    static constexpr int metric = Metric_;
    static constexpr int kinds = counter_kinds(Metric_);
    int k;
    double w, inv_auc;
    const double* inv_x;  // (k, k) 1 / (n_g1 n_h0)
    const double* inv_p;  // (k) 1 / (n_g1 n_0)
    const double* w_g;    // (k) within-group pairs of g (ties 1/2)
    const double* inv_u;  // (k, k) 1 / (n_g n_h), g < h
};

// Gain of counter (u: 0 = C, 1 = U) of pair (s, h) when a row of group s (y positives,
// r items) is placed at a cell with x_h rows of h placed: y (n_h0 - Q_h(x_h)), or r times
// the items of h not yet placed (r = 1 and n_h - x_h on a lattice of items).
XO_HD double kd_step_gain(int u, double y, double negleft_h, double r, double left_h) {
    return u == 0 ? y * negleft_h : r * left_h;
}

// G-hat over all K groups, absolute disparity: twin of _objective.ghat for a
// KdObjective. counter(u, g, h) gives the candidate's counters.
template <int Metric_, class Counter>
XO_HD double ghat(const KdObjective<Metric_>& o, const Counter& counter, double lam) {
    const int k = o.k;
    double total = 0.0, d = 0.0;
    for (int g = 0; g < k; ++g)
        for (int h = 0; h < k; ++h)
            if (g != h) total += counter(0, g, h);
    if (Metric_ == PRF) {
        double p_max = 0.0, p_min = 0.0;
        for (int g = 0; g < k; ++g) {
            double r = 0.0;
            for (int h = 0; h < k; ++h)
                if (h != g) r += counter(0, g, h);
            const double p = prf_share(r, o.w_g[g], o.inv_p[g]);
            p_max = g == 0 ? p : dmax(p_max, p);
            p_min = g == 0 ? p : dmin(p_min, p);
        }
        d = p_max - p_min;  // max over pairs of |P_g - P_h|: rounding is monotone
    } else {
        for (int g = 0; g < k; ++g)
            for (int h = g + 1; h < k; ++h) {
                const double t = Metric_ == XAUC
                    ? pair_term<XAUC>(counter(0, g, h), counter(0, h, g),
                                      o.inv_x[g * k + h], o.inv_x[h * k + g])
                    : pair_term<URF>(counter(1, g, h) - counter(1, h, g), 0.0,
                                     o.inv_u[g * k + h], 0.0);
                d = dmax(d, fabs(t));
            }
    }
    const double auc = (total + o.w) * o.inv_auc;
    return auc - d * lam;
}

#endif  // XORDER_OBJECTIVE_CUH
