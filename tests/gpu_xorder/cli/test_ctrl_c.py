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


#: ``sitecustomize`` for the runs below: it counts the imports the command line makes
#: from its first instruction (once ``gpu_xorder.cli`` is being imported, from
#: ``python -m gpu_xorder`` or the ``gpu-xorder`` script) and sends this process a
#: SIGINT at the ``GPU_XORDER_SIGINT_AT``-th, while that module loads.
SIGINT_AT_IMPORT = """\
import os, signal, sys

AT = int(os.environ["GPU_XORDER_SIGINT_AT"])


class Finder:
    count = 0

    def find_spec(self, name, path=None, target=None):
        if "gpu_xorder.cli" in sys.modules:
            Finder.count += 1
            if Finder.count == AT:
                os.kill(os.getpid(), signal.SIGINT)
        return None


sys.meta_path.insert(0, Finder())
"""
#: How the command line starts: ``python -m gpu_xorder`` and the ``gpu-xorder`` script
#: (what pip writes for ``gpu_xorder.cli:main``).
STARTS = {"-m": ["-m", "gpu_xorder"],
          "script": ["-c", "import sys\nfrom gpu_xorder.cli import main\n"
                           "sys.exit(main())"]}
PAPER = ["paper", "--data", "german", "--repeats", "1", "--methods", "xorder", "--lam",
         "1", "--subsample", "8", "--backend", "numpy"]


def _interrupted_at_imports(tmp_path, runs):
    """Start ``paper`` for every ``(start, at)`` of ``runs`` at once; each must exit 130
    with nothing on stdout or stderr (the start-up of ``paper`` imports some 1,900
    modules; a Ctrl-C among the first ~1,000 once exited -2 with a traceback)."""
    (tmp_path / "sitecustomize.py").write_text(SIGINT_AT_IMPORT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(REPO), str(tmp_path)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    procs = {(start, at): subprocess.Popen(
        [sys.executable, *STARTS[start], *PAPER], cwd=tmp_path,
        env=dict(env, GPU_XORDER_SIGINT_AT=str(at)), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True) for start, at in runs}
    results = {key: (proc.communicate(timeout=300), proc.returncode)
               for key, proc in procs.items()}
    for key, ((out, err), code) in results.items():
        assert (code, out, err) == (130, "", ""), (key, code, out, err[-600:])


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or sys.platform == "win32",
                    reason="POSIX signals")
def test_ctrl_c_from_the_first_instruction_exits_130_silently(tmp_path):
    """A Ctrl-C while the command line's modules load (NumPy, rich, the parser's),
    before ``main``'s guard existed, once ended ``paper`` with a traceback and -2."""
    _interrupted_at_imports(tmp_path, [("-m", 1), ("-m", 12), ("-m", 150),
                                       ("script", 1), ("script", 40)])


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGINT") or sys.platform == "win32",
                    reason="POSIX signals")
def test_ctrl_c_at_any_import_of_the_start_up_exits_130_silently(tmp_path):
    """The same at imports spread over the whole start-up of ``paper`` (a Fibonacci
    sweep up to its ~1,900th import, both starts)."""
    ats = [2, 3, 5, 8, 21, 34, 55, 89, 233, 377, 610, 987, 1597]
    _interrupted_at_imports(tmp_path, [(start, at) for start in STARTS for at in ats])


def test_the_command_lines_module_loads_nothing_before_main():
    """gpu_xorder.cli imports no NumPy, rich or parser at its top: they load inside
    ``main``'s guard, where a Ctrl-C is exit 130."""
    code = ("import sys\nimport gpu_xorder.cli\n"
            "print(sorted(m for m in ('numpy', 'rich', 'gpu_xorder.cli._parser', "
            "'gpu_xorder.io') if m in sys.modules))\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(REPO)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stdout) == (0, "[]\n"), proc.stderr
