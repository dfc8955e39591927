"""The exact solver's Pareto fronts (``cpu_reference.solve_fronts``) and completion
values (``cpu_reference.completion_values``) compiled with numba: the same path,
counters, stored states and bounds, bit for bit, at compiled speed.

``cpu_reference.solve_fronts`` (pure NumPy, the oracle) treats an anti-diagonal at once:
it sorts all its candidates by ``(cell, -p, -q, index)`` and sweeps. Here one compiled
loop goes cell by cell: a cell's candidates are the front of its a-predecessor plus the
a-step's gains, then the front of its b-predecessor plus the b-step's (the reference's
candidate index order); each run is already in the canonical order but for rounding
(the gains of a step are the same integers for every state of a cell), so the two runs
are merged (a merge sort where rounding broke a run's order); a candidate survives iff
its ``q`` beats every one before it. ``auc`` and the signed ``d`` of a state come from
``_terms`` (the operations of ``cpu_reference._objective``; the compiled relink's too,
as are the order and its merge); the bound of
a state is ``min over mu of (auc - mu * d) + R_mu(cell)``, as the reference forms it
(numba without fastmath: no contraction into fused multiply-adds; the reference's
``slack`` is 0 without ``eps``, and adding 0.0 changes no comparison). A state is
kept iff its bound at every weight reaches the threshold: the weight that pruned the
last candidate is tried first (neighbouring states are mostly pruned by the same
weight), then all of them in one loop without an early exit (a branch-free loop the
compiler may vectorise; the same states, and the fronts of an 11-lam path took 0.25 s
of CPU against 0.41 s with a loop that stops at the first failing weight:
benchmarks/RESULTS.md, issue #44.3).

The completion values of several weights are computed in one pass and kept cell-major
(``(cells, weights)``: a state's bounds are adjacent), by the reference's recursion
(sequential prefix sums, a suffix maximum), bit for bit.

numba is imported with this module, which only a solve on the numba or CuPy engine
imports (``core._exact.fronts_for``); the kernels are cached on disk (``cache=True``).
Only the unconstrained problem is compiled (``eps`` stays with the reference).
"""

import numpy as np
from numba import njit

import cpu_reference as cr


@njit(cache=True, nogil=True, inline="always")
def _terms(a, b, c, kind, w, inv_auc, wq, wb, sf, ss, flip):
    """``(auc, d)`` of one state (``cab, cba, uab - uba``): ``pair_terms_of_states``,
    the same float64 operations in the same order."""
    fa = np.float64(a)
    fb = np.float64(b)
    if kind == 1:  # PRF's rows hold w_a, w_b
        fa = fa + wq
        fb = fb + wb
        auc = (fa + fb) * inv_auc
    else:
        auc = ((fa + fb) + w) * inv_auc
    if kind == 2:
        d = (np.float64(c) - 0.0) * sf
    else:
        d = fa * sf - fb * ss
    if flip:
        d = -d
    return auc, d

#: ``_run``'s status codes.
DONE, NONE_LEFT, OVER_BYTES, OVER_STATES, DIVED = 0, 1, 2, 3, 4


@njit(cache=True, nogil=True, inline="always")
def _b_terms(i, j, y_b, negleft_a, u_b, left_a, kind, inv_auc, sf, ss):
    """``(auc, d)`` gained by the b-step ``(i, j) -> (i, j + 1)``: ``signed_increment``'s
    operations (the reference's ``pair_increments`` and ``step_disparity``)."""
    g1 = np.float64(y_b[j] * negleft_a[i])
    if kind == 2:
        d = np.float64(-(u_b[j] * left_a[i])) * sf
    else:
        d = 0.0 * sf - g1 * ss
    return 1.0 * ((0.0 + g1) * inv_auc), d


