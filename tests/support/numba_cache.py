"""numba's on-disk cache of the engine, dropped where it is stale (``tests/conftest.py``
calls :func:`drop_stale_numba_cache` once per run) and filled while xdist's workers
collect, before they run a test (:func:`start_warm_up`, :func:`wait_for_warm_up`)."""

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
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


#: The fits of :func:`warm_numba_cache`, one process each, of about equal compile time
#: on an empty cache: the exact solver on two groups (the compiled fronts, the polish,
#: the relinks and the cell rule's kernels; about 16 s) and iterative steps on three
#: groups for every metric (the strip loops; about 13 s).
WARM_UP_FITS = (({"solver": "exact"}, 2, ["xauc"]),
                ({"method": "iterative"}, 3, ["xauc", "prf", "urf"]))

_WARM_UP = """
import json, sys, warnings
import numpy as np
from gpu_xorder import XOrder
warnings.simplefilter("ignore")
params, k, metrics = json.loads(sys.argv[1])
rng = np.random.default_rng(0)
s, y, g = rng.random(12 * k), rng.integers(0, 2, 12 * k), np.repeat(np.arange(k), 12)
y[::12], y[1::12] = 1, 0
for metric in metrics:
    XOrder(lam=0.5, metric=metric, backend="numba", **params).fit(
        s, y, sensitive_features=g)
"""


def warm_numba_cache(engine=None, environ=os.environ, timeout=600):
    """Compile the numba engine's kernels into its cache (or load them from it) by the
    fits of :data:`WARM_UP_FITS`, in processes side by side; return whether they ran
    (not where numba is missing).

    Run before xdist's workers start: on an empty or partial cache (CI's fresh
    checkout, every edit of the engine) each worker would compile the same kernels at
    its first fits, at once (a test of the command line's demo and one of the compiled
    beam took 29 s and 27 s of the two workers of one cold run); the workers then load
    them. On a full cache the processes take about 2 s. They import the
    ``gpu_xorder`` the session imports (``engine``: its engine folder, default
    :func:`engine_dir`). Never raises: a failed or timed-out fit is passed over (the
    tests compile what it did not).
    """
    if find_spec("numba") is None:
        return False
    engine = engine_dir() if engine is None else Path(engine)
    env = dict(environ, PYTHONPATH=os.pathsep.join(
        [str(engine.parents[1])] + [p for p in [environ.get("PYTHONPATH")] if p]))
    procs = [subprocess.Popen([sys.executable, "-c", _WARM_UP, json.dumps(fits)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for fits in WARM_UP_FITS]
    for proc in procs:
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return True


#: The environment variable by which xdist's workers learn where the controller's
#: warm-up (:func:`start_warm_up`) marks its end.
WARM_UP_DONE = "GPU_XORDER_TESTS_NUMBA_WARM_UP_DONE"


def start_warm_up(environ=os.environ, timeout=600):
    """:func:`warm_numba_cache` in a thread of this process (xdist's controller), its end
    marked by a file named in ``environ[WARM_UP_DONE]`` (set here, before the workers
    start: they inherit it and wait for it in :func:`wait_for_warm_up`, after their
    collection, which so runs while the kernels compile). Returns the marker's folder
    (the caller removes it), or None where numba is missing."""
    if find_spec("numba") is None:
        return None
    folder = Path(tempfile.mkdtemp(prefix="gpu-xorder-tests-warm-up-"))
    environ[WARM_UP_DONE] = str(folder / "done")

    def warm():
        try:
            warm_numba_cache(environ=environ, timeout=timeout)
        except Exception:  # noqa: BLE001 (passed over: the tests compile what it did not)
            pass
        finally:
            (folder / "done").touch()

    threading.Thread(target=warm, name="numba warm-up", daemon=True).start()
    return folder


def wait_for_warm_up(environ=os.environ, timeout=600, poll=0.05):
    """In a worker: wait until the controller's warm-up (:func:`start_warm_up`) ended,
    at most ``timeout`` seconds (then the tests compile what it did not); return
    whether it had ended. Without the variable (no warm-up), at once True."""
    done = environ.get(WARM_UP_DONE)
    if not done:
        return True
    deadline = time.monotonic() + timeout
    while not os.path.exists(done):
        if time.monotonic() > deadline:
            return False
        time.sleep(poll)
    return True
