"""``python -m gpu_xorder``: the command line of :mod:`gpu_xorder.cli`; a Ctrl-C
before ``main`` runs (while this module loads it) exits 130 as one inside it does."""

try:
    from .cli import main
except KeyboardInterrupt:
    exec("")  # as cli._forget_interrupt: no SIGINT at the interpreter's exit
    raise SystemExit(130) from None

raise SystemExit(main())