@njit(cache=True, nogil=True, inline="always")
def _a_terms(i, j, y_a, negleft_b, u_a, left_b, kind, inv_auc, sf, ss):
    """``(auc, d)`` gained by the a-step ``(i, j) -> (i + 1, j)``, as :func:`_b_terms`."""
    g0 = np.float64(y_a[i] * negleft_b[j])
    if kind == 2:
        d = np.float64(u_a[i] * left_b[j]) * sf
    else:
        d = g0 * sf - 0.0 * ss
    return 1.0 * ((g0 + 0.0) * inv_auc), d


@njit(cache=True, nogil=True, inline="always")
def _row_prefix(i, mus, prefix, n_b, y_b, negleft_a, u_b, left_a, kind, inv_auc, sf, ss):
    """``prefix[j, t]``: the prefix sums along row ``i`` of the b-steps' signed gains
    ``auc - mus[t] d``, sequential (``cpu_reference._fronts._row_terms``' ``P``)."""
    for t in range(mus.size):
        prefix[0, t] = 0.0
    for j in range(n_b):  # the b-step (i, j) -> (i, j + 1)
        auc, d = _b_terms(i, j, y_b, negleft_a, u_b, left_a, kind, inv_auc, sf, ss)
        for t in range(mus.size):
            gain = auc - mus[t] * d
            prefix[j + 1, t] = gain if j == 0 else prefix[j, t] + gain


@njit(cache=True, nogil=True)
def _tables(mus, n_a, n_b, y_a, negleft_b, u_a, left_b, y_b, negleft_a, u_b, left_a,
            kind, inv_auc, sf, ss):
    """Completion values ``R[i * (n_b + 1) + j, t]`` of every weight ``mus[t]``
    (``cpu_reference.completion_values`` with ``auc_weight`` 1), the weights innermost
    (contiguous: the same operations per weight, which the compiler vectorises)."""
    n_t = mus.size
    width = n_b + 1
    out = np.empty(((n_a + 1) * width, n_t))
    prefix = np.empty((width, n_t))
    best = np.empty(n_t)
    for i in range(n_a, -1, -1):
        _row_prefix(i, mus, prefix, n_b, y_b, negleft_a, u_b, left_a, kind, inv_auc, sf,
                    ss)
        base = i * width
        if i == n_a:
            for j in range(width):
                for t in range(n_t):
                    out[base + j, t] = prefix[n_b, t] - prefix[j, t]
            continue
        for j in range(n_b, -1, -1):  # the a-step (i, j) -> (i + 1, j)
            auc, d = _a_terms(i, j, y_a, negleft_b, u_a, left_b, kind, inv_auc, sf, ss)
            below = base + width + j
            for t in range(n_t):
                v = (out[below, t] + (auc - mus[t] * d)) + prefix[j, t]
                if j == n_b or v > best[t]:
                    best[t] = v
                out[base + j, t] = best[t] - prefix[j, t]
    return out


@njit(cache=True, nogil=True)
def _disparities(mus, index, tables, n_a, n_b, y_a, negleft_b, u_a, left_b, y_b,
                 negleft_a, u_b, left_a, kind, inv_auc, sf, ss):
    """``cpu_reference.completion_disparities`` of the weights ``mus`` (the columns
    ``index`` of the completion values ``tables``), bit for bit, as one array ``(cells,
    len(mus))``: the row's prefix sums and ``down + P`` by :func:`_tables`' operations,
    the first column of their suffix maximum, the disparity gains' sequential sums."""
    n_t = mus.size
    width = n_b + 1
    out = np.empty(((n_a + 1) * width, n_t))
    prefix = np.empty((width, n_t))
    pd = np.empty(width)
    da = np.empty(width)
    best = np.empty(n_t)
    exit_col = np.empty(n_t, np.int64)
    for i in range(n_a, -1, -1):
        _row_prefix(i, mus, prefix, n_b, y_b, negleft_a, u_b, left_a, kind, inv_auc, sf,
                    ss)
        pd[0] = 0.0
        for j in range(n_b):  # the b-steps' disparities, summed in order
            d = _b_terms(i, j, y_b, negleft_a, u_b, left_a, kind, inv_auc, sf, ss)[1]
            pd[j + 1] = d if j == 0 else pd[j] + d
        base = i * width
        if i == n_a:
            for j in range(width):
                for t in range(n_t):
                    out[base + j, t] = pd[n_b] - pd[j]
            continue
        for j in range(n_b, -1, -1):  # the a-step (i, j) -> (i + 1, j)
            auc, d = _a_terms(i, j, y_a, negleft_b, u_a, left_b, kind, inv_auc, sf, ss)
            da[j] = d
            below = base + width + j
            for t in range(n_t):
                v = (tables[below, index[t]] + (auc - mus[t] * d)) + prefix[j, t]
                if j == n_b or v >= best[t]:
                    best[t] = v
                    exit_col[t] = j
                k = exit_col[t]
                out[base + j, t] = ((pd[k] - pd[j]) + da[k]) + out[base + width + k, t]
    return out


