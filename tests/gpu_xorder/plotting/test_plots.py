"""Pictures (gpu_xorder.plotting) with real matplotlib on the Agg backend: what they draw
equals the metrics, figures are written and non-empty; a clear error without matplotlib."""

import re
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import gpu_xorder  # noqa: E402
from gpu_xorder import (  # noqa: E402
    fair_order,
    metrics,  # noqa: E402
    xorder_path,
)
from gpu_xorder.plotting._plots import MSG_NO_MATPLOTLIB  # noqa: E402
from gpu_xorder.plotting._tradeoff import MSG_CHOSEN, MSG_TRADEOFF_ITEM  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    g = rng.choice(["black", "white", "other"], n)
    y = rng.integers(0, 2, n)
    return y + (g == "white") + rng.normal(0, 1, n), y, g


def saved(ax, path):
    ax.figure.savefig(path)
    blob = path.read_bytes()
    assert blob.startswith(b"\x89PNG") and len(blob) > 5000
    return blob


def test_xroc_curves_are_the_metrics(tmp_path):
    s, y, g = data()
    ax = gpu_xorder.plot_xroc(y, s, sensitive_features=g)
    assert isinstance(ax, Axes) and isinstance(ax.figure, Figure)
    curves = ax.get_lines()[:-1]  # the last is the diagonal
    assert len(curves) == 6
    for line in curves:
        a, b = re.match(r"(\w+) positives vs (\w+) negatives: xAUC",
                        line.get_label()).groups()
        value = metrics.xauc(y, s, sensitive_features=g, g=a, h=b)
        assert line.get_label().endswith(f"{value:.3f}")
        fpr, tpr, _ = metrics.xroc_curve(y, s, sensitive_features=g, g=a, h=b)
        np.testing.assert_array_equal(line.get_xdata(), fpr)
        np.testing.assert_array_equal(line.get_ydata(), tpr)
    saved(ax, tmp_path / "xroc.png")
    fig = Figure()
    own = fig.add_subplot()
    assert gpu_xorder.plot_xroc(y, s, sensitive_features=g, pairs=[("black", "white")],
                                ax=own) is own
    assert len(own.get_lines()) == 2


def test_score_distributions(tmp_path):
    s, y, g = data()
    ax = gpu_xorder.plot_score_distributions(y, s, sensitive_features=g)
    labels = ax.get_legend_handles_labels()[1]
    assert labels[0] == f"black positives (n={int(((g == 'black') & (y == 1)).sum())})"
    assert len(labels) == 6
    saved(ax, tmp_path / "scores.png")


def test_the_plots_take_labels_then_scores():
    """(y_true, y_score, *, sensitive_features=...): the earlier orders are a TypeError
    naming the new one (plot_xroc's drew an empty figure when called in
    plot_score_distributions' order); labels other than 0/1 are refused."""
    s, y, g = data()
    with pytest.raises(TypeError, match=re.escape("plot_xroc() takes plot_xroc(y_true, ")):
        gpu_xorder.plot_xroc(s, y, sensitive_features=g)
    with pytest.raises(TypeError, match=re.escape("plot_score_distributions() takes")):
        gpu_xorder.plot_score_distributions(s, y, sensitive_features=g)
    with pytest.raises(TypeError, match="positional argument"):
        gpu_xorder.plot_score_distributions(s, g, y)  # the earlier positional order
    bad = y.copy()
    bad[0] = 2
    with pytest.raises(ValueError, match=r"y must be binary"):
        gpu_xorder.plot_score_distributions(bad, s, sensitive_features=g)
    with pytest.raises(ValueError, match=r"y must be binary"):
        gpu_xorder.plot_xroc(bad, s, sensitive_features=g)
    with pytest.raises(TypeError, match=re.escape("data=(y_true, y_score, sensitive_")):
        gpu_xorder.plot_tradeoff(xorder_path(s, y, sensitive_features=g, lams=[0.0],
                                             backend="numpy"), data=(s, y, g))


