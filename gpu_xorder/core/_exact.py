"""The exact solver of ``AUC - lam * |D|`` for two groups (Pareto fronts pruned by the
Lagrangian search's bounds, ``cpu_reference.solve_fronts``), its cost model, and the one
decision of ``solver="auto"`` between it and the search: :func:`exact_allowance`
against ``exact_budget`` (docs/design.md, section 3.5)."""

import dataclasses

import numpy as np

import cpu_reference

from ._candidates import TOLERANCE, absolute_objective, beats, candidate, signed_value

#: The exact solver: completion values of this many weights spread over [-lam, lam]
#: (besides the search's) bound the fronts' states; the first guess of the lower bound
#: lies this share of the Lagrangian gap below the bound (docs/design.md, section 3.5).
EXACT_MUS = 17
EXACT_FIRST_SHARE = 1.0 / 1024

#: The guesses are spaced from the search's own objective, unless the polish of its
#: ordering (``_polish``) closed more than all but ``1 / SPACING_GAIN`` of the gap:
#: then from the polished one (measured on benchmarks/huge_lam.py and
#: search_shortfall.py: docs/design.md, section 3.5).
SPACING_GAIN = 2.0


#: ``solver="auto"`` runs the exact solver where its estimated cost fits ``exact_budget``
#: seconds (``fair_order``'s parameter; this is its default): a few seconds, which the
#: exact solver needed on most random problems of 400-2,000 items (benchmarks/RESULTS.md,
#: "Exact where affordable"); beyond it, the Lagrangian search's result.
EXACT_BUDGET = 2.0

#: The search's bound (``auc - mu d`` of the fills' maximisers, the least over the
#: weights) proves an ordering optimal, and the pruned fronts' answer above a guess is
#: the optimum, only where the worst-case rounding of the fills and of the bounds
#: (``rounding_slack`` of the weights) stays below the AUC's range, 1: beyond, they
#: round ``auc`` away (the fills return, of the orderings of one ``d``, any: at lam
#: 1e16 on 4 x 4 items the bound was 0.0667 where 0.3333 exists, and a guess pruned
#: 0.3333's path), and the fronts run without the bounds (their dominance alone). On
#: 360 problems of 2 to 7 items per group the answers went wrong at a slack of 568 to
#: 1,440 (lam 1e16), none at lam 3e15 (a slack of at most 528); tests/gpu_xorder/
#: test_adversarial_session5b.py.
BOUND_ROUNDING = 1.0

@dataclasses.dataclass(frozen=True)
class CostModel:
    """The exact solver's cost model, CPU seconds on the 2-core development machine:
    each completion table costs ``table_cell`` per lattice cell, each try of the fronts
    (a guessed lower bound; ``tries`` expected before they run) ``diagonal`` per
    anti-diagonal, and every stored state ``state``. The budget becomes a number of
    states by this model, so the choice is the same on a loaded machine as on an idle
    one; the fronts stop as soon as their states stored exceed it, or those on course
    (predicted from the current anti-diagonal) exceed ``cpu_reference.PREDICTION_SLACK``
    times it."""

    table_cell: float
    diagonal: float
    state: float
    tries: int


#: NumPy's fronts (``cpu_reference.solve_fronts``, the NumPy and any engine without
#: numba): refitted (least squares of the log of measured over model) when the bounds
#: came to read the diagonal's slice of the tables (issue #44.2, benchmarks/RESULTS.md,
#: issue #44 section 14), on benchmarks/exact_estimate.py --backend numpy (the 51
#: problems of search_shortfall.py, the exact solve after the bounded front, which
#: builds the tables: 2-core machine at load 3.5-3.8): 4.55e-5 s per anti-diagonal of
#: a try, 2.26e-7 per stored state, measured within 0.32-1.50 times the fit (0.83-1.23
#: on the 11 over 5e6 states); before: 3e-5 and 4e-7, which these fronts beat by 0.53-0.80
#: times on those 11 and exceeded by up to 2.19 times on tries of few states. The
#: table cell (3e-8, the tables unchanged) from the fit before (when the tables of all
#: weights became one pass).
NUMPY_COST = CostModel(table_cell=3e-8, diagonal=4.5e-5, state=2.3e-7, tries=8)

