"""Every ``module.name`` a comment or docstring cites in backticks names something that
exists: the module (a module or package of the project, by its dotted path or its last
part, ``_plan`` or ``engine._plan``) defines the name at its top level (a function, a
class, a constant, an import). Scanned: the packages' Python sources and the CUDA
sources (``.cu``, ``.cuh``), whose comments cite the Python side."""

import ast
import io
import re
import tokenize

from test_docs import PROJECT_MODULES, _resolves

from support import REPO

ROOTS = ("gpu_xorder", "cpu_reference")
CITE = re.compile(r"``?((?:[A-Za-z_][A-Za-z0-9_]*\.)+[A-Za-z_][A-Za-z0-9_]*)(?:\(\))?``?")
#: File names, not names in a module (``_estimator.py``).
SUFFIXES = {"py", "cu", "cuh", "md", "j2", "json", "csv", "png", "toml"}


#: The project's modules and how a dotted name resolves in one: test_docs's, which
#: checks the names the documentation cites the same way.
MODULES = PROJECT_MODULES


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
                    if found is not None and ".".join(found) not in MODULES and (
                            not _resolves(found[0], [found[1]])):
                        missing.append(f"{path.relative_to(REPO)}: {dotted}")
    assert not missing, "\n".join(missing)
