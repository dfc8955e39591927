"""The figures of ``gpu-xorder paper --out``: the test trade-off of every method (the
paper's Figures 5-9), xROC curves before and after xOrder and post-logit (Figure 10),
the robustness studies (Figures 11-13), the score histograms of the shift study
(Figures 14-15), and the training scores beside the test scores of the train-test
study (Figures 14-15 as the paper set them up). Trade-off and study points are means
over the repetitions with error bars of one standard deviation, the count on the
figure (xROC curves and histograms show repetition 0); axes as
:mod:`gpu_xorder.plotting._plots` draws them (disparity from 0, AUC spanning at least
``MIN_AUC_SPAN``), but for the trade-off's small multiples: one panel per method, the
others grey behind it, every point labelled with its parameter, axes fitted to the
points and their error bars. Figures are written at ``DPI`` = 96, the CSS pixels of an
inch, so that a page shows them at the size they are drawn, and no text is smaller than
matplotlib's ``"small"`` (8.3 points); legends lie outside the axes.
matplotlib is imported when called."""

import os
import textwrap

import numpy as np

from ..plotting._plots import (
    DISPARITY_NAMES,
    MIN_AUC_SPAN,
    _matplotlib,
    honest_limits,
    legend_below,
    namer,
    place_labels,
    plot_xroc,
)
from ..utils._validation import split_pair_key
from ._settings import FRACTIONS, SHARE_STUDIES, is_size
from ._studies import EXTRA_DATA, IN_PROCESSING, PARAMETER_NAMES

MARKERS = {"unadjusted": "*", "xorder": "o", "xorder-kd": "h", "post-logit": "s",
           "post-logit-public": "P", "post-logit-coord": "X", "corr-reg": "^",
           "constrained": "D"}
DPI = 96
#: The narrowest AUC span of a trade-off panel: fitted to the data, the error bars (one
#: sd over repetitions) show the sampling error at the panel's scale.
PANEL_AUC_SPAN = 0.01
#: Inches of one trade-off panel.
PANEL_SIZE = (3.9, 3.4)
#: Level of the xROC curves' pointwise bands.
XROC_BAND = 0.95
#: Characters per line of an xROC panel's axis labels (a panel is 4.2 inches wide).
XROC_LABEL_WIDTH = 45
#: Characters of a medium-size title per inch of figure width (wrapped beyond).
TITLE_CHARS_PER_INCH = 10


def _figure(width=5.5, height=4.2):
    _matplotlib()
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _data(comparison):
    """The data set as titles name it: the ICU stand-in says that it is synthetic."""
    if comparison.data in EXTRA_DATA:
        return f"{comparison.data} [synthetic data, not eICU]"
    return comparison.data


def _between(comparison, names):
    """``between non-white and white`` (two groups) or ``largest over pairs of 3
    groups (age <= 25, 25 < age <= 40, age > 40)`` (the groups' names where known)."""
    name = namer(names)
    labels = comparison.group_labels
    if len(labels) == 2:
        return f"between {name(labels[0])} and {name(labels[1])}"
    # each group's name kept on one line where the title wraps (no-break spaces)
    return (f"largest over pairs of {len(labels)} groups ("
            + ", ".join(name(_label(str(g), comparison)).replace(" ", "\u00a0")
                        for g in labels) + ")")


