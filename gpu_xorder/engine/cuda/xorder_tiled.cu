// Fills of a step lattice (two groups: M = 1; a step of iterative xOrder: M old groups):
// tile_kernel, one launch per anti-diagonal of tiles (docs/design.md, sections 4 and
// 9.2), and strip_kernel, the persistent wavefront (one launch per lam batch; see
// "persistent strips" below). A module holds one of them (STRIPS).
//
// Launch schedule: gpu_xorder/engine/_launch.py (fill_tiled). NumPy twin of the schedule, step
// for step: gpu_xorder's tiled twin; of the cell rule: cpu_reference.fill.
//
// A warp owns a tile of 32 rows (one decision block, rows 32R+1 .. 32R+32) by TILE_J
// columns (j0 .. j0+TILE_J-1). Lane t owns row i = 32R+1+t: its axis-a inputs (label,
// old group, tie flag, negleft_a[:, i], left_a[:, i]) sit in its registers for the whole
// tile. At step s lane t decides cell (i, j0+s-t): all lanes of a step lie on one global
// anti-diagonal, so one ballot is one decision word. The a-predecessor (i-1, j) comes from
// lane t-1 by __shfl_up_sync (lane 0: from the row-boundary array, staged in shared memory
// with the tile's axis-b inputs), the b-predecessor (i, j-1) from the lane's own
// registers (first column: from the column-boundary array). Each tile reads its top/left
// boundary segments and overwrites them with its bottom/right ones; tiles of one tile
// diagonal touch disjoint segments, so launches need no other synchronisation.
// Boundary arrays hold int64 counters; inside a tile the counters live in registers as
// doubles holding the same exact integers (xorder_objective.cuh).
// A band of rows of a larger lattice is filled as a lattice of its own: the launcher
// passes the band's axis-a inputs (left_a keeps global counts) and starts rowbuf from
// the band's checkpoint row.
//
// Everything a lane does is __host__ __device__ (tile_at, stage_column, lane_load,
// lane_step, store_word): the tests' host build (XO_HOST_TEST, drivers in
// tests/support/cuda_host/) replays a launch with this very code, lanes of a warp in
// turn.
#include "xorder_objective.cuh"

#ifndef TILE_J
#define TILE_J 128
#endif
#ifndef WARPS_PER_BLOCK
#define WARPS_PER_BLOCK 4
#endif
// A module holds one of the two kernels: tile_kernel, or strip_kernel with STRIPS = 1.
#ifndef STRIPS
#define STRIPS 0
#endif

// Kernel parameters, by name (gpu_xorder/engine/_kernel_source.py launches by these names):
// the lattice's inputs, shared by both kernels, then each kernel's own.
#define LATTICE_PARAMS                                                                  \
    const long long* __restrict__ seq_q, const long long* __restrict__ y_a,              \
    const bool* __restrict__ a_wins_ties, const long long* __restrict__ negleft_a,       \
    const long long* __restrict__ left_a, const long long* __restrict__ y_b_rev,         \
    const long long* __restrict__ negleft_b_rev, const long long* __restrict__ u_a,      \
    const long long* __restrict__ left_b_rev, const long long* __restrict__ u_b_rev,     \
    double s_const, double w,                                                            \
    double inv_auc, const double* __restrict__ inv_qb, const double* __restrict__ inv_bq, \
    const double* __restrict__ inv_u, const bool* __restrict__ old_first,                \
    const double* __restrict__ row_const, const double* __restrict__ w_q,                \
    const double* __restrict__ inv_p, double w_b, double inv_p_b, double floor,          \
    const double* __restrict__ lams,                                                     \
    long long* __restrict__ rowbuf,  /* [batch][NCOUNT][n_b + 1]: cells (32R, j) */      \
    long long* __restrict__ colbuf,  /* [batch][NCOUNT][n_a + 1]: cells (i, j0 - 1) */   \
    unsigned int* __restrict__ words, long long n_words, int n_a, int n_b
#define TILE_PARAMS LATTICE_PARAMS, int tile_diag, int r_first, int n_tiles
// progress: [batch][n_strips] last-row columns each strip has published; ticket: the
// next strip to hand out. Both zero at the launch.
#define STRIP_PARAMS LATTICE_PARAMS, int* progress, unsigned int* ticket, int batch
#define TILE_INPUTS                                                                     \
    TileInputs{seq_q, y_a, a_wins_ties, negleft_a, left_a, y_b_rev, negleft_b_rev,       \
               u_a, left_b_rev, u_b_rev, rowbuf, colbuf, words, n_words, n_a, n_b}

