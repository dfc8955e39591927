"""Pictures of rankings across groups (matplotlib, imported when a plot is drawn)."""

from ._intervals import plot_intervals
from ._plots import plot_score_distributions, plot_xroc
from ._tradeoff import plot_tradeoff

__all__ = ["plot_intervals", "plot_score_distributions", "plot_tradeoff", "plot_xroc"]
