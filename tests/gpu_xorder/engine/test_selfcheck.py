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

import cpu_reference as cr
import gpu_xorder
from gpu_xorder import fair_order
from gpu_xorder.cli import main
from gpu_xorder.engine import _backend, _selfcheck
from gpu_xorder.engine._backend import BackendFallbackWarning, BackendUnavailableError
from support import cuda_host, fake_cupy
from support.backends import cpu_backend
from support.engines import cupy_replaced_by
from support.problems import two_group_problem

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
        _flip_first_word, "tile_kernel (prf, signed, 1 old group(s), tiles of 64 columns)",
        "decision of cell (1, 1) differs"),
    "final counter, urf": (
        "tile_kernel", lambda d, a: d["METRIC"] == 2 and _last_tile(d, a),
        lambda a: a["colbuf"].__setitem__((0, 0, int(a["n_a"])),
                                          a["colbuf"][0, 0, int(a["n_a"])] + 1),
        "tile_kernel (urf, ", "final counters differs"),
    "iterative step": (
        "tile_kernel", lambda d, a: (d["OLD_GROUPS"], int(a["tile_diag"])) == (2, 0),
        _flip_first_word,
        "tile_kernel (xauc, absolute, 2 old group(s), tiles of 32 columns)",
        "decision of cell"),
    "device traceback": (
        "traceback_kernel", lambda d, a: True,
        lambda a: a["path"].reshape(-1).__setitem__(-1, 1 - a["path"].reshape(-1)[-1]),
        "traceback_kernel (no constants)", "path differs: rank"),
    "band walk": (  # the bottom band, walked first: its ranks are never written again
        "band_traceback_kernel", lambda d, a: int(a["row_offset"]) == 96,
        lambda a: a["path"].reshape(-1).__setitem__(-1, 1 - a["path"].reshape(-1)[-1]),
        "banded urf", "path differs: rank 159"),
    "K-D counters": (  # the last hyperplane: the final counters, not the path
        "kd_plane_kernel", lambda d, a: int(a["d"]) == 18, lambda a: a["cur"].__iadd__(1.0),
        "K-D xauc", "C counters differs"),
}


#: The lattices of the self-check (tile kernel): 6 whole cases x 3 lams, several blocks
#: per diagonal x 3, the big batch, a band solve of 2, 3 iterative steps per metric, a
#: K-D lattice per metric.
LATTICES = 6 * 3 + 3 + _selfcheck.BIG_BATCH + 2 + 3 * 3 + 3
VARIANT = "tile_kernel (prf, signed, 1 old group(s), tiles of 64 columns)"


@pytest.fixture
def emulated_tiles(emulated_cupy, monkeypatch):
    """The emulated engine with the tile kernel as its 2-D fill (the corruptions below
    are of tile launches; the strip kernel, the default on compute capability 7.0 and
    newer, has its own test)."""
    assert emulated_cupy.default_kernel() == "strips"
    monkeypatch.setattr(emulated_cupy, "DEFAULT_KERNEL", "tiles")
    return emulated_cupy


@pytest.fixture
def small_batch(monkeypatch):
    """The check's big batch of 6 lattices, not MAX_GRID_Y + 3 (0.4 s of each check),
    for the tests of what the check does with its cases (runs once, names the case a
    corruption shows in, falls back, fails where it cannot run): the big batch never
    meets their corruptions (xAUC, absolute, one old group, after the whole cases).
    The tests that count the check's lattices keep it whole."""
    monkeypatch.setattr(_selfcheck, "BIG_BATCH", 6)


def _broken_device(monkeypatch, which):
    kernel, when, corrupt, case, what = CORRUPTIONS[which]
    return corrupting(monkeypatch, kernel, when, corrupt), case, what


