"""gpu-xorder: fair bipartite rankings across protected groups by xOrder.

The dynamic program runs on a CuPy GPU engine when one is usable and on an exact NumPy
reference otherwise; both return the very same ordering.
"""

import importlib

from .utils._version import __version__ as __version__

# Public names and the modules that define them, imported on first use (as SciPy and
# scikit-learn do), so that `gpu-xorder --help` does not wait for scikit-learn.
_EXPORTS = {
    "BackendFallbackWarning": ".engine._backend",
    "BackendUnavailableError": ".engine._backend",
    "FairOrderResult": ".core._result",
    "FairRanker": ".postprocessing._ranker",
    "Plan": ".core._choice",
    "XOrder": ".postprocessing._estimator",
    "fair_order": ".core._api",
    "fairness_scorer": ".postprocessing._scorer",
    "metrics": None,  # a subpackage
    "paper_experiment": ".experiments._experiment",
    "plot_intervals": ".plotting._intervals",
    "plot_score_distributions": ".plotting._plots",
    "plot_tradeoff": ".plotting._tradeoff",
    "plot_xroc": ".plotting._plots",
    "xorder_path": ".postprocessing._path",
}

__all__ = [
    "BackendFallbackWarning",
    "BackendUnavailableError",
    "FairOrderResult",
    "FairRanker",
    "Plan",
    "XOrder",
    "fair_order",
    "fairness_scorer",
    "metrics",
    "paper_experiment",
    "plot_intervals",
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
