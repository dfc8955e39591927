"""The NumPy engine: the reference (``cpu_reference``) behind the engines' interface
(``_interface.Engine``, which ``_numba_engine`` and ``_cupy_engine`` satisfy too, so that
``fair_order`` dispatches without knowing which runs).

A sequence of lams may fill in ``n_jobs`` worker processes (joblib); the results are the
same.
"""

import contextlib

import numpy as np

import cpu_reference as cr

from ..utils import _parallel
from ..utils._parallel import map_lams
from . import _plan

# The capabilities of ``_interface.Engine``.
NAME = "numpy"
BATCHED_FILLS = False
WORKER_PROCESSES = True
OWN_MEMORY = False
MAX_OLD_GROUPS = None
MAX_KD_GROUPS = None
#: ``solver="auto"`` runs the Lagrangian search up to this many cells (about 15,800
#: per group; 10^4 per group: some 1.5 s per fill on a 2-core machine, and the search
#: takes about 5); beyond, it runs the cell rule and says so (``UserWarning``,
#: ``result.extra["uncertified"]``).
CERTIFIED_CELLS = 2.5e8
#: One fill with decision bits and its traceback, per cell, on the 2-core development
#: machine (benchmarks/auto_vs_rule.py: 0.07-0.09 s at 1000 per group, 1.3 s at 10^4).
FILL_SECONDS_PER_CELL = 1.5e-8


def solve(lat, lams, progress=None, memory_limit=None, n_jobs=None):
    """``([(path, final), ...], band_rows)``: whole lattices while their decision bits
    fit the budget, else bands with counter checkpoints (``band_rows`` not None), as
    many lattices at once in worker processes as ``n_jobs`` and the budget allow
    (``_plan.numpy_plan``)."""
    lams = np.asarray(lams, dtype=np.float64).reshape(-1)
    band_rows, n_workers = _plan.numpy_plan(lat, lams.size, memory_limit,
                                            _parallel.check_n_jobs(n_jobs))
    if band_rows is None:
        return map_lams(_whole_solution, (lat,), lams, n_workers, progress,
                        lat.n_cells), None
    return map_lams(_banded_solution, (lat, band_rows), lams, n_workers, progress,
                    lat.n_cells), band_rows


def final_counters(lat, lams):
    """int64 ``(len(lams), K)``: the final counters of fills that keep no decision bits."""
    return np.array([cr.fill(lat, float(lam), bits=False)[1] for lam in lams],
                    dtype=np.int64).reshape(len(lams), -1)


def solve_step(lat, lam, progress=None):
    """``(path, final)`` of one lattice (an iterative step)."""
    return _whole_solution(lat, lam, progress)


def solve_multi(prob, lam, method, progress=None):
    """K-D (``method="kd"``) or iterative xOrder of ``prob``: ``(path, C, U,
    constants[, merge_order])``."""
    if method == "kd":
        return cr.solve_kd(prob, lam, progress)
    return cr.solve_iterative(prob, lam, progress)


def dp_orders(scores, group_index, k):
    """None: ``cpu_reference.build_lattice`` sorts the groups itself."""
    return None


def session():
    """Nothing to share between the fills of a solve."""
    return contextlib.nullcontext()


def _whole_solution(lat, lam, progress=None):
    words, final = cr.fill(lat, lam, progress=progress)
    return cr.traceback(words, lat.n_a, lat.n_b), final


def _banded_solution(lat, band_rows, lam, progress=None):
    return cr.solve_banded(lat, 1, band_rows, cr.numpy_band_fill([lam]), progress)[0]
