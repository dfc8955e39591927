"""Ctrl-C on the command line: exit status 130 and nothing printed after it, wherever
the KeyboardInterrupt was raised (the long commands' own check is test_adversarial's
test_long_work_is_estimated_first_and_ctrl_c_ends_it_quietly)."""

import os
import signal
import subprocess
import sys
import threading
import time
import warnings

import pytest

from gpu_xorder.cli import _info, main
from support import REPO

pytestmark = pytest.mark.usefixtures("plain_consoles")

#: ``python -m probe``: ``info`` whose work raises KeyboardInterrupt in code run by
#: ``exec`` of a string, as a Ctrl-C during the import of a module of dataclasses does.
PROBE = """\
from gpu_xorder.cli import _info, main

def interrupted(args):
    exec("raise KeyboardInterrupt")

_info.run = interrupted
raise SystemExit(main(["info"]))
"""


def test_ctrl_c_in_code_run_by_exec_still_exits_130(tmp_path):
    """CPython remembers such a KeyboardInterrupt even once caught: ``python -m``
    then ended the process by SIGINT (-2), as ``paper`` once did under load."""
    (tmp_path / "probe.py").write_text(PROBE)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(REPO), str(tmp_path)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    proc = subprocess.run([sys.executable, "-m", "probe"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stdout, proc.stderr) == (130, "", "")


@pytest.mark.skipif(not hasattr(signal, "pthread_kill")
                    or signal.getsignal(signal.SIGINT) is not signal.default_int_handler,
                    reason="POSIX signals, with Python's own SIGINT handler here")
def test_no_warning_is_printed_after_ctrl_c(capsys, monkeypatch):
    """A warning raised on the way out of work cut short by Ctrl-C (an import cut
    short leaves a file unclosed: a ResourceWarning) is not printed; one before the
    Ctrl-C is."""
    def interrupted(args):
        warnings.warn("before", UserWarning, stacklevel=1)
        try:
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
            time.sleep(5)  # the signal arrives first
        finally:
            warnings.warn("unclosed file", ResourceWarning, stacklevel=1)

    monkeypatch.setattr(_info, "run", interrupted)
    start = time.monotonic()
    assert main(["info"]) == 130
    assert time.monotonic() - start < 2
    assert capsys.readouterr().err == "warning: before\n"
    assert sys.exc_info() == (None, None, None)  # nothing left as if handled
