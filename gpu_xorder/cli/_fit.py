"""``gpu-xorder fit``: xOrder learnt from a CSV file of scores, labels and groups, the
model saved as JSON."""

import math
import time

import numpy as np
from rich.markup import escape

from . import _output as out
from ._common import (
    FILE_ERRORS,
    LIBRARY_ERRORS,
    asked_and_ran,
    check_new_column,
    file_row,
    group_title,
    print_findings,
    read_groups,
    read_paths,
)

LONG_FIT_SECONDS = 60.0

MSG_LONG_FIT = ("this fit fills about {cells:.2g} lattice cells: roughly {time} on the "
                "{engine} engine of a 2-core CPU. --subsample {k} would learn the order on "
                "1 in {k} items of each group in about {time_k}; a GPU (--backend cupy) "
                "is faster still")
MSG_MODEL = "--model is required (where to save the model), except with --plan"
MSG_LAM_AND_MAX = (
    "give --lam or --max-disparity, not both (--max-disparity chooses the weight)")
MSG_CHOOSE = "--choose {lam:g} is not one of the --lam values ({lams})"
MSG_CHOOSE_MAX = ("--choose picks one of several --lam values; it does not go with "
                  "--max-disparity")
#: ``fit``'s weight when neither --lam nor --max-disparity is given.
DEFAULT_FIT_LAM = 0.5


def run(args):
    from ..io import Table as CsvTable
    from ..io import check_all_outputs, json_text, write_files
    from ..io._csv import parse_label
    from ..postprocessing import XOrder, xorder_path
    from ..postprocessing._model_file import model_document

    try:
        if args.model is None and not args.plan:
            raise ValueError(MSG_MODEL)
        lams, chosen = _fit_lams(args)
        # every input and output checked before any work; nothing written until the end
        check_all_outputs([("--model", args.model), ("--output", args.output)],
                          inputs=read_paths(args))
        data = CsvTable(args.data)
        if args.output is not None:
            check_new_column(data, args.column)
        scores, y = data.numbers(args.score), data.binary(args.label)
        groups = read_groups(data, args)
        reference = args.reference_group
        if reference is not None and len(args.group) == 1:
            reference = parse_label(reference, args.group_type)
        params = dict(metric=args.metric, disparity=args.disparity,
                      reference_group=reference, backend=args.backend,
                      method=args.method, subsample=args.subsample,
                      memory_limit=args.memory_limit, solver=args.solver,
                      exact_budget=args.exact_budget)
        est = XOrder(lam=0.0 if args.max_disparity is not None else lams,
                     max_disparity=args.max_disparity, **params)
        # the request validated (a --subsample that leaves a group short refused
        # there) and what runs decided, once, before any work (the path's plan over
        # every --lam value)
        plan = est.plan(scores, y, sensitive_features=groups)
        if args.plan:
            out.console.print(escape(str(plan)), soft_wrap=True, emoji=False)
            return 0
        _note_long_fit(plan, args)
        start = time.perf_counter()
        with out.fit_progress() as progress:
            if args.max_disparity is None:
                models = xorder_path(scores, y, sensitive_features=groups, lams=lams,
                                     progress=progress, **params)
            else:
                models = [est.fit(scores, y, sensitive_features=groups,
                                  progress=progress)]
        seconds = time.perf_counter() - start
        est = models[chosen]
        model = json_text(model_document(
            est, {"score": args.score, "label": args.label, "group": args.group}))
        files = [(args.model, lambda f: f.write(model), None)]
        if args.output is not None:
            files.append((args.output,
                          data.writer(args.column, est.train_scores_adjusted_), ""))
        write_files(files, inputs=read_paths(args))
    except LIBRARY_ERRORS + FILE_ERRORS as exc:
        return out.error(exc)
    r = est.result_
    out.console.print(
        f"[bold]{escape(args.data)}[/bold]: {scores.size} rows; groups by "
        f"[bold]{escape(group_title(args.group))}[/bold]: "
        + ", ".join(f"{escape(str(g))} {c}"
                    for g, c in zip(*np.unique(groups, return_counts=True)))
        + f"; reference group {escape(str(est.reference_group_))}")
    if r.max_disparity is not None:
        setting = f"max |D| {r.max_disparity:g}"
    elif len(models) == 1:
        setting = f"lam {est.lam:g}"
    else:
        setting = f"lams {' '.join(f'{m.lam:g}' for m in models)}"
    solver = asked_and_ran(args.solver, [m.result_.solver for m in models])
    out.console.print(f"xOrder metric [bold]{args.metric}[/bold], {setting}, method "
                  f"{asked_and_ran(args.method, [r.method])}, solver {solver}, "
                  f"backend {asked_and_ran(args.backend, [r.backend])}, {seconds:.2f} s"
                  + (f", {r.extra['bands']} bands" if "bands" in r.extra else ""))
    for m in models:
        out.console.print(_certificate(m.result_) if len(models) == 1 else
                      f"lam {m.lam:g}: {_certificate(m.result_)}")
    rows = [file_row("unadjusted", scores, y, groups, None)]
    for m in models:
        rows.append(file_row(f"|D|<={r.max_disparity:g}" if r.max_disparity is not None
                              else f"{m.lam:g}", m.train_scores_adjusted_, y, groups,
                              seconds if len(models) == 1 else None))
    out.console.print(out.metrics_table("Training data", rows, "data", args.metric,
                                        timing=True))
    print_findings([("unadjusted", scores), (rows[chosen + 1]["label"],
                                                  est.train_scores_adjusted_)],
                        y, groups, args.metric, args.high_score,
                        args.delta, args.decision)
    out.console.print(f"model saved to {escape(args.model)}"
                  + (f" (lam {est.lam:g})" if len(models) > 1 else "")
                  + (f"; scores written to {escape(args.output)} (column "
                     f"{escape(args.column)})" if args.output else ""))
    return 0


