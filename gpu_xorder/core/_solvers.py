"""Solvers for the absolute objective ``AUC - lam * |D|`` of two groups, with
certificates, and the constrained form ``max AUC s.t. |D| <= eps`` (docs/design.md,
section 3.5).

- ``"paper"``: the cell rule of the DP (one state per cell), a heuristic for ``|D|``.
- ``"lagrangian"``: signed DPs ``S(mu) = max AUC - mu * D`` for ``mu`` in
  ``[-lam, lam]``; every ``S(mu)`` bounds the best ``|D|`` objective from above (since
  ``lam * |D| >= mu * D``), ``S`` is convex in ``mu`` with slope ``-D`` of its maximiser,
  and every maximiser is a candidate ordering. A cutting-plane search on ``mu`` (each
  round one signed fill per lam, batched) minimises the bound; the answer is the best
  candidate, the cell rule's ordering at lam and at fractions of lam included, so it
  is never worse than ``"paper"``.
- ``"exact"``: the Lagrangian search first (a feasible objective and good weights), then
  the Pareto-front DP of ``cpu_reference``, pruned by the bounds those weights give.

The fills are passed in (``fills(lattice, lams) -> [(path, final), ...]``), so the
search runs on whichever backend fills the lattices.
"""

import dataclasses

import numpy as np

import cpu_reference

#: Two values closer than this count as equal: the bound is certified up to float64
#: rounding of sums over at most 2**27 steps.
TOLERANCE = 1e-12

#: Rounds of the cutting-plane search on ``mu`` (each round one signed fill per lam).
MAX_ROUNDS = 30

#: ``solver="auto"`` runs the exact solver on lattices of at most this many cells
#: (about 127 x 127) and with fronts of at most ``AUTO_EXACT_BYTES`` (4 M states, a few
#: seconds); beyond, or when the fronts outgrow that, it keeps the Lagrangian result.
AUTO_EXACT_CELLS = 2**14
AUTO_EXACT_BYTES = 16 * 2**20

#: ``solver="auto"`` on the NumPy backend runs the Lagrangian search up to this many
#: cells (10^4 x 10^4: about 1.5 s per fill on a 2-core machine, and the search takes
#: some 15 fills); larger lattices keep the cell rule there. The GPU has no such limit.
AUTO_LAGRANGIAN_CELLS_NUMPY = 10**8

MSG_SOLVER_GROUPS = (
    "solver={solver!r} handles two groups ({k} given); use solver='auto' or 'paper'"
)
MSG_INFEASIBLE = (
    "no ordering found with |D| <= {eps:g} ({metric}): the fairest one found has "
    "|D| = {best:.6g}"
)


@dataclasses.dataclass
class Candidate:
    """An ordering found by a fill, with its exact counters and objective terms."""

    path: np.ndarray
    final: np.ndarray
    auc: float
    d: float            # signed disparity
    mu: float | None = None  # the signed weight that produced it (None: the cell rule)


def candidate(lat, path, final, mu=None):
    _, auc, d = cpu_reference.cell_values(final, lat.consts, 0.0, lat.metric, "signed")
    return Candidate(np.asarray(path), np.asarray(final), auc, d, mu)


def absolute_objective(cand, lam):
    return cand.auc - lam * abs(cand.d)


def signed_value(cand, mu):
    return cand.auc - mu * cand.d


