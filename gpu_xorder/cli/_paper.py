"""``gpu-xorder paper``: the paper's experiments on the bundled data sets, with the
baselines, base models, studies and figures."""

import contextlib

import numpy as np
from rich.markup import escape
from rich.table import Table

from ..datasets._loaders import POSITIVE_MEANS
from . import _output as out
from ._common import (
    FILE_ERRORS,
    LAM_NOTE,
    LIBRARY_ERRORS,
    check_split,
    counts,
    dask_backend,
    given,
    group_names,
    groups_named,
    read_paths,
    require_matplotlib,
)
from ._output import METRIC_COLUMNS

#: The files of ``--out`` besides the figures.
OUT_FILES = ("records.json", "summary.csv", "tables.md", "timings.csv")


def run(args):
    from ..experiments._experiment import PAPER_DATA
    from ..io import check_all_outputs, write_json

    names = args.data or PAPER_DATA[args.groups]
    if (args.methods is None or set(args.methods) - {"unadjusted", "xorder"}
            or args.model != "lr" or args.study is not None or args.out is not None
            or args.sizes is not None
            or "icu-standin" in names):
        return _paper_comparison(names, args)
    try:
        check_all_outputs([("--json", args.json)],  # before the work
                          inputs=read_paths(args))
        _check_splits(names, args)
        _announce(names, args, ["xorder"])
        with dask_backend(args.scheduler):
            experiments = [_paper_experiment(name, args) for name in names]
        if args.json is not None:
            write_json(args.json, {"experiments": [e.to_dict() for e in experiments]},
                       inputs=read_paths(args))
    except LIBRARY_ERRORS + FILE_ERRORS as exc:
        return out.error(exc)
    if args.json is not None:
        out.console.print(f"written to {escape(args.json)}")
    out.console.print(f"[dim]{escape(LAM_NOTE)}[/dim]")
    return 0


def _paper_experiment(name, args):
    """One data set's experiment, printed; its repetitions run in ``--jobs`` workers
    of joblib's active backend (no --jobs: one, or every worker of --scheduler's
    cluster)."""
    from ..experiments._experiment import paper_experiment

    with _timed_repetitions(name, args.repeats) as report, groups_named(name, args.groups):
        exp = paper_experiment(
            name, groups=args.groups, metric=args.metric, lams=args.lam,
            repeats=args.repeats, test_size=args.test_size, seed=args.seed,
            backend=args.backend, method=args.method, solver=args.solver,
            subsample=args.subsample, n_jobs=args.jobs, progress=report)
    _print_experiment(exp)
    return exp


def _paper_comparison(names, args):
    """``paper`` with baselines, another base model, a study or --out: every method's
    table per data set; --json and --out written at the end, all or nothing."""
    from ..experiments._paper_plots import figure_names
    from ..experiments._studies import compare_methods
    from ..io import check_all_outputs, staged_folder, write_json

    methods = args.methods  # None: every method that takes the data set's groups
    figures = args.out is not None
    # every file --out will hold, for the checks before the work, each once (a setting
    # given twice is the study's to refuse, not two outputs of one name)
    held = list(dict.fromkeys(list(OUT_FILES) + [
        name for data in names for name in figure_names(
            data, args.groups, args.model, args.study, args.sizes or args.fractions)]))
    try:
        check_all_outputs([("--json", args.json)], [("--out", args.out, held)],
                          inputs=read_paths(args))
        _check_splits(names, args)
        _announce(names, args, methods)
        if args.out is not None:
            try:
                require_matplotlib()
            except ValueError as exc:
                figures = False
                out.warning(f"{exc}; writing the tables only", UserWarning, "", 0)
        comparisons = []
        with dask_backend(args.scheduler):
            for name in names:
                with (_timed_repetitions(name, args.repeats) as report,
                      groups_named(name, args.groups)):
                    comparison = compare_methods(
                        name, methods=methods, model=args.model, groups=args.groups,
                        metric=args.metric, lams=args.lam, study=args.study,
                        repeats=args.repeats, test_size=args.test_size, seed=args.seed,
                        backend=args.backend, method=args.method, solver=args.solver,
                        subsample=args.subsample,
                        post_logit_search=args.post_logit_search,
                        fractions=args.fractions, sizes=args.sizes, n_jobs=args.jobs,
                        progress=report)
                comparisons.append(comparison)
                _print_comparison(comparison)
        document = {"experiments": [c.to_dict() for c in comparisons]}
        with contextlib.ExitStack() as stack:  # all outputs or none
            if args.out is not None:
                owned = set(held) | _earlier_figures(args.out)
                _paper_outputs(stack.enter_context(staged_folder(args.out, owned)),
                               comparisons, document, figures)
            if args.json is not None:
                write_json(args.json, document, inputs=read_paths(args))
    except LIBRARY_ERRORS + FILE_ERRORS as exc:
        return out.error(exc)
    for path in given(args.json) + given(args.out):
        out.console.print(f"written to {escape(path)}")
    out.console.print(f"[dim]{escape(LAM_NOTE)}[/dim]")
    return 0


