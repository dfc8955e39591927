"""Command line: ``gpu-xorder demo``, ``fit``, ``transform``, ``audit`` and ``info``.

``demo`` trains a logistic regression on a bundled data set, adjusts its scores with
xOrder for a few values of ``lam`` and prints utility and disparity before and after.
``fit`` learns xOrder from a CSV file of the user's scores, labels and groups, saves the
model as JSON and can write the adjusted scores; ``transform`` applies a saved model to
the scores of another CSV file; ``audit`` reports AUC and every disparity of score
columns. ``info`` prints versions and what the GPU backend can do on this machine.

Output goes through the module-level consoles ``console`` (stdout) and ``err_console``
(stderr); tests replace them to fix width and colour.
"""

import argparse
import contextlib
import math
import platform
import re
import time
import warnings

import numpy as np
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn
from rich.progress import MofNCompleteColumn
from rich.progress import Progress
from rich.progress import TaskProgressColumn
from rich.progress import TextColumn
from rich.progress import TimeElapsedColumn
from rich.progress import TimeRemainingColumn
from rich.table import Table

from gpu_xorder._experiment import DEFAULT_LAMS as PAPER_LAMS
from gpu_xorder._experiment import GROUPINGS, RACE_SEX_NAMES
from gpu_xorder._io import LABEL_KINDS
from gpu_xorder._studies import METHODS as PAPER_METHODS
from gpu_xorder._studies import STUDIES as PAPER_STUDIES
from gpu_xorder._validation import INTERSECTION_SEP
from gpu_xorder._validation import METHODS as METHOD_CHOICES
from gpu_xorder._validation import SOLVERS
from gpu_xorder._validation import parse_memory_size
from gpu_xorder.models import MODELS as PAPER_MODELS

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)

DATASET_CHOICES = ("compas", "adult", "german", "framingham")
METRIC_CHOICES = ("xauc", "prf", "urf")
BACKEND_CHOICES = ("auto", "numpy", "cupy")
DEFAULT_LAMS = (0.0, 0.01, 0.05, 0.5)
METRIC_COLUMNS = (("xauc", "Delta-xAUC"), ("prf", "Delta-PRF"), ("urf", "Delta-URF"))

LAM_NOTE = (
    "lam on the paper's scale: xOrder maximises AUC - lam * Delta, both fractions in "
    "[0, 1] (the public reference code's weight equals lam * n_pos * n_neg)."
)

# Readable names of the default groups; codes as stored in the data files.
GROUP_NAMES = {
    "adult": {0: "non-white", 1: "white"},
    "compas": {0: "non-white", 1: "white"},
    "german": {0: "young", 1: "adult"},
    "framingham": {1: "male", 2: "female"},
}
AGE_BAND_NAMES = {0: "age <= 25", 1: "25 < age <= 40", 2: "age > 40"}

# What the library raises for input it cannot handle; reported as one clean line.
LIBRARY_ERRORS = (ValueError, TypeError, RuntimeError, MemoryError)
FILE_ERRORS = (OSError, UnicodeDecodeError)
DEFAULT_COLUMN = "score_fair"
#: More groups than this in fit or audit (an ID-like column, say) are refused unless
#: --max-groups allows them.
MAX_GROUPS = 20
#: Seconds per lattice cell of the NumPy fill (12-18 ns on a 2-core AMD EPYC, README),
#: for the estimate printed before a long fit on the CPU.
CPU_SECONDS_PER_CELL = 15e-9
LONG_FIT_SECONDS = 60.0

MSG_MAX_GROUPS = ("{path}: {columns} gives {n} groups, more than --max-groups {limit} "
                  "(an ID-like column?); pass --max-groups {n} to fit them all")
MSG_LONG_FIT = ("this fit fills about {cells:.2g} lattice cells: roughly {time} on the "
                "CPU (about {ns:g} ns per cell). --subsample {k} would learn the order on "
                "1 in {k} items of each group in about {time_k}; a GPU (--backend cupy) "
                "is faster still")
#: audit: the level that --bootstrap or --ci-method alone implies, and the resamples.
AUDIT_LEVEL = 0.95
AUDIT_BOOTSTRAP = 2000
MSG_NO_DASK = ('--scheduler needs dask.distributed, which is not installed: '
               'pip install "gpu-xorder[dask]"')
MSG_SCHEDULER = "cannot reach the Dask scheduler at {address}: {why}"
SCHEDULER_TIMEOUT = 10  # seconds
MSG_INTERNAL = "unexpected {kind}: {message} (a bug in gpu-xorder; please report it)"
MSG_LAM_AND_MAX = "give --lam or --max-disparity, not both (--max-disparity chooses the weight)"
MSG_CHOOSE = "--choose {lam:g} is not one of the --lam values ({lams})"
MSG_CHOOSE_MAX = "--choose picks one of several --lam values; it does not go with --max-disparity"
#: ``fit``'s weight when neither --lam nor --max-disparity is given.
DEFAULT_FIT_LAM = 0.5


def _probability(text):
    value = float(text)
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must lie strictly between 0 and 1, got {text}")
    return value


def _probability_closed(text):
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must lie between 0 and 1, got {text}")
    return value


def _nonnegative(text):
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text}")
    return value


def _positive(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text}")
    return value


def _memory_size(text):
    try:
        return parse_memory_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


