"""The command line's parser: its commands, their options and the option types."""

import argparse
import math
import re

from ..datasets._loaders import DATASETS
from ..experiments._experiment import DEFAULT_LAMS as PAPER_LAMS
from ..experiments._experiment import GROUPINGS
from ..experiments._studies import EXTRA_DATA as PAPER_EXTRA_DATA
from ..experiments._studies import METHODS as PAPER_METHODS
from ..experiments._studies import STUDIES as PAPER_STUDIES
from ..experiments.models import MODELS as PAPER_MODELS
from ..io import LABEL_KINDS
from ..utils._params import PARAMETERS, check, choices
from ..utils._text import visible
from ..utils._validation import DEFAULT_DELTA, parse_memory_size
from ._common import (
    AUDIT_BOOTSTRAP,
    AUDIT_LEVEL,
    DEFAULT_COLUMN,
    LAM_NOTE,
    MAX_GROUPS,
    MAX_SEED,
    PLOT_PAIRS,
    BundledName,
    ReadPath,
    WritePath,
)
from ._info import own_version

DEFAULT_LAMS = (0.0, 0.01, 0.05, 0.5)


#: The numbers an option takes: ASCII decimal notation (``float`` and ``int`` also read
#: ``1_0`` as 10 and other scripts' digits, which a command line should not), and for
#: reals also ``inf`` and ``nan`` (which the options' checks then refuse or take).
_REAL = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                   r"|inf(?:inity)?|nan)", re.IGNORECASE)
_INTEGER = re.compile(r"[+-]?[0-9]+")


def _strict(pattern, convert):
    """``convert`` of text written in ``pattern`` (surrounding blanks allowed, as
    ``float`` allows them), ``ValueError`` otherwise; a real ``-0`` read as 0."""

    def read(text):
        if not pattern.fullmatch(text.strip()):
            raise ValueError(text)
        return convert(text) + 0  # -0.0 + 0 is 0.0

    return read


_real = _strict(_REAL, float)
_integer = _strict(_INTEGER, int)


def _float(text):
    """An option's real number (``--lam``, ``--choose``, ``--fractions``)."""
    return _number(text, _real, lambda x: True, "a number")


def _number(text, convert, condition, what):
    """``convert(text)`` where it meets ``condition``; otherwise argparse's error in
    the user's words (``must be what, got text``), never the converter's name."""
    try:
        value = convert(text)
    except ValueError:
        value = None
    if value is None or not condition(value):
        raise argparse.ArgumentTypeError(f"must be {what}, got {text}")
    return value


def _probability(text):
    return _number(text, _real, lambda x: 0.0 < x < 1.0,
                   "a number strictly between 0 and 1")


def _finite(text):
    return _number(text, _real, math.isfinite, "a finite number")


def _checked(name):
    """An option type of a number that parameter ``name`` of the table
    (``utils._params``: the check the API and model files use) accepts; the table's
    words where it does not."""

    def convert(text):
        try:
            return check(name, _real(text))
        except (TypeError, ValueError):
            raise argparse.ArgumentTypeError(
                f"must be {PARAMETERS[name].text}, got {text}") from None

    return convert


def _decision(text):
    """--decision: words to show, not blank (``metrics._findings.check_decision``,
    imported when given: --help loads no metrics)."""
    from ..metrics._findings import check_decision

    try:
        return check_decision(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must name what a high score leads to ('detention', 'a loan'), got {text!r}"
        ) from None


def _share(text):
    return _number(text, _real, lambda x: 0.0 < x <= 1.0, "a number in (0, 1]")


def _report_arguments(audit):
    """audit's decision at a cut-off, HTML report and model file."""
    cut = audit.add_mutually_exclusive_group()
    cut.add_argument("--threshold", type=_finite, metavar="T",
                     help="the decision the scores feed: select every item scoring >= T; "
                          "prints per group the selection rate, TPR, FPR and precision "
                          "with intervals, their differences and ratios")
    cut.add_argument("--top-k", type=_positive, metavar="K",
                     help="the decision: select the K highest scores (items tied at the "
                          "K-th share the places left)")
    cut.add_argument("--top-share", type=_share, metavar="Q",
                     help="the decision: select the share Q of the items, in (0, 1]")
    audit.add_argument("--report", metavar="FILE", type=WritePath,
                       help="also write the audit as one self-contained HTML page "
                            "(pictures inline, prints well; needs gpu-xorder[report]): "
                            "the findings first, data, every metric with its interval, "
                            "pictures, the decisions at the cut-off (default: as many "
                            "selected as there are positives), provenance; needs "
                            "--high-score")
    audit.add_argument("--model", metavar="FILE", type=ReadPath,
                       help="with --report: a model file (gpu-xorder fit --model) whose "
                            "scores before and after, trade-off along lam and "
                            "certificate the report shows")


