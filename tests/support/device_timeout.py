"""A time limit per device test that names the test that hangs (no pytest-timeout on
the device machine, and no network to install it).

A kernel that never finishes hangs its test inside a CUDA synchronisation, where no
Python exception can reach it: so at the limit a watchdog thread writes which test ran
past it and every thread's stack to the terminal (the stderr pytest had before it
captured the output) and ends the process (status ``EXIT_STATUS``). Where the hang
holds the GIL and the thread cannot run, ``faulthandler`` (a C thread) dumps the
stacks, which name the test function, ``grace`` seconds later and ends the process
(status 1). A SIGTERM (the ``timeout`` of a stage of ``benchmarks/gpu_check.sh``) dumps
the stacks too before the process ends. Import the two fixtures into a test module;
``time_limit`` is autouse there:

    from support.device_timeout import terminal_fd, time_limit  # noqa: F401

``@pytest.mark.timeout(seconds)`` sets a test's limit (default ``DEFAULT_SECONDS``; the
marker is pytest-timeout's, which honours it too where installed).
"""

import faulthandler
import os
import signal
import threading

import pytest

DEFAULT_SECONDS = 120
GRACE_SECONDS = 10
EXIT_STATUS = 3


def arm(name, seconds, fd, grace=GRACE_SECONDS):
    """Start the watchdog of the test ``name``; returns the function that stops it."""
    def expire():
        os.write(fd, f"\n=== TIMEOUT: {name} ran past its limit of {seconds} s; the "
                     "stacks of every thread follow and the run stops\n".encode())
        faulthandler.dump_traceback(file=fd, all_threads=True)
        os._exit(EXIT_STATUS)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    faulthandler.dump_traceback_later(seconds + grace, exit=True, file=fd)

    def disarm():
        timer.cancel()
        faulthandler.cancel_dump_traceback_later()

    return disarm


@pytest.fixture(scope="session")
def terminal_fd(pytestconfig):
    """A copy of the stderr pytest found at its start, which its output capture does
    not redirect; a SIGTERM meanwhile writes every thread's stack there."""
    capman = pytestconfig.pluginmanager.getplugin("capturemanager")
    if capman is None:
        fd = os.dup(2)
    else:
        with capman.global_and_fixture_disabled():
            fd = os.dup(2)
    faulthandler.register(signal.SIGTERM, file=fd, all_threads=True, chain=True)
    yield fd
    faulthandler.unregister(signal.SIGTERM)
    os.close(fd)


@pytest.fixture(autouse=True)
def time_limit(request, terminal_fd):
    marker = request.node.get_closest_marker("timeout")
    seconds = marker.args[0] if marker and marker.args else DEFAULT_SECONDS
    disarm = arm(request.node.nodeid, seconds, terminal_fd, GRACE_SECONDS)
    yield
    disarm()
