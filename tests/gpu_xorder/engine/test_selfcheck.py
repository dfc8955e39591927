"""The GPU engine's self-check at first use (``gpu_xorder.engine._selfcheck``, wired into
``_backend``) on the emulated device (``fake_cupy``).

A correct device passes and the CuPy backend is used; a device whose launches corrupt
one decision bit, one counter or one step of a path fails the check, naming the case:
``backend="auto"`` falls back to NumPy with one ``BackendFallbackWarning``,
``backend="cupy"`` raises, ``gpu-xorder info`` reports it. A CuPy that raises on import
makes ``auto`` fall back and ``info`` name the cause.
"""

import sys
import types
import warnings

import numpy as np
import pytest

from support import cuda_host
from support import fake_cupy
import gpu_xorder
from gpu_xorder import fair_order
from gpu_xorder.engine import _backend
from gpu_xorder.engine import _selfcheck
from gpu_xorder.engine._backend import BackendFallbackWarning, BackendUnavailableError
from gpu_xorder.cli import main

from support.problems import two_group_problem
from support.backends import cpu_backend
from support.engines import cupy_replaced_by

pytestmark = pytest.mark.usefixtures("plain_consoles")


def _args(parameters, args):
    return {name: a for (name, _, _), a in zip(parameters, args)}


def corrupting(monkeypatch, kernel, when, corrupt):
    """Replay every launch, then ``corrupt(args)`` (the launch's arguments by name) after
    the launches of ``kernel`` whose compile-time constants and arguments satisfy
    ``when(defines, args)``. Returns the list of corrupted launches."""
    real, hits = cuda_host.replay, []

    def replay(name, defines, grid, block, parameters, args):
        real(name, defines, grid, block, parameters, args)
        named = _args(parameters, args)
        if name == kernel and when(defines, named):
            corrupt(named)
            hits.append(name)

    monkeypatch.setattr(cuda_host, "replay", replay)
    return hits


def _flip_first_word(args):
    args["words"].reshape(-1)[0] ^= 1


