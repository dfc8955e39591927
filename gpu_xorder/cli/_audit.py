"""``gpu-xorder audit``: AUC and every ranking disparity of score columns, with
confidence intervals, the disadvantaged group in words, as JSON and in pictures."""

import contextlib
import json
import math
import shlex

import numpy as np
from rich.markup import escape
from rich.table import Table

from ..metrics._cutoff_findings import decision_findings, lowest_selected
from ..metrics._findings import MEASURE_NAMES
from ..metrics._wording import rule_text
from ..utils._metrics import AUC_WITHIN, METRICS, value_keys
from ..utils._validation import pair_key
from . import _output as out
from ._audit_pictures import MAX_FOREST_GROUPS, audit_plots, drawn_plan, picture_plan
from ._common import (
    AUDIT_BOOTSTRAP,
    AUDIT_LEVEL,
    FILE_ERRORS,
    LIBRARY_ERRORS,
    PLOT_PAIRS,
    dask_backend,
    file_row,
    group_title,
    read_context,
    read_groups,
    read_paths,
    require_matplotlib,
)
from ._output import METRIC_COLUMNS

MSG_MODEL_REPORT = "{option} is read by --report; give --report FILE as well"
MSG_PLOT_PAIRS = ("--plot-pairs is read by --plot and --report; give --plot DIR or "
                  "--report FILE as well")
MSG_HIGH_SCORE = ("--report needs --high-score harmful or favourable: which group a "
                  "disparity disadvantages depends on what a high score does to a person")
#: Rows of a table of pairs of groups printed at most (the pairs of the largest
#: disparities); every row is in --format tsv and json, and in --json.
MAX_PAIR_ROWS = 40
MSG_ROWS_SHOWN = ("{title}: {shown} of {n} rows shown, the pairs of the largest "
                  "disparities; --format tsv or json, or --json FILE, give every row")
MSG_NO_CI = "--no-ci leaves out the intervals that {options} would set up"
MSG_DELONG = ("--ci-method delong draws no resamples, so {options} would be ignored; "
              "leave {them} out or choose --ci-method bootstrap")


