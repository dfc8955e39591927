"""The exact two-group solver for ``AUC - lam * |D|``: Pareto fronts per cell.

docs/design.md, section 3.5. Every future step adds the same
increments to two states that share a cell, so a state is worth keeping only if no other
state of its cell dominates it: with ``p = auc - lam * d`` and ``q = auc + lam * d``
(``d`` the signed disparity), ``x`` dominates ``y`` iff ``p_x >= p_y`` and
``q_x >= q_y``. Keeping the Pareto-maximal states of every cell is exact; the answer is
the final state with the largest ``min(p, q) = auc - lam * |d|``.

States are exact integer counters (``cab``, ``cba`` and, for URF, ``uab - uba``); the
objective terms are evaluated by the G-hat contract of ``_objective``. A whole anti-diagonal
is processed at once: the candidates of all its cells are sorted by
``(cell, -p, -q)`` and a state survives iff its ``q`` beats every state before it in its
cell (a segmented running maximum over dense ranks of ``q``).

Optional pruning by bounds: given a feasible objective ``lower`` and, for a few weights
``mu`` in ``[-lam, lam]``, the completion values ``R_mu`` of the signed objective
(``completion_values``), no path through a state can beat
``min_mu(auc - mu * d + R_mu(cell))``; states whose bound is below ``lower`` are
dropped. The optimum is never dropped, so the result stays exact.
"""

import numpy as np

from ._lattice import COUNTER_KINDS
from ._objective import PAIR_TERM, pair_scales, state_rows, state_values, term_operands

# ------------------------------------------------------------------ the terms of states


def signed_increment(consts, metric, gains, mu, auc_weight=1.0):
    """``auc_weight * auc - mu * d`` of integer counter increments ``gains`` (rows
    ``cab, cba[, uab - uba]``): both terms are linear in the counters (the exact
    solvers' bounds)."""
    g = gains.astype(np.float64)
    return auc_weight * ((g[0] + g[1]) * consts.inv_auc) - mu * _disparity(consts, metric, g)


def step_disparity(consts, metric, gains):
    """The signed disparity ``d`` of integer counter increments ``gains``: the term
    ``signed_increment`` weighs by ``mu``, bit for bit."""
    return _disparity(consts, metric, gains.astype(np.float64))


def _disparity(consts, metric, g):
    return PAIR_TERM[metric](*term_operands(g, metric), *pair_scales(consts, metric))


def pair_increments(lat):
    """Integer step gains: ``(ga, gb)`` with ``ga[i, j]`` the gains of the a-step from
    ``(i, j)`` to ``(i + 1, j)`` and ``gb[i, j]`` those of the b-step to ``(i, j + 1)``,
    as callables on index arrays (the lattice is never materialised)."""
    y_b = lat.y_b_rev[:-1][::-1]
    negleft_b = lat.negleft_b_rev[::-1]
    negleft_a = lat.negleft_a[0]
    urf = COUNTER_KINDS[lat.metric].has_u
    u_b, left_b, left_a = lat.u_b_rev[:-1][::-1], lat.left_b_rev[::-1], lat.left_a[0]

    def a_step(i, j):  # cab += y_a[i] * (n_b0 - Q_b(j)); uab - uba += r_a[i] (n_b - j)
        rows = [lat.y_a[i] * negleft_b[j], np.zeros_like(i)]
        if urf:
            rows.append(lat.u_a[i] * left_b[j])
        return np.stack(rows)

    def b_step(i, j):  # cba += y_b[j] * (n_a0 - Q_a(i)); uab - uba -= r_b[j] (n_a - i)
        rows = [np.zeros_like(i), y_b[j] * negleft_a[i]]
        if urf:
            rows.append(-(u_b[j] * left_a[i]))
        return np.stack(rows)

    return a_step, b_step


def pair_terms_of_states(lat, state):
    """``(auc, d)``: the AUC and the signed disparity of integer states (rows ``cab,
    cba[, uab - uba]``), by the operation sequences of ``_objective``."""
    c = state
    if COUNTER_KINDS[lat.metric].has_u:  # state_rows takes uab - uba as uab and uba = 0
        c = np.vstack((c, np.zeros_like(c[:1])))
    rows = state_rows(c, lat.consts, lat.metric)
    _, auc, d = state_values(rows, lat.consts, 0.0, lat.metric, "signed")
    return auc, d


# ------------------------------------------------------------------ the fronts

