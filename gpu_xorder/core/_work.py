"""The work of ``fair_order`` on validated, encoded inputs: the plan, asked of
``_choice`` once (:func:`plan_encoded`), then its execution (:func:`execute`): build
the lattice or the problem, run the plan's solvers on the plan's engine, build the
results (``_result.build_result``)."""

import dataclasses
import functools
import logging
import warnings

import numpy as np

import cpu_reference

from .. import metrics as metrics_mod
from ..utils import _validation as v
from ..utils._frames import user_level
from ..utils._parallel import map_lams
from . import _candidates, _choice, _constrained, _solvers
from ._result import build_result

logger = logging.getLogger("gpu_xorder")

MSG_SIGNED_WORSE = (
    "disparity='signed' with lam={lam:g} made |D| ({metric}) larger than the scores "
    "given ({after:.4f} > {before:.4f}): the signed objective rewards disparity in the "
    "other direction; use disparity='absolute' (the default)"
)


def solve_encoded(s, labels_y, labels, index, lams, *, progress=None, **choices):
    """The work of :func:`fair_order` on validated, encoded inputs: the plan
    (:func:`plan_encoded`, with ``choices``), then its execution (:func:`execute`); a
    list of results, one per value of ``lams`` (a float64 array)."""
    return execute(s, labels_y, labels, index,
                   plan_encoded(s, labels_y, labels, index, lams, **choices), progress)


def plan_encoded(s, labels_y, labels, index, lams, *, metric, mode, backend, method,
                 solver, max_disparity, memory_limit, n_jobs=None, keep_ties=False,
                 alone=False, exact_budget=_solvers.EXACT_BUDGET):
    """The :class:`_choice.Plan` of a solve of validated, encoded inputs (``labels``:
    the sorted group labels, ``index``: every item's position among them), from the
    rows the DP takes: every item, or with ``keep_ties`` every run of equal scores of
    a group.

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
    it (docs/design.md, section 3.5, "Ties, and the values of a sequence").

    The inputs and parameters are a request's (``utils._params.validate``), checked
    there once: nothing is checked again here."""
    return _choice.plan(_rows(s, index, labels.size, keep_ties), lams, metric=metric,
                        mode=mode, backend=backend, method=method, solver=solver,
                        max_disparity=max_disparity, memory_limit=memory_limit,
                        n_jobs=n_jobs, keep_ties=keep_ties, alone=alone,
                        exact_budget=exact_budget)


def _rows(s, index, k, keep_ties):
    """Rows of every group the DP takes: its items, or with ``keep_ties`` its runs of
    equal scores (as many as its distinct scores: ``cpu_reference.tie_runs``)."""
    if not keep_ties:
        return np.bincount(index, minlength=k).tolist()
    order = np.lexsort((s, index))
    g, x = index[order], s[order]
    starts = np.concatenate(([True], (g[1:] != g[:-1]) | (x[1:] != x[:-1])))
    return np.bincount(g[starts], minlength=k).tolist()


