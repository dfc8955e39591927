"""Pictures of a ranking's fairness: the xROC curves of pairs of groups, the score
distributions of the groups, the trade-off between AUC and disparity along an xOrder
path, and a forest plot of every metric's confidence interval. matplotlib is imported
when a function is called (``pip install "gpu-xorder[plot]"``); the package imports and
works without it.

Axes do not exaggerate (docs/design.md, section 2): a disparity axis starts at 0 (parity)
and an AUC axis spans at least ``MIN_AUC_SPAN``.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np

from .. import metrics
from ..metrics._ranking import defined
from ..utils import _params as params
from ..utils._validation import check_choice, encode_groups

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from matplotlib.axes import Axes
    from numpy.typing import ArrayLike

    from ..metrics import MetricIntervals

MSG_NO_MATPLOTLIB = ("the plots need matplotlib, which is not installed: "
                     'pip install "gpu-xorder[plot]"')
MSG_TRADEOFF_ITEM = ("plot_tradeoff takes fitted XOrder models or FairOrderResults "
                     "(xorder_path, fair_order with several lam), got {what}")
MSG_TRADEOFF_DATA = "plot_tradeoff(data=...) needs fitted XOrder models, got {what}"
MSG_TRADEOFF_METRIC = ("the points' disparity {metric!r} is not the one they traded; pass "
                       "data=(scores, y, sensitive_features) to measure it")
MSG_CHOSEN = "chosen={chosen!r} is neither one of the points nor the lam of one"
MSG_INTERVAL_GROUPS = "plot_intervals: the sets of intervals are of different groups"
PARTS = ("metrics", "disparities")
SCALES = ("score", "rank")
DISPARITY_NAMES = {"xauc": "Delta-xAUC", "prf": "Delta-PRF", "urf": "Delta-URF"}
#: The narrowest span of an AUC axis: an AUC gap of a few thousandths, below the
#: sampling error of any test split in the paper, must not fill a picture.
MIN_AUC_SPAN = 0.1
#: Where a point's label may go, in points from the point, tried in turn.
LABEL_OFFSETS = ((5, 5), (5, -12), (-5, 5), (-5, -12), (5, 16), (5, -23), (-5, 16),
                 (-5, -23))


def _matplotlib():
    try:
        import matplotlib
    except ImportError:
        raise ImportError(MSG_NO_MATPLOTLIB) from None
    return matplotlib


def _axes(ax):
    """``ax``, or the axes of a new pyplot figure (which notebooks show)."""
    if ax is not None:
        return ax
    _matplotlib()
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(5.5, 4.5), layout="constrained")[1]


def plot_xroc(scores: ArrayLike, y: ArrayLike, sensitive_features: ArrayLike, *,
              pairs: Sequence[tuple] | None = None, band: float | None = None,
              names: Mapping | None = None, positive: str | None = None,
              ax: Axes | None = None) -> Axes:
    """Plot the xROC curves of pairs of groups, each labelled with its xAUC.

    xROC(g, h) traces the positives of g scoring ``>= t`` against the negatives of h
    scoring ``>= t`` over thresholds t (:func:`gpu_xorder.metrics.xroc_curve`); its area
    is xAUC(g, h). Curves of the two directions of a pair apart mean disparity.

    Parameters
    ----------
    scores, y, sensitive_features : array-like of shape (n,)
        Scores, 0/1 labels and the group of every item.
    pairs : sequence of (g, h), optional
        Ordered pairs of group labels; default: every ordered pair of distinct groups
        that the data define (g with positives, h with negatives).
    band : float, optional
        Draw each curve's pointwise confidence band at this level
        (:func:`gpu_xorder.metrics.xroc_band`), e.g. 0.95.
    names : mapping, optional
        Readable names of group labels (``{0: "non-white", 1: "white"}``).
    positive : str, optional
        What a positive is (``"re-offended"``), for the axis labels.
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Examples
    --------
    >>> ax = plot_xroc([4, 3, 2, 1], [1, 0, 1, 0], ["a", "a", "b", "b"])
    >>> [line.get_label() for line in ax.get_lines()][:2]
    ['a positives vs b negatives: xAUC 1.000', 'b positives vs a negatives: xAUC 0.000']
    """
    _matplotlib()
    band = None if band is None else params.check("level", band)  # a float for labels
    labels, _ = encode_groups(sensitive_features, np.shape(scores)[0])
    labels = [g.item() for g in labels]
    if pairs is None:
        pairs = [(g, h) for g in labels for h in labels if g != h
                 and defined(metrics.xauc, scores, y, sensitive_features, g, h) is not None]
    ax = _axes(ax)
    name = namer(names)
    for k, (g, h) in enumerate(pairs):
        fpr, tpr, _ = metrics.xroc_curve(scores, y, sensitive_features, g, h)
        value = metrics.xauc(scores, y, sensitive_features, g, h)
        colour = f"C{k % 10}"
        ax.plot(fpr, tpr, color=colour,
                label=f"{name(g)} positives vs {name(h)} negatives: xAUC {value:.3f}")
        if band is not None:
            b = metrics.xroc_band(scores, y, sensitive_features, g, h, level=band)
            ax.fill(np.concatenate((b.fpr_low, b.fpr_high[::-1])),
                    np.concatenate((b.tpr_high, b.tpr_low[::-1])), color=colour,
                    alpha=0.15, linewidth=0)
    ax.plot([0, 1], [0, 1], color="0.6", linestyle=":", linewidth=1)
    what = "" if positive is None else f" ({positive})"
    other = "" if positive is None else f" (not {positive})"
    ax.set(xlim=(0, 1), ylim=(0, 1), aspect="equal",
           title="xROC curves" + ("" if band is None else
                                  f", {band:.0%} pointwise bands"),
           xlabel=f"share of the negatives{other} scoring >= t",
           ylabel=f"share of the positives{what} scoring >= t")
    legend_below(ax)
    return ax


def legend_below(ax, ncols=1):
    """The axes' legend under its x axis label, where it covers no data (constrained
    layout makes room for it). Its distance below the axes, in points, is that of the
    tick labels and of every line of the x axis label as set now: call it again after
    changing the label."""
    from matplotlib.transforms import offset_copy

    tick = ax.xaxis.get_major_ticks()[0] if ax.xaxis.get_major_ticks() else None
    below = 0.0 if tick is None else (tick.get_tick_padding() + tick.get_pad()
                                      + tick.label1.get_fontsize())
    label = ax.xaxis.label
    lines = label.get_text().count("\n") + 1 if label.get_text() else 0
    below += ax.xaxis.labelpad + 1.2 * lines * label.get_fontsize() + 4
    return ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=ncols,
                     bbox_transform=offset_copy(ax.transAxes, fig=ax.figure, y=-below,
                                                units="points"),
                     fontsize="small", frameon=False)


def namer(names):
    """``label -> text``: its readable name where ``names`` has one."""
    if names is None:
        return str
    return lambda g: str(names.get(g, g))


def plot_score_distributions(scores: ArrayLike, sensitive_features: ArrayLike,
                             y: ArrayLike | None = None, *, bins: int = 30,
                             scale: str = "score", ax: Axes | None = None) -> Axes:
    """Plot the score distribution of every group (with labels: of its positives and
    its negatives apart), as step histograms of density over common bins.

    Parameters
    ----------
    scores, sensitive_features : array-like of shape (n,)
        Scores and the group of every item.
    y : array-like, optional
        0/1 labels: positives drawn solid, negatives dashed, in the group's colour.
    bins : int, default=30
        Histogram bins.
    scale : {"score", "rank"}, default="score"
        ``"score"``: the scores themselves. ``"rank"``: each item's rank share, the
        share of all items scoring below it (ties counted 1/2), over ``bins`` equal
        bins of [0, 1], each holding about ``1 / bins`` of all items: the view of
        scores that matter only by their order. xOrder's adjusted scores are such:
        its maps are linear along runs of the learned ordering, so a long run of one
        group squeezed between two scores of another shows as a spike of density on
        the score scale, which the rank scale does not have.
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Examples
    --------
    >>> ax = plot_score_distributions([4, 3, 2, 1], ["a", "a", "b", "b"])
    >>> ax.get_legend_handles_labels()[1]
    ['a (n=2)', 'b (n=2)']
    """
    _matplotlib()
    scale = check_choice(scale, "scale", SCALES)
    scores = np.asarray(scores, dtype=np.float64)
    labels, index = encode_groups(sensitive_features, scores.shape[0])
    if scale == "rank":
        scores = rank_shares(scores)
        edges = np.linspace(0.0, 1.0, bins + 1)
    else:
        edges = np.histogram_bin_edges(scores, bins=bins)
    ax = _axes(ax)
    for k, label in enumerate(labels):
        colour = f"C{k % 10}"
        parts = ([("", index == k, "-")] if y is None else
                 [(" positives", (index == k) & (np.asarray(y) == 1), "-"),
                  (" negatives", (index == k) & (np.asarray(y) == 0), "--")])
        for what, chosen, style in parts:
            if chosen.any():
                ax.hist(scores[chosen], bins=edges, density=True, histtype="step",
                        color=colour, linestyle=style,
                        label=f"{label.item()}{what} (n={int(chosen.sum())})")
    ax.set(title="Scores by group" if scale == "score" else "Ranks by group",
           xlabel="score" if scale == "score" else
           "rank share: share of all items scoring lower (0: last, 1: first)",
           ylabel="density")
    legend_below(ax, ncols=2)
    return ax


def rank_shares(scores):
    """Each score's share of the scores below it, ties counted 1/2."""
    ranked = np.sort(scores)
    below = np.searchsorted(ranked, scores, "left") + np.searchsorted(ranked, scores,
                                                                      "right")
    return below / (2.0 * scores.size)


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
    data : (scores, y, sensitive_features), optional
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
        On anything but fitted models or results, or results with ``data``.
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
        scores, y, groups = data
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
        s = np.asarray(data[0], dtype=np.float64)
        x, a = _measured(s, data[1], data[2], metric)
        if errors is None:
            ax.plot([x], [a], "s", color="C3", label="unadjusted")
        else:
            e = _errors(s, data[1], data[2], metric, level)
            ax.errorbar([x], [a], xerr=np.array([e[0]]).T, yerr=np.array([e[1]]).T,
                        fmt="s", color="C3", capsize=3, label="unadjusted")
            extent += [(x - e[0][0], a - e[1][0]), (x + e[0][1], a + e[1][1])]
        extent.append((x, a))
        for k, (text, other) in enumerate((marked or {}).items()):
            point = _measured(np.asarray(other, dtype=np.float64), data[1], data[2],
                              metric)
            ax.plot(*point, "P", markersize=11, color=f"C{4 + k % 6}", zorder=4,
                    label=text)
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
           ylabel="AUC" + ("" if positive is None else f" (positive: {positive})"))
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
    ci = metrics.confidence_intervals(scores, y, groups, level=level, method="delong")

    def sides(interval):
        if interval is None:
            return (0.0, 0.0)
        return (interval.estimate - interval.low, interval.high - interval.estimate)

    return sides(ci.disparity[metric]), sides(ci.auc)


