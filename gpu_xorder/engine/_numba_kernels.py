"""The compiled CPU fill of a 2-D lattice and its traceback, with numba.

docs/design.md, section 9.6. Twin of ``cpu_reference/_fill.py`` (the schedule) and of
``StepObjective`` in ``cpu_reference/_objective.py`` (the state rows, step gains and
G-hat): every rounded float64 operation below is the NumPy one, in the same order, and
nothing is compiled with ``fastmath`` (which would reassociate and contract them), so
every decision, exact ties included, is the NumPy reference's. Imported only by
``_numba_engine``, and only when that engine runs.

Schedule: **strips** of ``lanes`` rows (a multiple of 32). At step ``c`` lane ``t`` of
the strip starting at row ``i0`` decides cell ``(i0 + 1 + t, c - t)``, so the lanes of a
step lie on one anti-diagonal, the cell above comes from lane ``t - 1`` of the previous
step and the cell to the left from lane ``t`` itself; lane 0 reads the row above the
strip and the last lane overwrites it with the strip's last row (the ``top`` row, one
per lattice). Each block of 32 lanes yields one decision word per step, the layout of
``cpu_reference/_bits.py``. The lanes of a step are one vectorised loop (the cells are
independent); a strip's state lives in a small lane buffer that stays in L1.

State rows (float64 holding exact integers) are ``StepObjective``'s: ``m = 1`` (two
groups, a first iterative step) ``(C[a][b], C[b][a])`` for xAUC, ``(C[a][b] + w_a,
C[b][a] + w_b)`` for PRF, ``(C[a][b], C[b][a], U[a][b] - U[b][a])`` for URF, decided by
``lean_lanes_2`` / ``lean_lanes_3``; ``m > 1`` ``C[q][b]``, ``C[b][q]`` (and ``U[q][b] -
U[b][q]``), decided by ``block_lanes_*``, a few passes over the lanes per step.

``SEGMENTS[kind]`` runs a range of steps of one strip: a chunk of the strip pipeline of
``_numba_tiles``, whose compiled function of the kind calls it.

Indices inside the lane loops are cast to ``uint64``: numba wraps negative indices, and
with signed indices of unknown sign LLVM turns the loop's loads into gathers (measured:
5x slower).
"""

import numpy as np
from numba import njit, uint64

from ._kernel_source import METRIC_CODE

BLOCK = 32

#: Multiplier that packs the low bits of 8 bytes (each 0 or 1) into the top byte.
_PACK = uint64(0x0102040810204080)
_ONE = uint64(1)

#: Kinds of lattice, each its own compiled segment function (``SEGMENTS``).
LEAN_2, LEAN_3, BLOCK_XAUC, BLOCK_PRF, BLOCK_URF = range(5)

#: Indices into the ``scalars`` argument (``StepConstants`` and the ``m = 1`` scales of
#: the pair term, ``cpu_reference._objective.pair_scales``).
(W, INV_AUC, S_CONST, W_B, INV_P_B, FLOOR, I_0, I_1) = range(8)
#: Rows of the per-old-group constants ``per_q`` (shape ``(6, m)``).
(Q_INV_QB, Q_INV_BQ, Q_INV_U, Q_ROW_CONST, Q_W_Q, Q_INV_P) = range(6)


# ------------------------------------------------------------------ the disparity term


@njit(nogil=True, boundscheck=False, inline="always")
def pair_term(urf, first, second, scale_first, scale_second):
    """The signed disparity term of a pair of groups (twin of
    ``cpu_reference._objective.PAIR_TERM``, the operands as there): ``first *
    scale_first - second * scale_second``, for URF (``first``: ``U[g][h] - U[h][g]``)
    ``first * scale_first``. ``urf`` is a compile-time constant of every caller."""
    if urf:
        return first * scale_first
    return first * scale_first - second * scale_second


@njit(nogil=True, boundscheck=False, inline="always")
def prf_share(r, w, inv_p):
    """PRF's share of a group, ``P_g = ((double)R_g + w_g) * inv_p[g]`` (twin of
    ``cpu_reference._objective.prf_share``)."""
    return (r + w) * inv_p


# ------------------------------------------------------------------ one step of a strip


