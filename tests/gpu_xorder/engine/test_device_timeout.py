"""The device tests' time limit (``tests/support/device_timeout.py``) in a pytest run of its
own: a test that hangs is named and the run stops, whether the hang lets Python
threads run (a sleep, a CUDA synchronisation that releases the GIL) or holds the GIL
(a C call that never returns); a SIGTERM from outside shows where it hung."""

import os
import signal
import subprocess
import sys
import textwrap
import time

from support import REPO, device_timeout

TESTS = REPO / "tests"
ENV = {"PYTHONPATH": str(TESTS), "PATH": "/usr/bin:/bin"}

HANGING = '''
import ctypes
import time

import pytest

from support import device_timeout
from support.device_timeout import terminal_fd, time_limit  # noqa: F401

device_timeout.GRACE_SECONDS = 1


@pytest.mark.timeout(0.5)
@pytest.mark.parametrize("k", range(3))
def test_quick(k):  # 0.6 s in all: each limit ends with its test
    time.sleep(0.2)


@pytest.mark.timeout({limit})
@pytest.mark.parametrize("where", ["{where}"])
def test_hangs(where):
    print("captured output of the test")
    if where == "python":
        time.sleep(60)
    else:
        ctypes.PyDLL(None).sleep(60)  # libc's sleep, the GIL held


def test_never_reached():
    pass
'''


def hanging(tmp_path, where, limit=0.5):
    """The command running ``HANGING`` and the line of its hang."""
    test = tmp_path / "test_hang.py"
    text = textwrap.dedent(HANGING.format(where=where, limit=limit))
    test.write_text(text)
    hang = "time.sleep(60)" if where == "python" else "ctypes.PyDLL"
    line = next(k for k, t in enumerate(text.splitlines(), 1) if hang in t)
    return [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", str(test)], line


def run_hanging(tmp_path, where):
    """``(process, seconds, line)``: a pytest run of ``HANGING`` and the line of its
    hang."""
    command, line = hanging(tmp_path, where)
    start = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, timeout=60,
                          cwd=tmp_path, env=ENV)
    return proc, time.perf_counter() - start, line


def test_a_hang_is_named_and_stops_the_run(tmp_path):
    proc, seconds, line = run_hanging(tmp_path, "python")
    assert proc.returncode == device_timeout.EXIT_STATUS, proc.stdout + proc.stderr
    assert ("=== TIMEOUT: test_hang.py::test_hangs[python] ran past its limit of 0.5 s"
            in proc.stderr), proc.stderr
    assert f"line {line} in test_hangs" in proc.stderr  # the stack of the main thread
    assert proc.stdout.count("test_quick[") == proc.stdout.count("PASSED") == 3
    assert "test_never_reached" not in proc.stdout
    assert seconds < 30


def test_a_hang_holding_the_gil_is_stopped(tmp_path):
    """The watchdog thread cannot run: faulthandler's C thread dumps the stacks (naming
    the test function) after the grace period and ends the run."""
    proc, seconds, line = run_hanging(tmp_path, "c")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Timeout (0:00:01.500000)!" in proc.stderr
    assert f"line {line} in test_hangs" in proc.stderr
    assert "test_never_reached" not in proc.stdout
    assert seconds < 30


def test_a_sigterm_shows_where_the_run_hung(tmp_path):
    """The stage's ``timeout`` ends the run before the test's own limit: the stacks
    are written first."""
    command, line = hanging(tmp_path, "python", limit=60)
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=tmp_path, env=ENV)
    seen, deadline = b"", time.monotonic() + 60
    while b"test_hangs[python]" not in seen and time.monotonic() < deadline:
        seen += os.read(proc.stdout.fileno(), 4096)  # -v names the test as it starts
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGTERM, (seen + out + err).decode()
    assert f"line {line} in test_hangs" in err.decode(), err.decode()