def test_tradeoff_marks_the_chosen_point(tmp_path):
    s, y, g = data()
    models = xorder_path(s, y, sensitive_features=g, lams=[0.0, 0.5, 2.0],
                         backend="numpy", solver="paper")
    ax = gpu_xorder.plot_tradeoff(models, chosen=0.5)
    line, star = ax.get_lines()
    np.testing.assert_array_equal(line.get_ydata(), [m.result_.auc for m in models])
    assert star.get_label() == "chosen (lam 0.5)"
    assert (star.get_xdata()[0], star.get_ydata()[0]) == (
        models[1].result_.disparity, models[1].result_.auc)
    saved(ax, tmp_path / "tradeoff.png")
    # measured on held-out data, the unadjusted scores marked too, with DeLong intervals
    s2, y2, g2 = data(seed=1)
    ax = gpu_xorder.plot_tradeoff(models, chosen=models[2], data=(y2, s2, g2),
                                  metric="prf")
    star = ax.get_lines()[-1]
    fair = models[2].transform(s2, sensitive_features=g2)
    assert star.get_xdata()[0] == metrics.disparity(y2, fair, sensitive_features=g2,
                                                    metric="prf")
    path_bars, unadjusted_bars = ax.containers
    assert unadjusted_bars.lines[0].get_ydata()[0] == metrics.auc(y2, s2)
    xbars, ybars = path_bars.lines[2]
    for m, xseg, yseg in zip(models, xbars.get_segments(), ybars.get_segments()):
        ci = metrics.confidence_intervals(y2, m.transform(s2, sensitive_features=g2),
                                          sensitive_features=g2, method="delong")
        np.testing.assert_allclose(xseg[:, 0], [ci.disparity["prf"].low,
                                                ci.disparity["prf"].high], atol=1e-12)
        np.testing.assert_allclose(yseg[:, 1], [ci.auc.low, ci.auc.high], atol=1e-12)
    assert ax.get_xlabel() == "Delta-PRF largest over pairs of 3 groups (0: parity)"
    assert ax.get_xlim()[0] == 0
    results = fair_order(s, y, g, lam=[0.0, 1.0], backend="numpy", solver="paper")
    assert gpu_xorder.plot_tradeoff(results).get_lines()[0].get_xdata().size == 2
    with pytest.raises(ValueError, match=re.escape(MSG_CHOSEN.format(chosen=3.0))):
        gpu_xorder.plot_tradeoff(results, chosen=3.0)
    with pytest.raises(TypeError, match=re.escape(MSG_TRADEOFF_ITEM.format(what="str"))):
        gpu_xorder.plot_tradeoff(["x"])


def test_without_matplotlib_the_error_names_the_extra(monkeypatch):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import fails
    s, y, g = data(20)
    with pytest.raises(ImportError, match=re.escape(MSG_NO_MATPLOTLIB)):
        gpu_xorder.plot_xroc(y, s, sensitive_features=g)
    assert 'pip install "gpu-xorder[plot]"' in MSG_NO_MATPLOTLIB


