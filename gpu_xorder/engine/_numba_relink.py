"""The relink of two paths (``cpu_reference.relink``) compiled with numba: the same
path and counters, bit for bit, at compiled speed.

``cpu_reference.relink`` (pure NumPy, the oracle) runs one NumPy round per stretch where
the two paths differ (a merge of the two shifted fronts, a sort, a sweep): thousands of
small rounds, each paying NumPy's call overhead. Here one compiled loop does them all:

- the states of both paths, their shared cells and the stretches where they differ
  are ``cpu_reference``'s (``path_states``: the same integers, by compiled loops over
  the path: :func:`path_states`, which the callers that keep a candidate's states use
  too, and ``_stretches``);
- per stretch, the candidates are the front plus either segment's increments; their
  ``auc`` and signed ``d`` by the operations of ``cpu_reference._objective``
  (``state_rows``, ``state_values``: the same float64 operations in the same order,
  numba without fastmath), ``p = auc - lam * d``, ``q = auc + lam * d``;
- the order is ``_relink._descending``'s: by ``p`` descending, then ``q`` descending,
  then ``auc`` descending (at large weights ``auc -+ lam d`` rounds to ``-+ lam d``),
  then candidate index (the front plus the first path's segment, then the second's):
  the merge of two runs already in that order, or a merge sort where rounding broke a
  run's order (``_numba_fronts._order``, which the exact fronts share);
- a candidate survives iff its ``q`` beats every one before it; the last front's first
  state of the largest ``auc - lam * |d|`` is walked back to the segments chosen.

numba is imported with this module, which only the engine choice of a solve on numba
imports (``_solvers.relink_for``; ``import gpu_xorder`` never loads it); the kernel is
cached on disk (``cache=True``).
"""

import numpy as np
from numba import njit

import cpu_reference as cr

from ._numba_fronts import _best_final, _inputs, _sweep, _terms
from ._numba_fronts import _order as _merge_order


@njit(cache=True, nogil=True)
def _order(p, q, u, size):
    """The candidates' order (``_relink._descending``): p descending, q descending,
    AUC ``u`` descending, index ascending; the merge of the runs ``[0, size)`` and
    ``[size, m)`` where each is in that order already, else a merge sort
    (``_numba_fronts._order``)."""
    m = p.size
    order = np.empty(m, np.int64)
    _merge_order(p, q, u, m, size, order, np.empty(m, np.int64))
    return order


@njit(cache=True, nogil=True)
def _run(inc1, inc2, start, lam, kind, w, inv_auc, wq, wb, sf, ss, flip):
    """``(second, final)``: per stretch whether the second path's segment is
    taken, and the chosen last state (3 rows)."""
    n = inc1.shape[1]
    cap = 16
    fa = np.empty(cap, np.int64)
    fb = np.empty(cap, np.int64)
    fc = np.empty(cap, np.int64)
    fa[0], fb[0], fc[0] = start[0], start[1], start[2]
    size = 1
    parents = np.empty(max(16, 4 * n), np.int64)
    offsets = np.zeros(n + 1, np.int64)
    sizes = np.empty(n, np.int64)
    for t in range(n):
        m = 2 * size
        ca = np.empty(m, np.int64)
        cb = np.empty(m, np.int64)
        cc = np.empty(m, np.int64)
        p = np.empty(m)
        q = np.empty(m)
        u = np.empty(m)
        for k in range(m):
            if k < size:
                ca[k] = fa[k] + inc1[0, t]
                cb[k] = fb[k] + inc1[1, t]
                cc[k] = fc[k] + inc1[2, t]
            else:
                ca[k] = fa[k - size] + inc2[0, t]
                cb[k] = fb[k - size] + inc2[1, t]
                cc[k] = fc[k - size] + inc2[2, t]
            auc, d = _terms(ca[k], cb[k], cc[k], kind, w, inv_auc, wq, wb, sf, ss,
                           flip)
            penalty = lam * d
            p[k] = auc - penalty
            q[k] = auc + penalty
            u[k] = auc
        order = _order(p, q, u, size)
        # the sweep: a candidate survives iff its q beats every one before it
        if fa.size < m:
            fa = np.empty(2 * m, np.int64)
            fb = np.empty(2 * m, np.int64)
            fc = np.empty(2 * m, np.int64)
        if parents.size < offsets[t] + m:
            grown = np.empty(2 * (offsets[t] + m), np.int64)
            grown[:offsets[t]] = parents[:offsets[t]]
            parents = grown
        survivors = np.empty(m, np.int64)
        kept = _sweep(order, m, q, survivors)
        for o in range(kept):
            k = survivors[o]
            fa[o], fb[o], fc[o] = ca[k], cb[k], cc[k]
            parents[offsets[t] + o] = k
        sizes[t] = size
        offsets[t + 1] = offsets[t] + kept
        size = kept
    # the first state of the largest auc - lam * |d|
    best, final = _best_final(fa, fb, fc, size, lam, kind, w, inv_auc, wq, wb, sf, ss,
                              flip)
    second = np.zeros(n, np.bool_)
    k = best
    for t in range(n - 1, -1, -1):
        k = parents[offsets[t] + k]
        if k >= sizes[t]:
            second[t] = True
            k -= sizes[t]
    return second, final



