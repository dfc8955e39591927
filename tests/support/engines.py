"""The engines the tests run every engine property on (the ``engine`` fixtures of
``tests/conftest.py``).

An ``Engine`` is one of ``ENGINES``: ``numpy`` (``_numpy_engine``, the reference behind
the engines' interface), ``numba`` (the compiled CPU engine), ``cupy-emulated`` (the CuPy
engine over ``fake_cupy``: every launch replayed by the kernels' host build, so it needs
nvcc) and ``cupy`` (the CuPy engine on a real device). Its attributes are its module's
(``solve``, ``final_counters``, ``solve_step``, ``solve_multi``, ...), plus the few
things a test needs said the same way of every engine: its ``backend`` name,
``fill_words`` (decision words and final counters on the host) and ``band_limit`` (a
``memory_limit`` that makes its ``solve`` fill in bands).
"""

import contextlib
import importlib
import re
import sys
from dataclasses import dataclass
from types import ModuleType

import numpy as np
import pytest

import cpu_reference as cr

#: Every engine, in the order of the fixture's parameters.
ENGINES = ("numpy", "numba", "cupy-emulated", "cupy")
#: The engines checked against the NumPy one (``compiled_engine``).
COMPILED = ENGINES[1:]

_CUPY_ENGINE = "gpu_xorder.engine._cupy_engine"


def params(names):
    """``pytest.param``s of the engines ``names``: the real device's marked ``gpu`` (run
    by ``-m gpu``, skipped where CuPy sees no device: tests/conftest.py)."""
    return [pytest.param(name, id=name, marks=[pytest.mark.gpu] if name == "cupy" else [])
            for name in names]


@dataclass(frozen=True)
class Engine:
    """One engine under test; attributes not defined here are its module's."""

    name: str
    module: ModuleType

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return getattr(self.module, attr)

    @property
    def backend(self):
        """What ``fair_order(backend=...)`` takes to run this engine."""
        return "cupy" if self.name.startswith("cupy") else self.name

    @property
    def device(self):
        """A real GPU: where larger inputs cost little."""
        return self.name == "cupy"

    @property
    def on_cupy(self):
        """The CuPy engine, on the emulated or the real device."""
        return self.name.startswith("cupy")

    def fill_words(self, lat, lams):
        """``(words, finals, lasts)`` on the host, ``(B, n_words)``, ``(B, K)`` and
        ``(B, K, n_b + 1)``: one whole-lattice fill per lam value (the engine's default
        kernel and width); ``lasts``, the counters of the last row, None on the CuPy
        engine, which returns them for bands of whole row blocks only."""
        if self.name == "numpy":
            out = [cr.fill(lat, lam, bottom=True) for lam in lams]
            return tuple(np.stack(a) for a in zip(*out))
        if self.on_cupy:
            words, finals = self.module.fill(lat, lams)
            return words.get(), finals.get(), None
        return self.module.fill(lat, lams, bottom=True)

    def band_limit(self, lat, batch, band_rows):
        """A ``memory_limit`` under which ``solve`` of ``batch`` lam values fills
        ``lat`` in bands of about ``band_rows`` rows: one band's decision bits with the
        host's counter checkpoints (the CPU engines solve the lams one at a time where a
        whole lattice does not fit), or the bits of the whole batch's band (the CuPy
        engine keeps its checkpoints on the host)."""
        if self.on_cupy:
            return int(cr.banded_bytes(lat.n_a, lat.n_b, band_rows, lat.n_counters, batch,
                                       checkpoints=False))
        return int(cr.banded_bytes(lat.n_a, lat.n_b, band_rows, lat.n_counters))

    def golden_solver(self):
        """A stand-in for ``cpu_reference`` in ``support.golden.digests`` whose 2-D
        fills, banded solves, K-D and iterative solves run on this engine."""
        return (_CupyGolden if self.on_cupy else _NumbaGolden)(self.module)


class _Reference:
    """``cpu_reference`` but for what a subclass defines."""

    def __init__(self, module):
        self.engine = module

    def __getattr__(self, name):
        return getattr(cr, name)

    def solve_kd(self, prob, lam, progress=None):
        return self.engine.solve_multi(prob, lam, "kd", progress)

    def solve_iterative(self, prob, lam, progress=None):
        return self.engine.solve_multi(prob, lam, "iterative", progress)


class _NumbaGolden(_Reference):
    """Every 2-D fill, band and iterative step on the numba engine (K-D is the
    reference's there)."""

    def fill(self, lat, lam, progress=None, **kw):
        out = self.engine.fill(lat, [lam], progress, **kw)
        return tuple(None if a is None else a[0] for a in out)

    def numpy_band_fill(self, lams):
        return self.engine.band_fill(lams)

    def solve_banded(self, lat, n, band_rows, fill_band, progress=None):
        return cr.solve_banded(lat, n, band_rows, fill_band, progress,
                               self.engine._Walker(lat, n))


