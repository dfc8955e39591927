"""The paper's baselines (``gpu_xorder.experiments.baselines``), under their public name."""

from .experiments.baselines import ConstrainedRanker
from .experiments.baselines import CorrReg
from .experiments.baselines import PostLogit

__all__ = ["ConstrainedRanker", "CorrReg", "PostLogit"]