#: States whose bound lies this far below the feasible objective are still kept: the
#: bound is a float64 sum over the path, exact only up to rounding.
PRUNE_TOLERANCE = 1e-9

#: The pruning's first pass evaluates the bounds of this many weights (spread over
#: those given) on every candidate, the second the others' on the candidates it keeps:
#: the same states kept. With the tables read in place (no copy per run), the fronts
#: of benchmarks/search_shortfall.py's case 15 (solver="exact", 2.8e6 states, 10 runs)
#: took 3.4 s of profiled CPU instead of 6.8 s; 2, 4, 8 or all 21 weights first made
#: no difference beyond the noise on case 19 (4e7 states, where the states dominate).
PRUNE_FIRST = 4

#: A disparity this close to ``eps`` meets ``|D| <= eps``: the float64 rounding of a
#: ``D`` equal to ``eps`` (both written in decimal, say 0.1) must not decide.
EPS_TOLERANCE = 1e-12


def within_eps(d, eps):
    """``|D| <= eps`` up to ``EPS_TOLERANCE`` (elementwise for arrays): the one test of
    the constraint, in the solvers, the scorer and the checks of a fit."""
    return np.abs(d) <= eps + EPS_TOLERANCE

#: The states on course (stored, plus the current anti-diagonal's times the diagonals
#: left) may exceed ``max_states`` this many times before the fronts stop: the fronts
#: peak inside the lattice, and the prediction at the peak overshot the total by
#: 1.7-5.1 times on five problems of 700-1,800 items (benchmarks/search_shortfall.py's
#: cases 0, 2, 20, 24, 49); the states stored never exceed ``max_states``.
PREDICTION_SLACK = 6

#: Bytes per stored state (parent index) and per cell (offsets) kept for the traceback.
BYTES_PER_STATE = 4
BYTES_PER_CELL = 4

MSG_FRONTS = (
    "the exact solver's Pareto fronts for the {n_a} x {n_b} lattice at lam = {lam:g} "
    "exceed the memory budget ({limit:.3g} GiB, {states} states stored by anti-diagonal "
    "{d} of {n_d}); use solver='lagrangian' (a certified bound) or subsample"
)


MSG_FRONT_STATES = (
    "the exact solver's fronts for the {n_a} x {n_b} lattice are on course for "
    "{predicted:.3g} states ({states} stored by anti-diagonal {d} of {n_d}), over the "
    "budget of {limit:.3g}"
)
MSG_NONE_LEFT = "no state of the fronts reaches the lower bound given (or the constraint)"


class FrontsTooLarge(MemoryError):
    """The Pareto fronts outgrew the memory budget of the exact solver; ``predicted``:
    the states they were on course for, where ``max_states`` stopped them (else None)."""

    def __init__(self, message, predicted=None):
        super().__init__(message)
        self.predicted = predicted


class NoneLeft(ValueError):
    """The pruned fronts lost every state: the lower bound lies above the optimum, or
    no interleaving meets the constraint. ``states``: the states the fronts stored
    before they lost the last (what the try cost, which a budget of states counts)."""

    def __init__(self, message, states=0):
        super().__init__(message)
        self.states = states


def completion_values(lat, mu, auc_weight=1.0):
    """``R[i, j]``: the largest sum of signed step gains ``auc_weight * auc - mu * d``
    from cell ``(i, j)`` to the last cell, shape ``(n_a + 1, n_b + 1)``, float64; for
    an array of weights ``mu``, one table per weight, ``(len(mu), n_a + 1, n_b + 1)``,
    each the table of its weight alone, bit for bit (one pass for all: the step gains
    once per row)."""
    many = np.ndim(mu) > 0
    mu = np.asarray(mu, dtype=np.float64).reshape(-1, 1)
    out = np.empty((mu.shape[0], lat.n_a + 1, lat.n_b + 1))
    for i, row in _completion_rows(lat, mu, auc_weight):
        out[:, i] = row
    return out if many else out[0]


def _completion_rows(lat, mu, auc_weight):
    """The rows of ``completion_values`` of the weights ``mu`` (a column), from the
    bottom: ``(i, R[:, i])``.

    Within a row, going right then down at column ``k`` is a suffix maximum over ``k``
    of the row below plus prefix sums of the row's b-gains (sequential, along the row).
    """
    below = None
    for i in range(lat.n_a, -1, -1):
        prefix, down = _row_terms(lat, i, mu, auc_weight, below)
        if below is None:  # last row: right only
            row = prefix[:, -1:] - prefix
        else:
            best = np.maximum.accumulate((down + prefix)[:, ::-1], axis=1)[:, ::-1]
            row = best - prefix
        yield i, row
        below = row