def _lean_lanes(urf):
    """The lane loop of ``m = 1``, compiled for URF (three state rows) or not: a
    compile-time ``urf`` keeps the loop free of conditional stores, which LLVM would
    not vectorise."""

    @njit(nogil=True, boundscheck=False, inline="always")
    def lean_lanes(lane, p, q, ypos, isq, nla, la, a_wins, ybr, nlb, lbr, ubr, row, kb, lo, hi,
                   m, absolute, ge, scalars, per_q, lam, dec, acc):
        """Decide lanes ``lo..hi`` of one step, ``m = 1`` (twin of
        ``StepObjective._lean``).

        Lane t: cell ``(row + t, n_b - kb - t)``; its a-predecessor is ``lane[p, :,
        t]``, its b-predecessor ``lane[p, :, t + 1]``; the winner goes to ``lane[q, :,
        t + 1]``, the decision to ``dec[t]`` (1: the step along a). ``lam`` carries the
        sign of the signed term's orientation: ``(-t) * lam`` and ``t * (-lam)`` are
        the same double.
        """
        w, inv_auc = scalars[W], scalars[INV_AUC]
        i_0, i_1 = scalars[I_0], scalars[I_1]
        # one-dimensional rows, one induction variable
        p0, p1, p2 = lane[p, 0], lane[p, 1], lane[p, lane.shape[1] - 1]
        q0, q1, q2 = lane[q, 0], lane[q, 1], lane[q, lane.shape[1] - 1]
        ya, na, ia, lfa = ypos[0], nla[0], isq[0], la[0]
        for v in range(lo, hi + 1):
            t = uint64(v)
            k = uint64(kb + v)
            i = uint64(row + v)
            # a-step into (i, j): C[a][b] += y_a[i-1] (n_b0 - Q_b(j)); U[a][b] += r_a[i-1]
            # (n_b - j) (isq: the weight on U, 1 on a lattice of items)
            a0 = p0[t] + ya[i] * nlb[k]
            a1 = p1[t]
            # b-step into (i, j): C[b][a] += y_b[j-1] (n_a0 - Q_a(i)); U[b][a] += r_b[j-1]
            # (n_a - i)
            b0 = p0[t + _ONE]
            b1 = p1[t + _ONE] + ybr[k] * na[i]
            # the term's first operands: C[a][b] (PRF rows hold C + w), for URF the
            # U difference; the second: C[b][a]
            fa, fb = a0, b0
            if urf:
                a2 = p2[t] + ia[i] * lbr[k]
                b2 = p2[t + _ONE] - lfa[i] * ubr[k]
                fa, fb = a2, b2
            da = pair_term(urf, fa, a1, i_0, i_1)
            db = pair_term(urf, fb, b1, i_0, i_1)
            if absolute:
                da = abs(da)
                db = abs(db)
            # g = ((double)(row0 + row1) + w) * inv_auc - d * lam  (w = 0 for PRF)
            ga = ((a0 + a1) + w) * inv_auc - da * lam
            gb = ((b0 + b1) + w) * inv_auc - db * lam
            d = (ga > gb) | (ge & (ga == gb))
            q0[t + _ONE] = a0 if d else b0
            q1[t + _ONE] = a1 if d else b1
            if urf:
                q2[t + _ONE] = a2 if d else b2
            dec[t] = d

    return lean_lanes


lean_lanes_2 = _lean_lanes(False)
lean_lanes_3 = _lean_lanes(True)