def _text_boxes(fig):
    """Window extents of every text drawn on ``fig``: titles, axis labels, the tick
    labels of ticks in view, legend entries and annotations."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    texts = []
    for ax in fig.axes:
        texts += [ax.title, ax.xaxis.label, ax.yaxis.label] + list(ax.texts)
        for ticks, labels, (lo, hi) in ((ax.get_xticks(), ax.get_xticklabels(),
                                         ax.get_xlim()),
                                        (ax.get_yticks(), ax.get_yticklabels(),
                                         ax.get_ylim())):
            texts += [lab for at, lab in zip(ticks, labels) if lo <= at <= hi]
        if ax.get_legend() is not None:
            texts += ax.get_legend().get_texts()
    return [(a.get_text(), a.get_window_extent(renderer)) for a in texts
            if a.get_visible() and a.get_text()]


@pytest.mark.parametrize("lams", [[0.0, 0.5, 2.0], [0.0, 0.001, 0.002, 0.003, 0.004,
                                                   0.005, 0.01, 0.02, 0.05, 0.5, 2.0]])
def test_tradeoff_labels_overlap_nothing_and_the_axes_do_not_exaggerate(lams):
    from gpu_xorder.plotting._plots import MIN_AUC_SPAN

    rng = np.random.default_rng(3)
    g = rng.choice(["a", "b"], 300)
    y = rng.integers(0, 2, 300)
    s = y + 0.7 * (g == "a") + rng.normal(0, 1, 300)
    models = xorder_path(s, y, sensitive_features=g, lams=lams, backend="numpy")
    fig = Figure(figsize=(5, 4), layout="constrained")
    ax = gpu_xorder.plot_tradeoff(models, chosen=0.5, names={"a": "group A"},
                                  positive="paid back", ax=fig.add_subplot())
    boxes = _text_boxes(fig)
    labels = [text for text, _ in boxes if text.startswith("lam ")]
    assert labels and all(re.fullmatch(r"lam [\d.]+( to [\d.]+)?", text) for text in labels)
    for i, (text, box) in enumerate(boxes):
        for other, box2 in boxes[i + 1:]:
            assert not box.overlaps(box2), (text, other)
    low, high = ax.get_ylim()
    assert high - low >= MIN_AUC_SPAN - 1e-12 and ax.get_xlim()[0] == 0
    assert ax.get_xlabel() == "Delta-xAUC between group A and b (0: parity)"
    assert ax.get_ylabel() == "AUC (positive: paid back)"
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[0] == ("xOrder, lam 0, 0.5, 2" if len(lams) == 3 else
                         "xOrder, 11 lam from 0 to 2")


def test_xroc_bands_names_and_positives():
    s, y, g = data()
    codes = np.where(g == "white", 1, 0)
    ax = gpu_xorder.plot_xroc(y, s, sensitive_features=codes, band=0.9,
                              names={0: "non-white", 1: "white"}, positive="re-offended")
    assert [line.get_label() for line in ax.get_lines()[:2]] == [
        f"non-white positives vs white negatives: xAUC "
        f"{metrics.xauc(y, s, sensitive_features=codes, g=0, h=1):.3f}",
        f"white positives vs non-white negatives: xAUC "
        f"{metrics.xauc(y, s, sensitive_features=codes, g=1, h=0):.3f}"]
    assert ax.get_ylabel() == "share of the positives (re-offended) scoring >= t"
    assert ax.get_xlabel() == "share of the negatives (not re-offended) scoring >= t"
    assert ax.get_title() == "xROC curves, 90% pointwise bands"
    for patch, (a, b) in zip(ax.patches, [(0, 1), (1, 0)]):
        band = metrics.xroc_band(y, s, sensitive_features=codes, g=a, h=b, level=0.9)
        outline = patch.get_xy()
        k = band.thresholds.size
        np.testing.assert_array_equal(outline[:k, 0], band.fpr_low)
        np.testing.assert_array_equal(outline[:k, 1], band.tpr_high)
        np.testing.assert_array_equal(outline[k:2 * k, 0], band.fpr_high[::-1])
        np.testing.assert_array_equal(outline[k:2 * k, 1], band.tpr_low[::-1])
    assert len(ax.patches) == 2


def test_forest_plot_of_the_intervals(tmp_path):
    from gpu_xorder.plotting._intervals import MSG_INTERVAL_GROUPS

    s, y, g = data(200)
    before = metrics.confidence_intervals(y, s, sensitive_features=g, method="delong")
    after = metrics.confidence_intervals(y, s - (g == "white"), sensitive_features=g,
                                         method="delong")
    fig = Figure(figsize=(10, 6), layout="constrained")
    left, right = fig.subplots(1, 2)
    gpu_xorder.plot_intervals({"risk": before, "fair": after}, ax=left)
    ticks = [t.get_text() for t in left.get_yticklabels()]
    assert ticks[:4] == ["AUC", "AUC within black", "AUC within other",
                         "AUC within white"]
    assert "xAUC(white, black)" in ticks and ticks[-1] == "PRF(white)"
    assert len(ticks) == 1 + 3 + 6 + 3
    risk, fair = left.containers[0:len(ticks)], left.containers[len(ticks):]
    row = ticks.index("xAUC(white, black)")
    iv = before.xauc["white", "black"]
    assert risk[row].lines[0].get_xdata()[0] == iv.estimate
    np.testing.assert_allclose(risk[row].lines[2][0].get_segments()[0][:, 0],
                               [iv.low, iv.high])
    assert fair[0].lines[0].get_xdata()[0] == after.auc.estimate
    assert [t.get_text() for t in left.get_legend().get_texts()] == ["risk", "fair"]
    gpu_xorder.plot_intervals({"risk": before, "fair": after}, part="disparities",
                              ax=right)
    ticks = [t.get_text() for t in right.get_yticklabels()]
    assert ticks[:4] == ["Delta-xAUC(black, other)", "Delta-xAUC(black, white)",
                         "Delta-xAUC(other, white)", "Delta-xAUC (largest)"]
    assert right.get_xlim()[0] == 0 and "URF(black, white)" in ticks
    assert right.get_xlabel() == "disparity (0: parity); 95% intervals, DeLong"
    fig.savefig(tmp_path / "forest.png")
    other = metrics.confidence_intervals(y, s,
                                         sensitive_features=np.where(g == "other", "black", g),
                                         method="delong")
    with pytest.raises(ValueError, match=MSG_INTERVAL_GROUPS):
        gpu_xorder.plot_intervals({"a": before, "b": other})
    # undefined values: "n/a" where the row's marker would be
    few = metrics.confidence_intervals([1, 0, 1, 0, 0], [3, 2, 1, 0, 5],
                                       sensitive_features=["a", "a", "b", "b", "b"],
                                       method="delong")
    ax = gpu_xorder.plot_intervals(few)
    assert "n/a" in [t.get_text() for t in ax.texts]


def test_paper_figures_have_error_bars_names_and_counts(tmp_path):
    from gpu_xorder.experiments._paper_plots import plot_comparison, write_figures
    from gpu_xorder.experiments._studies import compare_methods

    comparison = compare_methods("german", methods=["xorder"], lams=[0.0, 0.5],
                                 repeats=3, backend="numpy")
    names = {0: "young", 1: "adult"}
    written = write_figures(comparison, tmp_path, names=names, positive="bad credit")
    assert written == ["german_default_lr_tradeoff.png", "german_default_lr_xroc.png"]
    fig = Figure()
    ax = plot_comparison(comparison, fig.add_subplot(), names=names,
                         positive="bad credit")
    assert ax.get_title() == "german (lr): mean ± sd over 3 repetitions"
    assert ax.get_xlabel() == "Delta-xAUC between young and adult (test; 0: parity)"
    assert ax.get_ylabel() == "AUC (test); positive: bad credit"
    rows = [r for r in comparison.summary("test") if r["method"] == "xorder"]
    bars = ax.containers[1]  # unadjusted, then xorder
    for r, xseg, yseg in zip(rows, *[c.get_segments() for c in bars.lines[2]]):
        mean, sd = r["xauc"]
        np.testing.assert_allclose(xseg[:, 0], [mean - sd, mean + sd])
        mean, sd = r["auc"]
        np.testing.assert_allclose(yseg[:, 1], [mean - sd, mean + sd])
    assert ax.get_xlim()[0] == 0 and np.diff(ax.get_ylim())[0] >= 0.1 - 1e-12


def test_paper_xroc_panels_name_the_groups_and_fit_their_labels():
    """The xROC panels side by side: every text names the groups (no raw labels), the
    y axis is labelled once and the axis labels are wrapped to a panel's width."""
    from gpu_xorder.experiments._paper_plots import XROC_LABEL_WIDTH, plot_xroc_panels
    from gpu_xorder.experiments._studies import compare_methods

    comparison = compare_methods("german", methods=["xorder", "post-logit-public"],
                                 lams=[0.0, 0.5], repeats=2, backend="numpy")
    fig = Figure(figsize=(12.6, 4.9), layout="constrained")
    axes = plot_xroc_panels(comparison, fig.subplots(1, 3), names={0: "young", 1: "adult"},
                            positive="bad credit")
    texts = "\n".join(t.get_text() for ax in axes for t in ax.texts)
    assert "xAUC(young, adult)" in texts and "xAUC(adult, young)" in texts
    assert "xAUC(0" not in texts and "xAUC(1" not in texts
    assert [ax.get_title() for ax in axes] == ["unadjusted", "xOrder, lam = 0.5",
                                               "post-logit (public code)"]
    assert "2 repetitions" in fig.get_suptitle()
    assert axes[0].get_ylabel() and not axes[1].get_ylabel() and not axes[2].get_ylabel()
    for ax in axes:
        assert max(len(line) for line in ax.get_xlabel().split("\n")) <= XROC_LABEL_WIDTH


