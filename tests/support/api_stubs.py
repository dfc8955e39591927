"""The public API as docs/api.md shows it: stubs of every public function and class,
read from the code (``stub``) and compared with the document (``differences``).

docs/api.md has one section per public module, headed ``## `gpu_xorder.metrics``` and
so on; each public name is a fenced ``python`` block with its stub: ``def name(...) ->
...: ...`` for a function, and for a class ``class Name(Base):`` with its fields
(dataclasses and named tuples: ``name: type = default``), its ``__init__`` and its
public methods and properties, each as ``def`` with ``...`` for a body. The test
compares every parameter's name, kind, annotation (as written in the code) and default.

Run as a script (``python tests/support/api_stubs.py [NAME ...]``) it prints the stubs
the code gives, to paste into the document.
"""

import ast
import dataclasses
import importlib
import inspect
import json
import re
import sys
from pathlib import Path

#: The public modules and where their names come from.
PUBLIC_MODULES = ("gpu_xorder", "gpu_xorder.metrics", "gpu_xorder.datasets",
                  "gpu_xorder.baselines", "gpu_xorder.models")
WIDTH = 88


def public_names(module_name):
    """The public names of a module: its ``__all__`` (subpackages left out)."""
    module = importlib.import_module(module_name)
    return [n for n in module.__all__ if not inspect.ismodule(getattr(module, n))]


def _literal(value):
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, tuple):
        inner = ", ".join(_literal(v) for v in value)
        return f"({inner}{',' if len(value) == 1 else ''})"
    return repr(value)


def _annotation(annotation):
    if annotation is inspect.Parameter.empty:
        return None
    if isinstance(annotation, str):
        return annotation
    if hasattr(annotation, "__forward_arg__"):  # a named tuple's field under
        return annotation.__forward_arg__       # postponed annotations
    if isinstance(annotation, type):
        return annotation.__qualname__
    return normal(str(annotation))


def _parameters(sig, skip_self):
    out, star = [], False
    params = list(sig.parameters.values())
    if skip_self and params and params[0].name in ("self", "cls"):
        params = params[1:]
    for p in params:
        if p.kind is p.KEYWORD_ONLY and not star:
            out.append("*")
            star = True
        if p.kind is p.VAR_POSITIONAL:
            star = True
        prefix = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
        text = prefix + p.name
        annotation = _annotation(p.annotation)
        if annotation:
            text += f": {annotation}"
        if p.default is not p.empty:
            text += (" = " if annotation else "=") + _literal(p.default)
        out.append(text)
        if p.kind is p.POSITIONAL_ONLY and (p is params[-1] or params[params.index(p) + 1]
                                            .kind is not p.POSITIONAL_ONLY):
            out.append("/")
    return out


def _def(name, sig, indent="", skip_self=False, is_self=False):
    head = f"{indent}def {name}("
    params = (["self"] if is_self else []) + _parameters(sig, skip_self)
    ret = _annotation(sig.return_annotation)
    tail = ")" + (f" -> {ret}" if ret else "") + ": ..."
    lines, line = [], head
    for k, p in enumerate(params):
        piece = p + (", " if k < len(params) - 1 else "")
        if len(line) + len(piece.rstrip()) > WIDTH and line.strip() != head.strip():
            lines.append(line.rstrip())
            line = " " * len(head) + piece
        else:
            line += piece
    if len(line) + len(tail) > WIDTH and params:
        lines.append(line.rstrip())
        line = " " * len(head)
    lines.append(line + tail)
    return "\n".join(lines)


def _public_bases(cls):
    """The bases a reader sees: a private base's methods count as the class's own."""
    return [b for b in cls.__bases__ if b is not object and not b.__name__.startswith("_")]


def _own_methods(cls):
    """Public methods and properties the class defines, itself or through a private
    base (inherited public classes' methods left to their documentation), in
    definition order."""
    out, seen = [], set()
    private = [b for b in reversed(cls.__mro__[1:]) if b.__name__.startswith("_")
               and b.__module__.startswith("gpu_xorder")]
    namespace = {}
    for klass in private + [cls]:
        namespace.update(vars(klass))
    for name, value in namespace.items():
        if name in seen:
            continue
        seen.add(name)
        if name.startswith("_"):
            continue
        if isinstance(value, property):
            out.append((name, "property", value.fget))
        elif isinstance(value, (classmethod, staticmethod)):
            out.append((name, type(value).__name__, value.__func__))
        elif inspect.isfunction(value):
            out.append((name, "method", value))
    return out


