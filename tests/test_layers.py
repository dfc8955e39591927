"""The package's layers (CONTRIBUTING.md): which subpackage may import which (the
reference, ``cpu_reference``, one layer among them), and no circle of imports between
modules, function-local imports included."""

import ast
from pathlib import Path

import pytest

from support import REPO

PACKAGE = Path(__file__).resolve().parents[1] / "gpu_xorder"
REFERENCE = PACKAGE.parent / "cpu_reference"

#: The metric registry: the floor under both packages, which imports nothing, and the
#: one module of ``gpu_xorder`` the reference reads.
REGISTRY = "gpu_xorder.utils._metrics"

#: Layer (a subpackage, or the reference) -> the layers it may import (besides itself).
ALLOWED = {
    "utils": set(),
    # only REGISTRY of utils (test_the_reference_reads_only_the_registry)
    "cpu_reference": {"utils"},
    "io": {"utils", "cpu_reference"},
    "datasets": {"utils", "cpu_reference"},
    "engine": {"utils", "cpu_reference"},
    "metrics": {"utils", "cpu_reference"},
    "core": {"utils", "cpu_reference", "engine", "metrics"},
    "plotting": {"utils", "cpu_reference", "metrics"},
    "postprocessing": {"utils", "cpu_reference", "io", "engine", "core", "metrics"},
    "experiments": {"utils", "cpu_reference", "io", "datasets", "engine", "core", "metrics",
                    "plotting", "postprocessing"},
    "report": {"utils", "cpu_reference", "io", "metrics", "plotting", "postprocessing"},
    "cli": {"utils", "cpu_reference", "io", "datasets", "engine", "core", "metrics",
            "plotting", "postprocessing", "experiments", "report"},
}


def _modules():
    """``{dotted name: path}`` of every module of the package and of the reference."""
    out = {}
    for root in (PACKAGE, REFERENCE):
        for path in sorted(root.rglob("*.py")):
            parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imports_of(name, node, package=None):
    """The package's modules that the import statement ``node`` of ``name`` names."""
    package = package or name.rpartition(".")[0]
    if isinstance(node, ast.Import):
        targets = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            base = package.split(".")
            base = base[:len(base) - node.level + 1]
            module = ".".join(base + ([node.module] if node.module else []))
        else:
            module = node.module
        # ``from package import module`` names a module; ``from module import name``
        # a name in it
        targets = [f"{module}.{alias.name}" if f"{module}.{alias.name}" in MODULES
                   else module for alias in node.names]
    else:
        return set()
    return {t for t in targets if t in MODULES and t != name}


def _imports(name, path):
    """The package's modules that ``name`` imports (at any depth of its code)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        found |= _imports_of(name, node, package)
    return found


#: The imports up the layers the package makes on purpose, each function-local and
#: named here: a method that hands its object to the layer above (as pandas'
#: ``DataFrame.plot``), so that the object's layer needs the other only when it is used.
UPWARD = {
    # RankingMetricFrame.plot() is plotting.plot_intervals(frame)
    "gpu_xorder.metrics._frame": {"gpu_xorder.plotting._intervals"},
}
GRAPH = {name: _imports(name, path) - UPWARD.get(name, set())
         for name, path in MODULES.items()}


def test_the_upward_imports_are_function_local():
    """An import of UPWARD must not run when its module loads (nor be missing)."""
    for name, targets in UPWARD.items():
        tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
        top = {n for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))
               for n in _imports_of(name, node)}
        assert not top & targets, name
        assert targets <= _imports(name, MODULES[name]), name


def _layer(name):
    parts = name.split(".")
    if parts[0] == "cpu_reference":
        return "cpu_reference"
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in ALLOWED) else None


def test_every_subpackage_has_a_layer():
    subpackages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert subpackages | {"cpu_reference"} == set(ALLOWED)


def test_utils_reads_no_reference():
    """The floor reads nothing above it: no module of ``utils`` imports ``cpu_reference``
    (the parameter table takes the metrics from the registry, ``REGISTRY``)."""
    wrong = {n: sorted(t for t in GRAPH[n] if _layer(t) == "cpu_reference")
             for n in MODULES if _layer(n) == "utils"}
    assert not {n: t for n, t in wrong.items() if t}


def test_the_reference_reads_only_the_registry():
    """The oracle reads no code of the package it checks: of ``gpu_xorder`` it imports
    the registry alone (names, codes, counters: facts, no mathematics), which imports
    nothing of either package."""
    read = {t for n in MODULES if _layer(n) == "cpu_reference"
            for t in GRAPH[n] if _layer(t) != "cpu_reference"}
    assert read == {REGISTRY}
    assert GRAPH[REGISTRY] == set()


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_follow_the_layers(name):
    layer = _layer(name)
    if layer is None:  # the package's top-level modules face the user: any import
        return
    wrong = sorted(t for t in GRAPH[name]
                   if _layer(t) not in ALLOWED[layer] | {layer} and t != "gpu_xorder")
    assert not wrong, f"{name} ({layer}) imports {wrong}: an arrow up or sideways"


def test_no_module_imports_the_package_top():
    """Inside a layer the public names come from the layer that defines them, never
    back through ``gpu_xorder/__init__``."""
    assert not [n for n, targets in GRAPH.items() if _layer(n) and "gpu_xorder" in targets]


def test_no_circles():
    """Tarjan's strongly connected components of the module graph: each of one module."""
    index, low, stack, on_stack, circles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    assert not circles


