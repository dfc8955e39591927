"""A local improvement of a two-group ordering for ``AUC - lam * |D|``: relinks with
moved copies of it (docs/design.md, section 3.5, "Polishing at large weights").

At large weights the best ordering is, first, one of the smallest ``|D|`` the
interleavings reach (often exactly 0), and the search's maximisers and their relinks
land beside it (``|D|`` of 1e-5 to 1e-4 on 60-120 items per group, ``J`` = -285 at lam
4e6 where 0.77 exists). A copy of the ordering with some items moved past their
neighbours of the other group differs from it in one stretch per move, and
``cpu_reference.relink`` picks the best subset of the moves exactly (the fronts over
the stretches): a subset sum of the moves' changes of the counters towards ``D = 0``.
"""

import numpy as np

import cpu_reference

from ._candidates import better, candidate_states, relinked_if_better, states_for

#: Relinks with moved copies at most, and the run of relinks without a gain that ends
#: the polish (measured on benchmarks/huge_lam.py: docs/design.md, section 3.5).
POLISH_TRIES = 256
POLISH_STALL = 64

#: The moves are drawn from a generator seeded by this, so that the same data give the
#: same ordering.
POLISH_SEED = 0

#: Boundaries between runs a moved copy may move an item at, at most (drawn among all):
#: a relink's fronts grow with the moves (at lam 1e6 on 2,000 items per group, 256
#: relinks of copies moved at every boundary took 3.3 s).
POLISH_MOVES = 64

#: The polish's cost model, which the plan counts (``XOrder.plan``, ``fit --plan``):
#: ``POLISH_RELINKS`` relinks expected, each of CPU seconds ``per stretch`` times its
#: stretches (a move each: at most ``POLISH_MOVES``, at most one per two items) plus
#: ``per item`` times the items, with the compiled relink (numba, and CuPy where numba
#: imports) and with NumPy's. Measured on 2 x 250 to 2 x 2,000 items (PRF, lam 1 and
#: 1e6; 2-core machine at load 0.8): 64-256 relinks (median 76), 0.006-0.085 s in all
#: with the compiled relink (8.8e-5 to 4.3e-4 s per relink) and 0.02-0.30 s with NumPy's
#: (3.1e-4 to 2.3e-3 s per relink): 0.23-2.7 times this model (median 0.63) and 0.15-2.0
#: (median 0.77). The 256 relinks of the slowest cases bound it at 2.56 times. Since
#: each step with the compiled relink is one compiled call (``engine._numba_polish``),
#: such cases take 0.44-0.80 times the Python steps' time with the compiled relink and
#: its compiled states (both in one run, load 3.0) and 0.011-0.074 s in all (4.3e-5 to
#: 2.9e-4 s per relink): 0.40-1.96 times the compiled model, which stays as it was.
POLISH_RELINKS = 100
POLISH_COST = {"compiled": (4e-6, 3e-8), "numpy": (2e-5, 1e-7)}


