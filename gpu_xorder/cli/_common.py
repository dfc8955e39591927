"""What several commands share: the errors reported as one line, reading groups from a
file, table rows of metrics, the Dask cluster of ``--scheduler``."""

import contextlib
import re

import numpy as np
from rich.markup import escape

from ..datasets._loaders import AGE_BAND_NAMES, GROUP_NAMES
from ..experiments._experiment import FIGURE_12_EDGES, RACE_SEX_NAMES, band_names

# audit --plot and --report: xROC pictures per score column unless --plot-pairs says,
# those of the pairs of groups with the largest disparities (all pairs of 21 groups:
# 210 pictures, a minute of CPU; of 200 groups, some 20,000)
from ..utils._pairs import PLOT_PAIRS as PLOT_PAIRS
from ..utils._validation import INTERSECTION_SEP
from . import _output as out
from ._output import METRIC_COLUMNS

LAM_NOTE = (
    "lam on the paper's scale: xOrder maximises AUC - lam * Delta, both fractions in "
    "[0, 1] (the public reference code's weight equals lam * n_pos * n_neg)."
)


# What the library raises for input it cannot handle; reported as one clean line.
LIBRARY_ERRORS = (ValueError, TypeError, RuntimeError, MemoryError)
FILE_ERRORS = (OSError, UnicodeDecodeError)
DEFAULT_COLUMN = "score_fair"
#: More groups than this in fit or audit (an ID-like column, say) are refused unless
#: --max-groups allows them: the most the GPU's iterative xOrder takes
#: (_kernel_source.MAX_OLD_GROUPS + 1; more run on NumPy, or are refused with --backend
#: cupy).
MAX_GROUPS = 20

MSG_MAX_GROUPS = ("{path}: {columns} gives {n} groups, more than --max-groups {limit} "
                  "(an ID-like column?); pass --max-groups {n} to fit them all")
MSG_ONE_GROUP = ("{path}: {columns} gives one group ({label!r}) in every row; fairness "
                 "compares two or more groups (the wrong column?)")
MSG_GROUP_TYPE = "; read the labels as text (--group-type text) or correct the cell"
MSG_COLUMN_TAKEN = ("--column {name}: {path} already has a column {name!r}, which the "
                    "output would overwrite; name the new column otherwise (e.g. "
                    "--column {free})")
MSG_SPLIT = ("--test-size {size:g} leaves {n_test} test and {n_train} training rows of "
             "the {n} of {data}, and a stratified split needs {classes} (one per label) "
             "in each: give a --test-size from {low:g} to {high:g} for {data}")
MSG_SEEDS = ("--seed {seed} with --repeats {repeats} would split with seeds up to "
             "{last}, beyond {most}, the largest seed scikit-learn takes; give a --seed "
             "of at most {best}")
#: The largest seed of scikit-learn's splits (a ``RandomState``'s).
MAX_SEED = 2**32 - 1
#: audit: the level of its confidence intervals unless --ci says, and the resamples
#: of its bootstrap unless --bootstrap says.
AUDIT_LEVEL = 0.95
MSG_CONTEXT = "--context {path}: {why}"
#: Characters of a --context file (audit --report) read at most.
MAX_CONTEXT_CHARS = 20000
AUDIT_BOOTSTRAP = 2000
MSG_NO_DASK = ('--scheduler needs dask.distributed, which is not installed: '
               'pip install "gpu-xorder[dask]"')
MSG_SCHEDULER = "cannot reach the Dask scheduler at {address}: {why}"
SCHEDULER_TIMEOUT = 10  # seconds to connect and hear the scheduler's first answer


def asked_and_ran(asked, ran):
    """``asked`` and, where it differs, what ran: ``"auto (numba)"``, ``"auto (paper,
    lagrangian)"``, ``"paper"``."""
    ran = list(dict.fromkeys(ran))
    return asked if ran in ([], [asked]) else f"{asked} ({', '.join(ran)})"


def group_names(data, groups):
    """How the grouping is called and the readable names of its group codes."""
    if groups == "age":
        return "age bands", dict(enumerate(AGE_BAND_NAMES))
    if groups == "race-sex":
        return "race & sex", RACE_SEX_NAMES
    if groups in FIGURE_12_EDGES:
        return "age bands", band_names(groups)
    return data.sensitive_name, GROUP_NAMES[data.name]


