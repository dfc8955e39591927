"""The figures of ``gpu-xorder paper --out``: the test trade-off of every method (the
paper's Figures 5-9), xROC curves before and after xOrder and post-logit (Figure 10),
the robustness studies with error bars (Figures 11-13) and the score histograms of the
shift study (Figures 14-15). matplotlib is imported when called
(:mod:`gpu_xorder.plotting._plots`)."""

import os

import numpy as np

from ..plotting._plots import DISPARITY_NAMES, _matplotlib, plot_xroc

MARKERS = {"unadjusted": "*", "xorder": "o", "xorder-kd": "h", "post-logit": "s",
           "post-logit-public": "P", "corr-reg": "^", "constrained": "D"}
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
        fig = _figure(9, 3.8)
        plot_study_bars(comparison, fig.subplots(1, 2))
        written.append(f"{stem}_{comparison.study}.png")
        fig.savefig(os.path.join(folder, written[-1]), dpi=DPI)
        if "shift" in comparison.curves:
            fig = _figure(9, 3.6)
            plot_shift_histograms(comparison, fig)
            written.append(f"{stem}_shift_histograms.png")
            fig.savefig(os.path.join(folder, written[-1]), dpi=DPI)
        return written
    fig = _figure()
    plot_comparison(comparison, fig.add_subplot())
    written.append(f"{stem}_tradeoff.png")
    fig.savefig(os.path.join(folder, written[-1]), dpi=DPI)
    panels = [key for key in XROC_PANELS if key in comparison.curves]
    if len(panels) > 1 and len(comparison.group_labels) == 2:
        fig = _figure(4.2 * len(panels), 4.4)
        plot_xroc_panels(comparison, fig.subplots(1, len(panels)), panels)
        written.append(f"{stem}_xroc.png")
        fig.savefig(os.path.join(folder, written[-1]), dpi=DPI)
    return written


#: The xROC panels, in order, where the comparison kept their curves.
XROC_PANELS = ("unadjusted", "xorder", "post-logit-public")


def _repeats_note(comparison):
    return f"mean ± sd over {comparison.repeats} repetition" + (
        "s" if comparison.repeats != 1 else "")


def plot_study_bars(comparison, axes, metric=None):
    """A study's test disparity and AUC per setting, mean ± sd (error bars) over the
    repetitions, one line per method at lam 0.05 and 0.5 (the public post-logit: its
    one point); the number of repetitions in the title."""
    metric = metric or comparison.metric
    rows = comparison.summary("test")
    settings = list(dict.fromkeys(r["setting"] for r in rows))
    position = np.arange(len(settings))
    keys = [key for key in dict.fromkeys((r["method"], r["parameter"]) for r in rows)
            if key[1] is None or key[1] in (0.05, 0.5)]
    width = 0.5 / max(len(keys), 1)
    for n, (method, parameter) in enumerate(keys):
        chosen = {r["setting"]: r for r in rows
                  if (r["method"], r["parameter"]) == (method, parameter)}
        label = method if parameter is None else f"{method} lam={parameter:g}"
        shift = (n - (len(keys) - 1) / 2) * width  # bars side by side, not on top
        for ax, key in zip(axes, (metric, "auc")):
            mean = [chosen[s][key][0] for s in settings]
            sd = [chosen[s][key][1] for s in settings]
            ax.errorbar(position + shift, mean, yerr=np.nan_to_num(sd), capsize=2,
                        marker=MARKERS[method], markersize=4, label=label)
    for ax, key in zip(axes, (DISPARITY_NAMES[metric], "AUC")):
        ax.set_xticks(position, [str(s) for s in settings])
        ax.set(xlabel="training share" if comparison.study != "shift"
               else "scores the adjustment learns on", ylabel=f"{key} (test)")
    axes[0].set_ylim(bottom=0)
    axes[0].legend(fontsize="x-small")
    what = {"samples": "adjustment learnt on a share of the training scores",
            "samples-retrain": "base model and adjustment on a share of the training split",
            "shift": "in-sample or held-out training scores"}[comparison.study]
    axes[0].figure.suptitle(f"{comparison.data} ({comparison.model}): {what}; "
                            f"{_repeats_note(comparison)}", fontsize="medium")
    return axes


def plot_shift_histograms(comparison, fig):
    """Repetition 0 of the shift study: the base model's scores on the half it was
    trained on (in-sample), on the other half (held-out) and on the test split, one
    panel per group (the paper's Figures 14-15)."""
    samples = comparison.curves["shift"]
    labels = comparison.group_labels
    axes = fig.subplots(1, len(labels), sharey=True)
    # the margin (logit of the probability): RankBoost's probabilities crowd near 1
    margin = {key: np.log(p) - np.log1p(-p) for key, p in
              ((key, np.clip(samples[key][0], 1e-12, 1 - 1e-12)) for key in samples)}
    every = np.concatenate(list(margin.values()))
    bins = np.linspace(every.min(), every.max(), 31)
    for ax, g in zip(np.atleast_1d(axes), labels):
        for setting, style in (("in-sample", "-"), ("held-out", "--"), ("test", ":")):
            _, _, a = samples[setting]
            ax.hist(margin[setting][a == g], bins=bins, density=True, histtype="step",
                    linestyle=style, linewidth=1.5,
                    label=f"{setting} ({int(np.sum(a == g))})")
        ax.set(title=f"group {g}", xlabel="score margin (logit of the probability)")
        ax.legend(fontsize="x-small")
    np.atleast_1d(axes)[0].set_ylabel("density")
    fig.suptitle(f"{comparison.data} ({comparison.model}): scores of the model trained on "
                 "half the training split, repetition 0 of "
                 f"{comparison.repeats}", fontsize="medium")
    return fig


def plot_xroc_panels(comparison, axes, panels=XROC_PANELS):
    """xROC curves of repetition 0, one panel per score (unadjusted, xOrder at the
    largest lam, the public post-logit), each with the test xAUC of both directions as
    mean ± sd over every repetition."""
    curves = comparison.curves
    for ax, key in zip(np.atleast_1d(axes), panels):
        plot_xroc(*curves[key], ax=ax)
        parameter = curves.get("xorder_lam") if key == "xorder" else None
        chosen = [r for r in comparison.records if r["split"] == "test"
                  and r["method"] == key and r["parameter"] == parameter
                  and r["setting"] is None]
        lines = []
        for pair in chosen[0]["xauc_pairs"] if chosen else ():
            values = [r["xauc_pairs"][pair] for r in chosen
                      if r["xauc_pairs"][pair] is not None]
            sd = np.std(values, ddof=1) if len(values) > 1 else float("nan")
            lines.append(f"xAUC({pair.replace(' > ', ', ')}) {np.mean(values):.3f} ± {sd:.3f}")
        ax.text(0.98, 0.30, "\n".join([_repeats_note(comparison) + ":"] + lines),
                ha="right", va="bottom", fontsize="x-small", transform=ax.transAxes)
        title = {"unadjusted": "unadjusted", "post-logit-public": "post-logit (public code)",
                 "xorder": f"xOrder, lam = {parameter:g}" if parameter is not None
                 else "xOrder"}[key]
        ax.set_title(f"{comparison.data}: {title} (repetition 0)", fontsize="small")
    return axes
