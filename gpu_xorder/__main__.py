"""``python -m gpu_xorder``: the command line of :mod:`gpu_xorder._cli`."""

from ._cli import main

raise SystemExit(main())
