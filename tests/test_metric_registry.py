"""The metric registry (``gpu_xorder.utils._metrics.METRICS``): a metric's name, display name,
definition, code, counters, pair term and kind are written once, and CONTRIBUTING's
"Adding a metric" lists exactly the files that name a metric in code besides it."""

import ast
import re

import cpu_reference
from gpu_xorder.utils import _metrics
from support import REPO

ROOTS = ("gpu_xorder", "cpu_reference")
#: ``metric="xauc"`` is the default of many signatures; the other names appear in
#: code only where a metric's mathematics or a leftover copy of the registry is.
OTHERS = {name for name in _metrics.METRIC_NAMES if name != "xauc"}


def _code_strings(path):
    """The string constants of a module's code (its docstrings left out)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                 ast.AsyncFunctionDef))
            and node.body and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)}
    return [node for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docs]


def _naming_files():
    out = set()
    for root in ROOTS:
        for path in (REPO / root).rglob("*.py"):
            if any(node.value in OTHERS for node in _code_strings(path)):
                out.add(path.relative_to(REPO).as_posix())
        for path in (REPO / root).rglob("*.cu*"):
            text = path.read_text(encoding="utf-8")
            if any(f"METRIC_{name.upper()}" in text for name in OTHERS):
                out.add(path.relative_to(REPO).as_posix())
    return out


def _listed():
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = text.split("## Adding a metric", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"`((?:gpu_xorder|cpu_reference)/[\w/]+\.(?:py|cuh|cu))`",
                          section))


def test_contributing_lists_exactly_the_files_a_metric_touches():
    listed, found = _listed(), _naming_files()
    assert not found - listed, f"name a metric but CONTRIBUTING does not list them: " \
                               f"{sorted(found - listed)}"
    assert not listed - found, f"listed but name no metric: {sorted(listed - found)}"


def test_the_metrics_tuple_and_display_names_are_written_once():
    """No module but the registry writes the metrics' names (or their names in text)
    all together, in a tuple, list or set or as the keys of a dict of constants, or a
    disparity's display name: a private table of the metrics' facts fails here. (A dict
    of the metrics' mathematics, a function or an array each, is the mathematics of a
    file CONTRIBUTING lists.)"""
    every = (set(_metrics.METRIC_NAMES), {m.short for m in _metrics.METRICS.values()})
    displays = {m.display for m in _metrics.METRICS.values()}
    copies = set()
    for root in ROOTS:
        for path in (REPO / root).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            exports = {id(node.value) for node in ast.walk(tree)  # functions, not names
                       if isinstance(node, ast.Assign) and any(
                           getattr(t, "id", None) == "__all__" for t in node.targets)}
            for node in ast.walk(tree):
                if id(node) in exports:
                    continue
                facts = isinstance(node, ast.Dict) and all(
                    isinstance(v, ast.Constant) for v in node.values)
                elts = (node.keys if facts else node.elts
                        if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else ())
                written = {e.value for e in elts if isinstance(e, ast.Constant)}
                if any(names <= written for names in every):
                    copies.add(path.relative_to(REPO).as_posix())
            if any(node.value in displays for node in _code_strings(path)):
                copies.add(path.relative_to(REPO).as_posix())
    assert copies == {"gpu_xorder/utils/_metrics.py"}, sorted(copies)


def test_the_registry_is_what_the_layers_read():
    from gpu_xorder.cli._output import METRIC_COLUMNS
    from gpu_xorder.engine._kernel_source import METRIC_CODE, metric_defines
    from gpu_xorder.metrics._frame import FRAME_METRICS, PAIR_METRICS
    from gpu_xorder.plotting._plots import DISPARITY_NAMES
    from gpu_xorder.utils import _params

    reg = _metrics.METRICS
    assert tuple(_params.PARAMETERS["metric"].choices) == tuple(reg)
    assert METRIC_CODE == {n: m.code for n, m in reg.items()}
    assert metric_defines() == {f"METRIC_{n.upper()}": m.code for n, m in reg.items()}
    assert cpu_reference.COUNTER_KINDS == {n: m.kinds for n, m in reg.items()}
    assert FRAME_METRICS[1:] == tuple(reg) and set(PAIR_METRICS) == {"xauc", "urf"}
    assert dict(METRIC_COLUMNS) == DISPARITY_NAMES == {n: m.display for n, m in reg.items()}
