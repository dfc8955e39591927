"""The Examples sections of the docstrings run and give what they show; the design
document's section references resolve."""

import doctest
import importlib
import os
import pkgutil
import re
from pathlib import Path

import pytest

import cpu_reference
import gpu_xorder
from support import docblocks

# The CuPy engine imports CuPy at module level (its functions carry no examples);
# __main__ runs the command line when imported.
SKIP = {"gpu_xorder.engine._cupy_engine", "gpu_xorder.__main__"}
MODULES = sorted(
    info.name
    for package in (gpu_xorder, cpu_reference)
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
    if info.name not in SKIP
)


# Modules whose examples need an optional dependency: skipped where it is missing.
NEEDS = {"gpu_xorder.plotting._plots": "matplotlib"}


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    if name in NEEDS:
        pytest.importorskip(NEEDS[name])
    result = doctest.testmod(importlib.import_module(name),
                             optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


def test_public_api_has_examples():
    finder = doctest.DocTestFinder()
    for obj in (gpu_xorder.fair_order, gpu_xorder.XOrder, gpu_xorder.XOrder.fit,
                gpu_xorder.XOrder.transform, gpu_xorder.XOrder.save,
                gpu_xorder.metrics.disparity, gpu_xorder.xorder_path,
                gpu_xorder.paper_experiment, gpu_xorder.metrics.confidence_intervals,
                gpu_xorder.plot_xroc, gpu_xorder.plot_tradeoff, gpu_xorder.fairness_scorer,
                gpu_xorder.metrics.RankingMetricFrame):
        assert any(test.examples for test in finder.find(obj)), obj.__qualname__


# ---------------------------------------------------------------- docs/design.md

REPO = Path(__file__).resolve().parents[1]
DESIGN_DOC = REPO / "docs" / "design.md"
#: "docs/design.md, section 3", "..., section 3.7", "..., sections 3, 4 and 9"
SECTION_REF = re.compile(
    r"docs/design\.md, sections? (\d+(?:\.\d+)?(?:(?:, | and )\d+(?:\.\d+)?)*)")


def repo_texts(suffixes=(".py", ".cu", ".cuh", ".md")):
    """``(path, text)`` of the repository's files with these suffixes, skipping hidden
    folders, virtual environments and build output. Line breaks, with the comment
    markers that start the next line, read as one space, so that a reference wrapped
    over two lines is found."""
    for root, folders, files in os.walk(REPO):
        folders[:] = sorted(
            f for f in folders
            if not (f.startswith(".") or f in ("__pycache__", "build", "dist")
                    or f.endswith(".egg-info") or os.path.exists(
                        os.path.join(root, f, "pyvenv.cfg"))))
        for name in sorted(files):
            path = Path(root) / name
            if path.suffix in suffixes:
                text = path.read_text(encoding="utf-8", errors="replace")
                yield path, re.sub(r"[ \t]*\n[ \t]*(?:(?://+|#+)[ \t]*)?", " ", text)


def design_sections():
    """Numbers of the sections (``## 3.``) and subsections (``### 3.7``) of the doc."""
    text = DESIGN_DOC.read_text(encoding="utf-8")
    return (re.findall(r"^## (\d+)\. ", text, flags=re.MULTILINE)
            + re.findall(r"^### (\d+\.\d+) ", text, flags=re.MULTILINE))


def test_design_doc_keeps_the_section_numbers():
    """Sections 1-9 in order, the numbering that every reference in the code uses."""
    numbers = [s for s in design_sections() if "." not in s]
    assert numbers == [str(k) for k in range(1, 10)]


def test_design_references_point_at_existing_sections():
    sections = set(design_sections())
    refs = [(path.relative_to(REPO).as_posix(), number)
            for path, text in repo_texts()
            for match in SECTION_REF.finditer(text)
            for number in re.split(r", | and ", match.group(1))]
    assert len(refs) > 20  # the pattern does find the code's references
    assert [ref for ref in refs if ref[1] not in sections] == []


def test_nothing_cites_the_old_design_notes():
    """No file refers to the design notes that lived outside the repository (the word
    DESIGN in capitals, as in their former references, or a path into ../shared);
    docs/design.md replaces them. This file names both, so it is left out."""
    stale = re.compile(r"\bDESIGN\b|\.\./shared")
    found = [path.relative_to(REPO).as_posix() for path, text in repo_texts()
             if path != Path(__file__).resolve() and stale.search(text)]
    assert found == []


def test_gpu_xorder_uses_only_the_public_names_of_cpu_reference():
    """The package imports what ``cpu_reference/__init__.py`` exports, never one of its
    private modules (``cpu_reference._fill`` and the like), so that the reference can
    reorganise its modules freely."""
    private = re.compile(r"^\s*(from\s+cpu_reference\s+import\s+_|from\s+cpu_reference\._"
                         r"|import\s+cpu_reference\._)", re.MULTILINE)
    offenders = [path.name for path in (REPO / "gpu_xorder").rglob("*.py")
                 if private.search(path.read_text())]
    assert offenders == []
    import cpu_reference
    assert all(hasattr(cpu_reference, name) for name in cpu_reference.__all__)


# ---------------------------------------------------------------- code blocks

#: The documents whose code blocks run as printed (tests/support/docblocks.py).
RUN_DOCS = ("README.md", "docs/guide.md")


def markdown_docs():
    """The repository's own Markdown documents (not the ones of tests/ or hidden)."""
    return [REPO / "README.md", REPO / "CONTRIBUTING.md"] + sorted(
        (REPO / "docs").glob("*.md")) + [REPO / "benchmarks" / "RESULTS.md",
                                         REPO / "gpu_xorder" / "datasets" / "README.md"]


@pytest.mark.parametrize("doc", RUN_DOCS)
def test_code_blocks_run_as_printed(doc, tmp_path, monkeypatch):
    """Every python and bash block of the document runs, in order, in a scratch folder
    (one namespace per document; bash blocks are gpu-xorder commands run in-process, exit
    status 0), and prints what the document shows after it. One BLAS thread; the
    blocks' own ``sklearn.set_config`` is undone afterwards."""
    import sklearn
    from threadpoolctl import threadpool_limits

    pytest.importorskip("matplotlib")
    pytest.importorskip("pandas")
    import matplotlib

    matplotlib.use("Agg")
    path = REPO / doc
    found = docblocks.blocks(path.read_text(encoding="utf-8"))
    ran = [b for b in found if b.lang in ("python", "bash") and b.not_run is None]
    assert ran and any(b.shown is not None for b in ran)
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__docs__"}
    with sklearn.config_context(), threadpool_limits(1):
        for block in ran:
            if block.lang == "python":
                printed = docblocks.run_python(block, namespace, path)
            else:
                printed, statuses = docblocks.run_bash(block, path)
                assert statuses and set(statuses) == {0}, (block.where(path), statuses)
            if block.shown is not None:
                assert docblocks.matches(block, printed), (block.where(path), printed)
    # the files the text says the blocks wrote (a folder of the scratch folder, a name)
    named = set(re.findall(r"`((?!(?:gpu_xorder|cpu_reference|tests|benchmarks|docs)/)"
                           r"[\w-]+/[\w.-]+\.(?:png|json|csv))`", path.read_text()))
    assert not [name for name in named if not (tmp_path / name).is_file()]


def test_blocks_that_do_not_run_still_parse():
    """Blocks marked not run, and every block of the documents that are not run, still
    compile (python) or parse with the command line's own parser (each gpu-xorder
    command of a bash block), and the repository paths their commands name exist."""
    from gpu_xorder.cli._parser import build_parser

    parser = build_parser()
    checked = 0
    for path in markdown_docs():
        for block in docblocks.blocks(path.read_text(encoding="utf-8")):
            if block.lang == "python":
                compile(block.code, block.where(path), "exec")
                checked += 1
            elif block.lang == "bash":
                for words in docblocks.commands(block.code):
                    for part in _segments(words):
                        if part[0] == "gpu-xorder":
                            try:
                                parser.parse_args(part[1:])
                            except SystemExit as exc:
                                raise AssertionError(f"{block.where(path)}: {part}") from exc
                            checked += 1
                        missing = [w for w in part if _repo_path(w) and not (REPO / w).exists()]
                        assert not missing, (block.where(path), missing)
    assert checked > 30


def _segments(words):
    """A command's words split at ``&&``, ``||``, ``|`` and ``;``."""
    part = []
    for word in words:
        if word in ("&&", "||", "|", ";"):
            if part:
                yield part
            part = []
        else:
            part.append(word)
    if part:
        yield part


def _repo_path(word):
    return re.match(r"(gpu_xorder|cpu_reference|tests|benchmarks|docs)/[\w./-]*\w$", word)


def test_ci_runs_the_readmes_commands():
    """The README's install command installs the test extra and runs the demo, its test
    command is the one .ci/run runs."""
    readme = docblocks.blocks((REPO / "README.md").read_text(encoding="utf-8"))
    bash = [b.code.strip() for b in readme if b.lang == "bash"]
    assert bash[0] == ('python3 -m venv .venv && . .venv/bin/activate && '
                       'pip install ".[test]" && gpu-xorder demo')
    assert bash[1] == "python -m pytest -q"
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert 'python -m pip install --quiet ".[test]"' in ci and bash[1] in ci
