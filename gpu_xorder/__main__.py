"""``python -m gpu_xorder``: the command line of :mod:`gpu_xorder.cli`."""

from .cli import main

raise SystemExit(main())