class _Version(argparse.Action):
    """``--version``: the installed version, looked up only when asked for."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog} {_own_version()}")
        parser.exit()


def _build_parser():
    parser = argparse.ArgumentParser(
        prog="gpu-xorder",
        description="Fair bipartite rankings across protected groups (xOrder).",
    )
    parser.add_argument("--version", action=_Version, help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = sub.add_parser(
        "demo",
        help="adjust a logistic regression's scores on a bundled data set",
        description=(
            "Train a logistic regression on a 70/30 stratified split of a bundled data "
            "set, adjust its scores with xOrder for each lam and compare AUC and "
            "disparities before and after. " + LAM_NOTE
        ),
    )
    demo.add_argument("--data", choices=DATASET_CHOICES, default="compas",
                      help="bundled data set (default: compas)")
    _experiment_arguments(demo, DEFAULT_LAMS, method=True)
    demo.set_defaults(handler=_demo)

    fit = sub.add_parser(
        "fit", help="learn xOrder from a CSV file of scores, labels and groups",
        description=(
            "Learn the fair interleaving of the groups' rankings from a CSV file (one row "
            "per item), save the model as JSON for `gpu-xorder transform`, and print AUC "
            "and disparities of the scores before and after. " + LAM_NOTE),
    )
    _file_arguments(fit, label_required=True)
    fit.add_argument("--model", required=True, help="where to save the model (JSON)")
    fit.add_argument("--output", help="also write the data with the adjusted training "
                     "scores added as a column (CSV)")
    _column_argument(fit)
    fit.add_argument("--lam", type=float, nargs="+", metavar="LAM",
                     help="weight of the disparity, paper's scale (default: 0.5); several "
                          "values fit the trade-off path, one row each, and save the "
                          "model of --choose")
    fit.add_argument("--choose", type=float, metavar="LAM",
                     help="with several --lam values: the one whose model is saved "
                          "(default: the last)")
    fit.add_argument("--disparity", choices=("absolute", "signed"), default="absolute",
                     help="penalise |D| or the signed D (two groups; default: absolute)")
    fit.add_argument("--max-disparity", type=_probability_closed, metavar="EPS",
                     help="instead of --lam: the best AUC with |D| <= EPS on these data "
                          "(two groups)")
    _engine_arguments(fit, method=True)
    fit.add_argument("--reference-group", help="group whose scores stay unchanged "
                     "(default: the highest mean score)")
    fit.add_argument("--subsample", type=int, help="learn on every k-th item of each group")
    fit.add_argument("--memory-limit", type=_memory_size, metavar="SIZE",
                     help="most memory the decision bits may take: bytes (1e9) or a size "
                          "with a unit (2GB, 512MiB); beyond, banded (same result)")
    fit.set_defaults(handler=_fit)

    transform = sub.add_parser(
        "transform", help="adjust the scores of a CSV file with a saved model",
        description=("Apply a model saved by `gpu-xorder fit` to the scores of a CSV "
                     "file and write the file with the adjusted scores added as a column. "
                     "With --label, also print AUC and disparities before and after."),
    )
    _file_arguments(transform, label_required=False, group_options=False)
    transform.add_argument("--model", required=True, help="model file from gpu-xorder fit")
    transform.add_argument("--output", required=True, help="CSV file to write")
    _column_argument(transform)
    transform.set_defaults(handler=_transform)

    audit = sub.add_parser(
        "audit", help="ranking fairness of the scores in a CSV file",
        description=("AUC and the ranking disparities of one or more score columns of a "
                     "CSV file: the maximum over pairs of groups, then the AUC within "
                     "every group, xAUC for every ordered pair of groups, PRF for every "
                     "group and URF for every pair."),
    )
    _file_arguments(audit, label_required=True, many_scores=True)
    audit.add_argument("--json", metavar="FILE",
                       help="also write every value as JSON (null where undefined)")
    audit.add_argument("--ci", type=_probability, metavar="LEVEL",
                       help="add confidence intervals at this level (e.g. 0.95) to the "
                            "tables and the JSON")
    audit.add_argument("--ci-method", choices=("bootstrap", "delong"),
                       help="stratified bootstrap, percentile intervals (default), or "
                            "DeLong's variances, normal intervals")
    audit.add_argument("--bootstrap", type=_positive, metavar="N",
                       help=f"bootstrap resamples (default: {AUDIT_BOOTSTRAP}); alone, "
                            f"implies --ci {AUDIT_LEVEL}")
    audit.add_argument("--seed", type=_nonnegative, default=0,
                       help="seed of the bootstrap (default: 0)")
    audit.add_argument("--jobs", type=int, metavar="N",
                       help="the resamples split among N worker processes (-1: one "
                            "per CPU core; default: 1, or every worker of --scheduler)")
    audit.add_argument("--scheduler", metavar="ADDRESS",
                       help="run the bootstrap on the Dask cluster at ADDRESS "
                            "(e.g. tcp://10.0.0.5:8786; needs gpu-xorder[dask])")
    audit.add_argument("--plot", metavar="DIR",
                       help="also write pictures (PNG) into DIR: xROC curves of every "
                            "pair of groups and the score distributions per group "
                            "(needs gpu-xorder[plot])")
    audit.set_defaults(handler=_audit)

    paper = sub.add_parser(
        "paper", help="the paper's experiments: repeated splits of the bundled data sets",
        description=(
            "The paper's protocol on the bundled data sets: for every repetition a "
            "stratified random split, features standardised with the training split's "
            "statistics, a logistic regression, and xOrder fitted on its training scores "
            "for every lam at once and transferred to the test scores. Prints test AUC "
            "and disparities as mean ± standard deviation over the repetitions, next to "
            "the figures the paper quotes. " + LAM_NOTE),
    )
    paper.add_argument("--data", nargs="+", choices=DATASET_CHOICES, metavar="NAME",
                       help="data sets among compas, adult, german, framingham (default: "
                            "the paper's for the grouping: all four; "
                            "with --groups age, adult and compas)")
    _experiment_arguments(paper, PAPER_LAMS, method=True, solver="paper")
    paper.add_argument("--repeats", type=_positive, default=10,
                       help="random splits (default: 10, as in the paper)")
    paper.add_argument("--subsample", type=_positive,
                       help="learn on every k-th item of each group (faster)")
    paper.add_argument("--jobs", type=int, metavar="N",
                       help="repetitions run at once in worker processes (-1: one per "
                            "CPU core; default: 1, or every worker of --scheduler; keep "
                            "1 with a GPU)")
    paper.add_argument("--scheduler", metavar="ADDRESS",
                       help="run the repetitions on the Dask cluster at ADDRESS "
                            "(e.g. tcp://10.0.0.5:8786; needs gpu-xorder[dask])")
    paper.add_argument("--json", metavar="FILE",
                       help="also write every repetition's values as JSON")
    paper.add_argument("--methods", nargs="+", choices=PAPER_METHODS, metavar="METHOD",
                       help="methods compared with the unadjusted scores, among "
                            f"{', '.join(PAPER_METHODS[1:])} (default: all; "
                            "'--methods xorder' alone with --model lr prints the "
                            "xOrder table of the paper's protocol)")
    paper.add_argument("--model", choices=PAPER_MODELS, default="lr",
                       help="base model: lr (scikit-learn logistic regression, default), "
                            "paper-linear (the paper's code: few plain gradient steps), "
                            "rankboost")
    paper.add_argument("--study", choices=PAPER_STUDIES,
                       help="robustness study of the post-processing methods (the "
                            "default --methods then): samples (learnt on a share "
                            "of the training scores) or shift (learnt on in-sample or "
                            "held-out scores of a model trained on half the training "
                            "split)")
    paper.add_argument("--post-logit-search", choices=("joint", "alpha"), default="joint",
                       help="post-logit's grid: joint (alpha and beta, default) or alpha "
                            "(beta = -2, the paper's public code)")
    paper.add_argument("--out", metavar="DIR",
                       help="write records.json (every record), summary.csv (mean and sd "
                            "over repetitions), timings.csv and PNG figures (with "
                            "matplotlib) into DIR")
    paper.set_defaults(handler=_paper)

    info = sub.add_parser("info", help="versions and GPU backend status")
    info.set_defaults(handler=_info)
    return parser


def _engine_arguments(parser, method, solver="auto"):
    """The disparity xOrder trades, the DP engine, the solver (default ``solver``) and
    (``method``) how more than two groups are merged: the same options wherever a
    command fits xOrder."""
    parser.add_argument("--metric", choices=METRIC_CHOICES, default="xauc",
                        help="disparity xOrder trades against AUC (default: xauc)")
    parser.add_argument("--solver", choices=SOLVERS, default=solver,
                        help=f"how the ordering is chosen for two groups (default: {solver}; "
                             "paper: the paper's cell rule; lagrangian: certified bound; "
                             "exact: the optimum, small data)")
    if method:
        parser.add_argument("--method", choices=METHOD_CHOICES, default="auto",
                            help="how more than two groups are merged (default: auto; "
                                 "best: K-D and iterative, the higher objective)")
    parser.add_argument("--backend", choices=BACKEND_CHOICES, default="auto",
                        help="DP engine (default: auto, CuPy when usable)")


def _experiment_arguments(parser, lams, method=False, solver="auto"):
    """Grouping, xOrder settings and split of the commands on bundled data."""
    parser.add_argument("--groups", choices=GROUPINGS, default="default",
                        help="default: the paper's attribute of the data set; age: three "
                             "age bands (age <= 25, 25 < age <= 40, age > 40), the paper's "
                             "multi-group setting; race-sex: the four intersections of "
                             "race and sex (adult, compas)")
    parser.add_argument("--lam", type=float, nargs="+", default=list(lams), metavar="LAM",
                        help="weights of the disparity, paper's scale (default: "
                             f"{' '.join(f'{x:g}' for x in lams)})")
    _engine_arguments(parser, method, solver)
    parser.add_argument("--seed", type=int, default=0,
                        help="split and model seed (default: 0; paper: repetition r "
                             "uses seed + r)")
    parser.add_argument("--test-size", type=_probability, default=0.3,
                        help="fraction held out for testing (default: 0.3)")


def _file_arguments(parser, label_required, many_scores=False, group_options=True):
    """The CSV file and its columns, as every file command takes them; with
    ``group_options``, how group labels are read and how many groups are allowed."""
    parser.add_argument("data", help="CSV file with a header row (UTF-8; may be gzip, "
                                     "bz2 or xz compressed)")
    parser.add_argument("--score", required=True, metavar="COLUMN",
                        nargs="+" if many_scores else None,
                        help="score columns to compare (e.g. before and after xOrder)"
                        if many_scores else "column of the risk scores")
    parser.add_argument("--label", required=label_required, metavar="COLUMN",
                        help="column of the 0/1 labels")
    parser.add_argument("--group", required=True, metavar="COLUMN", nargs="+",
                        help="column of the protected groups (spaces around a label are "
                        "ignored); several columns: their intersections, labelled 'a & b'")
    if group_options:
        parser.add_argument("--group-type", choices=LABEL_KINDS, default="text",
                            help="read group labels as text (default) or as numbers or "
                                 "booleans, the type a model keeps them in")
        parser.add_argument("--max-groups", type=_positive, default=MAX_GROUPS,
                            metavar="N", help="refuse more than N groups, which an ID-like "
                            f"column would give (default: {MAX_GROUPS})")


def _column_argument(parser):
    parser.add_argument("--column", default=DEFAULT_COLUMN,
                        help=f"name of the adjusted-score column (default: {DEFAULT_COLUMN})")


def main(argv=None) -> int:
    """Run the command line; return the exit status: 0, 2 for any error (one line on
    stderr; argparse errors give 2 as well), 130 after Ctrl-C."""
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("default")
            warnings.showwarning = _warning
            return args.handler(args)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the promise: one line, never a traceback
        return _error(MSG_INTERNAL.format(kind=type(exc).__name__, message=exc))


def _one_line(problem):
    """An exception or message as one line of text; an OSError as "path: reason"."""
    if isinstance(problem, OSError) and problem.strerror and problem.filename:
        text = f"{problem.filename}: {problem.strerror}"
    elif isinstance(problem, OSError) and problem.strerror:
        text = problem.strerror
    else:
        text = str(problem)
    return re.sub(r"\s*[\r\n]+\s*", " ", text).strip()


def _error(problem):
    err_console.print(f"[bold red]error:[/bold red] {escape(_one_line(problem))}",
                      soft_wrap=True, emoji=False)
    return 2


def _warning(message, category, filename, lineno, file=None, line=None):
    err_console.print(f"[yellow]warning:[/yellow] {escape(_one_line(message))}",
                      soft_wrap=True, emoji=False)


# ---------------------------------------------------------------------------- demo

def _demo(args):
    from gpu_xorder._experiment import grouping
    from gpu_xorder.datasets import load_dataset

    from gpu_xorder._validation import check_lam

    data = load_dataset(args.data)
    try:
        check_lam(args.lam)  # every value before the first fit
        groups = grouping(data, args.groups)
    except LIBRARY_ERRORS as exc:
        return _error(exc)
    group_label, names = _group_names(data, args.groups)

    try:
        rows, split = _run_demo(data, groups, args)
    except LIBRARY_ERRORS as exc:
        return _error(exc)

    n, p = data.X.shape
    console.print(
        f"[bold]{data.name}[/bold]: {n} rows, {p} features; label positives "
        f"{int(data.y.sum())}; groups by [bold]{escape(group_label)}[/bold]: "
        + ", ".join(f"{names.get(g, g)} {c}" for g, c in _counts(groups))
    )
    console.print(
        f"split {split['n_train']} train / {split['n_test']} test (seed {args.seed}); "
        f"logistic regression on standardised features; xOrder metric "
        f"[bold]{args.metric}[/bold], method {', '.join(split['methods'])}, solver "
        f"{', '.join(split['solvers'])}, backend "
        f"{args.backend}"
        + (f" ({', '.join(split['backends'])})" if split["backends"] else "")
    )
    console.print(_metrics_table("Test split", rows, "test", args.metric, timing=True))
    console.print(_metrics_table("Training split", rows, "train", args.metric))
    console.print(f"[dim]{escape(LAM_NOTE)}[/dim]")
    return 0


def _group_names(data, groups):
    """How the grouping is called and the readable names of its group codes."""
    if groups == "age":
        return "age bands", AGE_BAND_NAMES
    if groups == "race-sex":
        return "race & sex", RACE_SEX_NAMES
    return data.sensitive_name, GROUP_NAMES[data.name]


def _counts(groups):
    values, counts = np.unique(groups, return_counts=True)
    return [(int(g), int(c)) for g, c in zip(values, counts)]


def _run_demo(data, groups, args):
    """Split, fit the model, adjust for every lam; return table rows and split facts."""
    from gpu_xorder import XOrder
    from gpu_xorder._experiment import split_scores

    (s_tr, y_tr, a_tr), (s_te, y_te, a_te) = split_scores(
        data, groups, test_size=args.test_size, seed=args.seed)
    splits = {"train": (y_tr, a_tr), "test": (y_te, a_te)}
    used, methods, solvers = set(), [], []
    rows = [_row("unadjusted", {"train": s_tr, "test": s_te}, splits, None)]
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("cells"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
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
            rows.append(_row(f"{lam:g}", adjusted, splits, seconds))
    return rows, {"n_train": y_tr.size, "n_test": y_te.size, "backends": sorted(used),
                  "methods": list(dict.fromkeys(methods)),  # in order of first use
                  "solvers": list(dict.fromkeys(solvers))}


def _row(label, scores, splits, seconds):
    """Table row: AUC and disparities of ``scores[split]`` for every split; a disparity
    the split cannot define (a group without positives, say) is None."""
    from gpu_xorder import metrics
    from gpu_xorder._experiment import defined

    row = {"label": label, "seconds": seconds}
    for split, (y, a) in splits.items():
        row[split] = {"auc": metrics.auc(scores[split], y)}
        for metric, _ in METRIC_COLUMNS:
            row[split][metric] = defined(metrics.disparity, scores[split], y, a, metric)
    return row


def _metrics_table(title, rows, split, chosen, timing=False, first="lam"):
    table = Table(title=title, title_justify="left")
    table.add_column(first, justify="right")
    table.add_column("AUC", justify="right")
    for metric, header in METRIC_COLUMNS:
        style = "bold" if metric == chosen else None
        table.add_column(header, justify="right", header_style=style, style=style)
    if timing:
        table.add_column("fit s", justify="right")
    for row in rows:
        values = row[split]
        cells = [row["label"], f"{values['auc']:.4f}"]
        cells += ["n/a" if values[metric] is None else f"{values[metric]:.4f}"
                  for metric, _ in METRIC_COLUMNS]
        if timing:
            cells.append("" if row["seconds"] is None else f"{row['seconds']:.2f}")
        table.add_row(*cells)
    return table


# ---------------------------------------------------------------------------- fit

def _fit(args):
    from gpu_xorder import XOrder
    from gpu_xorder import xorder_path
    from gpu_xorder._backend import resolve_backend
    from gpu_xorder._io import Table as CsvTable
    from gpu_xorder._io import check_outputs, model_text, parse_label, write_files

    try:
        lams, chosen = _fit_lams(args)
        # every input and output checked before any work; nothing written until the end
        check_outputs((args.model,) + _given(args.output), inputs=(args.data,))
        data = CsvTable(args.data)
        scores, y = data.numbers(args.score), data.numbers(args.label)
        groups = _read_groups(data, args)
        reference = args.reference_group
        if reference is not None and len(args.group) == 1:
            reference = parse_label(reference, args.group_type)
        params = dict(metric=args.metric, disparity=args.disparity,
                      reference_group=reference, backend=args.backend,
                      method=args.method, subsample=args.subsample,
                      memory_limit=args.memory_limit, solver=args.solver)
        est = XOrder(lam=0.0 if args.max_disparity is not None else lams,
                     max_disparity=args.max_disparity, **params)
        est._check_params()
        _check_subsample(scores, y, groups, args)
        if resolve_backend(args.backend) == "numpy":
            _note_long_fit(_lattice_cells(groups, args) * len(lams), args)
        start = time.perf_counter()
        with _fit_progress() as progress:
            if args.max_disparity is None:
                models = xorder_path(scores, y, sensitive_features=groups, lams=lams,
                                     progress=progress, **params)
            else:
                models = [est.fit(scores, y, sensitive_features=groups,
                                  progress=progress)]
        seconds = time.perf_counter() - start
        est = models[chosen]
        model = model_text(est._model_document())
        files = [(args.model, lambda f: f.write(model), None)]
        if args.output is not None:
            files.append((args.output,
                          data.writer(args.column, est.train_scores_adjusted_), ""))
        write_files(files, inputs=(args.data,))
    except LIBRARY_ERRORS + FILE_ERRORS as exc:
        return _error(exc)
    r = est.result_
    console.print(
        f"[bold]{escape(args.data)}[/bold]: {scores.size} rows; groups by "
        f"[bold]{escape(_group_title(args.group))}[/bold]: "
        + ", ".join(f"{escape(str(g))} {c}"
                    for g, c in zip(*np.unique(groups, return_counts=True)))
        + f"; reference group {escape(str(est.reference_group_))}")
    if r.max_disparity is not None:
        setting = f"max |D| {r.max_disparity:g}"
    elif len(models) == 1:
        setting = f"lam {est.lam:g}"
    else:
        setting = f"lams {' '.join(f'{m.lam:g}' for m in models)}"
    solvers = ", ".join(dict.fromkeys(m.result_.solver for m in models))
    console.print(f"xOrder metric [bold]{args.metric}[/bold], {setting}, method "
                  f"{r.method}, solver {solvers}, backend {r.backend}, {seconds:.2f} s"
                  + (f", {r.extra['bands']} bands" if "bands" in r.extra else ""))
    for m in models:
        console.print(_certificate(m.result_) if len(models) == 1 else
                      f"lam {m.lam:g}: {_certificate(m.result_)}")
    rows = [_file_row("unadjusted", scores, y, groups, None)]
    for m in models:
        rows.append(_file_row(f"|D|<={r.max_disparity:g}" if r.max_disparity is not None
                              else f"{m.lam:g}", m.train_scores_adjusted_, y, groups,
                              seconds if len(models) == 1 else None))
    console.print(_metrics_table("Training data", rows, "data", args.metric, timing=True))
    console.print(f"model saved to {escape(args.model)}"
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


def _read_groups(data, args):
    """The groups of ``data`` as ``--group`` and ``--group-type`` say; more than
    ``--max-groups`` of them are refused."""
    groups = data.groups(args.group, args.group_type)
    n = np.unique(groups).size
    if n > args.max_groups:
        raise ValueError(MSG_MAX_GROUPS.format(path=args.data, n=n, limit=args.max_groups,
                                               columns=_group_title(args.group)))
    return groups


def _check_subsample(scores, y, groups, args):
    """Refuse a --subsample that leaves a group without what the metric needs (before
    the fit, which would only say that the subsample lacks positives or negatives)."""
    from gpu_xorder import _validation as v
    from gpu_xorder._estimator import subsample_with_supports

    if args.subsample is None or args.subsample == 1:
        return
    y = v.check_labels(y, scores.size)
    labels, index = v.encode_groups(groups, scores.size)
    subsample_with_supports(scores, y, labels, index, args.subsample, args.metric,
                            option="--subsample ", items="rows")


def _lattice_cells(groups, args):
    """Lattice cells the fit will fill (the method ``auto`` picks, as ``fair_order``)."""
    import cpu_reference
    from gpu_xorder._plan import KD_MAX_CELLS

    step = args.subsample or 1
    sizes = [-(-int(c) // step) for c in np.unique(groups, return_counts=True)[1]]
    kd = cpu_reference.kd_cells(sizes)
    if len(sizes) == 2:  # the cell rule, and the fills of the solver's search
        from gpu_xorder import _solvers
        from gpu_xorder._plan import choose_solver

        lams = args.lam if isinstance(args.lam, (list, tuple)) else [args.lam]
        lams = [x for x in lams if x is not None] or [0.5]
        if getattr(args, "max_disparity", None) is not None:
            lams = [1.0]
        solver = choose_solver(args.solver, args.disparity, lams, kd, "numpy")
        return kd * sum(_solvers.expected_fills(solver, lam, max(sizes)) for lam in lams)
    iterative = cpu_reference.iterative_cells(sizes)
    method = args.method
    if method == "auto":
        method = "kd" if kd <= KD_MAX_CELLS else "iterative"
    return {"kd": kd, "iterative": iterative, "best": kd + iterative}[method]


def _note_long_fit(cells, args):
    """Before a fit that takes long on the CPU: an estimate, and a ``--subsample`` that
    would take about ten seconds."""
    seconds = cells * CPU_SECONDS_PER_CELL
    if seconds < LONG_FIT_SECONDS:
        return
    k = (args.subsample or 1) * max(2, math.ceil(math.sqrt(seconds / 10.0)))
    err_console.print(
        "[yellow]note:[/yellow] " + escape(MSG_LONG_FIT.format(
            cells=float(cells), time=_duration(seconds), ns=CPU_SECONDS_PER_CELL * 1e9,
            k=k, time_k=_duration(seconds * ((args.subsample or 1) / k) ** 2))),
        soft_wrap=True, emoji=False)


@contextlib.contextmanager
def _fit_progress():
    """A progress callback for ``XOrder.fit``: on a terminal, a bar with the time left."""
    with Progress(TextColumn("xOrder"), BarColumn(), TaskProgressColumn(),
                  TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                  console=console, transient=True,
                  disable=not console.is_terminal) as progress:
        task = progress.add_task("fit", total=None)
        yield lambda done, total: progress.update(task, completed=done, total=total)


def _duration(seconds):
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _group_title(columns):
    """How groups read from ``columns`` are called: ``race`` or ``race & sex``."""
    return INTERSECTION_SEP.join(columns)


def _given(path):
    return () if path is None else (path,)


def _transform(args):
    from gpu_xorder import XOrder
    from gpu_xorder._io import Table as CsvTable
    from gpu_xorder._io import check_outputs, label_kind, write_files

    inputs = (args.data, args.model)
    try:
        check_outputs((args.output,), inputs=inputs)
        est = XOrder.load(args.model)
        data = CsvTable(args.data)
        scores = data.numbers(args.score)
        # the model's labels keep their type (integer groups of a Python fit, say);
        # intersections are labelled by text
        kind = label_kind(est.groups_) if len(args.group) == 1 else "text"
        groups = data.groups(args.group, kind)
        y = None if args.label is None else data.numbers(args.label)
        adjusted = est.transform(scores, sensitive_features=groups)
        rows = None
        constrained = est.max_disparity is not None
        setting = f"|D|<={est.max_disparity:g}" if constrained else f"{est.lam:g}"
        described = f"max |D| {est.max_disparity:g}" if constrained else f"lam {est.lam:g}"
        if y is not None:
            rows = [_file_row("unadjusted", scores, y, groups, None),
                    _file_row(setting, adjusted, y, groups, None)]
        write_files([(args.output, data.writer(args.column, adjusted), "")], inputs=inputs)
    except LIBRARY_ERRORS + FILE_ERRORS as exc:
        return _error(exc)
    console.print(f"[bold]{escape(args.data)}[/bold]: {scores.size} rows adjusted by "
                  f"{escape(args.model)} (metric {est.metric}, {described}, reference "
                  f"group {escape(str(est.reference_group_))})")
    if rows is not None:
        console.print(_metrics_table("Data", rows, "data", est.metric))
    console.print(f"written to {escape(args.output)} (column {escape(args.column)})")
    return 0


def _file_row(label, scores, y, groups, seconds):
    """A table row of the one split ``"data"``."""
    return _row(label, {"data": scores}, {"data": (y, groups)}, seconds)


# ---------------------------------------------------------------------------- audit

def _audit(args):
    from gpu_xorder import metrics
    from gpu_xorder._experiment import defined
    from gpu_xorder._io import Table as CsvTable
    from gpu_xorder._io import check_folder, check_outputs, staged_folder, write_json

    implied = args.bootstrap is not None or args.ci_method is not None
    level = args.ci if args.ci is not None else AUDIT_LEVEL if implied else None
    try:
        check_outputs(_given(args.json), inputs=(args.data,))
        if args.plot is not None:
            _require_matplotlib()
            check_folder(args.plot)
        data = CsvTable(args.data)
        groups, y = _read_groups(data, args), data.numbers(args.label)
        columns = {name: data.numbers(name) for name in args.score}
        rows = [_file_row(name, s, y, groups, None) for name, s in columns.items()]
        labels = np.unique(groups)
        keys = [g.item() for g in labels]
        pairs = [(g, h) for g in keys for h in keys if g != h]
        # (title, meaning, row names, values of a score column, JSON key, its intervals)
        tables = [
            ("AUC within g", "P(a positive of g ranks above a negative of g)",
             [str(g) for g in keys],
             lambda s: [defined(metrics.xauc, s, y, groups, g, g) for g in keys],
             "auc_within", lambda ci: [ci.auc_within[g] for g in keys]),
            ("xAUC(g, h)", "P(a positive of g ranks above a negative of h)",
             [f"{g} > {h}" for g, h in pairs],
             lambda s: [defined(metrics.xauc, s, y, groups, g, h) for g, h in pairs],
             "xauc", lambda ci: [ci.xauc[g, h] for g, h in pairs]),
            ("PRF(g)", "P(a positive of g ranks above a negative of any group)",
             [str(g) for g in keys],
             lambda s: [defined(metrics.prf, s, y, groups, g) for g in keys], "prf",
             lambda ci: [ci.prf[g] for g in keys]),
            ("URF(g, h)", "|P(an item of g ranks above one of h) - P(the reverse)|",
             [f"{g} ~ {h}" for g, h in pairs if g < h],
             lambda s: [defined(metrics.urf, s, groups, g, h) for g, h in pairs if g < h],
             "urf", lambda ci: [ci.urf[g, h] for g, h in pairs if g < h]),
        ]
        values = [[table[3](s) for s in columns.values()] for table in tables]
        intervals = None
        if level is not None:
            with _dask_backend(args.scheduler):
                intervals = [metrics.confidence_intervals(
                    s, y, groups, level=level, method=args.ci_method or "bootstrap",
                    n_bootstrap=args.bootstrap or AUDIT_BOOTSTRAP, random_state=args.seed,
                    n_jobs=args.jobs) for s in columns.values()]
        gaps = [_ranking_gap(s, y, groups, None if intervals is None else intervals[c])
                for c, s in enumerate(columns.values())]
        pictures = []
        with contextlib.ExitStack() as stack:  # pictures and JSON: all or nothing
            if args.plot is not None:
                pictures = _audit_plots(stack.enter_context(staged_folder(args.plot)),
                                        columns, y, groups)
            if args.json is not None:
                write_json(args.json, _audit_document(
                    args, groups, y, columns, rows, tables, values, intervals, gaps),
                    inputs=(args.data,))
    except LIBRARY_ERRORS + FILE_ERRORS as exc:
        return _error(exc)
    counts = ", ".join(f"{escape(str(g))} {int((groups == g).sum())} "
                       f"({int(y[groups == g].sum())} positive)" for g in labels)
    console.print(f"[bold]{escape(args.data)}[/bold]: {y.size} rows; groups by "
                  f"[bold]{escape(_group_title(args.group))}[/bold]: {counts}")
    console.print(_audit_summary(rows, intervals))
    if intervals is not None:
        console.print(f"[dim]{escape(_interval_note(intervals[0], args))}[/dim]")
    for name, gap in zip(columns, gaps):
        if gap is not None:
            console.print(f"[bold]{escape(name)}[/bold]: {escape(gap['text'])}")
    for (title, meaning, names, _, _, interval_of), per_column in zip(tables, values):
        console.print(f"[dim]{escape(title)}: {escape(meaning)}[/dim]")
        table = Table(title=title, title_justify="left")
        table.add_column("groups")
        for name in columns:
            table.add_column(escape(name), justify="right")
        limits = ([[None] * len(names)] * len(columns) if intervals is None
                  else [interval_of(ci) for ci in intervals])
        for r, name in enumerate(names):
            table.add_row(escape(name), *[
                _interval_cell(col[r], limits[c][r], intervals is not None)
                for c, col in enumerate(per_column)])
        console.print(table)
    if args.plot is not None:
        console.print(f"{len(pictures)} pictures written to {escape(args.plot)}")
    return 0


def _interval_cell(value, interval, wanted):
    """``0.7153``, ``0.7153 [0.6920, 0.7390]`` with an interval, ``n/a`` where undefined."""
    if value is None:
        return "n/a"
    if not wanted:
        return f"{value:.4f}"
    if interval is None:
        return f"{value:.4f} [n/a]"
    return f"{value:.4f} [{interval.low:.4f}, {interval.high:.4f}]"


def _audit_summary(rows, intervals):
    title = "Summary (disparities: maximum over pairs of groups)"
    if intervals is None:
        return _metrics_table(title, rows, "data", None, first="scores")
    table = Table(title=title, title_justify="left")
    table.add_column("scores", justify="right")
    for header in ("AUC",) + tuple(header for _, header in METRIC_COLUMNS):
        table.add_column(header, justify="right")
    for row, ci in zip(rows, intervals):
        values = row["data"]
        table.add_row(escape(row["label"]), _interval_cell(values["auc"], ci.auc, True),
                      *[_interval_cell(values[m], ci.disparity[m], True)
                        for m, _ in METRIC_COLUMNS])
    return table


def _interval_note(ci, args):
    how = (f"stratified bootstrap (group x label), {ci.n_bootstrap} resamples, seed "
           f"{args.seed}, percentile" if ci.method == "bootstrap"
           else "DeLong variances, normal")
    return (f"[low, high]: {ci.level:.0%} confidence intervals, {how}; a disparity's from "
            "the interval of its signed difference, the maximum over pairs from the pairs' "
            "intervals at the Bonferroni level; n/a: not estimable")


def _ranking_gap(scores, y, groups, ci):
    """The pair of groups with the largest Delta-xAUC in words: whose positives are
    ranked below the other's negatives more often than the reverse (with ``ci``, and
    the interval of the pair's Delta-xAUC). None where xAUC is undefined."""
    from gpu_xorder import metrics
    from gpu_xorder._experiment import defined

    gaps = defined(metrics.disparity_pairs, scores, y, groups, "xauc")
    if gaps is None:
        return None
    a, b = max(gaps, key=gaps.get)  # the first of the largest, in sorted label order
    x_ab, x_ba = metrics.xauc(scores, y, groups, a, b), metrics.xauc(scores, y, groups, b, a)
    low, high = (a, b) if x_ab <= x_ba else (b, a)
    x_low, x_high = min(x_ab, x_ba), max(x_ab, x_ba)
    if x_low == x_high:
        text = (f"xAUC({a}, {b}) = xAUC({b}, {a}) = {x_low:.3f}: no group's positives are "
                "ranked below the other's negatives more often than the reverse")
        low = high = None
    else:
        text = (f"positives of group '{low}' are ranked below negatives of '{high}' more "
                f"often than the reverse: xAUC({low}, {high}) = {x_low:.3f} < "
                f"xAUC({high}, {low}) = {x_high:.3f}")
    interval = None if ci is None else ci.disparity_pairs["xauc"][a, b]
    if interval is not None:
        text += (f"; {ci.level:.0%} interval of their Delta-xAUC: [{interval.low:.3f}, "
                 f"{interval.high:.3f}]" + (", which holds 0" if interval.low == 0 else ""))
    return {"group": None if low is None else str(low),
            "other": None if high is None else str(high),
            "xauc": x_low, "reverse": x_high, "text": text}