class _Search:
    """The cutting-plane search of one Lagrangian problem over ``mu`` in ``[lo, hi]``.

    The model ``M(mu) = max_k (A_k - mu D_k) + slack(mu)`` of the evaluated maximisers
    lies below the true bound ``B(mu) = S(mu) + slack(mu)``; the next weight minimises
    the model, and the search stops when the model meets the bound there.
    """

    def __init__(self, lo, hi, slack):
        self.lo, self.hi, self.slack = lo, hi, slack
        self.points = []          # (mu, Candidate)

    def add(self, mu, cand):
        self.points.append((mu, cand))

    def bound(self):
        """``(min over evaluated mu of B(mu), its mu)``: a certified upper bound."""
        values = [signed_value(c, mu) + self.slack(mu) for mu, c in self.points]
        k = int(np.argmin(values))
        return values[k], self.points[k][0]

    def model_minimum(self):
        """``(mu, M(mu))`` at the minimiser of the model."""
        a = np.array([c.auc for _, c in self.points])
        d = np.array([c.d for _, c in self.points])
        mus = [self.lo, self.hi]
        if self.lo < 0 < self.hi:
            mus.append(0.0)  # a kink of |mu| * eps
        da = a[:, None] - a[None, :]
        dd = d[:, None] - d[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            cross = da / dd
        cross = cross[np.isfinite(cross) & (cross > self.lo) & (cross < self.hi)]
        mus = np.concatenate((mus, cross))
        model = (a[None, :] - mus[:, None] * d[None, :]).max(axis=1)
        model += np.array([self.slack(mu) for mu in mus])
        k = int(np.argmin(model))
        return float(mus[k]), float(model[k])

    def step(self):
        """The next weight to evaluate, or None when the bound is proven minimal."""
        if not self.points:  # nothing to search (lam = 0)
            return None
        mu, low = self.model_minimum()
        high, _ = self.bound()
        if high - low <= TOLERANCE or any(mu == m for m, _ in self.points):
            return None
        return mu


def _run(searches, lat_signed, fills, first):
    """Evaluate ``first`` weights of every search, then rounds of model minimisers,
    each round one batch of signed fills."""
    pending = [(s, mu) for s, mus in zip(searches, first) for mu in mus]
    for _ in range(MAX_ROUNDS):
        if not pending:
            break
        mus = np.array([mu for _, mu in pending])
        for (s, mu), (path, final) in zip(pending, fills(lat_signed, mus)):
            s.add(mu, candidate(lat_signed, path, final, mu))
        pending = []
        for s in searches:
            mu = s.step()
            if mu is not None:
                pending.append((s, mu))


#: The Lagrangian solver also tries the cell rule at these fractions of lam: under
#: ``|D|`` the rule over-penalises, and a smaller weight often lands a better objective
#: at lam itself (COMPAS and Adult samples of 200 and 1000 per group, lam 0.5 and 2:
#: better than the rule at lam in 14 of 16 cases, by up to 0.021).
CELL_RULE_SCALES = (0.05, 0.1, 0.2, 0.3, 0.5, 0.7)


def lagrangian(lat, lams, paper, fills):
    """The Lagrangian solver for every lam: ``[(Candidate, upper_bound, search), ...]``.

    ``paper`` holds the cell rule's candidate of every lam; ``lat`` is the absolute
    lattice. The candidates: the cell rule at lam and at ``CELL_RULE_SCALES`` of it,
    and the signed maximisers of the search; the best under ``AUC - lam |D|`` is kept
    (the cell rule at lam on a tie). lam = 0 needs no search: the rule is exact there.
    """
    lat_signed = dataclasses.replace(lat, mode="signed")
    searches = [_Search(-lam, lam, lambda mu: 0.0) for lam in lams]
    first = [[] if lam == 0 else [-lam, lam] for lam in lams]
    _run(searches, lat_signed, fills, first)
    scaled = [lam * k for lam in lams if lam > 0 for k in CELL_RULE_SCALES]
    found = iter(fills(lat, np.array(scaled)) if scaled else [])
    out = []
    for lam, cell_rule, s in zip(lams, paper, searches):
        pool = [c for _, c in s.points]
        if lam > 0:
            pool += [candidate(lat, *next(found)) for _ in CELL_RULE_SCALES]
        best = cell_rule
        for c in pool:
            if absolute_objective(c, lam) > absolute_objective(best, lam) + TOLERANCE:
                best = c
        value = absolute_objective(best, lam)
        bound = value if not s.points else max(s.bound()[0], value)
        out.append((best, _proven(bound, value), s))
    return out


#: Signed fills a Lagrangian search typically takes (8-11 measured): with the cell rule
#: at lam and at ``CELL_RULE_SCALES``, what progress reports and estimates count on.
EXPECTED_SEARCH_FILLS = 10


def expected_fills(solver, lam):
    """Lattice fills the solver is expected to take for one lam (the exact solver's
    fronts not counted)."""
    if solver == "paper" or lam == 0:
        return 1
    return 1 + len(CELL_RULE_SCALES) + EXPECTED_SEARCH_FILLS


def _proven(bound, value):
    return value if bound - value <= TOLERANCE else bound


def exact(lat, lam, best, search, max_bytes):
    """The optimum of ``AUC - lam * |D|``: ``(Candidate, stats)``. ``best`` and
    ``search`` come from ``lagrangian``: the best objective found and the weights whose
    completion values prune the fronts. Raises ``FrontsTooLarge`` over ``max_bytes``."""
    lower = absolute_objective(best, lam)
    bounds = []
    if search.points:
        _, mu_best = search.bound()
        above = [m for m, c in search.points if c.d > 0]
        below = [m for m, c in search.points if c.d < 0]
        mus = {mu_best, max(above, default=mu_best), min(below, default=mu_best)}
        bounds = [(mu, cpu_reference.completion_values(lat, mu)) for mu in sorted(mus)]
    path, final, stats = cpu_reference.solve_fronts(lat, lam, lower=lower, bounds=bounds,
                                                    max_bytes=max_bytes)
    found = candidate(lat, path, final)
    if absolute_objective(best, lam) >= absolute_objective(found, lam):
        found = best  # the same optimum: keep the ordering already known
    return found, stats


def solve_absolute(lat, lams, paper, fills, solver, exact_bytes):
    """``solver`` ("lagrangian", "exact" or "auto") for every lam, from the cell rule's
    candidates ``paper``: ``[(Candidate, upper_bound, solver_that_ran, extra), ...]``.

    "auto" runs the exact solver where the lattice has at most ``AUTO_EXACT_CELLS``
    cells, within ``AUTO_EXACT_BYTES``, and keeps the Lagrangian result when the fronts
    outgrow that; "exact" raises ``FrontsTooLarge`` beyond ``exact_bytes``.
    """
    out = []
    for lam, (best, bound, search) in zip(lams, lagrangian(lat, lams, paper, fills)):
        ran = "lagrangian" if lam > 0 else "paper"
        extra = {"signed_fills": len(search.points)}
        if lam > 0 and bound > absolute_objective(best, lam) and (
                solver == "exact" or (solver == "auto" and lat.n_cells <= AUTO_EXACT_CELLS)):
            try:
                best, stats = exact(lat, lam, best, search,
                                    exact_bytes if solver == "exact" else AUTO_EXACT_BYTES)
            except cpu_reference.FrontsTooLarge:
                if solver == "exact":
                    raise
                extra["exact"] = "fronts over the auto budget"
            else:
                ran, bound = "exact", absolute_objective(best, lam)
                extra.update(front_states=stats["states"], largest_front=stats["largest"])
        elif lam > 0 and bound <= absolute_objective(best, lam):
            ran = "exact" if solver == "exact" else ran  # proven by the bound alone
        out.append((best, bound, ran, extra))
    return out


#: The constrained search: weights ``lam`` of the absolute objective tried while no
#: feasible ordering is known (doubling from 1), and bisection steps after.
CONSTRAINT_MAX_LAM = 2.0**20
CONSTRAINT_BISECTIONS = 10


def constrained(lat, eps, fills):
    """Maximise AUC subject to ``|D| <= eps``: ``(Candidate, auc_bound, lam)``.

    Certificate: for every ``mu``, ``max{AUC : |D| <= eps} <= S(mu) + |mu| eps``; a
    cutting-plane search minimises it over ``mu``. Orderings: the signed maximisers met
    on the way and the Lagrangian solutions of ``AUC - lam |D|`` for ``lam`` found by
    doubling and bisection (a larger ``lam`` gives a smaller ``|D|``); the answer is the
    feasible one of highest AUC, ``lam`` the weight that found it (None: a signed one).
    Raises ``ValueError`` when none is feasible.
    """
    lat_signed = dataclasses.replace(lat, mode="signed")
    path, final = fills(lat_signed, np.array([0.0]))[0]
    c0 = candidate(lat_signed, path, final, 0.0)
    if abs(c0.d) <= eps:  # the best AUC of all is feasible, hence optimal
        return c0, c0.auc, 0.0
    # the bound: S(mu) + |mu| eps has slope -D + eps sign(mu); walk out until it turns up
    sign = 1.0 if c0.d > 0 else -1.0
    points = [(0.0, c0)]
    mu = 1.0
    while True:
        path, final = fills(lat_signed, np.array([sign * mu]))[0]
        points.append((sign * mu, candidate(lat_signed, path, final, sign * mu)))
        if sign * points[-1][1].d <= eps or mu >= CONSTRAINT_MAX_LAM:
            break
        mu *= 4.0
    search = _Search(min(0.0, sign * mu), max(0.0, sign * mu), lambda m: abs(m) * eps)
    for m, c in points:
        search.add(m, c)
    nxt = search.step()
    _run([search], lat_signed, fills, [[] if nxt is None else [nxt]])
    pool = [(None, c) for _, c in search.points]

    def absolute(lam):
        paper = candidate(lat, *fills(lat, np.array([lam]))[0])
        (best, _, _, _), = solve_absolute(lat, [lam], [paper], fills, "auto", None)
        pool.append((lam, best))
        return abs(best.d) <= eps

    lo, hi = 0.0, 1.0
    while not absolute(hi):
        lo, hi = hi, 2.0 * hi
        if hi > CONSTRAINT_MAX_LAM:
            break
    for _ in range(CONSTRAINT_BISECTIONS):
        mid = 0.5 * (lo + hi)
        if absolute(mid):
            hi = mid
        else:
            lo = mid
    feasible = [(lam, c) for lam, c in pool if abs(c.d) <= eps]
    if not feasible:
        fairest = min(abs(c.d) for _, c in pool)
        raise ValueError(MSG_INFEASIBLE.format(eps=eps, metric=lat.metric, best=fairest))
    lam, best = max(feasible, key=lambda item: item[1].auc)
    bound, _ = search.bound()
    return best, _proven(max(bound, best.auc), best.auc), lam
