"""numba's on-disk cache of the engine, dropped where it is stale (``tests/conftest.py``
calls :func:`drop_stale_numba_cache` once per run)."""

import os
from importlib.util import find_spec
from pathlib import Path


def engine_dir():
    """The folder of the ``gpu_xorder.engine`` that imports here."""
    return Path(find_spec("gpu_xorder.engine").submodule_search_locations[0])


def drop_stale_numba_cache(engine=None, environ=os.environ):
    """Delete the numba engine's cached functions (``__pycache__/_numba_*.nbi`` and
    ``.nbc``) where any ``_numba_*.py`` of the engine (``engine``: its folder, default
    :func:`engine_dir`) is newer than one of them.

    numba checks a cached function against its own file's time stamp only, and the strip
    loops of ``_numba_tiles.py`` inline the kernels of ``_numba_kernels.py``: after an edit
    of the kernels the tests would load the strip loops compiled from the old code (and
    pass on it). An installed release writes every file anew; a developer's tree does not.
    Left alone where ``NUMBA_CACHE_DIR`` puts the cache elsewhere. Never raises: a file
    gone since the listing (another run's drop, numba's rewrite) is passed over, and a
    delete refused (a read-only tree, where numba caches elsewhere) leaves the file.
    """
    if environ.get("NUMBA_CACHE_DIR"):
        return
    engine = engine_dir() if engine is None else Path(engine)
    cached = list((engine / "__pycache__").glob("_numba_*.nb[ic]"))
    sources = list(engine.glob("_numba_*.py"))
    if not cached or not sources:
        return
    newest = max((t for t in map(_mtime, sources) if t is not None), default=None)
    if newest is None:
        return
    stamps = (_mtime(path) for path in cached if path.suffix == ".nbi")
    if any(t is not None and t < newest for t in stamps):
        for path in cached:
            try:
                path.unlink(missing_ok=True)
            except OSError:
                pass


def _mtime(path):
    """``path``'s modification time, None where it cannot be read (gone)."""
    try:
        return path.stat().st_mtime
    except OSError:
        return None
