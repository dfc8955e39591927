"""The constrained form ``max AUC s.t. |D| <= eps`` of two groups, with a certificate
(docs/design.md, section 3.5, "Fairness as a constraint"): the bound ``min over mu of
S(mu) + |mu| eps`` by the cutting planes of ``_solvers``, then the exact fronts per value
of ``D`` on small lattices, else the Lagrangian solver at weights found by doubling and
bisection. The fills are passed in, as to ``_solvers``."""

import dataclasses

import numpy as np

import cpu_reference

from ._candidates import candidate
from ._solvers import (
    EXACT_FIRST_SHARE,
    EXACT_MUS,
    Tally,
    _proven,
    _run,
    _RunFills,
    _Search,
    lagrangian,
)

MSG_INFEASIBLE = (
    "no ordering found with |D| <= {eps:g} ({metric}): the fairest one found has "
    "|D| = {best:.6g} (the search is not exhaustive on a lattice this large)"
)
MSG_INFEASIBLE_PROVEN = (
    "no ordering has |D| <= {eps:g} ({metric}): the exact constrained solver found "
    "none among {among}"
)
#: What the exact constrained solver searched: every interleaving, or (a lattice of
#: runs, ``merged_lattice``) those that keep each group's equal scores together.
AMONG_ALL = "all interleavings of the groups"
AMONG_RUNS = "the interleavings that keep each group's equal scores together"


#: The constrained search: weights ``lam`` of the absolute objective tried while no
#: feasible ordering is known (doubling from 1, stopping once the fairest ``|D|`` found
#: has not shrunk for ``CONSTRAINT_STALL`` doublings), and bisection steps after.
CONSTRAINT_MAX_LAM = 2.0**20
CONSTRAINT_BISECTIONS = 10
CONSTRAINT_STALL = 2

#: What a constrained solve is expected to take (estimates): signed fills of the bound's
#: search, and Lagrangian solves of the weight search (two doublings and the bisection).
CONSTRAINT_SEARCH_FILLS = 12
CONSTRAINT_SOLVES = 2 + CONSTRAINT_BISECTIONS

#: The constrained problem is solved exactly (fronts per value of ``d``) on lattices of
#: at most this many cells, within ``CONSTRAINT_EXACT_STATES`` predicted states.
CONSTRAINT_EXACT_CELLS = 2**16
CONSTRAINT_EXACT_STATES = 3 * 10**7
#: Why the constrained solve's answer is what it is (``extra["solver_reason"]``), by
#: how it was found (``constrained``'s ``found_with``).
CONSTRAINT_REASONS = {
    "best": "max_disparity={eps:g}: the ordering of the best AUC meets it (optimal)",
    "exact": ("max_disparity={eps:g}: the exact constrained optimum (a lattice of at "
              "most {limit:.3g} cells)"),
    "size": ("max_disparity={eps:g}: the feasible ordering of the highest AUC the "
             "search met (the lattice has more than {limit:.3g} cells, beyond the exact "
             "constrained solver; upper_bound certifies it)"),
    "states": ("max_disparity={eps:g}: the feasible ordering of the highest AUC the "
               "search met (the exact constrained solver's fronts would store more than "
               "{states:.3g} states; upper_bound certifies it)"),
}


def constrained_reason(found_with, eps, n_cells):
    """Why :func:`constrained`'s answer was chosen, in words."""
    key = ("exact" if found_with.get("exact") else
           "best" if found_with == {"mu": 0.0} else
           "size" if n_cells > CONSTRAINT_EXACT_CELLS else "states")
    return CONSTRAINT_REASONS[key].format(eps=eps, limit=CONSTRAINT_EXACT_CELLS,
                                          states=CONSTRAINT_EXACT_STATES)


class Infeasible(ValueError):
    """No interleaving meets ``|D| <= eps``, proven (``proven``) or none found."""

    def __init__(self, message, proven):
        super().__init__(message)
        self.proven = proven