def plot_comparison(comparison, ax, metric=None, split="test", names=None, positive=None):
    """Mean AUC against mean disparity over the repetitions, one line per method
    through its parameter grid, with error bars of one standard deviation."""
    metric = metric or comparison.metric
    rows = comparison.summary(split)
    xs, ys = [], []
    for method in comparison.methods:
        chosen = [r for r in rows if r["method"] == method]
        x, x_sd = np.array([r[metric] for r in chosen]).T
        y, y_sd = np.array([r["auc"] for r in chosen]).T
        x_sd, y_sd = np.nan_to_num(x_sd), np.nan_to_num(y_sd)  # one repetition: no sd
        ax.errorbar(x, y, xerr=x_sd, yerr=y_sd, marker=MARKERS[method],
                    linestyle="-" if len(x) > 1 else "none", capsize=2, elinewidth=0.8,
                    markersize=10 if method == "unadjusted" else 5, label=method)
        xs += list(x - x_sd) + list(x + x_sd)
        ys += list(y - y_sd) + list(y + y_sd)
    honest_limits(ax, xs, ys)
    ax.set(xlabel=f"{DISPARITY_NAMES[metric]} {_between(comparison, names)} ({split}; "
                  "0: parity)",
           ylabel=f"AUC ({split})" + ("" if positive is None else
                                      f"; positive: {positive}"),
           title=f"{_data(comparison)} ({comparison.model}): mean ± sd over "
                 f"{_repetitions(comparison.repeats)}")
    legend_below(ax, ncols=3)
    return ax


