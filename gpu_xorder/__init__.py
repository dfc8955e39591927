"""gpu-xorder: fair bipartite rankings across protected groups by xOrder.

The dynamic program runs on a CuPy GPU engine when one is usable and on an exact NumPy
reference otherwise; both return the very same ordering.
"""

import importlib

__version__ = "0.3.0"

# Public names and the modules that define them, imported on first use (as SciPy and
# scikit-learn do), so that `gpu-xorder --help` does not wait for scikit-learn.
_EXPORTS = {
    "BackendFallbackWarning": "._backend",
    "BackendUnavailableError": "._backend",
    "FairOrderResult": "._result",
    "FairRanker": "._ranker",
    "XOrder": "._estimator",
    "fair_order": "._api",
    "metrics": None,  # a submodule
    "paper_experiment": "._experiment",
    "plot_score_distributions": "._plots",
    "plot_tradeoff": "._plots",
    "plot_xroc": "._plots",
    "xorder_path": "._estimator",
}

__all__ = [
    "BackendFallbackWarning",
    "BackendUnavailableError",
    "FairOrderResult",
    "FairRanker",
    "XOrder",
    "fair_order",
    "metrics",
    "paper_experiment",
    "plot_score_distributions",
    "plot_tradeoff",
    "plot_xroc",
    "xorder_path",
]


def __getattr__(name):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = _EXPORTS[name]
    if module is None:
        return importlib.import_module(f".{name}", __name__)
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
