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

# Nothing is imported here that the interpreter has not loaded at start-up: a Ctrl-C
# from the first instruction of the command line lands inside ``main``'s guard, which
# imports the rest (NumPy, rich, the parser's modules) itself.
import sys

#: Reported as one line (exit 2) whatever raised it: the promise of no traceback.
MSG_INTERNAL = "unexpected {kind}: {message} (a bug in gpu-xorder; please report it)"
#: The exit status after Ctrl-C (128 + SIGINT, as shells report it).
EXIT_INTERRUPTED = 130


def main(argv=None) -> int:
    """Run the command line; return the exit status: 0, 2 for any error (one line on
    stderr; argparse errors give 2 as well), 130 after Ctrl-C, wherever it comes, from
    the first instruction (while the modules load and the arguments are parsed too),
    silently."""
    try:
        return _run(argv)
    except KeyboardInterrupt:
        _forget_interrupt()
        return EXIT_INTERRUPTED


def _run(argv):
    """``main`` inside its guard: the modules are imported here, not at the top, so
    that a Ctrl-C while they load is a KeyboardInterrupt that ``main`` catches."""
    import importlib
    import warnings

    from ..io._signals import interrupts_kept
    from . import _output as out
    from ._parser import build_parser

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    args.argv = list(sys.argv[1:] if argv is None else argv)  # provenance of a report
    out.output_format = "tsv" if getattr(args, "format", None) == "tsv" else "table"
    try:
        # a Ctrl-C that C code drops is raised again (interrupts_kept)
        with interrupts_kept(), warnings.catch_warnings():
            warnings.simplefilter("default")
            warnings.showwarning = _warning
            # the command's module is imported only when it runs (``--help`` stays fast)
            command = importlib.import_module(f"._{args.handler}", __name__)
            return command.run(args)
    except Exception as exc:  # the promise: one line, never a traceback
        return out.error(MSG_INTERNAL.format(kind=type(exc).__name__, message=exc))
    finally:
        out.output_format = "table"


def _warning(*args, **kwargs):
    """A warning on stderr, but none after Ctrl-C: nothing is printed after it (an
    import it cut short leaves a file unclosed, a ResourceWarning)."""
    from ..io._signals import interrupted
    from . import _output as out

    if not interrupted():
        out.warning(*args, **kwargs)


def _forget_interrupt():
    """Make CPython forget a KeyboardInterrupt that left code run by ``exec`` of a
    string (dataclasses and namedtuple make their methods so, when a module is
    imported): it remembers one even once caught, and ``python -m gpu_xorder`` would
    then end by SIGINT (status -2), not 130. Each run of a string starts afresh."""
    exec("")


__all__ = ["main"]
