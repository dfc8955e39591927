"""What the command line prints: its two consoles, tables, progress and one-line
messages.

Output goes through ``console`` (stdout) and ``err_console`` (stderr), read as module
attributes at every use so that tests can replace them to fix width and colour. Where a
console does not write to a terminal (a log, a pipe) it never wraps a line, whatever its
width, and a long run writes a plain line of progress to stderr every ``LOG_INTERVAL``
seconds instead of a live bar.
"""

import contextlib
import re
import threading
import time

import numpy as np
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    TaskProgressColumn,
    TextColumn,
)
from rich.table import Table
from rich.text import Text

from ..utils._metrics import METRICS
from ..utils._text import visible

#: The width a console renders at where it does not write to a terminal: wide enough
#: that no table row or sentence of the command line wraps.
LOG_WIDTH = 10_000
#: Seconds between two lines of progress where stdout is not a terminal, and how often
#: the line's thread looks at the clock.
LOG_INTERVAL = 30.0
LOG_TICK = 1.0
#: Work expected to last this many seconds or more is announced by :func:`estimate`.
ESTIMATE_SECONDS = 30.0
#: The clock of those lines (tests replace it).
NOW = time.monotonic
#: How tables are printed: ``"table"``, rich's boxes, or ``"tsv"``, tab-separated values
#: (``--format tsv``: one ``# title`` line, a header row and the rows; every other line
#: starts with ``#``).
output_format = "table"


class Output(Console):
    """rich's Console that, off a terminal, renders at ``LOG_WIDTH`` (no line wraps),
    on stdout under ``--format tsv`` prints tables as tab-separated values, and shows
    every character of a text that would act rather than show (an escape sequence in a
    group label would drive the terminal, U+202E turn the numbers after it around) as
    its escape (``utils._text.visible``): every line and table cell passes here."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.is_terminal:
            self.width = LOG_WIDTH

    def render_str(self, text, **kwargs):
        return super().render_str(visible(text, keep="\n"), **kwargs)

    def print(self, *objects, **kwargs):
        if output_format != "tsv" or self.stderr:
            return super().print(*objects, **kwargs)
        for obj in objects:
            text = tsv(obj) if isinstance(obj, Table) else "\n".join(
                "# " + line for line in _plain(obj, keep="\n").splitlines())
            self.file.write(text + "\n")
        return None


def _plain(cell, keep=""):
    """The text of a cell or line, its markup removed, every character that acts
    written as its escape (a tab or a newline in a label would break the rows) but
    those of ``keep``."""
    return visible(Text.from_markup(cell).plain if isinstance(cell, str) else str(
        getattr(cell, "plain", cell)), keep)


def tsv(table):
    """A rich Table as ``# title``, a header row and its rows, tab-separated."""
    lines = [] if table.title is None else [f"# {_plain(table.title)}"]
    columns = table.columns
    lines.append("\t".join(_plain(c.header) for c in columns))
    for row in zip(*(list(c.cells) for c in columns)):
        lines.append("\t".join(_plain(cell) for cell in row))
    return "\n".join(lines)


console = Output(highlight=False)
err_console = Output(stderr=True, highlight=False)

#: ``(metric, column header)`` of every metric of the registry
#: (``utils._metrics.METRICS``).
METRIC_COLUMNS = tuple((name, m.display) for name, m in METRICS.items())


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
    if interval is None:  # escaped: cells are rich markup, where [n/a] is a style tag
        return escape(f"{value:.4f} [n/a]")
    return f"{value:.4f} [{interval.low:.4f}, {interval.high:.4f}]"


def repetitions(n):
    return f"{n} repetition" + ("" if n == 1 else "s")


def mean_sd(pair):
    mean, sd = pair
    if np.isnan(mean):
        return "n/a"
    return f"{mean:.3f}" if np.isnan(sd) else f"{mean:.3f} ± {sd:.3f}"


def duration(seconds):
    """A time to the unit that matters: ``35 s``, ``4 min``, ``1.7 h``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def spell(seconds):
    """A time as an estimate says it: ``20 s``, ``2 min 10 s``, ``1 h 40 min``."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, secs = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min" + (f" {secs} s" if secs and minutes < 10 else "")
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h" + (f" {minutes} min" if minutes else "")


def estimate(seconds, what, at_least=None, bound=False, lower=False):
    """Before work expected to take ``seconds`` (None: unknown): the line ``estimate:
    about 2 min 10 s (what)`` on stderr (``bound``: ``up to about``, where the data
    decide; ``lower``: ``at least about``, where parts are not counted), where
    ``seconds`` reaches ``at_least`` (default ``ESTIMATE_SECONDS``). Returns
    ``seconds``, for the progress's time left (never pass on a ``lower`` one: its
    count-down would reach 0 with work left)."""
    limit = ESTIMATE_SECONDS if at_least is None else at_least
    if seconds is not None and seconds >= limit:
        prefix = "up to " if bound else "at least " if lower else ""
        err_console.print(f"[dim]estimate:[/dim] {prefix}about {spell(seconds)} "
                          f"({escape(what)})", soft_wrap=True, emoji=False)
    return seconds


