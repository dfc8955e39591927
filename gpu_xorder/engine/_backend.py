"""Backend choice: CuPy when it imports, sees a device and passes the self-check.

This module never imports CuPy at import time; ``_cupy_engine`` is the one module that
does.
"""

import dataclasses
import functools
import logging
import warnings

logger = logging.getLogger("gpu_xorder")

MSG_CUPY_UNAVAILABLE = "backend='cupy' is not usable here: {reason}"
MSG_SELFCHECK = "the GPU kernels failed their self-check against NumPy: {mismatch}"
MSG_SELFCHECK_ERROR = "the GPU self-check could not run ({kind}: {error})"
MSG_FALLBACK = "gpu_xorder: using the NumPy backend, not CuPy: {reason}"


class BackendUnavailableError(RuntimeError):
    """A backend was asked for by name but cannot run on this machine."""


class BackendFallbackWarning(RuntimeWarning):
    """``backend="auto"`` found a device but its GPU engine unusable and runs NumPy."""


@dataclasses.dataclass
class _Probe:
    usable: bool
    reason: str
    engine: object = None
    selfcheck: object = None  # the _selfcheck.Report, where the check ran to its end
    device: dict = None  # device_info() of the device found
    warn: bool = False  # a device was found but is not used: auto warns, once
    warned: bool = False


@functools.lru_cache(maxsize=None)
def _probe():
    """Import CuPy, find a device, run the self-check (``_selfcheck.run``): once per
    process."""
    try:
        from . import _cupy_engine
    except ImportError as exc:
        return _Probe(False, f"CuPy does not import ({exc})")
    except Exception as exc:  # a broken CUDA install raises anything on import
        return _Probe(False, f"CuPy fails on import ({type(exc).__name__}: {exc})")
    try:
        _cupy_engine.smoke_test()
        device = _cupy_engine.device_info()
    except Exception as exc:  # any failure to reach or compile on a device
        return _Probe(False, f"{type(exc).__name__}: {exc}")
    from . import _selfcheck

    try:
        report = _selfcheck.run(_cupy_engine)
    except Exception as exc:
        return _Probe(False, MSG_SELFCHECK_ERROR.format(kind=type(exc).__name__, error=exc),
                      device=device, warn=True)
    if not report.ok:
        return _Probe(False, MSG_SELFCHECK.format(mismatch=report.mismatch),
                      selfcheck=report, device=device, warn=True)
    return _Probe(True, "ok", _cupy_engine, report, device)


def cupy_status():
    """``(usable, reason, engine_module)``, probed once per process."""
    probe = _probe()
    return probe.usable, probe.reason, probe.engine


cupy_status.cache_clear = _probe.cache_clear


def device_found():
    """Whether CuPy imported and reached a device, whatever the self-check found."""
    return _probe().device is not None


def resolve_backend(name):
    """Return ``"numpy"`` or ``"cupy"`` for a validated backend name."""
    if name == "numpy":
        return "numpy"
    probe = _probe()
    if name == "cupy":
        if not probe.usable:
            raise BackendUnavailableError(MSG_CUPY_UNAVAILABLE.format(reason=probe.reason))
        return "cupy"
    if not probe.usable:
        if probe.warn and not probe.warned:
            probe.warned = True
            warnings.warn(MSG_FALLBACK.format(reason=probe.reason), BackendFallbackWarning,
                          stacklevel=2)
        elif not probe.warn:
            _log_fallback_once(probe.reason)
        return "numpy"
    return "cupy"


@functools.lru_cache(maxsize=None)
def _log_fallback_once(reason):
    logger.info("gpu_xorder: using the NumPy backend (%s)", reason)


def cupy_engine():
    """The CuPy engine module (only after ``resolve_backend`` returned ``"cupy"``)."""
    return cupy_status()[2]


def backend_info():
    """What is available: CuPy version, device name, memory, compute capability, the
    self-check's result and time."""
    info = {"numpy": "available"}
    probe = _probe()
    info["cupy"] = "usable" if probe.usable else "unavailable"
    info["reason"] = probe.reason
    if probe.selfcheck is not None:
        info["self_check"] = probe.selfcheck.summary()
        info["self_check_seconds"] = round(probe.selfcheck.seconds, 3)
    elif probe.warn:
        info["self_check"] = "FAILED: " + probe.reason
    else:
        info["self_check"] = "not run (no usable CUDA device)"
    if probe.device is not None:
        info.update(probe.engine.device_info() if probe.usable else probe.device)
    return info
