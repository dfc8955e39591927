"""The paper's baselines (``gpu_xorder.experiments.baselines``), under their public name."""

from .experiments.baselines import ConstrainedRanker, CorrReg, PostLogit

__all__ = ["ConstrainedRanker", "CorrReg", "PostLogit"]