def clock(seconds):
    """``H:MM:SS``."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}"


def times(elapsed, remaining, expected=None):
    """``elapsed 0:00:35, about 0:02:35 left`` (only the first part without an
    estimate): ``remaining`` extrapolates the work done; without it, the ``expected``
    seconds of an estimate count down, and once they have run out with the work not
    done the line says ``past the estimate`` (never "about 0:00:00 left")."""
    text = f"elapsed {clock(elapsed)}"
    if remaining is None and expected is not None:
        if expected - elapsed < 1.0:
            return f"{text}, past the estimate of {clock(expected)}"
        remaining = expected - elapsed
    return text if remaining is None else f"{text}, about {clock(max(0.0, remaining))} left"


class _Times(ProgressColumn):
    """Elapsed and remaining time in words, so that neither reads as the other."""

    def render(self, task):
        elapsed, left = task.elapsed or 0.0, task.time_remaining
        expected = task.fields.get("expected")
        return Text(times(elapsed, left, expected))


class Heartbeat:
    """Lines of progress for a log: ``label: 3 of 10 repetitions (30%), elapsed
    0:01:10, about 0:02:43 left``, at most one per ``interval`` seconds of ``now``;
    the remaining time extrapolates the rate so far, or without a measure of progress
    counts down the ``expected`` seconds of an estimate."""

    def __init__(self, label, unit, write, now=time.monotonic, interval=None,
                 expected=None):
        self.label, self.unit, self.write, self.now = label, unit, write, now
        self.expected = expected
        self.interval = LOG_INTERVAL if interval is None else interval
        self.start = self.last = now()
        self.done = self.total = None
        self.lines = 0

    def update(self, done, total):
        self.done, self.total = done, total
        self.tick()

    def line(self, elapsed):
        if self.total is None or self.done is None:
            return f"{self.label}: running, {times(elapsed, None, self.expected)}"
        remaining = elapsed * (self.total - self.done) / self.done if self.done else None
        share = self.done / self.total if self.total else 0.0
        count = (f"{self.done} of {self.total}" if self.unit != "cells"
                 else f"{self.done:.3g} of {self.total:.3g}")
        return (f"{self.label}: {count} {self.unit} ({share:.0%}), "
                f"{times(elapsed, remaining, None if self.done else self.expected)}")

    def tick(self):
        """Write a line when one is due."""
        now = self.now()
        if now - self.last >= self.interval:
            self.last = now
            self.lines += 1
            self.write(self.line(now - self.start))

    def finish(self):
        """After a run that wrote lines: a last one with the whole time."""
        if self.lines:
            self.write(f"{self.label}: done, {times(self.now() - self.start, None)}")


def _log_line(text):
    err_console.print(escape(text), soft_wrap=True, emoji=False, markup=True)


@contextlib.contextmanager
def _logged(label, unit, expected=None):
    """Without a terminal: a ``Heartbeat`` on stderr, ticked by the callbacks and by a
    thread (so that a line comes even while no callback does); its last line only
    after work that ended (never "done" after Ctrl-C or an error)."""
    beat = Heartbeat(label, unit, lambda text: _log_line(text), now=lambda: NOW(),
                     expected=expected)
    stop = threading.Event()

    def beating():
        while not stop.wait(LOG_TICK):
            beat.tick()

    thread = threading.Thread(target=beating, name="gpu-xorder progress", daemon=True)
    thread.start()
    try:
        yield beat.update
    finally:
        stop.set()
        thread.join()
    beat.finish()


@contextlib.contextmanager
def fit_progress():
    """A progress callback for ``XOrder.fit``: on a terminal, a bar with the time
    elapsed and left; otherwise a line on stderr every ``LOG_INTERVAL`` seconds."""
    if not console.is_terminal:
        with _logged("xOrder", "cells") as update:
            yield update
        return
    with Progress(TextColumn("xOrder"), BarColumn(), TaskProgressColumn(), _Times(),
                  console=console, transient=True) as progress:
        task = progress.add_task("fit", total=None)
        yield lambda done, total: progress.update(task, completed=done, total=total)


@contextlib.contextmanager
def counted_progress(label, total, unit, expected=None):
    """A progress bar of ``total`` steps of work (``unit``: "repetitions", "values";
    on a terminal, otherwise a line on stderr every ``LOG_INTERVAL`` seconds); yields
    the ``progress(done, total)`` callback. The time left extrapolates the steps done,
    before the first the ``expected`` seconds of an estimate."""
    if not console.is_terminal:
        with _logged(label, unit, expected) as update:
            update(0, total)
            yield update
        return
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
        TextColumn(unit), _Times(), console=console, transient=True,
    ) as progress:
        task = progress.add_task(escape(label), total=total, expected=expected)
        yield lambda done, total: progress.update(task, completed=done)


def repetitions_progress(name, repeats, expected=None):
    """:func:`counted_progress` of one data set's repetitions; yields the
    ``progress(done, total)`` callback the experiments take."""
    return counted_progress(name, repeats, "repetitions", expected)


@contextlib.contextmanager
def working(label, expected=None):
    """Work without a measure of progress (a bootstrap): a spinner with the elapsed
    time on a terminal, otherwise a line on stderr every ``LOG_INTERVAL`` seconds; the
    time left counts down the ``expected`` seconds of an estimate where there is one."""
    if not console.is_terminal:
        with _logged(label, "", expected):
            yield
        return
    with Progress(SpinnerColumn(), TextColumn(escape(label)), _Times(), console=console,
                  transient=True) as progress:
        progress.add_task(label, total=None, expected=expected)
        yield
