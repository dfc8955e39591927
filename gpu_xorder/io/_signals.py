"""Signals while files are written (``_files``): SIGTERM and SIGHUP raise while
temporary files exist, so that they are removed, and SIGINT, SIGTERM and SIGHUP wait
while a temporary file is made and recorded or staged files are moved into place."""

import contextlib
import os
import signal
import threading


@contextlib.contextmanager
def signals_raise():
    """While temporary files exist, make SIGTERM and SIGHUP raise SystemExit so that
    they are removed; only in the main thread and where the signal would otherwise kill
    the process (a program's own handlers are left alone)."""
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for name in ("SIGTERM", "SIGHUP"):
            signum = getattr(signal, name, None)
            if signum is not None and signal.getsignal(signum) == signal.SIG_DFL:
                previous[signum] = signal.signal(signum, _exit_on_signal)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _exit_on_signal(signum, frame):
    raise SystemExit(128 + signum)


@contextlib.contextmanager
def signals_held():
    """SIGINT, SIGTERM and SIGHUP wait until the block ends, then act as they would
    have (KeyboardInterrupt, SystemExit, or the end of the process): the few steps that
    create a temporary file and record its name, or move staged files into place, are
    never cut in two. Only in the main thread; a program's own handlers are left alone."""
    pending, previous = [], {}
    if threading.current_thread() is threading.main_thread():
        for name in ("SIGINT", "SIGTERM", "SIGHUP"):
            signum = getattr(signal, name, None)
            if signum is not None and signal.getsignal(signum) in (
                    signal.SIG_DFL, signal.default_int_handler, _exit_on_signal):
                previous[signum] = signal.signal(
                    signum, lambda signum, frame: pending.append(signum))
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for signum in dict.fromkeys(pending):
            if previous[signum] == signal.SIG_DFL:
                os.kill(os.getpid(), signum)  # the default: the process ends here
            else:
                previous[signum](signum, None)
