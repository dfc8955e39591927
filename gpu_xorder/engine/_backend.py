"""Backend choice: CuPy when it imports, sees a device and passes the self-check; else
the compiled CPU engine (numba) when it imports and its first fill agrees with the
reference; else the NumPy reference.

This module never imports CuPy or numba at import time; ``_cupy_engine`` and the numba
engine's modules are the ones that do, when a probe first asks.
"""

import dataclasses
import functools
import glob
import importlib
import importlib.util
import logging
import os
import warnings

import numpy as np

import cpu_reference as cr

from ..utils._frames import user_level

logger = logging.getLogger("gpu_xorder")

MSG_CUPY_UNAVAILABLE = "backend='cupy' is not usable here: {reason}"
MSG_NUMBA_UNAVAILABLE = "backend='numba' is not usable here: {reason}"
MSG_NUMBA_CHECK = "the numba engine's first fill differs from the NumPy reference ({what})"
MSG_SELFCHECK = "the GPU kernels failed their self-check against NumPy: {mismatch}"
MSG_SELFCHECK_ERROR = "the GPU self-check could not run ({kind}: {error})"
MSG_FALLBACK = "gpu_xorder: using the {engine} backend, not CuPy: {reason}"

#: The engine module of every backend (each satisfies ``_interface.Engine``;
#: docs/design.md, section 7).
ENGINES = {"numpy": "._numpy_engine", "numba": "._numba_engine", "cupy": "._cupy_engine"}
#: The backend of the reference, where the work goes that another engine's kernels do
#: not take.
REFERENCE = "numpy"


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


@functools.lru_cache(maxsize=None)
def _numba_probe():
    """Import the numba engine, compile its two-group fill (or load it from numba's
    cache) and compare a small fill with the reference: once per process."""
    try:
        from . import _numba_engine
    except Exception as exc:
        return _Probe(False, f"the numba engine does not import ({exc})")
    usable, reason = _numba_engine.status()
    if not usable:
        return _Probe(False, reason)
    try:
        what = _numba_check(_numba_engine)
    except Exception as exc:  # a compile or a run that fails here
        return _Probe(False, f"the numba engine fails ({type(exc).__name__}: {exc})")
    if what is not None:
        return _Probe(False, MSG_NUMBA_CHECK.format(what=what), warn=True)
    return _Probe(True, reason, _numba_engine)


def _numba_check(engine):
    """What differs between the engine's fill of a small lattice with ties and the
    reference's (words, final counters), or None."""
    rng = np.random.default_rng(0)
    s = rng.integers(0, 5, 70) / 4.0
    lat = cr.build_lattice(s, rng.integers(0, 2, 70), np.arange(70) % 2, "xauc",
                           "absolute")
    words, finals = engine.fill(lat, [0.0, 0.5])
    for k, lam in enumerate((0.0, 0.5)):
        want_words, want_final = cr.fill(lat, lam)
        if not np.array_equal(words[k], want_words):
            return f"decision words at lam {lam:g}"
        if not np.array_equal(finals[k], want_final):
            return f"final counters at lam {lam:g}"
    return None


def numba_status():
    """``(usable, reason)`` of the numba engine, probed once per process."""
    probe = _numba_probe()
    return probe.usable, probe.reason


def resolve_backend(name):
    """Return ``"numpy"``, ``"numba"`` or ``"cupy"`` for a validated backend name:
    ``"auto"`` takes CuPy, then numba, then NumPy."""
    if name == "numpy":
        return "numpy"
    if name == "numba":
        numba = _numba_probe()
        if not numba.usable:
            raise BackendUnavailableError(MSG_NUMBA_UNAVAILABLE.format(reason=numba.reason))
        return "numba"
    probe = _probe()
    if name == "cupy":
        if not probe.usable:
            raise BackendUnavailableError(MSG_CUPY_UNAVAILABLE.format(reason=probe.reason))
        return "cupy"
    if probe.usable:
        return "cupy"
    chosen = "numba" if _numba_probe().usable else "numpy"
    if probe.warn and not probe.warned:
        probe.warned = True
        warnings.warn(MSG_FALLBACK.format(engine=chosen, reason=probe.reason),
                      BackendFallbackWarning, stacklevel=user_level())
    elif not probe.warn:
        _log_fallback_once(chosen, probe.reason)
    return chosen


def compiles_on_first_use(backend):
    """Whether a fit on ``backend`` (validated) may first compile the numba engine's
    kernels: ``"numba"``, or ``"auto"`` where numba may run, while numba's cache holds
    none of them (a guess from its index files; numba recompiles silently where they
    are stale). Never where numba is not installed (the base install): nothing
    compiles."""
    if backend not in ("auto", "numba") or importlib.util.find_spec("numba") is None:
        return False
    folder = os.path.join(os.path.dirname(__file__), "__pycache__")
    return not glob.glob(os.path.join(folder, "_numba_*.nbi"))


def warms_up(backend):
    """Whether a fit on ``backend`` is worth a warm-up fit on a few items, so that no
    timed fit counts a compilation: the CPU engines (numba compiles, or loads its
    cache, on its first fill); the GPU compiles and checks its kernels itself."""
    return resolve_backend(backend) != "cupy"


def engine(name):
    """The engine module of a resolved backend name (``resolve_backend``)."""
    return importlib.import_module(ENGINES[name], __package__)


@functools.lru_cache(maxsize=None)
def _log_fallback_once(chosen, reason):
    logger.info("gpu_xorder: using the %s backend (CuPy: %s)", chosen, reason)


def backend_info():
    """What is available: CuPy version, device name, memory, compute capability, the
    self-check's result and time."""
    info = {"numpy": "available"}
    info["numba"] = "usable" if numba_status()[0] else "unavailable"
    info["numba_reason"] = numba_status()[1]
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
