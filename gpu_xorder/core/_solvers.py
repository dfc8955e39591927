"""Solvers for the absolute objective ``AUC - lam * |D|`` of two groups, with
certificates (docs/design.md, section 3.5; the constrained form ``max AUC s.t. |D| <=
eps``: ``_constrained``).

- ``"paper"``: the cell rule of the DP (one state per cell), a heuristic for ``|D|``.
- ``"lagrangian"``: signed DPs ``S(mu) = max AUC - mu * D`` for ``mu`` in
  ``[-lam, lam]``; every ``S(mu)`` bounds the best ``|D|`` objective from above (since
  ``lam * |D| >= mu * D``), ``S`` is convex in ``mu`` with slope ``-D`` of its maximiser,
  and every maximiser is a candidate ordering. A coarse start (block lattices, a
  fraction of the cells) locates the minimiser of ``S``; signed fills of the lattice
  itself on both sides of it give the bound and candidates, cutting planes refine it
  (bitless fills: final counters only); the signed fills run on the lattice's label
  runs (:class:`_RunFills`: the same optimum at about a tenth of the cells). The
  candidates (the cell rule at lam and at ``RULE_RATIO`` times the minimiser, the
  signed maximisers, the coarse paths) are relinked pairwise (``cpu_reference.relink``);
  the best is returned, never worse than ``"paper"``. ``"auto"`` stops the refinement
  early (``AUTO_FINE_ROUNDS``).
- ``"exact"``: the Lagrangian search first (a feasible objective and good weights), then
  the Pareto-front DP of ``cpu_reference``, pruned by the bounds those weights give
  against guessed lower bounds.

The fills are passed in: ``fills(lattice, weights) -> [(path, final), ...]`` (decision
bits and a traceback) and ``finals(lattice, weights) -> [final, ...]`` (final counters
only, cheaper where the backend has a bitless fill), so the search runs on whichever
backend fills the lattices.
"""

import dataclasses

import numpy as np

import cpu_reference

from . import _exact, _polish
from ._candidates import (
    TOLERANCE,
    Candidate,
    absolute_objective,
    beats,
    candidate,
    candidate_states,
    relinked_if_better,
    signed_value,
    states_for,
)
from ._exact import (  # noqa: F401 (the solvers' names, as callers know them)
    EXACT_BUDGET,
    EXACT_FIRST_SHARE,
    EXACT_MUS,
    NUMPY_COST,
    NUMPY_FRONTS,
    OverBudget,
    beam,
    exact,
    exact_allowance,
    exact_cost,
    fronts_for,
)

#: Rounds of a cutting-plane search on ``mu`` run to the end (each round one fill).
MAX_ROUNDS = 30

#: ``solver="exact"`` refuses lattices of more cells than this (about 2048 x 2048: at
#: 2000 per group 9-72 s measured, and the time grows quickly beyond).
EXACT_MAX_CELLS = 2**22

#: The coarse start: block lattices of ``n / COARSE_BLOCKS`` items per block (the larger
#: group's n), then ``COARSE_FACTOR`` times finer, down to blocks of ``COARSE_FINEST``
#: items; at most ``COARSE_ROUNDS`` fills per level.
COARSE_BLOCKS = 64
COARSE_FACTOR = 4
COARSE_FINEST = 8
COARSE_ROUNDS = 8

#: The cell rule is also run at this multiple of the (estimated) minimiser ``|mu0|`` of
#: ``S``: just above it the rule drifts towards ``D = 0`` at little cost in AUC, and it
#: often beats the rule at lam (measured in docs/design.md, section 3.5).
RULE_RATIO = 1.25

#: ``solver="auto"``: bitless cutting-plane rounds after the first fine round, and the
#: share of the certified gap below which the search stops early.
AUTO_FINE_ROUNDS = 1
GAP_SHARE = 0.1

#: Coarse paths relinked with the best candidate (the best by objective at lam).
COARSE_RELINK = 3

#: An engine that fills several weights in about the time of one (``batch`` > 1) starts
#: the search of the lattice with ``batch`` weights at these offsets (times the largest
#: lam) from the coarse minimiser, with bits, and no refinement: measured (36 cases of
#: 1000 and 3000 per group) as good as the sequential refinement (docs/design.md,
#: section 3.5).
BATCH_OFFSETS = (0.0, -0.004, 0.004, -0.016, 0.016)