@njit(cache=True, nogil=True)
def _tail(mu, col, tables, i, j, n_a, n_b, y_a, negleft_b, u_a, left_b, y_b,
          negleft_a, u_b, left_a, kind, inv_auc, sf, ss):
    """The steps (0: a, 1: b) of ``cpu_reference.completion_path`` from cell ``(i,
    j)`` for the weight ``mu`` (column ``col`` of the completion values ``tables``),
    bit for bit: in every row the first column of the largest ``down + P`` at or right
    of ``j``, by :func:`_disparities`' operations (compiled: the NumPy walk took a third
    of a compiled beam's time on 600 x 600 items)."""
    width = n_b + 1
    steps = np.empty(n_a - i + n_b - j, np.int8)
    prefix = np.empty((width, 1))
    mus = np.full(1, mu)
    s = 0
    while i < n_a:
        _row_prefix(i, mus, prefix, n_b, y_b, negleft_a, u_b, left_a, kind, inv_auc, sf,
                    ss)
        best = 0.0
        k = n_b
        for c in range(n_b, j - 1, -1):  # the a-step (i, c) -> (i + 1, c)
            auc, d = _a_terms(i, c, y_a, negleft_b, u_a, left_b, kind, inv_auc, sf, ss)
            v = (tables[(i + 1) * width + c, col] + (auc - mu * d)) + prefix[c, 0]
            if c == n_b or v >= best:
                best = v
                k = c
        for _ in range(j, k):
            steps[s] = 1
            s += 1
        steps[s] = 0
        s += 1
        i += 1
        j = k
    for _ in range(j, n_b):
        steps[s] = 1
        s += 1
    return steps


@njit(cache=True, nogil=True, inline="always")
def _before(p, q, u, x, y):
    """Whether candidate ``x`` comes before ``y`` in the canonical order: ``p``
    descending, ``q`` descending, AUC ``u`` descending, index ascending (the
    reference's ``_pareto``)."""
    if p[x] != p[y]:
        return p[x] > p[y]
    if q[x] != q[y]:
        return q[x] > q[y]
    if u[x] != u[y]:
        return u[x] > u[y]
    return x < y


@njit(cache=True, nogil=True)
def _order(p, q, u, m, split, order, tmp):
    """Candidates ``0..m`` into ``order`` by the canonical order: the merge of the runs
    ``[0, split)`` and ``[split, m)`` where each is in order, else a merge sort."""
    ordered = True
    for k in range(1, m):
        if k != split and not _before(p, q, u, k - 1, k):
            ordered = False
            break
    if ordered:
        i, j, o = 0, split, 0
        while i < split and j < m:
            if _before(p, q, u, i, j):
                order[o] = i
                i += 1
            else:
                order[o] = j
                j += 1
            o += 1
        while i < split:
            order[o] = i
            i += 1
            o += 1
        while j < m:
            order[o] = j
            j += 1
            o += 1
        return
    for k in range(m):
        order[k] = k
    width = 1
    while width < m:  # bottom-up merge sort, stable
        lo = 0
        while lo < m:
            mid = min(lo + width, m)
            hi = min(lo + 2 * width, m)
            i, j, o = lo, mid, lo
            while i < mid and j < hi:
                if _before(p, q, u, order[j], order[i]):
                    tmp[o] = order[j]
                    j += 1
                else:
                    tmp[o] = order[i]
                    i += 1
                o += 1
            while i < mid:
                tmp[o] = order[i]
                i += 1
                o += 1
            while j < hi:
                tmp[o] = order[j]
                j += 1
                o += 1
            lo = hi
        for k in range(m):
            order[k] = tmp[k]
        width *= 2