def polish_cost(n_a, n_b, compiled):
    """CPU seconds one polish is expected to take on an ``n_a`` x ``n_b`` lattice, with
    the compiled relink or NumPy's (``POLISH_COST``)."""
    per_stretch, per_item = POLISH_COST["compiled" if compiled else "numpy"]
    stretches = min(POLISH_MOVES, (n_a + n_b) // 2)
    return POLISH_RELINKS * (per_stretch * stretches + per_item * (n_a + n_b))


def draws(boundaries, rng):
    """The moves of a copy of a path with ``boundaries`` boundaries between runs of
    one group, drawn from ``rng``: ``(kinds, at)``, a move's kind (0 none, 1 a swap, 2
    the run's last item below the next run, 3 the next run's first item above) for
    every boundary and the boundaries moved at (all, or ``POLISH_MOVES`` of them drawn,
    in order), int64. Python's step (:func:`moved`) and the compiled one
    (``engine._numba_polish``) draw them here: the same stream."""
    kinds = rng.integers(0, 4, size=boundaries)
    at = np.arange(boundaries)
    if at.size > POLISH_MOVES:
        at = np.sort(rng.choice(at.size, POLISH_MOVES, replace=False))
    return kinds, at


def moved(path, rng):
    """A copy of ``path`` (0: a step along a, 1: along b) with a move drawn from
    ``rng`` at each boundary between runs of one group (at most ``POLISH_MOVES`` of
    them, drawn: :func:`draws`), top down, where the move keeps clear of the last one:
    none, the two items at the boundary swapped, the last item of the run above moved
    below the run beneath, or the first item of the run beneath moved above the run
    above. Each move is one stretch where the copy leaves the path, so that a relink
    may take or leave each."""
    p = np.asarray(path, dtype=np.int8)
    starts = np.concatenate(([0], np.flatnonzero(p[1:] != p[:-1]) + 1))
    ends = np.append(starts[1:], p.size)
    q = p.copy()
    free = 0  # the first step a move may touch
    kinds, at = draws(starts.size - 1, rng)
    for k, kind in zip(at.tolist(), kinds[at].tolist()):
        upper, lower = p[starts[k]], p[starts[k + 1]]  # the runs' groups
        if kind == 1 and ends[k] - 1 >= free:    # swap the two items at the boundary
            q[ends[k] - 1], q[ends[k]] = lower, upper
            free = ends[k] + 1
        elif kind == 2 and ends[k] - 1 >= free:  # the run's last item below the next
            q[ends[k] - 1:ends[k + 1] - 1] = lower
            q[ends[k + 1] - 1] = upper
            free = ends[k + 1]
        elif kind == 3 and starts[k] >= free:    # the next run's first item above
            q[starts[k]] = lower
            q[starts[k] + 1:ends[k] + 1] = upper
            free = ends[k] + 1
    return q


def polish(lat, lam, best, relink=cpu_reference.relink):
    """``best`` (a :class:`~._candidates.Candidate` with a path) relinked in turn with
    moved copies of the ordering kept (:func:`moved`), a copy replacing it where the
    relink's answer is better at ``lam`` (``_candidates.beats``); at most
    ``POLISH_TRIES`` relinks, ending after ``POLISH_STALL`` without a gain. Never
    worse than ``best``, and ``best`` itself where nothing is gained. ``relink``:
    ``cpu_reference.relink`` or its compiled twin (the same result, bit for bit); with
    the compiled twin each step is one compiled call (``engine._numba_polish``: the
    copy, its states and the relink; the same draws, the same result)."""
    if best.path is None or best.path.size < 2:
        return best
    rng = np.random.default_rng(POLISH_SEED)
    compiled = _compiled_step(lat, relink)
    stall, boundaries = 0, None
    for _ in range(POLISH_TRIES):
        if compiled is None:
            other = moved(best.path, rng)
            c = relinked_if_better(lat, lam, best, other, states_for(relink)(lat, other),
                                   relink)
        else:
            if boundaries is None:  # of the ordering kept
                boundaries = int(np.count_nonzero(best.path[1:] != best.path[:-1]))
            got = compiled.step(lam, best.path,
                                candidate_states(lat, best, states_for(relink)),
                                *draws(boundaries, rng))
            # no segment of the copy taken: the relink's answer is best's own path
            c = best if got is None else better(lat, lam, best, *got)
        if c is not best:
            best, stall, boundaries = c, 0, None
        else:
            stall += 1
            if stall >= POLISH_STALL:
                break
    return best


def _compiled_step(lat, relink):
    """``engine._numba_polish.MovedRelink`` of ``lat`` where ``relink`` is numba's
    compiled relink (``_solvers.relink_for``), else None (the steps in Python)."""
    if relink is cpu_reference.relink:
        return None
    from ..engine import _numba_engine

    if not _numba_engine.available():
        return None
    from ..engine import _numba_polish, _numba_relink

    return _numba_polish.MovedRelink(lat) if relink is _numba_relink.relink else None
