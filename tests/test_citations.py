"""Every ``module.name`` a comment or docstring cites in backticks names something that
exists: the module (a module or package of the project, by its dotted path or its last
part, ``_plan`` or ``engine._plan``) defines the name at its top level (a function, a
class, a constant, an import). Scanned: the packages' Python sources and the CUDA
sources (``.cu``, ``.cuh``), whose comments cite the Python side."""

import ast
import io
import re
import tokenize

from support import REPO

ROOTS = ("gpu_xorder", "cpu_reference")
CITE = re.compile(r"``?((?:[A-Za-z_][A-Za-z0-9_]*\.)+[A-Za-z_][A-Za-z0-9_]*)(?:\(\))?``?")
#: File names, not names in a module (``_estimator.py``).
SUFFIXES = {"py", "cu", "cuh", "md", "j2", "json", "csv", "png", "toml"}


def _modules():
    """``{dotted name: path}`` of every module and package (``gpu_xorder.engine._plan``)."""
    out = {}
    for root in ROOTS:
        for path in (REPO / root).rglob("*.py"):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def _defined(path):
    """Top-level names of a module: definitions, assignments, imports, and a package's
    lazily exported names (``_EXPORTS``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for t in ast.walk(target):
                    if isinstance(t, ast.Name):
                        names.add(t.id)
            if any(getattr(t, "id", None) == "_EXPORTS" for t in targets) and isinstance(
                    node.value, ast.Dict):
                names.update(k.value for k in node.value.keys
                             if isinstance(k, ast.Constant))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


DEFINED = {name: _defined(path) for name, path in MODULES.items()}


def _resolve(dotted):
    """``(module, name)`` where ``dotted`` starts with a module of the project (its
    full dotted path, or a dotted tail of it when that tail names one module only),
    else None."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        head, rest = ".".join(parts[:cut]), parts[cut]
        matches = [m for m in MODULES if m == head or m.endswith("." + head)]
        if len(matches) == 1:
            return matches[0], rest
    return None


def _texts(path):
    """The comments and docstrings of a Python module; the comments of a CUDA one."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        return re.findall(r"//[^\n]*|/\*.*?\*/", text, re.DOTALL)
    out = [tok.string for tok in tokenize.generate_tokens(io.StringIO(text).readline)
           if tok.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                             ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                out.append(doc)
    return out


def test_every_cited_name_exists():
    missing = []
    for root in ROOTS:
        for path in sorted((REPO / root).rglob("*")):
            if path.suffix not in (".py", ".cu", ".cuh"):
                continue
            for text in _texts(path):
                for dotted in CITE.findall(text):
                    if dotted.rpartition(".")[2] in SUFFIXES:
                        continue
                    found = _resolve(dotted)
                    if found is not None and found[1] not in DEFINED[found[0]] and (
                            f"{found[0]}.{found[1]}" not in MODULES):
                        missing.append(f"{path.relative_to(REPO)}: {dotted}")
    assert not missing, "\n".join(missing)