def _row_terms(lat, i, mu, auc_weight, below):
    """Of row ``i`` and the weights ``mu`` (a column): the prefix sums ``P(j)`` of the
    signed b-gains along the row, and (``below``: the completion values of row ``i + 1``;
    None for the last row, which has no a-steps) ``below`` plus the signed a-gains of
    every column, ``down``. Going right from ``(i, j)`` and down at ``k >= j`` earns
    ``down[k] + P(k) - P(j)``."""
    n_b = lat.n_b
    a_step, b_step = pair_increments(lat)
    cols = np.arange(n_b + 1)
    rows = np.full(n_b + 1, i)
    # (i, j) -> (i, j + 1)
    gb = signed_increment(lat.consts, lat.metric, b_step(rows[:-1], cols[:-1]), mu,
                          auc_weight)
    prefix = np.concatenate((np.zeros((mu.shape[0], 1)), np.cumsum(gb, axis=1)), axis=1)
    if below is None:
        return prefix, None
    # (i, k) -> (i + 1, k)
    return prefix, below + signed_increment(lat.consts, lat.metric, a_step(rows, cols),
                                            mu, auc_weight)


def _exits(down, prefix):
    """Per column ``j`` of a row (not the last) and weight: the column ``k >= j`` where
    the completion that ``completion_values`` prices goes down, the first of the largest
    ``down[k] + P(k)`` (going down as early as the values allow), shape of ``down``."""
    v = down + prefix
    top = np.maximum.accumulate(v[:, ::-1], axis=1)[:, ::-1]
    record = np.where(v == top, np.arange(v.shape[1]), v.shape[1])
    return np.minimum.accumulate(record[:, ::-1], axis=1)[:, ::-1]


def completion_disparities(lat, mus, values):
    """``D[t, i * (n_b + 1) + j]``: the signed disparity ``d`` that the completion from
    cell ``(i, j)`` priced by ``values[t]`` (``completion_values(lat, mus[t])``, one
    flat row per weight, cells ``i * (n_b + 1) + j``) gains; of the completions of that
    value, the one that goes down at the first column of largest value in every row
    (:func:`completion_path`). So that completion ends with the AUC gain
    ``values + mus * D`` and the disparity gain ``D``: a feasible ordering from any
    state of the cell (the dives of :func:`solve_fronts`)."""
    n_a, n_b = lat.n_a, lat.n_b
    mu = np.asarray(mus, dtype=np.float64).reshape(-1, 1)
    values = np.asarray(values).reshape(mu.shape[0], n_a + 1, n_b + 1)
    a_step, b_step = pair_increments(lat)
    cols = np.arange(n_b + 1)
    out = np.empty((mu.shape[0], n_a + 1, n_b + 1))
    for i in range(n_a, -1, -1):
        rows = np.full(n_b + 1, i)
        pd = np.concatenate(([0.0], np.cumsum(step_disparity(
            lat.consts, lat.metric, b_step(rows[:-1], cols[:-1])))))
        if i == n_a:
            out[:, i] = pd[-1] - pd
            continue
        prefix, down = _row_terms(lat, i, mu, 1.0, values[:, i + 1])
        k = _exits(down, prefix)
        da = step_disparity(lat.consts, lat.metric, a_step(rows, cols))
        out[:, i] = pd[k] - pd + da[k] + np.take_along_axis(out[:, i + 1], k, axis=1)
    return out.reshape(mu.shape[0], -1)