def _block_lanes(metric):
    """The lane passes of ``m > 1`` old groups, compiled for one metric (its code in
    ``METRIC_CODE``)."""
    prf, urf = metric == METRIC_CODE["prf"], metric == METRIC_CODE["urf"]

    @njit(nogil=True, boundscheck=False, inline="always")
    def block_lanes(lane, p, q, ypos, isq, nla, la, a_wins, ybr, nlb, lbr, ubr, row, kb, lo,
                    hi, m, absolute, ge, scalars, per_q, lam, dec, acc):
        """Decide lanes ``lo..hi`` of one step, ``m > 1`` old groups (twin of
        ``StepObjective._block``); ``acc`` ``(8, lanes)`` is scratch.

        Per old group q, one pass over the lanes for each candidate accumulates what
        G-hat needs: the exact C total (``acc[0]``, ``acc[1]`` for the a- and
        b-candidate), the largest |term| or, for PRF, the largest P (``acc[2]``,
        ``acc[3]``), the smallest P (``acc[4]``, ``acc[5]``) and the sum of C[b][q]
        (``acc[6]``, ``acc[7]``); a pass finishes G-hat and decides; a pass per state
        row writes the winners, recomputing the candidates (each loop writes few arrays:
        LLVM does not vectorise a loop that needs too many overlap checks).
        """
        n = hi - lo + 1
        start = -np.inf if prf else scalars[FLOOR]
        for u in range(n):
            t = uint64(lo + u)
            acc[0, t] = 0.0
            acc[1, t] = 0.0
            acc[2, t] = start
            acc[3, t] = start
            acc[4, t] = np.inf
            acc[5, t] = np.inf
            acc[6, t] = 0.0
            acc[7, t] = 0.0
        for x in range(m):
            g, bq, uq = uint64(x), uint64(m + x), uint64(2 * m + x)
            # the scales of the pair term (q, b): C[q][b] * inv_qb - C[b][q] * inv_bq, or
            # (U[q][b] - U[b][q]) * inv_u
            s_first = per_q[Q_INV_U, g] if urf else per_q[Q_INV_QB, g]
            inv_bq, inv_p = per_q[Q_INV_BQ, g], per_q[Q_INV_P, g]
            row_w, w_q = per_q[Q_ROW_CONST, g], per_q[Q_W_Q, g]
            # the a-candidate: item i - 1 (old group q*) gains y (n_b0 - Q_b(j)) on
            # C[q*][b] and (URF) r_a[i-1] (n_b - j) on U[q*][b]; ypos and isq (the weight
            # on U) are 0 for the other groups (+ 0.0 changes no exact integer)
            for u in range(n):
                t = uint64(lo + u)
                k = uint64(kb + lo + u)
                i = uint64(row + lo + u)
                c_qb = lane[p, g, t] + ypos[g, i] * nlb[k]
                c_bq = lane[p, bq, t]
                acc[0, t] += c_qb + c_bq  # exact integers: any order
                if prf:
                    # P_q; R_q = C[q][b] + row_const[q]
                    v = prf_share(c_qb + row_w, w_q, inv_p)
                    acc[2, t] = max(acc[2, t], v)
                    acc[4, t] = min(acc[4, t], v)
                    acc[6, t] += c_bq
                else:
                    first = (lane[p, uq, t] + isq[g, i] * lbr[k]) if urf else c_qb
                    v = pair_term(urf, first, c_bq, s_first, inv_bq)
                    acc[2, t] = max(acc[2, t], abs(v))
            # the b-candidate: item j - 1 of b gains y (n_q0 - Q_q(i)) on every C[b][q]
            # and (URF) r_b[j-1] (n_q - count_q(i)) on every U[b][q]
            for u in range(n):
                t = uint64(lo + u)
                k = uint64(kb + lo + u)
                i = uint64(row + lo + u)
                c_qb = lane[p, g, t + _ONE]
                c_bq = lane[p, bq, t + _ONE] + nla[g, i] * ybr[k]
                acc[1, t] += c_qb + c_bq
                if prf:
                    v = prf_share(c_qb + row_w, w_q, inv_p)
                    acc[3, t] = max(acc[3, t], v)
                    acc[5, t] = min(acc[5, t], v)
                    acc[7, t] += c_bq
                else:
                    first = (lane[p, uq, t + _ONE] - la[g, i] * ubr[k]) if urf else c_qb
                    v = pair_term(urf, first, c_bq, s_first, inv_bq)
                    acc[3, t] = max(acc[3, t], abs(v))
        s_const, w, inv_auc = scalars[S_CONST], scalars[W], scalars[INV_AUC]
        w_b, inv_p_b = scalars[W_B], scalars[INV_P_B]
        for u in range(n):
            t = uint64(lo + u)
            i = uint64(row + lo + u)
            da, db = acc[2, t], acc[3, t]
            if prf:
                # P_b (R_b = sum_q C[b][q]); D = max P - min P
                pa = prf_share(acc[6, t], w_b, inv_p_b)
                pb = prf_share(acc[7, t], w_b, inv_p_b)
                da = max(da, pa) - min(acc[4, t], pa)
                db = max(db, pb) - min(acc[5, t], pb)
            # g = ((double)(C total + s_const) + w) * inv_auc - d * lam
            ga = ((acc[0, t] + s_const) + w) * inv_auc - da * lam
            gb = ((acc[1, t] + s_const) + w) * inv_auc - db * lam
            dec[t] = (ga > gb) | (a_wins[i] & (ga == gb))
        for x in range(m):
            g, bq, uq = uint64(x), uint64(m + x), uint64(2 * m + x)
            for u in range(n):
                t = uint64(lo + u)
                k = uint64(kb + lo + u)
                i = uint64(row + lo + u)
                a = lane[p, g, t] + ypos[g, i] * nlb[k]
                lane[q, g, t + _ONE] = a if dec[t] else lane[p, g, t + _ONE]
            for u in range(n):
                t = uint64(lo + u)
                k = uint64(kb + lo + u)
                i = uint64(row + lo + u)
                b = lane[p, bq, t + _ONE] + nla[g, i] * ybr[k]
                lane[q, bq, t + _ONE] = lane[p, bq, t] if dec[t] else b
            if urf:
                for u in range(n):
                    t = uint64(lo + u)
                    k = uint64(kb + lo + u)
                    i = uint64(row + lo + u)
                    a = lane[p, uq, t] + isq[g, i] * lbr[k]
                    b = lane[p, uq, t + _ONE] - la[g, i] * ubr[k]
                    lane[q, uq, t + _ONE] = a if dec[t] else b

    return block_lanes