def _require_matplotlib():
    """--plot is refused before any work where matplotlib is missing."""
    from gpu_xorder._plots import _matplotlib

    try:
        _matplotlib()
    except ImportError as exc:
        raise ValueError(f"--plot: {exc}") from None


def _audit_plots(folder, columns, y, groups):
    """Write the audit's pictures into ``folder``: per score column the score
    distributions per group and the xROC curves of every pair of groups (both
    directions). Returns the file names."""
    import itertools
    import os

    from matplotlib.figure import Figure

    from gpu_xorder import metrics
    from gpu_xorder._experiment import defined
    from gpu_xorder._plots import plot_score_distributions, plot_xroc

    keys = [g.item() for g in np.unique(groups)]
    written = []

    def save(fig, *parts):
        stem = "_".join(re.sub(r"[^A-Za-z0-9.-]+", "-", str(p)).strip("-") or "x"
                        for p in parts)
        name, n = f"{stem}.png", 1
        while name in written:  # labels that differ only in other characters
            n += 1
            name = f"{stem}-{n}.png"
        fig.savefig(os.path.join(folder, name), dpi=100)
        written.append(name)

    for column, s in columns.items():
        fig = Figure(figsize=(6, 4.5), layout="constrained")
        ax = plot_score_distributions(s, groups, y, ax=fig.add_subplot())
        ax.set_title(f"{column}: scores by group")
        save(fig, "scores", column)
        for a, b in itertools.combinations(keys, 2):
            pairs = [(g, h) for g, h in ((a, b), (b, a))
                     if defined(metrics.xauc, s, y, groups, g, h) is not None]
            if pairs:
                fig = Figure(figsize=(5.5, 5), layout="constrained")
                ax = plot_xroc(s, y, groups, pairs=pairs, ax=fig.add_subplot())
                ax.set_title(f"{column}: xROC curves of {a} and {b}")
                save(fig, "xroc", column, a, b)
    return written