#: The compiled fronts (``engine._numba_fronts``, the numba and CuPy engines where
#: numba imports): refitted (least squares of the relative error) after their bound
#: test became one pass over the weights (1.7x fewer seconds per state), on
#: benchmarks/exact_estimate.py --backend numba (the 51 problems of search_shortfall.py,
#: 2-core machine at load 2-4): per table cell 4.2e-9 s (fitted where the exact solve
#: built its tables, before the bounded front ran first and handed them over), per
#: stored state 2.3e-8 and 2.6e-8 in two runs (2.5e-8 taken), per anti-diagonal of a
#: try below what the fit resolves (1e-6 kept); before: 5e-9, 1e-6, 5e-8, which the
#: fronts then beat by 0.24-0.48 times (median 0.35, the 17 problems over 0.05 s).
COMPILED_COST = CostModel(table_cell=4.2e-9, diagonal=1e-6, state=2.5e-8, tries=8)


class _NumpyFronts:
    """``cpu_reference``'s completion values and fronts (the oracle)."""

    cost = NUMPY_COST

    @staticmethod
    def tables(lat, mus):
        return list(zip(mus, cpu_reference.completion_values(lat, np.asarray(mus))))

    @staticmethod
    def solve(lat, lam, lower, mus, tables, max_bytes, max_states):
        return cpu_reference.solve_fronts(lat, lam, lower=lower, bounds=tables,
                                          max_bytes=max_bytes, max_states=max_states)

    @staticmethod
    def disparities(lat, mus, tables, index):
        return cpu_reference.completion_disparities(
            lat, np.asarray(mus)[index], np.stack([tables[t][1].reshape(-1) for t in index]))

    @staticmethod
    def beam(lat, lam, lower, mus, tables, max_bytes, max_states, width, dive=None):
        return cpu_reference.solve_fronts(lat, lam, lower=lower, bounds=tables,
                                          max_bytes=max_bytes, max_states=max_states,
                                          beam=width, dive=dive)


class _CompiledFronts:
    """``engine._numba_fronts``: the same answers, bit for bit, compiled."""

    cost = COMPILED_COST

    @staticmethod
    def tables(lat, mus):
        from ..engine._numba_fronts import completion_tables

        return completion_tables(lat, mus)

    @staticmethod
    def solve(lat, lam, lower, mus, tables, max_bytes, max_states):
        from ..engine._numba_fronts import solve_fronts

        return solve_fronts(lat, lam, lower=lower, mus=mus, tables=tables,
                            max_bytes=max_bytes, max_states=max_states)

    @staticmethod
    def disparities(lat, mus, tables, index):
        from ..engine._numba_fronts import completion_disparities

        return completion_disparities(lat, mus, tables, index)

    @staticmethod
    def beam(lat, lam, lower, mus, tables, max_bytes, max_states, width, dive=None):
        from ..engine._numba_fronts import solve_fronts

        return solve_fronts(lat, lam, lower=lower, mus=mus, tables=tables,
                            max_bytes=max_bytes, max_states=max_states, beam=width,
                            dive=dive)


NUMPY_FRONTS = _NumpyFronts()
COMPILED_FRONTS = _CompiledFronts()


def fronts_for(engine_name):
    """The exact solver's fronts for a solve on engine ``engine_name``: the compiled
    twin on the numba and CuPy engines where numba imports, else the reference's. Its
    ``cost`` is the cost model ``solver="auto"`` prices it by."""
    from ..engine import _numba_engine

    if engine_name in ("numba", "cupy") and _numba_engine.available():
        return COMPILED_FRONTS
    return NUMPY_FRONTS


MSG_EXACT_TABLES = (
    "the exact solver's completion values for the {n_a} x {n_b} lattice take {table:.3g} "
    "GiB, more than half the memory budget ({limit:.3g} GiB; the other half holds its "
    "Pareto fronts); use solver='lagrangian' (a certified bound), subsample, or a "
    "larger memory_limit"
)


class OverBudget(Exception):
    """The exact solver's estimated cost exceeds ``exact_budget`` (its message says by
    what). Where the fronts ran before they stopped: ``bound``, an upper bound on the
    optimum its tries proved (a guessed lower bound that no state of the fronts
    reached). Else None."""

    def __init__(self, message, bound=None):
        super().__init__(message)
        self.bound = bound


