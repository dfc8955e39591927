"""Pictures of rankings across groups (matplotlib, imported when a plot is drawn)."""

from ._plots import plot_intervals
from ._plots import plot_score_distributions
from ._plots import plot_tradeoff
from ._plots import plot_xroc

__all__ = ["plot_intervals", "plot_score_distributions", "plot_tradeoff", "plot_xroc"]