def test_a_correct_emulated_device_passes(emulated_tiles):
    """Every case runs (each kernel the engine uses is launched) and agrees: the CuPy
    backend is chosen, ``info`` says so with the time."""
    before = dict(fake_cupy.LAUNCHES)
    usable, reason, module = _backend.cupy_status()
    assert (usable, reason, module) == (True, "ok", emulated_tiles)
    report = _backend._probe().selfcheck
    assert report.ok and report.kernel == "tiles" and report.mismatch is None
    # 6 whole cases x 3 lams, several blocks x 3, the big batch, a band solve of 2, 3
    # iterative steps per metric, 1 K-D lattice per metric
    assert report.lattices == LATTICES
    for kernel in ("tile_kernel", "traceback_kernel", "band_traceback_kernel",
                   "kd_plane_kernel", "kd_traceback_kernel"):
        assert fake_cupy.LAUNCHES.get(kernel, 0) > before.get(kernel, 0), kernel
    assert _backend.resolve_backend("auto") == "cupy"
    info = _backend.backend_info()
    assert info["self_check"].startswith(f"passed: {LATTICES} lattices (tiles kernel)")
    assert 0 < info["self_check_seconds"] < 30


@pytest.mark.usefixtures("small_batch")
def test_the_check_runs_once_per_process(emulated_tiles, monkeypatch):
    calls = []
    real = _selfcheck.run
    monkeypatch.setattr(_selfcheck, "run", lambda e: calls.append(e) or real(e))
    s, y, g = two_group_problem(np.random.default_rng(1), 30, 20)
    for _ in range(2):
        assert fair_order(s, y, g, lam=0.5, backend="auto").backend == "cupy"
        assert _backend.resolve_backend("cupy") == "cupy"
    assert main(["info"]) == 0
    assert calls == [emulated_tiles]


def test_the_strip_kernel_is_checked_where_it_is_the_default(emulated_tiles, monkeypatch):
    """With ``DEFAULT_KERNEL = "strips"`` the whole cases run on the strip kernel, plus
    a grid of one block for 15 strips; a flipped bit of a strip launch is found."""
    monkeypatch.setattr(emulated_tiles, "DEFAULT_KERNEL", "strips")
    tiles = fake_cupy.LAUNCHES.get("tile_kernel", 0)
    report = _selfcheck.run(emulated_tiles)
    assert report.ok and report.kernel == "strips" and report.lattices == LATTICES + 3
    assert fake_cupy.LAUNCHES.get("tile_kernel", 0) == tiles  # every 2-D fill on strips
    corrupting(monkeypatch, "strip_kernel", lambda d, a: d["METRIC"] == 1, _flip_first_word)
    report = _selfcheck.run(emulated_tiles)
    # the variants were checked in the run above: the whole case finds it
    assert not report.ok and report.mismatch.case == "prf absolute 150x70"
    assert "decision of cell (1, 1)" in report.mismatch.what


@pytest.mark.parametrize("which", sorted(CORRUPTIONS))
@pytest.mark.usefixtures("small_batch")
def test_a_corrupted_device_is_found(emulated_tiles, monkeypatch, which):
    """One wrong decision bit, counter or path step in one launch: the report names the
    case and what differed."""
    hits, case, what = _broken_device(monkeypatch, which)
    report = _selfcheck.run(emulated_tiles)
    assert hits, "the corruption never happened"
    assert not report.ok
    assert report.mismatch.case.startswith(case), report.mismatch
    assert what in report.mismatch.what, report.mismatch
    assert report.summary().startswith("FAILED: " + case)