def run(args):
    from .. import metrics
    from ..io import Table as CsvTable
    from ..io import check_all_outputs, staged_folder
    from ..metrics._ranking import defined

    try:
        level, method = _interval_settings(args)
        if args.plot_pairs is not None and args.plot is None and args.report is None:
            raise ValueError(MSG_PLOT_PAIRS)
        args.plot_pairs = args.plot_pairs or PLOT_PAIRS
        outputs = [("--json", args.json)] + _report_outputs(args)
        inputs = read_paths(args)
        check_all_outputs(outputs, [("--plot", args.plot, None)], inputs=inputs)
        context = read_context(args.context)
        high_score = args.high_score or "favourable"
        if args.plot is not None:
            require_matplotlib()
        data = CsvTable(args.data)
        groups, y = read_groups(data, args), data.binary(args.label)
        columns = {name: data.numbers(name) for name in args.score}
        labels = np.unique(groups)
        keys = [g.item() for g in labels]
        plan = []
        if args.plot is not None:  # the pictures' names, known now, checked too
            plan = picture_plan(columns, keys, level is not None)
            check_all_outputs(outputs, [("--plot", args.plot, [p[0] for p in plan])],
                              inputs=inputs)
        costs = _announce(args, y.size, len(keys), len(columns), method, groups)
        rows = [file_row(name, s, y, groups, None) for name, s in columns.items()]
        pairs = [(g, h) for g in keys for h in keys if g != h]
        items = _items_of(groups, labels)

        def within(g, h):  # the items of groups g and h: a pair's values need no more
            index = items[g] if g == h else np.sort(np.concatenate((items[g], items[h])))
            return index

        def xauc(s, g, h):
            index = within(g, h)
            return defined(metrics.xauc, y[index], s[index],
                           sensitive_features=groups[index], g=g, h=h)

        def value(metric, s, k):  # a pair's value from the items of its two groups
            if METRICS[metric].per == "group":
                return defined(getattr(metrics, metric), y, s, sensitive_features=groups,
                               g=k)
            index = within(*k)
            return defined(getattr(metrics, metric),
                           None if METRICS[metric].any_pairs else y[index], s[index],
                           sensitive_features=groups[index], g=k[0], h=k[1])

        def table(metric, m):
            rows = value_keys(metric, keys)
            return (m.value_title, m.value_meaning,
                    [str(k) if m.per == "group" else
                     pair_key(*k, " ~ ") if m.any_pairs else pair_key(*k) for k in rows],
                    lambda s: [value(metric, s, k) for k in rows], metric,
                    lambda ci: [getattr(ci, metric)[k] for k in rows])

        # (title, meaning, row names, values of a score column, JSON key, its intervals)
        tables = [(*AUC_WITHIN, [str(g) for g in keys],
                   lambda s: [xauc(s, g, g) for g in keys],
                   "auc_within", lambda ci: [ci.auc_within[g] for g in keys])]
        tables += [table(metric, m) for metric, m in METRICS.items()]
        values = _table_values(tables, columns, len(keys), costs["tables"])
        intervals = None
        if level is not None:
            with dask_backend(args.scheduler):
                intervals = [_intervals(name, s, y, groups, level, method, args,
                                        costs["intervals"] / len(columns))
                             for name, s in columns.items()]
        found = [{m: _finding(s, y, groups, m, high_score,
                              None if intervals is None else intervals[c], args, name)
                  for m, _ in METRIC_COLUMNS}
                 for c, (name, s) in enumerate(columns.items())]
        decisions = _decisions(args, columns, y, groups, level)
        decided = {name: decision_findings(d, high_score=high_score, delta=args.delta,
                                           decision=args.decision, score=name)
                   for name, d in (decisions or {}).items()}
        document = None
        if args.json is not None or args.format == "json":
            document = _audit_document(args, groups, y, columns, rows, tables, values,
                                       intervals, found)
            for name, d in (decisions or {}).items():
                document["scores"][name]["decisions"] = d.to_dict()
                document["scores"][name]["decisions"]["lowest_selected"] = \
                    lowest_selected(columns[name], d)
                document["scores"][name]["decisions"]["findings"] = [
                    f.to_dict() for f in decided[name]]
        report = _report_text(args, columns, y, groups, level, method, intervals, context)
        pictures, drawn = [], []
        if args.plot is not None:
            plan, drawn = drawn_plan(plan, columns, keys, values, args.plot_pairs)
        with contextlib.ExitStack() as stack:  # pictures and JSON: all or nothing
            if args.plot is not None:
                pictures = audit_plots(stack.enter_context(staged_folder(args.plot)),
                                        plan, columns, y, groups, intervals, args.label)
            _write_outputs(args, document, report, inputs)
    except LIBRARY_ERRORS + FILE_ERRORS as exc:
        return out.error(exc)
    if args.format == "json":
        out.console.file.write(json.dumps(document, indent=2, allow_nan=False) + "\n")
        return 0
    counts = ", ".join(f"{escape(str(g))} {int((groups == g).sum())} "
                       f"({int(y[groups == g].sum())} positive)" for g in labels)
    out.console.print(f"[bold]{escape(args.data)}[/bold]: {y.size} rows; groups by "
                      f"[bold]{escape(group_title(args.group))}[/bold]: {counts}")
    out.console.print(_audit_summary(rows, intervals))
    if intervals is not None:
        out.console.print(f"[dim]{escape(_interval_note(intervals[0], args))}[/dim]")
    _print_findings(args, found, columns, len(keys), intervals)
    at = {pair: r for r, pair in enumerate(pairs)}
    # a pair table's rows and the rows of the reverse pairs (None: a symmetric metric's
    # unordered pairs; False: a table of groups)
    partners = [False] + [False if m.per == "group" else None if m.any_pairs
                          else [at[h, g] for g, h in pairs] for m in METRICS.values()]
    for (title, meaning, names, _, _, interval_of), per_column, partner in zip(
            tables, values, partners, strict=True):
        out.console.print(f"[dim]{escape(title)}: {escape(meaning)}[/dim]")
        table = Table(title=title, title_justify="left")
        table.add_column("groups")
        for name in columns:
            table.add_column(escape(name), justify="right")
        limits = ([[None] * len(names)] * len(columns) if intervals is None
                  else [interval_of(ci) for ci in intervals])
        shown = _shown_rows(per_column, partner)
        for r in shown:
            table.add_row(escape(names[r]), *[
                out.interval_cell(col[r], limits[c][r], intervals is not None)
                for c, col in enumerate(per_column)])
        out.console.print(table)
        if len(shown) < len(names):
            note = MSG_ROWS_SHOWN.format(shown=len(shown), n=len(names), title=title)
            out.console.print(f"[dim]{escape(note)}[/dim]")
    if args.plot is not None:
        out.console.print(f"{len(pictures)} pictures written to {escape(args.plot)}")
        for note in drawn:
            out.console.print(f"[dim]{escape(note)}[/dim]")
    _print_decisions(decisions, args.group, columns, decided)
    if args.report is not None:
        out.console.print(f"report written to {escape(args.report)}")
    return 0


