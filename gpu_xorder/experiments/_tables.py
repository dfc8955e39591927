"""The Markdown tables of ``gpu-xorder paper --out`` (``tables.md``): per method the
unadjusted point, the lowest mean test disparity along its grid with its spread, the
range of the single repetitions there and the training disparity, and the best mean
test AUC at a mean test disparity of at most :data:`TARGET`; per study, AUC and
disparity per setting (a samples study: also every share's comparison); the figures
the paper quotes beside the unadjusted scores'; the seconds per repetition; xOrder at
its largest weight paired with every other method (mean difference over the
repetitions with the corrected resampled t interval of Nadeau and Bengio 2003,
:func:`corrected_interval`), and the AUC of two methods' trade-off curves at matched
disparities (:func:`matched_auc`), on the means and per repetition with the corrected
interval (:func:`gpu_xorder.experiments._matched.matched_paired_table`, with the
train-test study's table). docs/RESULTS.md quotes these tables."""


import numpy as np

from ..utils._metrics import METRICS
from ._experiment import PAPER_FIGURES, _mean_std, figure_values
from ._matched import (
    LEVEL,
    _curves,
    _others,
    _parameter,
    _pm,
    corrected_interval,
    matched_auc,
    matched_paired_table,
    train_test_table,
)
from ._settings import SHARE_STUDIES, is_size
from ._studies import ONE_POINT

#: The disparity the "best AUC" column asks for (mean test disparity at most this).
TARGET = 0.05



def _title(c):
    study = "" if c.study is None else f", study {c.study}"
    return (f"{c.data}, groups {c.groups}, base model {c.model}, Δ-{METRICS[c.metric].short}"
            f"{study}: {c.repeats} repetition{'s' if c.repeats != 1 else ''}, test split "
            "unless said, mean ± sd")


def comparison_rows(c):
    """One Markdown row per method of a comparison (no study)."""
    key = c.metric
    test, train = c.summary("test"), c.summary("train")
    spread = c.ranges("test")
    base = next(r for r in test if r["method"] == "unadjusted")
    rows = []
    for method in c.methods[1:]:  # the unadjusted point is a column
        at = [(i, r) for i, r in enumerate(test) if r["method"] == method
              and not np.isnan(r[key][0])]
        if not at:
            continue
        i, low = min(at, key=lambda item: item[1][key][0])
        train_row = next(r for r in train if (r["method"], r["setting"], r["parameter"])
                         == (low["method"], low["setting"], low["parameter"]))
        ok = [r for _, r in at if r[key][0] <= TARGET]
        best = max(ok, key=lambda r: r["auc"][0]) if ok else None
        lo, hi = spread[i][key]
        train_lo, train_hi = next(
            r for r in c.ranges("train") if (r["method"], r["setting"], r["parameter"])
            == (low["method"], low["setting"], low["parameter"]))[key]
        rows.append(
            f"| {c.data} | {method} | {_pm(base['auc'])} / {_pm(base[key])} | "
            f"{_pm(low[key])} (AUC {_pm(low['auc'])}; "
            f"{_parameter(method, low['parameter'])}) | "
            f"{lo:.3f} - {hi:.3f} | {_pm(train_row[key])} ({train_lo:.3f} - {train_hi:.3f}) | "
            + ("none |" if best is None else
               f"{best['auc'][0]:.3f} (Δ {best[key][0]:.3f}; "
               f"{_parameter(method, best['parameter'])}) |"))
    return rows


def comparison_table(comparisons):
    """The Markdown table of comparisons that share a model, grouping and metric."""
    head = ("| data | method | unadjusted AUC / Δ | lowest mean Δ (AUC; parameter) | "
            "single runs there | train Δ there (single runs) | best mean AUC with mean Δ ≤ "
            f"{TARGET:g} (Δ; parameter) |\n|---|---|---|---|---|---|---|")
    return "\n".join([head] + [row for c in comparisons for row in comparison_rows(c)])


def study_table(c):
    """AUC / Δ (mean ± sd) per setting of a study, one row per method and lam."""
    key = c.metric
    rows = c.summary("test")
    settings = list(dict.fromkeys(r["setting"] for r in rows))
    lines = ["| data | method | parameter | " + " | ".join(
        f"{s}: AUC / Δ" for s in settings) + " |",
        "|---|---|---|" + "---|" * len(settings)]
    for method, parameter in dict.fromkeys((r["method"], r["parameter"]) for r in rows):
        cells = {r["setting"]: r for r in rows
                 if (r["method"], r["parameter"]) == (method, parameter)}
        lines.append(f"| {c.data} | {method} | {_parameter(method, parameter)} | "
                     + " | ".join(f"{cells[s]['auc'][0]:.3f} / {_pm(cells[s][key])}"
                                  for s in settings) + " |")
    # the scores the adjustment learnt on (the shift study's point: in-sample scores
    # rank their own data better than held-out or test scores do)
    cells = {r["setting"]: r for r in c.summary("train") if r["method"] == "unadjusted"}
    lines.append(f"| {c.data} | unadjusted, training scores | | "
                 + " | ".join(f"{cells[s]['auc'][0]:.3f} / {_pm(cells[s][key])}"
                              for s in settings) + " |")
    return "\n".join(lines)


