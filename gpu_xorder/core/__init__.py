"""``fair_order``: the best interleaving of the groups' rankings, its solvers and
results."""

from ._api import fair_order
from ._choice import Plan
from ._result import FairOrderResult

__all__ = ["FairOrderResult", "Plan", "fair_order"]
