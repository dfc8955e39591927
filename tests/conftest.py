"""Session settings of the test suite.

- GPU tests (``@pytest.mark.gpu``) are skipped where CuPy sees no device; where the
  device failed the engine's self-check they run, to show where it differs.
- Slow tests (``@pytest.mark.slow``) repeat, on larger inputs, a property that a test
  of the default run already checks on small ones. They are skipped unless the run asks
  for them: ``--run-slow`` runs them with the rest, and a ``-m`` expression that names
  ``slow`` (``-m slow``: only they) decides on its own. A hook rather than
  ``addopts = -m "not slow"``, which a ``-m`` given on the command line would replace.
- ``engine`` runs a test on every engine, ``compiled_engine`` on every engine but the
  NumPy one, ``emulated_cupy`` on the CuPy engine over the emulated device
  (``support.engines``).
- Hypothesis runs the profile ``ci`` (derandomised) unless ``HYPOTHESIS_PROFILE`` or
  ``--hypothesis-profile`` names another, such as ``deep`` (20 times the examples);
  property tests size themselves by ``support.properties.examples``.
- BLAS runs on one thread, in this process and in the processes it starts, unless the
  caller set a thread count: on a busy 2-core machine OpenBLAS's own threads made one
  logistic regression of the README's former quick start take 22 s instead of 1 s.
- numba's cache of the engine is dropped where one of its compiled modules is newer
  than a cached function, in ``__pycache__`` or ``NUMBA_CACHE_DIR``
  (``support.numba_cache``), once per run (not in xdist's
  workers, which start after it).
- When the whole suite runs on two or more xdist workers, two processes side by side
  compile the numba engine into that cache while the workers collect, and the workers
  run their first test after it (``start_warm_up``, ``wait_for_warm_up``; about 2 s
  where the cache is full): on an empty cache each worker compiled the same kernels at
  once, 60 s of a cold run's 80 s on four test files.
- A test process that inherits SIGINT ignored restores Python's handler (below).
"""

import os
import shutil
import signal

import pytest

# A process started in the background by a non-interactive shell (`bash .ci/run &`)
# inherits SIGINT ignored, and so would every child the Ctrl-C tests start: they
# interrupt those children, which must see it as a user's Ctrl-C (Python installs its
# handler only where SIGINT is not ignored at start).
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

_BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
if not any(name in os.environ for name in _BLAS_THREADS):
    from threadpoolctl import threadpool_limits

    os.environ.update(dict.fromkeys(_BLAS_THREADS, "1"))
    threadpool_limits(1)

from support import engines, properties  # noqa: E402 (NumPy after the thread counts)
from support.device_timeout import terminal_fd  # noqa: E402, F401 (the device's time limit)
from support.numba_cache import (  # noqa: E402
    drop_stale_numba_cache,
    start_warm_up,
    wait_for_warm_up,
)

properties.register()

#: The folder of the numba warm-up's end marker (``start_warm_up``), in xdist's controller.
_WARM_UP = pytest.StashKey()


if "PYTEST_XDIST_WORKER" not in os.environ:
    drop_stale_numba_cache()


def pytest_addoption(parser):
    parser.addoption("--run-slow", action="store_true", default=False,
                     help="also run the tests marked slow (larger inputs)")


def pytest_configure(config):
    workers = len(getattr(config.option, "tx", None) or ())  # xdist's -n: its workers
    if ("PYTEST_XDIST_WORKER" not in os.environ and workers >= 2
            and not config.option.collectonly
            and config.args_source == pytest.Config.ArgsSource.TESTPATHS):
        config.stash[_WARM_UP] = start_warm_up()


def pytest_collection_finish(session):
    if "PYTEST_XDIST_WORKER" in os.environ:  # the workers collect during the warm-up
        wait_for_warm_up()


def pytest_unconfigure(config):
    folder = config.stash.get(_WARM_UP, None)
    if folder is not None:
        wait_for_warm_up(timeout=60)
        shutil.rmtree(folder, ignore_errors=True)


def pytest_collection_modifyitems(config, items):
    if not config.getoption("--run-slow") and "slow" not in (config.option.markexpr or ""):
        skip_slow = pytest.mark.skip(reason="slow: run with --run-slow (or -m slow)")
        for item in items:
            if "slow" in item.keywords:
                item.add_marker(skip_slow)
    gpu_items = [item for item in items if "gpu" in item.keywords]
    if not gpu_items:
        return
    from gpu_xorder.engine._backend import cupy_status, device_found

    usable, reason, _ = cupy_status()
    if usable or device_found():
        return
    skip = pytest.mark.skip(reason=f"no usable CUDA device: {reason}")
    for item in gpu_items:
        item.add_marker(skip)


@pytest.fixture(params=engines.params(engines.ENGINES))
def engine(request):
    """Each engine in turn (``support.engines.Engine``): ``numpy``, ``numba`` (skipped
    where numba is missing), ``cupy-emulated`` (the CuPy engine over ``fake_cupy``;
    skipped without nvcc) and ``cupy`` (a real device; marked ``gpu``)."""
    with engines.engine(request.param, request) as one:
        yield one


@pytest.fixture(params=engines.params(engines.COMPILED))
def compiled_engine(request):
    """``engine`` but for NumPy: the engines checked against the NumPy one."""
    with engines.engine(request.param, request) as one:
        yield one


@pytest.fixture
def emulated_cupy():
    """The module ``gpu_xorder.engine._cupy_engine`` over ``fake_cupy`` (every launch
    replayed by the kernels' host build: needs nvcc), for what only the emulated device
    shows (its launches, free memory, compute capability); the real state is restored
    afterwards."""
    with engines.emulated_cupy() as module:
        yield module


@pytest.fixture
def plain_consoles(monkeypatch):
    """The command line's consoles colourless and not a terminal (so that no line
    wraps), writing to the (captured) standard streams; command-line test modules use
    it for every test."""
    from gpu_xorder.cli import _output

    kwargs = dict(color_system=None, force_terminal=False, highlight=False)
    monkeypatch.setattr(_output, "console", _output.Output(**kwargs))
    monkeypatch.setattr(_output, "err_console", _output.Output(stderr=True, **kwargs))
