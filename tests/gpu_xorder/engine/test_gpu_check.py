"""The one-command GPU check (``benchmarks/gpu_check.sh``) fits a lent device's session.

A device session has 15 minutes in all, a start of one to three minutes included: the
one command (its stages' own time limits) must take at most 7 minutes, leaving room for
a rerun, and every file a stage runs must exist.
"""

import re
import subprocess
from pathlib import Path

from support import REPO

SCRIPT = REPO / "benchmarks" / "gpu_check.sh"
#: The issue's limit of the one device command, compiles included.
COMMAND_SECONDS = 7 * 60


def stages():
    """``[(name, seconds, command text), ...]`` of the script's ``stage`` lines."""
    text = SCRIPT.read_text().replace("\\\n", " ")
    return [(name, int(limit), command) for name, limit, command in
            re.findall(r'^stage "([^"]+)" (\d+) (.+)$', text, flags=re.MULTILINE)]


def test_stage_limits_fit_one_command_of_7_minutes():
    """The device, compile times, every variant warmed, the gpu tests, the speed tables:
    one command whose stages' limits add up to at most 7 minutes."""
    assert [name for name, _, _ in stages()] == [
        "device", "compile times", "warm", "gpu tests", "speed table", "multi-group table",
        "default solver"]
    assert sum(limit for _, limit, _ in stages()) <= COMMAND_SECONDS - 10


def test_gpu_test_limits_fit_their_stage():
    """A hanging gpu test is named by its own limit (tests/support/device_timeout.py)
    before the stage's limit ends the run: every limit is below the stage's."""
    from support.device_timeout import DEFAULT_SECONDS, GRACE_SECONDS

    (_, stage_limit, _), = [s for s in stages() if s[0] == "gpu tests"]
    text = (Path(__file__).with_name("test_gpu.py")).read_text()
    limits = [int(v) for v in re.findall(r"@pytest\.mark\.timeout\((\d+)\)", text)]
    assert limits and max(limits + [DEFAULT_SECONDS]) + GRACE_SECONDS < stage_limit


def test_stages_run_files_that_exist():
    for name, _, command in stages():
        for path in re.findall(r"(?:benchmarks|tests)/[\w./]*", command):
            assert (REPO / path).exists(), (name, path)


def test_script_parses():
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)


def test_host_overhead_runs_without_a_gpu(monkeypatch, capsys):
    """``benchmarks/host_overhead.py`` times the host's share of ``fair_order`` on any
    machine (here on a small problem)."""
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))
    import host_overhead

    host_overhead.main(["--n", "3000"])
    out = capsys.readouterr().out
    for name in ("validation", "build_lattice", "edge counters", "strip_kernel",
                 "fair_order without the GPU call"):
        assert name in out, out