def honest_limits(ax, disparities, aucs, min_span=MIN_AUC_SPAN):
    """Axis ranges that do not exaggerate: the disparity axis from 0, the AUC axis
    spanning at least ``min_span`` (within [0, 1]) around the values."""
    top = max(max(disparities), 1e-3)
    ax.set_xlim(0.0, top * 1.12)
    low, high = min(aucs), max(aucs)
    pad = max((min_span - (high - low)) / 2, (high - low) * 0.08)
    low, high = low - pad, high + pad
    if low < 0:
        low, high = 0.0, min(1.0, high - low)
    if high > 1:
        low, high = max(0.0, low - (high - 1)), 1.0
    # a tick label at the very bottom would collide with the disparity axis's "0"
    ticks = ax.yaxis.get_major_locator().tick_values(low, high)
    if any(0 <= (tick - low) / (high - low) < 0.05 for tick in ticks) and low > 0:
        low = max(0.0, low - 0.06 * (high - low))
    ax.set_ylim(low, high)


def place_labels(ax, points, texts):
    """Label ``points`` (data coordinates) with ``texts``, each where its box overlaps
    no text of the figure (nor the legend) and no label placed before; a label that
    fits nowhere among ``LABEL_OFFSETS`` is left out. The figure is drawn once to fix
    its layout; the labels take no part in it."""
    fig = ax.figure
    fig.draw_without_rendering()
    taken = [text.get_window_extent() for text in fig.findobj(_is_text)
             if text.get_visible() and text.get_text()]
    legend = ax.get_legend()
    if legend is not None:
        taken.append(legend.get_window_extent())
    frame = ax.get_window_extent()
    placed = []
    for (x, y), text in zip(points, texts):
        for dx, dy in LABEL_OFFSETS:
            label = ax.annotate(text, (x, y), textcoords="offset points", xytext=(dx, dy),
                                ha="left" if dx >= 0 else "right", fontsize="small",
                                annotation_clip=False)
            label.set_in_layout(False)
            box = label.get_window_extent()
            inside = (box.x0 >= frame.x0 and box.x1 <= frame.x1 and box.y0 >= frame.y0
                      and box.y1 <= frame.y1)
            if inside and not any(box.overlaps(other) for other in taken):
                taken.append(box)
                placed.append(label)
                break
            label.remove()
    return placed


