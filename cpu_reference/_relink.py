"""Relinking two paths: the best ordering for ``AUC - lam * |D|`` that follows either
path between the cells they share (docs/design.md, section 3.5).

Two paths of one lattice cross or touch at some cells; between two consecutive shared
cells each follows its own segment, and any choice of one segment per stretch is a path.
The gains of a step depend on the cell, not on the path, so a segment adds the same
counters whichever path came before it. The best choice is found exactly by the Pareto
fronts of ``_fronts`` over the sequence of stretches where the two segments differ (one
cell per stretch, so one front): at most some thousands of states in practice (40,000
at 10^4 items per group), against the lattice's 10^8 cells. The result is at least as
good as both paths.
"""

import numpy as np

from gpu_xorder.utils._metrics import METRICS

from ._fronts import best_final, final_counters, pair_increments, pair_terms_of_states
from ._objective import flipped, pair_scales


def path_states(lat, path):
    """Exact integer states (rows ``cab, cba[, uab - uba]``, as ``_fronts`` keeps them)
    after every step of ``path``, shape ``(K, n_a + n_b + 1)``, and the row ``i`` of the
    cell reached after every step, shape ``(n_a + n_b + 1,)``."""
    path = np.asarray(path)
    a_step, b_step = pair_increments(lat)
    is_b = path == 1
    j = np.cumsum(is_b) - is_b            # column before each step
    i = np.arange(path.size) - j          # row before each step
    gains = np.where(is_b[None, :], b_step(i, np.minimum(j, lat.n_b - 1)),
                     a_step(np.minimum(i, lat.n_a - 1), j))
    states = np.zeros((gains.shape[0], path.size + 1), dtype=np.int64)
    np.cumsum(gains, axis=1, out=states[:, 1:])
    rows = np.concatenate(([0], np.cumsum(~is_b)))
    return states, rows


def relink_terms(lat):
    """The scalars by which ``pair_terms_of_states`` forms a state's ``auc`` and signed
    ``d``, for a compiled twin of :func:`relink` to repeat its operations:
    ``(metric code (0 xauc, 1 prf, 2 urf), w, inv_auc, w_a, w_b (PRF; else 0),
    scale_first, scale_second, flip)``."""
    c, metric = lat.consts, lat.metric
    scale_first, scale_second = pair_scales(c, metric)
    w_a, w_b = (float(c.w_q[0]), float(c.w_b)) if metric == "prf" else (0.0, 0.0)
    return (METRICS[metric].code, float(c.w), float(c.inv_auc), w_a, w_b,
            float(scale_first), float(scale_second), bool(flipped(c, "signed")))


def state_counters(lat, state):
    """The counters (``_lattice.COUNTERS`` order) of a last-cell state (rows ``cab,
    cba[, uab - uba]``)."""
    return final_counters(lat, state)


def path_counters(lat, path):
    """The counters (``_lattice.COUNTERS`` order) of the last cell of ``path``."""
    return final_counters(lat, path_states(lat, path)[0][:, -1])


def relink(lat, lam, first, second, states=(None, None)):
    """The best path for ``AUC - lam * |D|`` among those that follow ``first`` or
    ``second`` between their shared cells: ``(path, counters)``. On equal objectives the
    choice nearest ``first`` is kept (of equal ``|D|``, the larger AUC first:
    ``_fronts.best_final``). ``states``: the ``path_states`` of ``first`` and
    ``second`` where already known (None: computed here)."""
    s1, r1 = path_states(lat, first) if states[0] is None else states[0]
    s2, r2 = path_states(lat, second) if states[1] is None else states[1]
    shared = np.flatnonzero(r1 == r2)             # steps at which both are at one cell
    inc1, inc2 = np.diff(s1[:, shared], axis=1), np.diff(s2[:, shared], axis=1)
    differ = np.flatnonzero(np.any(inc1 != inc2, axis=0))
    front = (s1[:, -1] - inc1[:, differ].sum(axis=1))[:, None]
    parents = []                                   # per stretch: (chosen, front size)
    for t in differ:
        cand = np.concatenate((front + inc1[:, t:t + 1], front + inc2[:, t:t + 1]), axis=1)
        auc, dis = pair_terms_of_states(lat, cand)
        penalty = lam * dis
        p, q = auc - penalty, auc + penalty
        # p descending, then q descending, then AUC descending (at large weights
        # auc -+ lam d rounds to -+ lam d, so states of one d tie whatever their AUC),
        # then the first path's segment: a state survives iff its q beats every state
        # before it
        order = _descending(p, q, auc)
        q_sorted = q[order]
        survive = np.ones(order.size, dtype=bool)
        survive[1:] = q_sorted[1:] > np.maximum.accumulate(q_sorted)[:-1]
        kept = order[survive]
        parents.append((kept, front.shape[1]))
        front = cand[:, kept]
    auc, dis = pair_terms_of_states(lat, front)
    value = auc - lam * np.abs(dis)
    best = k = best_final(value, auc, dis)
    path = np.array(first, dtype=np.int8)
    second = np.asarray(second)
    for t, (chosen, size) in zip(differ[::-1], parents[::-1]):
        k = int(chosen[k])
        if k >= size:  # the second path's segment
            path[shared[t]:shared[t + 1]] = second[shared[t]:shared[t + 1]]
            k -= size
    return path, final_counters(lat, front[:, best])


def _descending(p, q, auc):
    """The indices by ``p`` descending, then ``q`` descending, then ``auc`` descending,
    then ascending. Where
    ``p`` has no tie, a stable sort by ``p`` alone gives that order, and fast: the
    front plus either segment is a run sorted (nearly) by ``p``."""
    neg = -p
    order = np.argsort(neg, kind="stable")
    ranked = neg[order]
    if np.any(ranked[1:] == ranked[:-1]):
        return np.lexsort((np.arange(p.size), -auc, -q, neg))
    return order
