"""The tables of ``RankingMetricFrame`` (``_frame``): its metrics checked, the rows of
intervals, the flat table of the decisions at a cut-off, the name of its groups."""

from __future__ import annotations

import math

import numpy as np

from ..utils import _frames
from ..utils._metrics import METRIC_NAMES
from ._decisions import RATES

#: Metrics a frame can hold by name (besides callables).
FRAME_METRICS = ("auc",) + METRIC_NAMES
STATS = ("estimate", "low", "high")

MSG_METRICS = ("metrics must be a non-empty sequence of {choices} or callables "
               "f(y_true, y_score), or a dict of names to them, got {value!r}")
MSG_METRIC_NAME = ("metric name {name!r} is taken (by a built-in metric, a column of "
                   "by_group or another callable); pass a dict {{name: callable}}")
MSG_WEIGHTED_DECISIONS = (
    "decision rates of weighted items are not supported; build the frame without "
    "sample_weight for decisions()"
)
MSG_WEIGHTED_REPORT = (
    "the audit report does not weigh items; build the frame without sample_weight for "
    "write_audit_report(path, frame)"
)
MSG_WEIGHTED_INTERVALS = (
    "confidence intervals of weighted metrics are not supported; build the frame "
    "without sample_weight for intervals"
)
#: The columns of ``RankingMetricFrame.decisions()``, in order.
DECISION_COLUMNS = ("n", "positives", "selected") + tuple(
    f"{rate}{end}" for rate in RATES for end in ("", "_low", "_high"))
COUNTS = ("n", "positives", "selected")


def decision_table(pd, d, labels, name):
    """The flat table of the :class:`DecisionRates` ``d`` of the groups ``labels``
    (see ``RankingMetricFrame.decisions``)."""
    def limits(interval):
        return (math.nan,) * 3 if interval is None else tuple(interval)

    def rates(part):
        return [v for rate in RATES for v in limits(part(rate))]

    rows, keys = [], []
    for g in labels:
        rows.append([d.counts[g][key] for key in COUNTS]
                    + rates(lambda rate, g=g: d.by_group[rate][g]))
        keys.append(("group", g))
    totals = [sum(d.counts[g][key] for g in labels) for key in COUNTS]
    rows.append(totals + rates(lambda rate: d.overall[rate]))
    keys.append(("overall", ""))
    for part in ("difference", "ratio"):
        rows.append([math.nan] * len(COUNTS) + rates(lambda rate, p=part: getattr(d, p)[rate]))
        keys.append((part, ""))
    index = pd.MultiIndex.from_tuples(keys, names=["part", name])
    return pd.DataFrame(rows, index=index, columns=list(DECISION_COLUMNS), dtype=np.float64)


def interval_rows(pd, intervals, values):
    """A DataFrame of ``estimate``, ``low``, ``high`` with the index of the Series
    ``values``, whose value is the estimate where an interval is None."""
    rows = [tuple(i) if i is not None else (v, math.nan, math.nan)
            for i, v in zip(intervals, values)]
    return pd.DataFrame(rows, index=values.index, columns=list(STATS))


def series(values, name):
    pd = _frames.import_pandas("RankingMetricFrame")
    return pd.Series(values, name=name, dtype=np.float64)


def check_metrics(value):
    """``{name: None (built-in) or callable}`` in the order given."""
    bad = ValueError(MSG_METRICS.format(choices=FRAME_METRICS, value=value))
    if isinstance(value, str) or callable(value):
        value = (value,)
    if isinstance(value, dict):
        items = list(value.items())
        if not all(isinstance(k, str) for k, _ in items):
            raise bad
        items = [(k, None if f == k else f) for k, f in items]
    else:
        try:
            items = [(m, None) if isinstance(m, str) else
                     (getattr(m, "__name__", None), m) for m in value]
        except TypeError:
            raise bad from None
    named = {}
    for name, f in items:
        if f is None and name not in FRAME_METRICS:
            raise bad
        if f is not None and not callable(f):
            raise bad
        if f is not None and (not isinstance(name, str) or name in FRAME_METRICS
                              or name in ("n", "positives", "xauc_ab", "xauc_ba")
                              or name in named):
            raise ValueError(MSG_METRIC_NAME.format(name=name))
        named.setdefault(name, f)  # a built-in named twice counts once
    if not named:
        raise bad
    return named


def index_name(sensitive_features):
    """The index name of ``by_group``: a Series' name, several columns' names joined."""
    if _frames.is_series(sensitive_features) and isinstance(sensitive_features.name, str):
        return sensitive_features.name
    names = _frames.column_names(sensitive_features)
    return " & ".join(names) if names is not None else "group"