@njit(cache=True, nogil=True)
def _states(path, y_a, negleft_b, u_a, left_b, y_b, negleft_a, u_b, left_a, urf,
            states, rows):
    """Fill ``states`` and ``rows`` (``cpu_reference.path_states``) along ``path``: the
    gains of each step added to the states after the one before (integers: the same
    values in any order of the sums)."""
    i = j = 0
    for t in range(path.size):
        if path[t] == 1:  # b-step from (i, j): cba += y_b[j] * (n_a0 - Q_a(i))
            states[0, t + 1] = states[0, t]
            states[1, t + 1] = states[1, t] + y_b[j] * negleft_a[i]
            if urf:
                states[2, t + 1] = states[2, t] - u_b[j] * left_a[i]
            j += 1
        else:  # a-step: cab += y_a[i] * (n_b0 - Q_b(j))
            states[0, t + 1] = states[0, t] + y_a[i] * negleft_b[j]
            states[1, t + 1] = states[1, t]
            if urf:
                states[2, t + 1] = states[2, t] + u_a[i] * left_b[j]
            i += 1
        rows[t + 1] = i


def path_states(lat, path):
    """``cpu_reference.path_states``, compiled: the same integer states after every
    step of ``path`` and rows of the cells reached (a loop over the path instead of
    NumPy passes over it: 4-12 times faster at 3,000-10^4 items per group)."""
    path = np.asarray(path)
    if path.dtype != np.int8:  # the reference's b-steps: the steps equal to 1
        path = path == 1
    path = np.ascontiguousarray(path, dtype=np.int8)
    n_a, n_b = lat.n_a, lat.n_b
    if path.size != n_a + n_b or np.count_nonzero(path == 1) != n_b:
        return cr.path_states(lat, path)  # not a path of lat: the reference's answer
    urf = cr.COUNTER_KINDS[lat.metric].has_u
    states = np.zeros((3 if urf else 2, path.size + 1), dtype=np.int64)
    rows = np.zeros(path.size + 1, dtype=np.int64)
    _states(path, *_inputs(lat), urf, states, rows)  # the step gains' integer inputs
    return states, rows


@njit(cache=True, nogil=True)
def _stretches(s1, r1, s2, r2):
    """``(shared, differ, inc1, inc2, start)`` of two paths' states and rows
    (``cpu_reference.relink``'s): the steps at which both are at one cell, the
    stretches between consecutive ones where their increments differ, those
    increments (3 rows, zero-padded), and the first path's last state less its
    increments there (integers: the same values in any order of the sums)."""
    n, rows = r1.size, s1.shape[0]
    shared = np.empty(n, np.int64)
    ns = 0
    for t in range(n):
        if r1[t] == r2[t]:
            shared[ns] = t
            ns += 1
    m = max(ns - 1, 0)
    differ = np.empty(m, np.int64)
    inc1 = np.zeros((3, m), np.int64)
    inc2 = np.zeros((3, m), np.int64)
    start = np.zeros(3, np.int64)
    for r in range(rows):
        start[r] = s1[r, n - 1]
    nd = 0
    for t in range(m):
        a, b = shared[t], shared[t + 1]
        same = True
        for r in range(rows):
            if s1[r, b] - s1[r, a] != s2[r, b] - s2[r, a]:
                same = False
        if not same:
            for r in range(rows):
                inc1[r, nd] = s1[r, b] - s1[r, a]
                inc2[r, nd] = s2[r, b] - s2[r, a]
                start[r] -= inc1[r, nd]
            differ[nd] = t
            nd += 1
    return (shared[:ns].copy(), differ[:nd].copy(), inc1[:, :nd].copy(),
            inc2[:, :nd].copy(), start)


#: States of two paths of different lengths (``ValueError``, as the reference's).
MSG_TWO_LATTICES = ("the two paths' states differ in shape ({} and {}): not paths of one "
                    "lattice")


def relink(lat, lam, first, second, states=(None, None)):
    """``cpu_reference.relink``, compiled: the same ``(path, counters)``, bit for bit
    (``ValueError`` for paths of two lattices, as the reference's)."""
    s1, r1 = path_states(lat, first) if states[0] is None else states[0]
    s2, r2 = path_states(lat, second) if states[1] is None else states[1]
    if np.shape(s1) != np.shape(s2) or np.shape(r1) != np.shape(r2):
        # the reference's comparison of the rows raises; the compiled loop would read
        # past the shorter path's
        raise ValueError(MSG_TWO_LATTICES.format(np.shape(s1), np.shape(s2)))
    rows = s1.shape[0]
    c = np.ascontiguousarray
    shared, differ, i1, i2, start = _stretches(c(s1, dtype=np.int64), c(r1, dtype=np.int64),
                                               c(s2, dtype=np.int64), c(r2, dtype=np.int64))
    use_second, final = _run(i1, i2, start, float(lam), *cr.relink_terms(lat))
    path = np.array(first, dtype=np.int8)
    second = np.asarray(second)
    for t in differ[use_second]:
        path[shared[t]:shared[t + 1]] = second[shared[t]:shared[t + 1]]
    return path, cr.state_counters(lat, final[:rows])


#: The states a caller passes to :func:`relink` come from here (``core._candidates.
#: states_for``): the reference's, compiled.
relink.path_states = path_states
