"""Fair scores from an ordering: the ``XOrder`` transformer, ``xorder_path``, the
``FairRanker`` meta-estimator, the transfer to new scores and the model file."""

from ._estimator import XOrder
from ._path import xorder_path
from ._ranker import FairRanker

__all__ = ["FairRanker", "XOrder", "xorder_path"]