def paper_figure_lines(c):
    """The figures the paper's text quotes for this data set and grouping, beside the
    unadjusted test scores' mean ± sd (two directions of xAUC matched by size)."""
    unadjusted = [r for r in c.records if r["method"] == "unadjusted"
                  and r["split"] == "test" and r["setting"] is None]
    lines = []
    for fig in PAPER_FIGURES:
        if (fig.data, fig.groups) != (c.data, c.groups) or not unadjusted:
            continue
        values = figure_values(fig, unadjusted)
        name = fig.quantity if "xAUC" in fig.quantity else f"Δ-{METRICS[fig.quantity].short}"
        lines.append(f"- unadjusted {name}: {_pm(_mean_std(values))} (paper: {fig.value:g})")
    return lines


def timing_line(c):
    """Seconds per repetition, mean wall / CPU, of every method."""
    parts = [f"{m} {np.mean(c.seconds[m]):.2f} / {np.mean(c.cpu_seconds[m]):.2f}"
             for m in c.methods if c.seconds.get(m)]
    return "Seconds per repetition (wall / CPU): " + ", ".join(parts) + "."


def _lowest(c, method):
    """The parameter of ``method``'s lowest mean test disparity (None if it has none)."""
    at = [r for r in c.summary("test") if r["method"] == method
          and not np.isnan(r[c.metric][0])]
    return min(at, key=lambda r: r[c.metric][0])["parameter"] if at else None


def _per_repeat(c, method, parameter, key):
    return {r["repeat"]: r[key] for r in c.records
            if (r["method"], r["parameter"], r["split"], r["setting"])
            == (method, parameter, "test", None) and r[key] is not None}


def paired_table(c, level=LEVEL):
    """xOrder at its largest weight minus every other method (unadjusted, the public
    post-logit at its rule, the others at their lowest mean test disparity), per
    repetition: mean, the corrected resampled t interval and whether it excludes 0."""
    lam = max((r["parameter"] for r in c.records if r["method"] == "xorder"), default=None)
    if lam is None or c.repeats < 2:
        return ""
    lines = [f"Paired with xorder lam {lam:g} (xorder minus the other, per repetition; "
             f"mean [corrected {level:.0%} interval], Nadeau and Bengio 2003):\n",
             "| data | other method (parameter) | AUC | excludes 0 | Δ | excludes 0 |",
             "|---|---|---|---|---|---|"]
    for method in c.methods:
        if method == "xorder":
            continue
        parameter = (None if method in ("unadjusted",) + ONE_POINT
                     else _lowest(c, method))
        cells = []
        for key in ("auc", c.metric):
            a, b = _per_repeat(c, "xorder", lam, key), _per_repeat(c, method, parameter, key)
            common = sorted(set(a) & set(b))
            if len(common) < 2:
                cells += ["n/a", ""]
                continue
            mean, lo, hi = corrected_interval([a[r] - b[r] for r in common], c.test_size,
                                              level)
            cells += [f"{mean:+.4f} [{lo:+.4f}, {hi:+.4f}]",
                      "yes" if lo > 0 or hi < 0 else "no"]
        label = method + ("" if method in ("unadjusted",) + ONE_POINT
                          else f" ({_parameter(method, parameter)})")
        lines.append(f"| {c.data} | {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def matched_table(c):
    """Mean test AUC of xOrder's trade-off curve minus every other method's at the
    disparities both curves reach (:func:`matched_auc` on the means per parameter; the
    curve of a post-processing method with a weight starts at the unadjusted scores,
    its weight 0)."""
    curve = _curves([(r["method"], r[c.metric][0], r["auc"][0]) for r in c.summary("test")])
    if "xorder" not in curve:
        return ""
    lines = ["AUC at matched mean test disparity, xorder minus the other (the curves of "
             "means per parameter, interpolated; xorder's and post-logit's from the "
             "unadjusted point, weight 0):\n",
             "| data | other method | common Δ range | points | AUC difference: mean "
             "(min - max) |", "|---|---|---|---|---|"]
    for method in _others(c, curve):
        at, diff = matched_auc(curve["xorder"], curve[method])
        if not at.size:
            lines.append(f"| {c.data} | {method} | none | 0 | n/a |")
            continue
        lines.append(f"| {c.data} | {method} | {at[0]:.3f} - {at[-1]:.3f} | {at.size} | "
                     f"{diff.mean():+.4f} ({diff.min():+.4f} - {diff.max():+.4f}) |")
    return "\n".join(lines)


def _comparisons(c):
    """The paired and matched tables of a comparison, each followed by a blank line."""
    return [t + "\n" for t in (paired_table(c), matched_table(c), matched_paired_table(c))
            if t]


def markdown(comparisons):
    """Every comparison's table (``tables.md``)."""
    parts = []
    for c in comparisons:
        parts.append(f"### {_title(c)}\n")
        if c.study == "train-test":
            at = c.at_setting(None)
            parts += [comparison_table([at]), "", train_test_table(c), ""]
            parts += _comparisons(at)
        else:
            parts.append(study_table(c) if c.study is not None else comparison_table([c]))
            parts.append("")
        if c.study is None:
            parts += _comparisons(c)
        elif c.study in SHARE_STUDIES:  # each share compared as a comparison is
            for share in dict.fromkeys(r["setting"] for r in c.records):
                at = c.at_setting(share)
                what = (f"{share} training items" if is_size(share)
                        else f"Share {share:g} of the training split")
                parts += [f"#### {what} ({c.study})\n",
                          comparison_table([at]), ""] + _comparisons(at)
        figures = paper_figure_lines(c)
        if figures:
            parts += figures + [""]
        if c.cpu_seconds:
            parts += [timing_line(c), ""]
    return "\n".join(parts) + "\n"