@pytest.mark.usefixtures("small_batch")
def test_auto_falls_back_with_one_warning_and_cupy_raises(emulated_tiles, monkeypatch,
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
    assert "self-check" in message and VARIANT in message
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
    with pytest.raises(BackendUnavailableError, match=r"self-check.*tile_kernel \(prf, sig"):
        fair_order(s, y, g, lam=0.5, backend="cupy")
    capsys.readouterr()
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "self_check" in out and "FAILED: " + VARIANT in out
    assert "fake device (NumPy emulation)" in out and "unavailable" in out
    assert _backend.device_found()  # the gpu tests run, to show where it differs


@pytest.mark.usefixtures("small_batch")
def test_a_check_that_cannot_run_is_a_failure(emulated_tiles, monkeypatch):
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


def test_the_cli_reports_a_passing_check(emulated_tiles, capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert f"passed: {LATTICES} lattices (tiles kernel) equal to NumPy" in out
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


# ------------------------------------------------------------------ every variant

def test_every_variant_a_fit_can_reach_passes_its_check(emulated_tiles):
    """``prepare(every_variant())`` (``gpu-xorder info --warm``): the 182 variants of
    the engine's own choices (two groups in both modes, iterative steps of 1 to 19 old
    groups at every tile width, strips, K-D, tracebacks) compile and each solves its
    small lattice as NumPy does; a second call has nothing left to do."""
    from gpu_xorder.engine import _plan

    variants = _plan.every_variant()
    assert len(variants) == 182
    names = {name for name, _ in variants}
    assert names == {"tile_kernel", "strip_kernel", "traceback_kernel",
                     "band_traceback_kernel", "kd_plane_kernel", "kd_traceback_kernel"}
    assert {c["TILE_J"] for n, c in variants if n == "tile_kernel"} == {32, 64}
    assert emulated_tiles.prepare(variants) > 0
    assert len(emulated_tiles._CHECKED) >= len(variants)
    assert emulated_tiles.prepare(variants) == 0


@pytest.mark.usefixtures("small_batch")
def test_a_variant_the_self_check_never_runs_is_checked_at_its_first_use(
        emulated_tiles, monkeypatch):
    """A fit that reaches a variant outside the self-check (URF, 5 old groups, tiles of
    64 columns) with a wrong decision bit: the variant's own check stops it before it
    fills the user's lattice, naming the variant; NumPy gives the answer meanwhile."""
    from gpu_xorder.engine import _launch

    usable, _, _ = _backend.cupy_status()
    assert usable
    corrupting(monkeypatch, "tile_kernel",
               lambda d, a: (d["METRIC"], d["OLD_GROUPS"], d["TILE_J"],
                             int(a["tile_diag"])) == (2, 5, 64, 0), _flip_first_word)
    rng = np.random.default_rng(5)
    s = rng.integers(0, 6, 120) / 5.0
    y = rng.integers(0, 2, 120)
    g = np.arange(120) % 6
    prob = cr.build_problem(s, y, g, 6, "urf", "absolute")
    steps = []

    def solve(lat, lam, progress=None):
        steps.append(lat.m)
        _launch.fill_tiled(emulated_tiles.DEVICE, lat, [lam], 64 if lat.m == 5 else 32)
        return cr.solve_lattice(lat, lam)

    with pytest.raises(emulated_tiles.KernelCheckError,
                       match=r"tile_kernel \(urf, absolute, 5 old group\(s\), tiles of 64 "
                             r"columns\).*decision of cell \(1, 1\)"):
        cr.solve_iterative(prob, 0.5, solve=solve)
    assert steps == [1, 2, 3, 4, 5]


@pytest.mark.usefixtures("small_batch")
def test_info_warm_compiles_every_variant(emulated_tiles, capsys, monkeypatch):
    """``gpu-xorder info --warm``: every variant compiled (in worker processes on a
    device; the emulated device's launches live in this process, so threads here) and
    checked, the count and the seconds said; a second run finds them all compiled."""
    real, asked = emulated_tiles.prepare, []

    def prepare(variants, jobs=None, processes=False):
        asked.append((len(variants), processes))
        return real(variants, jobs)

    monkeypatch.setattr(emulated_tiles, "prepare", prepare)
    assert main(["info", "--warm"]) == 0
    assert (182, True) in asked
    out = capsys.readouterr().out
    assert "warm: 182 kernel variants ready (" in out and "checked against NumPy" in out
    assert main(["info", "--warm"]) == 0
    assert "ready (0 compiled" in capsys.readouterr().out


def test_info_warm_without_a_device_is_a_usage_error(broken_cupy, capsys):
    assert main(["info", "--warm"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --warm needs a usable GPU engine: CuPy fails on import")
    assert len(err.strip().splitlines()) == 1