class _CupyGolden(_Reference):
    """The CuPy engine's fills, banded solves (bands on the device, paths walked
    there), K-D kernel and iterative steps. The last row of a whole fill, which the
    engine does not return, is the reference's; the device's last rows of its bands
    enter the banded digests through the paths and counters they lead to."""

    def fill(self, lat, lam, bottom=False):
        words, final = self.engine.fill(lat, [lam])
        out = (words.get()[0], final.get()[0])
        return out + (cr.fill(lat, lam, bits=False, bottom=True)[2],) if bottom else out

    def numpy_band_fill(self, lams):
        return list(lams)  # solve_banded's "fill_band": the lams the engine solves

    def solve_banded(self, lat, n, band_rows, lams, progress=None):
        limit = cr.banded_bytes(lat.n_a, lat.n_b, band_rows, lat.n_counters, n,
                                checkpoints=False)
        solutions, rows = self.engine.solve(lat, lams, progress, memory_limit=int(limit))
        assert rows == band_rows, (rows, band_rows)
        return solutions


#: The ``engine`` fixture's emulated CuPy engine and its backend probe, made once per
#: session, as a process imports and checks the engine once (``emulated_cupy(True)``).
_SESSION = {}


@contextlib.contextmanager
def cupy_replaced_by(module):
    """``import cupy`` gives ``module`` and ``gpu_xorder.engine._cupy_engine`` is imported
    afresh on next use; CuPy (or its absence), the engine module and the backend's cached
    status are restored afterwards."""
    import gpu_xorder.engine as package
    from gpu_xorder.engine import _backend

    saved = {name: sys.modules.get(name) for name in ("cupy", _CUPY_ENGINE)}
    saved_attr = package.__dict__.get("_cupy_engine")
    sys.modules["cupy"] = module
    sys.modules.pop(_CUPY_ENGINE, None)
    package.__dict__.pop("_cupy_engine", None)
    _backend.cupy_status.cache_clear()
    try:
        yield
    finally:
        for name, saved_module in saved.items():
            if saved_module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = saved_module
        if saved_attr is None:
            package.__dict__.pop("_cupy_engine", None)
        else:
            package._cupy_engine = saved_attr
        _backend.cupy_status.cache_clear()


@contextlib.contextmanager
def emulated_cupy(session=False):
    """``gpu_xorder.engine._cupy_engine`` imported over ``fake_cupy`` (every launch
    replayed by the kernels' host build: skipped without nvcc); the real state (CuPy or
    its absence) and the fake device's free memory are restored afterwards. A fresh
    import, whose first ``fair_order(backend="cupy")`` runs the self-check; with
    ``session``, the module and self-checked probe of the session's first use."""
    from support import cuda_host

    if not cuda_host.available():
        pytest.skip("nvcc not on PATH: the emulated device replays the kernels' host build")
    import gpu_xorder.engine as package
    from gpu_xorder.engine import _backend
    from support import fake_cupy

    saved_probe = _backend._probe
    free = list(fake_cupy.MEMORY)
    with cupy_replaced_by(fake_cupy):
        try:
            if session and _SESSION:
                sys.modules[_CUPY_ENGINE] = package._cupy_engine = _SESSION["module"]
                _backend._probe = lambda: _SESSION["probe"]
            else:
                module = importlib.import_module(_CUPY_ENGINE)
                if session:
                    _SESSION.update(module=module, probe=_backend._probe())
                    _backend._probe = lambda: _SESSION["probe"]
            yield sys.modules[_CUPY_ENGINE]
        finally:
            _backend._probe = saved_probe
            fake_cupy.MEMORY[:] = free


@contextlib.contextmanager
def engine(name, request):
    """The ``Engine`` ``name`` for the test of ``request``, skipped where it cannot run;
    on the real device under the test's time limit (``support.device_timeout``: a hang
    names the test and stops the run)."""
    from gpu_xorder.engine import _backend

    if name == "numpy":
        yield Engine(name, _backend.engine("numpy"))
    elif name == "numba":
        usable, reason = _backend.numba_status()
        if not usable:
            pytest.skip(f"numba engine: {reason}")
        yield Engine(name, _backend.engine("numba"))
    elif name == "cupy-emulated":
        with emulated_cupy(session=True) as module:
            yield Engine(name, module)
    else:
        from support import device_timeout

        try:
            module = importlib.import_module(_CUPY_ENGINE)
        except Exception as exc:  # the collection hook skips gpu tests without a device
            pytest.skip(f"CuPy engine: {type(exc).__name__}: {exc}")
        marker = request.node.get_closest_marker("timeout")
        seconds = marker.args[0] if marker and marker.args else device_timeout.DEFAULT_SECONDS
        disarm = device_timeout.arm(request.node.nodeid, seconds,
                                    request.getfixturevalue("terminal_fd"))
        try:
            yield Engine(name, module)
        finally:
            disarm()


def estimate_out(extra):
    """A result's ``extra`` with the seconds the exact solver's reason quotes masked:
    the estimate is its engine's cost model's (compiled fronts on numba and CuPy, NumPy's
    otherwise), all else is equal between engines."""
    reason = re.sub(r"estimated cost \([^)]*\)", "estimated cost (...)",
                    extra.get("solver_reason", ""))
    return {**extra, "solver_reason": reason}
