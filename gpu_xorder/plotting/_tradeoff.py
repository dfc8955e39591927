"""The trade-off between AUC and disparity along an xOrder path (:func:`plot_tradeoff`),
on the training data or measured on held-out data with error bars, the chosen point
marked. Axes do not exaggerate (``_plots.honest_limits``)."""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np

from .. import metrics
from ..metrics._ranking import check_order
from ..utils import _params as params
from ._plots import (
    DISPARITY_NAMES,
    _axes,
    _matplotlib,
    drawn,
    honest_limits,
    legend_below,
    namer,
    place_labels,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from matplotlib.axes import Axes

MSG_TRADEOFF_ITEM = ("plot_tradeoff takes fitted XOrder models or FairOrderResults "
                     "(xorder_path, fair_order with several lam), got {what}")
MSG_TRADEOFF_DATA = "plot_tradeoff(data=...) needs fitted XOrder models, got {what}"
MSG_TRADEOFF_METRIC = ("the points' disparity {metric!r} is not the one they traded; pass "
                       "data=(y_true, y_score, sensitive_features) to measure it")
MSG_CHOSEN = "chosen={chosen!r} is neither one of the points nor the lam of one"


def plot_tradeoff(models_or_results: Sequence, chosen: object = None, *,
                  data: tuple | None = None, metric: str | None = None,
                  level: float | None = 0.95, names: Mapping | None = None,
                  positive: str | None = None, marked: Mapping | None = None,
                  ax: Axes | None = None) -> Axes:
    """Plot AUC against disparity along an xOrder path, the chosen point marked.

    Parameters
    ----------
    models_or_results : sequence
        Fitted :class:`gpu_xorder.XOrder` models (``xorder_path``) or
        :class:`gpu_xorder.FairOrderResult` (``fair_order`` with several ``lam``).
        Without ``data`` each point is its ordering's AUC and disparity on the training
        data.
    chosen : optional
        One of ``models_or_results``, or the ``lam`` of one, to mark.
    data : (y_true, y_score, sensitive_features), optional
        Held-out data: each model's adjusted scores of them are measured instead, and
        the unadjusted scores are marked too (models only).
    metric : {"xauc", "prf", "urf"}, optional
        The disparity; default: the metric the models traded.
    level : float or None, default=0.95
        With ``data``: error bars of this confidence level on both axes (DeLong,
        :func:`gpu_xorder.metrics.confidence_intervals`); None: none.
    names : mapping, optional
        Readable names of the group labels, for the axis label.
    positive : str, optional
        What a positive is, for the axis label.
    marked : mapping of str to array-like, optional
        With ``data``: more scores of the same items (a saved model's adjusted scores,
        say), each measured and marked with its name.
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    TypeError
        On anything but fitted models or results, results with ``data``, or a
        ``data`` whose first item is recognisably scores (given first, in the earlier
        order).
    ValueError
        On a ``chosen`` that is none of the points.

    Notes
    -----
    The disparity axis starts at 0 and the AUC axis spans at least ``MIN_AUC_SPAN``;
    the points' ``lam`` labels are placed where they overlap no other text (one that
    fits nowhere is left out: the legend gives the range of ``lam``).

    Examples
    --------
    >>> from gpu_xorder import fair_order
    >>> results = fair_order([4, 3, 2, 1], [1, 0, 1, 0], ["a", "a", "b", "b"],
    ...                      lam=[0.0, 1.0], backend="numpy")
    >>> ax = plot_tradeoff(results, chosen=1.0)
    >>> ax.get_xlabel()
    'Delta-xAUC between a and b (0: parity)'
    """
    _matplotlib()
    items = list(models_or_results)
    results = [_result_of(item) for item in items]
    metric = params.check("metric", metric or results[0].metric)
    level = None if level is None else params.check("level", level)  # a float for labels
    lams = [r.lam for r in results]
    errors = None
    if data is None:
        points = [(r.disparity if metric == r.metric else None, r.auc) for r in results]
    else:
        y, scores, groups = data
        check_order("plot_tradeoff", y, scores,
                    "plot_tradeoff(..., data=(y_true, y_score, sensitive_features))")
        for item, r in zip(items, results):
            if item is r:
                raise TypeError(MSG_TRADEOFF_DATA.format(what=type(item).__name__))
        adjusted = [m.transform(scores, sensitive_features=groups) for m in items]
        points = [_measured(s, y, groups, metric) for s in adjusted]
        if level is not None:
            errors = [_errors(s, y, groups, metric, level) for s in adjusted]
    if any(x is None for x, _ in points):
        raise ValueError(MSG_TRADEOFF_METRIC.format(metric=metric))
    mark = _chosen_index(chosen, items, lams)
    ax = _axes(ax)
    order = np.argsort(lams, kind="stable")
    xs, ys = [points[i][0] for i in order], [points[i][1] for i in order]
    label = ("xOrder, lam " + ", ".join(f"{lams[i]:g}" for i in order) if len(lams) <= 5
             else f"xOrder, {len(lams)} lam from {min(lams):g} to {max(lams):g}")
    if errors is None:
        ax.plot(xs, ys, "o-", color="C0", label=label)
    else:
        ax.errorbar(xs, ys, xerr=np.array([errors[i][0] for i in order]).T,
                    yerr=np.array([errors[i][1] for i in order]).T, fmt="o-", color="C0",
                    capsize=3, label=label + f" ({level:.0%} intervals)")
    extent = [(x, a) for x, a in points]
    if errors is not None:
        extent += [(x - e[0][0], a - e[1][0]) for (x, a), e in zip(points, errors)]
        extent += [(x + e[0][1], a + e[1][1]) for (x, a), e in zip(points, errors)]
    if data is not None:
        s = np.asarray(scores, dtype=np.float64)
        x, a = _measured(s, y, groups, metric)
        if errors is None:
            ax.plot([x], [a], "s", color="C3", label="unadjusted")
        else:
            e = _errors(s, y, groups, metric, level)
            ax.errorbar([x], [a], xerr=np.array([e[0]]).T, yerr=np.array([e[1]]).T,
                        fmt="s", color="C3", capsize=3, label="unadjusted")
            extent += [(x - e[0][0], a - e[1][0]), (x + e[0][1], a + e[1][1])]
        extent.append((x, a))
        for k, (text, other) in enumerate((marked or {}).items()):
            point = _measured(np.asarray(other, dtype=np.float64), y, groups, metric)
            ax.plot(*point, "P", markersize=11, color=f"C{4 + k % 6}", zorder=4,
                    label=drawn(text))
            extent.append(point)
    if mark is not None:
        ax.plot(*points[mark], "*", markersize=16, color="C1",
                label=f"chosen (lam {lams[mark]:g})")
    group_labels = [g.item() for g in results[0].groups]
    name = namer(names)
    between = (f"between {name(group_labels[0])} and {name(group_labels[1])}"
               if len(group_labels) == 2 else
               f"largest over pairs of {len(group_labels)} groups")
    ax.set(title="AUC against disparity" + ("" if data is None else " (held-out data)"),
           xlabel=f"{DISPARITY_NAMES[metric]} {between} (0: parity)",
           ylabel="AUC" + ("" if positive is None else f" (positive: {drawn(positive)})"))
    honest_limits(ax, [p[0] for p in extent], [p[1] for p in extent])
    legend_below(ax)
    place_labels(ax, *_lam_labels(points, lams))
    return ax


def _lam_labels(points, lams):
    """One label per distinct point: ``lam 0.5``, or ``lam 0 to 0.005`` for the
    weights whose orderings coincide."""
    at = {}
    for point, lam in zip(points, lams):
        at.setdefault(tuple(point), []).append(lam)
    texts = [f"lam {min(ls):g}" if len(ls) == 1 else f"lam {min(ls):g} to {max(ls):g}"
             for ls in at.values()]
    return list(at), texts


def _errors(scores, y, groups, metric, level):
    """``((left, right), (down, up))``: the distances from the disparity and the AUC
    to their DeLong limits at ``level`` (0 where a limit is undefined)."""
    ci = metrics.confidence_intervals(y, scores, sensitive_features=groups, level=level,
                                      method="delong")

    def sides(interval):
        if interval is None:
            return (0.0, 0.0)
        return (interval.estimate - interval.low, interval.high - interval.estimate)

    return sides(ci.disparity[metric]), sides(ci.auc)


def _result_of(item):
    if hasattr(item, "result_"):
        return item.result_
    if hasattr(item, "order") and hasattr(item, "auc") and hasattr(item, "lam"):
        return item
    raise TypeError(MSG_TRADEOFF_ITEM.format(what=type(item).__name__))


def _measured(scores, y, groups, metric):
    return (metrics.disparity(y, scores, sensitive_features=groups, metric=metric),
            metrics.auc(y, scores))


def _chosen_index(chosen, items, lams):
    if chosen is None:
        return None
    for i, item in enumerate(items):
        if item is chosen:
            return i
    if isinstance(chosen, numbers.Real) and not isinstance(chosen, bool):
        for i, lam in enumerate(lams):
            if lam == chosen:
                return i
    raise ValueError(MSG_CHOSEN.format(chosen=chosen))
