"""The Examples sections of the docstrings run and give what they show."""

import doctest
import importlib
import pkgutil

import pytest

import cpu_reference
import gpu_xorder

# The CuPy engine imports CuPy at module level (its functions carry no examples);
# __main__ runs the command line when imported.
SKIP = {"gpu_xorder._cupy_engine", "gpu_xorder.__main__"}
MODULES = sorted(
    info.name
    for package in (gpu_xorder, cpu_reference)
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
    if info.name not in SKIP
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name),
                             optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


def test_public_api_has_examples():
    finder = doctest.DocTestFinder()
    for obj in (gpu_xorder.fair_order, gpu_xorder.XOrder, gpu_xorder.XOrder.fit,
                gpu_xorder.XOrder.transform, gpu_xorder.XOrder.save,
                gpu_xorder.metrics.disparity, gpu_xorder.xorder_path,
                gpu_xorder.paper_experiment):
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
