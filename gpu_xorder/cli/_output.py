"""What the command line prints: its two consoles, tables, progress and one-line
messages.

Output goes through ``console`` (stdout) and ``err_console`` (stderr), read as module
attributes at every use so that tests can replace them to fix width and colour.
"""

import contextlib
import re

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

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)

METRIC_COLUMNS = (("xauc", "Delta-xAUC"), ("prf", "Delta-PRF"), ("urf", "Delta-URF"))


def one_line(problem):
    """An exception or message as one line of text; an OSError as "path: reason"."""
    if isinstance(problem, OSError) and problem.strerror and problem.filename:
        text = f"{problem.filename}: {problem.strerror}"
    elif isinstance(problem, OSError) and problem.strerror:
        text = problem.strerror
    else:
        text = str(problem)
    return re.sub(r"\s*[\r\n]+\s*", " ", text).strip()


def error(problem):
    err_console.print(f"[bold red]error:[/bold red] {escape(one_line(problem))}",
                      soft_wrap=True, emoji=False)
    return 2


def warning(message, category, filename, lineno, file=None, line=None):
    err_console.print(f"[yellow]warning:[/yellow] {escape(one_line(message))}",
                      soft_wrap=True, emoji=False)


def metrics_table(title, rows, split, chosen, timing=False, first="lam"):
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


def test_split_table(data, repeats, metric, leading):
    """The empty table of test-split means ± sd: the ``leading`` columns (method names
    left-aligned), AUC, every disparity (``metric`` in bold)."""
    table = Table(title=f"{data}, test split: mean ± sd over {repetitions(repeats)}",
                  title_justify="left")
    for name in leading:
        table.add_column(name, justify="left" if name == "method" else "right")
    table.add_column("AUC", justify="right")
    for key, header in METRIC_COLUMNS:
        style = "bold" if key == metric else None
        table.add_column(header, justify="right", header_style=style, style=style)
    return table


def interval_cell(value, interval, wanted):
    """``0.7153``, ``0.7153 [0.6920, 0.7390]`` with an interval, ``n/a`` where undefined."""
    if value is None:
        return "n/a"
    if not wanted:
        return f"{value:.4f}"
    if interval is None:
        return f"{value:.4f} [n/a]"
    return f"{value:.4f} [{interval.low:.4f}, {interval.high:.4f}]"


def repetitions(n):
    return f"{n} repetition" + ("" if n == 1 else "s")


def mean_sd(pair):
    mean, sd = pair
    if np.isnan(mean):
        return "n/a"
    return f"{mean:.3f}" if np.isnan(sd) else f"{mean:.3f} ± {sd:.3f}"


def duration(seconds):
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


@contextlib.contextmanager
def fit_progress():
    """A progress callback for ``XOrder.fit``: on a terminal, a bar with the time left."""
    with Progress(TextColumn("xOrder"), BarColumn(), TaskProgressColumn(),
                  TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                  console=console, transient=True,
                  disable=not console.is_terminal) as progress:
        task = progress.add_task("fit", total=None)
        yield lambda done, total: progress.update(task, completed=done, total=total)


@contextlib.contextmanager
def repetitions_progress(name, repeats):
    """A progress bar of one data set's repetitions (on a terminal); yields the
    ``progress(done, total)`` callback the experiments take."""
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
        TextColumn("repetitions"), TimeElapsedColumn(), console=console,
        transient=True, disable=not console.is_terminal,
    ) as progress:
        task = progress.add_task(name, total=repeats)
        yield lambda done, total: progress.update(task, completed=done)