def _fit_lams(args):
    """``fit``'s weights (``[0.0]`` under --max-disparity) and the position of the one
    whose model is saved: ``--choose``, else the last."""
    if args.max_disparity is not None:
        if args.lam is not None:
            raise ValueError(MSG_LAM_AND_MAX)
        if args.choose is not None:
            raise ValueError(MSG_CHOOSE_MAX)
        return [0.0], 0
    lams = args.lam or [DEFAULT_FIT_LAM]
    if args.choose is None:
        return lams, len(lams) - 1
    if args.choose not in lams:
        raise ValueError(MSG_CHOOSE.format(lam=args.choose,
                                           lams=", ".join(f"{x:g}" for x in lams)))
    return lams, lams.index(args.choose)


def _certificate(r):
    """One line on how good the ordering is: its objective, the certified bound and the
    gap (``fair_order``'s ``upper_bound``)."""
    what = ("AUC" if r.max_disparity is not None else
            "objective AUC - lam D" if r.mode == "signed" else "objective AUC - lam |D|")
    if r.upper_bound is None:
        return (f"{what} {r.objective:.6f}; no bound computed (solver {r.solver}; "
                "--solver lagrangian or exact certifies it)")
    if r.gap == 0:
        return f"{what} {r.objective:.6f}, proven optimal (upper bound = objective)"
    return (f"{what} {r.objective:.6f}, upper bound {r.upper_bound:.6f}, "
            f"gap {r.gap:.2g}")


def _note_long_fit(plan, args):
    """Before a fit that takes long on the CPU: the plan's estimate (``out.estimate``:
    30 s or more; a constrained fit's bound), and from ``LONG_FIT_SECONDS`` a
    ``--subsample`` that would take about ten seconds (the fills grow as the square of
    the group sizes)."""
    seconds = plan.seconds
    if seconds is None:
        return
    if plan.seconds_bound:
        out.estimate(seconds, f"at most; a constrained fit (--max-disparity "
                     f"{args.max_disparity:g}) on the {plan.engine} engine: the exact "
                     "solver's fronts, whose size the data decide, may take most of it",
                     bound=True)
        return
    out.estimate(seconds, f"the fit on the {plan.engine} engine")
    if seconds < LONG_FIT_SECONDS:
        return
    k = (args.subsample or 1) * max(2, math.ceil(math.sqrt(seconds / 10.0)))
    out.err_console.print(
        "[yellow]note:[/yellow] " + escape(MSG_LONG_FIT.format(
            cells=float(plan.cells), time=out.duration(seconds), engine=plan.engine,
            k=k, time_k=out.duration(seconds * ((args.subsample or 1) / k) ** 2))),
        soft_wrap=True, emoji=False)
