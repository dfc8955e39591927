// Host drivers of xorder_tiled.cu (tile_kernel, strip_kernel) for the tests: the
// package's source, unchanged, then drivers that replay one launch with its
// __host__ __device__ code, lanes of a warp in turn. Built by tests/support/cuda_host.py
// (nvcc, -I the package's cuda/ folder) into a library that tests/support/fake_cupy.py
// calls for every launch of the emulated device.
#include "xorder_tiled.cu"

#include <vector>

// One launch of tile_kernel replayed on the host: every warp of the
// grid in turn, its lanes in turn at every step; the shuffle gives lane t the register
// lane t - 1 held after the previous step, the ballot gathers the lanes' bits.
template <class Obj>
void tile_launch(int grid_x, int grid_y, int block, int tile_j, TILE_PARAMS) {
    constexpr int NC = Obj::n_counters;
    const TileInputs in = TILE_INPUTS;
    const Obj o = load_objective<Obj>(s_const, w, inv_auc, inv_qb, inv_bq, inv_u, old_first,
                                      row_const, w_q, inv_p, w_b, inv_p_b, floor);
    const int wpb = block / 32;
    std::vector<double> yb(tile_j), negb(tile_j), top((size_t)NC * tile_j);
    std::vector<Lane<Obj>> lanes(32);
    for (int b = 0; b < grid_y; ++b)
        for (int bx = 0; bx < grid_x; ++bx)
            for (int wib = 0; wib < wpb; ++wib) {
                const int tile = bx * wpb + wib;
                if (tile >= n_tiles) continue;
                const Tile t = tile_at<Obj>(in, tile, b, tile_diag, r_first, tile_j);
                for (int lane = 0; lane < 32; ++lane)
                    for (int c = lane; c < t.width; c += 32)
                        stage_column<Obj>(in, t, c, yb.data(), negb.data(), top.data(), tile_j);
                for (int lane = 0; lane < 32; ++lane) lanes[lane] = lane_load<Obj>(in, t, lane);
                const Staged st = {yb.data(), negb.data(), top.data(), tile_j, 0};
                for (int s = 0; s < t.width + 31; ++s) {
                    double up[32][NC];
                    for (int lane = 0; lane < 32; ++lane)
                        for (int x = 0; x < NC; ++x)
                            up[lane][x] = lanes[lane > 0 ? lane - 1 : 0].mine[x];
                    unsigned int ballot = 0;
                    for (int lane = 0; lane < 32; ++lane)
                        if (lane_step(o, lams[b], in, t, lanes[lane], lane, s, up[lane], st))
                            ballot |= 1u << lane;
                    store_word(t, n_b, s, ballot, tile_j);
                }
            }
}

#define XO_TILE_CASE(METRIC_, SIGNED_, M_)                                              \
    if (metric == METRIC_ && is_signed == SIGNED_ && m == M_)                            \
        return tile_launch<StepObjective<METRIC_, SIGNED_, M_>>(                         \
            grid_x, grid_y, block, tile_j, seq_q, y_a, a_wins_ties, negleft_a, left_a,   \
            y_b_rev, negleft_b_rev, u_a, left_b_rev, u_b_rev, s_const, w, inv_auc,       \
            inv_qb, inv_bq, inv_u,                                                       \
            old_first, row_const, w_q, inv_p, w_b, inv_p_b, floor, lams, rowbuf, colbuf, \
            words, n_words, n_a, n_b, tile_diag, r_first, n_tiles), 0;
// Every number of old groups the kernels support, M = 1 .. 19
// (_kernel_source.MAX_OLD_GROUPS), for the case macro C of one metric.
#define XO_EACH_M(C, METRIC_)                                                           \
    C(METRIC_, 0, 1) C(METRIC_, 0, 2) C(METRIC_, 0, 3) C(METRIC_, 0, 4) C(METRIC_, 0, 5)  \
    C(METRIC_, 0, 6) C(METRIC_, 0, 7) C(METRIC_, 0, 8) C(METRIC_, 0, 9) C(METRIC_, 0, 10) \
    C(METRIC_, 0, 11) C(METRIC_, 0, 12) C(METRIC_, 0, 13) C(METRIC_, 0, 14)              \
    C(METRIC_, 0, 15) C(METRIC_, 0, 16) C(METRIC_, 0, 17) C(METRIC_, 0, 18)              \
    C(METRIC_, 0, 19)
#define XO_TILE_METRIC(METRIC_) XO_TILE_CASE(METRIC_, 1, 1) XO_EACH_M(XO_TILE_CASE, METRIC_)

