"""Pictures of a ranking's fairness: the xROC curves of pairs of groups, the score
distributions of the groups, and the trade-off between AUC and disparity along an xOrder
path. matplotlib is imported when a function is called (``pip install
"gpu-xorder[plot]"``); the package imports and works without it.
"""

import numbers

import numpy as np

from .. import metrics
from ..metrics._ranking import defined
from ..utils._validation import METRICS, check_choice, encode_groups

MSG_NO_MATPLOTLIB = ("the plots need matplotlib, which is not installed: "
                     'pip install "gpu-xorder[plot]"')
MSG_TRADEOFF_ITEM = ("plot_tradeoff takes fitted XOrder models or FairOrderResults "
                     "(xorder_path, fair_order with several lam), got {what}")
MSG_TRADEOFF_DATA = "plot_tradeoff(data=...) needs fitted XOrder models, got {what}"
MSG_TRADEOFF_METRIC = ("the points' disparity {metric!r} is not the one they traded; pass "
                       "data=(scores, y, sensitive_features) to measure it")
MSG_CHOSEN = "chosen={chosen!r} is neither one of the points nor the lam of one"
DISPARITY_NAMES = {"xauc": "Delta-xAUC", "prf": "Delta-PRF", "urf": "Delta-URF"}


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


def plot_xroc(scores, y, sensitive_features, *, pairs=None, ax=None):
    """Plot the xROC curves of pairs of groups, each labelled with its xAUC.

    xROC(g, h) traces the positives of g scoring ``>= t`` against the negatives of h
    scoring ``>= t`` over thresholds t (:func:`gpu_xorder.metrics.xroc_curve`); its area
    is xAUC(g, h). Curves of the two directions of a pair apart mean disparity.

    Parameters
    ----------
    scores, y, sensitive_features
        Scores, 0/1 labels and the group of every item.
    pairs : sequence of (g, h), optional
        Ordered pairs of group labels; default: every ordered pair of distinct groups
        that the data define (g with positives, h with negatives).
    ax : matplotlib Axes, optional
        Where to draw; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_xroc([4, 3, 2, 1], [1, 0, 1, 0], ["a", "a", "b", "b"])
    >>> [line.get_label() for line in ax.get_lines()][:2]
    ['xROC(a, b): xAUC 1.000', 'xROC(b, a): xAUC 0.000']
    """
    _matplotlib()
    labels, _ = encode_groups(sensitive_features, np.shape(scores)[0])
    labels = [g.item() for g in labels]
    if pairs is None:
        pairs = [(g, h) for g in labels for h in labels if g != h
                 and defined(metrics.xauc, scores, y, sensitive_features, g, h) is not None]
    ax = _axes(ax)
    for g, h in pairs:
        fpr, tpr, _ = metrics.xroc_curve(scores, y, sensitive_features, g, h)
        value = metrics.xauc(scores, y, sensitive_features, g, h)
        ax.plot(fpr, tpr, label=f"xROC({g}, {h}): xAUC {value:.3f}")
    ax.plot([0, 1], [0, 1], color="0.6", linestyle=":", linewidth=1)
    ax.set(xlim=(0, 1), ylim=(0, 1), aspect="equal", title="xROC curves",
           xlabel="negatives of h scoring >= t (share)",
           ylabel="positives of g scoring >= t (share)")
    ax.legend(loc="lower right", fontsize="small")
    return ax


def plot_score_distributions(scores, sensitive_features, y=None, *, bins=30, ax=None):
    """Plot the score distribution of every group (with labels: of its positives and
    its negatives apart), as step histograms of density over common bins.

    Parameters
    ----------
    scores, sensitive_features
        Scores and the group of every item.
    y : array-like, optional
        0/1 labels: positives drawn solid, negatives dashed, in the group's colour.
    bins : int, default=30
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> ax = plot_score_distributions([4, 3, 2, 1], ["a", "a", "b", "b"])
    >>> ax.get_legend_handles_labels()[1]
    ['a (n=2)', 'b (n=2)']
    """
    _matplotlib()
    scores = np.asarray(scores, dtype=np.float64)
    labels, index = encode_groups(sensitive_features, scores.shape[0])
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
    ax.set(title="Scores by group", xlabel="score", ylabel="density")
    ax.legend(fontsize="small")
    return ax


def plot_tradeoff(models_or_results, chosen=None, *, data=None, metric=None, ax=None):
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
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    TypeError
        On anything but fitted models or results, or results with ``data``.
    ValueError
        On a ``chosen`` that is none of the points.

    Examples
    --------
    >>> from gpu_xorder import fair_order
    >>> results = fair_order([4, 3, 2, 1], [1, 0, 1, 0], ["a", "a", "b", "b"],
    ...                      lam=[0.0, 1.0], backend="numpy")
    >>> ax = plot_tradeoff(results, chosen=1.0)
    >>> ax.get_xlabel()
    'Delta-xAUC'
    """
    _matplotlib()
    items = list(models_or_results)
    results = [_result_of(item) for item in items]
    metric = check_choice(metric or results[0].metric, "metric", METRICS)
    lams = [r.lam for r in results]
    if data is None:
        points = [(r.disparity if metric == r.metric else None, r.auc) for r in results]
    else:
        scores, y, groups = data
        for item, r in zip(items, results):
            if item is r:
                raise TypeError(MSG_TRADEOFF_DATA.format(what=type(item).__name__))
        points = [_measured(m.transform(scores, sensitive_features=groups), y, groups,
                            metric) for m in items]
    if any(x is None for x, _ in points):
        raise ValueError(MSG_TRADEOFF_METRIC.format(metric=metric))
    mark = _chosen_index(chosen, items, lams)
    ax = _axes(ax)
    order = np.argsort(lams, kind="stable")
    ax.plot([points[i][0] for i in order], [points[i][1] for i in order], "o-",
            color="C0", label="xOrder")
    for (x, a), lam in zip(points, lams):
        ax.annotate(f"lam {lam:g}", (x, a), textcoords="offset points", xytext=(4, 4),
                    fontsize="small")
    if data is not None:
        x, a = _measured(np.asarray(data[0], dtype=np.float64), data[1], data[2], metric)
        ax.plot([x], [a], "s", color="C3", label="unadjusted")
    if mark is not None:
        ax.plot(*points[mark], "*", markersize=16, color="C1",
                label=f"chosen (lam {lams[mark]:g})")
    ax.set(title="AUC against disparity", xlabel=DISPARITY_NAMES[metric], ylabel="AUC")
    ax.legend(fontsize="small")
    return ax


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
