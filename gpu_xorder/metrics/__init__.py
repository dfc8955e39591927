"""Ranking metrics across protected groups and their uncertainty.

AUC, xAUC, PRF and URF with ties counted 1/2, the disparities Delta between groups,
xROC curves, variances and confidence intervals, the group a ranking disadvantages
(docs/design.md, section 2), and the rates of the decision a score makes at a cut-off.
"""

from ._direction import Disadvantage
from ._direction import disadvantaged_group
from ._confidence import auc_variance
from ._confidence import confidence_intervals
from ._confidence import xauc_variance
from ._decisions import DecisionRates
from ._decisions import decision_rates
from ._curves import XrocBand
from ._curves import xroc_band
from ._curves import xroc_curve
from ._ranking import auc
from ._ranking import disparity
from ._ranking import disparity_pairs
from ._ranking import prf
from ._ranking import urf
from ._ranking import xauc
from ._uncertainty import Interval
from ._uncertainty import MetricIntervals

__all__ = ["auc", "xauc", "prf", "urf", "disparity", "disparity_pairs", "xroc_curve",
           "xroc_band", "XrocBand",
           "auc_variance", "xauc_variance", "confidence_intervals", "Interval",
           "MetricIntervals", "RankingMetricFrame",
           "disadvantaged_group", "Disadvantage", "decision_rates", "DecisionRates"]


def __getattr__(name):
    # RankingMetricFrame needs pandas: imported on first use only
    if name == "RankingMetricFrame":
        from ._frame import RankingMetricFrame

        return RankingMetricFrame
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