@njit(cache=True, nogil=True)
def _sweep(order, m, q, out):
    """The survivors of ``m`` candidates in ``order``: each whose ``q`` beats every one
    before it, into ``out`` (their indices, in order); returns how many."""
    kept = 0
    best_q = -np.inf
    for o in range(m):
        x = order[o]
        if o == 0 or q[x] > best_q:
            out[kept] = x
            kept += 1
            best_q = q[x]
    return kept


@njit(cache=True, nogil=True)
def _cut(kept_idx, kept, beam, ca, cb, cc, cell, kind, w, inv_auc, wq, wb, sf, ss, flip,
         mus, tables, spare):
    """The bounded front (a beam, a heuristic): of the ``kept`` survivors
    ``kept_idx`` (in the canonical order), the ``beam`` of the largest completion bound
    ``min over t of auc - mus[t] * d + tables[cell, t]`` (an upper bound on the
    objective of every completion; the earlier in the canonical order on a tie), in
    the canonical order, into ``kept_idx``; returns ``beam``. ``spare``: scratch."""
    score = np.empty(kept)
    for o in range(kept):
        x = kept_idx[o]
        auc, dis = _terms(ca[x], cb[x], cc[x], kind, w, inv_auc, wq, wb, sf, ss, flip)
        v = np.inf
        for t in range(mus.size):
            b = auc - mus[t] * dis
            b += tables[cell, t]
            if b < v:
                v = b
        score[o] = -v
    chosen = np.sort(np.argsort(score, kind="mergesort")[:beam])
    for o in range(beam):
        spare[o] = kept_idx[chosen[o]]
    for o in range(beam):
        kept_idx[o] = spare[o]
    return beam


@njit(cache=True, nogil=True)
def _best_final(fa, fb, fc, size, lam, kind, w, inv_auc, wq, wb, sf, ss, flip):
    """``(index, counters)`` of the answer among ``size`` last states (in their order):
    of those of the largest ``auc - lam * |d|`` and the first one's ``|d|``, the largest
    AUC, the first on a tie (``cpu_reference._fronts.best_final``): the answer of the
    fronts and of the relink."""
    best, best_value, best_auc, best_dis = 0, -np.inf, -np.inf, 0.0
    for s in range(size):
        auc, dis = _terms(fa[s], fb[s], fc[s], kind, w, inv_auc, wq, wb, sf, ss, flip)
        value = auc - lam * abs(dis)
        if s == 0 or value > best_value:
            best, best_value, best_auc, best_dis = s, value, auc, abs(dis)
        elif value == best_value and abs(dis) == best_dis and auc > best_auc:
            best, best_auc = s, auc
    final = np.empty(3, np.int64)
    final[0], final[1], final[2] = fa[best], fb[best], fc[best]
    return best, final


@njit(cache=True, nogil=True)
def _scratch(n):
    """The candidates' arrays of one cell: six int64 (counters, sources, order and its
    scratch), four float64 (p, q, AUC, d)."""
    return (np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64),
            np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64),
            np.empty(n), np.empty(n), np.empty(n), np.empty(n))