# ---------------------------------------------------------------------- odd labels

def _odd_drawings():
    """Every drawing function, each drawing the groups ``g`` and the name ``name``
    (a score column's, a class's) where it shows one."""
    from gpu_xorder.plotting import plot_intervals, plot_score_distributions, plot_xroc
    from gpu_xorder.plotting._tradeoff import plot_tradeoff

    def intervals(s, y, g, name, ax):
        ci = metrics.confidence_intervals(y, s, sensitive_features=g, method="delong")
        return plot_intervals({name: ci, "other": ci}, part="metrics", ax=ax)

    def tradeoff(s, y, g, name, ax):
        models = xorder_path(s, y, sensitive_features=g, lams=[0.0, 1.0],
                             backend="numpy", solver="paper")
        return plot_tradeoff(models, positive=name, marked={name: s}, level=None,
                             data=(y, s, g), ax=ax)

    return {
        "plot_xroc": lambda s, y, g, name, ax: plot_xroc(y, s, sensitive_features=g,
                                                         positive=name, ax=ax),
        "plot_xroc names": lambda s, y, g, name, ax: plot_xroc(
            y, s, sensitive_features=g, names={g[0]: name}, ax=ax),
        "plot_score_distributions": lambda s, y, g, name, ax: plot_score_distributions(
            y, s, sensitive_features=g, ax=ax),
        "plot_intervals": intervals,
        "plot_tradeoff": tradeoff,
    }