def test_fair_order_imports_no_heavy_library():
    """``from gpu_xorder import fair_order`` (and its call on NumPy) stays light:
    scikit-learn, SciPy, pandas, matplotlib, Dask, numba and CuPy are imported where
    they are used (``import gpu_xorder.fair_order`` took 1.7 s when metrics imported
    scikit-learn at load)."""
    import subprocess
    import sys

    code = ("import sys\nimport numpy as np\nfrom gpu_xorder import fair_order\n"
            "fair_order(np.array([.9, .8, .7, .6]), np.array([1, 0, 1, 0]), "
            "np.array([0, 0, 1, 1]), lam=0.5, backend='numpy')\n"
            "heavy = {'sklearn', 'scipy', 'pandas', 'matplotlib', 'dask', 'distributed', "
            "'numba', 'cupy'}\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & heavy))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=PACKAGE.parent, check=True).stdout
    assert out.strip() == "[]"


def test_public_modules_import_no_heavy_library():
    """``import gpu_xorder.metrics`` (and datasets, plotting, baselines, models, the
    command line's parser and ``gpu_xorder`` itself) loads none of scikit-learn, SciPy,
    pandas, matplotlib, Dask, numba or CuPy: each is imported by the function that uses
    it (CONTRIBUTING.md, "Rules")."""
    import subprocess
    import sys

    code = ("import sys\nimport gpu_xorder, gpu_xorder.metrics, gpu_xorder.datasets, "
            "gpu_xorder.plotting, gpu_xorder.baselines, gpu_xorder.models\n"
            "from gpu_xorder.cli._parser import build_parser\nbuild_parser()\n"
            "heavy = {'sklearn', 'scipy', 'pandas', 'matplotlib', 'dask', 'distributed', "
            "'numba', 'cupy'}\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & heavy))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=PACKAGE.parent, check=True).stdout
    assert out.strip() == "[]"


#: A sanity bound, not a target: a module is one concept, split along its seams where
#: it holds two, whatever its length; one over this many lines has surely grown two.
MAX_MODULE_LINES = 800


def test_no_module_is_past_the_sanity_bound():
    """No module of the packages is over ``MAX_MODULE_LINES`` lines (CONTRIBUTING.md,
    "Rules": cohesion first, this bound only catches what grew unnoticed)."""
    long = {}
    for package in ("gpu_xorder", "cpu_reference"):
        for path in (REPO / package).rglob("*.py"):
            lines = len(path.read_text().splitlines())
            if lines > MAX_MODULE_LINES:
                long[str(path.relative_to(REPO))] = lines
    assert not long, long