def completion_path(lat, mu, values, i, j):
    """The steps (0: a, 1: b) of the completion from cell ``(i, j)`` that
    :func:`completion_disparities` prices for the weight ``mu`` (``values``: its
    ``completion_values``, any shape of ``(n_a + 1) * (n_b + 1)`` cells), and the
    integer counters it gains (rows ``cab, cba[, uab - uba]``)."""
    n_a, n_b = lat.n_a, lat.n_b
    values = np.asarray(values).reshape(n_a + 1, n_b + 1)
    mu = np.array([[float(mu)]])
    steps, at = [], []  # the steps and the cell before each
    while i < n_a:
        prefix, down = _row_terms(lat, i, mu, 1.0, values[i + 1][None, :])
        k = int(_exits(down, prefix)[0, j])
        steps += [1] * (k - j) + [0]
        at += [(i, c) for c in range(j, k + 1)]
        i, j = i + 1, k
    steps += [1] * (n_b - j)
    at += [(i, c) for c in range(j, n_b)]
    steps = np.array(steps, dtype=np.int8)
    a_step, b_step = pair_increments(lat)
    ii = np.array([c[0] for c in at], dtype=np.int64)
    jj = np.array([c[1] for c in at], dtype=np.int64)
    is_b = steps == 1
    gains = (b_step(ii[is_b], jj[is_b]).sum(axis=1)
             + a_step(ii[~is_b], jj[~is_b]).sum(axis=1))
    return steps, gains


