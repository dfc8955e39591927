"""``gpu-xorder audit``: AUC and every ranking disparity of score columns, with
intervals, in words, as JSON and in pictures."""

import contextlib
import re

import numpy as np
from rich.markup import escape
from rich.table import Table

from . import _output as out
from ._output import METRIC_COLUMNS
from ._common import AUDIT_BOOTSTRAP
from ._common import AUDIT_LEVEL
from ._common import FILE_ERRORS
from ._common import LIBRARY_ERRORS
from ._common import dask_backend
from ._common import file_row
from ._common import given
from ._common import group_title
from ._common import read_groups
from ._common import require_matplotlib


def run(args):
    from .. import metrics
    from ..metrics._ranking import defined
    from .._io import Table as CsvTable
    from .._io import check_folder, check_outputs, staged_folder, write_json

    implied = args.bootstrap is not None or args.ci_method is not None
    level = args.ci if args.ci is not None else AUDIT_LEVEL if implied else None
    try:
        check_outputs(given(args.json), inputs=(args.data,))
        if args.plot is not None:
            require_matplotlib()
            check_folder(args.plot)
        data = CsvTable(args.data)
        groups, y = read_groups(data, args), data.numbers(args.label)
        columns = {name: data.numbers(name) for name in args.score}
        rows = [file_row(name, s, y, groups, None) for name, s in columns.items()]
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
            with dask_backend(args.scheduler):
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
        return out.error(exc)
    counts = ", ".join(f"{escape(str(g))} {int((groups == g).sum())} "
                       f"({int(y[groups == g].sum())} positive)" for g in labels)
    out.console.print(f"[bold]{escape(args.data)}[/bold]: {y.size} rows; groups by "
                  f"[bold]{escape(group_title(args.group))}[/bold]: {counts}")
    out.console.print(_audit_summary(rows, intervals))
    if intervals is not None:
        out.console.print(f"[dim]{escape(_interval_note(intervals[0], args))}[/dim]")
    for name, gap in zip(columns, gaps):
        if gap is not None:
            out.console.print(f"[bold]{escape(name)}[/bold]: {escape(gap['text'])}")
    for (title, meaning, names, _, _, interval_of), per_column in zip(tables, values):
        out.console.print(f"[dim]{escape(title)}: {escape(meaning)}[/dim]")
        table = Table(title=title, title_justify="left")
        table.add_column("groups")
        for name in columns:
            table.add_column(escape(name), justify="right")
        limits = ([[None] * len(names)] * len(columns) if intervals is None
                  else [interval_of(ci) for ci in intervals])
        for r, name in enumerate(names):
            table.add_row(escape(name), *[
                out.interval_cell(col[r], limits[c][r], intervals is not None)
                for c, col in enumerate(per_column)])
        out.console.print(table)
    if args.plot is not None:
        out.console.print(f"{len(pictures)} pictures written to {escape(args.plot)}")
    return 0


def _audit_summary(rows, intervals):
    title = "Summary (disparities: maximum over pairs of groups)"
    if intervals is None:
        return out.metrics_table(title, rows, "data", None, first="scores")
    table = Table(title=title, title_justify="left")
    table.add_column("scores", justify="right")
    for header in ("AUC",) + tuple(header for _, header in METRIC_COLUMNS):
        table.add_column(header, justify="right")
    for row, ci in zip(rows, intervals):
        values = row["data"]
        table.add_row(escape(row["label"]), out.interval_cell(values["auc"], ci.auc, True),
                      *[out.interval_cell(values[m], ci.disparity[m], True)
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
    from .. import metrics
    from ..metrics._ranking import defined

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


def _audit_plots(folder, columns, y, groups):
    """Write the audit's pictures into ``folder``: per score column the score
    distributions per group and the xROC curves of every pair of groups (both
    directions). Returns the file names."""
    import itertools
    import os

    from matplotlib.figure import Figure

    from .. import metrics
    from ..metrics._ranking import defined
    from ..plotting._plots import plot_score_distributions, plot_xroc

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


def _audit_document(args, groups, y, columns, rows, tables, values, intervals, gaps):
    """The audit as JSON: per group its size and positives, per score column its AUC,
    the maxima over pairs and every per-pair (per-group) value, keyed as printed; the
    pair with the largest xAUC gap in words; with intervals, their settings and per
    score column every value's ``[low, high]``."""
    labels = np.unique(groups)
    doc = {"data": args.data, "label": args.label, "group": group_title(args.group),
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
