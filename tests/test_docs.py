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


def test_readme_quick_start_runs(capsys):
    """The README's Python quick start, as printed there, on the NumPy backend."""
    from pathlib import Path

    readme = Path(__file__).resolve().parents[1] / "README.md"
    text = readme.read_text(encoding="utf-8")
    code = text.split("## Quick start", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    namespace = {}
    exec(compile(code, "README.md (quick start)", "exec"), namespace)
    assert len(namespace["models"]) == 4 and namespace["exp"].repeats == 3
    printed = capsys.readouterr().out.split("\n")
    assert len([line for line in printed if line]) == 2 + 4


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


def test_readme_model_selection_recipe_runs(capsys):
    """README, "Choosing lam by cross-validation": both blocks as printed there print
    what it shows, choose lam != 0, and the routed and the column-of-X searches agree
    (the same lam, fold scores within 0.003).
    One BLAS thread: on the shared 2-core machine two threads made each logistic
    regression 15x slower; the numbers do not change."""
    import numpy as np
    import sklearn
    from threadpoolctl import threadpool_limits

    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Choosing lam by cross-validation", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)
    shown = re.findall(r"```text\n(.*?)```", section, flags=re.DOTALL)
    assert len(blocks) == 2 and len(shown) == 1
    namespace = {}
    with sklearn.config_context(), threadpool_limits(1):  # the block's set_config undone
        for k, code in enumerate(blocks):
            exec(compile(code, f"README.md (choosing lam, block {k + 1})", "exec"), namespace)
    printed = capsys.readouterr().out
    assert [line.rstrip() for line in printed.splitlines()] == \
        [line.rstrip() for line in shown[0].splitlines()]
    search, by_column = namespace["search"], namespace["by_column"]
    assert search.best_params_["fair__lam"] == by_column.best_params_["lam"] != 0
    # the scaler moved into FairRanker's folds: nearly, not exactly, the same fold scores
    np.testing.assert_allclose(by_column.cv_results_["mean_test_score"],
                               search.cv_results_["mean_test_objective"], rtol=0, atol=0.003)
    assert np.corrcoef(namespace["fair_too"], namespace["fair"])[0, 1] > 0.99