#: A group code in a library message: ``group 7`` or ``the smallest group, 7`` (the
#: messages write a label by its repr).
GROUP_CODE = re.compile(r"\bgroup(,?) (-?\d+)\b")


def named_groups(message, names):
    """``message`` with every group code of ``names`` (code -> readable name, as
    :func:`group_names` gives them) written as its name, the way the tables and
    figures name it: ``group 7 has no positives`` -> ``group '75 < age <= 85' has no
    positives``; codes not in ``names`` stay."""
    def name(match):
        code = int(match.group(2))
        label = repr(names[code]) if code in names else match.group(2)
        return f"group{match.group(1)} {label}"

    return GROUP_CODE.sub(name, message)


@contextlib.contextmanager
def groups_named(name, groups):
    """A ``ValueError`` raised inside names the groups of the bundled data set
    ``name`` grouped by ``groups`` as the tables do (:func:`named_groups`)."""
    try:
        yield
    except ValueError as exc:
        from ..experiments._studies import load_data

        names = group_names(load_data(name), groups)[1]
        raise ValueError(named_groups(str(exc), names)) from exc


def counts(groups):
    values, counts = np.unique(groups, return_counts=True)
    return [(int(g), int(c)) for g, c in zip(values, counts)]


def row(label, scores, splits, seconds):
    """Table row: AUC and disparities of ``scores[split]`` for every split; a disparity
    the split cannot define (a group without positives, say) is None."""
    from .. import metrics
    from ..metrics._ranking import defined

    row = {"label": label, "seconds": seconds}
    for split, (y, a) in splits.items():
        row[split] = {"auc": metrics.auc(y, scores[split])}
        for metric, _ in METRIC_COLUMNS:
            row[split][metric] = defined(metrics.disparity, y, scores[split],
                                           sensitive_features=a, metric=metric)
    return row


def file_row(label, scores, y, groups, seconds):
    """A table row of the one split ``"data"``."""
    return row(label, {"data": scores}, {"data": (y, groups)}, seconds)


