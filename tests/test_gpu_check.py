"""The one-command GPU check (``benchmarks/gpu_check.sh``) fits a lent device's call.

A device session may run one command for 10 minutes at most, and its minutes are few:
the stages' own time limits must add up to less, and every file a stage runs must exist.
"""

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "gpu_check.sh"
DEVICE_CALL_SECONDS = 600


def stages():
    """``[(name, seconds, command text), ...]`` of the script's ``stage`` lines."""
    text = SCRIPT.read_text().replace("\\\n", " ")
    return [(name, int(limit), command) for name, limit, command in
            re.findall(r'^stage "([^"]+)" (\d+) (.+)$', text, flags=re.MULTILINE)]


def test_stage_limits_fit_one_device_call():
    found = stages()
    assert [name for name, _, _ in found] == [
        "gpu tests", "speed table", "host overhead", "strip profile", "cupy benchmarks",
        "multi-group table", "solver table", "paper experiments"]
    # the whole check within 9 of the call's 10 minutes
    assert sum(limit for _, limit, _ in found) <= DEVICE_CALL_SECONDS - 60


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
