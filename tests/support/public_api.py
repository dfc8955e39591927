"""The public API that the site documents (``docs/api/index.rst``, one page per name) and
that ``tests/test_numpydoc.py`` validates: the names of ``gpu_xorder.__all__`` and of the
public subpackages the README uses, each under one module.

The four ``plot_*`` functions are importable from ``gpu_xorder`` too; they are documented
once, under ``gpu_xorder.plotting``.
"""

import importlib
import inspect

#: The modules of the API reference, in its order.
MODULES = ("gpu_xorder", "gpu_xorder.metrics", "gpu_xorder.plotting", "gpu_xorder.report",
           "gpu_xorder.datasets",
           "gpu_xorder.baselines", "gpu_xorder.models")


def public_names(module_name):
    """The names a module documents: its ``__all__`` without subpackages, and for
    ``gpu_xorder`` without the ``plot_*`` functions (documented under ``plotting``)."""
    module = importlib.import_module(module_name)
    names = [n for n in module.__all__ if not inspect.ismodule(getattr(module, n))]
    if module_name == "gpu_xorder":
        plotting = importlib.import_module("gpu_xorder.plotting").__all__
        names = [n for n in names if n not in plotting]
    return names


def documented():
    """``{dotted name: object}`` of every public function, class and constant."""
    out = {}
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in public_names(module_name):
            out[f"{module_name}.{name}"] = getattr(module, name)
    return out


def methods(cls):
    """The public methods a class defines itself (those its API page shows): functions,
    class methods and static methods of its own ``__dict__``, not inherited ones."""
    return sorted(name for name, value in vars(cls).items()
                  if not name.startswith("_")
                  and (inspect.isfunction(value)
                       or isinstance(value, (classmethod, staticmethod))))