@contextlib.contextmanager
def _dask_backend(address):
    """Run the block under joblib's Dask backend on the cluster whose scheduler is at
    ``address`` (None: as it is)."""
    if address is None:
        yield
        return
    try:
        import joblib
        from distributed import Client
    except ImportError:
        raise ValueError(MSG_NO_DASK) from None
    try:
        client = Client(address, timeout=SCHEDULER_TIMEOUT)
    except (OSError, ValueError) as exc:  # TimeoutError is an OSError
        raise ValueError(MSG_SCHEDULER.format(address=address, why=_one_line(exc))) \
            from None
    with client, joblib.parallel_backend("dask"):
        yield


def _audit_document(args, groups, y, columns, rows, tables, values, intervals, gaps):
    """The audit as JSON: per group its size and positives, per score column its AUC,
    the maxima over pairs and every per-pair (per-group) value, keyed as printed; the
    pair with the largest xAUC gap in words; with intervals, their settings and per
    score column every value's ``[low, high]``."""
    labels = np.unique(groups)
    doc = {"data": args.data, "label": args.label, "group": _group_title(args.group),
           "groups": {str(g): {"n": int((groups == g).sum()),
                               "positives": int(y[groups == g].sum())} for g in labels},
           "scores": {}}
    if intervals is not None:
        ci = intervals[0]
        doc["ci"] = {"level": ci.level, "method": ci.method,
                     "n_bootstrap": ci.n_bootstrap,
                     "seed": args.seed if ci.method == "bootstrap" else None}
    for c, (name, row) in enumerate(zip(columns, rows)):
        entry = {"auc": row["data"]["auc"],
                 "disparity": {m: row["data"][m] for m, _ in METRIC_COLUMNS},
                 "disadvantaged": gaps[c]}
        for table, per_column in zip(tables, values):
            entry[table[4]] = dict(zip(table[2], per_column[c]))
        if intervals is not None:
            ci = intervals[c]
            entry["ci"] = {"auc": _limits(ci.auc),
                           "disparity": {m: _limits(ci.disparity[m])
                                         for m, _ in METRIC_COLUMNS}}
            for table in tables:
                entry["ci"][table[4]] = dict(zip(table[2], map(_limits, table[5](ci))))
        doc["scores"][name] = entry
    return doc


