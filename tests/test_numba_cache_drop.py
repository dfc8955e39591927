"""Attacks on the stale numba cache drop of the test session (``support.numba_cache``,
run by ``tests/conftest.py`` at import): it must drop the engine's cached functions where
a compiled module is newer, in the folder numba reads them from, and never fail the
session (a cache file that vanishes between the listing and its stat, as when another
run drops or numba rewrites it; a tree it may not write)."""

import os
import shutil
from pathlib import Path

import pytest

from support import numba_cache
from support.numba_cache import cache_dir, drop_stale_numba_cache, engine_dir


def fake_engine(root, cache=None):
    """An engine folder with two compiled modules and their cached functions (in
    ``cache``, default its ``__pycache__``), the cache older than the sources."""
    engine = root / "engine"
    engine.mkdir()
    cache = engine / "__pycache__" if cache is None else cache
    cache.mkdir(parents=True, exist_ok=True)
    files = []
    for name in ("_numba_kernels", "_numba_tiles"):
        files += [cache / f"{name}.f-10.py311.nbi", cache / f"{name}.f-10.py311.1.nbc"]
    for path in files:
        path.write_bytes(b"x")
        os.utime(path, (1_000, 1_000))
    for name in ("_numba_kernels.py", "_numba_tiles.py", "_plan.py"):
        (engine / name).write_text("")
        os.utime(engine / name, (2_000, 2_000))
    return engine, files


def test_a_stale_cache_is_dropped_and_a_fresh_one_kept(tmp_path):
    engine, files = fake_engine(tmp_path)
    os.utime(engine / "_numba_tiles.py", (500, 500))
    os.utime(engine / "_numba_kernels.py", (500, 500))
    drop_stale_numba_cache(engine, environ={})
    assert all(path.exists() for path in files)  # every cached function is newer
    os.utime(engine / "_numba_kernels.py", (2_000, 2_000))
    drop_stale_numba_cache(engine, environ={})
    assert not any(path.exists() for path in files)


def test_a_cache_file_gone_before_its_stat_does_not_fail_the_session(tmp_path):
    """A cached function listed, then deleted by another run (or replaced by numba)
    before its time stamp is read: a dangling link stands for it."""
    engine, files = fake_engine(tmp_path)
    for path in files:  # a fresh cache: every time stamp is read
        os.utime(path, (3_000, 3_000))
    (engine / "__pycache__" / "_numba_gone.f-3.py311.nbi").symlink_to(tmp_path / "none")
    drop_stale_numba_cache(engine, environ={})
    assert all(path.exists() for path in files)


def test_a_tree_it_may_not_write_does_not_fail_the_session(tmp_path, monkeypatch):
    """A read-only tree (an installed package, a mounted checkout): the deletes fail
    (root ignores the mode bits here, so the failure is forced)."""
    engine, files = fake_engine(tmp_path)

    def refused(self, missing_ok=False):
        raise PermissionError(13, "Read-only file system", str(self))

    monkeypatch.setattr(Path, "unlink", refused)
    drop_stale_numba_cache(engine, environ={})
    assert all(path.exists() for path in files)


def test_no_engine_cache_folder(tmp_path):
    engine = tmp_path / "engine"
    engine.mkdir()
    (engine / "_numba_kernels.py").write_text("")
    drop_stale_numba_cache(engine, environ={})  # nothing cached: nothing to do
    assert not (engine / "__pycache__").exists()


def test_the_cache_numba_cache_dir_names_is_dropped_too(tmp_path):
    """With ``NUMBA_CACHE_DIR`` numba keeps the engine's functions in a folder of its own
    there: the one its ``UserProvidedCacheLocator`` names (the oracle)."""
    caching = pytest.importorskip("numba.core.caching")
    engine = tmp_path / "engine"
    where = tmp_path / "numba_cache"
    folder = Path(where) / caching._CacheLocator.get_suitable_cache_subpath(
        str(engine / "_numba_kernels.py"))
    in_tree = engine / "__pycache__"
    engine, files = fake_engine(tmp_path, cache=folder)
    in_tree.mkdir()
    kept = in_tree / "_numba_kernels.f-10.py311.nbi"  # not numba's folder here: kept
    kept.write_bytes(b"x")
    os.utime(kept, (1_000, 1_000))
    drop_stale_numba_cache(engine, environ={"NUMBA_CACHE_DIR": str(where)})
    assert not any(path.exists() for path in files)
    assert kept.exists()


# ------------------------------------------------------------------ the warm-up

def test_the_warm_up_starts_nothing_without_numba(monkeypatch):
    """The base install: no process is started, the session goes on."""
    def started(*args, **kwargs):
        raise AssertionError("a warm-up process was started")

    monkeypatch.setattr(numba_cache, "find_spec", lambda name: None)
    monkeypatch.setattr(numba_cache.subprocess, "Popen", started)
    assert numba_cache.warm_numba_cache() is False


def test_a_failed_warm_up_does_not_fail_the_session(tmp_path):
    """A warm-up whose fits outrun their time (here at once) is killed and passed
    over."""
    environ = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    assert numba_cache.warm_numba_cache(environ=environ, timeout=0.01) is True


@pytest.mark.slow
def test_the_warm_up_fills_an_empty_cache(tmp_path):
    """Into an empty ``NUMBA_CACHE_DIR``: every compiled module of the engine has its
    functions cached (the fronts, the polish, the relinks, the kernels, the strip
    loops), as the workers then load them."""
    pytest.importorskip("numba")
    environ = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    assert numba_cache.warm_numba_cache(environ=environ) is True
    cached = {path.name.split(".")[0]
              for path in cache_dir(engine_dir(), environ).glob("_numba_*.nbi")}
    assert cached == {path.stem for path in engine_dir().glob("_numba_*.py")
                      if path.stem != "_numba_engine"}


def test_the_workers_wait_for_the_warm_up_to_end(monkeypatch):
    """``start_warm_up`` names its end marker in the environment the workers inherit;
    ``wait_for_warm_up`` returns only once the warm-up ended (here a fit that takes
    0.3 s), or False at its own time limit; without the variable, at once."""
    import threading

    release = threading.Event()

    def slow_warm_up(environ, timeout):
        release.wait(5)

    monkeypatch.setattr(numba_cache, "find_spec", lambda name: object())
    monkeypatch.setattr(numba_cache, "warm_numba_cache", slow_warm_up)
    environ = {}
    folder = numba_cache.start_warm_up(environ=environ)
    try:
        assert environ[numba_cache.WARM_UP_DONE] == str(folder / "done")
        assert numba_cache.wait_for_warm_up(environ=environ, timeout=0.2) is False
        threading.Timer(0.3, release.set).start()
        assert numba_cache.wait_for_warm_up(environ=environ, timeout=10) is True
        assert (folder / "done").exists()
    finally:
        release.set()
        shutil.rmtree(folder, ignore_errors=True)
    assert numba_cache.wait_for_warm_up(environ={}, timeout=0) is True


def test_a_warm_up_that_fails_still_lets_the_workers_go(monkeypatch):
    """The marker is written however the warm-up ends, an exception included."""
    def broken(environ, timeout):
        raise OSError("no processes here")

    monkeypatch.setattr(numba_cache, "find_spec", lambda name: object())
    monkeypatch.setattr(numba_cache, "warm_numba_cache", broken)
    environ = {}
    folder = numba_cache.start_warm_up(environ=environ)
    try:
        assert numba_cache.wait_for_warm_up(environ=environ, timeout=10) is True
    finally:
        shutil.rmtree(folder, ignore_errors=True)
