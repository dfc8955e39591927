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
        "gpu tests", "cupy benchmarks", "speed table", "multi-group table",
        "solver table", "paper experiments"]
    assert sum(limit for _, limit, _ in found) < DEVICE_CALL_SECONDS


def test_stages_run_files_that_exist():
    for name, _, command in stages():
        for path in re.findall(r"(?:benchmarks|tests)/[\w./]*", command):
            assert (REPO / path).exists(), (name, path)


def test_script_parses():
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)