def _limits(interval):
    return None if interval is None else [interval.low, interval.high]


# ---------------------------------------------------------------------------- paper

def _paper(args):
    from gpu_xorder._experiment import PAPER_DATA
    from gpu_xorder._io import check_outputs, write_json

    names = args.data or PAPER_DATA[args.groups]
    if (args.methods is None or set(args.methods) - {"unadjusted", "xorder"}
            or args.model != "lr" or args.study is not None or args.out is not None):
        return _paper_comparison(names, args)
    try:
        check_outputs(_given(args.json))  # before the work
        with _dask_backend(args.scheduler):
            experiments = [_paper_experiment(name, args) for name in names]
        if args.json is not None:
            write_json(args.json, {"experiments": [e.to_dict() for e in experiments]})
    except LIBRARY_ERRORS + FILE_ERRORS as exc:
        return _error(exc)
    if args.json is not None:
        console.print(f"written to {escape(args.json)}")
    console.print(f"[dim]{escape(LAM_NOTE)}[/dim]")
    return 0


def _paper_experiment(name, args):
    """One data set's experiment, printed; its repetitions run in ``--jobs`` workers
    of joblib's active backend (no --jobs: one, or every worker of --scheduler's
    cluster)."""
    from gpu_xorder._experiment import paper_experiment

    with _repetitions_progress(name, args.repeats) as report:
        exp = paper_experiment(
            name, groups=args.groups, metric=args.metric, lams=args.lam,
            repeats=args.repeats, test_size=args.test_size, seed=args.seed,
            backend=args.backend, method=args.method, solver=args.solver,
            subsample=args.subsample, n_jobs=args.jobs, progress=report)
    _print_experiment(exp)
    return exp