def _probability_closed(text):
    return _number(text, _real, lambda x: 0.0 <= x <= 1.0, "a number from 0 to 1")


def _nonnegative(text):
    return _number(text, _integer, lambda x: x >= 0, "an integer >= 0")


def _positive(text):
    return _number(text, _integer, lambda x: x >= 1, "an integer >= 1")


def _seed(text):
    return _number(text, _integer, lambda x: 0 <= x <= MAX_SEED,
                   f"an integer from 0 to {MAX_SEED} (the seeds scikit-learn's split "
                   "takes)")


def _jobs(text):
    return _number(text, _integer, lambda x: x != 0,
                   "a nonzero integer (-1: one per CPU core)")


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
        print(f"{parser.prog} {own_version()}")
        parser.exit()


class _Parser(argparse.ArgumentParser):
    """argparse's parser whose error line shows the characters of a value that act
    rather than show written out (``utils._text.visible``): a value with a newline
    made a second error line, an escape sequence drove the terminal. Its subcommands'
    parsers are of this class too (``add_subparsers`` makes them of the parser's)."""

    def error(self, message):
        super().error(visible(message))


def build_parser():
    parser = _Parser(
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
    demo.add_argument("--data", choices=DATASETS, default=BundledName("compas"),
                      type=BundledName,
                      help="bundled data set (default: compas)")
    _experiment_arguments(demo, DEFAULT_LAMS, method=True)
    _format_argument(demo)
    demo.set_defaults(handler="demo")

    fit = sub.add_parser(
        "fit", help="learn xOrder from a CSV file of scores, labels and groups",
        description=(
            "Learn the fair interleaving of the groups' rankings from a CSV file (one row "
            "per item), save the model as JSON for `gpu-xorder transform`, and print AUC "
            "and disparities of the scores before and after. " + LAM_NOTE),
    )
    _file_arguments(fit, label_required=True)
    fit.add_argument("--model", type=WritePath,
                     help="where to save the model (JSON; required, except with --plan)")
    fit.add_argument("--plan", action="store_true",
                     help="print what the fit would run (engine, route, solvers, lattice "
                          "cells, memory, estimated seconds) and stop: nothing is fitted "
                          "or written")
    fit.add_argument("--output", type=WritePath,
                     help="also write the data with the adjusted training scores added "
                          "as a column (CSV)")
    _column_argument(fit)
    fit.add_argument("--lam", type=_float, nargs="+", metavar="LAM",
                     help="weight of the disparity, paper's scale (default: 0.5); several "
                          "values fit the trade-off path, one row each, and save the "
                          "model of --choose")
    fit.add_argument("--choose", type=_float, metavar="LAM",
                     help="with several --lam values: the one whose model is saved "
                          "(default: the last)")
    fit.add_argument("--disparity", choices=choices("disparity"), default="absolute",
                     help="penalise |D| or the signed D (two groups; default: absolute)")
    fit.add_argument("--max-disparity", type=_probability_closed, metavar="EPS",
                     help="instead of --lam: the best AUC with |D| <= EPS on these data "
                          "(two groups)")
    _engine_arguments(fit, method=True)
    fit.add_argument("--reference-group", help="group whose scores stay unchanged "
                     "(default: the highest mean score)")
    fit.add_argument("--subsample", type=_positive,
                     help="learn on every k-th item of each group")
    fit.add_argument("--exact-budget", type=_checked("exact_budget"), default=2.0,
                     metavar="SECONDS",
                     help="seconds the default solver may spend in the exact solver per "
                          "lam (default: 2; 0: the Lagrangian search alone, the fastest "
                          "for several --lam values)")
    fit.add_argument("--memory-limit", type=_memory_size, metavar="SIZE",
                     help="most memory the decision bits may take: bytes (1e9) or a size "
                          "with a unit (2GB, 512MiB); beyond, banded (same result)")
    _high_score_argument(fit)
    _format_argument(fit)
    fit.set_defaults(handler="fit")

    transform = sub.add_parser(
        "transform", help="adjust the scores of a CSV file with a saved model",
        description=("Apply a model saved by `gpu-xorder fit` to the scores of a CSV "
                     "file and write the file with the adjusted scores added as a column. "
                     "With --label, also print AUC and disparities before and after."),
    )
    _file_arguments(transform, label_required=False, group_options=False)
    transform.add_argument("--model", required=True, type=ReadPath,
                           help="model file from gpu-xorder fit")
    transform.add_argument("--output", required=True, type=WritePath,
                           help="CSV file to write")
    _column_argument(transform)
    _high_score_argument(transform)
    _format_argument(transform)
    transform.set_defaults(handler="transform")

    audit = sub.add_parser(
        "audit", help="ranking fairness of the scores in a CSV file",
        description=("AUC and the ranking disparities of one or more score columns of a "
                     "CSV file: the maximum over pairs of groups, then the AUC within "
                     "every group, xAUC for every ordered pair of groups, PRF for every "
                     "group and URF for every pair."),
    )
    _file_arguments(audit, label_required=True, many_scores=True)
    audit.add_argument("--json", metavar="FILE", type=WritePath,
                       help="also write every value as JSON (null where undefined)")
    audit.add_argument("--high-score", choices=choices("high_score"),
                       help="what a high score does to a person, which decides the group "
                            "a disparity disadvantages: favourable (a loan, an interview) "
                            "or harmful (a risk score: choose it for COMPAS' "
                            "two_year_recid); required with --report, read as favourable "
                            "without it, which the output says")
    _finding_arguments(audit)
    audit.add_argument("--title", metavar="TEXT",
                       help="with --report: the report's title")
    audit.add_argument("--context", metavar="FILE", type=ReadPath,
                       help="with --report: a UTF-8 text file printed at the top of the "
                            "report: intended use, model, data period, limitations")
    audit.add_argument("--ci", type=_probability, metavar="LEVEL",
                       help=f"level of the confidence intervals in the tables, the JSON "
                            f"and the pictures (default: {AUDIT_LEVEL})")
    audit.add_argument("--no-ci", action="store_true",
                       help="no confidence intervals")
    audit.add_argument("--ci-method", choices=("bootstrap", "delong"),
                       help="DeLong's variances, normal intervals (default), or a "
                            "stratified bootstrap, percentile intervals (default with "
                            "--bootstrap, --seed, --jobs or --scheduler)")
    audit.add_argument("--bootstrap", type=_positive, metavar="N",
                       help=f"bootstrap resamples (default: {AUDIT_BOOTSTRAP})")
    audit.add_argument("--seed", type=_nonnegative,
                       help="seed of the bootstrap (default: 0)")
    audit.add_argument("--jobs", type=_jobs, metavar="N",
                       help="the resamples split among N worker processes (-1: one "
                            "per CPU core; default: 1, or every worker of --scheduler)")
    audit.add_argument("--scheduler", metavar="ADDRESS",
                       help="run the bootstrap on the Dask cluster at ADDRESS "
                            "(e.g. tcp://10.0.0.5:8786; needs gpu-xorder[dask])")
    audit.add_argument("--plot", metavar="DIR", type=WritePath,
                       help="also write pictures (PNG) into DIR: every metric with its "
                            "interval (forest plot), xROC curves of every pair of groups "
                            "with pointwise bands and the score distributions per group "
                            "(needs gpu-xorder[plot])")
    audit.add_argument("--plot-pairs", type=_positive, metavar="N",
                       help="xROC pictures (--plot and --report) of the N pairs of "
                            "groups with the largest disparities per score column "
                            f"(default: {PLOT_PAIRS}); the output names those drawn")
    _report_arguments(audit)
    _format_argument(audit, json=True)
    audit.set_defaults(handler="audit")

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
    paper.add_argument("--data", nargs="+", choices=DATASETS + PAPER_EXTRA_DATA,
                       metavar="NAME", type=BundledName,
                       help="data sets among compas, adult, german, framingham and "
                            "icu-standin (synthetic, the paper's eICU shape, two age "
                            "bands; default: the paper's for the grouping: the four "
                            "bundled; with --groups age, adult and compas)")
    _experiment_arguments(paper, PAPER_LAMS, method=True, solver="paper")
    paper.add_argument("--repeats", type=_positive, default=10,
                       help="random splits (default: 10, as in the paper)")
    paper.add_argument("--subsample", type=_positive,
                       help="learn on every k-th item of each group (faster)")
    paper.add_argument("--jobs", type=_jobs, metavar="N",
                       help="repetitions run at once in worker processes (-1: one per "
                            "CPU core; default: 1, or every worker of --scheduler; keep "
                            "1 with a GPU)")
    paper.add_argument("--scheduler", metavar="ADDRESS",
                       help="run the repetitions on the Dask cluster at ADDRESS "
                            "(e.g. tcp://10.0.0.5:8786; needs gpu-xorder[dask])")
    paper.add_argument("--json", metavar="FILE", type=WritePath,
                       help="also write every repetition's values as JSON")
    paper.add_argument("--methods", nargs="+", choices=PAPER_METHODS, metavar="METHOD",
                       help="methods compared with the unadjusted scores, among "
                            f"{', '.join(PAPER_METHODS[1:])} (default: all that take "
                            "the groups: two groups all but xorder-kd and "
                            "post-logit-coord; three: xorder, xorder-kd, "
                            "post-logit-public; four or more: post-logit-coord in the "
                            "public search's place; '--methods xorder' alone "
                            "with --model lr prints the xOrder table of the paper's "
                            "protocol)")
    paper.add_argument("--model", choices=PAPER_MODELS, default="lr",
                       help="base model: lr (scikit-learn logistic regression, default), "
                            "paper-linear (the paper's code: few plain gradient steps), "
                            "rankboost (200 rounds, a sigmoid of the margin), "
                            "rankboost-public (the public code's: 50 rounds, the weighted "
                            "vote in [0, 1])")
    paper.add_argument("--study", choices=PAPER_STUDIES,
                       help="robustness study of the post-processing methods (the "
                            "default --methods then): samples (learnt on a share "
                            "of the training scores), samples-retrain (the base model "
                            "also trained on that share) or shift (learnt on in-sample "
                            "or held-out scores of a model trained on half the training "
                            "split; with --out also their histograms) or train-test (the "
                            "comparison with the training scores beside the test scores: "
                            "with --out their histograms and the training against the "
                            "test disparity, the paper's Figures 14-15) or subsample "
                            "(xOrder learnt on about --sizes N training items, every k-th "
                            "of each group, the others on all: the paper's Figure 11); "
                            "samples-retrain and subsample also take corr-reg and "
                            "constrained")
    paper.add_argument("--fractions", type=_float, nargs="+", metavar="F",
                       help="with --study samples or samples-retrain: the shares of the "
                            "training split, each in (0, 1] (default: 0.05 0.1 0.2 0.5 "
                            "1); tables.md then compares the methods at each share, and "
                            "--out draws each share's trade-off")
    paper.add_argument("--sizes", type=_positive, nargs="+", metavar="N",
                       help="with --study samples or samples-retrain, instead of "
                            "--fractions, and with --study subsample (required): "
                            "numbers of training items, each at most the "
                            "training split's (the paper's Figure 13: Adult 20000 15000 "
                            "10000 5000, COMPAS 4000 3000 2000 1000)")
    paper.add_argument("--post-logit-search", choices=("joint", "logit-alpha"),
                       default="joint",
                       help="the grid of the post-logit method: joint (alpha and beta on "
                            "logit(s), either group; default) or logit-alpha (beta = -2); "
                            "post-logit-public is always the public code's search")
    paper.add_argument("--out", metavar="DIR", type=WritePath,
                       help="write records.json (every record), summary.csv (mean, sd, "
                            "min and max over repetitions), tables.md, timings.csv "
                            "(wall and CPU seconds) and PNG figures (with matplotlib) "
                            "into DIR")
    _format_argument(paper)
    paper.set_defaults(handler="paper")

    info = sub.add_parser("info", help="versions and GPU backend status")
    info.add_argument(
        "--warm", action="store_true",
        help="compile every GPU kernel variant a fit can use, at once on every CPU, into "
             "CuPy's kernel cache, and check each against NumPy (later fits then start "
             "without compiling)")
    info.set_defaults(handler="info")
    return parser


def _engine_arguments(parser, method, solver="auto"):
    """The disparity xOrder trades, the DP engine, the solver (default ``solver``) and
    (``method``) how more than two groups are merged: the same options wherever a
    command fits xOrder."""
    parser.add_argument("--metric", choices=choices("metric"), default="xauc",
                        help="disparity xOrder trades against AUC (default: xauc)")
    parser.add_argument("--solver", choices=choices("solver"), default=solver,
                        help=f"how the ordering is chosen for two groups (default: {solver}; "
                             "paper: the paper's cell rule; lagrangian: certified bound; "
                             "exact: the optimum, small data)")
    if method:
        parser.add_argument("--method", choices=choices("method"), default="auto",
                            help="how more than two groups are merged (default: auto; "
                                 "best: K-D and iterative, the higher objective)")
    parser.add_argument("--backend", choices=choices("backend"), default="auto",
                        help="DP engine (default: auto: CuPy when usable, else numba, else "
                             "NumPy)")


def _experiment_arguments(parser, lams, method=False, solver="auto"):
    """Grouping, xOrder settings and split of the commands on bundled data."""
    parser.add_argument("--groups", choices=GROUPINGS, default="default",
                        help="default: the paper's attribute of the data set; age: three "
                             "age bands (age <= 25, 25 < age <= 40, age > 40), the paper's "
                             "multi-group setting; race-sex: the four intersections of "
                             "race and sex (adult, compas); age5, age10: the age bands of "
                             "the paper's Figure 12 (edges 45 55 65 75; 35 45 50 ... 85)")
    parser.add_argument("--lam", type=_float, nargs="+", default=list(lams), metavar="LAM",
                        help="weights of the disparity, paper's scale (default: "
                             f"{' '.join(f'{x:g}' for x in lams)})")
    _engine_arguments(parser, method, solver)
    parser.add_argument("--seed", type=_seed, default=0,
                        help="split and model seed (default: 0; paper: repetition r "
                             "uses seed + r)")
    parser.add_argument("--test-size", type=_probability, default=0.3,
                        help="fraction held out for testing (default: 0.3)")


def _file_arguments(parser, label_required, many_scores=False, group_options=True):
    """The CSV file and its columns, as every file command takes them; with
    ``group_options``, how group labels are read and how many groups are allowed."""
    parser.add_argument("data", type=ReadPath,
                        help="CSV file with a header row (UTF-8; may be gzip, bz2 or xz "
                             "compressed)")
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
                            f"column would give (default: {MAX_GROUPS}, the most the GPU "
                            "runs iteratively)")


