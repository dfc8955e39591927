"""Signals while files are written (``_files``): SIGTERM and SIGHUP raise while
temporary files exist, so that they are removed, and SIGINT, SIGTERM and SIGHUP wait
while a temporary file is made and recorded or staged files are moved into place.
And a Ctrl-C that is never lost (:func:`interrupts_kept`, for the command line)."""

import contextlib
import os
import signal
import sys
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
                    signal.SIG_DFL, signal.default_int_handler, _exit_on_signal,
                    _interrupt):
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


#: While :func:`interrupts_kept` runs: its state (the frames it traces and their
#: tracers before, the trace function before); None outside it.
_kept = {"state": None}


def _interrupt(signum, frame):
    """SIGINT inside :func:`interrupts_kept`: KeyboardInterrupt, and the frames
    running now traced by :func:`_insist` (after the block: nothing)."""
    state = _kept["state"]
    if state is None:
        return
    state["unseen"] = True  # until it passes through a traced frame
    if not state["armed"]:
        state["armed"] = True
        frame = sys._getframe(1) if frame is None else frame
        while frame is not None:
            state["frames"].append((frame, frame.f_trace))
            frame.f_trace = _insist
            frame = frame.f_back
        sys.settrace(_insist)
    raise KeyboardInterrupt


def interrupted():
    """Whether a Ctrl-C came inside the running :func:`interrupts_kept`."""
    state = _kept["state"]
    return state is not None and state["armed"]


def _insist(frame, event, arg):
    """The trace function after a Ctrl-C: a KeyboardInterrupt that no frame running
    when the signal came has seen pass was dropped by C code, and that frame goes on:
    another is raised at its next line, in Python code, where it cannot be lost (then
    Python turns tracing off). Frames that start later run untraced: a finalizer or a
    generator closed on the way out is never interrupted ("Exception ignored" would
    be printed)."""
    state = _kept["state"]
    if state is None or event == "call":
        return None
    if event == "exception" and issubclass(arg[0], KeyboardInterrupt):
        state["unseen"] = False  # on its way out: except and finally blocks run
    elif event == "line" and state["unseen"]:
        raise KeyboardInterrupt
    return _insist


@contextlib.contextmanager
def interrupts_kept():
    """A Ctrl-C (SIGINT) that cannot be lost: KeyboardInterrupt, and if C code drops
    it, another at the next line that the frames it met run.

    Python runs a signal's handler where C code checks for signals, and C code that
    clears the errors it meets loses the KeyboardInterrupt: NumPy's ``str`` scalars
    do (every ``labels[i]`` of a string array), so a Ctrl-C during an audit of many
    groups could leave the work running for minutes. After the signal, lines run by
    the ``except`` and ``finally`` blocks that the KeyboardInterrupt passes through go
    on undisturbed (a file's removal is never cut short). Only in the main thread, and
    only over Python's default handler (a program's own handler is left alone)."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return
    state = {"armed": False, "unseen": False, "frames": [], "trace": sys.gettrace()}
    _kept["state"] = state
    previous = signal.signal(signal.SIGINT, _interrupt)
    try:
        yield
    finally:
        _kept["state"] = None  # from here a Ctrl-C or a trace event does nothing
        if state["armed"]:
            sys.settrace(state["trace"])
            for frame, trace in state["frames"]:
                frame.f_trace = trace
        signal.signal(signal.SIGINT, previous)
