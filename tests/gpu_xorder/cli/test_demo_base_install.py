"""``gpu-xorder demo`` runs on the base install: the README's first command installs
``pip install .``, the dependencies of pyproject.toml's ``[project] dependencies`` and
nothing else. Checked in a fresh interpreter that sees only those: the standard library,
this checkout, and the installed distributions the base requirements pull in (linked
into a folder of their own, without site-packages)."""

import os
import subprocess
import sys

import pytest

from support import REPO


def _requirements(requirement):
    """The names of the distributions ``requirement`` needs, without extras."""
    from importlib import metadata

    from packaging.requirements import Requirement

    names, todo = set(), [Requirement(requirement).name]
    while todo:
        name = todo.pop().lower().replace("_", "-")
        if name in names:
            continue
        names.add(name)
        for spec in metadata.requires(name) or []:
            req = Requirement(spec)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return names


def _base_site(folder):
    """``folder`` with a link to every top-level package, module and shared-library
    folder of the distributions the base install needs; their names."""
    from importlib import metadata

    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    names = set()
    for requirement in project["project"]["dependencies"]:
        names |= _requirements(requirement)
    for name in names:
        dist = metadata.distribution(name)
        for top in {f.parts[0] for f in dist.files or [] if f.parts[0] != ".."}:
            source = dist.locate_file(top)
            if not top.endswith((".dist-info", ".pth")) and not (folder / top).exists():
                (folder / top).symlink_to(source)
    return names


_RUN = """
import sys
sys.path[:0] = [{site!r}, {repo!r}]
from gpu_xorder.cli import main
status = main(["demo", "--data", "german", "--lam", "0.5"])
print("exit", status)
"""


def test_demo_runs_on_the_base_install(tmp_path):
    site = tmp_path / "site-packages"
    site.mkdir()
    names = _base_site(site)
    assert {"numpy", "scikit-learn", "rich", "joblib"} <= names
    assert not names & {"numba", "pandas", "matplotlib", "pytest"}
    # -S: no site-packages; -E: no PYTHONPATH
    done = subprocess.run([sys.executable, "-S", "-E", "-c",
                           _RUN.format(site=str(site), repo=str(REPO))],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env=dict(os.environ, COLUMNS="120"))
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    assert "exit 0" in done.stdout, (done.stdout, done.stderr)
    # the demo's tables, on the NumPy engine (no numba to compile)
    assert "german: 1000 rows" in done.stdout and "Test split" in done.stdout
    assert "backend auto (numpy)" in " ".join(done.stdout.split())
    assert "compiling the numba engine" not in done.stderr