@pytest.mark.parametrize("face", list(_odd_drawings()))
def test_labels_other_layers_interpret_are_drawn_as_written(face):
    """Every label of ``support.odd_text.ODD_LABELS`` as a group and as a name: the
    figure saves (mathtext raised), its SVG is valid XML (a control character broke
    it), and its text shows the label literally, each character that acts written as
    its escape (``$0-$50k`` was drawn as "0 - 50k", U+202E turned the numbers around)."""
    import io

    from gpu_xorder.utils._text import visible
    from support.odd_text import ACTING, ODD_LABELS, assert_valid_svg, svg_text

    draw = _odd_drawings()[face]
    labels = list(ODD_LABELS.values())
    for k in range(0, len(labels), 3):  # three groups a picture, the next one's name
        trio, name = labels[k:k + 3], labels[(k + 3) % len(labels)]
        s, y, _ = data(90, seed=1)
        g = np.array(trio, dtype=object)[np.arange(90) % 3]
        fig = Figure(layout="constrained")
        draw(s, y, g, name, fig.add_subplot())
        buffer = io.BytesIO()
        with matplotlib.rc_context({"svg.fonttype": "none"}):
            fig.savefig(buffer, format="svg")
        fig.savefig(io.BytesIO(), format="png")
        texts = " ".join(svg_text(assert_valid_svg(buffer.getvalue())))
        assert not any(c in texts for c in ACTING), (face, trio, name)
        if face != "plot_score_distributions":  # it shows the groups only
            assert visible(name) in texts, (face, name, texts)
        if face != "plot_tradeoff":  # it shows two groups' names, or the count
            for label in trio[1:] if face == "plot_xroc names" else trio:
                assert visible(label) in texts, (face, label, texts)


def test_isolating_wraps_every_label_for_a_browser():
    """Inside ``isolating`` (the report's SVGs) each label is between FSI and PDI, so a
    right-to-left label or an open override cannot move the numbers after it."""
    from gpu_xorder.plotting import plot_xroc
    from gpu_xorder.plotting._plots import drawn, isolating

    s, y, _ = data(80, seed=1)
    g = np.where(np.arange(80) % 2 == 0, "\u0639\u0631\u0628", "b")
    with isolating():
        ax = plot_xroc(y, s, sensitive_features=g, ax=Figure().add_subplot())
        assert drawn("x$") == "\u2068x\\$\u2069"
    labels = [line.get_label() for line in ax.get_lines()][:2]
    assert {label.split(" negatives")[0] for label in labels} == {
        "\u2068\u0639\u0631\u0628\u2069 positives vs \u2068b\u2069",
        "\u2068b\u2069 positives vs \u2068\u0639\u0631\u0628\u2069"}
    assert drawn("x") == "x"  # outside: as written