def solve_fronts(lat, lam, *, lower=None, bounds=(), max_bytes=None, max_states=None,
                 eps=None, reach=None, beam=None, dive=None):
    """The interleaving of two groups that maximises ``AUC - lam * |D|``, exactly; or,
    with ``eps``, the largest AUC subject to ``|D| <= eps``.

    Parameters
    ----------
    lat : StepLattice
        A two-group lattice (``build_lattice``).
    lam : float
        Weight of ``|D|`` (>= 0); ignored with ``eps``.
    lower : float, optional
        The objective (with ``eps``: the AUC) of a known interleaving; with ``bounds``,
        states that cannot exceed it are dropped.
    bounds : sequence of (mu, R)
        Weights ``mu`` with their ``completion_values`` (``|mu| <= lam``; any mu with
        ``eps``, whose bound adds ``|mu| * eps``).
    max_bytes : int, optional
        Budget of the stored fronts; beyond it ``FrontsTooLarge`` is raised.
    max_states : int, optional
        Budget of stored states: ``FrontsTooLarge`` as soon as the states stored exceed
        it, or the states stored plus those of the current anti-diagonal times the
        diagonals left (the states on course) exceed ``PREDICTION_SLACK`` times it.
    eps : float, optional
        Solve the constrained problem: a state is kept unless another of its cell has
        the same ``d`` and no smaller AUC (the lam-dominance of ``|D|`` is not valid
        under a constraint).
    reach : (R_min, R_max), optional
        With ``eps``: ``completion_values(lat, 1.0, 0.0)`` and ``(lat, -1.0, 0.0)``,
        the completions' smallest and largest ``d`` (negated and not); states whose
        every completion misses ``|D| <= eps`` are dropped.
    beam : int, optional
        A bounded front instead (a heuristic, without ``eps``; needs ``bounds``): a
        cell keeps at most ``beam`` of its front's states, those of the largest
        completion bound ``min over mu of auc - mu * d + R_mu(cell)`` (the earlier in
        the canonical order on a tie), in the canonical order; its answer is an
        ordering, not the optimum. The compiled twin's beam, bit for bit.
    dive : (index, disparities), optional
        With ``beam`` and ``lower``: dives, a heuristic's incumbent raised on the way.
        ``index``: positions in ``bounds`` of some weights, ``disparities``: their
        ``completion_disparities`` (one flat row each). Every state stored is also
        completed by each of these weights' completions (:func:`completion_path`),
        whose objective ``(auc + R + mu D) - lam |d + D|`` is known from the tables;
        the best of a diagonal, where above ``lower``, becomes ``lower`` from the next
        diagonal on (the first state, then the first weight, of the largest). The
        answer is the better of the last diagonal's and the best dive by their
        counters' objectives (:func:`dive_wins`; the last's on a tie; where the raised
        ``lower`` left no state, the dive if it reaches the ``lower`` given, else
        ``NoneLeft``), ``stats["dive"]`` whether it is the dive.

    Returns
    -------
    path : ndarray of int8
        Group index of every rank, top first.
    final : ndarray of int64
        Counters of the last cell (``_lattice.COUNTERS`` order).
    stats : dict
        ``states`` (stored in all), ``largest`` (largest front of one cell).

    Raises
    ------
    NoneLeft
        Every state was dropped: ``lower`` lies above the optimum (or, with ``eps``, no
        interleaving meets the constraint); its ``states``: those stored before.
    """
    n_a, n_b = lat.n_a, lat.n_b
    a_step, b_step = pair_increments(lat)
    n_d = n_a + n_b
    rows = np.zeros(1, dtype=np.int64)                     # cell row i of each state
    state = np.zeros((COUNTER_KINDS[lat.metric].state_rows, 1), dtype=np.int64)
    parents, starts = [], []
    stored, largest = 0, 1
    slack = (lambda mu: abs(mu) * eps) if eps is not None else (lambda mu: 0.0)
    if beam is not None and (eps is not None or len(bounds) == 0):
        raise ValueError("a bounded front needs the completion bounds of some weights "
                         "and no eps")
    prune = lower is not None and len(bounds) > 0
    if len(bounds):  # one gather for every weight: (weights, cells) of R, flat
        mus = np.array([mu for mu, _ in bounds])[:, None]
        slacks = np.array([slack(mu) for mu, _ in bounds])[:, None]
        tables = _stacked(bounds, (n_a + 1) * (n_b + 1))
        # the bounds in two passes: a few weights spread over all candidates, the rest
        # over those they keep (a state is kept iff every weight keeps it; the compiled
        # twin stops at the first weight that prunes)
        first = np.unique(np.linspace(0, len(bounds) - 1, min(len(bounds), PRUNE_FIRST))
                          .round().astype(int))
        rest = np.setdiff1d(np.arange(len(bounds)), first)
        passes = [(mus[ws], slacks[ws] if eps is not None else None, ws)
                  for ws in (first, rest) if ws.size]
    if dive is not None:
        if beam is None or not prune:
            raise ValueError("dives need a bounded front, its bounds and a lower bound")
        dive_mus = mus[dive[0], 0][:, None]
        dive_values = (tables, np.asarray(dive[0]))
        lower = given = float(lower)
        dived = None  # (diagonal, row, state counters, weight, state) of the best dive
    row_type = np.int16 if n_a < 2**15 else np.int64  # int16: NumPy's radix sort
    for d in range(n_d):
        cols = d - rows
        go_a, go_b = rows < n_a, cols < n_b
        src = np.concatenate((np.flatnonzero(go_a), np.flatnonzero(go_b)))
        new_rows = np.concatenate((rows[go_a] + 1, rows[go_b]))
        ia, ja, ib, jb = rows[go_a], cols[go_a], rows[go_b], cols[go_b]
        cand = np.concatenate((state[:, go_a] + a_step(ia, ja),
                               state[:, go_b] + b_step(ib, jb)), axis=1)
        auc, dis = pair_terms_of_states(lat, cand)
        new_cols = d + 1 - new_rows
        alive = None  # the candidates the bounds and the constraint keep, in order
        if prune:
            alive, ub = _pruned(auc, dis, new_rows, d + 1, n_a, n_b, tables, passes,
                                lower - PRUNE_TOLERANCE)
        if reach is not None:
            # d + (smallest completion) <= eps and d + (largest completion) >= -eps
            fits = ((dis - reach[0][new_rows, new_cols] <= eps + PRUNE_TOLERANCE)
                    & (dis + reach[1][new_rows, new_cols] >= -eps - PRUNE_TOLERANCE))
            alive = np.flatnonzero(fits) if alive is None else alive[fits[alive]]
        if alive is not None:
            new_rows, auc, dis = new_rows[alive], auc[alive], dis[alive]
            if prune:
                ub = ub[alive]
        if eps is None:
            order, new_rows = _pareto(auc - lam * dis, auc + lam * dis, auc, new_rows,
                                      row_type)
            if beam is not None:
                starts_of_cells = np.flatnonzero(np.diff(new_rows, prepend=-1))
                sizes = np.diff(np.append(starts_of_cells, new_rows.size))
                if sizes.max(initial=0) > beam:
                    bound = ub[order] if prune else _bound(
                        auc[order], dis[order], new_rows, d + 1, n_b, mus, tables)
                    kept = _cut(new_rows, beam, starts_of_cells, sizes, bound)
                    order, new_rows = order[kept], new_rows[kept]
        else:
            order, new_rows = _best_per_d(auc, dis, new_rows)
        if dive is not None and new_rows.size:
            top = _dive(auc[order], dis[order], new_rows, d + 1, n_b, lam, dive_mus,
                        dive_values, dive[1])
            if top[0] > lower:
                lower = top[0]
                s_top = order[top[1]] if alive is None else alive[order[top[1]]]
                dived = (d + 1, int(new_rows[top[1]]), cand[:, s_top], top[2], top[1])
        if alive is not None:  # positions among all candidates
            order = alive[order]
        rows, state = new_rows, cand[:, order]
        if rows.size == 0:
            if dive is not None and dived is not None:
                tail, raw = _dive_tail(lat, dived, dive_mus, dive_values)
                if dive_wins(lat, lam, raw, lower=given):
                    return _dived(lat, parents, starts, dived, tail, raw, stored, largest)
            raise NoneLeft(MSG_NONE_LEFT, states=stored)
        parents.append(src[order].astype(np.int32))
        bounds_of_cells = np.flatnonzero(np.diff(rows, prepend=-1))
        starts.append(np.stack((rows[bounds_of_cells], bounds_of_cells)).astype(np.int32))
        stored += rows.size
        largest = max(largest, int(np.diff(np.append(bounds_of_cells, rows.size)).max(
            initial=0)))
        if max_bytes is not None and (stored * BYTES_PER_STATE
                                      + (d + 1) * BYTES_PER_CELL * min(n_a, n_b, d + 1)
                                      > max_bytes):
            raise FrontsTooLarge(MSG_FRONTS.format(
                n_a=n_a, n_b=n_b, lam=lam, limit=max_bytes / 2**30, states=stored, d=d + 1,
                n_d=n_d))
        predicted = stored + rows.size * (n_d - d - 1)
        if max_states is not None and (stored > max_states
                                       or predicted > PREDICTION_SLACK * max_states):
            raise FrontsTooLarge(MSG_FRONT_STATES.format(
                n_a=n_a, n_b=n_b, states=stored, d=d + 1, n_d=n_d,
                predicted=predicted, limit=max_states), predicted=predicted)
    auc, dis = pair_terms_of_states(lat, state)
    if eps is None:
        value = auc - lam * np.abs(dis)
    else:
        value = np.where(within_eps(dis, eps), auc, -np.inf)
        if not np.isfinite(value).any():
            raise NoneLeft(MSG_NONE_LEFT, states=stored)
    best = best_final(value, auc, dis)
    if dive is not None and dived is not None:
        tail, raw = _dive_tail(lat, dived, dive_mus, dive_values)
        if dive_wins(lat, lam, raw, state[:, best]):
            return _dived(lat, parents, starts, dived, tail, raw, stored, largest)
    path = _walk(parents, starts, best, n_a, n_d)
    stats = {"states": stored, "largest": largest}
    if dive is not None:
        stats["dive"] = False
    return path, final_counters(lat, state[:, best]), stats