def _is_text(artist):
    from matplotlib.text import Text

    return isinstance(artist, Text)


def plot_intervals(intervals: MetricIntervals | Mapping[str, MetricIntervals], *,
                   part: str = "metrics", names: Mapping | None = None,
                   ax: Axes | None = None) -> Axes:
    """A forest plot: every metric (or disparity) with its confidence interval.

    Parameters
    ----------
    intervals : MetricIntervals or mapping of str to MetricIntervals
        :func:`gpu_xorder.metrics.confidence_intervals` of one score column, or of
        several (``{"risk": ..., "fair": ...}``, of the same groups): one marker each,
        side by side.
    part : {"metrics", "disparities"}, default="metrics"
        ``"metrics"``: the AUC, the AUC within every group, xAUC of every ordered pair
        and PRF of every group; ``"disparities"``: Delta-xAUC, Delta-PRF and URF of every
        pair of groups (with more than two, their maxima too).
    names : mapping, optional
        Readable names of the group labels.
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    ValueError
        On an unknown ``part`` or sets of intervals of different groups.

    Examples
    --------
    >>> from gpu_xorder import metrics
    >>> ci = metrics.confidence_intervals([4, 3, 2, 1, 0, 5], [1, 0, 1, 0, 0, 1],
    ...                                   ["a", "a", "b", "b", "a", "b"], method="delong")
    >>> ax = plot_intervals(ci, part="disparities")
    >>> [tick.get_text() for tick in ax.get_yticklabels()]
    ['Delta-xAUC(a, b)', 'Delta-PRF(a, b)', 'URF(a, b)']
    """
    _matplotlib()
    part = check_choice(part, "part", PARTS)
    sets = dict(intervals) if isinstance(intervals, dict) else {"": intervals}
    first = next(iter(sets.values()))
    if any(ci.groups != first.groups for ci in sets.values()):
        raise ValueError(MSG_INTERVAL_GROUPS)
    rows = _interval_rows(first.groups, part, namer(names))
    ax = _axes(ax)
    step = 0.7 / max(len(sets), 1)
    highs, lows = [], []
    for j, (label, ci) in enumerate(sets.items()):
        offset = (j - (len(sets) - 1) / 2) * step
        legend = label
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