def _format_argument(parser, json=False):
    parser.add_argument("--format", choices=("table", "tsv", "json") if json
                        else ("table", "tsv"), default="table",
                        help="how tables are printed: table (default), tsv (tab-separated, "
                             "other lines start with #)"
                             + (", json (the --json document, on stdout)" if json else ""))


def _high_score_argument(parser):
    parser.add_argument("--high-score", choices=choices("high_score"), default="favourable",
                        help="what a high score does to a person, for the findings "
                             "before and after: favourable (default) or harmful (a "
                             "risk score)")
    _finding_arguments(parser)


def _finding_arguments(parser):
    """--decision and --delta: the words and the margin of every finding."""
    parser.add_argument("--decision", metavar="TEXT", type=_decision,
                        help="what a high score (being selected) leads to, named in every "
                             "finding: 'detention', 'a loan', 'an interview'")
    parser.add_argument("--delta", type=_probability, default=DEFAULT_DELTA, metavar="D",
                        help="the margin of a 'parity within D' finding: every pair's "
                             "interval of its gap lies inside +-D (default: "
                             f"{DEFAULT_DELTA})")


def _column_argument(parser):
    parser.add_argument("--column", default=DEFAULT_COLUMN,
                        help=f"name of the adjusted-score column (default: {DEFAULT_COLUMN})")
