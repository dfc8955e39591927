"""The audit report: one self-contained HTML page of the audit of one or more score
columns, rendered from ``templates/audit.html.j2`` by Jinja2.

Everything is in the file: the pictures are SVG data URIs, the style sheet is inline,
nothing is loaded from the network and no script runs. The report opens with the
findings (:mod:`gpu_xorder.metrics._findings`: every sentence about groups is a verdict
by a stated rule), then holds the reader's context, the data summary, every metric with
its interval, the forest plot, xROC curves and score distributions with captions, the
decisions at a cut-off, with a model file the scores before and after it, the trade-off
along lam and its certificate, and where it came from (versions, command, the input's
and the model's SHA-256, seed, date). Every group label on the page is in ``<bdi>``.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import platform
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from .. import metrics
from ..metrics._cutoff_findings import decision_findings, lowest_selected
from ..metrics._decisions import RATE_MEANINGS, RATES
from ..metrics._findings import (
    DEFAULT_DELTA,
    MEASURE_NAMES,
    check_decision,
    check_delta,
    ranking_finding,
)
from ..metrics._frame import RankingMetricFrame
from ..metrics._ranking import defined
from ..metrics._wording import rule_text
from ..utils import _params as params
from ..utils._metrics import AUC_WITHIN, METRICS, value_keys
from ..utils._optional import optional
from ..utils._pairs import MAX_FOREST_GROUPS, PLOT_PAIRS, forest_rows, worst_pairs
from ..utils._text import isolated, visible
from ..utils._validation import check_count, check_labels, check_scores, encode_groups
from ..utils._version import __version__
from . import _figures

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ..metrics import MetricIntervals

MSG_NO_JINJA = ('the HTML report needs Jinja2, which is not installed: '
                'pip install "gpu-xorder[report]"')
MSG_FRAME_DATA = ("audit_report(frame, ...) takes the labels and groups from the frame: "
                  "give neither y nor sensitive_features")
MSG_PLOT_PAIRS = "{name} must be an integer >= 1, got {value!r}"
MSG_SCORES = "scores must be an array or a non-empty mapping of names to arrays"
MSG_HIGH_SCORE = ("high_score is required: 'harmful' or 'favourable' (what a high score "
                  "does to a person decides which group a disparity disadvantages), got "
                  "{value!r}")
MSG_TEXT = "{name} must be text or None, got {type}"
#: The lam of the trade-off path drawn with a model file (and the model's own lam).
TRADEOFF_LAMS = (0.0, 0.01, 0.05, 0.1, 0.5, 1.0, 2.0)
#: Most items the trade-off path is fitted on (it is left out beyond).
TRADEOFF_MAX_ITEMS = 20000
RATE_TITLES = {"selection_rate": "selection rate", "tpr": "TPR", "fpr": "FPR",
               "precision": "precision"}


def audit_report(scores: ArrayLike | Mapping[str, ArrayLike] | RankingMetricFrame,
                 y: ArrayLike | None = None, sensitive_features: ArrayLike | None = None,
                 *, positive: str = "positive",
                 group: str = "group", high_score: str | None = None,
                 level: float | None = 0.95, method: str = "delong",
                 n_bootstrap: int | None = None, random_state: int = 0,
                 threshold: float | None = None, top_k: int | None = None,
                 top_share: float | None = None, model: str | os.PathLike | None = None,
                 source: str | os.PathLike | None = None, command: str | None = None,
                 title: str | None = None, decision: str | None = None,
                 delta: float = DEFAULT_DELTA, context: str | None = None,
                 intervals: Mapping[str, MetricIntervals] | None = None,
                 plot_pairs: int = PLOT_PAIRS) -> str:
    """The audit of one or more score columns as one self-contained HTML page.

    Parameters
    ----------
    scores : array-like of shape (n,), mapping of str to array-like, or RankingMetricFrame
        The scores, or several score columns by name (``{"risk": s, "fair": t}``), or a
        :class:`gpu_xorder.metrics.RankingMetricFrame`, whose scores, labels and groups
        (and the groups' name, for ``group``) are audited.
    y, sensitive_features : array-like of shape (n,)
        0/1 labels and the group of every item; not given with a frame.
    positive : str, default="positive"
        What a positive is (``"re-offended"``), in the text and the axes.
    group : str, default="group"
        What the groups are (``"race"``).
    high_score : {"favourable", "harmful"}
        What a high score does to a person, which decides the disadvantaged group
        (required: a ValueError without it).
    level : float or None, default=0.95
        Level of the confidence intervals (None: none).
    method : {"delong", "bootstrap"}, default="delong"
        How the intervals are computed, as in
        :func:`gpu_xorder.metrics.confidence_intervals`.
    n_bootstrap : int, optional
        Bootstrap resamples with ``method="bootstrap"`` (default: that function's).
    random_state : int, default=0
        The seed of the bootstrap, reported in the provenance.
    threshold, top_k, top_share : optional
        The decision at a cut-off (:func:`gpu_xorder.metrics.decision_rates`); at most
        one. Without any, the top share equal to the share of positives (as many
        selected as there are positives), which the report says.
    model : path, optional
        A model file (``gpu-xorder fit --model``, ``XOrder.save``): the report adds the
        scores before and after it, the trade-off along lam on these data with the
        model's point, and its certificate. It adjusts the score column it names, or
        the first one.
    source : path, optional
        The data file the arrays come from: its name and SHA-256 go into the report.
    command : str, optional
        The command that made the report (provenance).
    title : str, optional
        The page's title (default: "Fairness audit of" the score columns).
    decision : str, optional
        What a high score (being selected) leads to (``"detention"``, ``"a loan"``),
        named in every finding; without it the page says "a high score is harmful
        (favourable) to a person".
    delta : float, default=DEFAULT_DELTA
        The margin of a "parity within delta" finding
        (:func:`gpu_xorder.metrics.ranking_finding`).
    context : str, optional
        The reader's context printed at the top, as plain text (escaped): intended
        use, model, data period, limitations.
    intervals : mapping of str to MetricIntervals, optional
        The intervals of the score columns, already computed with these settings
        (:func:`gpu_xorder.metrics.confidence_intervals`): not computed again.
    plot_pairs : int, default=20
        xROC pictures per score column: those of the ``plot_pairs`` pairs of groups
        with the largest disparity (any metric), which the page names where pairs are
        left out (50 groups make 1,225 pairs, a quarter of an hour of pictures). The
        forest plot is drawn up to 12 groups (``MAX_FOREST_GROUPS``).

    Returns
    -------
    str
        The HTML text.

    Raises
    ------
    ImportError
        Without Jinja2 or matplotlib.
    TypeError
        On a frame given with ``y`` or ``sensitive_features``.
    ValueError
        On invalid data or options, an invalid model file, or a frame with
        ``sample_weight``.
    """
    if high_score is None:
        raise ValueError(MSG_HIGH_SCORE.format(value=high_score))
    high_score = params.check("high_score", high_score)
    delta = check_delta(delta)
    for name, value in (("title", title), ("decision", decision), ("context", context)):
        if value is not None and not isinstance(value, str):
            raise TypeError(MSG_TEXT.format(name=name, type=type(value).__name__))
    check_decision(decision)  # blank before its characters are made visible
    # the user's own text shown as written, its characters that act escaped (a control
    # character, or U+202E turning the page's numbers around, even in <title>), as the
    # labels are in the pictures and on a terminal
    title, decision = (None if v is None else visible(v) for v in (title, decision))
    context = None if context is None else visible(context, keep="\n\t")
    jinja2 = _import_jinja2()
    _figures._matplotlib()
    if isinstance(scores, RankingMetricFrame):
        if y is not None or sensitive_features is not None:
            raise TypeError(MSG_FRAME_DATA)
        scores, y, sensitive_features, name = scores._data()
        group = name if group == "group" else group
    columns = _columns(scores)
    n = next(iter(columns.values())).size
    y = check_labels(y, n)
    labels, index = encode_groups(sensitive_features, n)
    groups = labels[index]
    keys = [g.item() for g in labels]
    plot_pairs = check_count(plot_pairs, "plot_pairs", 1, MSG_PLOT_PAIRS)
    default_rule = threshold is None and top_k is None and top_share is None
    if default_rule:
        top_share = float(y.mean())
    if level is None:
        intervals = None
    elif intervals is None:
        intervals = {name: metrics.confidence_intervals(
            y, s, sensitive_features=groups, level=level, method=method,
            random_state=random_state, n_bootstrap=n_bootstrap)
            for name, s in columns.items()}
    rule = dict(threshold=threshold, top_k=top_k, top_share=top_share)
    decisions = {name: metrics.decision_rates(y, s, sensitive_features=groups,
                                              level=level or 0.95, **rule)
                 for name, s in columns.items()}
    words = {"high_score": high_score, "delta": delta, "decision": decision}
    page = {
        "title": title or f"Fairness audit of {', '.join(columns)}",
        "context": context,
        "positive": positive, "group": group, "high_score": high_score,
        "decision": decision, "delta": delta,
        "data": _data_summary(y, groups, keys, source),
        "ci": _ci_summary(intervals, random_state),
        "columns": [_column(name, s, y, groups, keys, words,
                            None if intervals is None else intervals[name], positive,
                            plot_pairs)
                    for name, s in columns.items()],
        "forest": (None if intervals is None or len(keys) > MAX_FOREST_GROUPS
                   else _figures.forest(intervals)),
        "forest_note": (None if intervals is None or len(keys) <= MAX_FOREST_GROUPS else
                        f"The forest plot is left out: {len(keys)} groups give "
                        f"{forest_rows(len(keys))} intervals per score column, more than "
                        f"a picture shows (at most {MAX_FOREST_GROUPS} groups); the "
                        "tables above hold them all."),
        "decisions": _decision_context(decisions, keys, default_rule, columns, words),
        "rate_titles": RATE_TITLES, "rates": RATES, "rate_meanings": RATE_MEANINGS,
        "model": None if model is None else _model(
            model, columns, y, groups, keys, words, level, method, n_bootstrap,
            random_state, positive),
        "provenance": _provenance(command, model, random_state, method, level),
    }
    page["rule"] = None if intervals is None else rule_text(
        intervals[next(iter(columns))].level, len(keys) * (len(keys) - 1) // 2, delta)
    env = jinja2.Environment(loader=jinja2.PackageLoader("gpu_xorder.report", "templates"),
                             autoescape=True, trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined)
    env.filters["num"] = _num
    env.filters["iv"] = _iv
    return env.get_template("audit.html.j2").render(**page)


def write_audit_report(path: str | os.PathLike, *args, **kwargs) -> None:
    """Write :func:`audit_report` to ``path``, atomically: the file is complete or not
    there.

    Parameters
    ----------
    path : str or os.PathLike
        The HTML file to write; never a file it reads (``source``, ``model``).
    *args, **kwargs
        The parameters of :func:`audit_report`: ``(scores, y, sensitive_features,
        ...)`` or ``(frame, ...)``, a :class:`gpu_xorder.metrics.RankingMetricFrame`.
    """
    from ..io import check_all_outputs, write_files

    inputs = tuple(kwargs[k] for k in ("source", "model") if kwargs.get(k) is not None)
    check_all_outputs([("path", path)], inputs=inputs)  # before the work
    text = audit_report(*args, **kwargs)
    write_files([(path, lambda f: f.write(text), "\n")], inputs=inputs)


def _import_jinja2():
    return optional("jinja2", MSG_NO_JINJA)


def _columns(scores):
    if isinstance(scores, Mapping):
        if not scores:
            raise ValueError(MSG_SCORES)
        columns = {str(name): check_scores(s, name=f"scores[{name!r}]")
                   for name, s in scores.items()}
        if len({s.size for s in columns.values()}) > 1:
            raise ValueError("the score columns have different lengths")
        return columns
    return {"scores": check_scores(scores)}


def sha256(path):
    """The SHA-256 of the file at ``path``, in hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _provenance(command, model, random_state, method, level):
    """Versions of the package, Python and the libraries the numbers come from, the
    command, the model file's SHA-256, the seed and the date."""
    from importlib import metadata

    def version(name):
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "not installed"

    return {"version": __version__, "command": command,
            "python": platform.python_version(), "numpy": np.__version__,
            "sklearn": version("scikit-learn"),
            "model_sha256": None if model is None else sha256(model),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime(
                "%Y-%m-%d %H:%M:%S UTC"),
            "seed": random_state if method == "bootstrap" and level else None}


def _data_summary(y, groups, keys, source):
    rows = [{"label": str(g), "n": int((groups == g).sum()),
             "positives": int(y[groups == g].sum())} for g in keys]
    for row in rows:
        row["share"] = row["positives"] / row["n"]
    summary = {"n": int(y.size), "positives": int(y.sum()), "groups": rows,
               "file": None, "sha256": None, "bytes": None}
    if source is not None:
        summary.update(file=os.fspath(source), sha256=sha256(source),
                       bytes=os.path.getsize(source))
    return summary


def _ci_summary(intervals, seed):
    if intervals is None:
        return None
    ci = next(iter(intervals.values()))
    how = ("DeLong variances, normal intervals" if ci.method == "delong" else
           f"stratified bootstrap (group x label), {ci.n_bootstrap} resamples, seed "
           f"{seed}, percentile intervals")
    return {"level": ci.level, "method": ci.method, "text": how}


def _column(name, s, y, groups, keys, words, ci, positive, plot_pairs):
    """One score column: its summary, findings, tables and pictures."""
    def value(function, **kwargs):
        return defined(function, y, s, sensitive_features=groups, **kwargs)

    summary = [{"name": "AUC", "meaning": f"P(a positive ({positive}) ranks above a "
                "negative)", "value": defined(metrics.auc, y, s),
                "interval": None if ci is None else ci.auc}]
    for metric, m in METRICS.items():
        summary.append({"name": m.display, "meaning": m.definition,
                        "value": value(metrics.disparity, metric=metric),
                        "interval": None if ci is None else ci.disparity[metric]})
    tables = [(*AUC_WITHIN, [(str(g), value(metrics.xauc, g=g, h=g),
                              ci and ci.auc_within[g]) for g in keys])]
    for metric, m in METRICS.items():
        rows = value_keys(metric, keys)
        tables.append((m.value_title, m.value_meaning, [
            (str(k) if m.per == "group" else f"{k[0]} ~ {k[1]}" if m.any_pairs
             else f"{k[0]}, {k[1]}",
             value(getattr(metrics, metric), **(
                 {"g": k} if m.per == "group" else {"g": k[0], "h": k[1]})),
             ci and getattr(ci, metric)[k]) for k in rows]))
    found = []
    for metric, m in METRICS.items():
        try:
            d = ranking_finding(y, s, sensitive_features=groups, measure=metric,
                                intervals=ci, level=None, score=name, **words)
        except ValueError:
            continue
        found.append({"metric": m.display, "finding": d})
    level = None if ci is None else ci.level
    xrocs = []
    # the values by key, of each metric in the registry's order
    by_key = [{k: v for (_, v, _), k in zip(rows, value_keys(metric, keys))}
              for (_, _, rows), metric in zip(tables[1:], METRICS)]
    drawn, unordered = worst_pairs(keys, *by_key, plot_pairs)
    for a, b in (p for p in unordered if p in set(drawn)):
        picture = _figures.xroc(s, y, groups, (a, b), level, positive)
        if picture is not None:
            xrocs.append({"a": str(a), "b": str(b), "picture": picture})
    xroc_note = None
    if len(unordered) > plot_pairs:
        xroc_note = (f"xROC pictures of {plot_pairs} of the {len(unordered)} pairs of "
                     "groups, those of the largest disparity (any metric; plot_pairs, "
                     "--plot-pairs): " + ", ".join(f"{isolated(a)} and {isolated(b)}"
                                                   for a, b in drawn)
                     + ".")
    return {"name": name, "summary": summary, "findings": found,
            "tables": [{"title": t, "meaning": m, "rows": r} for t, m, r in tables],
            "xrocs": xrocs, "xroc_note": xroc_note, "band": level,
            "distribution": _figures.distributions(s, groups, y)}


def _decision_context(decisions, keys, default, columns, words):
    first = next(iter(decisions.values()))
    return {"rule": first.rule, "level": first.level, "default": default,
            "columns": [{"name": name, "rates": d,
                         "cut": lowest_selected(columns[name], d),
                         "findings": [{"measure": MEASURE_NAMES[f.measure], "finding": f}
                                      for f in decision_findings(d, score=name,
                                                                 **words)],
                         "groups": [{"label": str(g), "counts": d.counts[g],
                                     "rates": [d.by_group[r][g] for r in RATES]}
                                    for g in keys]}
                        for name, d in decisions.items()]}


def _model(path, columns, y, groups, keys, words, level, method, n_bootstrap,
           random_state, positive):
    """A model file's section: before and after on these data, its certificate, the
    trade-off along lam fitted on these data with the model's parameters."""
    from ..postprocessing import XOrder, xorder_path
    from ..postprocessing._model_file import read_json

    est = XOrder.load(path)
    summary = read_json(path).get("summary") or {}
    named = (read_json(path).get("columns") or {}).get("score")
    column = named if named in columns else next(iter(columns))
    before = columns[column]
    after = est.transform(before, sensitive_features=groups)
    rows = []
    ci = {}
    if level is not None:
        ci = {key: metrics.confidence_intervals(y, s, sensitive_features=groups, level=level,
                                                method=method, n_bootstrap=n_bootstrap,
                                                random_state=random_state)
              for key, s in (("before", before), ("after", after))}
    rows.append({"name": "AUC", "values": [
        (defined(metrics.auc, y, s), ci[key].auc if ci else None)
        for key, s in (("before", before), ("after", after))]})
    for metric, m in METRICS.items():
        rows.append({"name": m.display, "values": [
            (defined(metrics.disparity, y, s, sensitive_features=groups, metric=metric),
             ci[key].disparity[metric] if ci else None)
            for key, s in (("before", before), ("after", after))]})
    found = []
    for key, s in (("before", before), ("after", after)):
        try:
            found.append((key, ranking_finding(
                y, s, sensitive_features=groups, measure=est.metric,
                intervals=ci.get(key), level=None, score=f"{column} {key}", **words)))
        except ValueError:
            pass
    certificate = None
    if summary.get("objective") is not None:
        bound = summary.get("upper_bound")
        certificate = {"objective": summary["objective"], "upper_bound": bound,
                       "gap": None if bound is None else bound - summary["objective"],
                       "lam": summary.get("lam", est.lam), "solver": summary.get("solver"),
                       "n_items": summary.get("n_items"),
                       "ordering_auc": summary.get("ordering_auc"),
                       "ordering_disparity": summary.get("ordering_disparity")}
    tradeoff, note = None, None
    if y.size <= TRADEOFF_MAX_ITEMS:
        lams = sorted(set(TRADEOFF_LAMS) | {float(est.lam)})
        fit_params = {k: v for k, v in est.get_params().items()
                      if k in ("metric", "disparity", "method", "solver")}
        models = xorder_path(before, y, sensitive_features=groups, lams=lams,
                             **fit_params)
        tradeoff = _figures.tradeoff(models, before, y, groups, after, float(est.lam),
                                      positive)
    else:
        note = (f"The trade-off along lam is left out: {y.size} items are more than "
                f"{TRADEOFF_MAX_ITEMS} to fit a path on.")
    return {"path": os.fspath(path), "column": column, "lam": est.lam,
            "metric": METRICS[est.metric].display,
            "rows": rows, "findings": found, "certificate": certificate,
            "tradeoff": tradeoff, "tradeoff_note": note,
            "distribution": _figures.distributions(after, groups, y, scale="rank")}


def _num(value, digits=3):
    """A number for the page: ``digits`` decimals, ``n/a`` where undefined."""
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return "n/a"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return f"{value:.{digits}f}"


def _iv(interval):
    """``[low, high]`` of an Interval, empty where there is none."""
    if interval is None or not np.isfinite([interval.low, interval.high]).all():
        return ""
    return f"[{interval.low:.3f}, {interval.high:.3f}]"
