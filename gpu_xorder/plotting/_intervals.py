"""A forest plot of every metric's (or disparity's) confidence interval
(:func:`plot_intervals`), of one score column or several side by side."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..metrics._frame import FRAME_METRICS, RankingMetricFrame
from ..utils._metrics import METRICS
from ..utils._validation import check_choice
from ._plots import (
    DISPARITY_NAMES,
    MIN_AUC_SPAN,
    _axes,
    _matplotlib,
    drawn,
    legend_below,
    namer,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from matplotlib.axes import Axes

    from ..metrics import MetricIntervals

MSG_INTERVAL_GROUPS = "plot_intervals: the sets of intervals are of different groups"
PARTS = ("metrics", "disparities")
MSG_NOTHING = "plot_intervals: no interval of part={part!r} among the metrics {metrics}"


def plot_intervals(intervals: MetricIntervals | RankingMetricFrame
                   | Mapping[str, MetricIntervals | RankingMetricFrame], *,
                   part: str = "metrics", names: Mapping | None = None,
                   metrics: Sequence[str] | None = None, ax: Axes | None = None) -> Axes:
    """A forest plot: every metric (or disparity) with its confidence interval.

    Parameters
    ----------
    intervals : MetricIntervals, RankingMetricFrame, or mapping of str to either
        :func:`gpu_xorder.metrics.confidence_intervals` of one score column, or of
        several (``{"risk": ..., "fair": ...}``, of the same groups): one marker each,
        side by side. A :class:`gpu_xorder.metrics.RankingMetricFrame` stands for its
        intervals at their defaults (``frame.plot()`` chooses them) and, unless
        ``metrics`` is given, draws its own built-in metrics.
    part : {"metrics", "disparities"}, default="metrics"
        ``"metrics"``: the AUC, the AUC within every group, xAUC of every ordered pair
        and PRF of every group; ``"disparities"``: Delta-xAUC, Delta-PRF and URF of every
        pair of groups (with more than two, their maxima too).
    names : mapping, optional
        Readable names of the group labels.
    metrics : sequence of {"auc", "xauc", "prf", "urf"}, optional
        The metrics drawn (default: all, or a frame's own); others are left out.
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    ValueError
        On an unknown ``part`` or metric, sets of intervals of different groups, no
        row to draw (``metrics=["urf"]`` of ``part="metrics"``, a frame of callables
        only), or a frame with ``sample_weight`` (no intervals).

    Examples
    --------
    >>> from gpu_xorder import metrics
    >>> ci = metrics.confidence_intervals([1, 0, 1, 0, 0, 1], [4, 3, 2, 1, 0, 5],
    ...                                   sensitive_features=["a", "a", "b", "b", "a", "b"],
    ...                                   method="delong")
    >>> ax = plot_intervals(ci, part="disparities")
    >>> [tick.get_text() for tick in ax.get_yticklabels()]
    ['Delta-xAUC(a, b)', 'Delta-PRF(a, b)', 'URF(a, b)']
    """
    _matplotlib()
    part = check_choice(part, "part", PARTS)
    sets = dict(intervals) if isinstance(intervals, Mapping) else {"": intervals}
    frames = [ci for ci in sets.values() if isinstance(ci, RankingMetricFrame)]
    if metrics is None:
        metrics = frames[0].metrics if frames else FRAME_METRICS
    metrics = [check_choice(m, "metrics", FRAME_METRICS) for m in metrics
               if not frames or m in FRAME_METRICS]  # a frame's callables: no intervals
    sets = {label: ci._confidence() if isinstance(ci, RankingMetricFrame) else ci
            for label, ci in sets.items()}
    first = next(iter(sets.values()))
    if any(ci.groups != first.groups for ci in sets.values()):
        raise ValueError(MSG_INTERVAL_GROUPS)
    rows = _interval_rows(first.groups, part, namer(names), metrics)
    if not rows:
        raise ValueError(MSG_NOTHING.format(part=part, metrics=metrics))
    ax = _axes(ax)
    step = 0.7 / max(len(sets), 1)
    highs, lows = [], []
    for j, (label, ci) in enumerate(sets.items()):
        offset = (j - (len(sets) - 1) / 2) * step
        legend = drawn(label)
        for i, (_, get) in enumerate(rows):
            iv = get(ci)
            at = -i - offset
            if iv is None:
                ax.annotate("n/a", (0, at), xycoords=("axes fraction", "data"),
                            xytext=(3, 0), textcoords="offset points", va="center",
                            fontsize="small", color=f"C{j % 10}")
                continue
            ax.errorbar([iv.estimate], [at], xerr=[[iv.estimate - iv.low],
                                                  [iv.high - iv.estimate]],
                        fmt="o", color=f"C{j % 10}", capsize=3, markersize=4,
                        label=legend)
            legend = None
            lows.append(iv.low)
            highs.append(iv.high)
    ax.set_yticks([-i for i in range(len(rows))], [text for text, _ in rows])
    ax.set_ylim(-len(rows) + 0.4, 0.6)
    how = (f"{first.level:.0%} intervals, "
           + ("DeLong" if first.method == "delong"
              else f"bootstrap of {first.n_bootstrap}"))
    if part == "disparities":
        ax.set_xlim(0.0, max(highs + [1e-3]) * 1.1)
        ax.set(xlabel=f"disparity (0: parity); {how}", title="Disparities")
    else:
        low, high = min(lows + [0.5]), max(highs + [0.5])
        pad = max((MIN_AUC_SPAN - (high - low)) / 2, 0.02)
        ax.set_xlim(max(0.0, low - pad), min(1.0, high + pad))
        ax.axvline(0.5, color="0.6", linestyle=":", linewidth=1)
        ax.set(xlabel=f"value (0.5: chance); {how}", title="Metrics")
    if len(sets) > 1 or "" not in sets:
        legend_below(ax, ncols=min(len(sets), 3))
    return ax


def _interval_rows(groups, part, name, metrics=FRAME_METRICS):
    """``[(row label, MetricIntervals -> Interval or None)]``, top row first, of the
    ``metrics`` drawn."""
    pairs = [(g, h) for i, g in enumerate(groups) for h in groups[i + 1:]]
    if part == "metrics":
        drawn = {
            "auc": [("AUC", lambda ci: ci.auc)]
            + [(f"AUC within {name(g)}", lambda ci, g=g: ci.auc_within[g]) for g in groups],
            "xauc": [(f"xAUC({name(g)}, {name(h)})", lambda ci, g=g, h=h: ci.xauc[g, h])
                     for g in groups for h in groups if g != h],
            "prf": [(f"PRF({name(g)})", lambda ci, g=g: ci.prf[g]) for g in groups]}
        return [row for m in ("auc", "xauc", "prf") if m in metrics for row in drawn[m]]
    rows = []
    for metric, prefix in ((n, m.pair_display) for n, m in METRICS.items()):
        if metric not in metrics:
            continue
        rows += [(f"{prefix}({name(g)}, {name(h)})",
                  lambda ci, m=metric, p=(g, h): ci.disparity_pairs[m][p])
                 for g, h in pairs]
        if len(pairs) > 1:
            rows.append((f"{DISPARITY_NAMES[metric]} (largest)",
                         lambda ci, m=metric: ci.disparity[m]))
    return rows
