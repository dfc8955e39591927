"""``gpu-xorder demo``: a logistic regression on a bundled data set, its scores adjusted
with xOrder for a few values of lam, utility and disparities before and after."""

import contextlib
import time

from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

from . import _output as out
from ._common import (
    LAM_NOTE,
    LIBRARY_ERRORS,
    asked_and_ran,
    check_split,
    counts,
    group_names,
    row,
)


def run(args):
    from ..datasets import load_dataset
    from ..experiments._experiment import grouping
    from ..utils import _params

    data = load_dataset(args.data)
    try:
        _params.check("lam", args.lam)  # every value before the first fit
        check_split(data, args.test_size, args.seed)
        groups = grouping(data, args.groups)
    except LIBRARY_ERRORS as exc:
        return out.error(exc)
    group_label, names = group_names(data, args.groups)

    try:
        rows, split = _run_demo(data, groups, args)
    except LIBRARY_ERRORS as exc:
        return out.error(exc)

    n, p = data.X.shape
    out.console.print(
        f"[bold]{data.name}[/bold]: {n} rows, {p} features; label positives "
        f"{int(data.y.sum())}; groups by [bold]{escape(group_label)}[/bold]: "
        + ", ".join(f"{names.get(g, g)} {c}" for g, c in counts(groups))
    )
    out.console.print(
        f"split {split['n_train']} train / {split['n_test']} test (seed {args.seed}); "
        f"logistic regression on standardised features; xOrder metric "
        f"[bold]{args.metric}[/bold], method {asked_and_ran(args.method, split['methods'])}, "
        f"solver {asked_and_ran(args.solver, split['solvers'])}, "
        f"backend {asked_and_ran(args.backend, split['backends'])}"
    )
    out.console.print(out.metrics_table("Test split", rows, "test", args.metric, timing=True))
    out.console.print(out.metrics_table("Training split", rows, "train", args.metric))
    out.console.print(f"[dim]{escape(LAM_NOTE)}[/dim]")
    return 0


def _run_demo(data, groups, args):
    """Split, fit the model, adjust for every lam; return table rows and split facts."""
    from ..experiments._experiment import split_scores
    from ..postprocessing import XOrder

    with out.working(f"demo: {data.name}: splitting, training the logistic "
                     "regression"):  # something at once, not seconds of nothing
        (s_tr, y_tr, a_tr), (s_te, y_te, a_te) = split_scores(
            data, groups, test_size=args.test_size, seed=args.seed)
    splits = {"train": (y_tr, a_tr), "test": (y_te, a_te)}
    warm_up(args.backend, s_tr, y_tr, a_tr, metric=args.metric, method=args.method,
            solver=args.solver)
    used, methods, solvers = set(), [], []
    rows = [row("unadjusted", {"train": s_tr, "test": s_te}, splits, None)]
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("cells"),
        TimeElapsedColumn(),
        console=out.console,
        transient=True,
        disable=not out.console.is_terminal,
    ) as progress:
        for lam in args.lam:
            task = progress.add_task(f"xOrder lam={lam:g}", total=None)

            def callback(done, total, task=task):
                progress.update(task, completed=done, total=total)

            start = time.perf_counter()
            est = XOrder(metric=args.metric, lam=lam, backend=args.backend,
                         method=args.method, solver=args.solver)
            est.fit(s_tr, y_tr, sensitive_features=a_tr, progress=callback)
            seconds = time.perf_counter() - start
            used.add(est.result_.backend)
            methods.append(est.result_.method)
            solvers.append(est.result_.solver)
            adjusted = {
                "train": est.transform(s_tr, sensitive_features=a_tr),
                "test": est.transform(s_te, sensitive_features=a_te),
            }
            rows.append(row(f"{lam:g}", adjusted, splits, seconds))
    return rows, {"n_train": y_tr.size, "n_test": y_te.size, "backends": sorted(used),
                  "methods": list(dict.fromkeys(methods)),  # in order of first use
                  "solvers": list(dict.fromkeys(solvers))}


#: Items per group of the warm-up fit: enough for every kernel the fit will use.
WARM_UP_ITEMS = 12
MSG_COMPILING = "compiling the numba engine (first use, about 15 s)"


def warm_up(backend, scores, y, groups, **params):
    """Compile (or load from numba's cache) the kernels a fit with ``params`` will use
    by a fit on a few items of every group, so that no fit's time counts the
    compilation; on first use, saying so."""
    import numpy as np

    from ..engine import _backend
    from ..postprocessing import XOrder

    first = _backend.compiles_on_first_use(backend)
    if first:
        out.err_console.print(f"[dim]{MSG_COMPILING}[/dim]", soft_wrap=True)
    with out.working(MSG_COMPILING if first else "preparing the xOrder engine"):
        if not _backend.warms_up(backend):
            return
        keep = np.concatenate([
            np.flatnonzero((groups == g) & (y == label))[:WARM_UP_ITEMS // 2]
            for g in np.unique(groups) for label in (0, 1)])
        with contextlib.suppress(*LIBRARY_ERRORS):  # the fit itself says what fails
            XOrder(lam=0.5, backend=backend, **params).fit(
                scores[keep], y[keep], sensitive_features=groups[keep])