@contextlib.contextmanager
def _repetitions_progress(name, repeats):
    """A progress bar of one data set's repetitions (on a terminal); yields the
    ``progress(done, total)`` callback the experiments take."""
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
        TextColumn("repetitions"), TimeElapsedColumn(), console=console,
        transient=True, disable=not console.is_terminal,
    ) as progress:
        task = progress.add_task(name, total=repeats)
        yield lambda done, total: progress.update(task, completed=done)


def _paper_comparison(names, args):
    """``paper`` with baselines, another base model, a study or --out: every method's
    table per data set; --json and --out written at the end, all or nothing."""
    from gpu_xorder._io import check_folder, check_outputs, staged_folder, write_json
    from gpu_xorder._studies import POST_PROCESSING, compare_methods

    methods = args.methods or (POST_PROCESSING if args.study else PAPER_METHODS)
    figures = args.out is not None
    try:
        check_outputs(_given(args.json))
        if args.out is not None:
            check_folder(args.out)
            try:
                _require_matplotlib()
            except ValueError as exc:
                figures = False
                _warning(f"{exc}; writing the tables only", UserWarning, "", 0)
        comparisons = []
        with _dask_backend(args.scheduler):
            for name in names:
                with _repetitions_progress(name, args.repeats) as report:
                    comparison = compare_methods(
                        name, methods=methods, model=args.model, groups=args.groups,
                        metric=args.metric, lams=args.lam, study=args.study,
                        repeats=args.repeats, test_size=args.test_size, seed=args.seed,
                        backend=args.backend, method=args.method, solver=args.solver,
                        subsample=args.subsample,
                        post_logit_search=args.post_logit_search,
                        n_jobs=args.jobs, progress=report)
                comparisons.append(comparison)
                _print_comparison(comparison)
        document = {"experiments": [c.to_dict() for c in comparisons]}
        with contextlib.ExitStack() as stack:  # all outputs or none
            if args.out is not None:
                _paper_outputs(stack.enter_context(staged_folder(args.out)), comparisons,
                               document, figures)
            if args.json is not None:
                write_json(args.json, document)
    except LIBRARY_ERRORS + FILE_ERRORS as exc:
        return _error(exc)
    for path in _given(args.json) + _given(args.out):
        console.print(f"written to {escape(path)}")
    console.print(f"[dim]{escape(LAM_NOTE)}[/dim]")
    return 0


