"""Candidate orderings of the two-group solvers (``_solvers``, ``_constrained``): an
ordering with its exact counters and objective terms, and its path's states kept for
relinks."""

import dataclasses

import numpy as np

import cpu_reference

#: Two values closer than this count as equal: the bound is certified up to float64
#: rounding of sums over at most 2**27 steps.
TOLERANCE = 1e-12


@dataclasses.dataclass
class Candidate:
    """An ordering found by a fill, with its exact counters and objective terms (the
    path is None for a bitless fill's maximiser, known by its counters only)."""

    path: np.ndarray | None
    final: np.ndarray
    auc: float
    d: float            # signed disparity
    mu: float | None = None  # the signed weight that produced it (None: the cell rule)
    #: ``cpu_reference.path_states`` of the path, kept once a relink has needed them
    states: tuple | None = dataclasses.field(default=None, repr=False, compare=False)


def candidate(lat, path, final, mu=None):
    _, auc, d = cpu_reference.cell_values(final, lat.consts, 0.0, lat.metric, "signed")
    return Candidate(None if path is None else np.asarray(path), np.asarray(final), auc,
                     d, mu)


#: Paths of at most this many items keep their states between relinks (``candidate_states``:
#: 48 bytes an item, so at most about 19 MiB a candidate); longer ones recompute them.
STATES_KEPT_ITEMS = 400_000


def states_for(relink):
    """The ``cpu_reference.path_states`` that goes with ``relink``: the compiled
    relink's compiled twin (``relink.path_states``: the same integers), else the
    reference's."""
    return getattr(relink, "path_states", cpu_reference.path_states)


def candidate_states(lat, cand, path_states=cpu_reference.path_states):
    """``path_states(lat, cand.path)`` (``cpu_reference.path_states`` or its compiled
    twin, :func:`states_for`), computed once where the path is short enough to keep
    them (``STATES_KEPT_ITEMS``). (They do not depend on the lattice's mode: a signed
    maximiser's serve the absolute lattice.)"""
    if cand.states is not None:
        return cand.states
    states = path_states(lat, cand.path)
    if cand.path.size <= STATES_KEPT_ITEMS:
        cand.states = states
    return states


def relinked_if_better(lat, lam, best, path, states, relink):
    """``best`` relinked with the ordering ``path`` (its ``cpu_reference.path_states``
    ``states``) by ``relink`` (``cpu_reference.relink`` or its compiled twin): the
    relink's candidate where it :func:`beats` ``best`` at ``lam``, else ``best``
    itself. The one step of every relinking loop (the search's candidates, the
    polish's moved copies)."""
    out, final = relink(lat, lam, best.path, path,
                        (candidate_states(lat, best, states_for(relink)), states))
    return better(lat, lam, best, out, final)


def better(lat, lam, best, path, final):
    """The candidate of ``path`` (its counters ``final``) where it :func:`beats`
    ``best`` at ``lam``, else ``best`` itself: the comparison of every relink step
    (:func:`relinked_if_better`, the polish's compiled step)."""
    c = candidate(lat, path, final)
    return c if beats(c, best, lam) else best


def absolute_objective(cand, lam):
    return cand.auc - lam * abs(cand.d)


def beats(cand, other, lam):
    """Whether ``cand`` is better than ``other`` at ``lam`` by more than ``TOLERANCE``:
    of one ``|D|``, by its AUC; else by the objective ``AUC - lam |D|``.

    At large weights the objective rounds to ``-lam |D|`` and hides the AUC (at lam 1e20
    on 3 x 3 items, URF, the exact solver kept the search's AUC 0.444 where its fronts
    found 0.667 with the same ``|D|``); where it does not round, comparing the AUC of
    one ``|D|`` is comparing the objective."""
    if abs(cand.d) == abs(other.d):
        return cand.auc > other.auc + TOLERANCE
    return absolute_objective(cand, lam) > absolute_objective(other, lam) + TOLERANCE


def signed_value(cand, mu):
    return cand.auc - mu * cand.d
