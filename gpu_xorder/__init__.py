"""gpu-xorder: fair bipartite rankings across protected groups by xOrder.

The dynamic program runs on a CuPy GPU engine when one is usable and on an exact NumPy
reference otherwise; both return the very same ordering.
"""

from . import metrics
from ._api import fair_order
from ._backend import BackendUnavailableError
from ._result import FairOrderResult

__version__ = "0.1.0"

__all__ = [
    "BackendUnavailableError",
    "FairOrderResult",
    "XOrder",
    "fair_order",
    "metrics",
]


def __getattr__(name):
    # The estimator pulls in scikit-learn; import it on first use only.
    if name == "XOrder":
        from ._estimator import XOrder

        return XOrder
    raise AttributeError(f"module 'gpu_xorder' has no attribute {name!r}")