def _dive(auc, dis, new_rows, d, n_b, lam, mus, values, disparities):
    """``(value, state, weight)``: the best dive from the states of diagonal ``d``
    (``auc``, ``dis`` in cells ``new_rows``), each completed by the completion of every
    weight of ``mus`` (a column; ``values``: the stacked tables and the weights' rows in
    them; ``disparities``: theirs, one flat row each): ``(auc + (R + mu D)) - lam |d +
    D|``, the first state, then the first weight, of the largest."""
    cells = new_rows * (n_b + 1) + (d - new_rows)
    r, x = values[0][values[1][:, None], cells], disparities[:, cells]
    j = (auc + (r + mus * x)) - lam * np.abs(dis + x)
    k = int(np.argmax(j.T))
    return float(j.T.flat[k]), k // mus.shape[0], k % mus.shape[0]


def _dive_tail(lat, dived, mus, values):
    """``(tail, state)`` of the best dive ``dived``: the completion of its weight from
    its state's cell, and the state (rows ``cab, cba[, uab - uba]``) it ends in."""
    d, row, state, t, _ = dived
    tail, gains = completion_path(lat, float(mus[t, 0]), values[0][values[1][t]], row,
                                  d - row)
    return tail, state + gains


def _dived(lat, parents, starts, dived, tail, state, stored, largest):
    """``solve_fronts``' answer where the best dive ``dived`` is it (its completion
    ``tail`` ending in ``state``): its state's path read back through the parents (only
    then), then the tail."""
    d, row, _, _, s = dived
    head = _walk(parents[:d], starts, s, row, d)
    return (np.concatenate((head, tail)), final_counters(lat, state),
            {"states": stored, "largest": largest, "dive": True})


