"""``fair_order``: the best interleaving of the groups' rankings, its solvers and
results."""

from ._api import fair_order
from ._result import FairOrderResult

__all__ = ["FairOrderResult", "fair_order"]
