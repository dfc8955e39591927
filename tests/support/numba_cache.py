"""numba's on-disk cache of the engine, dropped where it is stale (``tests/conftest.py``
calls :func:`drop_stale_numba_cache` once per run)."""

import hashlib
import os
from importlib.util import find_spec
from pathlib import Path


def engine_dir():
    """The folder of the ``gpu_xorder.engine`` that imports here."""
    return Path(find_spec("gpu_xorder.engine").submodule_search_locations[0])


def drop_stale_numba_cache(engine=None, environ=os.environ):
    """Delete the numba engine's cached functions (``_numba_*.nbi`` and ``.nbc`` in
    :func:`cache_dir`) where any ``_numba_*.py`` of the engine (``engine``: its folder,
    default :func:`engine_dir`) is newer than one of them.

    numba checks a cached function against its own file only, and the strip loops of
    ``_numba_tiles.py`` inline the kernels of ``_numba_kernels.py``: after an edit of the
    kernels the tests would load the strip loops compiled from the old code (and pass on
    it). An installed release writes every file anew; a developer's tree does not.
    Never raises: a file gone since the listing (another run's drop, numba's rewrite)
    is passed over, and a delete refused (a read-only tree, where numba caches
    elsewhere) leaves the file.
    """
    engine = engine_dir() if engine is None else Path(engine)
    cached = list(cache_dir(engine, environ).glob("_numba_*.nb[ic]"))
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


def cache_dir(engine, environ=os.environ):
    """The folder where numba caches the functions of the modules in ``engine``: its
    ``__pycache__``, or with ``NUMBA_CACHE_DIR`` a folder there named by the engine's
    folder and the SHA-1 of its path (numba's ``UserProvidedCacheLocator``)."""
    where = environ.get("NUMBA_CACHE_DIR")
    if not where:
        return engine / "__pycache__"
    path = os.path.abspath(engine)
    return Path(where) / f"{engine.name}_{hashlib.sha1(path.encode()).hexdigest()}"


def _mtime(path):
    """``path``'s modification time, None where it cannot be read (gone)."""
    try:
        return path.stat().st_mtime
    except OSError:
        return None