def exact_cost(n_a, n_b, tables, states, tries=None, cost=NUMPY_COST):
    """Seconds the exact solver is expected to take on an ``n_a`` x ``n_b`` lattice
    (the :class:`CostModel` ``cost``): ``tables`` completion tables, ``tries`` runs of
    the fronts (None: the model's expected number) and ``states`` stored states."""
    tries = cost.tries if tries is None else tries
    return (tables * (n_a + 1) * (n_b + 1) * cost.table_cell
            + tries * (n_a + n_b) * cost.diagonal + states * cost.state)


def exact_allowance(lat, tables, budget, cost=NUMPY_COST):
    """The front states the exact solver may store within ``budget`` seconds with
    ``tables`` completion tables (None: no budget); ``OverBudget`` where the tables and
    the diagonals alone exceed it. The one decision of exact-versus-search of
    ``solver="auto"`` (besides a bound that proves the search's ordering optimal)."""
    if budget is None:
        return None
    fixed = exact_cost(lat.n_a, lat.n_b, tables, 0, cost=cost)
    if fixed > budget:
        raise OverBudget(MSG_OVER_BUDGET_TABLES.format(
            tables=tables, n_a=lat.n_a, n_b=lat.n_b, seconds=fixed, budget=budget))
    return int((budget - fixed) / cost.state)


MSG_OVER_BUDGET_TABLES = (
    "the exact solver's {tables} completion tables of the {n_a} x {n_b} lattice alone "
    "take about {seconds:.3g} s, over exact_budget={budget:g} s"
)
MSG_OVER_BUDGET_FRONTS = (
    "the exact solver's fronts were on course for {states:.3g} states (about {seconds:.3g} "
    "s in all), over exact_budget={budget:g} s"
)