// The host build instantiates every metric, the signed mode (M = 1) and M = 1..19;
// returns 0, or -1 for constants it does not hold.
extern "C" int tile_launch_host(int metric, int is_signed, int m, int tile_j, int grid_x,
                                int grid_y, int block, TILE_PARAMS) {
    XO_TILE_METRIC(METRIC_XAUC) XO_TILE_METRIC(METRIC_PRF) XO_TILE_METRIC(METRIC_URF)
    return -1;
}
// strip_kernel replayed on the host: n_warps warps, each step of the scheduler one warp
// (picked by a xorshift generator from `seed`) either takes a ticket or runs its next
// chunk if the flag of the strip above allows it; lanes in turn as in tile_launch.
// Returns 0, or -2 if every warp that holds a strip waits (a deadlock).
template <class Obj>
int strip_launch(int n_warps, int chunk, unsigned int seed, STRIP_PARAMS) {
    constexpr int NC = Obj::n_counters;
    const TileInputs in = TILE_INPUTS;
    const Obj o = load_objective<Obj>(s_const, w, inv_auc, inv_qb, inv_bq, inv_u, old_first,
                                      row_const, w_q, inv_p, w_b, inv_p_b, floor);
    const int n_strips = (n_a + 31) >> 5, n_steps = n_b + 31, span = chunk + 32;
    const unsigned int n_tickets = (unsigned int)n_strips * (unsigned int)batch;
    struct Warp {
        bool busy = false, done = false;
        int r = 0, b = 0, s0 = 0;
        Tile t;
        std::vector<Lane<Obj>> lanes = std::vector<Lane<Obj>>(32);
    };
    std::vector<Warp> warps(n_warps);
    std::vector<double> yb(span), negb(span), top((size_t)NC * span);
    auto ready = [&](const Warp& v) {
        return !v.done && (!v.busy || v.r == 0 ||
               progress[(long long)v.b * n_strips + v.r - 1] >= strip_need(v.s0, chunk, n_b));
    };
    unsigned int x = seed * 2654435761u + 1u;
    for (int left = n_warps; left > 0;) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        Warp& v = warps[x % (unsigned int)n_warps];
        if (!ready(v)) {
            bool any = false;
            for (const Warp& u : warps) any = any || ready(u);
            if (!any) return -2;
            continue;
        }
        if (!v.busy) {
            const unsigned int tk = (*ticket)++;
            if (tk >= n_tickets) { v.done = true; --left; continue; }
            v.busy = true; v.r = (int)(tk / (unsigned int)batch); v.b = (int)(tk % (unsigned int)batch);
            v.s0 = 0;
            v.t = tile_at<Obj>(in, 0, v.b, v.r, v.r, n_b);
            for (int lane = 0; lane < 32; ++lane) v.lanes[lane] = lane_load<Obj>(in, v.t, lane);
            continue;
        }
        for (int lane = 0; lane < 32; ++lane)
            for (int k = lane; k < chunk + 31; k += 32)
                stage_strip_column<Obj>(in, v.t, v.s0, k, yb.data(), negb.data(), top.data(), span);
        const Staged st = {yb.data(), negb.data(), top.data(), span, v.s0 - 31};
        const int s1 = v.s0 + chunk < n_steps ? v.s0 + chunk : n_steps;
        for (int s = v.s0; s < s1; ++s) {
            double up[32][NC];
            for (int lane = 0; lane < 32; ++lane)
                for (int c = 0; c < NC; ++c) up[lane][c] = v.lanes[lane > 0 ? lane - 1 : 0].mine[c];
            unsigned int ballot = 0;
            for (int lane = 0; lane < 32; ++lane)
                if (lane_step(o, lams[v.b], in, v.t, v.lanes[lane], lane, s, up[lane], st))
                    ballot |= 1u << lane;
            *word_at(v.t, n_b, s) = ballot;
        }
        progress[(long long)v.b * n_strips + v.r] = strip_done(s1, n_b);
        v.s0 = s1;
        v.busy = v.s0 < n_steps;
    }
    return 0;
}

#define XO_STRIP_CASE(METRIC_, SIGNED_, M_)                                             \
    if (metric == METRIC_ && is_signed == SIGNED_ && m == M_)                            \
        return strip_launch<StepObjective<METRIC_, SIGNED_, M_>>(                        \
            n_warps, chunk, seed, seq_q, y_a, a_wins_ties, negleft_a, left_a, y_b_rev,   \
            negleft_b_rev, u_a, left_b_rev, u_b_rev, s_const, w, inv_auc, inv_qb,        \
            inv_bq, inv_u, old_first,                                                    \
            row_const, w_q, inv_p, w_b, inv_p_b, floor, lams, rowbuf, colbuf, words,      \
            n_words, n_a, n_b, progress, ticket, batch);
#define XO_STRIP_METRIC(METRIC_) XO_STRIP_CASE(METRIC_, 1, 1) XO_EACH_M(XO_STRIP_CASE, METRIC_)

// Same instances as tile_launch_host; returns strip_launch's status, or -1 for
// constants it does not hold.
extern "C" int strip_launch_host(int metric, int is_signed, int m, int chunk, int n_warps,
                                 unsigned int seed, STRIP_PARAMS) {
    XO_STRIP_METRIC(METRIC_XAUC) XO_STRIP_METRIC(METRIC_PRF) XO_STRIP_METRIC(METRIC_URF)
    return -1;
}
// The element offsets the kernels' index arithmetic gives (tile_at, word_at): out[0]
// the word of step s of tile `tile` of tile diagonal tile_diag in lattice b, out[1..3]
// that lattice's rows of rowbuf, colbuf (n_counters 2) and words. No memory is read:
// the tests check the arithmetic past 2^31 elements without allocating them.
extern "C" void tile_offsets_host(int n_a, int n_b, long long n_words, int tile_diag,
                                  int r_first, int tile, int b, int s, int tile_j,
                                  long long* out) {
    typedef StepObjective<XAUC, 0, 1> Obj;
    static long long cells[1];
    static unsigned int bits[1];
    TileInputs in{};
    in.rowbuf = in.colbuf = cells;
    in.words = bits;
    in.n_words = n_words;
    in.n_a = n_a;
    in.n_b = n_b;
    const Tile t = tile_at<Obj>(in, tile, b, tile_diag, r_first, tile_j);
    out[0] = word_at(t, n_b, s) - bits;
    out[1] = t.rb - cells;
    out[2] = t.cb - cells;
    out[3] = t.wb - bits;
}
