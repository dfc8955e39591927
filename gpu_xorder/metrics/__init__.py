"""Ranking metrics across protected groups and their uncertainty.

AUC, xAUC, PRF and URF with ties counted 1/2, the disparities Delta between groups,
xROC curves, variances and confidence intervals, the group a ranking disadvantages
(docs/design.md, section 2), findings judged by a stated rule on an
interval, and the rates of the decision a score makes at a cut-off.
"""

from ._confidence import auc_variance, confidence_intervals, xauc_variance
from ._curves import XrocBand, xroc_band, xroc_curve
from ._cutoff_findings import decision_findings
from ._decisions import DecisionRates, decision_rates
from ._direction import Disadvantage, disadvantaged_group  # noqa: F401 (the old name)
from ._findings import Finding, ranking_finding
from ._ranking import auc, disparity, disparity_pairs, prf, urf, xauc
from ._uncertainty import Interval, MetricIntervals

__all__ = ["auc", "xauc", "prf", "urf", "disparity", "disparity_pairs", "xroc_curve",
           "xroc_band", "XrocBand",
           "auc_variance", "xauc_variance", "confidence_intervals", "Interval",
           "MetricIntervals", "RankingMetricFrame",
           "disadvantaged_group", "decision_rates", "DecisionRates",
           "Finding", "ranking_finding", "decision_findings"]


def __getattr__(name):
    # RankingMetricFrame needs pandas: imported on first use only
    if name == "RankingMetricFrame":
        from ._frame import RankingMetricFrame

        return RankingMetricFrame
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
