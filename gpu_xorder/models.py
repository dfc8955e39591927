"""The paper's base models (``gpu_xorder.experiments.models``), under their public name."""

from .experiments.models import MODELS, LogisticModel, PaperLinear, RankBoost, make_model

__all__ = ["MODELS", "LogisticModel", "PaperLinear", "RankBoost", "make_model"]