def _fields(cls):
    """``[(name, annotation, default or MISSING)]`` of a dataclass or named tuple."""
    if dataclasses.is_dataclass(cls):
        out = []
        for f in dataclasses.fields(cls):
            if f.default is not dataclasses.MISSING:
                default = f.default
            elif f.default_factory is not dataclasses.MISSING:
                default = ("factory", f.default_factory)
            else:
                default = dataclasses.MISSING
            out.append((f.name, _annotation(f.type), default))
        return out
    if hasattr(cls, "_fields"):
        return [(n, _annotation(cls.__annotations__.get(n, inspect.Parameter.empty)),
                 cls._field_defaults.get(n, dataclasses.MISSING)) for n in cls._fields]
    return None


def stub(obj, name):
    """The stub of a public function, class or constant."""
    if inspect.isclass(obj):
        bases = _public_bases(obj)
        named_tuple = hasattr(obj, "_fields")
        base = "NamedTuple" if named_tuple else ", ".join(b.__name__ for b in bases)
        lines = [f"class {name}({base}):" if base else f"class {name}:"]
        fields = _fields(obj)
        if fields is not None:
            for fname, annotation, default in fields:
                text = f"    {fname}: {annotation}"
                if isinstance(default, tuple) and default[:1] == ("factory",):
                    text += f" = field(default_factory={default[1].__name__})"
                elif default is not dataclasses.MISSING:
                    text += f" = {_literal(default)}"
                lines.append(text)
        elif not issubclass(obj, BaseException):
            init = obj.__init__
            if init is not object.__init__:
                lines.append(_def("__init__", inspect.signature(init), "    ",
                                  skip_self=True, is_self=True))
        for mname, kind, func in _own_methods(obj):
            if kind == "property":
                lines.append("    @property")
            elif kind == "classmethod":
                lines.append("    @classmethod")
            sig = inspect.signature(func)
            lines.append(_def(mname, sig, "    ", skip_self=True,
                              is_self=kind in ("method", "property")))
            if kind == "classmethod":
                lines[-1] = lines[-1].replace(f"def {mname}(", f"def {mname}(cls, ", 1)
        if len(lines) == 1:
            lines.append("    ...")
        return "\n".join(lines)
    if callable(obj):
        return _def(name, inspect.signature(obj))
    return f"{name}: {type(obj).__name__}"


def normal(annotation):
    """An annotation as comparable text: parsed and unparsed, dotted prefixes dropped."""
    if annotation is None:
        return None
    text = ast.unparse(ast.parse(annotation, mode="eval"))
    return re.sub(r"\b(?:[A-Za-z_]\w*\.)+([A-Za-z_]\w*)", r"\1", text)


def documented(text):
    """``{module: {name: ast node}}`` of the stubs in docs/api.md."""
    out, module = {}, None
    for part in re.split(r"^## ", text, flags=re.MULTILINE)[1:]:
        heading, _, body = part.partition("\n")
        match = re.match(r"`([\w.]+)`", heading)
        if not match:
            continue
        module = match.group(1)
        for code in re.findall(r"^```python\n(.*?)^```", body, flags=re.MULTILINE | re.DOTALL):
            for node in ast.parse(code).body:
                name = getattr(node, "name", None) or getattr(
                    getattr(node, "target", None), "id", None)
                out.setdefault(module, {})[name] = node
    return out


def _stub_parameters(node, skip_self):
    """``[(name, kind, annotation, default node or None)]`` of a stub's ``def``."""
    a = node.args
    out = []
    positional = a.posonlyargs + a.args
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    for k, (arg, default) in enumerate(zip(positional, defaults)):
        kind = "POSITIONAL_ONLY" if k < len(a.posonlyargs) else "POSITIONAL_OR_KEYWORD"
        out.append((arg.arg, kind, arg.annotation, default))
    if a.vararg:
        out.append((a.vararg.arg, "VAR_POSITIONAL", a.vararg.annotation, None))
    for arg, default in zip(a.kwonlyargs, a.kw_defaults):
        out.append((arg.arg, "KEYWORD_ONLY", arg.annotation, default))
    if a.kwarg:
        out.append((a.kwarg.arg, "VAR_KEYWORD", a.kwarg.annotation, None))
    if skip_self and out and out[0][0] in ("self", "cls"):
        out = out[1:]
    return out