def _earlier_figures(folder):
    """The figures an earlier ``paper --out`` into ``folder`` may have written, by its
    records.json (none where there is none or it is not such a file)."""
    import json
    import os

    from ..experiments._paper_plots import figure_names

    try:
        with open(os.path.join(folder, "records.json"), encoding="utf-8") as f:
            return {name for e in json.load(f)["experiments"] for name in figure_names(
                e["data"], e["groups"], e["model"], e.get("study"),
                list(dict.fromkeys(r["setting"] for r in e["records"])))}
    except (OSError, ValueError, KeyError, TypeError):
        return set()


@contextlib.contextmanager
def _timed_repetitions(name, repeats):
    """The progress of one data set's repetitions, and once the first is done an
    estimate of the others, timed on it (every method and base model counted, which
    no cost model does): ``estimate: about 4 min (german: the other 9 of 10
    repetitions, ...)``. The progress's time left extrapolates the repetitions done,
    never the lower bound of ``_announce`` (a count-down of it said "about 0:00:00
    left" at 0 %)."""
    import time

    start, told = time.monotonic(), []
    with out.repetitions_progress(name, repeats) as report:
        def progress(done, total):
            report(done, total)
            if done and not told and done < total:
                told.append(done)
                took = time.monotonic() - start
                out.estimate(took * (total - done) / done,
                             f"{name}: the other {total - done} of "
                             f"{out.repetitions(total)}, timed on the first {done} "
                             f"({out.spell(took)}), every method counted")
        yield progress


