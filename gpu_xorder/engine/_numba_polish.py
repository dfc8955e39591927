"""One step of the polish (``core._polish``) compiled with numba: a moved copy of an
ordering made, its states taken and the two relinked, in one call, bit for bit the
step of ``_polish.moved``, ``cpu_reference.path_states`` and the compiled relink
(``_numba_relink``).

The polish relinks an ordering with up to ``POLISH_TRIES`` moved copies of it; each
step in Python paid for a loop over the moves, the states of the copy (NumPy over the
path), the relink's NumPy set-up and the candidate of its answer: about 0.2 ms, of
which the compiled relink's own loop took a tenth (an 11-lam path at 400 items per
group: 866 steps, 0.123 s of CPU, 0.035 s with this module; benchmarks/RESULTS.md,
issue #44 section 12). Here the moves,
the states and the stretches where the two orderings part are integer loops, the
relink's fronts are ``_numba_relink._run`` itself, and a step that takes no segment
of the copy says so (its answer is the ordering given: the same counters, so the same
objective). The generator's draws stay in Python (``_polish.draws``): the same
stream as the Python step.

numba is imported with this module, which only a polish with the compiled relink
imports (``_polish.polish``); the kernel is cached on disk (``cache=True``): compiled
once (2.6 s on the development machine, an empty cache, after the relink's 7.2 s), then
loaded in 0.02 s by a process that has loaded the relink.
"""

import numpy as np
from numba import njit

import cpu_reference as cr

from ._numba_fronts import _inputs
from ._numba_relink import _run


@njit(cache=True, nogil=True)
def _moved(p, kinds, at):
    """``_polish.moved``'s copy of ``p`` with the moves ``kinds`` at the boundaries
    ``at`` (the draws of ``_polish.draws``), the same loop."""
    n = p.size
    starts = np.empty(n, np.int64)
    runs = 1
    starts[0] = 0
    for k in range(1, n):
        if p[k] != p[k - 1]:
            starts[runs] = k
            runs += 1
    ends = np.empty(runs, np.int64)
    for k in range(runs - 1):
        ends[k] = starts[k + 1]
    ends[runs - 1] = n
    q = p.copy()
    free = 0
    for x in range(at.size):
        k = at[x]
        kind = kinds[k]
        upper, lower = p[starts[k]], p[starts[k + 1]]
        if kind == 1 and ends[k] - 1 >= free:
            q[ends[k] - 1] = lower
            q[ends[k]] = upper
            free = ends[k] + 1
        elif kind == 2 and ends[k] - 1 >= free:
            for t in range(ends[k] - 1, ends[k + 1] - 1):
                q[t] = lower
            q[ends[k + 1] - 1] = upper
            free = ends[k + 1]
        elif kind == 3 and starts[k] >= free:
            q[starts[k]] = lower
            for t in range(starts[k] + 1, ends[k] + 1):
                q[t] = upper
            free = ends[k] + 1
    return q


@njit(cache=True, nogil=True)
def _states(q, n_rows, y_a, negleft_b, u_a, left_b, y_b, negleft_a, u_b, left_a, kind):
    """``cpu_reference.path_states`` of the path ``q``: the states (``n_rows`` rows)
    after every step and the row of the cell reached, the same integers."""
    n = q.size
    states = np.zeros((n_rows, n + 1), np.int64)
    rows = np.zeros(n + 1, np.int64)
    i = j = 0
    for k in range(n):
        g0 = g1 = g2 = 0
        if q[k] == 1:  # the b-step (i, j) -> (i, j + 1)
            g1 = y_b[j] * negleft_a[i]
            if kind == 2:
                g2 = -(u_b[j] * left_a[i])
            j += 1
        else:          # the a-step (i, j) -> (i + 1, j)
            g0 = y_a[i] * negleft_b[j]
            if kind == 2:
                g2 = u_a[i] * left_b[j]
            i += 1
        states[0, k + 1] = states[0, k] + g0
        states[1, k + 1] = states[1, k] + g1
        if n_rows > 2:
            states[2, k + 1] = states[2, k] + g2
        rows[k + 1] = i
    return states, rows


@njit(cache=True, nogil=True)
def _step(p, s1, r1, kinds, at, lam, y_a, negleft_b, u_a, left_b, y_b, negleft_a, u_b,
          left_a, kind, w, inv_auc, wq, wb, sf, ss, flip):
    """The relink of ``p`` (states ``s1``, rows ``r1``) with its moved copy:
    ``(taken, path, final)``; ``taken`` False where no segment of the copy was taken
    (``path`` is then ``p`` itself). The relink's set-up is ``_numba_relink.relink``'s
    (shared cells, the stretches that differ, the start), the same integers."""
    q = _moved(p, kinds, at)
    n_rows = s1.shape[0]
    s2, r2 = _states(q, n_rows, y_a, negleft_b, u_a, left_b, y_b, negleft_a, u_b,
                     left_a, kind)
    n = p.size
    shared = np.empty(n + 1, np.int64)
    m = 0
    for k in range(n + 1):
        if r1[k] == r2[k]:
            shared[m] = k
            m += 1
    differ = np.empty(max(m - 1, 0), np.int64)
    nd = 0
    for t in range(m - 1):
        lo, hi = shared[t], shared[t + 1]
        for r in range(n_rows):
            if s1[r, hi] - s1[r, lo] != s2[r, hi] - s2[r, lo]:
                differ[nd] = t
                nd += 1
                break
    start = np.zeros(3, np.int64)
    i1 = np.zeros((3, nd), np.int64)
    i2 = np.zeros((3, nd), np.int64)
    for r in range(n_rows):
        total = 0
        for x in range(nd):
            lo, hi = shared[differ[x]], shared[differ[x] + 1]
            i1[r, x] = s1[r, hi] - s1[r, lo]
            i2[r, x] = s2[r, hi] - s2[r, lo]
            total += i1[r, x]
        start[r] = s1[r, n] - total
    second, final = _run(i1, i2, start, lam, kind, w, inv_auc, wq, wb, sf, ss, flip)
    taken = False
    for x in range(nd):
        if second[x]:
            taken = True
            break
    if not taken:
        return False, p, final
    path = p.copy()
    for x in range(nd):
        if second[x]:
            lo, hi = shared[differ[x]], shared[differ[x] + 1]
            for k in range(lo, hi):
                path[k] = q[k]
    return True, path, final


class MovedRelink:
    """The compiled polish step on one lattice (its step gains and objective terms
    taken once): ``step(lam, path, states, kinds, at)`` relinks ``path`` (int8, its
    ``cpu_reference.path_states`` ``states``) with its copy moved by the draws
    ``kinds``, ``at`` (``_polish.draws``), as ``cpu_reference.relink(lat, lam, path,
    _polish.moved(...))`` with the same draws: ``(path, counters)``, or None where no
    segment of the copy was taken (the answer is ``path``, its counters)."""

    def __init__(self, lat):
        self.lat = lat
        self.inputs = _inputs(lat)
        self.terms = cr.relink_terms(lat)

    def step(self, lam, path, states, kinds, at):
        s1, r1 = states
        taken, out, final = _step(
            np.asarray(path, dtype=np.int8), np.ascontiguousarray(s1, dtype=np.int64),
            np.ascontiguousarray(r1, dtype=np.int64), kinds, at, float(lam),
            *self.inputs, *self.terms)
        if not taken:
            return None
        return out, cr.state_counters(self.lat, final[:s1.shape[0]])
