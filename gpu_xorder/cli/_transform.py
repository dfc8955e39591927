"""``gpu-xorder transform``: a saved model applied to the scores of a CSV file."""

import numpy as np
from rich.markup import escape

from . import _output as out
from ._common import (
    FILE_ERRORS,
    LIBRARY_ERRORS,
    check_new_column,
    file_row,
    group_title,
    print_findings,
    read_paths,
)

MSG_UNSEEN = ("{path}, line {line}: {column} holds the group {group}, not seen in fit"
              "{more}: the model {model} knows {known}; drop the rows of unknown groups "
              "or fit a model on data that has them")
MSG_MODEL_GROUPS = "; the model {model} has {what} group labels ({known})"


def run(args):
    from ..io import Table as CsvTable
    from ..io import check_all_outputs, write_files
    from ..io._csv import LABEL_KIND_NAMES, label_kind
    from ..postprocessing import XOrder

    inputs = read_paths(args)
    try:
        check_all_outputs([("--output", args.output)], inputs=inputs)
        est = XOrder.load(args.model)
        data = CsvTable(args.data)
        check_new_column(data, args.column)
        scores = data.numbers(args.score)
        # the model's labels keep their type (integer groups of a Python fit, say);
        # intersections are labelled by text
        kind = label_kind(est.groups_) if len(args.group) == 1 else "text"
        data.check_groups(args.group, kind, fix=MSG_MODEL_GROUPS.format(
            model=args.model, what=LABEL_KIND_NAMES[kind], known=_known(est.groups_)))
        groups = data.groups(args.group, kind)
        _check_seen(data, groups, est, args)
        y = None if args.label is None else data.binary(args.label)
        adjusted = est.transform(scores, sensitive_features=groups)
        rows = None
        constrained = est.max_disparity is not None
        setting = f"|D|<={est.max_disparity:g}" if constrained else f"{est.lam:g}"
        described = f"max |D| {est.max_disparity:g}" if constrained else f"lam {est.lam:g}"
        if y is not None:
            rows = [file_row("unadjusted", scores, y, groups, None),
                    file_row(setting, adjusted, y, groups, None)]
        write_files([(args.output, data.writer(args.column, adjusted), "")], inputs=inputs)
    except LIBRARY_ERRORS + FILE_ERRORS as exc:
        return out.error(exc)
    out.console.print(f"[bold]{escape(args.data)}[/bold]: {scores.size} rows adjusted by "
                  f"{escape(args.model)} (metric {est.metric}, {described}, reference "
                  f"group {escape(str(est.reference_group_))})")
    if rows is not None:
        out.console.print(out.metrics_table("Data", rows, "data", est.metric))
        print_findings([("unadjusted", scores), (setting, adjusted)], y, groups,
                            est.metric, args.high_score, args.delta,
                            args.decision)
    out.console.print(f"written to {escape(args.output)} (column {escape(args.column)})")
    return 0


def _known(labels, shown=10):
    """The model's group labels, the first ``shown`` of them."""
    text = ", ".join(repr(g.item()) for g in labels[:shown])
    return text + (f" and {labels.size - shown} more" if labels.size > shown else "")


def _check_seen(data, groups, est, args):
    """Refuse a group the model was not fitted on, naming its first row."""
    from ..io._csv import shown_cell

    seen = np.isin(groups, est.groups_)
    if seen.all():
        return
    k = int(np.argmin(seen))
    others = np.unique(groups[~seen]).size - 1
    column = (f"column {args.group[0]!r}" if len(args.group) == 1
              else f"columns {group_title(args.group)}")
    group = groups[k].item()
    raise ValueError(MSG_UNSEEN.format(
        path=args.data, line=data.lines[k], column=column,
        group=shown_cell(group) if isinstance(group, str) else repr(group),
        more="" if not others else f" ({others} more such groups)", model=args.model,
        known=_known(est.groups_)))