@njit(cache=True, nogil=True)
def _grow(a, need, cap):
    """``a`` with room for ``need`` entries: twice its size, at most ``cap`` entries
    where that holds ``need`` (the memory budget's states; -1: none)."""
    if a.size >= need:
        return a
    size = max(need, 2 * a.size)
    if need <= cap < size:
        size = cap
    out = np.empty(size, a.dtype)
    out[:a.size] = a
    return out


@njit(cache=True, nogil=True)
def _run(n_a, n_b, y_a, negleft_b, u_a, left_b, y_b, negleft_a, u_b, left_a,
         kind, w, inv_auc, wq, wb, sf, ss, flip, lam, threshold, mus, tables,
         prune, max_states, slack, max_bytes, beam, prune_tolerance, lower, dive_index,
         dive_mus, dive_tables, dived, dived_at, dive_head):
    """The fronts, diagonal by diagonal. Returns ``(status, path, final, stored,
    largest, d, predicted, offsets)``; ``status`` one of ``DONE``, ``NONE_LEFT``,
    ``OVER_BYTES``, ``OVER_STATES`` (``d``: the diagonals done, ``predicted``: the
    states on course, ``offsets``: the states stored by the end of every diagonal).
    ``beam`` >= 0: a cell keeps at most that many of its front's states (:func:`_cut`);
    -1: all (exact). ``dive_index`` not empty: the dives of ``cpu_reference.solve_fronts``
    from ``lower`` (the weights ``dive_mus``, columns ``dive_index`` of ``tables``, their
    disparities ``dive_tables``); the best's value is written to ``dived`` (-inf where
    none beat ``lower``), its diagonal, row and weight to ``dived_at``, its
    path's head to ``dive_head``; the status ``DIVED`` where it left no state (the
    caller weighs the dive against the last diagonal's answer and ``lower``:
    ``cpu_reference.dive_wins``)."""
    n_d = n_a + n_b
    n_t = mus.size
    width = n_b + 1
    # the current diagonal's states (ping-pong), cell ranges by row
    cap = 64
    fa = np.zeros(cap, np.int64)
    fb = np.zeros(cap, np.int64)
    fc = np.zeros(cap, np.int64)
    na = np.empty(cap, np.int64)
    nb = np.empty(cap, np.int64)
    nc = np.empty(cap, np.int64)
    size = 1
    lo_row = 0
    # the states of row lo_row + k: [starts[k], starts[k + 1])
    new_starts = np.zeros(min(n_a, n_b) + 3, np.int64)
    starts = np.zeros(min(n_a, n_b) + 3, np.int64)
    starts[1] = 1
    n_cells = 1
    # candidates of one cell
    ccap = 64
    ca, cb, cc, csrc, order, tmp, cp, cq, cu, cd = _scratch(ccap)
    n_dive = dive_index.size
    dived[0] = -np.inf
    dive_d = -1
    dive_s = 0
    # parents: a state's index on the previous diagonal, ~index for a b-step
    links = np.empty(1024, np.int32)
    diag_off = np.zeros(n_d + 1, np.int64)
    stored = 0
    largest = 1
    hint = 0  # the weight that pruned last
    for d in range(n_d):
        i_lo = max(0, d + 1 - n_b)
        i_hi = min(n_a, d + 1)
        total = 0
        need = 2 * size
        if na.size < need:
            na = np.empty(2 * need, np.int64)
            nb = np.empty(2 * need, np.int64)
            nc = np.empty(2 * need, np.int64)
        links = _grow(links, stored + need, max_bytes // 4 + 1 if max_bytes >= 0 else -1)
        base_links = stored
        first_row = -1
        kept_cells = 0
        top = -np.inf  # the diagonal's best dive: value, state, weight, row, counters
        top_s = top_t = top_i = 0
        for i in range(i_lo, i_hi + 1):
            j = d + 1 - i
            # a-predecessor (i - 1, j): row i - 1; b-predecessor (i, j - 1): row i
            a0 = a1 = b0 = b1 = 0
            r = i - 1 - lo_row
            if i >= 1 and j <= n_b and 0 <= r < n_cells:
                a0, a1 = starts[r], starts[r + 1]
            r = i - lo_row
            if j >= 1 and i <= n_a and 0 <= r < n_cells:
                b0, b1 = starts[r], starts[r + 1]
            m = (a1 - a0) + (b1 - b0)
            if m == 0:
                continue
            if ccap < m:
                ccap = 2 * m
                ca, cb, cc, csrc, order, tmp, cp, cq, cu, cd = _scratch(ccap)
            cell = i * width + j
            k = 0
            split = 0
            g0 = g1 = g2 = 0
            for side in range(2):
                if side == 0:
                    s0, s1 = a0, a1
                    if s1 > s0:
                        g0 = y_a[i - 1] * negleft_b[j]
                        g1 = 0
                        g2 = u_a[i - 1] * left_b[j] if kind == 2 else 0
                else:
                    split = k
                    s0, s1 = b0, b1
                    if s1 > s0:
                        g0 = 0
                        g1 = y_b[j - 1] * negleft_a[i]
                        g2 = -(u_b[j - 1] * left_a[i]) if kind == 2 else 0
                for s in range(s0, s1):
                    xa = fa[s] + g0
                    xb = fb[s] + g1
                    xc = fc[s] + g2
                    auc, dis = _terms(xa, xb, xc, kind, w, inv_auc, wq, wb, sf, ss, flip)
                    if prune:
                        # the weight that pruned the last candidate first (it prunes
                        # most of its neighbours), then every weight without an early
                        # exit (kept iff every weight passes: the same states)
                        v = auc - mus[hint] * dis
                        v += tables[cell, hint]
                        if not v >= threshold:
                            continue
                        fail = -1
                        for t in range(n_t):
                            v = auc - mus[t] * dis
                            v += tables[cell, t]
                            if not v >= threshold:
                                fail = t
                        if fail >= 0:
                            hint = fail
                            continue
                    ca[k], cb[k], cc[k] = xa, xb, xc
                    cp[k] = auc - lam * dis
                    cq[k] = auc + lam * dis
                    cu[k] = auc
                    cd[k] = dis
                    csrc[k] = s if side == 0 else -s - 1
                    k += 1
            m = k
            if m == 0:
                continue
            _order(cp, cq, cu, m, split, order, tmp)
            if first_row < 0:
                first_row = i
                new_starts[0] = total
            # rows between first_row and i without states: empty ranges
            while kept_cells < i - first_row:
                kept_cells += 1
                new_starts[kept_cells] = total
            kept = _sweep(order, m, cq, tmp)
            if 0 <= beam < kept:
                kept = _cut(tmp, kept, beam, ca, cb, cc, cell, kind, w, inv_auc, wq,
                            wb, sf, ss, flip, mus, tables, order)
            for o in range(kept):
                x = tmp[o]
                na[total], nb[total], nc[total] = ca[x], cb[x], cc[x]
                links[base_links + total] = np.int32(csrc[x])
                for t in range(n_dive):
                    r = tables[cell, dive_index[t]]
                    dx = dive_tables[cell, t]
                    v = (cu[x] + (r + dive_mus[t] * dx)) - lam * abs(cd[x] + dx)
                    if v > top:
                        top, top_s, top_t, top_i = v, total, t, i
                total += 1
            if kept > largest:
                largest = kept
            kept_cells = i - first_row + 1
            new_starts[kept_cells] = total
        if total == 0:
            if dive_d >= 0:
                return DIVED, _head(links, diag_off, dive_d, dive_s), \
                    np.zeros(3, np.int64), stored, largest, d + 1, 0, diag_off
            return NONE_LEFT, np.empty(0, np.int8), np.zeros(3, np.int64), stored, \
                largest, d + 1, 0, diag_off
        # swap
        fa, na = na, fa
        fb, nb = nb, fb
        fc, nc = nc, fc
        starts, new_starts = new_starts, starts
        lo_row = first_row
        n_cells = kept_cells
        size = total
        stored += total
        diag_off[d + 1] = stored
        if top > lower:  # the dive raises the lower bound from the next diagonal on
            lower = top
            threshold = top - prune_tolerance
            dive_d, dive_s = d + 1, top_s
            dived[0] = top
            dived_at[0], dived_at[1], dived_at[2] = d + 1, top_i, top_t
        if max_bytes >= 0 and stored * 4 + (d + 1) * 4 * min(n_a, n_b, d + 1) > max_bytes:
            return OVER_BYTES, np.empty(0, np.int8), np.zeros(3, np.int64), stored, \
                largest, d + 1, 0, diag_off
        predicted = stored + size * (n_d - d - 1)
        if max_states >= 0 and (stored > max_states or predicted > slack * max_states):
            return OVER_STATES, np.empty(0, np.int8), np.zeros(3, np.int64), stored, \
                largest, d + 1, predicted, diag_off
    best, final = _best_final(fa, fb, fc, size, lam, kind, w, inv_auc, wq, wb, sf, ss,
                              flip)
    if dive_d >= 0:
        dive_head[:dive_d] = _head(links, diag_off, dive_d, dive_s)
    return DONE, _head(links, diag_off, n_d, best), final, stored, largest, n_d, 0, \
        diag_off


@njit(cache=True, nogil=True)
def _head(links, diag_off, n_d, s):
    """The path to state ``s`` of anti-diagonal ``n_d``, read back through the links."""
    path = np.empty(n_d, np.int8)
    for d in range(n_d - 1, -1, -1):
        link = np.int64(links[diag_off[d] + s])
        if link >= 0:
            path[d] = 0
            s = link
        else:
            path[d] = 1
            s = -link - 1
    return path


def _inputs(lat):
    """The step gains' integer inputs of ``cpu_reference._fronts.pair_increments``, contiguous
    int64."""
    def c(a):
        return np.ascontiguousarray(a, dtype=np.int64)

    return (c(lat.y_a), c(lat.negleft_b_rev[::-1]), c(lat.u_a), c(lat.left_b_rev[::-1]),
            c(lat.y_b_rev[:-1][::-1]), c(lat.negleft_a[0]), c(lat.u_b_rev[:-1][::-1]),
            c(lat.left_a[0]))


def completion_tables(lat, mus):
    """``cpu_reference.completion_values(lat, mu)`` of every ``mu`` of ``mus``, bit for
    bit, as one array ``(cells, len(mus))`` (cell ``i * (n_b + 1) + j``)."""
    kind, _, inv_auc, _, _, sf, ss, _ = cr.relink_terms(lat)
    return _tables(np.asarray(mus, dtype=np.float64), lat.n_a, lat.n_b, *_inputs(lat),
                   kind, inv_auc, sf, ss)


def solve_fronts(lat, lam, *, lower=None, mus=(), tables=None, max_bytes=None,
                 max_states=None, beam=None, dive=None):
    """``cpu_reference.solve_fronts`` (without ``eps``), compiled: the same ``(path,
    final, stats)``, bit for bit, and the same exceptions. The bounds are the weights
    ``mus`` with their ``completion_tables`` ``tables``. ``beam`` (an int, with
    ``mus``): a bounded front instead, at most ``beam`` states per cell, those of the
    largest completion bounds (a heuristic: its answer is an ordering, not the
    optimum); ``NoneLeft`` where ``lower`` pruned every state. ``dive`` (with
    ``beam`` and ``lower``): ``(index, disparities)``, the positions in ``mus`` of some
    weights and their :func:`completion_disparities` (``(cells, weights)``): the
    reference's dives, bit for bit (``stats["dive"]``)."""
    n_a, n_b = lat.n_a, lat.n_b
    mus = np.asarray(mus, dtype=np.float64)
    if beam is not None and mus.size == 0:
        raise ValueError("a bounded front needs the completion bounds of some weights")
    prune = lower is not None and mus.size > 0
    if not prune and beam is None:
        mus = np.zeros(0)
        tables = np.zeros((0, 0))
    if dive is None:
        index, dive_tables = np.zeros(0, np.int64), np.zeros((0, 0))
    elif beam is None or not prune:
        raise ValueError("dives need a bounded front, its bounds and a lower bound")
    else:
        # contiguous: another layout compiles the kernel again (seconds)
        index = np.ascontiguousarray(dive[0], dtype=np.int64)
        dive_tables = np.ascontiguousarray(dive[1], dtype=np.float64)
    dived, dived_at = np.empty(1), np.zeros(3, np.int64)
    dive_head = np.empty(n_a + n_b, np.int8)
    status, path, final, stored, largest, d, predicted, _ = _run(
        n_a, n_b, *_inputs(lat), *cr.relink_terms(lat), float(lam),
        float(lower) - cr.PRUNE_TOLERANCE if prune else 0.0, mus, tables, prune,
        -1 if max_states is None else int(max_states), cr.PREDICTION_SLACK,
        -1 if max_bytes is None else int(max_bytes), -1 if beam is None else int(beam),
        cr.PRUNE_TOLERANCE, float(lower) if prune else 0.0, index, mus[index],
        dive_tables, dived, dived_at, dive_head)
    n_d = n_a + n_b
    stats = {"states": int(stored), "largest": int(largest)}
    if dive is not None:
        stats["dive"] = False
    if status in (DIVED, DONE) and dived[0] > -np.inf:  # a dive raised the bound
        # its head, then its weight's completion, weighed as the reference does
        d_dive, row, t = (int(v) for v in dived_at)
        kind, _, inv_auc, _, _, sf, ss, _ = cr.relink_terms(lat)
        tail = _tail(float(mus[index[t]]), int(index[t]), tables, row, d_dive - row, n_a,
                     n_b, *_inputs(lat), kind, inv_auc, sf, ss)
        whole = np.concatenate((path if status == DIVED else dive_head[:d_dive], tail))
        state = cr.path_states(lat, whole)[0][:, -1]  # exact: the reference's sum
        rows = state.size
        if (cr.dive_wins(lat, lam, state, lower=float(lower)) if status == DIVED
                else cr.dive_wins(lat, lam, state, final[:rows])):
            return whole, cr.state_counters(lat, state), dict(stats, dive=True)
        if status == DIVED:
            status = NONE_LEFT
    if status == NONE_LEFT:
        raise cr.NoneLeft(cr.MSG_NONE_LEFT, states=int(stored))
    if status == OVER_BYTES:
        raise cr.FrontsTooLarge(cr.MSG_FRONTS.format(
            n_a=n_a, n_b=n_b, lam=lam, limit=max_bytes / 2**30, states=stored, d=d,
            n_d=n_d))
    if status == OVER_STATES:
        raise cr.FrontsTooLarge(cr.MSG_FRONT_STATES.format(
            n_a=n_a, n_b=n_b, states=stored, d=d, n_d=n_d, predicted=predicted,
            limit=max_states), predicted=predicted)
    # final_counters reads the third row (uab - uba) for URF only
    return path, cr.state_counters(lat, final), stats


def completion_disparities(lat, mus, tables, index):
    """``cpu_reference.completion_disparities`` of the weights ``mus[index]``, bit for
    bit, from their columns of ``completion_tables`` ``tables``: ``(cells,
    len(index))``."""
    kind, _, inv_auc, _, _, sf, ss, _ = cr.relink_terms(lat)
    index = np.ascontiguousarray(index, dtype=np.int64)  # one layout: one compilation
    return _disparities(np.asarray(mus, dtype=np.float64)[index], index, tables, lat.n_a,
                        lat.n_b, *_inputs(lat), kind, inv_auc, sf, ss)
