"""Pictures of a ranking's fairness: the xROC curves of pairs of groups and the score
distributions of the groups here, and what every picture shares (matplotlib on demand,
the axes, names, honest limits, labels that do not overlap); the trade-off along an
xOrder path in ``_tradeoff``, the forest plot of intervals in ``_intervals``.
matplotlib is imported when a function is called (``pip install "gpu-xorder[plot]"``);
the package imports and works without it.

Axes do not exaggerate (docs/design.md, section 2): a disparity axis starts at 0 (parity)
and an AUC axis spans at least ``MIN_AUC_SPAN``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import metrics
from ..metrics._ranking import check_order, defined
from ..utils import _params as params
from ..utils._metrics import METRICS
from ..utils._optional import optional
from ..utils._text import isolated, visible
from ..utils._validation import check_choice, check_labels, check_scores, encode_groups

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from matplotlib.axes import Axes
    from numpy.typing import ArrayLike

MSG_NO_MATPLOTLIB = ("the plots need matplotlib, which is not installed: "
                     'pip install "gpu-xorder[plot]"')
SCALES = ("score", "rank")
DISPARITY_NAMES = {name: m.display for name, m in METRICS.items()}
#: The narrowest span of an AUC axis: an AUC gap of a few thousandths, below the
#: sampling error of any test split in the paper, must not fill a picture.
MIN_AUC_SPAN = 0.1
#: Where a point's label may go, in points from the point, tried in turn.
LABEL_OFFSETS = ((5, 5), (5, -12), (-5, 5), (-5, -12), (5, 16), (5, -23), (-5, 16),
                 (-5, -23))


#: Whether :func:`drawn` isolates labels (inside :func:`isolating`).
_ISOLATING = [False]


def drawn(label):
    """A label (a group's, a column's, a class's) as matplotlib is to draw it: every
    ``$`` escaped (two would make it mathtext: ``$\\foo$`` an error after the work,
    ``$0-$50k`` drawn as "0 - 50k"), the characters that act rather than show written
    as escapes (``utils._text.visible``: a control character makes an SVG invalid XML,
    U+202E turns the numbers after it around) and, inside :func:`isolating`, between
    Unicode isolates. Every text of a user that a picture shows passes through it.

    Examples
    --------
    >>> print(drawn("$0-$50k"))
    \\$0-\\$50k
    """
    text = visible(label).replace("$", r"\$")
    return isolated(text) if _ISOLATING[0] else text


class isolating:
    """Within the block, :func:`drawn` puts each label between FSI and PDI: for a
    picture saved with its text as text (an SVG a browser lays out bidirectionally),
    where a right-to-left label would otherwise move the numbers beside it. Not for
    PNG: its renderer draws the isolates as boxes (and needs none)."""

    def __enter__(self):
        import warnings

        self._before = _ISOLATING[0]
        _ISOLATING[0] = True
        self._warnings = warnings.catch_warnings()
        self._warnings.__enter__()
        # matplotlib measures the text with a font that has no glyph for the isolates
        warnings.filterwarnings("ignore", message=r"Glyph 82(96|97) .*missing")
        return self

    def __exit__(self, *exc):
        _ISOLATING[0] = self._before
        self._warnings.__exit__(*exc)
        return False


def _matplotlib():
    return optional("matplotlib", MSG_NO_MATPLOTLIB)


def _axes(ax):
    """``ax``, or the axes of a new pyplot figure (which notebooks show)."""
    if ax is not None:
        return ax
    _matplotlib()
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(5.5, 4.5), layout="constrained")[1]


def plot_xroc(y_true: ArrayLike, y_score: ArrayLike, *, sensitive_features: ArrayLike,
              pairs: Sequence[tuple] | None = None, band: float | None = None,
              names: Mapping | None = None, positive: str | None = None,
              ax: Axes | None = None) -> Axes:
    """Plot the xROC curves of pairs of groups, each labelled with its xAUC.

    xROC(g, h) traces the positives of g scoring ``>= t`` against the negatives of h
    scoring ``>= t`` over thresholds t (:func:`gpu_xorder.metrics.xroc_curve`); its area
    is xAUC(g, h). Curves of the two directions of a pair apart mean disparity.

    Parameters
    ----------
    y_true, y_score, sensitive_features : array-like of shape (n,)
        0/1 labels, scores and the group of every item.
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

    Raises
    ------
    TypeError
        If ``y_true`` is recognisably scores (given first, in the earlier order).
    ValueError
        On invalid data or a pair the data do not define (as
        :func:`gpu_xorder.metrics.xauc`).

    Examples
    --------
    >>> ax = plot_xroc([1, 0, 1, 0], [4, 3, 2, 1], sensitive_features=["a", "a", "b", "b"])
    >>> [line.get_label() for line in ax.get_lines()][:2]
    ['a positives vs b negatives: xAUC 1.000', 'b positives vs a negatives: xAUC 0.000']
    """
    _matplotlib()
    check_order("plot_xroc", y_true, y_score)
    band = None if band is None else params.check("level", band)  # a float for labels
    n = check_scores(y_score, name="y_score").shape[0]
    check_labels(y_true, n)  # bad labels an error, not pairs left out (an empty figure)
    data = {"y_true": y_true, "y_score": y_score, "sensitive_features": sensitive_features}
    labels, _ = encode_groups(sensitive_features, n)
    labels = [g.item() for g in labels]
    if pairs is None:
        pairs = [(g, h) for g in labels for h in labels if g != h
                 and defined(metrics.xauc, **data, g=g, h=h) is not None]
    ax = _axes(ax)
    name = namer(names)
    for k, (g, h) in enumerate(pairs):
        fpr, tpr, _ = metrics.xroc_curve(**data, g=g, h=h)
        value = metrics.xauc(**data, g=g, h=h)
        colour = f"C{k % 10}"
        ax.plot(fpr, tpr, color=colour,
                label=f"{name(g)} positives vs {name(h)} negatives: xAUC {value:.3f}")
        if band is not None:
            b = metrics.xroc_band(**data, g=g, h=h, level=band)
            ax.fill(np.concatenate((b.fpr_low, b.fpr_high[::-1])),
                    np.concatenate((b.tpr_high, b.tpr_low[::-1])), color=colour,
                    alpha=0.15, linewidth=0)
    ax.plot([0, 1], [0, 1], color="0.6", linestyle=":", linewidth=1)
    what = "" if positive is None else f" ({drawn(positive)})"
    other = "" if positive is None else f" (not {drawn(positive)})"
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


#: Inches a row of a small legend (``legend_below``) takes.
LEGEND_ROW_INCHES = 0.2


def legend_inches(entries, ncols):
    """The height in inches that a legend of ``entries`` in ``ncols`` columns below
    the axes takes: a figure of many groups grows by it, or constrained layout would
    collapse the axes (50 groups: 100 entries of score distributions)."""
    return LEGEND_ROW_INCHES * -(-entries // ncols)


def namer(names):
    """``label -> text``: its readable name where ``names`` has one, as drawn
    (:func:`drawn`)."""
    if names is None:
        return drawn
    return lambda g: drawn(names.get(g, g))


def plot_score_distributions(y_true: ArrayLike | None, y_score: ArrayLike, *,
                             sensitive_features: ArrayLike, bins: int = 30,
                             scale: str = "score", ax: Axes | None = None) -> Axes:
    """Plot the score distribution of every group (with labels: of its positives and
    its negatives apart), as step histograms of density over common bins.

    Parameters
    ----------
    y_true : array-like of shape (n,) or None
        0/1 labels: positives drawn solid, negatives dashed, in the group's colour;
        None: every group's scores as one curve.
    y_score : array-like of shape (n,)
        Finite scores.
    sensitive_features : array-like of shape (n,) or (n, c)
        The group of every item.
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

    Raises
    ------
    TypeError
        If ``y_true`` is recognisably scores (given first, in the earlier order).
    ValueError
        On scores that are not finite, labels other than 0 and 1, lengths that differ,
        or an unknown ``scale``.

    Examples
    --------
    >>> ax = plot_score_distributions(None, [4, 3, 2, 1],
    ...                               sensitive_features=["a", "a", "b", "b"])
    >>> ax.get_legend_handles_labels()[1]
    ['a (n=2)', 'b (n=2)']
    >>> ax = plot_score_distributions([1, 0, 1, 0], [4, 3, 2, 1],
    ...                               sensitive_features=["a", "a", "b", "b"])
    >>> ax.get_legend_handles_labels()[1]
    ['a positives (n=1)', 'a negatives (n=1)', 'b positives (n=1)', 'b negatives (n=1)']
    """
    _matplotlib()
    scale = check_choice(scale, "scale", SCALES)
    check_order("plot_score_distributions", y_true, y_score)
    scores = check_scores(y_score, name="y_score")
    y = None if y_true is None else check_labels(y_true, scores.shape[0])
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
                 [(" positives", (index == k) & (y == 1), "-"),
                  (" negatives", (index == k) & (y == 0), "--")])
        for what, chosen, style in parts:
            if chosen.any():
                ax.hist(scores[chosen], bins=edges, density=True, histtype="step",
                        color=colour, linestyle=style,
                        label=f"{drawn(label.item())}{what} (n={int(chosen.sum())})")
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