MSG_EXACT_SIZE = (
    "solver='exact' handles lattices of up to {limit:.3g} cells (about {side} items per "
    "group); this one has {cells:.3g} ({n_a} x {n_b}); use solver='lagrangian' (the "
    "certified gap says how far from the optimum it can be) or subsample each group"
)


class _Search:
    """The cutting-plane search of one Lagrangian problem over ``mu`` in ``[lo, hi]``.

    The model ``M(mu) = max_k (A_k - mu D_k) + slack(mu)`` of the evaluated maximisers
    (and of any other orderings in ``lines``: every ordering's line lies below ``S``)
    lies below the true bound ``B(mu) = S(mu) + slack(mu)``; the next weight minimises
    the model, and the search stops when the model meets the bound there. ``slack(mu)``
    is ``|mu| eps`` (the constraint ``|D| <= eps``; 0 for ``AUC - lam |D|``).
    """

    def __init__(self, lo, hi, eps=0.0):
        self.lo, self.hi, self.eps = lo, hi, eps
        self.points = []          # (mu, Candidate)
        self.lines = []           # (auc, d) of orderings that are not maximisers

    def add(self, mu, cand):
        self.points.append((mu, cand))

    def bound(self):
        """``(min over evaluated mu of B(mu), its mu)``: a certified upper bound."""
        values = [signed_value(c, mu) + abs(mu) * self.eps for mu, c in self.points]
        k = int(np.argmin(values))
        return values[k], self.points[k][0]

    def model_minimum(self):
        """``(mu, M(mu))`` at the minimiser of the model."""
        a = np.array([c.auc for _, c in self.points] + [auc for auc, _ in self.lines])
        d = np.array([c.d for _, c in self.points] + [d for _, d in self.lines])
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
        model += np.abs(mus) * self.eps
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


