"""The report's pictures as data URIs of SVG: drawn by :mod:`gpu_xorder.plotting`, shown
at the size they are drawn (1 inch = 96 CSS pixels), so a font of 8 points in the
figure is 8 points on the page and on paper (the smallest text of the plots is
matplotlib's ``"small"``, 8.3 points)."""

import base64
import functools
import io

import numpy as np

from .. import metrics
from ..metrics._ranking import defined
from ..plotting import plot_intervals, plot_score_distributions, plot_tradeoff, plot_xroc
from ..plotting._plots import _matplotlib, isolating, legend_inches

#: CSS pixels per inch: a figure is shown at its drawn size.
CSS_DPI = 96


class Picture:
    """A figure as a data URI with its displayed width and height in CSS pixels."""

    def __init__(self, fig):
        import matplotlib

        buffer = io.BytesIO()
        # text as text (the reader's sans-serif font): a tenth of the time and half the
        # size of glyphs drawn as paths, and searchable
        with matplotlib.rc_context({"svg.fonttype": "none"}):
            fig.savefig(buffer, format="svg", metadata={"Date": None})
        self.uri = "data:image/svg+xml;base64," + base64.b64encode(
            buffer.getvalue()).decode("ascii")
        width, height = fig.get_size_inches()
        self.width, self.height = round(width * CSS_DPI), round(height * CSS_DPI)


def _isolated(draw):
    """``draw`` with every label between Unicode isolates (``plotting._plots.isolating``):
    the page's browser lays out the SVG's text bidirectionally."""
    @functools.wraps(draw)
    def drawing(*args, **kwargs):
        with isolating():
            return draw(*args, **kwargs)
    return drawing


def _figure(width, height):
    _matplotlib()
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


@_isolated
def forest(sets):
    """Every metric (left) and disparity (right) of every score column with its
    interval; ``sets``: ``{column: MetricIntervals}``."""
    first = next(iter(sets.values()))
    k = len(first.groups)
    rows = max(1 + k + k * (k - 1) + k, 3 * (k * (k - 1) // 2 + (k > 2)))
    fig = _figure(9.5, 1.4 + 0.32 * rows * max(1, len(sets) / 2))
    left, right = fig.subplots(1, 2)
    plot_intervals(sets, part="metrics", ax=left)
    plot_intervals(sets, part="disparities", ax=right)
    if len(sets) > 1:  # one legend for both, below the panels, over no data
        left.get_legend().remove()
        right.get_legend().remove()
        handles, labels = left.get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncol=len(sets))
    return Picture(fig)


@_isolated
def xroc(scores, y, groups, pair, level, positive):
    """The xROC curves of both directions of ``pair`` with pointwise bands; None where
    neither direction is defined."""
    a, b = pair
    pairs = [(g, h) for g, h in ((a, b), (b, a))
             if defined(metrics.xauc, y, scores, sensitive_features=groups, g=g, h=h)
             is not None]
    if not pairs:
        return None
    fig = _figure(5.2, 6.0)
    plot_xroc(y, scores, sensitive_features=groups, pairs=pairs, band=level,
              positive=positive, ax=fig.add_subplot())
    return Picture(fig)


@_isolated
def distributions(scores, groups, y, scale="score"):
    """The score distributions per group, positives and negatives apart (taller by
    the legend's rows beyond four groups)."""
    k = len(set(np.asarray(groups).tolist()))
    fig = _figure(6.0, 4.6 + legend_inches(max(0, 2 * k - 8), 2))
    plot_score_distributions(y, scores, sensitive_features=groups, scale=scale,
                             ax=fig.add_subplot())
    return Picture(fig)


@_isolated
def tradeoff(models, scores, y, groups, adjusted, lam, positive):
    """AUC against disparity of the path's models on the audited data (no error bars:
    the points of one path are too close for them; the before-and-after table has the
    intervals), the model's lam marked, the unadjusted scores and the model file's
    adjusted scores (``adjusted``) too."""
    fig = _figure(6.4, 5.6)
    ax = plot_tradeoff(models, chosen=lam, data=(y, scores, groups), level=None,
                       positive=positive, marked={"the model file's scores": adjusted},
                       ax=fig.add_subplot())
    ax.set_title("AUC against disparity (fitted and measured on these data)")
    return Picture(fig)
