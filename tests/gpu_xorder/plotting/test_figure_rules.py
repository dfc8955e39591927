"""Rules every picture keeps: no text under 8 points, legends outside the axes (over no
data), the paper's trade-off as small multiples with every point labelled and axes
fitted to the data, and the rank scale of score distributions flat over all items."""

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from matplotlib.figure import Figure  # noqa: E402
from matplotlib.text import Text  # noqa: E402

import gpu_xorder  # noqa: E402
from gpu_xorder import metrics, xorder_path  # noqa: E402
from gpu_xorder.experiments._paper_plots import (  # noqa: E402
    PANEL_AUC_SPAN,
    plot_tradeoff_panels,
)
from gpu_xorder.plotting._plots import rank_shares  # noqa: E402


def data(n=300, seed=3):
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b"], n)
    y = rng.integers(0, 2, n)
    return y + 0.7 * (g == "a") + rng.normal(0, 1, n), y, g


def texts(fig):
    """Every text drawn: tick labels of ticks within the axes' limits only."""
    fig.draw_without_rendering()
    hidden = set()
    for ax in fig.axes:
        for axis, (lo, hi) in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
            hidden |= {id(t.label1) for t in axis.get_major_ticks()
                       if not lo <= t.get_loc() <= hi}
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()
            and id(t) not in hidden]


def figures():
    s, y, g = data()
    fig = Figure(figsize=(5.5, 6), layout="constrained")
    gpu_xorder.plot_xroc(y, s, sensitive_features=g, band=0.9, ax=fig.add_subplot())
    yield fig
    fig = Figure(figsize=(6, 4.6), layout="constrained")
    gpu_xorder.plot_score_distributions(y, s, sensitive_features=g, scale="rank",
                                        ax=fig.add_subplot())
    yield fig
    fig = Figure(figsize=(9, 5), layout="constrained")
    ci = {"s": metrics.confidence_intervals(y, s, sensitive_features=g, method="delong"),
          "t": metrics.confidence_intervals(y, -s, sensitive_features=g, method="delong")}
    gpu_xorder.plot_intervals(ci, ax=fig.add_subplot())
    yield fig
    models = xorder_path(s, y, sensitive_features=g, lams=[0.0, 0.5], backend="numpy")
    fig = Figure(figsize=(6, 5.5), layout="constrained")
    gpu_xorder.plot_tradeoff(models, chosen=0.5, data=(y, s, g), level=0.9,
                             ax=fig.add_subplot())
    yield fig


def test_no_text_under_8_points_and_legends_outside_the_axes():
    for fig in figures():
        for text in texts(fig):
            assert text.get_fontsize() >= 8, text.get_text()
        for ax in fig.axes:
            legend = ax.get_legend()
            if legend is not None:
                assert not legend.get_window_extent().overlaps(ax.get_window_extent())


class Comparison:
    """What the trade-off panels read of a comparison: its summary rows."""

    data, model, metric, repeats, group_labels = "toy", "lr", "xauc", 4, [0, 1]
    methods = ("unadjusted", "xorder", "corr-reg")

    def summary(self, split="test"):
        rows = [{"method": "unadjusted", "parameter": None, "xauc": (0.12, 0.01),
                 "auc": (0.902, 0.002)}]
        for k, lam in enumerate((0.0, 0.5, 2.0)):
            rows.append({"method": "xorder", "parameter": lam,
                         "xauc": (0.10 - 0.04 * k, 0.01), "auc": (0.901 - 0.002 * k, 0.001)})
        for k, weight in enumerate((0.001, 0.1)):
            rows.append({"method": "corr-reg", "parameter": weight,
                         "xauc": (0.09 - 0.05 * k, 0.005), "auc": (0.9 - 0.003 * k, 0.001)})
        return rows


def test_trade_off_panels_label_every_point_and_fit_the_axes():
    fig = Figure(figsize=(7.8, 4), layout="constrained")
    axes = plot_tradeoff_panels(Comparison(), fig)
    assert [ax.get_title() for ax in axes] == ["xorder (labels: lam)",
                                               "corr-reg (labels: weight)"]
    assert sorted(t.get_text() for t in axes[0].texts) == ["0", "0.5", "2"]
    assert sorted(t.get_text() for t in axes[1].texts) == ["0.001", "0.1"]
    rows = Comparison().summary()
    lows = [r["auc"][0] - r["auc"][1] for r in rows]
    highs = [r["auc"][0] + r["auc"][1] for r in rows]
    for ax in axes:
        low, high = ax.get_ylim()
        assert low <= min(lows) and high >= max(highs)  # every error bar shown
        # fitted: the AUC axis spans the data, not a fixed 0.1
        assert high - low <= max(PANEL_AUC_SPAN, 1.3 * (max(highs) - min(lows))) + 1e-12
        assert ax.get_xlim()[0] == 0
    boxes = [(t.get_text(), t.get_window_extent()) for t in texts(fig)]
    for i, (a, box) in enumerate(boxes):
        for b, other in boxes[i + 1:]:
            assert not box.overlaps(other), (a, b)
    for text in texts(fig):
        assert text.get_fontsize() >= 8


def test_rank_scale_is_flat_over_all_items_and_ties_share():
    # adjusted scores squeezed into narrow gaps: spikes on the score scale
    s = np.concatenate([np.linspace(0, 1, 100), 0.5 + np.linspace(0, 1e-3, 100)])
    counts, _ = np.histogram(s, bins=20)
    assert counts.max() > 5 * counts.mean()
    ranks = rank_shares(s)
    counts, _ = np.histogram(ranks, bins=20, range=(0, 1))
    assert counts.max() <= counts.mean() + 1
    # ties counted 1/2: the share of items below plus half the tied ones
    np.testing.assert_allclose(rank_shares(np.array([1.0, 2.0, 2.0, 3.0])),
                               [0.125, 0.5, 0.5, 0.875])
    with pytest.raises(ValueError, match="unknown scale"):
        gpu_xorder.plot_score_distributions(None, [1, 2], sensitive_features=["a", "b"],
                                            scale="log")
