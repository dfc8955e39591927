"""Pictures (gpu_xorder.plotting._plots) with real matplotlib on the Agg backend: what they draw
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
from gpu_xorder import fair_order, xorder_path  # noqa: E402
from gpu_xorder import metrics
from gpu_xorder.plotting._plots import MSG_CHOSEN, MSG_NO_MATPLOTLIB, MSG_TRADEOFF_ITEM  # noqa: E402


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
    ax = gpu_xorder.plot_xroc(s, y, g)
    assert isinstance(ax, Axes) and isinstance(ax.figure, Figure)
    curves = ax.get_lines()[:-1]  # the last is the diagonal
    assert len(curves) == 6
    for line in curves:
        a, b = re.match(r"xROC\((\w+), (\w+)\)", line.get_label()).groups()
        assert line.get_label().endswith(f"{metrics.xauc(s, y, g, a, b):.3f}")
        fpr, tpr, _ = metrics.xroc_curve(s, y, g, a, b)
        np.testing.assert_array_equal(line.get_xdata(), fpr)
        np.testing.assert_array_equal(line.get_ydata(), tpr)
    saved(ax, tmp_path / "xroc.png")
    fig = Figure()
    own = fig.add_subplot()
    assert gpu_xorder.plot_xroc(s, y, g, pairs=[("black", "white")], ax=own) is own
    assert len(own.get_lines()) == 2


def test_score_distributions(tmp_path):
    s, y, g = data()
    ax = gpu_xorder.plot_score_distributions(s, g, y)
    labels = ax.get_legend_handles_labels()[1]
    assert labels[0] == f"black positives (n={int(((g == 'black') & (y == 1)).sum())})"
    assert len(labels) == 6
    saved(ax, tmp_path / "scores.png")


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
    # measured on held-out data, the unadjusted scores marked too
    s2, y2, g2 = data(seed=1)
    ax = gpu_xorder.plot_tradeoff(models, chosen=models[2], data=(s2, y2, g2),
                                  metric="prf")
    line, unadjusted, star = ax.get_lines()
    fair = models[2].transform(s2, sensitive_features=g2)
    assert star.get_xdata()[0] == metrics.disparity(fair, y2, g2, "prf")
    assert unadjusted.get_ydata()[0] == metrics.auc(s2, y2)
    assert ax.get_xlabel() == "Delta-PRF"
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
        gpu_xorder.plot_xroc(s, y, g)
    assert 'pip install "gpu-xorder[plot]"' in MSG_NO_MATPLOTLIB