struct TileInputs {
    const long long *seq_q, *y_a;
    const bool* a_wins_ties;
    const long long *negleft_a, *left_a, *y_b_rev, *negleft_b_rev;
    const long long *u_a, *left_b_rev, *u_b_rev;  // the weights on U (URF)
    long long *rowbuf, *colbuf;
    unsigned int* words;
    long long n_words;
    int n_a, n_b;
};

template <class Obj>
XO_HD Obj load_objective(double s_const, double w, double inv_auc, const double* inv_qb,
                         const double* inv_bq, const double* inv_u, const bool* old_first,
                         const double* row_const, const double* w_q, const double* inv_p,
                         double w_b, double inv_p_b, double floor) {
    Obj o;
    o.s_const = s_const; o.w = w; o.inv_auc = inv_auc; o.w_b = w_b; o.inv_p_b = inv_p_b;
    o.floor = floor; o.old_first = old_first[0];
#pragma unroll
    for (int q = 0; q < Obj::m; ++q) {
        o.inv_qb[q] = inv_qb[q]; o.inv_bq[q] = inv_bq[q]; o.inv_u[q] = inv_u[q];
        o.row_const[q] = row_const[q]; o.w_q[q] = w_q[q]; o.inv_p[q] = inv_p[q];
    }
    return o;
}

// Where tile number `tile` of tile diagonal `tile_diag` lies, in lattice `b` of the batch.
struct Tile {
    int R, i0, j0, width;
    long long rs, cs;        // row lengths of rowbuf and colbuf
    long long *rb, *cb;      // this lattice's boundary arrays
    unsigned int* wb;        // its decision words
};

template <class Obj>
XO_HD Tile tile_at(const TileInputs& in, int tile, int b, int tile_diag, int r_first,
                   int tile_j) {
    Tile t;
    t.R = r_first + tile;
    t.i0 = 32 * t.R + 1;
    t.j0 = (tile_diag - t.R) * tile_j + 1;
    t.width = in.n_b - t.j0 + 1 < tile_j ? in.n_b - t.j0 + 1 : tile_j;
    t.rs = (long long)in.n_b + 1;
    t.cs = (long long)in.n_a + 1;
    t.rb = in.rowbuf + (long long)b * Obj::n_counters * t.rs;
    t.cb = in.colbuf + (long long)b * Obj::n_counters * t.cs;
    t.wb = in.words + (long long)b * in.n_words;
    return t;
}

// What a warp has staged in shared memory for its steps: the axis-b inputs (yb, negb)
// and the counters of the row above (top[x * stride + k]) of columns c = off + k (column
// offsets from the tile's j0); the tile kernel stages its whole tile (off = 0), the
// strip kernel a window of columns per chunk.
struct Staged {
    const double *yb, *negb, *top;
    int stride, off;
};

// Column c of the tile, staged for the whole warp: the axis-b inputs and the counters of
// the cell above the tile (top[x * tile_j + c]).
template <class Obj>
XO_HD void stage_column(const TileInputs& in, const Tile& t, int c, double* yb,
                        double* negb, double* top, int tile_j) {
    const int k = in.n_b - (t.j0 + c);
    yb[c] = (double)in.y_b_rev[k];
    negb[c] = (double)in.negleft_b_rev[k];
#pragma unroll
    for (int x = 0; x < Obj::n_counters; ++x) top[x * tile_j + c] = (double)t.rb[x * t.rs + t.j0 + c];
}

// One lane's registers: its row's inputs, the counters of its last cell (mine) and of
// the cell left of the tile (left, loaded before the loop: read at step s = lane it
// would put one global-load latency on the warp's critical path per step).
template <class Obj>
struct Lane {
    StepRow<Obj::m> row;
    bool ok;  // the row exists
    int i;
    double left[Obj::n_counters], mine[Obj::n_counters];
};