def _report_outputs(args):
    """The files --report adds to the outputs checked up front; refuses --model
    without --report and a report without Jinja2 or matplotlib, before any work."""
    if args.report is None:
        for option, value in (("--model", args.model), ("--title", args.title),
                              ("--context", args.context)):
            if value is not None:
                raise ValueError(MSG_MODEL_REPORT.format(option=option))
        return []
    if args.high_score is None:
        raise ValueError(MSG_HIGH_SCORE)
    from ..plotting._plots import _matplotlib
    from ..report._audit import _import_jinja2

    for needed in (_import_jinja2, _matplotlib):
        try:
            needed()
        except ImportError as exc:
            raise ValueError(f"--report: {exc}") from None
    if args.model is not None:  # an unreadable model file is refused before the work
        from ..postprocessing import XOrder

        XOrder.load(args.model)
    return [("--report", args.report)]


def _decisions(args, columns, y, groups, level):
    """``{column: DecisionRates}`` at the cut-off of --threshold, --top-k or
    --top-share; None without one."""
    from ..metrics import decision_rates

    if args.threshold is None and args.top_k is None and args.top_share is None:
        return None
    return {name: decision_rates(y, s, sensitive_features=groups, threshold=args.threshold,
                                 top_k=args.top_k, top_share=args.top_share,
                                 level=level or AUDIT_LEVEL)
            for name, s in columns.items()}


def _report_text(args, columns, y, groups, level, method, intervals, context=None):
    """The HTML text of --report (None without it), made before any file is written."""
    if args.report is None:
        return None
    from ..report import audit_report

    return audit_report(
        columns, y, groups, positive=args.label, group=group_title(args.group),
        high_score=args.high_score, level=level, method=method or "delong",
        n_bootstrap=(args.bootstrap or AUDIT_BOOTSTRAP) if method == "bootstrap" else None,
        random_state=args.seed or 0, threshold=args.threshold, top_k=args.top_k,
        top_share=args.top_share, model=args.model, source=args.data,
        decision=args.decision, delta=args.delta, title=args.title, context=context,
        command=shlex.join(["gpu-xorder"] + getattr(args, "argv", ["audit", "..."])),
        intervals=None if intervals is None else dict(zip(columns, intervals)),
        plot_pairs=args.plot_pairs)


def _write_outputs(args, document, report, inputs):
    """--json and --report, both or neither, never over one of ``inputs``."""
    from .. import io

    if report is None:
        if args.json is not None:
            io.write_json(args.json, document, inputs=inputs)
        return
    files = [(args.report, lambda f: f.write(report), "\n")]
    if args.json is not None:
        text = io.json_text(document)
        files.append((args.json, lambda f: f.write(text), None))
    io.write_files(files, inputs=inputs)


