"""``gpu-xorder transform``: a saved model applied to the scores of a CSV file."""

from rich.markup import escape

from . import _output as out
from ._common import FILE_ERRORS
from ._common import LIBRARY_ERRORS
from ._common import file_row
from ._common import print_disadvantaged


def run(args):
    from ..postprocessing import XOrder
    from .._io import Table as CsvTable
    from .._io import check_outputs, label_kind, write_files

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
        print_disadvantaged([("unadjusted", scores), (setting, adjusted)], y, groups,
                            est.metric, args.high_score)
    out.console.print(f"written to {escape(args.output)} (column {escape(args.column)})")
    return 0