def _announce(names, args, methods):
    """Before the work: the estimate of xOrder's fits in every repetition (the CPU
    engines' cost model of ``fit``, on the training split's groups). The base models
    and the other methods are not counted, so it is printed as a lower bound (``at
    least about``); each data set's first repetition then times the rest
    (``_timed_repetitions``). Returns the seconds per data set (none where there is
    no estimate)."""
    from ..core._choice import plan
    from ..experiments._experiment import grouping
    from ..experiments._studies import load_data

    if methods is not None and not {"xorder", "xorder-kd"} & set(methods):
        return {}
    seconds, engine = {}, None
    for name in names:
        groups = grouping(load_data(name, args.groups), args.groups)
        counts = np.unique(groups, return_counts=True)[1]
        train = np.ceil(counts * (1 - args.test_size)).astype(int)
        try:  # a method that cannot run is the fits' to refuse, with their message
            fits = plan(-(-train // (args.subsample or 1)), list(args.lam),
                        metric=args.metric, mode="absolute", backend=args.backend,
                        method=args.method, solver=args.solver, max_disparity=None,
                        memory_limit=None, alone=True)
        except (ValueError, MemoryError):
            return {}
        if fits.seconds is None:  # no calibrated model on this engine (the GPU)
            return {}
        seconds[name], engine = args.repeats * fits.seconds, fits.engine
    others = "" if methods == ["xorder"] else " and the other methods"
    out.estimate(sum(seconds.values()),
                 f"{out.repetitions(args.repeats)} of {', '.join(names)}: xOrder's fits "
                 f"for {len(args.lam)} lams on the {engine} engine; the base models"
                 f"{others} not counted, timed on the first repetition", lower=True)
    return seconds


def _check_splits(names, args):
    """Refuse, before the work, a --test-size or --seed that a data set's split
    would refuse."""
    from ..experiments._studies import load_data

    for name in names:
        check_split(load_data(name), args.test_size, args.seed, args.repeats)


def _paper_outputs(folder, comparisons, document, figures):
    """records.json, summary.csv, tables.md, timings.csv and (``figures``) the PNGs in
    ``folder``."""
    import os

    from ..experiments._tables import markdown
    from ..io import json_text

    with open(os.path.join(folder, "records.json"), "w", encoding="utf-8") as f:
        f.write(json_text(document))
    with open(os.path.join(folder, "summary.csv"), "w", encoding="utf-8") as f:
        for k, comparison in enumerate(comparisons):
            text = comparison.csv_text()
            f.write(text if k == 0 else text.split("\n", 1)[1])
    with open(os.path.join(folder, "tables.md"), "w", encoding="utf-8") as f:
        f.write(markdown(comparisons))
    with open(os.path.join(folder, "timings.csv"), "w", encoding="utf-8") as f:
        f.write("data,groups,model,method,repeat,seconds,cpu_seconds\n")
        for c in comparisons:
            for method, seconds in c.seconds.items():
                f.writelines(f"{c.data},{c.groups},{c.model},{method},{r},{s!r},{cpu!r}\n"
                             for r, (s, cpu) in enumerate(zip(seconds,
                                                              c.cpu_seconds[method])))
    if figures:
        from ..experiments._paper_plots import write_figures
        from ..experiments._studies import load_data

        for comparison in comparisons:
            data = load_data(comparison.data)  # the ICU stand-in too
            _, names = group_names(data, comparison.groups)
            write_figures(comparison, folder, names=names,
                          positive=POSITIVE_MEANS[data.name])


def _print_comparison(comparison):
    """Test AUC and disparities, mean ± sd, of every method and parameter."""
    from ..experiments._studies import ONE_POINT, PARAMETER_NAMES

    seconds = ", ".join(f"{m} {np.mean(s):.2f} s" for m, s in comparison.seconds.items())
    study = "" if comparison.study is None else f"; {comparison.study} study"
    out.console.print(f"[bold]{comparison.data}[/bold] (groups {comparison.groups}): "
                  f"{out.repetitions(comparison.repeats)}, base model "
                  f"[bold]{comparison.model}[/bold], methods trade "
                  f"[bold]{comparison.metric}[/bold]{study}; per repetition: {seconds}")
    leading = ["method"] + (["setting"] if comparison.study is not None else []) + [
        "parameter"]
    table = out.test_split_table(comparison.data, comparison.repeats, comparison.metric,
                              leading)
    for row in comparison.summary("test"):
        parameter = ("least train D" if row["method"] in ONE_POINT else
                     "" if row["parameter"] is None else
                     f"{PARAMETER_NAMES[row['method']]} {row['parameter']:g}")
        setting = [] if comparison.study is None else [str(row["setting"])]
        table.add_row(row["method"], *setting, parameter,
                      *[out.mean_sd(row[key]) for key in
                        ("auc",) + tuple(m for m, _ in METRIC_COLUMNS)])
    out.console.print(table)


def _print_experiment(exp):
    from ..experiments._experiment import grouping
    from ..experiments._studies import load_data

    data = load_data(exp.data)
    group_label, names = group_names(data, exp.groups)
    sizes = ", ".join(f"{names.get(g, g)} {c}"
                      for g, c in counts(grouping(data, exp.groups)))
    out.console.print(f"[bold]{exp.data}[/bold]: groups by [bold]{escape(group_label)}"
                  f"[/bold] ({sizes}); {out.repetitions(exp.repeats)} of a stratified "
                  f"{1 - exp.test_size:.0%}/{exp.test_size:.0%} split, "
                  f"logistic regression on "
                  f"standardised features; xOrder metric [bold]{exp.metric}[/bold], "
                  f"method {', '.join(exp.methods)}, backend {', '.join(exp.backends)}, "
                  f"{np.mean(exp.fit_seconds):.2f} s per repetition for all lams")
    table = out.test_split_table(exp.data, exp.repeats, exp.metric, ["lam"])
    for row in exp.summary("test"):
        label = "unadjusted" if row["lam"] is None else f"{row['lam']:g}"
        table.add_row(label, *[out.mean_sd(row[key]) for key in
                               ("auc",) + tuple(m for m, _ in METRIC_COLUMNS)])
    out.console.print(table)
    figures = exp.paper_figures()
    if figures:
        title = f"{exp.data}: figures quoted by the paper (unadjusted, test)"
        quoted = Table(title=title, title_justify="left", min_width=len(title))
        for header in ("quantity", "paper", "measured"):
            quoted.add_column(header, justify="left" if header == "quantity" else "right")
        for fig, measured in figures:
            quantity = (fig.quantity if "xAUC" in fig.quantity
                        else f"Delta-{fig.quantity.upper()}")
            quoted.add_row(quantity, f"{fig.value:.3f}", out.mean_sd(measured))
        out.console.print(quoted)