template <class Obj>
XO_HD Lane<Obj> lane_load(const TileInputs& in, const Tile& t, int lane) {
    Lane<Obj> L;
    L.i = t.i0 + lane;
    L.ok = L.i <= in.n_a;
    const long long i = L.ok ? L.i : 0;  // rows below the lattice read row 0, unused
    L.row.y = L.ok ? (double)in.y_a[i - 1] : 0.0;
    L.row.q = Obj::m == 1 || !L.ok ? 0 : (int)in.seq_q[i - 1];
    L.row.wins_ties = L.ok && in.a_wins_ties[i - 1];
    L.row.u = Obj::metric == URF && L.ok ? (double)in.u_a[i - 1] : 0.0;
#pragma unroll
    for (int q = 0; q < Obj::m; ++q) {
        L.row.negleft[q] = (double)in.negleft_a[q * t.cs + i];
        L.row.left[q] = Obj::metric == URF ? (double)in.left_a[q * t.cs + i] : 0.0;
    }
#pragma unroll
    for (int x = 0; x < Obj::n_counters; ++x) {
        L.left[x] = L.ok ? (double)t.cb[x * t.cs + i] : 0.0;
        L.mine[x] = 0.0;
    }
    return L;
}

// Step s of the lane: decide its cell (i, j0 + s - lane) if it lies in the lattice and
// the tile, from up (lane - 1's counters of the previous step), and store the tile's
// bottom row (lane 31) and right column. Returns the decision bit.
template <class Obj>
XO_HD bool lane_step(const Obj& o, double lam, const TileInputs& in, const Tile& t,
                     Lane<Obj>& L, int lane, int s, const double* up, const Staged& st) {
    constexpr int NC = Obj::n_counters;
    const int c = s - lane;  // column offset of this lane's cell
    if (!L.ok || c < 0 || c >= t.width) return false;
    const int j = t.j0 + c;
    const int k = c - st.off;  // its staged column
    double from_a[NC], from_b[NC], ca[NC], cb[NC];
#pragma unroll
    for (int x = 0; x < NC; ++x) {
        from_a[x] = lane == 0 ? st.top[x * st.stride + k] : up[x];
        from_b[x] = c == 0 ? L.left[x] : L.mine[x];
    }
    // URF's column inputs, read where they are (a lattice of items: n_b - j and 1)
    const bool urf = Obj::metric == URF;
    const StepColumn col = {st.yb[k], st.negb[k],
                            urf ? (double)in.left_b_rev[in.n_b - j] : 0.0,
                            urf ? (double)in.u_b_rev[in.n_b - j] : 0.0};
    step_gains<Obj>(L.row, col, from_a, from_b, ca, cb);
    const bool take_a = decide(ghat(o, ca, lam), ghat(o, cb, lam), L.row.wins_ties);
#pragma unroll
    for (int x = 0; x < NC; ++x) L.mine[x] = take_a ? ca[x] : cb[x];
    if (lane == 31) {
#pragma unroll
        for (int x = 0; x < NC; ++x) t.rb[x * t.rs + j] = (long long)L.mine[x];
    }
    if (c == t.width - 1) {
#pragma unroll
        for (int x = 0; x < NC; ++x) t.cb[x * t.cs + L.i] = (long long)L.mine[x];
    }
    return take_a;
}

XO_HD void or_word(unsigned int* w, unsigned int bits) {
#ifdef __CUDA_ARCH__
    atomicOr(w, bits);
#else
    *w |= bits;
#endif
}

// The word of step s's ballot: block R's word of diagonal d = i0 + j0 + s (layout of
// cpu_reference's decision bits).
XO_HD unsigned int* word_at(const Tile& t, int n_b, int s) {
    return t.wb + (long long)t.R * (n_b - 1) + t.i0 + t.j0 + s - 2;
}

// Lane 0's store of step s's ballot.
XO_HD void store_word(const Tile& t, int n_b, int s, unsigned int ballot, int tile_j) {
    unsigned int* w = word_at(t, n_b, s);
    if (s >= 31 && s < tile_j) {
        *w = ballot;  // every cell of this word belongs to this tile
    } else if (ballot) {
        or_word(w, ballot);  // shared with the neighbouring column tile
    }
}

typedef StepObjective<METRIC, SIGNED, OLD_GROUPS> TileObjective;