def dive_wins(lat, lam, dive_state, last_state=None, lower=-np.inf):
    """Whether the best dive of a bounded front, ending in the state ``dive_state``
    (rows ``cab, cba[, uab - uba]``), is its answer: the objectives taken from the
    counters, as the last diagonal's (``pair_terms_of_states``), not the tables' float
    value of the dive, which their rounding can lift above the dive's own (from lam ~
    1e15: answers 0.005-0.3 below the lower bound they had raised, tests/gpu_xorder/
    test_adversarial_session6.py). Against the last diagonal's best state
    ``last_state``: :func:`best_final`'s rule (the larger objective, at one ``|D|`` the
    larger AUC; the last's on a tie); where the raised bound left no state (None):
    whether it reaches the ``lower`` bound given, less ``PRUNE_TOLERANCE``. The
    compiled twin asks the same."""
    if last_state is None:
        auc, dis = pair_terms_of_states(lat, np.asarray(dive_state)[:, None])
        return bool(auc[0] - lam * np.abs(dis[0]) >= lower - PRUNE_TOLERANCE)
    auc, dis = pair_terms_of_states(lat, np.stack((last_state, dive_state), axis=1))
    return best_final(auc - lam * np.abs(dis), auc, dis) == 1


def best_final(value, auc, dis):
    """The index of the answer among last states of objectives ``value``: of those of
    the largest value and the first one's ``|D|``, the largest AUC, the first on a tie.
    At large weights ``auc - lam |D|`` rounds to ``-lam |D|``, so states of one ``|D|``
    tie whatever their AUC (at lam 1e20 on 3 x 3 items, URF: AUC 0.444 kept where 0.667
    exists with the same ``|D|``); where the value does not round, equal values of
    equal ``|D|`` have equal AUC and the first is kept."""
    top = np.flatnonzero(value == value.max())
    same = top[np.abs(dis[top]) == np.abs(dis[top[0]])]
    return int(same[np.argmax(auc[same])])


def _pruned(auc, dis, new_rows, d, n_a, n_b, tables, passes, threshold):
    """``(kept, ub)``: the candidates of diagonal ``d`` (in cells ``new_rows``) that
    reach ``threshold`` at every weight (their positions, ascending), and the least
    bound of each kept, ``min over mu of auc - mu * d + R_mu(cell) (+ slack)``, over the
    weights of ``passes`` in turn (each on the candidates the ones before kept).

    The diagonal's cells are a strided slice of every table (cell ``(r, d - r)`` lies at
    ``r n_b + d``): where the diagonal has as many candidates as cells or more, they read
    their tables' values from that slice by row (a small array, in cache), not from the
    whole tables (every value a cache miss: a try of the fronts of
    benchmarks/search_shortfall.py's case 39 took 0.68 times the CPU time of that
    gather, the same states; benchmarks/RESULTS.md, issue #44 section 14); with fewer
    candidates (a slice of every cell cost 1.18 times as much on case 17's sparse tries)
    from their own cells."""
    r0 = max(0, d - n_b)
    r1 = min(n_a, d)
    sliced = auc.size > r1 - r0  # as many candidates as cells or more: the slice
    if sliced:
        diag = tables[:, r0 * n_b + d:r1 * n_b + d + 1:max(n_b, 1)]
        at = new_rows - r0
    else:  # else each candidate's own cells
        at = new_rows * n_b + d
    live = None
    ub = np.full(auc.size, np.inf)
    for w_mus, w_slacks, ws in passes:
        if live is None:
            a, x, i = auc, dis, at
        else:
            a, x, i = auc[live], dis[live], at[live]
        v = w_mus * x
        np.subtract(a, v, out=v)
        v += np.take(diag[ws], i, axis=1) if sliced else tables[ws[:, None], i]
        if w_slacks is not None:
            v += w_slacks
        v = v.min(axis=0)
        if live is not None:
            np.minimum(v, ub[live], out=v)
        ok = v >= threshold
        live = np.flatnonzero(ok) if live is None else live[ok]
        ub[live] = v[ok]
    return live, ub


def _stacked(bounds, cells):
    """The tables of ``bounds`` as one array ``(weights, cells)``: a view where they are
    the consecutive tables of one array (``completion_values`` of an array of weights:
    no copy per run of the fronts), else a copy."""
    base = bounds[0][1].base
    if (isinstance(base, np.ndarray) and base.flags.c_contiguous and base.dtype == np.float64
            and base.size == len(bounds) * cells):
        start, step = base.__array_interface__["data"][0], 8 * cells
        if all(r.base is base and r.dtype == np.float64 and r.size == cells
               and r.flags.c_contiguous
               and r.__array_interface__["data"][0] == start + t * step
               for t, (_, r) in enumerate(bounds)):
            return base.reshape(len(bounds), cells)
    return np.stack([r.reshape(-1) for _, r in bounds])