def _compare_def(node, func, where, skip_self):
    wrong = []
    sig = inspect.signature(func)
    real = [p for p in sig.parameters.values()]
    if skip_self and real and real[0].name in ("self", "cls"):
        real = real[1:]
    shown = _stub_parameters(node, skip_self)
    if [s[0] for s in shown] != [p.name for p in real]:
        return [f"{where}: parameters {[s[0] for s in shown]} != {[p.name for p in real]}"]
    for (name, kind, annotation, default), p in zip(shown, real):
        if kind != p.kind.name:
            wrong.append(f"{where}({name}): kind {kind} != {p.kind.name}")
        mine = None if annotation is None else normal(ast.unparse(annotation))
        theirs = normal(_annotation(p.annotation))
        if mine != theirs:
            wrong.append(f"{where}({name}): annotation {mine} != {theirs}")
        if (default is None) != (p.default is p.empty):
            wrong.append(f"{where}({name}): default shown {default is not None}")
        elif default is not None and ast.literal_eval(default) != p.default:
            wrong.append(f"{where}({name}): default {ast.unparse(default)} != {p.default!r}")
    mine = None if node.returns is None else normal(ast.unparse(node.returns))
    theirs = normal(_annotation(sig.return_annotation))
    if mine != theirs:
        wrong.append(f"{where}: returns {mine} != {theirs}")
    return wrong


def differences(node, obj, name):
    """What the stub ``node`` gets wrong about ``obj``."""
    if inspect.isclass(obj):
        if not isinstance(node, ast.ClassDef):
            return [f"{name}: a class, documented as {type(node).__name__}"]
        wrong = []
        bases = [ast.unparse(b) for b in node.bases]
        real_bases = (["NamedTuple"] if hasattr(obj, "_fields") else
                      [b.__name__ for b in _public_bases(obj)])
        if bases != real_bases:
            wrong.append(f"{name}: bases {bases} != {real_bases}")
        body = {getattr(n, "name", None) or getattr(getattr(n, "target", None), "id", None): n
                for n in node.body}
        fields = _fields(obj)
        if fields is not None:
            shown = [n for n in node.body if isinstance(n, ast.AnnAssign)]
            if [n.target.id for n in shown] != [f[0] for f in fields]:
                wrong.append(f"{name}: fields {[n.target.id for n in shown]} != "
                             f"{[f[0] for f in fields]}")
            for n, (fname, annotation, default) in zip(shown, fields):
                if normal(ast.unparse(n.annotation)) != normal(annotation):
                    wrong.append(f"{name}.{fname}: annotation")
                if isinstance(default, tuple) and default[:1] == ("factory",):
                    ok = n.value is not None and default[1].__name__ in ast.unparse(n.value)
                elif default is dataclasses.MISSING:
                    ok = n.value is None
                else:
                    ok = n.value is not None and ast.literal_eval(n.value) == default
                if not ok:
                    wrong.append(f"{name}.{fname}: default")
        elif not issubclass(obj, BaseException):
            if "__init__" not in body:
                wrong.append(f"{name}: no __init__ shown")
            else:
                wrong += _compare_def(body["__init__"], obj.__init__, f"{name}.__init__",
                                      True)
        methods = {m: f for m, _, f in _own_methods(obj)}
        shown_methods = {k for k, n in body.items()
                         if isinstance(n, ast.FunctionDef) and k != "__init__"}
        if shown_methods != set(methods):
            wrong.append(f"{name}: methods {sorted(shown_methods)} != {sorted(methods)}")
        for m in shown_methods & set(methods):
            wrong += _compare_def(body[m], methods[m], f"{name}.{m}", True)
        return wrong
    if callable(obj):
        if not isinstance(node, ast.FunctionDef):
            return [f"{name}: a function, documented as {type(node).__name__}"]
        return _compare_def(node, obj, name, False)
    if not isinstance(node, ast.AnnAssign):
        return [f"{name}: a {type(obj).__name__}, documented as {type(node).__name__}"]
    return []


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    wanted = set(sys.argv[1:])
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for n in public_names(module_name):
            if not wanted or n in wanted:
                print(f"# {module_name}.{n}\n{stub(getattr(module, n), n)}\n")
