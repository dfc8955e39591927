"""gpu-xorder: fair bipartite rankings across protected groups by xOrder.

The dynamic program runs on a CuPy GPU engine when one is usable and on an exact NumPy
reference otherwise; both return the very same ordering.
"""

from . import metrics
from ._api import fair_order
from ._backend import BackendUnavailableError
from ._estimator import XOrder
from ._estimator import xorder_path
from ._experiment import paper_experiment
from ._result import FairOrderResult

__version__ = "0.3.0"

__all__ = [
    "BackendUnavailableError",
    "FairOrderResult",
    "XOrder",
    "fair_order",
    "metrics",
    "paper_experiment",
    "xorder_path",
]