def coarse_levels(n):
    """Items per block of each level of the coarse start, coarsest first, for groups of
    at most ``n`` items (none where the lattice is small)."""
    k, out = -(-n // COARSE_BLOCKS), []
    while k >= COARSE_FINEST:
        out.append(k)
        k //= COARSE_FACTOR
    return out


@dataclasses.dataclass
class Tally:
    """Fills a solve took: of the lattice with decision bits (``bit_fills``) and without
    (``final_fills``), ``run_fills`` of them signed fills that ran on the lattice of
    label runs (:class:`_RunFills`; ``run_cells`` cells in all), and of coarse block
    lattices (``coarse_fills``, their cells in ``coarse_cells``)."""

    bit_fills: int = 0
    final_fills: int = 0
    coarse_fills: int = 0
    coarse_cells: int = 0
    run_fills: int = 0
    run_cells: int = 0

    def asdict(self):
        return dataclasses.asdict(self)


def lattice_fills(fills, n_cells):
    """A solve's fills counted in fills of its ``n_cells`` lattice, from its tally
    (``Tally.asdict``, ``result.extra["fills"]``; a key it lacks, as a result of an
    older release may, counts 0): those that ran on the lattice, and the cells of the
    lattice of label runs and of the coarse start (what ``EXPECTED_AUTO_FILLS`` and
    the benchmarks count)."""
    return (fills.get("bit_fills", 0) + fills.get("final_fills", 0)
            - fills.get("run_fills", 0)
            + (fills.get("run_cells", 0) + fills.get("coarse_cells", 0)) / n_cells)


class _Fills:
    """The fills of the lattice (absolute and signed) a search asks for, none twice:
    ``bits(lattice, weights)`` gives ``[(path, final), ...]``, ``finals(lattice,
    weights)`` ``[final, ...]``, each counted in ``tally`` (``bit_fills``,
    ``final_fills``) where it ran. A fill already done serves again: the same lattice
    and weight (a bitless ask takes the final of a fill with bits), and at weight 0 the
    absolute and the signed lattice alike (G-hat is ``auc - 0 * d = auc`` exactly in
    either mode, ``d`` finite: the same decisions on every engine; measured where the
    coarse minimiser is 0: the cell rule at ``RULE_RATIO |mu0| = 0`` is the signed fill
    at ``mu0``)."""

    def __init__(self, fills, finals, tally):
        self._fills, self._finals, self.tally = fills, finals, tally
        self._done = {}  # key -> (path or None, final)

    @staticmethod
    def _key(lattice, w):
        return ("zero", 0.0) if w == 0 else (lattice.mode, float(w))

    def _run(self, lattice, weights, bits):
        keys = [self._key(lattice, w) for w in weights]
        todo = list({key: w for w, key in zip(weights, keys)  # each once
                     if key not in self._done or (bits and self._done[key][0] is None)
                     }.values())
        if todo:
            todo = np.array(todo, dtype=np.float64)
            if bits:
                got = list(self._fills(lattice, todo))
                self.tally.bit_fills += len(todo)
            else:
                got = [(None, final) for final in self._finals(lattice, todo)]
                self.tally.final_fills += len(todo)
            for w, solution in zip(todo, got):
                self._done[self._key(lattice, w)] = solution
        out = []
        for key in keys:
            path, final = self._done[key]
            out.append((None if path is None else np.array(path), np.array(final)))
        return out

    def bits(self, lattice, weights):
        return self._run(lattice, weights, True)

    def finals(self, lattice, weights):
        return [final for _, final in self._run(lattice, weights, False)]


class _RunFills:
    """``fills`` and ``finals`` with the signed fills of ``lat_signed`` at weights other
    than 0 run on its lattice of label runs (``cpu_reference.label_runs``: consecutive
    items of a group with the same label merged into one block; about a tenth of the
    cells on the synthetic problem), where it has fewer cells: the same optimum
    ``S(mu)`` for every weight, its path expanded to the items (an optimum of the
    lattice; on exact ties of ``S`` another than the lattice's own fill may find,
    docs/design.md, section 3.5). Weight 0 (the AUC alone, where ties abound, and
    whose fill the absolute lattice shares: :class:`_Fills`) and every other lattice
    are filled as asked. Counted in ``tally.run_fills`` and ``run_cells``."""

    def __init__(self, lat_signed, fills, finals, tally):
        self._fills, self._finals, self.tally = fills, finals, tally
        self.lat, self.sizes = lat_signed, cpu_reference.label_runs(lat_signed)
        shape = tuple(size.size for size in self.sizes)
        self.runs = None if shape == (lat_signed.n_a, lat_signed.n_b) else (
            cpu_reference.merged_lattice(lat_signed, *self.sizes))

    def _split(self, fill, lattice, weights, expand):
        weights = np.asarray(weights, dtype=np.float64)
        if lattice is not self.lat or self.runs is None:
            return list(fill(lattice, weights))
        out = [None] * weights.size
        on_runs = weights != 0
        for where, lat in ((~on_runs, lattice), (on_runs, self.runs)):
            if where.any():
                got = fill(lat, weights[where])
                for i, solution in zip(np.flatnonzero(where), got):
                    out[i] = solution if lat is lattice else expand(solution)
        self.tally.run_fills += int(on_runs.sum())
        self.tally.run_cells += int(on_runs.sum()) * self.runs.n_cells
        return out

    def fills(self, lattice, weights):
        return self._split(self._fills, lattice, weights, lambda solution: (
            cpu_reference.expand_merged(solution[0], *self.sizes), solution[1]))

    def finals(self, lattice, weights):
        return self._split(self._finals, lattice, weights, lambda final: final)


@dataclasses.dataclass
class _CoarseCandidate(Candidate):
    """A path of a block lattice of the coarse start, as a candidate of the lattice:
    its counters, and its item path expanded where a relink or the answer needs it
    (:func:`_item_path`; of some 20 coarse paths a search finds, at most
    ``COARSE_RELINK`` and the best are)."""

    block_path: np.ndarray | None = dataclasses.field(default=None, repr=False,
                                                      compare=False)
    k: int = 0


def _item_path(c, n_a, n_b):
    """``c`` with its path on the ``n_a`` x ``n_b`` lattice: a coarse candidate's block
    path expanded (``cpu_reference.expand_path``, once), any other as it is."""
    if c.path is None and isinstance(c, _CoarseCandidate):
        c.path = cpu_reference.expand_path(c.block_path, c.k, n_a, n_b)
    return c


def _coarse(lat_signed, hi, fills, search, tally):
    """The coarse start: cutting planes on block lattices, coarsest first, each level
    started around the last one's minimiser. Every block path is a path of the lattice:
    its exact line ``(auc, d)`` joins ``search.lines`` and it joins the candidates
    (:class:`_CoarseCandidate`, the item path expanded when needed: :func:`_item_path`).
    Returns ``(mu0, candidates)``: the minimiser of the model those lines make (None
    without a level: a small lattice), the candidates."""
    n_a, n_b = lat_signed.n_a, lat_signed.n_b
    found, mu0 = [], None
    for k in coarse_levels(max(n_a, n_b)):
        blocks = cpu_reference.block_lattice(lat_signed, k)
        level = _Search(-hi, hi)
        width = 4.0 * hi * k / max(n_a, n_b)
        pending = [-hi, hi] if mu0 is None else sorted({max(-hi, mu0 - width),
                                                       min(hi, mu0 + width)})
        for _ in range(COARSE_ROUNDS):
            if not pending:
                break
            for mu, (path, final) in zip(pending, fills(blocks, np.array(pending))):
                # the block fill's counters are the item path's, every metric
                # (cpu_reference.block_lattice), and the block lattice has the
                # lattice's constants: one line, the block path's and the item path's
                c = candidate(blocks, None, final, mu)
                level.add(mu, c)
                search.lines.append((c.auc, c.d))
                found.append(_CoarseCandidate(None, c.final, c.auc, c.d, block_path=path,
                                              k=k))
            tally.coarse_fills += len(pending)
            tally.coarse_cells += len(pending) * blocks.n_cells
            nxt = level.step()
            pending = [] if nxt is None else [nxt]
        mu0 = level.bound()[1]
    if mu0 is None:
        return None, found
    return search.model_minimum()[0], found


def lagrangian(lat, lams, fills, finals, converge=True, batch=1,
               relink=cpu_reference.relink):
    """The Lagrangian solver for every lam: ``([(Candidate, upper_bound), ...], search,
    tally)``.

    ``lat`` is the absolute lattice. One search serves every lam (``S`` is the same
    function; lam only clips ``mu`` to ``[-lam, lam]``): the coarse start; the cell rule
    with bits at every lam and at ``RULE_RATIO |mu0|`` (:func:`_rules`); a signed fill
    with bits at the coarse minimiser ``mu0``;
    cutting-plane rounds, to the end with ``converge`` (bitless, then the bits of the
    best maximiser on each side of the kink), else at most ``AUTO_FINE_ROUNDS`` (with
    bits: the refined maximiser is nearly always kept) while the model's gap exceeds
    ``GAP_SHARE`` of the certified one; for a lam below the minimiser found, its end of
    ``[-lam, lam]``. The candidates of each lam are relinked; the best is kept (the cell
    rule at lam on a tie). lam = 0 needs no search: the rule is exact there. ``batch``
    > 1: the first fill of the lattice takes that many weights (``BATCH_OFFSETS``) and
    no refinement follows (for engines whose batched fills cost about one). ``relink``:
    ``cpu_reference.relink`` or its compiled twin (:func:`relink_for`).
    """
    lat_signed = dataclasses.replace(lat, mode="signed")
    tally = Tally()
    runs = _RunFills(lat_signed, fills, finals, tally)
    done = _Fills(runs.fills, runs.finals, tally)
    hi = float(max(lams))
    search = _Search(-hi, hi)
    mu0, found = None, []
    if hi > 0:
        mu0, found = _coarse(lat_signed, hi, fills, search, tally)
    extra = [] if mu0 is None or RULE_RATIO * abs(mu0) in lams else [RULE_RATIO * abs(mu0)]
    paper, rules = _rules(lat, lams, extra, done)
    if hi == 0:
        return [(c, absolute_objective(c, 0.0)) for c in paper], search, tally

    def evaluate(mus, bits):
        mus = sorted(set(mus) - {mu for mu, _ in search.points})
        if not mus:
            return
        if bits:
            got = [candidate(lat_signed, path, final, mu)
                   for mu, (path, final) in zip(mus, done.bits(lat_signed, mus))]
        else:
            got = [candidate(lat_signed, None, final, mu)
                   for mu, final in zip(mus, done.finals(lat_signed, mus))]
        for mu, c in zip(mus, got):
            search.add(mu, c)

    converge = converge or mu0 is None  # no coarse start: a small lattice
    evaluate([-hi, hi] if mu0 is None else
             [min(max(mu0 + o * hi, -hi), hi) for o in BATCH_OFFSETS[:batch]], bits=True)
    rounds_left = AUTO_FINE_ROUNDS if batch == 1 else 0
    known = max(absolute_objective(c, hi) for c in paper + rules + found
                + [c for _, c in search.points])
    for rounds in range(MAX_ROUNDS):
        mu = search.step()
        if mu is None:
            break
        if not converge:
            high, low = search.bound()[0], search.model_minimum()[1]
            if rounds >= rounds_left or high - low <= GAP_SHARE * (high - known):
                break
        evaluate([mu], bits=not converge)
        known = max(known, absolute_objective(search.points[-1][1], hi))
    # a smaller lam's bound: S is convex, so where the minimiser found lies outside
    # [-lam, lam], the nearer end is the minimiser over it
    mu_star = search.bound()[1]
    evaluate([min(max(mu_star, -lam), lam) for lam in lams if 0 < lam < abs(mu_star)],
             bits=False)
    # paths of the best maximisers on each side of the kink, for every lam
    need = set()
    for lam in lams:
        inside = [(mu, c) for mu, c in search.points if abs(mu) <= lam]
        for side in ([p for p in inside if p[1].d > 0], [p for p in inside if p[1].d <= 0]):
            if side:
                mu, c = max(side, key=lambda p: absolute_objective(p[1], lam))
                if c.path is None:
                    need.add(mu)
    if need:
        search.points = [(mu, c) for mu, c in search.points if mu not in need]
        evaluate(need, bits=True)
    signed = [c for _, c in search.points if c.path is not None]
    chosen = []
    for lam, cell_rule in zip(lams, paper):
        if lam == 0:
            chosen.append(cell_rule)
            continue
        best = _item_path(_best(cell_rule, rules + signed + found, lam), lat.n_a, lat.n_b)
        coarse = [_item_path(c, lat.n_a, lat.n_b) for c in sorted(
            found, key=lambda c: -absolute_objective(c, lam))[:COARSE_RELINK]]
        chosen.append(_relinked(lat, lam, best, rules + signed + coarse, relink))
    out = []
    for lam, best in zip(lams, chosen):
        if lam == 0:
            out.append((best, absolute_objective(best, 0.0)))
            continue
        # the lams share one search: another lam's answer may be the better one here
        other = _best(best, chosen, lam)
        if other is not best:
            best = _relinked(lat, lam, other, [best], relink)
        inside = [signed_value(c, mu) for mu, c in search.points if abs(mu) <= lam]
        value = absolute_objective(best, lam)
        out.append((best, _proven(max(min(inside), value), value)))
    return out, search, tally


def _rules(lat, lams, extra, done):
    """The cell rule's candidates, with bits: at every lam (the answer at lam = 0, and
    wherever the search finds nothing better; measured in benchmarks/RESULTS.md, issue
    #44.4: its bits cost 0-27 % of a fill on numba, 2-3 % on NumPy, where filling them
    again when it wins, in 6-24 % of the cases, cost a whole fill) and at the weights
    ``extra``, in one ask of ``done`` (the search's :class:`_Fills`). Returns
    ``(at_lams, at_extra)``."""
    lams = [float(lam) for lam in lams]
    weights = lams + list(extra)
    got = [candidate(lat, path, final) for path, final in done.bits(lat, weights)]
    return got[:len(lams)], got[len(lams):]


def _best(first, pool, lam):
    """The candidate of ``pool`` with the highest objective at lam (``beats``: of one
    ``|D|``, the highest AUC), ``first`` on a tie."""
    best = first
    for c in pool:
        if beats(c, best, lam):
            best = c
    return best


def _relinked(lat, lam, best, others, relink=cpu_reference.relink):
    """``best`` relinked with each of ``others`` in turn (``relink``:
    ``cpu_reference.relink`` or its compiled twin, :func:`relink_for`): an ordering at
    least as good as all of them."""
    for other in others:
        if other is best or other.path is None:
            continue
        best = relinked_if_better(lat, lam, best, other.path,
                                  candidate_states(lat, other, states_for(relink)), relink)
    return best


#: Fills of the lattice a search is expected to take for one lam, the cell rule's
#: included, what progress reports and estimates count on (the cells of the coarse
#: start and of the signed fills on the lattice of label runs counted as fills of the
#: lattice; measured, benchmarks/RESULTS.md, issue #44.4): with a coarse start and the
#: refinement cut short ("auto"), mean 2.2-2.3 and at most 2.53 (27 cases of 1000 to
#: 10^4 per group and 60 random problems of 600 to 4,000; 3.5-4.0, at most 5.03,
#: before the signed fills ran on runs); run to the end ("auto" where the exact solver
#: may run after it, "lagrangian", "exact"), mean 3.0 and
#: at most 4.5 (51 problems of 400 to 2,000 items; 11.0 and 15.0 before).
EXPECTED_AUTO_FILLS = 3
EXPECTED_CONVERGED_FILLS = 5


def expected_fills(solver, lam, n=None, converged=False):
    """Lattice fills the solver is expected to take for one lam (the exact solver's
    fronts not counted); ``n``: the larger group's size (None: large); ``converged``:
    ``"auto"`` runs its search to the end (the exact solver may run after it:
    :func:`exact_fits`)."""
    if solver == "paper" or lam == 0:
        return 1
    if solver == "auto" and not converged and (n is None or coarse_levels(n)):
        return EXPECTED_AUTO_FILLS
    return EXPECTED_CONVERGED_FILLS


def _proven(bound, value):
    return value if bound - value <= TOLERANCE else bound


def relink_for(engine_name):
    """The relink a solve on engine ``engine_name`` uses: numba's compiled twin of
    ``cpu_reference.relink`` (the same result, bit for bit) on the numba and CuPy
    engines where numba imports, else the reference."""
    from ..engine import _numba_engine

    if engine_name in ("numba", "cupy") and _numba_engine.available():
        from ..engine._numba_relink import relink

        return relink
    return cpu_reference.relink


def check_exact_size(n_a, n_b):
    """``ValueError`` (``MSG_EXACT_SIZE``) when ``solver="exact"`` cannot take an
    ``n_a`` x ``n_b`` lattice (more than ``EXACT_MAX_CELLS`` cells): asked by the plan
    and by the solve, before any fill."""
    cells = (n_a + 1) * (n_b + 1)
    if cells > EXACT_MAX_CELLS:
        raise ValueError(MSG_EXACT_SIZE.format(
            limit=EXACT_MAX_CELLS, side=int(np.sqrt(EXACT_MAX_CELLS)), cells=cells,
            n_a=n_a, n_b=n_b))


def exact_fits(n_a, n_b, budget, cost=NUMPY_COST):
    """Whether ``solver="auto"`` may run the exact solver on an ``n_a`` x ``n_b``
    lattice within ``budget`` seconds by the cost model ``cost`` (the engine's fronts',
    ``fronts_for(engine).cost``): a lattice it takes (``EXACT_MAX_CELLS``) whose
    completion tables and diagonals alone fit the budget (the fronts' states get the
    rest: ``exact_allowance``). The one test the solve and the plan both ask."""
    return ((n_a + 1) * (n_b + 1) <= EXACT_MAX_CELLS
            and exact_cost(n_a, n_b, EXACT_MUS, 0, cost=cost) <= budget)


def polish_may_run(solver, exact_budget, n_cells):
    """Whether a solve polishes the search's ordering (``_polish``) before the exact
    solver, at a lam > 0 the search's bound did not prove: ``solver="exact"``, and
    ``"auto"`` with an ``exact_budget`` other than 0 on a lattice of at most
    ``EXACT_MAX_CELLS`` cells. The one test the solve and the plan both ask."""
    return solver == "exact" or (solver == "auto" and exact_budget != 0
                                 and n_cells <= EXACT_MAX_CELLS)


def solve_absolute(lat, lams, fills, finals, solver, exact_bytes, batch=1,
                   exact_budget=EXACT_BUDGET, relink=cpu_reference.relink,
                   fronts=NUMPY_FRONTS):
    """``solver`` ("lagrangian", "exact" or "auto") for every lam:
    ``[(Candidate, upper_bound, solver_that_ran, extra), ...]``; ``extra["solver_reason"]``
    says why that solver ran.

    "auto" runs the exact solver where its estimated cost fits ``exact_budget`` seconds
    (``exact_allowance``; None: no limit; 0: the search alone) and the lattice has at
    most ``EXACT_MAX_CELLS`` cells, and keeps the Lagrangian result beyond; where the
    tables of ``EXACT_MUS`` weights fit the budget, its search runs to the end (as
    "lagrangian"), else it stops early; "exact"
    refuses lattices of more than ``EXACT_MAX_CELLS`` cells (``ValueError``, before any
    fill) and raises ``FrontsTooLarge`` when the fronts outgrow ``exact_bytes``.
    ``batch``, ``relink``: see ``lagrangian`` and :func:`relink_for`; ``fronts``: the
    exact solver's fronts and their cost model (``_exact.fronts_for``).
    """
    if solver == "exact":
        check_exact_size(lat.n_a, lat.n_b)
    budget = None if solver == "exact" else exact_budget
    # the exact solver may run: the search to the end first (its bound prunes the
    # fronts: 1.2e6 states against 3.9e7 after the early stop, 1,846 items, prf)
    exact_may_run = solver == "auto" and exact_fits(lat.n_a, lat.n_b, budget,
                                                    fronts.cost)
    solved, search, tally = lagrangian(lat, lams, fills, finals,
                                       converge=solver != "auto" or exact_may_run,
                                       batch=batch, relink=relink)
    out = []
    for lam, (best, bound) in zip(lams, solved):
        ran = "lagrangian" if lam > 0 else "paper"
        extra = {"signed_fills": len(search.points), "fills": tally.asdict()}
        value = absolute_objective(best, lam)
        polished, searched = 0.0, value
        if lam > 0 and bound > value and polish_may_run(solver, exact_budget, lat.n_cells):
            # the exact solver may run: a better ordering first, a tighter lower bound
            # for its fronts, and the answer where they stop (_polish)
            best = _polish.polish(lat, lam, best, relink)
            polished = float(absolute_objective(best, lam) - value)
            value = absolute_objective(best, lam)
            bound = _proven(bound, value)
        if lam == 0:
            why = REASONS["zero"]
        elif bound <= value:  # proven by the bound alone
            ran = "exact" if solver == "exact" else ran
            why = REASONS["polish_proven" if polished > 0 else "proven"]
        elif solver == "lagrangian":
            why = REASONS["asked"]
        elif solver == "auto" and lat.n_cells > EXACT_MAX_CELLS:
            why = REASONS["size"].format(limit=EXACT_MAX_CELLS)
        elif solver == "auto" and budget == 0:  # the beam only by BEAM_AT_ZERO_BUDGET
            best, why, _ = _beamed(lat, lam, best, search, exact_bytes, budget, fronts,
                                   REASONS["zero_budget"], extra)
        else:
            beamed, prepared = "", None  # the bounded front first: its answer prunes
            if solver == "auto":  # the fronts, which take its tables (``prepared``)
                best, beamed, prepared = _beamed(lat, lam, best, search, exact_bytes,
                                                 budget, fronts, "", extra)
                value = absolute_objective(best, lam)
            try:
                best, stats = exact(lat, lam, best, search, exact_bytes, budget, fronts,
                                    searched, prepared)
            except OverBudget as exc:
                why = str(exc)
                if exc.bound is not None:  # the tries' guesses that no state reached
                    bound = _proven(float(max(min(bound, exc.bound), value)), value)
            except cpu_reference.FrontsTooLarge as exc:
                if solver == "exact":
                    raise
                why = str(exc)
            else:
                ran, bound = "exact", absolute_objective(best, lam)
                why = (REASONS["exact"] if budget is None else REASONS["fits"]).format(
                    budget=budget, seconds=stats["estimate"])
                extra.update(front_states=stats["states"], largest_front=stats["largest"],
                             exact_tables=stats["tables"], exact_tries=stats["tries"])
            if ran != "exact":
                why += beamed
        if polished > 0:
            if ran == "lagrangian" and why != REASONS["polish_proven"]:
                why += REASONS["polish"].format(gain=polished)
            extra["polish_gain"] = polished
        extra["solver_reason"] = why
        out.append((best, bound, ran, extra))
    # the lams share one search: another lam's answer may be the better one here; to a
    # fixed point (a lam's relinked answer may be better at a lam already passed; each
    # change is better at its lam by _candidates.beats, by more than TOLERANCE in the
    # objective or, of one |D|, in the AUC, so it ends)
    found = [best for best, *_ in out]
    changed = True
    while changed:
        changed = False
        for k, (lam, (best, bound, ran, extra)) in enumerate(zip(lams, out)):
            other = _best(best, found, lam)
            if ran == "lagrangian" and other is not best:
                found[k] = _relinked(lat, lam, other, [best], relink)
                out[k], changed = (found[k], bound, ran, extra), True
    return out


def _beamed(lat, lam, best, search, exact_bytes, budget, fronts, why, extra):
    """``(best, why, prepared)`` after the bounded front of ``_exact.BEAM_WIDTH``
    states per cell where it fits ``budget`` (``_exact.beam_fits``): the better of its
    answer and the search's ``best`` (``best`` on a tie), ``why`` saying so, and the
    weights, tables and bytes it used (None where it did not run); the bound stays the
    search's (a beam proves nothing)."""
    width = _exact.BEAM_WIDTH
    if not _exact.beam_fits(fronts, lat.n_a, lat.n_b, budget):
        return best, why, None
    try:
        found, stats = beam(lat, lam, best, search, exact_bytes, width, fronts,
                            budget or None)  # 0: BEAM_AT_ZERO_BUDGET, unbounded
    except cpu_reference.FrontsTooLarge as exc:
        stop = "beam_memory" if getattr(exc, "predicted", None) is None else "beam_budget"
        return best, why + REASONS[stop].format(width=width, budget=budget), None
    prepared = stats.pop("prepared")
    extra.update(beam_width=width, beam_states=stats["states"], beam_dive=stats["dive"])
    gain = absolute_objective(found, lam) - absolute_objective(best, lam)
    if found is best:
        return best, why + REASONS["beam_none"].format(width=width), prepared
    return found, why + REASONS["beam_dive" if stats["dive"] else "beam"].format(
        width=width, gain=gain), prepared


def rule_reason(solver, lam, mode, uncertified=None):
    """Why the cell rule answered a two-group solve (``extra["solver_reason"]``): exact
    there, asked for, or the message of ``uncertified``."""
    if lam == 0:
        return REASONS["zero"]
    if mode == "signed":
        return REASONS["signed"]
    if solver == "paper":
        return REASONS["paper"]
    return uncertified


#: Why the solver of a two-group result ran (``extra["solver_reason"]``).
REASONS = {
    "signed": "disparity='signed': the cell rule is exact",
    "paper": "solver='paper' was asked for",
    "zero": "lam = 0: the cell rule is exact",
    "proven": "the search's certified bound equals its objective: proven optimal",
    "asked": "solver='lagrangian' was asked for",
    "size": "the lattice has more than {limit:.3g} cells, beyond the exact solver",
    "zero_budget": "exact_budget=0: the search alone",
    "exact": "solver='exact' was asked for",
    "beam": "; a bounded front of {width} states per cell (a heuristic) "
            "improved the search's objective by {gain:.3g}",
    "beam_dive": "; a bounded front of {width} states per cell (a heuristic) completed "
                 "one of its states by a weight's completion (a dive) and improved the "
                 "search's objective by {gain:.3g}",
    "beam_none": "; a bounded front of {width} states per cell (a heuristic) "
                 "found nothing better than the search",
    "beam_memory": "; a bounded front of {width} states per cell exceeds the memory "
                   "budget",
    "polish_proven": "the search's ordering, polished by relinks with moved copies of it, "
                     "meets the search's certified bound: proven optimal",
    "polish": "; the search's ordering polished by relinks with moved copies of it "
              "first gained {gain:.3g}",
    "beam_budget": "; a bounded front of {width} states per cell was stopped over "
                   "exact_budget={budget:g} s",
    "fits": "the exact solver's estimated cost ({seconds:.3g} s) fits exact_budget="
            "{budget:g} s",
}