def execute(s, labels_y, labels, index, plan, progress=None):
    """Carry out ``plan`` (:func:`plan_encoded` of the same inputs): a list of results,
    one per lam of the plan."""
    lams = np.asarray(plan.lams, dtype=np.float64)
    if not plan.two_group:
        solve = functools.partial(_solve_multi, s, labels_y, index, labels, plan)
        if plan.route == "best":
            results = _best_of(solve, lams.size, progress,
                               *(step.cells for step in plan.steps))
        else:
            results = solve(0, progress=progress)
        return [_exact_at_zero(r) for r in results]
    eng = plan.eng
    lat = cpu_reference.build_lattice(s, labels_y, index, plan.metric, plan.mode,
                                      perms=eng.dp_orders(s, index, 2))
    items = _tie_runs(lat, s) if plan.keep_ties else None
    work = lat if items is None else cpu_reference.merged_lattice(lat, *items[1])
    bands = {}

    def fills(lattice, weights, progress=None):
        """``[(path, final), ...]`` of ``lattice`` for every weight, in batches no
        larger than the user's (the memory planned for those holds)."""
        out = []
        for start in range(0, weights.size, lams.size):
            batch_weights = weights[start:start + lams.size]
            solutions, band_rows = eng.solve(lattice, batch_weights, progress=progress,
                                             memory_limit=plan.memory_limit,
                                             n_jobs=plan.n_jobs)
            if band_rows is not None and not bands:  # the cell rule's fill comes first
                bands.update(bands=-(-work.n_a // band_rows), band_rows=band_rows)
            out += solutions
        return out

    def finals(lattice, weights):
        """``[final, ...]``: the final counters of ``lattice`` for every weight, from
        fills that keep no decision bits where the engine has them."""
        return list(eng.final_counters(lattice, np.asarray(weights, dtype=np.float64)))

    # an engine with a session (numba's) prepares each lattice once for all its fills
    with eng.session():
        if plan.max_disparity is not None:
            results = [_solve_constrained(work, labels, plan.max_disparity, fills, finals,
                                          eng, bands, items)]
        else:
            results = _solve_two(work, labels, lams, plan, fills, finals, progress,
                                 bands, items)
    if bands:
        logger.info("gpu_xorder: the %d x %d lattice was filled in %d bands of %d rows "
                    "(decision bits over the memory limit)", work.n_a, work.n_b,
                    bands["bands"], bands["band_rows"])
    if plan.mode == "signed":
        _warn_signed(results, s, labels_y, index, plan.metric)
    return results


def _tie_runs(lat, s):
    """``(lat, (runs_a, runs_b))``: the lengths of the runs of equal scores of each
    group in DP order, or None where every score of a group is distinct."""
    runs = (cpu_reference.tie_runs(s, lat.perm_a), cpu_reference.tie_runs(s, lat.perm_b))
    if runs[0].size == lat.n_a and runs[1].size == lat.n_b:
        return None
    return lat, runs


def _solve_two(lat, labels, lams, plan, fills, finals, progress, bands, items=None):
    """Two groups: the cell rule, or the solver the plan names for every lam
    (docs/design.md, section 3.5).

    The values of ``lams`` share one search, or with the plan's ``alone`` each value
    has its own (as if given alone); the cell rule's values are filled in one batch
    either way (its decisions at a weight do not depend on the others).

    ``progress`` counts the cells of every fill against the plan's expected fills; a
    search that needs more fills moves the total on, and the last report is
    ``(done, done)``."""
    chosen, eng, alone = np.array(plan.solvers), plan.eng, plan.alone
    expected = plan.cells
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

    rule = np.flatnonzero([c == "paper" for c in chosen])
    searched = np.flatnonzero([c != "paper" for c in chosen])
    for message in plan.warnings:
        warnings.warn(message, UserWarning, stacklevel=user_level())
    results = [None] * lams.size
    if rule.size:
        first = None if progress is None else (
            lambda cells, total: report(cells * rule.size * lat.n_cells // max(total, 1)))
        paper = [_candidates.candidate(lat, path, final)
                 for path, final in fills(lat, lams[rule], first)]
        done[0] += rule.size * lat.n_cells
        for i, c in zip(rule, paper):
            why = plan.uncertified[i]
            extra = {} if why is None else {"uncertified": why}
            extra["solver_reason"] = _solvers.rule_reason(plan.solver, lams[i], lat.mode,
                                                           why)
            exact = lams[i] == 0 or lat.mode == "signed"
            results[i] = _candidate_result(
                lat, labels, lams[i], c, eng.NAME, {**bands, **extra}, "paper",
                _candidates.absolute_objective(c, lams[i]) if exact else None, items)
    if searched.size:
        budget = plan.host_budget
        for part in np.split(searched, searched.size) if alone else [searched]:
            solved = _solvers.solve_absolute(lat, lams[part], counted(fills),
                                             counted(finals), chosen[part[0]], budget,
                                             exact_budget=plan.exact_budget,
                                             relink=_solvers.relink_for(eng.NAME),
                                             fronts=_solvers.fronts_for(eng.NAME))
            for i, (best, bound, ran, extra) in zip(part, solved):
                results[i] = _candidate_result(lat, labels, lams[i], best, eng.NAME,
                                               {**bands, **extra}, ran, bound, items)
        if progress is not None:
            progress(done[0], done[0])
    return results


def _solve_constrained(lat, labels, eps, fills, finals, eng, bands, items=None):
    among = _constrained.AMONG_ALL if items is None else _constrained.AMONG_RUNS
    best, bound, found_with = _constrained.constrained(
        lat, eps, fills, finals, among, relink=_solvers.relink_for(eng.NAME))
    extra = {**bands, "found_with": found_with,
             "solver_reason": _constrained.constrained_reason(found_with, eps, lat.n_cells)}
    solver = "exact" if found_with.get("exact") else "lagrangian"
    return _candidate_result(lat, labels, 0.0, best, eng.NAME, extra, solver, bound,
                             items, max_disparity=eps)


def _candidate_result(lat, labels, lam, cand, backend, extra, solver, bound,
                      items=None, **fields):
    """The result of ``cand``, an ordering of ``lat``; ``items``: ``(item lattice,
    runs)`` where ``lat`` is the lattice of runs (``keep_ties``): the path expanded and
    its counters taken on the items (exact, the same as the runs' counters)."""
    if items is not None:
        lat, runs = items
        path = cpu_reference.expand_merged(cand.path, *runs)
        cand = _candidates.candidate(lat, path, cpu_reference.path_counters(lat, path))
        extra = {**extra, "tie_runs": [int(r.size) for r in runs]}
    objective, auc, _ = cpu_reference.cell_values(cand.final, lat.consts, lam, lat.metric,
                                                  lat.mode)
    _, _, delta = cpu_reference.cell_values(cand.final, lat.consts, lam, lat.metric,
                                            "absolute")
    names = cpu_reference.COUNTERS[lat.metric]
    if bound is not None and bound - objective <= _candidates.TOLERANCE:
        bound = objective
    return build_result(
        labels=labels, metric=lat.metric, mode=lat.mode, lam=lam, backend=backend,
        path=cand.path, perms=(lat.perm_a, lat.perm_b), values=(objective, auc, delta),
        counters={name: int(c) for name, c in zip(names, cand.final)}, extra=extra,
        solver=solver, upper_bound=bound, **fields)


def _exact_at_zero(res):
    """The cell rule is exact at lam = 0 (any number of groups) and in signed mode."""
    if res.lam == 0 or res.mode == "signed":
        return dataclasses.replace(res, upper_bound=res.objective)
    return res


def _warn_signed(results, s, y, index, metric):
    """Signed mode rewards disparity in the other direction: say so when the result's
    ``|D|`` exceeds that of the scores given."""
    before = metrics_mod.disparity(y, s, sensitive_features=index, metric=metric)
    for res in results:
        if res.lam > 0 and res.disparity > before + _candidates.TOLERANCE:
            warnings.warn(MSG_SIGNED_WORSE.format(lam=res.lam, metric=metric,
                                                  after=res.disparity, before=before),
                          UserWarning, stacklevel=user_level())


def _best_of(solve, n_lams, progress, kd_cells, iterative_cells):
    """``method="best"``: K-D and iterative xOrder (the plan's steps 0 and 1), and for
    every lam the result of the higher objective (K-D on a tie); ``extra["objectives"]``
    keeps both."""
    kd_total, it_total = n_lams * kd_cells, n_lams * iterative_cells
    stages = [None, None]
    if progress is not None:
        stages = [lambda done, _: progress(done, kd_total + it_total),
                  lambda done, _: progress(kd_total + done, kd_total + it_total)]
    out = []
    for kd, it in zip(solve(0, progress=stages[0]), solve(1, progress=stages[1])):
        best = kd if kd.objective >= it.objective else it
        extra = {**best.extra, "objectives": {"kd": kd.objective, "iterative": it.objective}}
        out.append(dataclasses.replace(best, extra=extra))
    return out


def _solve_multi(s, y, index, labels, plan, step, progress=None):
    """K-D or iterative xOrder (any K >= 2): the plan's ``step`` (its method, engine and
    worker processes).

    An engine with ``BATCHED_FILLS`` runs two groups on its 2-D solve (the K-D and
    iterative DPs are the 2-D DP for two groups, decision for decision); the GPU runs
    K-D on ``kd_plane_kernel`` (``cuda/xorder_kd.cu``), iterative steps on the 2-D tile
    kernel. ``keep_ties``: on the problem of runs (``cpu_reference.runs_problem``),
    whose paths are expanded to items; its counters are the items' (exact).
    """
    metric, mode, lams = plan.metric, plan.mode, np.asarray(plan.lams, dtype=np.float64)
    prob = cpu_reference.build_problem(s, y, index, labels.size, metric, mode)
    if plan.keep_ties:
        prob = cpu_reference.runs_problem(prob, s)
    step = plan.steps[step]
    eng, chosen = step.eng, step.method
    if eng.BATCHED_FILLS and labels.size == 2:
        solutions = _solve_two_as_multi(eng, prob, lams, progress)
    else:
        solutions = map_lams(_multi_solution, (eng, prob, chosen), lams, step.workers,
                             progress, step.cells)
    reason = _k_group_reason(labels.size, chosen, plan.solver)
    results = []
    for lam, (path, c, u, cs) in zip(lams, solutions):
        extra = {"solver_reason": reason}
        if prob.weights is not None:
            path = cpu_reference.expand_runs(path, prob)
            extra["tie_runs"] = [int(w.size) for w in prob.weights]
        if chosen == "iterative":
            # tolist, not item(): labels held as Python objects (an object array of
            # ints, say) have no item()
            names = labels.tolist()
            extra["merge_order"] = [names[g] for g in cpu_reference.merge_order(prob.sizes)]
        results.append(build_result(
            labels=labels, metric=metric, mode=mode, lam=lam, backend=eng.NAME, path=path,
            perms=prob.perms,
            values=cpu_reference.kgroup_values(c, u, cs, lam, metric, mode),
            counters=_counter_dict(c, u, labels, metric), method=chosen, extra=extra))
    return results


#: The K-group methods in words (``extra["solver_reason"]``).
K_GROUP_METHODS = {"kd": "the K-D DP", "iterative": "iterative xOrder"}


def _k_group_reason(k, method, solver):
    """Why the cell rule of a K-group method answered (``extra["solver_reason"]``):
    more than two groups, or two with a method named and no certified solver."""
    rule = f"the cell rule of {K_GROUP_METHODS[method]}"
    if k > 2:
        return f"{k} groups: {rule} (the search and the exact solver take two)"
    return (f"method={method!r} with solver={solver!r}: {rule} (solver='lagrangian' or "
            "'exact' runs the two-group solvers)")


def _multi_solution(eng, prob, method, lam, progress=None):
    """``(path, C, U, constants)`` of K-D or iterative xOrder on engine ``eng``."""
    return eng.solve_multi(prob, lam, method, progress)[:4]


def _solve_two_as_multi(eng, prob, lams, progress):
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