def exact(lat, lam, best, search, max_bytes, budget=None, fronts=NUMPY_FRONTS,
          searched=None, prepared=None):
    """The optimum of ``AUC - lam * |D|``: ``(Candidate, stats)``. ``best`` and
    ``search`` come from ``lagrangian``: the best objective found and the weights whose
    signed values bound it.

    The fronts are pruned by the completion values of ``EXACT_MUS`` weights and of the
    search's, against a guessed lower bound: ``bound - share * (bound - known)`` for
    ``share`` = ``EXACT_FIRST_SHARE``, doubling up to 1 (the known objective). A guess
    above the optimum leaves no state or a final state below the guess; a guess at or
    below it keeps the optimum, which is then what the fronts return. Raises
    ``FrontsTooLarge`` over ``max_bytes`` (tables and fronts), ``OverBudget`` where
    the cost model puts it over ``budget`` seconds (before the tables, or as soon as
    the fronts exceed it; its ``bound``: the least guess the tries proved to lie above
    the optimum, every state's bound below it up to ``PRUNE_TOLERANCE``, the tolerance
    the pruning itself relies on). ``stats``: ``states`` stored, ``largest``
    front, ``tries`` (lower bounds guessed), ``tables``, ``estimate`` (seconds by the
    cost model, of the states stored). ``fronts``: :func:`fronts_for` the engine
    (the reference's or the compiled twin: the same answer, bit for bit).
    ``searched``: the search's own objective where ``best`` improved on it (the
    polish, ``_polish``): the guesses stay spaced from it as without the polish, and
    a guess at or below ``best``'s objective is replaced by that objective, a higher
    lower bound (fewer states), so the polish never makes a try dearer.
    ``prepared``: the weights, their tables and the bytes left to the fronts, where a
    bounded front (:func:`beam`) computed them (the same as computed here)."""
    known = absolute_objective(best, lam)
    spacing = known if searched is None else min(searched, known)
    inside = [(mu, c) for mu, c in search.points if abs(mu) <= lam]
    stats = {"states": 0, "largest": 0, "tries": 0, "tables": 0}
    bound = min((signed_value(c, mu) for mu, c in inside), default=np.inf)
    if (bound - known <= TOLERANCE  # proven by the bound (a bounded front's answer)
            and rounding_slack(lat.n_a, lat.n_b, [mu for mu, _ in inside]) <= BOUND_ROUNDING):
        return best, dict(stats, estimate=0.0)
    if bound - spacing > SPACING_GAIN * (bound - known):  # the polish closed most of it
        spacing = known
    mus, tables, max_bytes = (None, None, max_bytes) if prepared is None else prepared
    if mus is None:
        mus, max_bytes = _weights(lat, lam, inside, max_bytes)
    # over the budget by the tables alone: refused before any table is built
    max_states = exact_allowance(lat, len(mus), budget, fronts.cost)
    if tables is None:
        tables = fronts.tables(lat, mus)
    stats["tables"] = len(mus)
    share = EXACT_FIRST_SHARE
    proven = bound  # a guess that no state reached bounds the optimum from above
    # ... once widened by the rounding the pruning's bounds may carry
    widen = rounding_slack(lat.n_a, lat.n_b, mus)
    # the fronts without the bounds (see below); from the start where the bounds'
    # rounding exceeds BOUND_ROUNDING: a guess then proves nothing either way
    unpruned = widen > BOUND_ROUNDING
    while True:
        guess = bound - share * (bound - spacing)
        last = share >= 1 or guess <= known  # the known objective itself
        lower = known if last else guess
        stats["tries"] += 1
        left = None if max_states is None else max_states - stats["states"]
        try:
            path, final, got = fronts.solve(lat, lam, None if unpruned else lower, mus,
                                            tables, max_bytes, left)
        except cpu_reference.NoneLeft as exc:
            stats["states"] += exc.states  # a try that found nothing still cost them
            if last:  # the known ordering itself pruned: see below
                unpruned = True
                continue
            proven = min(proven, lower + widen)
            share *= 2.0
            continue
        except cpu_reference.FrontsTooLarge as exc:
            if max_states is None or getattr(exc, "predicted", None) is None:
                raise
            states = stats["states"] + exc.predicted
            raise OverBudget(MSG_OVER_BUDGET_FRONTS.format(
                states=states, budget=budget,
                seconds=exact_cost(lat.n_a, lat.n_b, len(mus), states,
                                   cost=fronts.cost)), bound=proven) from None
        stats["states"] += got["states"]
        stats["largest"] = max(stats["largest"], got["largest"])
        found = candidate(lat, path, final)
        if unpruned or absolute_objective(found, lam) >= lower - cpu_reference.PRUNE_TOLERANCE:
            break
        if last:
            # the guess at the known objective lost the known ordering, which the bounds
            # cannot do in exact arithmetic: their rounding (about lam * 2**-52, 1e4 at
            # lam = 1e20) is beyond PRUNE_TOLERANCE. Once more without them (the fronts'
            # dominance alone: exact); this guess retried ran forever.
            unpruned = True
            continue
        if absolute_objective(found, lam) > known:  # below the guess: a better start
            best, known = found, absolute_objective(found, lam)
        spacing = max(spacing, absolute_objective(found, lam))
        # the best state kept (the optimum, if its path survived) lies below the guess,
        # or the pruning dropped the optimum's path, whose bounds reached the guess
        # less their rounding
        proven = min(proven, lower + widen)
        share *= 2.0
    if not beats(found, best, lam):
        found = best  # the same optimum: keep the ordering already known
    stats["estimate"] = exact_cost(lat.n_a, lat.n_b, len(mus), stats["states"],
                                   stats["tries"], fronts.cost)
    return found, stats


def rounding_slack(n_a, n_b, mus):
    """How far the pruning's bound of a state (``auc - mu * d + R_mu(cell)``, the least
    over the weights ``mus``, in float64) may lie below its value in exact arithmetic
    on an ``n_a`` x ``n_b`` lattice, at most: a guessed lower bound that no state
    reached proves the optimum below the guess plus this, besides ``PRUNE_TOLERANCE``.

    Every term has magnitude at most ``M = 1 + 2 max |mu|`` (AUC and its gains sum to
    at most 1 along a path, ``|d|`` and the disparity's gains to at most 2, for every
    metric). ``R_mu`` is built row by row: each row's prefix sums of at most ``n_b``
    gains err by at most ``n_b u M`` (u = 2**-53), a row adds twice that and a few
    roundings of sums of at most ``2 M`` to the row below's error, and ``n_a + 1`` rows
    accumulate it; the state's own terms and the least over the weights add a few
    roundings of ``M``. So ``(n_a + 1) (2 n_b + 8) u 2 M + 8 u M`` at most, which
    ``(n_a + 2) (n_b + 4) 2**-50 M`` exceeds; the rounding of the reciprocals (one u
    per term, relative) is inside the same margin. At lam = 1 on 2,000 items per
    group about 1e-8; at lam = 1e8 on 100, 2e-3.
    """
    big = max((abs(float(mu)) for mu in mus), default=0.0)
    return (n_a + 2) * (n_b + 4) * 2.0**-50 * (1.0 + 2.0 * big)