def plot_tradeoff_panels(comparison, fig, metric=None, split="test", names=None,
                         positive=None, what=None):
    """The trade-off as small multiples: one panel per method but the unadjusted
    scores, the method in colour with error bars of one standard deviation and every
    point labelled with its parameter (lam, weight or bound), the other methods in grey
    behind it, the unadjusted scores a star in every panel. The panels share their axes,
    fitted to every point and error bar (disparity from 0, AUC spanning at least
    ``PANEL_AUC_SPAN``); ``what`` (a study's setting) follows the model in the title.
    Returns the panels."""
    metric = metric or comparison.metric
    rows = comparison.summary(split)
    methods = [m for m in comparison.methods if m != "unadjusted"]
    columns = min(3, len(methods))
    n_rows = -(-len(methods) // columns)
    axes = np.atleast_1d(fig.subplots(n_rows, columns, sharex=True, sharey=True,
                                      squeeze=False)).ravel()
    points = {}
    for method in comparison.methods:
        chosen = [r for r in rows if r["method"] == method]
        x, x_sd = np.array([r[metric] for r in chosen]).T
        y, y_sd = np.array([r["auc"] for r in chosen]).T
        points[method] = (x, np.nan_to_num(x_sd), y, np.nan_to_num(y_sd),
                          [r["parameter"] for r in chosen])
    xs = [v for x, xsd, _, _, _ in points.values() for v in (*(x - xsd), *(x + xsd))]
    ys = [v for _, _, y, ysd, _ in points.values() for v in (*(y - ysd), *(y + ysd))]
    for k, (ax, method) in enumerate(zip(axes, methods)):
        for other, (x, _, y, _, _) in points.items():
            if other not in (method, "unadjusted"):
                ax.plot(x, y, marker=MARKERS[other], color="0.75", markersize=4,
                        linestyle="-" if len(x) > 1 else "none", linewidth=0.8)
        if "unadjusted" in points:
            x, xsd, y, ysd, _ = points["unadjusted"]
            ax.errorbar(x, y, xerr=xsd, yerr=ysd, marker="*", color="0.3", markersize=11,
                        linestyle="none", capsize=2, elinewidth=0.8, label="unadjusted")
        x, xsd, y, ysd, parameters = points[method]
        ax.errorbar(x, y, xerr=xsd, yerr=ysd, marker=MARKERS[method], color=f"C{k}",
                    linestyle="-" if len(x) > 1 else "none", capsize=2, elinewidth=0.8,
                    markersize=5)
        name = PARAMETER_NAMES[method]
        own = (method in IN_PROCESSING and comparison.model != "lr")
        ax.set_title(method + (f" (labels: {name})" if name else "")
                     + ("\nits own linear model: weight 0 lies near\nlr's unadjusted "
                        "point, not at the star" if own else ""),
                     fontsize="medium" if not own else "small", color=f"C{k}")
        honest_limits(ax, xs, ys, min_span=PANEL_AUC_SPAN)
        if k % columns == 0:
            ax.set_ylabel(f"AUC ({split})")
        if k >= len(methods) - columns:  # no panel below: its own tick labels
            ax.set_xlabel(f"{DISPARITY_NAMES[metric]} ({split}; 0: parity)")
            ax.tick_params(labelbottom=True)
    for ax in axes[len(methods):]:
        ax.set_visible(False)
    model = comparison.model if what is None else f"{comparison.model}; {what}"
    fig.suptitle(textwrap.fill(
        f"{_data(comparison)} ({model}): test AUC against "
        f"{DISPARITY_NAMES[metric]} {_between(comparison, names)}, mean ± sd over "
        f"{_repetitions(comparison.repeats)}; each panel one method (others grey, "
        "star: unadjusted)" + ("" if positive is None else f"; positive: {positive}"),
        int(TITLE_CHARS_PER_INCH * fig.get_figwidth())), fontsize="medium")
    for ax, method in zip(axes, methods):  # labels once the layout is fixed
        x, _, y, _, parameters = points[method]
        for label in place_labels(ax, list(zip(x, y)), ["" if p is None else f"{p:g}"
                                                         for p in parameters]):
            # readable over the error bars and the grey curves behind
            label.set_bbox({"boxstyle": "round,pad=0.1", "facecolor": "white",
                            "edgecolor": "none", "alpha": 0.85})
            label.set_zorder(5)
    return axes[:len(methods)]


def _repetitions(n):
    return f"{n} repetition" + ("" if n == 1 else "s")


def plot_study(comparison, axes, metric=None, names=None):
    """A study's test disparity and AUC per setting, one line per method and lam, with
    error bars of one standard deviation over the repetitions."""
    metric = metric or comparison.metric
    rows = comparison.summary("test")
    settings = list(dict.fromkeys(r["setting"] for r in rows))
    position = np.arange(len(settings))
    # two weights keep the picture readable (the CSV has them all); a method of one
    # point (unadjusted, the public post-logit) is drawn as it is; an in-processing
    # baseline at its parameter of the lowest test disparity averaged over the settings
    lowest = {}
    for method in IN_PROCESSING:
        means = {}
        for r in rows:
            if r["method"] == method and not np.isnan(r[metric][0]):
                means.setdefault(r["parameter"], []).append(r[metric][0])
        if means:
            lowest[method] = min(means, key=lambda p: np.mean(means[p]))
    keys = [(method, parameter) for method, parameter
            in dict.fromkeys((r["method"], r["parameter"]) for r in rows)
            if parameter is None or (parameter == lowest[method] if method in lowest
                                     else parameter in (0.05, 0.5))]
    drawn = {0: [], 1: []}
    for k, (method, parameter) in enumerate(keys):
        dodge = (k - (len(keys) - 1) / 2) * 0.06  # error bars side by side
        chosen = {r["setting"]: r for r in rows
                  if (r["method"], r["parameter"]) == (method, parameter)}
        label = (method if parameter is None else
                 f"{method} {PARAMETER_NAMES[method]}={parameter:g}"
                 + (" (lowest mean Δ)" if method in lowest else ""))
        for panel, (ax, key) in enumerate(zip(axes, (metric, "auc"))):
            mean, sd = np.array([chosen[s][key] for s in settings]).T
            sd = np.nan_to_num(sd)
            ax.errorbar(position + dodge, mean, yerr=sd, marker=MARKERS[method],
                        capsize=2, elinewidth=0.8, label=label)
            drawn[panel] += list(mean - sd) + list(mean + sd)
    for ax, key in zip(axes, (f"{DISPARITY_NAMES[metric]} {_between(comparison, names)}",
                              "AUC")):
        ax.set_xticks(position, [str(s) for s in settings])
        ax.set(xlabel="scores the adjustment learns on" if comparison.study == "shift"
               else "training items xOrder learns on" if comparison.study == "subsample"
               else "training items" if all(map(is_size, settings))
               else "training share", ylabel=f"{key} (test)")
    axes[0].set_ylim(0.0, max(drawn[0] + [1e-3]) * 1.12)
    low, high = min(drawn[1]), max(drawn[1])
    pad = max((MIN_AUC_SPAN - (high - low)) / 2, (high - low) * 0.08)
    axes[1].set_ylim(max(0.0, low - pad), min(1.0, high + pad))
    legend_below(axes[0], ncols=2)
    what = {"samples": "adjustment learnt on a share of the training scores",
            "samples-retrain": "base model and adjustment on "
                               + ("that many training items" if all(map(is_size, settings))
                                  else "a share of the training split"),
            "shift": "in-sample or held-out training scores",
            "subsample": "xOrder on every k-th training item, the others on all"}[
                comparison.study]
    axes[0].figure.suptitle(f"{_data(comparison)} ({comparison.model}): {what}; mean ± sd "
                            f"over {_repetitions(comparison.repeats)}", fontsize="medium")
    return axes


def figure_names(data, groups, model, study=None, fractions=None):
    """The files :func:`write_figures` may write for a comparison of these settings:
    the study's figure (and the shift study's histograms, or a samples study's
    trade-off at each of its ``fractions``, default ``FRACTIONS``: shares, or numbers
    of training items, whose files are named ``{study}-sizes``; the train-test study's
    trade-off), or the trade-off and (two groups) the xROC curves."""
    stem = f"{data}_{groups}_{model}"
    if study == "train-test":
        return [f"{stem}_{study}.png", f"{stem}_{study}_tradeoff.png"]
    if study is not None:
        shares = (fractions or FRACTIONS) if study in SHARE_STUDIES else ()
        if shares and all(map(is_size, shares)):
            study = f"{study}-sizes"
        return ([f"{stem}_{study}.png"]
                + ([f"{stem}_shift_histograms.png"] if study == "shift" else [])
                + [f"{stem}_{study}_{share:g}_tradeoff.png" for share in shares])
    return [f"{stem}_tradeoff.png", f"{stem}_xroc.png"]


def write_figures(comparison, folder, names=None, positive=None):
    """Write the comparison's (or study's) figures into ``folder``; returns the names.
    ``names`` maps group labels to readable names, ``positive`` says what a positive
    is (the labels of the axes)."""
    settings = list(dict.fromkeys(r["setting"] for r in comparison.records))
    files = figure_names(comparison.data, comparison.groups, comparison.model,
                         comparison.study, settings)
    written = []
    if comparison.study == "train-test":
        fig = _figure(13, 4.4)
        plot_train_test(comparison, fig, names=names)
        written.append(files[0])
        fig.savefig(os.path.join(folder, written[-1]), dpi=DPI)
        written.append(_write_tradeoff(comparison.at_setting(None), folder, files[1],
                                       names, positive, "model on the whole training "
                                       "split"))
        return written
    if comparison.study is not None:
        fig = _figure(10, 4.2)
        plot_study(comparison, fig.subplots(1, 2), names=names)
        written.append(files[0])
        fig.savefig(os.path.join(folder, written[-1]), dpi=DPI)
        if "shift" in comparison.curves:
            fig = _figure(9, 3.6)
            plot_shift_histograms(comparison, fig, names=names)
            written.append(files[1])
            fig.savefig(os.path.join(folder, written[-1]), dpi=DPI)
        if comparison.study in SHARE_STUDIES:  # each share's trade-off, as a comparison's
            for share, name in zip(settings, files[1:]):
                what = (f"{share} training items" if is_size(share)
                        else f"share {share:g}")
                written.append(_write_tradeoff(comparison.at_setting(share), folder, name,
                                               names, positive,
                                               f"{what}, {comparison.study}"))
        return written
    written.append(_write_tradeoff(comparison, folder, files[0], names, positive))
    panels = [key for key in XROC_PANELS if key in comparison.curves]
    if len(panels) > 1 and len(comparison.group_labels) == 2:
        fig = _figure(4.2 * len(panels), 5.6)
        plot_xroc_panels(comparison, fig.subplots(1, len(panels)), panels, names=names,
                         positive=positive)
        written.append(files[1])
        fig.savefig(os.path.join(folder, written[-1]), dpi=DPI)
    return written


def _write_tradeoff(comparison, folder, name, names, positive, what=None):
    """The trade-off figure of a comparison (small multiples, or one panel where only
    the unadjusted scores are compared) as ``name`` in ``folder``; ``what`` heads its
    title (a study's setting). Returns ``name``."""
    methods = [m for m in comparison.methods if m != "unadjusted"] or ["unadjusted"]
    columns = min(3, len(methods))
    fig = _figure(PANEL_SIZE[0] * columns,
                  PANEL_SIZE[1] * -(-len(methods) // columns) + 0.6)
    if methods == ["unadjusted"]:
        plot_comparison(comparison, fig.add_subplot(), names=names, positive=positive)
    else:
        plot_tradeoff_panels(comparison, fig, names=names, positive=positive, what=what)
    fig.savefig(os.path.join(folder, name), dpi=DPI)
    return name


#: The xROC panels, in order, where the comparison kept their curves.
XROC_PANELS = ("unadjusted", "xorder", "post-logit-public")


def plot_shift_histograms(comparison, fig, names=None):
    """Repetition 0 of the shift study: the base model's scores on the half it was
    trained on (in-sample), on the other half (held-out) and on the test split, one
    panel per group (the paper's Figures 14-15); ``names`` maps group labels to names."""
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
        ax.set(title=f"group {namer(names)(g)}",
               xlabel="score margin (logit of the probability)")
        legend_below(ax)
    np.atleast_1d(axes)[0].set_ylabel("density")
    fig.suptitle(f"{_data(comparison)} ({comparison.model}): scores of the model trained on "
                 "half the training split, repetition 0 of "
                 f"{comparison.repeats}", fontsize="medium")
    return fig


#: The points of the train-test figure's right panel: xOrder and the joint post-logit
#: at their largest weight, the public post-logit at its rule.
TRAIN_TEST_METHODS = ("xorder", "post-logit", "post-logit-public")


def plot_train_test(comparison, fig, names=None):
    """The paper's Figures 14-15 as it set them up: the base model's scores on the
    training split (in-sample) and the test split, one panel per group (repetition 0),
    and the training against the test disparity of xOrder and post-logit, one point per
    repetition, with the line y = x."""
    samples = comparison.curves["train-test"]
    labels = comparison.group_labels
    axes = fig.subplots(1, len(labels) + 1)
    every = np.concatenate([samples[k][0] for k in ("train", "test")])
    bins = np.linspace(every.min(), every.max(), 31)
    name = namer(names)
    for ax, g in zip(axes, labels):
        for split, style in (("train", "-"), ("test", ":")):
            s, _, a = samples[split]
            ax.hist(s[a == g], bins=bins, density=True, histtype="step", linestyle=style,
                    linewidth=1.5, label=f"{split} ({int(np.sum(a == g))})")
        ax.set(title=f"scores of group {name(g)}, repetition 0", xlabel="score",
               ylabel="density")
        legend_below(ax)
    ax = axes[-1]
    metric = comparison.metric
    top = 0.0
    for k, method in enumerate(TRAIN_TEST_METHODS):
        chosen = [r for r in comparison.records if r["method"] == method
                  and r["setting"] is None]
        if not chosen:
            continue
        parameters = [r["parameter"] for r in chosen if r["parameter"] is not None]
        parameter = max(parameters) if parameters else None
        value = {(r["repeat"], r["split"]): r[metric] for r in chosen
                 if r["parameter"] == parameter}
        repeats = sorted({rep for rep, _ in value})
        x = np.array([value[(rep, "train")] for rep in repeats], dtype=float)
        y = np.array([value[(rep, "test")] for rep in repeats], dtype=float)
        label = method if parameter is None else f"{method}, lam {parameter:g}"
        ax.plot(x, y, marker=MARKERS[method], linestyle="none", color=f"C{k}",
                label=f"{label} (test mean {np.nanmean(y):.3f})")
        top = max(top, np.nanmax(x), np.nanmax(y))
    top = top * 1.08 + 1e-3
    ax.plot([0, top], [0, top], color="0.5", linewidth=0.8, label="y = x")
    ax.set(xlim=(0, top), ylim=(0, top), aspect="equal",
           xlabel=f"{DISPARITY_NAMES[metric]} on the training split",
           ylabel=f"{DISPARITY_NAMES[metric]} on the test split",
           title=f"one point per repetition ({comparison.repeats})")
    legend_below(ax)
    fig.suptitle(f"{_data(comparison)} ({comparison.model}, trained on the whole training "
                 "split): training against test scores and disparity", fontsize="medium")
    return fig


def _label(text, comparison):
    """The group label whose text a pair key holds (the key keeps labels as text)."""
    return next((g for g in comparison.group_labels if str(g) == text), text)


def plot_xroc_panels(comparison, axes, panels=XROC_PANELS, names=None, positive=None):
    """xROC curves of repetition 0, one panel per score (unadjusted, xOrder at the
    largest lam, the public post-logit), each with the test xAUC of both directions as
    mean ± sd over every repetition."""
    curves = comparison.curves
    name = namer(names)
    for ax, key in zip(np.atleast_1d(axes), panels):
        scores, y, groups = curves[key]
        plot_xroc(y, scores, sensitive_features=groups, band=XROC_BAND, names=names,
                  positive=positive, ax=ax)
        parameter = curves.get("xorder_lam") if key == "xorder" else None
        chosen = [r for r in comparison.records if r["split"] == "test"
                  and r["method"] == key and r["parameter"] == parameter
                  and r["setting"] is None]
        lines = []
        for pair in chosen[0]["xauc_pairs"] if chosen else ():
            values = [r["xauc_pairs"][pair] for r in chosen
                      if r["xauc_pairs"][pair] is not None]
            sd = np.std(values, ddof=1) if len(values) > 1 else float("nan")
            g, h = split_pair_key(pair)
            lines.append(f"xAUC({name(_label(g, comparison))}, {name(_label(h, comparison))}) "
                         f"{np.mean(values):.3f} ± {sd:.3f}")
        head = f"mean ± sd over {_repetitions(comparison.repeats)}:"
        ax.text(0.98, 0.30, "\n".join([head] + lines), ha="right", va="bottom",
                fontsize="small", transform=ax.transAxes)
        title = {"unadjusted": "unadjusted", "post-logit-public": "post-logit (public code)",
                 "xorder": f"xOrder, lam = {parameter:g}" if parameter is not None
                 else "xOrder"}[key]
        ax.set_title(title, fontsize="medium")
    fig = np.atleast_1d(axes)[0].figure
    fig.suptitle(textwrap.fill(
        f"{_data(comparison)}: xROC curves of repetition 0 with {XROC_BAND:.0%} pointwise "
        f"bands; in each panel the test xAUC as mean ± sd over "
        f"{_repetitions(comparison.repeats)}",
        int(TITLE_CHARS_PER_INCH * fig.get_figwidth())), fontsize="medium")
    # panels side by side: the axis labels wrapped to the panel's width, the y label once
    for k, ax in enumerate(np.atleast_1d(axes)):
        ax.set_xlabel(textwrap.fill(ax.get_xlabel(), XROC_LABEL_WIDTH))
        ax.set_ylabel(textwrap.fill(ax.get_ylabel(), XROC_LABEL_WIDTH) if k == 0 else "")
        legend_below(ax)  # under the wrapped label
    return axes
