"""The command line: ``gpu-xorder demo``, ``fit``, ``transform``, ``audit``, ``paper``
and ``info``, one module per command.

``demo`` trains a logistic regression on a bundled data set, adjusts its scores with
xOrder for a few values of ``lam`` and prints utility and disparity before and after.
``fit`` learns xOrder from a CSV file of the user's scores, labels and groups, saves the
model as JSON and can write the adjusted scores; ``transform`` applies a saved model to
the scores of another CSV file; ``audit`` reports AUC and every disparity of score
columns; ``paper`` runs the paper's experiments. ``info`` prints versions and what the
engines can do on this machine.
"""

import importlib
import sys
import warnings

from ..io._signals import interrupts_kept
from . import _output as out
from ._parser import build_parser

#: Reported as one line (exit 2) whatever raised it: the promise of no traceback.
MSG_INTERNAL = "unexpected {kind}: {message} (a bug in gpu-xorder; please report it)"


def main(argv=None) -> int:
    """Run the command line; return the exit status: 0, 2 for any error (one line on
    stderr; argparse errors give 2 as well), 130 after Ctrl-C."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    args.argv = list(sys.argv[1:] if argv is None else argv)  # provenance of a report
    out.output_format = "tsv" if getattr(args, "format", None) == "tsv" else "table"
    try:
        # a Ctrl-C that C code swallows is repeated until it ends the command
        with interrupts_kept(), warnings.catch_warnings():
            warnings.simplefilter("default")
            warnings.showwarning = out.warning
            # the command's module is imported only when it runs (``--help`` stays fast)
            command = importlib.import_module(f"._{args.handler}", __name__)
            return command.run(args)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the promise: one line, never a traceback
        return out.error(MSG_INTERNAL.format(kind=type(exc).__name__, message=exc))
    finally:
        out.output_format = "table"


__all__ = ["main"]