#if !STRIPS
extern "C" __global__ void __launch_bounds__(32 * WARPS_PER_BLOCK) tile_kernel(TILE_PARAMS) {
    typedef TileObjective Obj;
    constexpr int NC = Obj::n_counters;
    // Staged per warp: the axis-b inputs and the top boundary of the tile's columns.
    __shared__ double sh_yb[WARPS_PER_BLOCK][TILE_J];
    __shared__ double sh_negb[WARPS_PER_BLOCK][TILE_J];
    __shared__ double sh_top[WARPS_PER_BLOCK][NC][TILE_J];

    const int wib = threadIdx.x >> 5;
    const int lane = threadIdx.x & 31;
    const int tile = blockIdx.x * WARPS_PER_BLOCK + wib;
    if (tile >= n_tiles) return;  // whole warps only: blockDim is a multiple of 32
    const TileInputs in = TILE_INPUTS;
    const Tile t = tile_at<Obj>(in, tile, blockIdx.y, tile_diag, r_first, TILE_J);
    for (int c = lane; c < t.width; c += 32)
        stage_column<Obj>(in, t, c, sh_yb[wib], sh_negb[wib], &sh_top[wib][0][0], TILE_J);
    __syncwarp();

    const Obj o = load_objective<Obj>(s_const, w, inv_auc, inv_qb, inv_bq, inv_u, old_first,
                                      row_const, w_q, inv_p, w_b, inv_p_b, floor);
    const double lam = lams[blockIdx.y];
    Lane<Obj> L = lane_load<Obj>(in, t, lane);
    const Staged st = {sh_yb[wib], sh_negb[wib], &sh_top[wib][0][0], TILE_J, 0};
    for (int s = 0; s < t.width + 31; ++s) {
        double up[NC];
#pragma unroll
        for (int x = 0; x < NC; ++x) up[x] = __shfl_up_sync(0xffffffffu, L.mine[x], 1);
        const bool take_a = lane_step(o, lam, in, t, L, lane, s, up, st);
        const unsigned int ballot = __ballot_sync(0xffffffffu, take_a);
        if (lane == 0) store_word(t, n_b, s, ballot, TILE_J);
    }
}
#endif  // !STRIPS

// ------------------------------------------------------------------ persistent strips
// strip_kernel (issue #16, docs/design.md section 9): one launch per lattice batch, a
// grid sized to the device. Each warp takes tickets (lane 0's atomicAdd on `ticket`)
// naming strips of 32 rows, r-major over the lam batch (ticket -> strip r = ticket /
// batch of lattice b = ticket % batch, so the lattices of a batch advance together),
// and walks each strip left to right as one tile of width n_b: the tile kernel's lane
// code (tile_at with tile_j = n_b, lane_load, lane_step), so every cell is decided as
// there and each block's word of a diagonal is one ballot, stored once.
// The steps go in chunks of CHUNK. Before steps [s0, s0 + CHUNK) lane 0 waits (acquire)
// until strip r - 1 of the same lattice has published at least strip_need(s0) columns
// of its last row in `progress`; then the warp stages the chunk's window of columns
// (axis-b inputs; the row above, read from rowbuf) in shared memory. After the steps
// every lane fences and lane 0 publishes strip_done(s1) (release): lane 31 has stored
// the strip's last row up to that column. One row buffer serves every strip: column j
// is written by strip r - 1, read by strip r (staged before strip r's lane 31 reaches
// it), then overwritten with strip r's last row. No deadlock: a strip waits only on the
// strip one ticket-batch earlier, whose ticket a running warp took first, and strip 0
// waits on nothing. Host replay: strip_launch_host; NumPy twin of the schedule:
// fill_strips in tests/support/tile_twin.py.
#ifndef CHUNK
#define CHUNK 32
#endif
#ifndef STRIP_WARPS
#define STRIP_WARPS 4
#endif
// Staged columns of a chunk: steps s0 .. s0 + CHUNK - 1 reach column offsets s0 - 31 ..
// s0 + CHUNK - 1.
#define STRIP_SPAN (CHUNK + 32)

// Columns of its last row strip r - 1 must have published before the chunk at s0.
XO_HD int strip_need(int s0, int chunk, int n_b) { return s0 + chunk < n_b ? s0 + chunk : n_b; }

// Columns of its last row a strip has stored once its steps before s1 are done: lane
// 31 decides column s - 30 at step s.
XO_HD int strip_done(int s1, int n_b) {
    const int c = s1 - 31;
    return c < 0 ? 0 : (c < n_b ? c : n_b);
}

// The row above, read where the strip above's stores are (L2, not this SM's L1).
XO_HD double load_row(const long long* p) {
#ifdef __CUDA_ARCH__
    return (double)__ldcg(p);
#else
    return (double)*p;
#endif
}

