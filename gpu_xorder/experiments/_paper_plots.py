"""The figures of ``gpu-xorder paper --out``: the test trade-off of every method (the
paper's Figures 5-9), xROC curves before and after xOrder (Figure 10), and the
robustness studies. matplotlib is imported when called (:mod:`gpu_xorder.plotting._plots`)."""

import os

import numpy as np

from ..plotting._plots import DISPARITY_NAMES, _matplotlib, plot_xroc

MARKERS = {"unadjusted": "*", "xorder": "o", "post-logit": "s", "corr-reg": "^",
           "constrained": "D"}
DPI = 80


def _figure(width=5.5, height=4.2):
    _matplotlib()
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def plot_comparison(comparison, ax, metric=None, split="test"):
    """Mean AUC against mean disparity over the repetitions, one line per method
    through its parameter grid."""
    metric = metric or comparison.metric
    rows = comparison.summary(split)
    for method in comparison.methods:
        chosen = [r for r in rows if r["method"] == method]
        x = [r[metric][0] for r in chosen]
        y = [r["auc"][0] for r in chosen]
        ax.plot(x, y, marker=MARKERS[method], linestyle="-" if len(x) > 1 else "none",
                markersize=10 if method == "unadjusted" else 5, label=method)
    ax.set(xlabel=f"{DISPARITY_NAMES[metric]} ({split})", ylabel=f"AUC ({split})",
           title=f"{comparison.data} ({comparison.model}): AUC against disparity")
    ax.legend(fontsize="small")
    return ax


def plot_study(comparison, axes, metric=None):
    """A study's test disparity and AUC per setting, one line per method and lam."""
    metric = metric or comparison.metric
    rows = comparison.summary("test")
    settings = list(dict.fromkeys(r["setting"] for r in rows))
    position = np.arange(len(settings))
    keys = list(dict.fromkeys((r["method"], r["parameter"]) for r in rows))
    for method, parameter in keys:
        if method != "unadjusted" and parameter not in (0.05, 0.5):
            continue  # two weights keep the picture readable; the CSV has them all
        chosen = {r["setting"]: r for r in rows
                  if (r["method"], r["parameter"]) == (method, parameter)}
        label = method if parameter is None else f"{method} lam={parameter:g}"
        for ax, key in zip(axes, (metric, "auc")):
            ax.plot(position, [chosen[s][key][0] for s in settings],
                    marker=MARKERS[method], label=label)
    for ax, key in zip(axes, (DISPARITY_NAMES[metric], "AUC")):
        ax.set_xticks(position, [str(s) for s in settings])
        ax.set(xlabel="training share" if comparison.study == "samples"
               else "scores xOrder learns on", ylabel=f"{key} (test)")
    axes[0].legend(fontsize="x-small")
    axes[0].set_title(f"{comparison.data} ({comparison.model}): {comparison.study} study")
    return axes


def write_figures(comparison, folder):
    """Write the comparison's (or study's) figures into ``folder``; returns the names."""
    stem = f"{comparison.data}_{comparison.groups}_{comparison.model}"
    written = []
    if comparison.study is not None:
        fig = _figure(9, 3.6)
        plot_study(comparison, fig.subplots(1, 2))
        written.append(f"{stem}_{comparison.study}.png")
        fig.savefig(os.path.join(folder, written[-1]), dpi=DPI)
        return written
    fig = _figure()
    plot_comparison(comparison, fig.add_subplot())
    written.append(f"{stem}_tradeoff.png")
    fig.savefig(os.path.join(folder, written[-1]), dpi=DPI)
    curves = comparison.curves
    if "xorder" in curves and len(comparison.group_labels) == 2:
        fig = _figure(9, 4.2)
        for ax, key in zip(fig.subplots(1, 2), ("unadjusted", "xorder")):
            plot_xroc(*curves[key], ax=ax)
            ax.set_title(key if key == "unadjusted"
                         else f"xOrder, lam = {curves['xorder_lam']:g}")
        written.append(f"{stem}_xroc.png")
        fig.savefig(os.path.join(folder, written[-1]), dpi=DPI)
    return written