def _last_tile(defines, args):
    """The launch of the tile diagonal that holds the last cell."""
    n_r = -(-int(args["n_a"]) // 32)
    n_j = -(-int(args["n_b"]) // defines["TILE_J"])
    return int(args["tile_diag"]) == n_r + n_j - 2


#: (corrupted kernel, launches to corrupt, the corruption, the case named, what differs)
CORRUPTIONS = {
    "decision bit, prf signed": (
        "tile_kernel",
        lambda d, a: (d["METRIC"], d["SIGNED"], int(a["tile_diag"])) == (1, 1, 0),
        _flip_first_word, "prf signed", "decision of cell (1, 1) differs"),
    "final counter, urf": (
        "tile_kernel", lambda d, a: d["METRIC"] == 2 and _last_tile(d, a),
        lambda a: a["colbuf"].__setitem__((0, 0, int(a["n_a"])),
                                          a["colbuf"][0, 0, int(a["n_a"])] + 1),
        "urf absolute", "final counters differs"),
    "iterative step": (
        "tile_kernel", lambda d, a: (d["OLD_GROUPS"], int(a["tile_diag"])) == (2, 0),
        _flip_first_word,
        "iterative steps xauc 40+30+20, step of 2 old group(s)", "decision of cell"),
    "device traceback": (
        "traceback_kernel", lambda d, a: True,
        lambda a: a["path"].reshape(-1).__setitem__(-1, 1 - a["path"].reshape(-1)[-1]),
        "xauc absolute", "path differs: rank"),
    "band walk": (  # the bottom band, walked first: its ranks are never written again
        "band_traceback_kernel", lambda d, a: int(a["row_offset"]) == 96,
        lambda a: a["path"].reshape(-1).__setitem__(-1, 1 - a["path"].reshape(-1)[-1]),
        "banded urf", "path differs: rank 159"),
    "K-D counters": (  # the last hyperplane: the final counters, not the path
        "kd_plane_kernel", lambda d, a: int(a["d"]) == 18, lambda a: a["cur"].__iadd__(1.0),
        "K-D xauc", "C counters differs"),
}


def _broken_device(monkeypatch, which):
    kernel, when, corrupt, case, what = CORRUPTIONS[which]
    return corrupting(monkeypatch, kernel, when, corrupt), case, what


def test_a_correct_emulated_device_passes(emulated_cupy):
    """Every case runs (each kernel the engine uses is launched) and agrees: the CuPy
    backend is chosen, ``info`` says so with the time."""
    before = dict(fake_cupy.LAUNCHES)
    usable, reason, module = _backend.cupy_status()
    assert (usable, reason, module) == (True, "ok", emulated_cupy)
    report = _backend._probe().selfcheck
    assert report.ok and report.kernel == "tiles" and report.mismatch is None
    # 6 whole cases x 3 lams, a band solve of 2, 2 iterative steps, 1 K-D lattice
    assert report.lattices == 6 * 3 + 2 + 2 + 1
    for kernel in ("tile_kernel", "traceback_kernel", "band_traceback_kernel",
                   "kd_plane_kernel", "kd_traceback_kernel"):
        assert fake_cupy.LAUNCHES.get(kernel, 0) > before.get(kernel, 0), kernel
    assert _backend.resolve_backend("auto") == "cupy"
    info = _backend.backend_info()
    assert info["self_check"].startswith("passed: 23 lattices (tiles kernel)")
    assert 0 < info["self_check_seconds"] < 30


def test_the_check_runs_once_per_process(emulated_cupy, monkeypatch):
    calls = []
    real = _selfcheck.run
    monkeypatch.setattr(_selfcheck, "run", lambda e: calls.append(e) or real(e))
    s, y, g = two_group_problem(np.random.default_rng(1), 30, 20)
    for _ in range(2):
        assert fair_order(s, y, g, lam=0.5, backend="auto").backend == "cupy"
        assert _backend.resolve_backend("cupy") == "cupy"
    assert main(["info"]) == 0
    assert calls == [emulated_cupy]


def test_the_strip_kernel_is_checked_where_it_is_the_default(emulated_cupy, monkeypatch):
    """With ``DEFAULT_KERNEL = "strips"`` the whole cases run on the strip kernel, plus
    a grid of one block for 15 strips; a flipped bit of a strip launch is found."""
    monkeypatch.setattr(emulated_cupy, "DEFAULT_KERNEL", "strips")
    tiles = fake_cupy.LAUNCHES.get("tile_kernel", 0)
    report = _selfcheck.run(emulated_cupy)
    assert report.ok and report.kernel == "strips" and report.lattices == 26
    assert fake_cupy.LAUNCHES.get("tile_kernel", 0) == tiles  # every 2-D fill on strips
    corrupting(monkeypatch, "strip_kernel", lambda d, a: d["METRIC"] == 1, _flip_first_word)
    report = _selfcheck.run(emulated_cupy)
    assert not report.ok and report.mismatch.case == "prf absolute 150x70"
    assert "decision of cell (1, 1)" in report.mismatch.what


@pytest.mark.parametrize("which", sorted(CORRUPTIONS))
def test_a_corrupted_device_is_found(emulated_cupy, monkeypatch, which):
    """One wrong decision bit, counter or path step in one launch: the report names the
    case and what differed."""
    hits, case, what = _broken_device(monkeypatch, which)
    report = _selfcheck.run(emulated_cupy)
    assert hits, "the corruption never happened"
    assert not report.ok
    assert report.mismatch.case.startswith(case), report.mismatch
    assert what in report.mismatch.what, report.mismatch
    assert report.summary().startswith("FAILED: " + case)


def test_auto_falls_back_with_one_warning_and_cupy_raises(emulated_cupy, monkeypatch,
                                                          capsys):
    """A flipped decision bit: ``auto`` runs NumPy (same result as ``"numpy"``) after
    one warning naming the mismatch, the next calls stay silent; ``"cupy"`` raises
    naming it; ``info`` reports it and the device."""
    _broken_device(monkeypatch, "decision bit, prf signed")
    s, y, g = two_group_problem(np.random.default_rng(2), 40, 30)
    with pytest.warns(BackendFallbackWarning) as caught:
        res = fair_order(s, y, g, lam=0.5, backend="auto")
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "self-check" in message and "prf signed 33x200" in message
    assert "decision of cell (1, 1)" in message
    assert res.backend == cpu_backend()
    np.testing.assert_array_equal(res.order,
                                  fair_order(s, y, g, lam=0.5, backend="numpy").order)
    with warnings.catch_warnings(record=True) as again:
        warnings.simplefilter("always")
        assert fair_order(s, y, g, lam=0.5, backend="auto").backend == cpu_backend()
        assert gpu_xorder.XOrder(lam=0.5).fit(s, y, sensitive_features=g).result_.backend \
            == cpu_backend()
    assert not [w for w in again if issubclass(w.category, BackendFallbackWarning)]
    with pytest.raises(BackendUnavailableError, match="self-check.*prf signed 33x200"):
        fair_order(s, y, g, lam=0.5, backend="cupy")
    capsys.readouterr()
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "self_check" in out and "FAILED: prf signed 33x200" in out
    assert "fake device (NumPy emulation)" in out and "unavailable" in out
    assert _backend.device_found()  # the gpu tests run, to show where it differs


def test_a_check_that_cannot_run_is_a_failure(emulated_cupy, monkeypatch):
    """A launch that raises (a compile or launch error on a device) during the check:
    unusable, with a warning under ``auto``."""
    def fail(args):
        raise RuntimeError("CUDA_ERROR_LAUNCH_FAILED")

    corrupting(monkeypatch, "kd_plane_kernel", lambda d, a: True, fail)
    usable, reason, module = _backend.cupy_status()
    assert not usable and module is None
    assert reason == ("the GPU self-check could not run (RuntimeError: "
                      "CUDA_ERROR_LAUNCH_FAILED)")
    with pytest.warns(BackendFallbackWarning, match="could not run"):
        assert _backend.resolve_backend("auto") == cpu_backend()
    assert _backend.backend_info()["self_check"] == "FAILED: " + reason


def test_the_cli_reports_a_passing_check(emulated_cupy, capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "passed: 23 lattices (tiles kernel) equal to NumPy" in out
    assert "self_check_seconds" in out and "usable" in out


# ------------------------------------------------------------------ a broken CuPy

class _BrokenCupy(types.ModuleType):
    """A CuPy whose first use raises, as a CUDA install without a matching driver
    does."""

    def __getattr__(self, name):
        raise RuntimeError("CUDA driver version is insufficient for CUDA runtime version")


ENGINE = "gpu_xorder.engine._cupy_engine"


@pytest.fixture
def broken_cupy():
    with cupy_replaced_by(_BrokenCupy("cupy")):
        yield


def test_a_cupy_that_raises_on_import(broken_cupy, capsys):
    """Not an ImportError: ``auto`` still runs NumPy (no crash, no warning: no device
    was found), ``"cupy"`` raises naming the cause, ``info`` reports it."""
    usable, reason, module = _backend.cupy_status()
    assert not usable and module is None
    assert reason == ("CuPy fails on import (RuntimeError: CUDA driver version is "
                      "insufficient for CUDA runtime version)")
    assert not _backend.device_found()
    assert ENGINE not in sys.modules
    s, y, g = two_group_problem(np.random.default_rng(3), 20, 20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fair_order(s, y, g, lam=0.5).backend == cpu_backend()
    with pytest.raises(BackendUnavailableError, match="CUDA driver version is insuffici"):
        fair_order(s, y, g, lam=0.5, backend="cupy")
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "CuPy fails on import (RuntimeError: CUDA driver version" in out
    assert "not run (no usable CUDA device)" in out