// Staged column k of the chunk at s0 (column offset c = s0 - 31 + k): the axis-b inputs
// of every column of the lattice, the row above of the columns lane 0 reaches (c >= s0).
template <class Obj>
XO_HD void stage_strip_column(const TileInputs& in, const Tile& t, int s0, int k,
                              double* yb, double* negb, double* top, int span) {
    const int c = s0 - 31 + k;
    if (c < 0 || c >= t.width) return;
    const int kb = in.n_b - (t.j0 + c);
    yb[k] = (double)in.y_b_rev[kb];
    negb[k] = (double)in.negleft_b_rev[kb];
    if (c < s0) return;
#pragma unroll
    for (int x = 0; x < Obj::n_counters; ++x) top[x * span + k] = load_row(t.rb + x * t.rs + t.j0 + c);
}

#if STRIPS
// ld.acquire / st.release (PTX ISA 6.0) and __nanosleep need sm_70: the engine runs the
// tile kernel on older devices (_plan.choose_kernel), and NVRTC refuses them here.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700
#error "strip_kernel needs a device of compute capability 7.0 or newer"
#endif

__device__ __forceinline__ int load_acquire(const int* p) {
    int v;
    asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void store_release(int* p, int v) {
    asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

extern "C" __global__ void __launch_bounds__(32 * STRIP_WARPS, 1) strip_kernel(STRIP_PARAMS) {
    typedef TileObjective Obj;
    constexpr int NC = Obj::n_counters;
    __shared__ double sh_yb[STRIP_WARPS][STRIP_SPAN];
    __shared__ double sh_negb[STRIP_WARPS][STRIP_SPAN];
    __shared__ double sh_top[STRIP_WARPS][NC][STRIP_SPAN];

    const int wib = threadIdx.x >> 5;
    const int lane = threadIdx.x & 31;
    const TileInputs in = TILE_INPUTS;
    const Obj o = load_objective<Obj>(s_const, w, inv_auc, inv_qb, inv_bq, inv_u, old_first,
                                      row_const, w_q, inv_p, w_b, inv_p_b, floor);
    const int n_strips = (n_a + 31) >> 5;
    const unsigned int n_tickets = (unsigned int)n_strips * (unsigned int)batch;
    const int n_steps = n_b + 31;
    for (;;) {
        unsigned int tk = 0;
        if (lane == 0) tk = atomicAdd(ticket, 1u);
        tk = __shfl_sync(0xffffffffu, tk, 0);
        if (tk >= n_tickets) return;
        const int r = (int)(tk / (unsigned int)batch), b = (int)(tk % (unsigned int)batch);
        const Tile t = tile_at<Obj>(in, 0, b, r, r, n_b);
        int* mine = progress + (long long)b * n_strips + r;
        const int* above = r > 0 ? mine - 1 : mine;  // read only when r > 0
        const double lam = lams[b];
        Lane<Obj> L = lane_load<Obj>(in, t, lane);
        int seen = 0;  // lane 0: the last value of *above it read
        for (int s0 = 0; s0 < n_steps; s0 += CHUNK) {
            if (r > 0 && lane == 0) {
                const int need = strip_need(s0, CHUNK, n_b);
                unsigned int pause = 32;
                while (seen < need && (seen = load_acquire(above)) < need) {
                    __nanosleep(pause);
                    pause = pause < 512 ? 2 * pause : pause;
                }
                __threadfence();
            }
            __syncwarp();
            for (int k = lane; k < CHUNK + 31; k += 32)
                stage_strip_column<Obj>(in, t, s0, k, sh_yb[wib], sh_negb[wib],
                                        &sh_top[wib][0][0], STRIP_SPAN);
            __syncwarp();
            const Staged st = {sh_yb[wib], sh_negb[wib], &sh_top[wib][0][0], STRIP_SPAN, s0 - 31};
            const int s1 = s0 + CHUNK < n_steps ? s0 + CHUNK : n_steps;
            for (int s = s0; s < s1; ++s) {
                double up[NC];
#pragma unroll
                for (int x = 0; x < NC; ++x) up[x] = __shfl_up_sync(0xffffffffu, L.mine[x], 1);
                const bool take_a = lane_step(o, lam, in, t, L, lane, s, up, st);
                const unsigned int ballot = __ballot_sync(0xffffffffu, take_a);
                if (lane == 0) *word_at(t, n_b, s) = ballot;
            }
            // lane 31's row stores, then the fence (cumulative over what the warp's
            // barrier ordered before it), then the flag; the barrier also keeps the
            // next chunk's staging behind every lane's reads of this one
            __syncwarp();
            __threadfence();
            if (lane == 0) store_release(mine, strip_done(s1, n_b));
        }
    }
}
#endif  // STRIPS
