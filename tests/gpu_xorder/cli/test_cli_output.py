"""The command line's output where it goes to a log: lines of progress on stderr without
a terminal (on a fake clock), progress text that tells elapsed from remaining time, and
tables as TSV (--format tsv)."""

import io
import re
import threading

import numpy as np
import pytest

from gpu_xorder import metrics
from gpu_xorder.cli import _output, main

pytestmark = pytest.mark.usefixtures("plain_consoles")

LINE = re.compile(r"(?P<label>[\w ]+): (?P<done>\d+) of (?P<total>\d+) (?P<unit>\w+) "
                  r"\((?P<share>\d+)%\), elapsed (?P<elapsed>\d:\d\d:\d\d)"
                  r"(, about (?P<left>\d:\d\d:\d\d) left)?")


class FakeClock:
    """A clock that moves ``step`` seconds at every reading."""

    def __init__(self, step):
        self.step, self.t = step, 0.0

    def __call__(self):
        self.t += self.step
        return self.t


def test_a_heartbeat_writes_when_due_and_says_which_time_is_which():
    written = []
    clock = FakeClock(0.0)
    beat = _output.Heartbeat("compas", "repetitions", written.append, now=clock,
                             interval=30.0)
    beat.update(0, 10)
    clock.t = 29.0
    beat.update(1, 10)
    assert written == []  # not yet due
    clock.t = 35.0
    beat.update(2, 10)
    # 2 of 10 in 35 s: about 4 * 35 = 140 s left
    assert written == [("compas: 2 of 10 repetitions (20%), elapsed 0:00:35, about "
                        "0:02:20 left")]
    clock.t = 50.0
    beat.tick()
    assert len(written) == 1  # 15 s after the last line
    clock.t = 3725.0
    beat.tick()
    assert written[-1] == ("compas: 2 of 10 repetitions (20%), elapsed 1:02:05, about "
                           "4:08:20 left")
    beat.finish()
    assert written[-1] == "compas: done, elapsed 1:02:05"
    quiet = _output.Heartbeat("x", "cells", written.append, now=FakeClock(1.0))
    quiet.finish()  # a short run that wrote nothing stays silent
    assert written[-1] == "compas: done, elapsed 1:02:05"
    assert _output.times(35, 155) == "elapsed 0:00:35, about 0:02:35 left"
    assert _output.times(35, None) == "elapsed 0:00:35"


def test_paper_without_a_terminal_logs_its_progress(monkeypatch, capsys):
    monkeypatch.setattr(_output, "NOW", FakeClock(31.0))
    assert main(["paper", "--data", "german", "--repeats", "2", "--lam", "0",
                 "--backend", "numpy", "--methods", "xorder"]) == 0
    out, err = capsys.readouterr()
    lines = err.splitlines()
    progress = [LINE.fullmatch(line) for line in lines[:-1]]
    assert progress and all(progress), lines
    assert {m["label"] for m in progress} == {"german"}
    assert {m["total"] for m in progress} == {"2"} and progress[-1]["done"] == "2"
    assert re.fullmatch(r"german: done, elapsed \d:\d\d:\d\d", lines[-1])
    assert "repetitions (" not in out and "elapsed" not in out  # stderr only


def test_a_run_without_callbacks_still_logs(monkeypatch):
    """The line's thread writes while the work reports nothing (a bootstrap)."""
    seen = threading.Event()
    written = []

    def write(text):
        written.append(text)
        seen.set()

    monkeypatch.setattr(_output, "_log_line", write)
    monkeypatch.setattr(_output, "NOW", FakeClock(31.0))
    monkeypatch.setattr(_output, "LOG_TICK", 0.001)
    with _output.working("audit risk: bootstrap of 2000 resamples"):
        assert seen.wait(10)
    assert re.fullmatch(r"audit risk: bootstrap of 2000 resamples: running, elapsed "
                        r"\d:\d\d:\d\d", written[0])
    assert re.fullmatch(r"audit risk: bootstrap of 2000 resamples: done, elapsed "
                        r"\d:\d\d:\d\d", written[-1])


def test_a_terminal_gets_a_bar_that_names_both_times(monkeypatch):
    from rich.console import Console

    buffer = io.StringIO()
    monkeypatch.setattr(_output, "console", Console(file=buffer, width=120,
                                                    force_terminal=True,
                                                    color_system=None))
    with _output.repetitions_progress("compas", 4) as report:
        report(1, 4)
    text = buffer.getvalue()
    assert re.search(r"1/4 repetitions elapsed \d:\d\d:\d\d(, about \d:\d\d:\d\d left)?",
                     text), text


def test_fit_prints_tsv_and_logs_its_progress(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(_output, "NOW", FakeClock(31.0))
    rng = np.random.default_rng(0)
    g = rng.choice(["a", "b"], 80)
    y = rng.integers(0, 2, 80)
    s = y + (g == "a") + rng.normal(0, 1, 80)
    path = tmp_path / "d.csv"
    path.write_text("s,y,g\n" + "".join(f"{float(s[i])!r},{y[i]},{g[i]}\n"
                                        for i in range(80)))
    assert main(["fit", str(path), "--score", "s", "--label", "y", "--group", "g",
                 "--model", str(tmp_path / "m.json"), "--lam", "0.5", "--backend",
                 "numpy", "--format", "tsv", "--high-score", "harmful"]) == 0
    out, err = capsys.readouterr()
    progress = err.splitlines()
    assert progress and all(re.fullmatch(
        r"xOrder: [\d.e+]+ of [\d.e+]+ cells \(\d+%\), elapsed \d+:\d\d:\d\d(, about "
        r"\d+:\d\d:\d\d left)?", line) for line in progress[:-1]), progress
    assert re.fullmatch(r"xOrder: done, elapsed \d+:\d\d:\d\d", progress[-1])
    lines = out.splitlines()
    at = lines.index("# Training data")
    assert lines[at + 1].split("\t") == ["lam", "AUC", "Delta-xAUC", "Delta-PRF",
                                         "Delta-URF", "fit s"]
    assert [line.split("\t")[0] for line in lines[at + 2:at + 4]] == ["unadjusted", "0.5"]
    assert all(line.startswith("#") or line.count("\t") == 5 for line in lines)
    found = metrics.ranking_finding(y, s, sensitive_features=g, high_score="harmful")
    assert f"# unadjusted: {found.text}" in lines
    assert "a high score is harmful to a person" in found.text