def print_findings(rows, y, groups, metric, high_score, delta=None, decision=None,
                        stated=True):
    """One finding per ``(label, scores)`` of ``rows`` (:mod:`gpu_xorder.metrics.
    _findings`): ``metric``'s worst pair judged by DeLong's interval at 95%
    family-wise, reading a high score as ``high_score`` (``stated``: given by the
    user, else the default, which the line says)."""
    from ..metrics._findings import DEFAULT_DELTA, ranking_finding
    from ..metrics._wording import rule_text

    delta = DEFAULT_DELTA if delta is None else delta
    how = "" if stated else ", the default (--high-score)"
    k = np.unique(groups).size
    rule = rule_text(AUDIT_LEVEL, k * (k - 1) // 2, delta, "the difference (DeLong)")
    out.console.print(f"[dim]Findings of {dict(METRIC_COLUMNS)[metric]}, reading a high "
                      f"score as {high_score}{escape(how)}; rule: {escape(rule)}:[/dim]")
    for label, scores in rows:
        try:
            found = ranking_finding(y, scores, sensitive_features=groups, measure=metric,
                                    high_score=high_score, level=AUDIT_LEVEL,
                                    delta=delta, decision=decision).text
        except ValueError as exc:
            found = f"undefined: {out.one_line(exc)}"
        out.console.print(f"{escape(label)}: {escape(found)}")


def read_context(path):
    """The text of --context (None without it): UTF-8, at most ``MAX_CONTEXT_CHARS``
    characters; the report escapes it."""
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read(MAX_CONTEXT_CHARS + 1)
    except UnicodeDecodeError:
        raise ValueError(MSG_CONTEXT.format(path=path, why="not UTF-8 text")) from None
    if len(text) > MAX_CONTEXT_CHARS:
        raise ValueError(MSG_CONTEXT.format(
            path=path, why=f"more than {MAX_CONTEXT_CHARS} characters"))
    return text


def read_groups(data, args):
    """The groups of ``data`` as ``--group`` and ``--group-type`` say; missing labels,
    a single group and more than ``--max-groups`` groups are refused."""
    data.check_groups(args.group, args.group_type, fix=MSG_GROUP_TYPE)
    groups = data.groups(args.group, args.group_type)
    labels = np.unique(groups)
    n = labels.size
    if n == 1:
        raise ValueError(MSG_ONE_GROUP.format(path=args.data, columns=group_title(args.group),
                                              label=labels[0].item()))
    if n > args.max_groups:
        raise ValueError(MSG_MAX_GROUPS.format(path=args.data, n=n, limit=args.max_groups,
                                               columns=group_title(args.group)))
    return groups


def check_new_column(data, name):
    """Refuse an output column ``name`` (``--column``) that ``data`` already has."""
    if name in data.header:
        free = next(f"{name}_{k}" for k in range(2, len(data.header) + 3)
                    if f"{name}_{k}" not in data.header)
        raise ValueError(MSG_COLUMN_TAKEN.format(name=name, path=data.path, free=free))


def check_split(data, test_size, seed, repeats=1):
    """Refuse, before any work, a ``--test-size`` that leaves one part of the bundled
    data set ``data`` fewer rows than labels (scikit-learn's stratified split would
    refuse it) and seeds ``seed + r`` of the ``repeats`` splits beyond ``MAX_SEED``."""
    import math

    last = seed + repeats - 1
    if last > MAX_SEED:
        raise ValueError(MSG_SEEDS.format(seed=seed, repeats=repeats, last=last,
                                          most=MAX_SEED, best=MAX_SEED - repeats + 1))
    n, classes = data.y.size, np.unique(data.y).size

    def possible(size):
        return classes <= math.ceil(size * n) <= n - classes  # as train_test_split counts

    if possible(test_size):
        return
    low, high = math.ceil(classes / n * 1e4), math.floor((n - classes) / n * 1e4)
    low += not possible(low / 1e4)  # the rounding of float products
    high -= not possible(high / 1e4)
    raise ValueError(MSG_SPLIT.format(
        size=test_size, n_test=math.ceil(test_size * n),
        n_train=n - math.ceil(test_size * n), n=n, data=data.name, classes=classes,
        low=low / 1e4, high=high / 1e4))


def group_title(columns):
    """How groups read from ``columns`` are called: ``race`` or ``race & sex``."""
    return INTERSECTION_SEP.join(columns)


class ReadPath(str):
    """A path a command reads: the parser's type of every option that names a file to
    read (the data, a model file at transform or audit), so that :func:`read_paths`
    finds them all and every output is checked against each."""


class WritePath(str):
    """A path a command writes (a file or a folder): the parser's type of every output
    option; the tests check each against every :class:`ReadPath` of its command."""


class BundledName(str):
    """The name of a bundled data set a command loads (``--data`` of demo and paper):
    its file is read, so it is an input too."""


def read_paths(args):
    """Every file the command of ``args`` reads: the values of its options of type
    :class:`ReadPath` and the files of the bundled data sets it names
    (:class:`BundledName`), for the check that no output replaces one of them
    (``io.check_all_outputs(..., inputs=read_paths(args))``)."""
    paths = []
    for value in vars(args).values():
        for item in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(item, ReadPath):
                paths.append(item)
            elif isinstance(item, BundledName):
                paths.extend(_bundled_file(item))
    return tuple(paths)


def _bundled_file(name):
    """The file of the bundled data set ``name`` where it is one on disk (none for the
    synthetic stand-in, or a package in a zip)."""
    import os
    from importlib import resources

    path = resources.files("gpu_xorder.datasets").joinpath("data", f"{name}.csv.gz")
    try:
        path = os.fspath(path)
    except TypeError:  # not a file of the file system
        return ()
    return (path,) if os.path.isfile(path) else ()


def given(path):
    return () if path is None else (path,)


def require_matplotlib():
    """--plot is refused before any work where matplotlib is missing."""
    from ..plotting._plots import _matplotlib

    try:
        _matplotlib()
    except ImportError as exc:
        raise ValueError(f"--plot: {exc}") from None


@contextlib.contextmanager
def dask_backend(address):
    """Run the block under joblib's Dask backend on the cluster whose scheduler is at
    ``address`` (None: as it is)."""
    if address is None:
        yield
        return
    import joblib

    from ..utils import _parallel
    from ..utils._optional import optional

    try:
        Client = optional("distributed", MSG_NO_DASK).Client
    except ImportError as exc:
        raise ValueError(str(exc)) from None

    try:
        _parallel.probe_scheduler(address, SCHEDULER_TIMEOUT)
        client = Client(address, timeout=SCHEDULER_TIMEOUT)
    except (OSError, ValueError) as exc:  # TimeoutError is an OSError
        raise ValueError(MSG_SCHEDULER.format(address=address, why=out.one_line(exc))) \
            from None
    with client, joblib.parallel_backend("dask"):
        yield