def _print_decisions(decisions, group, columns, decided):
    """Per score column a table of the decision's rates per group with intervals, and
    their differences and ratios, then its findings."""
    from ..metrics._decisions import RATES

    if decisions is None:
        return
    headers = ("selection rate", "TPR", "FPR", "precision")
    for name, d in decisions.items():
        low = lowest_selected(columns[name], d)
        low = "none" if low is None else f"{low:.6g}"
        out.console.print(f"[dim]Decisions of {escape(name)}: {escape(d.rule)} selected "
                          f"(lowest score selected {low}); {d.level:.0%} Wilson "
                          "intervals, differences (largest - smallest rate, Newcombe) and "
                          "ratios (smallest / largest, Katz); ties at a top-k cut share "
                          "the places left[/dim]")
        table = Table(title=f"Decisions: {name}", title_justify="left")
        for header in (group_title(group), "n", "selected") + headers:
            table.add_column(escape(header), justify="left" if header == group_title(
                group) else "right")

        def cells(part):
            """A cell per rate; an interval with NaN limits (Katz's, where a count is
            0) printed as not estimable."""
            return [out.interval_cell(
                None if part[r] is None else part[r].estimate,
                None if part[r] is None or math.isnan(part[r].low) else part[r], True)
                for r in RATES]

        for g in d.groups:
            c = d.counts[g]
            table.add_row(escape(str(g)), str(c["n"]), f"{c['selected']:g}",
                          *cells({r: d.by_group[r][g] for r in RATES}))
        table.add_row("all", str(sum(c["n"] for c in d.counts.values())),
                      f"{sum(c['selected'] for c in d.counts.values()):g}",
                      *cells(d.overall))
        table.add_row("difference", "", "", *cells(d.difference))
        table.add_row("ratio", "", "", *cells(d.ratio))
        out.console.print(table)
        for f in decided[name]:
            out.console.print(f"[bold]{escape(name)}[/bold], "
                              f"{escape(MEASURE_NAMES[f.measure])}: {escape(f.text)}")


def _interval_settings(args):
    """``(level, method)`` of the intervals, or ``(None, None)`` under --no-ci:
    DeLong's by default (cheap, and defined wherever a group x label sample has two
    items), the bootstrap where an option of the bootstrap asks for it."""
    bootstrap = [("--bootstrap", args.bootstrap), ("--seed", args.seed),
                 ("--jobs", args.jobs), ("--scheduler", args.scheduler)]
    options = [("--ci", args.ci), ("--ci-method", args.ci_method)] + bootstrap
    if args.no_ci:
        named = [name for name, value in options if value is not None]
        if named:
            raise ValueError(MSG_NO_CI.format(options=", ".join(named)))
        return None, None
    if args.ci_method == "delong":
        named = [name for name, value in bootstrap if value is not None]
        if named:
            options = named[0] if len(named) == 1 else (
                f"{', '.join(named[:-1])} and {named[-1]}")
            raise ValueError(MSG_DELONG.format(options=options,
                                               them="it" if len(named) == 1 else "them"))
    level = AUDIT_LEVEL if args.ci is None else args.ci
    implied = any(value is not None for _, value in bootstrap)
    return level, args.ci_method or ("bootstrap" if implied else "delong")


def _intervals(name, scores, y, groups, level, method, args, expected=None):
    """The intervals of one score column; a long bootstrap shows that it runs, and the
    time left by its estimate (``expected`` seconds)."""
    from .. import metrics

    n_bootstrap = args.bootstrap or AUDIT_BOOTSTRAP
    what = (f"audit {name}: bootstrap of {n_bootstrap} resamples of {scores.size} rows"
            if method == "bootstrap" else f"audit {name}: DeLong intervals")
    with out.working(what, expected):
        return metrics.confidence_intervals(
            y, scores, sensitive_features=groups, level=level, method=method,
            n_bootstrap=n_bootstrap if method == "bootstrap" else None,
            random_state=args.seed or 0, n_jobs=args.jobs)


