"""The one-command GPU check (``benchmarks/gpu_check.sh``) fits a lent device's call.

A device session may run one command for 10 minutes at most, and its minutes are few:
the stages' own time limits must add up to less, and every file a stage runs must exist.
"""

import re
import subprocess
from pathlib import Path

from support import REPO

SCRIPT = REPO / "benchmarks" / "gpu_check.sh"
DEVICE_CALL_SECONDS = 600


def stages(part=None):
    """``[(name, seconds, command text), ...]`` of the script's ``stage`` lines (of one
    part, or all)."""
    text = SCRIPT.read_text().replace("\\\n", " ")
    return [(name, int(limit), command) for p, name, limit, command in
            re.findall(r'^stage (\d) "([^"]+)" (\d+) (.+)$', text, flags=re.MULTILINE)
            if part is None or int(p) == part]


def test_stage_limits_fit_one_device_call():
    """Each part is one device call: the self-check, the gpu tests and the speed
    tables first (part 1), the rest in a second call (part 2)."""
    assert [name for name, _, _ in stages(1)] == [
        "self-check", "gpu tests", "speed table", "host overhead", "multi-group table",
        "strip profile"]
    assert [name for name, _, _ in stages(2)] == [
        "cupy benchmarks", "solver table", "paper experiments"]
    assert len(stages()) == 9
    for part in (1, 2):  # each within 9 of the call's 10 minutes
        assert sum(limit for _, limit, _ in stages(part)) <= DEVICE_CALL_SECONDS - 60


def test_gpu_test_limits_fit_their_stage():
    """A hanging gpu test is named by its own limit (tests/support/device_timeout.py) before the
    stage's limit ends the run: every limit is below the stage's."""
    from support.device_timeout import DEFAULT_SECONDS, GRACE_SECONDS

    (_, stage_limit, _), = [s for s in stages(1) if s[0] == "gpu tests"]
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
