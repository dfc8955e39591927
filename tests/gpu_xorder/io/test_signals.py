"""A Ctrl-C that cannot be lost (``interrupts_kept``), and the signals held while
files are written."""

import os
import signal
import sys
import threading
import time

import numpy as np
import pytest

from gpu_xorder.io import _files
from gpu_xorder.io._signals import interrupts_kept, signals_held

pytestmark = pytest.mark.skipif(
    not hasattr(signal, "pthread_kill")
    or signal.getsignal(signal.SIGINT) is not signal.default_int_handler,
    reason="POSIX signals, with Python's own SIGINT handler here")

#: Seconds a dropped Ctrl-C would leave the loops below running.
RUN_FOR = 5.0


def _sigint_soon(delay=0.2):
    """SIGINT to the main thread after ``delay`` seconds (the timer runs meanwhile)."""
    main = threading.main_thread().ident
    timer = threading.Timer(delay, signal.pthread_kill, (main, signal.SIGINT))
    timer.start()
    return timer


def _index_strings(until):
    """A loop of ``labels[i]`` on a string array: NumPy makes each ``str`` scalar with
    a call that checks for signals and then clears the KeyboardInterrupt it raised."""
    labels = np.array(["g0", "g1"])
    while time.monotonic() < until:
        for i in range(1000):
            labels[i & 1]


def test_a_ctrl_c_numpy_drops_still_ends_the_work():
    """Inside ``interrupts_kept`` the loop ends within a second of the signal (it
    would run on for RUN_FOR seconds where NumPy drops the KeyboardInterrupt);
    afterwards the handler and the trace function are those before."""
    trace = sys.gettrace()
    for _ in range(3):
        timer = _sigint_soon()
        start = time.monotonic()
        with pytest.raises(KeyboardInterrupt), interrupts_kept():
            _index_strings(start + RUN_FOR)
        timer.join()
        assert time.monotonic() - start < 1.2
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        assert sys.gettrace() is trace
        assert sys.exc_info() == (None, None, None)  # nothing left as if handled


def _spin(until):
    """A loop of Python alone: the KeyboardInterrupt is raised, and passes, at once."""
    while time.monotonic() < until:
        pass


@pytest.mark.parametrize("work", [_index_strings, _spin])
def test_cleanup_after_a_ctrl_c_is_never_cut_short(work):
    """The ``except`` and ``finally`` blocks a KeyboardInterrupt passes through run to
    their end, however many lines they take, whether it was dropped once or not."""
    done = []
    timer = _sigint_soon()
    with pytest.raises(KeyboardInterrupt), interrupts_kept():
        try:
            try:
                work(time.monotonic() + RUN_FOR)
            except KeyboardInterrupt:
                for i in range(20_000):
                    done.append(i)
                raise
        finally:
            for i in range(20_000):
                done.append(i)
    timer.join()
    assert len(done) == 40_000
    assert sys.exc_info() == (None, None, None)


def test_a_ctrl_c_during_a_held_block_waits_for_its_end(tmp_path):
    """Within ``signals_held`` (a file's creation and record) the Ctrl-C waits; at the
    block's end it raises, and a staged file is removed."""
    target = tmp_path / "out.txt"

    def interrupted(f):
        f.write("x")
        with signals_held():
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
            time.sleep(0.2)  # arrives, and waits
            f.write("y")
        time.sleep(RUN_FOR)

    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt), interrupts_kept():
        _files.atomic_write(target, interrupted)
    assert time.monotonic() - start < 1.2
    assert os.listdir(tmp_path) == []


def test_a_program_s_own_handler_is_left_alone():
    """Over a handler of the program's own, ``interrupts_kept`` changes nothing."""
    def own(signum, frame):
        return None

    previous = signal.signal(signal.SIGINT, own)
    try:
        with interrupts_kept():
            assert signal.getsignal(signal.SIGINT) is own
    finally:
        signal.signal(signal.SIGINT, previous)