def _interval_rows(groups, part, name):
    """``[(row label, MetricIntervals -> Interval or None)]``, top row first."""
    pairs = [(g, h) for i, g in enumerate(groups) for h in groups[i + 1:]]
    if part == "metrics":
        return ([("AUC", lambda ci: ci.auc)]
                + [(f"AUC within {name(g)}", lambda ci, g=g: ci.auc_within[g])
                   for g in groups]
                + [(f"xAUC({name(g)}, {name(h)})", lambda ci, g=g, h=h: ci.xauc[g, h])
                   for g in groups for h in groups if g != h]
                + [(f"PRF({name(g)})", lambda ci, g=g: ci.prf[g]) for g in groups])
    rows = []
    for metric, prefix in (("xauc", "Delta-xAUC"), ("prf", "Delta-PRF"), ("urf", "URF")):
        rows += [(f"{prefix}({name(g)}, {name(h)})",
                  lambda ci, m=metric, p=(g, h): ci.disparity_pairs[m][p])
                 for g, h in pairs]
        if len(pairs) > 1:
            rows.append((f"{DISPARITY_NAMES[metric]} (largest)",
                         lambda ci, m=metric: ci.disparity[m]))
    return rows


def _result_of(item):
    if hasattr(item, "result_"):
        return item.result_
    if hasattr(item, "order") and hasattr(item, "auc") and hasattr(item, "lam"):
        return item
    raise TypeError(MSG_TRADEOFF_ITEM.format(what=type(item).__name__))


def _measured(scores, y, groups, metric):
    return metrics.disparity(scores, y, groups, metric), metrics.auc(scores, y)


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