def _announce(args, n, k, n_columns, method, groups=None):
    """The estimated seconds of the audit's parts (``tables``, ``intervals``,
    ``pictures``, the report's trade-off path of a ``model``), printed as one estimate
    line where they come to ``out.ESTIMATE_SECONDS`` or more."""
    from . import _costs

    n_bootstrap = args.bootstrap or AUDIT_BOOTSTRAP
    costs = {"tables": n_columns * _costs.pair_tables_seconds(n, k),
             "intervals": 0.0, "pictures": 0.0}
    parts = [f"{n} rows, {k} groups, {n_columns} score column"
             + ("s" if n_columns > 1 else "")]
    if method == "bootstrap":
        costs["intervals"] = n_columns * _costs.bootstrap_seconds(
            n, k, n_bootstrap, _costs.workers(args.jobs, args.scheduler))
        parts.append(f"a bootstrap of {n_bootstrap} resamples")
    elif method == "delong":
        costs["intervals"] = n_columns * _costs.delong_seconds(n, k)
        parts.append("DeLong intervals")
    # --plot's PNGs and --report's SVGs: the same pictures, capped alike
    drawn = min(k * (k - 1) // 2, args.plot_pairs)
    pictures = n_columns * (1 + drawn) + (method is not None and k <= MAX_FOREST_GROUPS)
    # the report's model section: the trade-off and the adjusted scores' distributions
    in_report = pictures + 2 * (args.model is not None)
    for given, count, what in ((args.plot, pictures, "pictures"),
                               (args.report, in_report, "pictures in the report")):
        if given is not None:
            costs["pictures"] += _costs.pictures_seconds(count, n, method is not None)
            parts.append(f"{count} {what}")
    path = _model_path_seconds(args, groups)
    if path is not None:
        costs["model"] = path
        parts.append("the report's trade-off path of the model")
    out.estimate(sum(costs.values()), ", ".join(parts))
    return costs


def _model_path_seconds(args, groups):
    """Seconds of the xOrder path the report fits on the data with --model (its
    trade-off along lam; the plan's cost model, ``core._choice.plan``), None where none
    is fitted or there is no model of its cost (the GPU)."""
    from ..core._choice import plan
    from ..postprocessing import XOrder
    from ..report._audit import TRADEOFF_LAMS, TRADEOFF_MAX_ITEMS

    if args.report is None or args.model is None or groups is None:
        return None
    if groups.size > TRADEOFF_MAX_ITEMS:
        return None
    est = XOrder.load(args.model)
    lams = sorted(set(TRADEOFF_LAMS) | {float(est.lam)})
    sizes = np.unique(groups, return_counts=True)[1]
    try:
        fits = plan(sizes, lams, metric=est.metric, mode=est.disparity, backend="auto",
                    method=est.method, solver=est.solver, max_disparity=None,
                    memory_limit=None, alone=True, exact_budget=est.exact_budget)
    except (ValueError, MemoryError):  # the fit itself says what fails
        return None
    return fits.seconds


def _items_of(groups, labels):
    """``{label: the positions of its items}``, in one sort."""
    _, index = np.unique(groups, return_inverse=True)
    order = np.argsort(index, kind="stable")
    bounds = np.cumsum(np.bincount(index, minlength=labels.size))[:-1]
    return {g.item(): part for g, part in zip(labels, np.split(order, bounds))}


def _table_values(tables, columns, k, expected):
    """Every table's values per score column (``[table][column][row]``), with a
    progress bar of the values where there are many groups."""
    per_column = [2 * k + k * (k - 1) + k * (k - 1) // 2 for _ in columns]
    total = sum(per_column)
    if expected < 1.0:
        return [[table[3](s) for s in columns.values()] for table in tables]
    values = [[] for _ in tables]
    with out.counted_progress("audit: per-pair values", total, "values") as report:
        done = 0
        for s in columns.values():
            for t, table in enumerate(tables):
                values[t].append(table[3](s))
                done += len(values[t][-1])
                report(done, total)
    return values


def _shown_rows(per_column, partner):
    """The rows of a table to print: every row, but of a table of pairs (``partner``:
    the row of every row's reverse pair, None where a row's value is its disparity;
    False: not a table of pairs) with more than ``MAX_PAIR_ROWS`` rows, printed as a
    table, those of the largest disparities in any score column, in order."""
    n = len(per_column[0])
    if partner is False or n <= MAX_PAIR_ROWS or out.output_format == "tsv":
        return range(n)
    severity = np.full(n, -1.0)
    for column in per_column:
        for r, value in enumerate(column):
            other = value if partner is None else column[partner[r]]
            if value is not None and other is not None:
                gap = value if partner is None else abs(value - other)
                severity[r] = max(severity[r], gap)
    return sorted(np.argsort(-severity, kind="stable")[:MAX_PAIR_ROWS].tolist())


def _finding(scores, y, groups, metric, high_score, intervals, args, name):
    """The finding of ``metric`` (:func:`gpu_xorder.metrics.ranking_finding`), None
    where the data leave it undefined."""
    from ..metrics import ranking_finding

    try:
        return ranking_finding(y, scores, sensitive_features=groups, measure=metric,
                               high_score=high_score,
                               intervals=intervals, level=None, delta=args.delta,
                               decision=args.decision, score=name)
    except ValueError:
        return None


def _print_findings(args, found, columns, k, intervals):
    """The findings of every score column and disparity, after the rule they follow."""
    how = ("" if args.high_score is not None else
           ", the default: give --high-score harmful or favourable")
    rule = ("no intervals (--no-ci): no verdict" if intervals is None else
            rule_text(intervals[0].level, k * (k - 1) // 2, args.delta))
    out.console.print(f"[dim]Findings, reading a high score as "
                      f"{args.high_score or 'favourable'}{escape(how)}; rule: "
                      f"{escape(rule)}:[/dim]")
    for name, per_metric in zip(columns, found):
        for metric, header in METRIC_COLUMNS:
            if per_metric[metric] is not None:
                out.console.print(f"[bold]{escape(name)}[/bold], {header}: "
                                  f"{escape(per_metric[metric].text)}")


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
           f"{args.seed or 0}, percentile" if ci.method == "bootstrap"
           else "DeLong variances, normal")
    return (f"[low, high]: {ci.level:.0%} confidence intervals, {how}; a disparity's from "
            "the interval of its signed difference, the maximum over pairs from the pairs' "
            "intervals at the Bonferroni level; n/a: not estimable")


def _audit_document(args, groups, y, columns, rows, tables, values, intervals, found):
    """The audit as JSON: per group its size and positives, per score column its AUC,
    the maxima over pairs and every per-pair (per-group) value, keyed as printed; the
    reading of a high score and, per disparity, the group it disadvantages; with
    intervals, their settings and per score column every value's ``[low, high]``."""
    labels = np.unique(groups)
    doc = {"data": args.data, "label": args.label, "group": group_title(args.group),
           "high_score": args.high_score or "favourable",
           "high_score_stated": args.high_score is not None,
           "decision": args.decision, "delta": args.delta,
           "groups": {str(g): {"n": int((groups == g).sum()),
                               "positives": int(y[groups == g].sum())} for g in labels},
           "scores": {}}
    if intervals is not None:
        ci = intervals[0]
        doc["ci"] = {"level": ci.level, "method": ci.method,
                     "n_bootstrap": ci.n_bootstrap,
                     "seed": (args.seed or 0) if ci.method == "bootstrap" else None}
    for c, (name, row) in enumerate(zip(columns, rows)):
        entry = {"auc": row["data"]["auc"],
                 "disparity": {m: row["data"][m] for m, _ in METRIC_COLUMNS},
                 "findings": {m: None if d is None else d.to_dict()
                              for m, d in found[c].items()}}
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