def constrained(lat, eps, fills, finals, among=AMONG_ALL, relink=cpu_reference.relink):
    """Maximise AUC subject to ``|D| <= eps``: ``(Candidate, auc_bound, found_with)``.

    Certificate: for every
    ``mu``, ``max{AUC : |D| <= eps} <= S(mu) + |mu| eps``; a cutting-plane search
    minimises it over ``mu``. Small lattices (``CONSTRAINT_EXACT_CELLS``) are then
    solved exactly (``solve_fronts`` with ``eps``: the optimum, or ``Infeasible``
    proven). Otherwise the orderings are the signed maximisers met on the way and the
    solutions of ``AUC - lam |D|`` for ``lam`` found by doubling and bisection (a larger
    ``lam`` gives a smaller ``|D|``); the answer is the feasible one of highest AUC, and
    ``Infeasible`` (not proven) when none is. ``found_with``: ``{"mu": ...}``,
    ``{"lam": ...}`` or ``{"exact": True}``. ``relink``: the relink of those solutions
    (``cpu_reference.relink`` or its compiled twin, ``_solvers.relink_for``: the same
    answers).
    """
    lat_signed = dataclasses.replace(lat, mode="signed")
    # the bound's signed fills on the lattice of label runs (the same S(mu))
    signed_fills = _RunFills(lat_signed, fills, finals, Tally()).fills
    path, final = signed_fills(lat_signed, np.array([0.0]))[0]
    c0 = candidate(lat_signed, path, final, 0.0)
    if _meets(c0.d, eps):  # the best AUC of all is feasible, hence optimal
        return c0, c0.auc, {"mu": 0.0}
    # the bound: S(mu) + |mu| eps has slope -D + eps sign(mu); walk out until it turns up
    sign = 1.0 if c0.d > 0 else -1.0
    points = [(0.0, c0)]
    mu = 1.0
    while True:
        path, final = signed_fills(lat_signed, np.array([sign * mu]))[0]
        points.append((sign * mu, candidate(lat_signed, path, final, sign * mu)))
        if _meets(max(sign * points[-1][1].d, 0.0), eps) or mu >= CONSTRAINT_MAX_LAM:
            break
        mu *= 4.0
    search = _Search(min(0.0, sign * mu), max(0.0, sign * mu), eps)
    for m, c in points:
        search.add(m, c)
    nxt = search.step()
    _run([search], lat_signed, signed_fills, [[] if nxt is None else [nxt]])
    bound, _ = search.bound()
    pool = [({"mu": m}, c) for m, c in search.points]
    if lat.n_cells <= CONSTRAINT_EXACT_CELLS:
        try:
            best = _exact_constrained(lat, eps, search, pool, among)
        except cpu_reference.FrontsTooLarge:
            pass
        else:
            return best, best.auc, {"exact": True}

    def absolute(lam):
        solved, _, _ = lagrangian(lat, [lam], fills, finals, converge=False, relink=relink)
        pool.append(({"lam": lam}, solved[0][0]))
        return abs(solved[0][0].d)

    lo, hi, fairest, stalled = 0.0, 1.0, np.inf, 0
    while not _meets(absolute(hi), eps):
        fairest, stalled = (min(fairest, abs(pool[-1][1].d)),
                            0 if abs(pool[-1][1].d) < fairest else stalled + 1)
        lo, hi = hi, 2.0 * hi
        if hi > CONSTRAINT_MAX_LAM or stalled >= CONSTRAINT_STALL:
            break
    feasible = [(how, c) for how, c in pool if _meets(c.d, eps)]
    if feasible:
        for _ in range(CONSTRAINT_BISECTIONS):
            mid = 0.5 * (lo + hi)
            if _meets(absolute(mid), eps):
                hi = mid
            else:
                lo = mid
        feasible = [(how, c) for how, c in pool if _meets(c.d, eps)]
    if not feasible:
        raise Infeasible(MSG_INFEASIBLE.format(
            eps=eps, metric=lat.metric, best=min(abs(c.d) for _, c in pool)), proven=False)
    how, best = max(feasible, key=lambda item: item[1].auc)
    return best, _proven(max(bound, best.auc), best.auc), how


def _meets(d, eps):
    """``|D| <= eps`` up to ``cpu_reference.EPS_TOLERANCE``, as a Python bool."""
    return bool(cpu_reference.within_eps(d, eps))


def _exact_constrained(lat, eps, search, pool, among):
    """The constrained optimum by fronts per value of ``d``, pruned by the feasibility
    of every completion and by ``S(mu) + |mu| eps`` against guessed lower bounds (as in
    ``exact``); ``Infeasible`` (proven) when no interleaving meets the constraint."""
    bound, _ = search.bound()
    known = max((c.auc for _, c in pool if _meets(c.d, eps)), default=0.0)
    mus = sorted({m for m, _ in search.points} | set(np.linspace(-1.0, 1.0, EXACT_MUS)))
    bounds = [(mu, cpu_reference.completion_values(lat, mu)) for mu in mus]
    reach = tuple(cpu_reference.completion_values(lat, mu, 0.0) for mu in (1.0, -1.0))
    share, states = EXACT_FIRST_SHARE, 0
    while True:
        lower = known if share >= 1 else bound - share * (bound - known)
        try:
            path, final, got = cpu_reference.solve_fronts(
                lat, 0.0, lower=lower, bounds=bounds, eps=eps, reach=reach,
                max_states=CONSTRAINT_EXACT_STATES - states)
        except cpu_reference.NoneLeft:
            if share >= 1:
                raise Infeasible(MSG_INFEASIBLE_PROVEN.format(eps=eps, metric=lat.metric,
                                                              among=among),
                                 proven=True) from None
            share *= 2.0
            continue
        states += got["states"]
        found = candidate(lat, path, final)
        if found.auc >= lower - cpu_reference.PRUNE_TOLERANCE:
            return found
        share *= 2.0