def check_tables(n_a, n_b, max_bytes):
    """The bytes of one completion table of an ``n_a`` x ``n_b`` lattice;
    ``FrontsTooLarge`` (``MSG_EXACT_TABLES``) where not one fits half of ``max_bytes``
    (None: no budget), the fronts' half would be negative: asked by the solve and by
    the plan of ``solver="exact"``, before any fill."""
    table = 8 * (n_a + 1) * (n_b + 1)
    if max_bytes is not None and table > max_bytes // 2:
        raise cpu_reference.FrontsTooLarge(MSG_EXACT_TABLES.format(
            n_a=n_a, n_b=n_b, table=table / 2**30, limit=max_bytes / 2**30))
    return table


def _weights(lat, lam, inside, max_bytes):
    """``(mus, max_bytes)``: the weights whose completion values bound the fronts
    (``inside``'s and ``EXACT_MUS`` spread over ``[-lam, lam]``, at most half of
    ``max_bytes`` in tables) and the bytes left to the fronts; ``FrontsTooLarge``
    where not one table fits."""
    mus = sorted({mu for mu, _ in inside} | set(np.linspace(-lam, lam, EXACT_MUS)))
    table = check_tables(lat.n_a, lat.n_b, max_bytes)
    if max_bytes is not None:  # at most half the budget in completion values
        mus = _spread(mus, int(max_bytes // 2 // table))
        max_bytes -= len(mus) * table
    return mus, max_bytes


#: The bounded front (``beam``) ``solver="auto"`` runs after the search, before the exact
#: solve (whose fronts its answer prunes), where ``exact_budget`` is not 0: states kept
#: per cell (0: none). Measured on the 51 problems of
#: benchmarks/search_shortfall.py after the search alone (benchmarks/RESULTS.md,
#: "A bounded front"): 8 states took the problems within 1e-4 of the optimum from 1 to
#: 18 and those over 1e-3 from 27 to 1, at 18 times the search's CPU time (median);
#: 32 states 23 and 1, at 40 times.
BEAM_WIDTH = 8

#: Also where ``exact_budget`` is 0 (the search alone otherwise): for
#: benchmarks/search_shortfall.py ``--beam``, which measures the beam after the search.
BEAM_AT_ZERO_BUDGET = False


#: The bounded front of ``width`` states per cell, pruned by the search's objective,
#: stores at most this share of ``width`` states per cell in the cost model (measured
#: at width 8 on the 51 problems of benchmarks/search_shortfall.py after the search:
#: 0.2-3.0 per cell, median 1.6); the beam stops where its states would exceed the
#: budget (:func:`beam_allowance`), so it never runs past it by the model.
BEAM_STATE_SHARE = 0.4


def beam_cost(n_a, n_b, width, cost):
    """Seconds of the bounded front of ``width`` states per cell on an ``n_a`` x ``n_b``
    lattice at its worst (``BEAM_STATE_SHARE * width`` states per cell; its tables and
    its dives' ``DIVE_WEIGHTS``), by the cost model ``cost``."""
    return exact_cost(n_a, n_b, EXACT_MUS + DIVE_WEIGHTS,
                      BEAM_STATE_SHARE * width * (n_a + 1) * (n_b + 1), tries=1, cost=cost)


def beam_allowance(lat, tables, budget, cost):
    """The states the bounded front may store within ``budget`` seconds (None: no
    budget) with ``tables`` completion tables, by the cost model ``cost``."""
    if budget is None:
        return None
    fixed = exact_cost(lat.n_a, lat.n_b, tables, 0, tries=1, cost=cost)
    return max(int((budget - fixed) / cost.state), 0)


def beam_fits(fronts, n_a, n_b, budget):
    """Whether ``solver="auto"`` may run the bounded front of ``BEAM_WIDTH`` states per
    cell with ``fronts`` (:func:`fronts_for` the engine) on an ``n_a`` x ``n_b``
    lattice within ``budget`` seconds (None: no budget; 0: ``BEAM_AT_ZERO_BUDGET``) by
    :func:`beam_cost`. The one test the solve and the plan both ask."""
    if getattr(fronts, "beam", None) is None or BEAM_WIDTH <= 0:
        return False
    if budget is None:
        return True
    if budget == 0:
        return BEAM_AT_ZERO_BUDGET
    return beam_cost(n_a, n_b, BEAM_WIDTH, fronts.cost) <= budget


def beam(lat, lam, best, search, max_bytes, width, fronts, budget=None):
    """The bounded front of ``width`` states per cell (``fronts.beam``: NumPy's and
    the compiled, the same answer bit for bit), pruned by the search's best objective,
    with dives (:func:`dive_weights`): ``(Candidate, stats)``, the better of its answer
    and ``best`` (``best`` on a tie). A heuristic: it proves nothing, the search's
    bound stays the certificate. ``FrontsTooLarge`` over ``max_bytes`` or over the
    states ``budget`` seconds afford (:func:`beam_allowance`; its ``predicted`` not
    None). ``stats["prepared"]``: its weights, their tables and the bytes left to the
    fronts (the exact solve after it takes them: :func:`exact`'s ``prepared``);
    ``stats["dive"]``: whether its answer is a dive's."""
    known = absolute_objective(best, lam)
    inside = [(mu, c) for mu, c in search.points if abs(mu) <= lam]
    mus, max_bytes = _weights(lat, lam, inside, max_bytes)
    tables = fronts.tables(lat, mus)
    index, beam_bytes = dive_weights(lat, mus, inside, max_bytes)
    stats = {"tables": len(mus), "beam": width, "prepared": (mus, tables, max_bytes),
             "dive_weights": len(index)}
    dive = (index, fronts.disparities(lat, mus, tables, index)) if len(index) else None
    try:
        path, final, got = fronts.beam(
            lat, lam, known, mus, tables, beam_bytes,
            beam_allowance(lat, len(mus) + len(index), budget, fronts.cost), width, dive)
    except cpu_reference.NoneLeft:  # no state's bound reaches the search's objective
        return best, dict(stats, states=0, largest=0, dive=False)
    stats.update(got)
    stats.setdefault("dive", False)
    found = candidate(lat, path, final)
    if beats(found, best, lam):
        return found, stats
    return best, dict(stats, dive=False)


#: The dives of the bounded front (:func:`beam`) complete every state it stores by the
#: completion of each of at most this many weights, the search's own (the multipliers
#: whose fills it ran, within ``[-lam, lam]``): their completion values price the
#: completion's AUC and disparity together with ``cpu_reference.completion_disparities``
#: (one more table a weight), and the best completion, where above the lower bound,
#: raises it (``cpu_reference.solve_fronts``' ``dive``). Measured on the nine problems
#: of benchmarks/search_shortfall.py the NumPy default left over 1e-4 short
#: (benchmarks/RESULTS.md, issue #44 section 17).
DIVE_WEIGHTS = 8


def dive_weights(lat, mus, inside, max_bytes):
    """``(index, max_bytes)``: the positions in ``mus`` of the search's weights
    ``inside`` (at most ``DIVE_WEIGHTS``, evenly spread; as many as the fronts' half of
    ``max_bytes`` holds in tables), and the bytes left to the bounded front after their
    disparities' tables (None: no budget)."""
    searched = {mu for mu, _ in inside}
    index = [k for k, mu in enumerate(mus) if mu in searched]
    index = [index[k] for k in _spread(list(range(len(index))), DIVE_WEIGHTS)]
    if max_bytes is not None:
        table = check_tables(lat.n_a, lat.n_b, None)
        index = [index[k] for k in _spread(list(range(len(index))),
                                           int(max_bytes // 2 // table))]
        max_bytes -= len(index) * table
    return np.array(index, dtype=np.int64), max_bytes


def _spread(mus, k):
    """At most ``k`` of the sorted ``mus``, evenly spread."""
    if len(mus) <= k:
        return mus
    return [mus[i] for i in sorted(set(np.linspace(0, len(mus) - 1, k).round().astype(int)))]