def _paper_outputs(folder, comparisons, document, figures):
    """records.json, summary.csv, timings.csv and (``figures``) the PNGs in ``folder``."""
    import os

    from gpu_xorder._io import model_text

    with open(os.path.join(folder, "records.json"), "w", encoding="utf-8") as f:
        f.write(model_text(document))
    with open(os.path.join(folder, "summary.csv"), "w", encoding="utf-8") as f:
        for k, comparison in enumerate(comparisons):
            text = comparison.csv_text()
            f.write(text if k == 0 else text.split("\n", 1)[1])
    with open(os.path.join(folder, "timings.csv"), "w", encoding="utf-8") as f:
        f.write("data,groups,model,method,repeat,seconds\n")
        for c in comparisons:
            for method, seconds in c.seconds.items():
                f.writelines(f"{c.data},{c.groups},{c.model},{method},{r},{s!r}\n"
                             for r, s in enumerate(seconds))
    if figures:
        from gpu_xorder._paper_plots import write_figures

        for comparison in comparisons:
            write_figures(comparison, folder)


def _test_split_table(data, repeats, metric, leading):
    """The empty table of test-split means ± sd: the ``leading`` columns (method names
    left-aligned), AUC, every disparity (``metric`` in bold)."""
    table = Table(title=f"{data}, test split: mean ± sd over {_repetitions(repeats)}",
                  title_justify="left")
    for name in leading:
        table.add_column(name, justify="left" if name == "method" else "right")
    table.add_column("AUC", justify="right")
    for key, header in METRIC_COLUMNS:
        style = "bold" if key == metric else None
        table.add_column(header, justify="right", header_style=style, style=style)
    return table