block_lanes_xauc = _block_lanes(METRIC_CODE["xauc"])
block_lanes_prf = _block_lanes(METRIC_CODE["prf"])
block_lanes_urf = _block_lanes(METRIC_CODE["urf"])


# ------------------------------------------------------------------ a segment of a strip


def _strip_steps(lanes_of_step, name):
    """The step loop of a strip around one lane function (inlined), called by the cached
    strip loop of its kind (``_numba_tiles.STRIPS``) once per chunk of steps: a function
    per kind, so that LLVM optimises each step loop on its own (the five in one
    function ran 2x slower) and a run compiles only the kinds it meets. Not inlined
    itself: numba copies a function's IR into every caller it inlines into (that copy
    was half of a cold compile). Named ``name``: numba names machine code by the
    qualified name, which closures of this factory would share (and a process that
    loaded the cached callers of two kinds linked one to the other's code)."""

    def segment(s, c_lo, c_hi, lanes, n_a, n_b, m, metric, absolute, ge, ypos, isq, nla, la,
                a_wins, ybr, nlb, lbr, ubr, scalars, per_q, lam, col0, top, words, bits, lane,
                dec, acc):
        """Steps ``c_lo .. c_hi - 1`` of strip ``s`` (rows ``s lanes + 1 ..``) of one
        lattice, each step's lanes by ``lanes_of_step``.

        ``lane`` ``(2, rows, lanes + 1)`` holds the strip's lane state between segments:
        step c reads ``lane[(c - 1) % 2]`` and writes ``lane[c % 2]`` (entry ``t + 1`` is
        lane t's last cell; both halves start from the first column ``col0`` when
        ``c_lo == 1``, so a lane that has not started yet reads its left cell there and
        idle lanes need no copies). ``top`` ``(rows, n_b + 1)``: the row above the
        strip, overwritten with its last row. ``words``: the lattice's decision words
        (written when ``bits``). ``dec`` (``lanes`` bytes, a multiple of 8) and ``acc``
        (``(8, lanes)`` doubles for ``m > 1``) are scratch (``scratch``).
        """
        i0 = s * lanes
        n_rows = min(lanes, n_a - i0)
        rows = top.shape[0]
        stride = n_b + BLOCK - 1
        r0 = i0 // BLOCK
        dec[:] = 0
        dec64 = dec.view(np.uint64)
        if c_lo == 1:
            for h in range(2):
                for r in range(rows):
                    for t in range(n_rows):
                        lane[h, r, t + 1] = col0[r, i0 + t + 1]
        p, q = uint64((c_lo - 1) % 2), uint64(c_lo % 2)
        last = min(c_hi, n_b + n_rows)
        for c in range(c_lo, last):
            t_lo = max(0, c - n_b)
            t_hi = min(n_rows - 1, c - 1)
            if c <= n_b:
                for r in range(rows):
                    lane[p, r, 0] = top[r, c]
            elif t_lo > 0:  # lane t_lo - 1 finished at the step before: no more bits
                dec[t_lo - 1] = 0
            kb = n_b - c
            lanes_of_step(lane, p, q, ypos, isq, nla, la, a_wins, ybr, nlb, lbr, ubr, i0 + 1,
                          kb, t_lo, t_hi, m, absolute, ge, scalars, per_q, lam, dec, acc)
            if bits:
                # block r0 + b's word of skewed column c - 32 b (the layout of _bits):
                # lane 32 b + x is bit x; each byte of dec64 is one lane's 0 or 1
                for b in range(t_lo // BLOCK, t_hi // BLOCK + 1):  # the blocks in use
                    word = uint64(0)
                    for x in range(4):
                        v = dec64[uint64(4 * b + x)]
                        word |= ((v * _PACK) >> uint64(56)) << uint64(8 * x)
                    words[(r0 + b) * stride + c - BLOCK * b - 1] = np.uint32(word)
            if c >= n_rows:  # the last lane finished cell (i0 + n_rows, c - n_rows + 1)
                for r in range(rows):
                    top[r, c - n_rows + 1] = lane[q, r, n_rows]
            p, q = q, p

    segment.__name__ = segment.__qualname__ = name
    return njit(nogil=True, boundscheck=False)(segment)


(_steps_lean_2, _steps_lean_3, _steps_xauc, _steps_prf, _steps_urf) = (
    _strip_steps(f, f"_segment_{kind}") for f, kind in (
        (lean_lanes_2, "lean_2"), (lean_lanes_3, "lean_3"), (block_lanes_xauc, "xauc"),
        (block_lanes_prf, "prf"), (block_lanes_urf, "urf")))


#: Bytes of padding around each thread's scratch: a cache line.
PAD = 64


@njit(nogil=True, inline="always")
def scratch(lanes, m):
    """The scratch of ``SEGMENTS``: ``dec`` and ``acc``, allocated once per call, each
    with ``PAD`` bytes unused on either side, so that no cache line holds another
    thread's scratch (threads write theirs at every step)."""
    dec = np.zeros(lanes + 2 * PAD, dtype=np.uint8)[PAD:PAD + lanes]
    if m == 1:
        return dec, np.empty((1, 1))
    acc = np.empty(8 * lanes + 2 * (PAD // 8))[PAD // 8:PAD // 8 + 8 * lanes]
    return dec, acc.reshape((8, lanes))


#: ``SEGMENTS[kind](s, c_lo, c_hi, lanes, ..., lane, dec, acc)``: steps of one strip
#: (``_strip_steps``), called by the strip loops of ``_numba_tiles``.
SEGMENTS = {"lean_2": _steps_lean_2, "lean_3": _steps_lean_3, "xauc": _steps_xauc,
            "prf": _steps_prf, "urf": _steps_urf}


# ------------------------------------------------------------------ traceback


@njit(nogil=True, cache=True)
def walk(words, n_a, n_b, j, path, k):
    """Walk back from cell ``(n_a, j)`` until row 0 or column 0 (twin of
    ``cpu_reference._traceback.walk``), writing each step's group (0 = a) into
    ``path[k - 1], path[k - 2], ...``; returns ``(i, j, k)`` where it stopped."""
    stride = n_b + BLOCK - 1
    i = n_a
    while i > 0 and j > 0:
        t = (i - 1) % BLOCK
        k -= 1
        if (words[((i - 1) // BLOCK) * stride + j + t - 1] >> t) & 1:
            path[k] = 0
            i -= 1
        else:
            path[k] = 1
            j -= 1
    return i, j, k


@njit(nogil=True, cache=True)
def traceback(words, n_a, n_b):
    """Group index (0 = a, 1 = b) of each rank, top first (``cpu_reference.traceback``)."""
    path = np.empty(n_a + n_b, dtype=np.int8)
    i, j, k = walk(words, n_a, n_b, n_b, path, n_a + n_b)
    path[:k] = 0 if i else 1
    return path
