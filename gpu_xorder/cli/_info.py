"""``gpu-xorder info``: versions, and what the engines can do on this machine."""

import platform

import numpy as np
from rich.markup import escape
from rich.table import Table

from . import _output as out


def run(args):
    import sklearn

    versions = Table(title="Versions", title_justify="left")
    versions.add_column("package")
    versions.add_column("version")
    for name, version in (
        ("gpu_xorder", own_version()),
        ("numpy", np.__version__),
        ("scikit-learn", sklearn.__version__),
        ("Python", platform.python_version()),
    ):
        versions.add_row(name, version)
    out.console.print(versions)

    try:
        from ..engine._backend import backend_info
    except ImportError as exc:
        out.console.print(f"[yellow]backend status not available:[/yellow] {escape(str(exc))}")
        return 0
    backend = Table(title="Backend", title_justify="left")
    backend.add_column("key")
    backend.add_column("value")
    for key, value in backend_info().items():
        backend.add_row(escape(str(key)), escape(format_value(key, value)))
    out.console.print(backend)
    return warm() if getattr(args, "warm", False) else 0


def warm():
    """``info --warm``: every kernel variant compiled at once and checked."""
    import time

    from ..engine import _backend, _plan

    usable, reason, engine = _backend.cupy_status()
    if not usable:
        out.error(f"--warm needs a usable GPU engine: {reason}")
        return 2
    start = time.perf_counter()
    variants = _plan.every_variant()
    compiled = engine.prepare(variants, processes=True)  # a process per CPU: no GIL shared
    out.console.print(f"warm: {len(variants)} kernel variants ready ({compiled} compiled or "
                      f"loaded from CuPy's cache, each checked against NumPy) in "
                      f"{time.perf_counter() - start:.1f} s")
    return 0


def own_version():
    from ..utils._version import __version__

    return __version__


def format_value(key, value):
    if isinstance(value, int) and not isinstance(value, bool) and str(key).endswith("bytes"):
        return f"{value} ({value / 2**30:.1f} GiB)"
    if isinstance(value, (tuple, list)):
        return ".".join(str(v) for v in value) if "capability" in str(key) else str(value)
    return str(value)
