"""Backend choice: CuPy when it imports, sees a device and compiles a smoke kernel.

This module never imports CuPy at import time; ``_cupy_engine`` is the one module that
does.
"""

import functools
import logging

logger = logging.getLogger("gpu_xorder")

MSG_CUPY_UNAVAILABLE = "backend='cupy' is not usable here: {reason}"


class BackendUnavailableError(RuntimeError):
    """A backend was asked for by name but cannot run on this machine."""


@functools.lru_cache(maxsize=None)
def cupy_status():
    """``(usable, reason, engine_module)``, probed once per process."""
    try:
        from . import _cupy_engine
    except ImportError as exc:
        return False, f"CuPy does not import ({exc})", None
    try:
        _cupy_engine.smoke_test()
    except Exception as exc:  # any failure to reach or compile on a device
        return False, f"{type(exc).__name__}: {exc}", None
    return True, "ok", _cupy_engine


def resolve_backend(name):
    """Return ``"numpy"`` or ``"cupy"`` for a validated backend name."""
    if name == "numpy":
        return "numpy"
    usable, reason, _ = cupy_status()
    if name == "cupy":
        if not usable:
            raise BackendUnavailableError(MSG_CUPY_UNAVAILABLE.format(reason=reason))
        return "cupy"
    if not usable:
        _log_fallback_once(reason)
        return "numpy"
    return "cupy"


@functools.lru_cache(maxsize=None)
def _log_fallback_once(reason):
    logger.info("gpu_xorder: using the NumPy backend (%s)", reason)


def cupy_engine():
    """The CuPy engine module (only after ``resolve_backend`` returned ``"cupy"``)."""
    return cupy_status()[2]


def backend_info():
    """What is available: CuPy version, device name, memory, compute capability."""
    info = {"numpy": "available"}
    usable, reason, engine = cupy_status()
    info["cupy"] = "usable" if usable else "unavailable"
    info["reason"] = reason
    if usable:
        info.update(engine.device_info())
    return info
