"""benchmarks/merge_runs.py attacked: runs that differ in more than the seed, a seed
twice, a missing folder or file, a records.json that is not JSON or not a run's, the
merged folder over an input. Each is one line on stderr naming the problem, exit 2,
no traceback, nothing written, the inputs untouched; a good merge keeps the runs'
group labels of the type they had (json_label: numbers stay numbers)."""

import hashlib
import json
import subprocess
import sys

import pytest

from support import REPO

SCRIPT = REPO / "benchmarks" / "merge_runs.py"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """--out folders of one-repetition runs: seeds 0, 1 and 5 of one command, seed 1
    at another lam."""
    from gpu_xorder.cli._paper import _paper_outputs
    from gpu_xorder.experiments._studies import compare_methods

    root = tmp_path_factory.mktemp("runs")
    for name, seed, lam in (("r0", 0, 0.5), ("r1", 1, 0.5), ("r5", 5, 0.5),
                            ("rx", 1, 0.7)):
        c = compare_methods("german", repeats=1, seed=seed, methods=["xorder"],
                            lams=[lam], backend="numpy", subsample=10)
        (root / name).mkdir()
        _paper_outputs(str(root / name), [c], {"experiments": [c.to_dict()]}, False)
    (root / "notjson").mkdir()
    for f in ("records.json", "timings.csv"):
        (root / "notjson" / f).write_bytes((root / "r1" / f).read_bytes())
    (root / "notjson" / "records.json").write_text("{")
    (root / "notarun").mkdir()
    (root / "notarun" / "records.json").write_text('{"runs": []}')
    (root / "notarun" / "timings.csv").write_bytes((root / "r1" / "timings.csv")
                                                   .read_bytes())
    return root


def _merge(root, *argv):
    return subprocess.run([sys.executable, str(SCRIPT), *argv], cwd=root,
                          capture_output=True, text=True, timeout=120)


def _digest(root):
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("argv, message", [
    (["r0", "r5"], "the runs' repetitions must be seeds 0 to 1 once each"),
    (["r0", "r0"], "got seeds [0, 0]"),
    (["r0", "rx"], "the runs to merge differ in parameters or settings"),
    (["r0", "missing"], "missing"),
    (["r0", "notjson"], "notjson"),
    (["r0", "notarun"], "notarun"),
])
def test_a_merge_that_cannot_be_made_is_one_line_and_writes_nothing(runs, argv,
                                                                    message):
    before = _digest(runs)
    done = _merge(runs, *argv, "--out", "merged", "--no-figures")
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert message in lines[0]
    assert "Traceback" not in done.stderr
    assert not (runs / "merged").exists()
    assert _digest(runs) == before


def test_the_merged_folder_is_never_an_input(runs):
    before = _digest(runs)
    done = _merge(runs, "r0", "r1", "--out", "r1", "--no-figures")
    assert done.returncode == 2
    assert done.stderr.strip() == "error: r1 exists; name a new folder"
    assert _digest(runs) == before


def test_a_merge_keeps_the_runs_labels_and_types(runs, tmp_path):
    done = _merge(runs, "r0", "r1", "--out", str(tmp_path / "m"), "--no-figures")
    assert done.returncode == 0, done.stderr
    merged = json.loads((tmp_path / "m" / "records.json").read_text())["experiments"]
    run = json.loads((runs / "r0" / "records.json").read_text())["experiments"]
    assert merged[0]["group_labels"] == run[0]["group_labels"]
    assert [type(g) for g in merged[0]["group_labels"]] == [
        type(g) for g in run[0]["group_labels"]]
    assert merged[0]["repeats"] == 2


def test_a_merge_keeps_labels_that_are_digits_in_text_as_text(runs, tmp_path):
    """Group labels "0" and "1" written as text stay text (the merge once turned every
    all-digit text label into an int, for records.json written before json_label)."""
    for name in ("r0", "r1"):
        (tmp_path / name).mkdir()
        doc = json.loads((runs / name / "records.json").read_text())
        for exp in doc["experiments"]:
            exp["group_labels"] = [str(g) for g in exp["group_labels"]]
        (tmp_path / name / "records.json").write_text(json.dumps(doc))
        (tmp_path / name / "timings.csv").write_bytes((runs / name / "timings.csv")
                                                      .read_bytes())
    done = _merge(tmp_path, "r0", "r1", "--out", str(tmp_path / "m"), "--no-figures")
    assert done.returncode == 0, done.stderr
    merged = json.loads((tmp_path / "m" / "records.json").read_text())["experiments"]
    assert merged[0]["group_labels"] == ["0", "1"]