def _print_comparison(comparison):
    """Test AUC and disparities, mean ± sd, of every method and parameter."""
    from gpu_xorder._studies import PARAMETER_NAMES

    seconds = ", ".join(f"{m} {np.mean(s):.2f} s" for m, s in comparison.seconds.items())
    study = "" if comparison.study is None else f"; {comparison.study} study"
    console.print(f"[bold]{comparison.data}[/bold] (groups {comparison.groups}): "
                  f"{_repetitions(comparison.repeats)}, base model "
                  f"[bold]{comparison.model}[/bold], methods trade "
                  f"[bold]{comparison.metric}[/bold]{study}; per repetition: {seconds}")
    leading = ["method"] + (["setting"] if comparison.study is not None else []) + [
        "parameter"]
    table = _test_split_table(comparison.data, comparison.repeats, comparison.metric,
                              leading)
    for row in comparison.summary("test"):
        parameter = ("" if row["parameter"] is None else
                     f"{PARAMETER_NAMES[row['method']]} {row['parameter']:g}")
        setting = [] if comparison.study is None else [str(row["setting"])]
        table.add_row(row["method"], *setting, parameter,
                      *[_mean_sd(row[key]) for key in
                        ("auc",) + tuple(m for m, _ in METRIC_COLUMNS)])
    console.print(table)


def _print_experiment(exp):
    from gpu_xorder._experiment import grouping
    from gpu_xorder.datasets import load_dataset

    data = load_dataset(exp.data)
    group_label, names = _group_names(data, exp.groups)
    counts = ", ".join(f"{names.get(g, g)} {c}"
                       for g, c in _counts(grouping(data, exp.groups)))
    console.print(f"[bold]{exp.data}[/bold]: groups by [bold]{escape(group_label)}"
                  f"[/bold] ({counts}); {_repetitions(exp.repeats)} of a stratified "
                  f"{1 - exp.test_size:.0%}/{exp.test_size:.0%} split, "
                  f"logistic regression on "
                  f"standardised features; xOrder metric [bold]{exp.metric}[/bold], "
                  f"method {', '.join(exp.methods)}, backend {', '.join(exp.backends)}, "
                  f"{np.mean(exp.fit_seconds):.2f} s per repetition for all lams")
    table = _test_split_table(exp.data, exp.repeats, exp.metric, ["lam"])
    for row in exp.summary("test"):
        label = "unadjusted" if row["lam"] is None else f"{row['lam']:g}"
        table.add_row(label, *[_mean_sd(row[key]) for key in
                               ("auc",) + tuple(m for m, _ in METRIC_COLUMNS)])
    console.print(table)
    figures = exp.paper_figures()
    if figures:
        title = f"{exp.data}: figures quoted by the paper (unadjusted, test)"
        quoted = Table(title=title, title_justify="left", min_width=len(title))
        for header in ("quantity", "paper", "measured"):
            quoted.add_column(header, justify="left" if header == "quantity" else "right")
        for fig, measured in figures:
            quantity = fig.quantity if "xAUC" in fig.quantity else f"Delta-{fig.quantity.upper()}"
            quoted.add_row(quantity, f"{fig.value:.3f}", _mean_sd(measured))
        console.print(quoted)


def _repetitions(n):
    return f"{n} repetition" + ("" if n == 1 else "s")


def _mean_sd(pair):
    mean, sd = pair
    if np.isnan(mean):
        return "n/a"
    return f"{mean:.3f}" if np.isnan(sd) else f"{mean:.3f} ± {sd:.3f}"


# ---------------------------------------------------------------------------- info

def _info(args):
    import sklearn

    versions = Table(title="Versions", title_justify="left")
    versions.add_column("package")
    versions.add_column("version")
    for name, version in (
        ("gpu_xorder", _own_version()),
        ("numpy", np.__version__),
        ("scikit-learn", sklearn.__version__),
        ("Python", platform.python_version()),
    ):
        versions.add_row(name, version)
    console.print(versions)

    try:
        from gpu_xorder._backend import backend_info
    except ImportError as exc:
        console.print(f"[yellow]backend status not available:[/yellow] {escape(str(exc))}")
        return 0
    backend = Table(title="Backend", title_justify="left")
    backend.add_column("key")
    backend.add_column("value")
    for key, value in backend_info().items():
        backend.add_row(escape(str(key)), escape(_format_value(key, value)))
    console.print(backend)
    return 0


def _own_version():
    try:
        from importlib.metadata import PackageNotFoundError
        from importlib.metadata import version

        return version("gpu-xorder")
    except PackageNotFoundError:
        import gpu_xorder

        return getattr(gpu_xorder, "__version__", "unknown (not installed)")


def _format_value(key, value):
    if isinstance(value, int) and not isinstance(value, bool) and str(key).endswith("bytes"):
        return f"{value} ({value / 2**30:.1f} GiB)"
    if isinstance(value, (tuple, list)):
        return ".".join(str(v) for v in value) if "capability" in str(key) else str(value)
    return str(value)