def _pareto(p, q, auc, new_rows, row_type):
    """The states no other of their cell beats in both ``p`` and ``q``: their indices
    (by cell, p descending) and cells. The order is canonical, ``(cell, -p, -q, -auc,
    index)`` (the compiled twin's, decision for decision): of states with equal ``p``
    and ``q`` the one of the largest AUC survives, and of equal AUC too (the same
    counters, reached by two steps) the first candidate, the a-step's. (At large
    weights ``auc -+ lam d`` rounds to ``-+ lam d``: two states of one ``d`` tie in
    ``p`` and ``q`` whatever their AUC, and the first of them kept the optimum's AUC
    away: 0.5457 for 0.5672 at lam 1e20 on 30 x 25 items.)"""
    # by cell, then p descending (two stable sorts: a five-key lexsort costs about
    # twice as much), then, where two states of a cell have equal p and the later one
    # the larger q, or equal q and the larger AUC (rare), the full lexicographic order
    order = np.argsort(-p, kind="stable")
    order = order[np.argsort(new_rows[order].astype(row_type), kind="stable")]
    r, ps, qs, us = new_rows[order], p[order], q[order], auc[order]
    same = (r[1:] == r[:-1]) & (ps[1:] == ps[:-1])
    if np.any(same & ((qs[1:] > qs[:-1]) | ((qs[1:] == qs[:-1]) & (us[1:] > us[:-1])))):
        order = np.lexsort((np.arange(p.size), -auc, -q, -p, new_rows))
    new_rows, q = new_rows[order], q[order]
    _, rank = np.unique(q, return_inverse=True)
    key = new_rows * (rank.size + 1) + rank.reshape(-1)
    survive = np.empty(key.size, dtype=bool)
    if key.size:
        survive[0] = True
        survive[1:] = key[1:] > np.maximum.accumulate(key)[:-1]
    return order[survive], new_rows[survive]


def _bound(auc, dis, new_rows, d, n_b, mus, tables):
    """``min over mu of auc - mu * d + R_mu(cell)`` of states of diagonal ``d`` (the
    pruning's bound, without its slack)."""
    ub = auc - mus * dis
    ub += tables[:, new_rows * (n_b + 1) + (d - new_rows)]
    return ub.min(axis=0)


def _cut(new_rows, beam, starts, sizes, bound):
    """The bounded front: of a diagonal's survivors (by cell, in the canonical order;
    ``starts`` and ``sizes`` of their cells), the positions of at most ``beam`` per
    cell, those of the largest completion bound ``bound`` (the earlier on a tie), in
    order."""
    pos = np.arange(new_rows.size)
    by_bound = np.lexsort((pos, -bound, new_rows))
    rank = pos - np.repeat(starts, sizes)
    return np.sort(by_bound[rank < beam])


def _best_per_d(auc, dis, new_rows):
    """Per cell and value of ``d``, the state of largest AUC: indices and cells."""
    order = np.lexsort((-auc, dis, new_rows))
    cells, values = new_rows[order], dis[order]
    first = np.ones(order.size, dtype=bool)
    first[1:] = (cells[1:] != cells[:-1]) | (values[1:] != values[:-1])
    return order[first], cells[first]


def _walk(parents, starts, s, row, n_d):
    """The path to state ``s`` of anti-diagonal ``n_d`` (in row ``row``), read back
    through the parents."""
    path = np.empty(n_d, dtype=np.int8)
    for d in range(n_d - 1, -1, -1):
        s = int(parents[d][s])
        if d == 0:
            prev_row = 0
        else:
            cell_rows, first = starts[d - 1]
            prev_row = int(cell_rows[np.searchsorted(first, s, side="right") - 1])
        path[d] = 0 if row == prev_row + 1 else 1
        row = prev_row
    return path


def final_counters(lat, state):
    """The ``COUNTERS`` of a last-cell state (URF: ``uab + uba = n_a n_b`` there, in
    items)."""
    c = [int(state[0]), int(state[1])]
    if COUNTER_KINDS[lat.metric].has_u:
        pairs = int(lat.size_a[0]) * lat.items_b
        uab = (pairs + int(state[2])) // 2
        c += [uab, pairs - uab]
    return np.array(c, dtype=np.int64)
