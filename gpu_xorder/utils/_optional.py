"""The import of an optional dependency (matplotlib, Jinja2, pandas, dask.distributed),
lazily, where a feature needs it: the message says which extra to install where the
package is missing, and says what failed where it is installed but its import fails
(the message "not installed" was then false); a Ctrl-C during the import stays a
Ctrl-C."""

import importlib
import importlib.util

MSG_BROKEN = "{name} is installed but its import failed ({error}); {hint}"


def optional(name, missing, hint="reinstall it"):
    """Module ``name`` imported. ``ImportError(missing)`` where its top-level package
    is not installed; ``ImportError(MSG_BROKEN)`` naming the failure where it is
    installed but does not import; ``KeyboardInterrupt`` where the import was
    interrupted (an extension's import that an interrupt breaks may report an
    ``ImportError`` whose cause is the ``KeyboardInterrupt``)."""
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        if _interrupted(exc):
            raise KeyboardInterrupt from None
        top = name.partition(".")[0]
        if not _installed(top):
            raise ImportError(missing) from None
        raise ImportError(MSG_BROKEN.format(name=top, error=exc, hint=hint)) from exc


def _installed(top):
    """Whether the top-level package ``top`` can be found (its import may still fail)."""
    try:
        return importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):  # in sys.modules without a spec, or broken
        return True


def _interrupted(exc):
    """Whether a ``KeyboardInterrupt`` lies in the chain of causes of ``exc``."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False
