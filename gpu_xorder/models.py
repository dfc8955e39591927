"""The paper's base models (``gpu_xorder.experiments.models``), under their public name."""

from .experiments.models import MODELS
from .experiments.models import LogisticModel
from .experiments.models import PaperLinear
from .experiments.models import RankBoost
from .experiments.models import make_model

__all__ = ["MODELS", "LogisticModel", "PaperLinear", "RankBoost", "make_model"]
