"""``fair_order``: validate, build the lattice, dispatch to a backend, read the result."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import warnings
from typing import TYPE_CHECKING

import numpy as np

import cpu_reference

from ..utils import _parallel
from ..engine import _plan
from . import _constrained, _solver_choice, _solvers
from ..utils import _params as params
from ..utils import _validation as v
from .. import metrics as metrics_mod
from ..engine._backend import engine, resolve_backend
from ..engine._numpy_engine import map_lams
from ..utils._frames import warn_misaligned
from ._result import FairOrderResult

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from numpy.typing import ArrayLike

logger = logging.getLogger("gpu_xorder")

MSG_MULTI_MEMORY = (
    "{method} xOrder of groups of sizes {sizes} keeps {need:.3g} GiB of decision bits, "
    "over {source} ({limit:.3g} GiB); {hint}subsample each group (XOrder(subsample=k))"
)
MSG_CONSTRAINT_SCOPE = (
    "max_disparity needs two groups and disparity='absolute' (got {k} groups, "
    "disparity={mode!r})"
)
MSG_SIGNED_WORSE = (
    "disparity='signed' with lam={lam:g} made |D| ({metric}) larger than the scores "
    "given ({after:.4f} > {before:.4f}): the signed objective rewards disparity in the "
    "other direction; use disparity='absolute' (the default)"
)


def fair_order(scores: ArrayLike, y: ArrayLike, sensitive_features: ArrayLike | None = None,
               *, metric: str = "xauc", lam: float | Sequence[float] = 0.0,
               disparity: str = "absolute", backend: str = "auto", method: str = "auto",
               solver: str = "auto", max_disparity: float | None = None,
               memory_limit: int | str | None = None,
               progress: Callable[[int, int], object] | None = None,
               n_jobs: int | None = None,
               groups: ArrayLike | None = None) -> FairOrderResult | list[FairOrderResult]:
    """Interleave the groups' rankings to trade AUC against ranking disparity.

    Every group keeps its own descending score order; the DP chooses how the groups
    interleave so as to maximise ``AUC - lam * D`` (docs/design.md, section 3).

    Parameters
    ----------
    scores : array-like of shape (n,)
        Risk scores, higher ranked first. Finite; at most 2**26 items.
    y : array-like of shape (n,)
        Binary labels (0/1).
    sensitive_features : array-like of shape (n,) or (n, c)
        Protected group of each item (ints, or strings of at most
        ``MAX_LABEL_CHARS`` = 1000 characters); with c columns (one per
        attribute, a DataFrame say) the groups are their intersections, labelled by
        the values joined with ``" & "`` (``"white & female"``). Required; the third
        positional argument.
    metric : {"xauc", "prf", "urf"}, default="xauc"
        Disparity metric: cross-AUC, pairwise ranking fairness or unsupervised ranking
        fairness.
    lam : float or sequence of float, default=0.0
        Weight of the disparity, on the paper's scale (AUC and D are both fractions):
        one real number of any type (``Decimal``, ``Fraction``, NumPy scalars and 0-d
        arrays; not a bool) or a one-dimensional sequence of them.
        The public reference code's weight equals ``lam * n_1 * n_0``. A sequence
        returns one result per value (filled in one batch on the GPU); with two groups
        and the solvers ``"auto"``, ``"lagrangian"`` and ``"exact"`` the values share
        one search, so each result is at least every other value's ordering at its lam
        and may be another ordering than the value alone gives
        (:func:`gpu_xorder.xorder_path` solves each value alone).
    disparity : {"absolute", "signed"}, default="absolute"
        ``"absolute"`` penalises ``|D|``; ``"signed"`` penalises ``D = m(a, b) - m(b, a)``
        (the paper's eq. 14), for which the DP is exactly optimal.
    backend : {"auto", "numpy", "numba", "cupy"}, default="auto"
        The engine that fills the lattices, each with the same decisions: ``"numpy"``
        (the reference), ``"numba"`` (the compiled CPU engine, ``gpu-xorder[numba]``),
        ``"cupy"`` (the GPU, ``gpu-xorder[cuda12]``); ``"auto"`` takes CuPy when it
        passes its self-check, else numba when it imports and agrees with the reference,
        else NumPy (a named backend that cannot run raises
        ``BackendUnavailableError``). More than two groups: NumPy runs K-D and
        iterative xOrder on the reference; numba runs the iterative steps on its
        compiled fill and K-D on the reference; CuPy runs both on the GPU, up to 20
        groups for iterative and 32 for K-D (beyond, ``"cupy"`` raises and ``"auto"``
        runs NumPy). ``result.backend`` says which ran.
    method : {"auto", "kd", "iterative", "best"}, default="auto"
        How more than two groups are merged (docs/design.md, section 4). ``"kd"``: the DP
        over the K-dimensional lattice of prod(n_g + 1) cells. ``"iterative"``: merge the
        groups one at a time, largest first (equal sizes: lower group index first), by
        2-D DPs; ``result.extra["merge_order"]`` lists the group labels in merge order.
        Both give the best interleaving at ``lam = 0``; with a disparity penalty the
        cell rule is not guaranteed optimal for either (docs/user_guide/many_groups.md,
        "More than two
        groups"), and either may score the higher objective: ``"best"`` runs both and
        keeps, for every lam, the higher ``objective`` (K-D on a tie; ``result.method``
        says which, ``result.extra["objectives"]`` holds both).
        ``"auto"``: the 2-D DP for two groups; for more, ``"kd"`` up to
        ``KD_MAX_CELLS`` = 1e8 cells, else ``"iterative"``. ``result.method`` records
        the choice (``"2d"``, ``"kd"`` or ``"iterative"``). With two groups all three
        give the same ordering.
    solver : {"auto", "paper", "lagrangian", "exact"}, default="auto"
        How the ordering is chosen for two groups with ``|D|`` (docs/design.md, section
        3.5). ``"paper"``: the DP's cell rule (the paper's
        recurrence), a heuristic for ``|D|``. ``"lagrangian"``: signed DPs over weights
        ``mu`` in ``[-lam, lam]`` give a certified ``upper_bound`` and candidate
        orderings; the best of them and of the cell rule is returned, never worse than
        ``"paper"``. ``"exact"``: the optimum, by Pareto fronts pruned with those bounds
        (NumPy; a ``ValueError`` before any fill above ``EXACT_MAX_CELLS`` cells, a
        ``MemoryError`` naming the size when the fronts outgrow the memory budget).
        ``"auto"``: exact on lattices of up to
        ``AUTO_EXACT_CELLS`` cells while its fronts stay small, else lagrangian (on the
        NumPy backend up to ``AUTO_LAGRANGIAN_CELLS_NUMPY`` cells; beyond, the cell rule
        with a ``UserWarning`` and ``extra["uncertified"]`` saying why).
        ``result.solver`` says which ran. With ``lam = 0``, ``disparity="signed"`` or
        more than two groups the cell rule runs (exact in the first two cases; the
        other solvers need two groups).
    max_disparity : float or None, default=None
        Fairness as a constraint: maximise AUC subject to ``|D| <= max_disparity`` on
        the data given (two groups; leave ``lam`` at 0). The weight is searched over
        signed DPs; ``result.objective`` is the AUC, ``result.upper_bound`` a
        certified bound on the best AUC any interleaving with ``|D| <= max_disparity``
        reaches; small lattices are solved exactly (``result.solver == "exact"``).
        ``ValueError`` when no ordering found meets the constraint (its ``proven``
        attribute: True when no interleaving does). To hold the constraint on new
        data, see ``XOrder(max_disparity=..., validation=...)``.
    memory_limit : int, str or None, default=None
        Bytes the decision bits may take (all ``lam`` values of a GPU batch together),
        or a size with a unit: ``"2GB"``, ``"512MiB"``.
        Default: 75% of the host memory available (NumPy) or the free device memory
        (CuPy). The two-group DP whose bits exceed it is filled in bands of rows with
        counter checkpoints and the path recomputed band by band (docs/design.md, section 6):
        the same result for about twice the work; ``result.extra`` then holds
        ``"bands"`` and ``"band_rows"``. The K-group methods keep their bits whole:
        ``method="auto"`` takes ``"iterative"`` when the K-D bits would exceed the
        limit, and a method whose bits exceed it raises ``MemoryError``.
    progress : callable(done_cells, total_cells), optional
        Called periodically while the lattice fills; with a sequence ``lam`` the
        cells count those of every value's lattice together (with ``n_jobs``, after
        every round of lattices). With two groups the total counts the fills the
        solver is expected to take and moves on if its search takes more; the last
        report has ``done == total``. Not called with ``max_disparity``, whose number
        of fills is not known in advance.
    n_jobs : int or None, default=None
        NumPy backend, sequence ``lam``: fill that many lattices at once in worker
        processes (joblib; -1: one per CPU core; None: 1). The results are the same;
        the memory budget is shared by the lattices filled at once. The GPU ignores it
        (a sequence already fills in one batch).
    groups : array-like, optional
        Deprecated keyword name of ``sensitive_features`` (a ``FutureWarning``).

    Returns
    -------
    FairOrderResult or list of FairOrderResult
        One per ``lam`` value when ``lam`` is a sequence.

    Examples
    --------
    >>> import numpy as np
    >>> from gpu_xorder import fair_order
    >>> scores = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
    >>> y = np.array([1, 0, 1, 0, 1, 0, 1, 0])
    >>> groups = np.array(["a", "a", "a", "a", "b", "b", "b", "b"])
    >>> res = fair_order(scores, y, groups, lam=1.0, backend="numpy")
    >>> sorted(res.order.tolist()) == list(range(8))
    True
    """
    groups = v.sensitive_features_argument(sensitive_features, groups)
    warn_misaligned(scores=scores, y=y, sensitive_features=groups)
    metric, mode, backend, method, solver, max_disparity = (
        params.check(name, value) for name, value in (
            ("metric", metric), ("disparity", disparity), ("backend", backend),
            ("method", method), ("solver", solver), ("max_disparity", max_disparity)))
    if progress is not None and not callable(progress):
        raise TypeError("progress must be callable or None")
    s = v.check_scores(scores)
    v.check_size(s.size)
    labels_y = v.check_labels(y, s.size)
    labels, index = v.encode_groups(groups, s.size)
    v.check_n_groups(labels)
    lams, batch = params.check("lam", lam)
    if max_disparity is not None and (batch or lams[0] != 0):
        raise ValueError(v.MSG_LAM_AND_CONSTRAINT)
    memory_limit = params.check("memory_limit", memory_limit)
    n_jobs = _parallel.check_n_jobs(n_jobs)
    results = solve_encoded(s, labels_y, labels, index, lams, metric=metric, mode=mode,
                            backend=backend, method=method, solver=solver,
                            max_disparity=max_disparity, memory_limit=memory_limit,
                            progress=progress, n_jobs=n_jobs)
    return results if batch else results[0]


def solve_encoded(s, labels_y, labels, index, lams, *, metric, mode, backend, method,
                  solver, max_disparity, memory_limit, progress, n_jobs, keep_ties=False,
                  alone=False):
    """The work of :func:`fair_order` on validated, encoded inputs: a list of results,
    one per value of ``lams`` (a float64 array). ``XOrder`` and ``xorder_path`` call it
    with the data and parameters they validated themselves; ``labels`` are the sorted
    group labels and ``index`` every item's position among them.

    ``keep_ties``: every run of equal scores of a group is placed whole (two groups: the
    lattice of runs, ``cpu_reference.merged_lattice``; more: the problem of runs,
    ``cpu_reference.runs_problem``), so that scores which keep each group's ties can
    realise the ordering (docs/design.md, section 5); the solvers' optimum and bound
    are then over such orderings. Every metric: a run carries its items as its weight
    on URF's U.

    ``alone``: every value of ``lams`` is solved as if it were given alone (its own
    solver choice, search and candidates; the fills of the cell rule still share one
    batch), so that each result is bit for bit that of the value alone, whatever the
    other values (``xorder_path``); by default the values of a two-group search share
    it (docs/design.md, section 3.5, "Ties, and the values of a sequence")."""
    v.check_supports(labels, index, labels_y, metric)
    if labels.size > 2 and mode == "signed":
        raise ValueError(v.MSG_SIGNED_TWO.format(k=labels.size))
    _check_solver(solver, max_disparity, labels.size, mode)
    # with two groups an explicit method is the cell rule's DP (as the paper's solver)
    two_group_solver = labels.size == 2 and (
        solver in ("lagrangian", "exact") or max_disparity is not None
        or (solver == "auto" and method == "auto"))
    if labels.size > 2 or (method != "auto" and not two_group_solver):
        solve = functools.partial(_solve_multi, s, labels_y, index, labels, metric, mode,
                                  lams, backend=backend, memory_limit=memory_limit,
                                  n_jobs=n_jobs, keep_ties=keep_ties)
        if method == "best" and labels.size > 2:
            sizes = np.bincount(index, minlength=labels.size).tolist()
            results = _best_of(solve, lams.size, progress, cpu_reference.kd_cells(sizes),
                               cpu_reference.iterative_cells(sizes))
        else:  # two groups: every method is the 2-D DP
            results = solve("kd" if method == "best" else method, progress=progress)
        return [_exact_at_zero(r) for r in results]
    engine_name = resolve_backend(backend)
    eng = engine(engine_name)
    perms = eng.dp_orders(s, index, 2) if engine_name == "cupy" else None
    lat = cpu_reference.build_lattice(s, labels_y, index, metric, mode, perms=perms)
    items = _tie_runs(lat, s) if keep_ties else None
    work = lat if items is None else cpu_reference.merged_lattice(lat, *items[1])
    bands = {}

    def fills(lattice, weights, progress=None):
        """``[(path, final), ...]`` of ``lattice`` for every weight, in batches no
        larger than the user's (the memory planned for those holds)."""
        out = []
        for start in range(0, weights.size, lams.size):
            batch_weights = weights[start:start + lams.size]
            solutions, band_rows = eng.solve(lattice, batch_weights, progress=progress,
                                             memory_limit=memory_limit, n_jobs=n_jobs)
            if band_rows is not None and not bands:  # the cell rule's fill comes first
                bands.update(bands=-(-work.n_a // band_rows), band_rows=band_rows)
            out += solutions
        return out

    def finals(lattice, weights):
        """``[final, ...]``: the final counters of ``lattice`` for every weight, from
        fills that keep no decision bits where the engine has them."""
        return list(eng.final_counters(lattice, np.asarray(weights, dtype=np.float64)))

    # an engine with a session (numba's) prepares each lattice once for all its fills
    with getattr(eng, "session", contextlib.nullcontext)():
        if max_disparity is not None:
            results = [_solve_constrained(work, labels, max_disparity, fills, finals,
                                          engine_name, bands, items)]
        else:
            results = _solve_two(work, labels, lams, solver, fills, finals, progress,
                                 engine_name, memory_limit, bands, items, alone)
    if bands:
        logger.info("gpu_xorder: the %d x %d lattice was filled in %d bands of %d rows "
                    "(decision bits over the memory limit)", work.n_a, work.n_b,
                    bands["bands"], bands["band_rows"])
    if mode == "signed":
        _warn_signed(results, s, labels_y, index, metric)
    return results


def _check_solver(solver, max_disparity, k, mode):
    """The solver and the constraint need two groups and the absolute disparity."""
    if max_disparity is not None and (k > 2 or mode == "signed"):
        raise ValueError(MSG_CONSTRAINT_SCOPE.format(k=k, mode=mode))
    if k > 2 and solver in ("lagrangian", "exact"):
        raise ValueError(_solvers.MSG_SOLVER_GROUPS.format(solver=solver, k=k))


def _tie_runs(lat, s):
    """``(lat, (runs_a, runs_b))``: the lengths of the runs of equal scores of each
    group in DP order, or None where every score of a group is distinct."""
    runs = (cpu_reference.tie_runs(s, lat.perm_a), cpu_reference.tie_runs(s, lat.perm_b))
    if runs[0].size == lat.n_a and runs[1].size == lat.n_b:
        return None
    return lat, runs


def _solve_two(lat, labels, lams, solver, fills, finals, progress, engine_name,
               memory_limit, bands, items=None, alone=False):
    """Two groups: the cell rule, or the solver asked for (docs/design.md, section 3.5).

    The values of ``lams`` share one solver choice and one search, or with ``alone``
    each value has its own (as if given alone); the cell rule's values are filled in
    one batch either way (its decisions at a weight do not depend on the others).

    ``progress`` counts the cells of every fill against ``expected_fills`` per lam; a
    search that needs more fills moves the total on, and the last report is
    ``(done, done)``."""
    def choose(values):
        return _solver_choice.choose_solver(solver, lat.mode, values, lat.n_cells,
                                            engine_name)

    chosen = ([choose(lams[i:i + 1]) for i in range(lams.size)] if alone
              else [choose(lams)] * lams.size)
    n = max(lat.n_a, lat.n_b)
    expected = lat.n_cells * sum(_solvers.expected_fills(c, lam, n)
                                 for c, lam in zip(chosen, lams))
    done = [0]

    def report(cells):
        if progress is not None:
            progress(cells, max(expected, cells))

    def counted(fill):
        def run(lattice, weights):
            solutions = fill(lattice, weights)
            done[0] += weights.size * lattice.n_cells
            report(done[0])
            return solutions
        return run

    def reason(chosen_here, values):
        return _solver_choice.uncertified_reason(solver, chosen_here, values, lat.n_a,
                                                 lat.n_b, engine_name)

    rule = np.flatnonzero([c == "paper" for c in chosen])
    searched = np.flatnonzero([c != "paper" for c in chosen])
    uncertified = reason("paper" if searched.size == 0 else chosen[searched[0]], lams)
    if uncertified is not None:
        warnings.warn(uncertified, UserWarning, stacklevel=4)
    results = [None] * lams.size
    if rule.size:
        first = None if progress is None else (
            lambda cells, total: report(cells * rule.size * lat.n_cells // max(total, 1)))
        paper = [_solvers.candidate(lat, path, final)
                 for path, final in fills(lat, lams[rule], first)]
        done[0] += rule.size * lat.n_cells
        for i, c in zip(rule, paper):
            why = reason("paper", lams[i:i + 1]) if alone else uncertified
            extra = {} if why is None else {"uncertified": why}
            exact = lams[i] == 0 or lat.mode == "signed"
            results[i] = _candidate_result(
                lat, labels, lams[i], c, engine_name, {**bands, **extra}, "paper",
                _solvers.absolute_objective(c, lams[i]) if exact else None, items)
    if searched.size:
        budget = _plan.host_budget(memory_limit)[0]
        for part in np.split(searched, searched.size) if alone else [searched]:
            solved = _solvers.solve_absolute(lat, lams[part], counted(fills),
                                             counted(finals), chosen[part[0]], budget)
            for i, (best, bound, ran, extra) in zip(part, solved):
                results[i] = _candidate_result(lat, labels, lams[i], best, engine_name,
                                               {**bands, **extra}, ran, bound, items)
        if progress is not None:
            progress(done[0], done[0])
    return results


def _solve_constrained(lat, labels, eps, fills, finals, engine_name, bands, items=None):
    among = _constrained.AMONG_ALL if items is None else _constrained.AMONG_RUNS
    best, bound, found_with = _constrained.constrained(lat, eps, fills, finals, among)
    extra = {**bands, "found_with": found_with}
    solver = "exact" if found_with.get("exact") else "lagrangian"
    res = _candidate_result(lat, labels, 0.0, best, engine_name, extra, solver, bound,
                            items)
    return dataclasses.replace(res, max_disparity=eps)


def _candidate_result(lat, labels, lam, cand, engine_name, extra, solver, bound,
                      items=None):
    """The result of ``cand``, an ordering of ``lat``; ``items``: ``(item lattice,
    runs)`` where ``lat`` is the lattice of runs (``keep_ties``): the path expanded and
    its counters taken on the items (exact, the same as the runs' counters)."""
    if items is not None:
        lat, runs = items
        path = cpu_reference.expand_merged(cand.path, *runs)
        cand = _solvers.candidate(lat, path, cpu_reference.path_counters(lat, path))
        extra = {**extra, "tie_runs": [int(r.size) for r in runs]}
    res = _make_result(lat, labels, lam, cand.path, cand.final, engine_name, extra)
    if bound is not None and bound - res.objective <= _solvers.TOLERANCE:
        bound = res.objective
    return dataclasses.replace(res, solver=solver, upper_bound=bound)


def _exact_at_zero(res):
    """The cell rule is exact at lam = 0 (any number of groups) and in signed mode."""
    if res.lam == 0 or res.mode == "signed":
        return dataclasses.replace(res, upper_bound=res.objective)
    return res


def _warn_signed(results, s, y, index, metric):
    """Signed mode rewards disparity in the other direction: say so when the result's
    ``|D|`` exceeds that of the scores given."""
    before = metrics_mod.disparity(s, y, index, metric)
    for res in results:
        if res.lam > 0 and res.disparity > before + _solvers.TOLERANCE:
            warnings.warn(MSG_SIGNED_WORSE.format(lam=res.lam, metric=metric,
                                                  after=res.disparity, before=before),
                          UserWarning, stacklevel=3)


def _make_result(lat, labels, lam, path, final, backend, extra):
    objective, auc, _ = cpu_reference.cell_values(final, lat.consts, lam, lat.metric, lat.mode)
    _, _, delta = cpu_reference.cell_values(final, lat.consts, lam, lat.metric, "absolute")
    names = cpu_reference.COUNTERS[lat.metric]
    return FairOrderResult(
        order=cpu_reference.path_to_order(path, (lat.perm_a, lat.perm_b)),
        auc=auc,
        disparity=delta,
        objective=objective,
        counters={name: int(c) for name, c in zip(names, final)},
        groups=labels,
        path=np.asarray(path, dtype=np.int8),
        metric=lat.metric,
        lam=float(lam),
        mode=lat.mode,
        backend=backend,
        extra=dict(extra),
    )


def _best_of(solve, n_lams, progress, kd_cells, iterative_cells):
    """``method="best"``: K-D and iterative xOrder, and for every lam the result of the
    higher objective (K-D on a tie); ``extra["objectives"]`` keeps both."""
    kd_total, it_total = n_lams * kd_cells, n_lams * iterative_cells
    stages = [None, None]
    if progress is not None:
        stages = [lambda done, _: progress(done, kd_total + it_total),
                  lambda done, _: progress(kd_total + done, kd_total + it_total)]
    out = []
    for kd, it in zip(solve("kd", progress=stages[0]), solve("iterative", progress=stages[1])):
        best = kd if kd.objective >= it.objective else it
        extra = {**best.extra, "objectives": {"kd": kd.objective, "iterative": it.objective}}
        out.append(dataclasses.replace(best, extra=extra))
    return out


def _solve_multi(s, y, index, labels, metric, mode, lams, method, *, backend, progress,
                 memory_limit, n_jobs, keep_ties=False):
    """K-D or iterative xOrder (any K >= 2) on the NumPy reference or the GPU.

    On the GPU, two groups run the 2-D solve (the K-D and iterative DPs are the 2-D DP for
    two groups, decision for decision); more groups: K-D on ``kd_plane_kernel``
    (``cuda/xorder_kd.cu``), iterative steps on the 2-D tile kernel. ``keep_ties``: on
    the problem of runs (``cpu_reference.runs_problem``), whose paths are expanded to
    items; its counters are the items' (exact).
    """
    engine_name = resolve_backend(backend)
    prob = cpu_reference.build_problem(s, y, index, labels.size, metric, mode)
    if keep_ties:
        prob = cpu_reference.runs_problem(prob, s)
    # The GPU checks its free memory itself (_cupy_engine.solve_multi).
    budget, source = (memory_limit, "memory_limit") if engine_name == "cupy" else (
        _plan.host_budget(memory_limit))
    chosen = _plan.choose_method(method, prob.sizes, budget)
    refusal = _plan.gpu_refusal(chosen, labels.size) if engine_name == "cupy" else None
    if refusal is not None:  # more groups than the kernels take: NumPy, unless forced
        if backend == "cupy":
            raise ValueError(refusal)
        logger.info("gpu_xorder: using the NumPy backend (%s)", refusal)
        engine_name = "numpy"
        budget, source = _plan.host_budget(memory_limit)
        chosen = _plan.choose_method(method, prob.sizes, budget)
    if budget is not None and _plan.decision_bytes(prob.sizes, chosen) > budget:
        hint = "use method='auto' (two groups: filled in bands) or " if labels.size == 2 else (
            "use method='iterative' or " if chosen == "kd" else "")
        raise MemoryError(MSG_MULTI_MEMORY.format(
            method=chosen, sizes=list(prob.sizes), source=source, limit=budget / 2**30,
            need=_plan.decision_bytes(prob.sizes, chosen) / 2**30, hint=hint))
    eng = engine(engine_name)
    if engine_name != "numpy" and labels.size == 2:
        solutions = _solve_two_as_multi(eng, prob, s, y, index, lams, progress)
    else:
        n_workers = 1
        if engine_name == "numpy":  # lattices of a lam sequence in worker processes
            n_workers = _parallel.workers(n_jobs, lams.size)
            if budget is not None:
                need = _plan.decision_bytes(prob.sizes, chosen)
                n_workers = max(1, min(n_workers, budget // need))
        cells = (cpu_reference.kd_cells(prob.sizes) if chosen == "kd"
                 else cpu_reference.iterative_cells(prob.sizes))
        solutions = map_lams(_multi_solution, (eng, prob, chosen), lams, n_workers,
                             progress, cells)
    results = []
    for lam, (path, c, u, cs) in zip(lams, solutions):
        extra = {}
        if prob.weights is not None:
            path = cpu_reference.expand_runs(path, prob)
            extra["tie_runs"] = [int(w.size) for w in prob.weights]
        if chosen == "iterative":
            order = cpu_reference.merge_order(prob.sizes)
            # tolist, not item(): labels held as Python objects (an object array of
            # ints, say) have no item()
            names = labels.tolist()
            extra["merge_order"] = [names[g] for g in order]
        objective, auc, delta = cpu_reference.kgroup_values(c, u, cs, lam, metric, mode)
        results.append(FairOrderResult(
            order=cpu_reference.path_to_order(path, prob.perms),
            auc=auc,
            disparity=delta,
            objective=objective,
            counters=_counter_dict(c, u, labels, metric),
            groups=labels,
            path=np.asarray(path, dtype=cpu_reference.group_dtype(labels.size)),
            metric=metric,
            lam=float(lam),
            mode=mode,
            backend=engine_name,
            method=chosen,
            extra=extra,
        ))
    return results


def _multi_solution(eng, prob, method, lam, progress=None):
    """``(path, C, U, constants)`` of K-D or iterative xOrder on engine ``eng``."""
    return eng.solve_multi(prob, lam, method, progress)[:4]


def _solve_two_as_multi(eng, prob, s, y, index, lams, progress):
    """Two groups on an engine's 2-D fill (all lam values in one call), in the K-group
    result format: ``[(path, C, U, constants), ...]`` (the K-D and iterative DPs are the
    2-D DP for two groups, decision for decision)."""
    lat = cpu_reference.problem_lattice(prob)
    cs = cpu_reference.kgroup_constants(prob, range(2))
    out = []
    for path, final in eng.solve(lat, lams, progress=progress)[0]:
        c, u = cpu_reference.step_counters(lat, final)  # the lattice's pair: (0, 1)
        out.append((path, c, u, cs))
    return out


def _counter_dict(c, u, labels, metric):
    """Two groups: the 2-D names (``cab``, ...); more: ``"C[g][h]"`` with group labels
    (escaped: ``_validation.escape_label``)."""
    if labels.size == 2:
        kinds, tables = cpu_reference.COUNTER_KINDS[metric], {"C": c, "U": u}
        values = [tables[kind][pair] for kind in kinds.kinds for pair in ((0, 1), (1, 0))]
        return dict(zip(kinds.names, values))
    out = {}
    for kind, table in (("C", c), ("U", u)):
        for (g, h), value in sorted(table.items()):
            out[f"{kind}[{v.escape_label(labels[g])}][{v.escape_label(labels[h])}]"] = (
                int(value))
    return out
