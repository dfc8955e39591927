"""One step of the polish (``core._polish``) compiled with numba: a moved copy of an
ordering made, its states taken and the two relinked, in one call, bit for bit the
step of ``_polish.moved``, ``cpu_reference.path_states`` and the compiled relink
(``_numba_relink``).

The polish relinks an ordering with up to ``POLISH_TRIES`` moved copies of it; each
step in Python pays for a loop over the moves, the calls of the compiled states and
relink and the candidate of the relink's answer (an 11-lam path at 400 items per
group: 866 steps, 0.074 s of CPU, 0.036 s with this module; benchmarks/RESULTS.md,
issue #44 section 13). Here the moves are an integer loop, the copy's states, the
stretches where the two orderings part and the relink's fronts are
``_numba_relink``'s (``_states``, ``_stretches``, ``_run``), and a step that takes no
segment of the copy says so (its answer is the ordering given: the same counters, so
the same objective). The generator's draws stay in Python (``_polish.draws``): the
same stream as the Python step.

numba is imported with this module, which only a polish with the compiled relink
imports (``_polish.polish``); the kernel is cached on disk (``cache=True``): compiled
once (2.4 s on the development machine at load 3, an empty cache, after the relink's
11 s), then loaded in 0.02 s by a process that has loaded the relink.
"""

import numpy as np
from numba import njit

import cpu_reference as cr

from ._numba_fronts import _inputs
from ._numba_relink import _run, _states, _stretches


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
def _step(p, s1, r1, kinds, at, lam, y_a, negleft_b, u_a, left_b, y_b, negleft_a, u_b,
          left_a, urf, kind, w, inv_auc, wq, wb, sf, ss, flip):
    """The relink of ``p`` (states ``s1``, rows ``r1``) with its moved copy:
    ``(taken, path, final)``; ``taken`` False where no segment of the copy was taken
    (``path`` is then ``p`` itself). The copy's states, the stretches and the relink
    are ``_numba_relink``'s (``_states``, ``_stretches``, ``_run``)."""
    q = _moved(p, kinds, at)
    s2 = np.zeros((s1.shape[0], q.size + 1), np.int64)
    r2 = np.zeros(q.size + 1, np.int64)
    _states(q, y_a, negleft_b, u_a, left_b, y_b, negleft_a, u_b, left_a, urf, s2, r2)
    shared, differ, i1, i2, start = _stretches(s1, r1, s2, r2)
    second, final = _run(i1, i2, start, lam, kind, w, inv_auc, wq, wb, sf, ss, flip)
    taken = False
    for x in range(differ.size):
        if second[x]:
            taken = True
            break
    if not taken:
        return False, p, final
    path = p.copy()
    for x in range(differ.size):
        if second[x]:
            for k in range(shared[differ[x]], shared[differ[x] + 1]):
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
        self.inputs = _inputs(lat) + (cr.COUNTER_KINDS[lat.metric].has_u,)
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
