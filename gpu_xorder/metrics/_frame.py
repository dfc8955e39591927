"""``RankingMetricFrame``: the ranking metrics of scores by group and pair, as DataFrames.

In the manner of fairlearn's ``MetricFrame``: the data once, then ``overall``,
``by_group``, ``by_pair`` and ``difference()``, whose values are those of
:mod:`gpu_xorder.metrics` (``difference()`` is :func:`gpu_xorder.metrics.disparity`);
``intervals()`` gives the same tables' confidence intervals from
:func:`gpu_xorder.metrics.confidence_intervals`. pandas is needed, and imported here
only when a frame is built.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..utils import _frames
from . import _ranking as _metrics
from ._confidence import confidence_intervals
from ..utils._validation import (
    check_labels,
    check_n_groups,
    check_sample_weight,
    check_scores,
    encode_groups,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np
    import pandas as pd
    from numpy.typing import ArrayLike

#: Metrics a frame can hold.
FRAME_METRICS = ("auc", "xauc", "prf", "urf")
STATS = ("estimate", "low", "high")

MSG_METRICS = "metrics must be a non-empty sequence of {choices}, got {value!r}"
MSG_WEIGHTED_INTERVALS = (
    "confidence intervals of weighted metrics are not supported; build the frame "
    "without sample_weight for intervals"
)


class RankingMetricFrame:
    """The AUC, xAUC, PRF and URF of scores, overall, by group, by pair of groups.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        0/1 labels.
    y_score : array-like of shape (n,)
        Finite scores, higher ranked first.
    sensitive_features : array-like of shape (n,) or (n, c)
        Group of every item (a DataFrame of several columns: their intersections).
    metrics : sequence of {"auc", "xauc", "prf", "urf"}, default=all four
        The metrics of ``by_group``, ``by_pair`` and ``difference()``.
    sample_weight : array-like of shape (n,), optional
        Weights >= 0: every metric weighted (a pair weighs the product of its items'
        weights); no intervals then.

    Attributes
    ----------
    overall : pandas.Series
        ``auc``: the AUC of all the items.
    by_group : pandas.DataFrame
        One row per group (sorted labels): ``n``, ``positives``, ``auc`` (the AUC within
        the group) and ``prf``; NaN where the group leaves a value undefined.
    by_pair : pandas.DataFrame
        One row per pair of groups ``(group_a, group_b)``, ``a < b``: ``xauc_ab``
        (xAUC(a, b)), ``xauc_ba`` and the pair's Delta of each metric, ``xauc``
        (``|xauc_ab - xauc_ba|``), ``prf``, ``urf`` and ``auc`` (the gap between the
        within-group AUCs), as :func:`gpu_xorder.metrics.disparity_pairs`.

    Examples
    --------
    >>> from gpu_xorder.metrics import RankingMetricFrame, disparity
    >>> y, s = [1, 0, 1, 0, 1, 0], [0.9, 0.4, 0.8, 0.7, 0.3, 0.1]
    >>> race = ["white", "white", "white", "non-white", "non-white", "non-white"]
    >>> frame = RankingMetricFrame(y, s, sensitive_features=race)
    >>> frame.by_pair[["xauc_ab", "xauc_ba", "xauc"]].values.tolist()
    [[0.0, 1.0, 1.0]]
    >>> float(frame.difference()["xauc"]) == disparity(s, y, race)
    True
    """

    def __init__(self, y_true: ArrayLike, y_score: ArrayLike, *,
                 sensitive_features: ArrayLike, metrics: Sequence[str] = FRAME_METRICS,
                 sample_weight: ArrayLike | None = None) -> None:
        pd = _frames.import_pandas("RankingMetricFrame")
        self.metrics = _check_metrics(metrics)
        self._scores = check_scores(y_score, name="y_score")
        n = self._scores.size
        self._y = check_labels(y_true, n)
        labels, index = encode_groups(sensitive_features, n)
        check_n_groups(labels)
        self._groups, self._labels = labels[index], labels.tolist()
        self._weight = check_sample_weight(sample_weight, n)
        self._name = _name(sensitive_features)
        self.overall = pd.Series({"auc": self._value(_metrics.auc, grouped=False)},
                                 name="overall")
        self.by_group = self._by_group(pd, index)
        self.by_pair = self._by_pair(pd)

    def difference(self) -> pd.Series:
        """The Delta of every metric: the largest over the pairs of groups (NaN where
        undefined). For ``xauc``, ``prf`` and ``urf`` it is
        :func:`gpu_xorder.metrics.disparity`; for ``auc`` the largest gap between the
        AUCs within groups.

        Returns
        -------
        pandas.Series
            The largest Delta over pairs of groups, one value per metric.
        """
        return self.by_pair[list(self.metrics)].max(skipna=False).rename("difference")

    def intervals(self, *, level: float = 0.95, method: str = "bootstrap",
                  n_bootstrap: int | None = None,
                  random_state: int | np.random.Generator | None = None,
                  n_jobs: int | None = None) -> dict[str, pd.DataFrame]:
        """Confidence intervals of the tables.

        By :func:`gpu_xorder.metrics.confidence_intervals`, with its parameters.

        Parameters
        ----------
        level, method, n_bootstrap, random_state, n_jobs : as in :func:`confidence_intervals`
            Passed on to :func:`gpu_xorder.metrics.confidence_intervals`.

        Returns
        -------
        dict of str to pandas.DataFrame
            ``"overall"`` (the AUC) and ``"difference"``, one row per metric, and
            ``"by_group"`` and ``"by_pair"`` with the rows of those tables, all with
            columns (metric and) ``estimate``, ``low``, ``high``; NaN where a value or
            its interval is undefined (the gaps between within-group AUCs have no
            interval).

        Raises
        ------
        ValueError
            For a frame with ``sample_weight``.
        """
        if self._weight is not None:
            raise ValueError(MSG_WEIGHTED_INTERVALS)
        pd = _frames.import_pandas("RankingMetricFrame.intervals")
        ci = confidence_intervals(self._scores, self._y, self._groups, level=level,
                                          method=method, n_bootstrap=n_bootstrap,
                                          random_state=random_state, n_jobs=n_jobs)
        groups, pairs = self._labels, list(self.by_pair.index)
        by_group = {"auc": [ci.auc_within[g] for g in groups],
                    "prf": [ci.prf[g] for g in groups]}
        by_pair = {"xauc_ab": [ci.xauc[a, b] for a, b in pairs],
                   "xauc_ba": [ci.xauc[b, a] for a, b in pairs],
                   "auc": [None] * len(pairs),  # no interval of the gap
                   **{m: [ci.disparity_pairs[m][pair] for pair in pairs]
                      for m in ("xauc", "prf", "urf")}}

        def table(frame, intervals):
            """Intervals of the columns of ``frame`` that have them, in its order."""
            parts = {c: _rows(pd, intervals[c], frame[c])
                     for c in frame.columns if c in intervals}
            return pd.concat(parts, axis=1) if parts else pd.DataFrame(index=frame.index)

        return {
            "overall": _rows(pd, [ci.auc], self.overall.rename_axis("metric")),
            "by_group": table(self.by_group, by_group),
            "by_pair": table(self.by_pair, by_pair),
            "difference": _rows(pd, [ci.disparity.get(m) for m in self.metrics],
                                self.difference().rename_axis("metric")),
        }

    def __repr__(self):
        return (f"RankingMetricFrame(n={self._scores.size}, groups={self._labels}, "
                f"metrics={self.metrics})")

    def _by_group(self, pd, index):
        columns = {"n": [int((index == k).sum()) for k in range(len(self._labels))],
                   "positives": [int(self._y[index == k].sum())
                                 for k in range(len(self._labels))]}
        if "auc" in self.metrics:
            columns["auc"] = [self._value(_metrics.xauc, g=g, h=g) for g in self._labels]
        if "prf" in self.metrics:
            columns["prf"] = [self._value(_metrics.prf, g=g) for g in self._labels]
        return pd.DataFrame(columns, index=pd.Index(self._labels, name=self._name))

    def _by_pair(self, pd):
        pairs = [(a, b) for i, a in enumerate(self._labels) for b in self._labels[i + 1:]]
        columns = {}
        if "xauc" in self.metrics:
            columns["xauc_ab"] = [self._value(_metrics.xauc, g=a, h=b) for a, b in pairs]
            columns["xauc_ba"] = [self._value(_metrics.xauc, g=b, h=a) for a, b in pairs]
        for m in self.metrics:
            if m == "auc":
                within = self.by_group["auc"]
                columns[m] = [abs(within[a] - within[b]) for a, b in pairs]
            else:
                delta = self._pair_deltas(m)
                columns[m] = [delta[pair] if pair in delta else self._pair_delta(m, *pair)
                              for pair in pairs]
        index = pd.MultiIndex.from_tuples(pairs, names=["group_a", "group_b"])
        return pd.DataFrame(columns, index=index)

    def _value(self, function, grouped=True, **labels):
        """``function`` of the frame's data, NaN where the data leave it undefined."""
        groups = (self._groups,) if grouped else ()
        try:
            return function(self._scores, self._y, *groups, sample_weight=self._weight,
                            **labels)
        except ValueError:
            return math.nan

    def _pair_deltas(self, metric):
        try:
            return _metrics.disparity_pairs(self._scores, self._y, self._groups, metric,
                                           sample_weight=self._weight)
        except ValueError:  # a group the metric cannot measure: pair by pair
            return {}

    def _pair_delta(self, metric, a, b):
        """One pair's disparity where ``disparity_pairs`` refused the whole metric (a
        group without positives refuses it for every pair), NaN where it is undefined."""
        if metric == "urf":
            return self._value(lambda s, y, grp, **kw: _metrics.urf(s, grp, **kw), g=a, h=b)
        if metric == "xauc":
            return abs(self._value(_metrics.xauc, g=a, h=b)
                       - self._value(_metrics.xauc, g=b, h=a))
        return abs(self._value(_metrics.prf, g=a) - self._value(_metrics.prf, g=b))


def _rows(pd, intervals, values):
    """A DataFrame of ``estimate``, ``low``, ``high`` with the index of the Series
    ``values``, whose value is the estimate where an interval is None."""
    rows = [tuple(i) if i is not None else (v, math.nan, math.nan)
            for i, v in zip(intervals, values)]
    return pd.DataFrame(rows, index=values.index, columns=list(STATS))


def _check_metrics(value):
    names = (value,) if isinstance(value, str) else value
    try:
        names = tuple(dict.fromkeys(names))
    except TypeError:
        raise ValueError(MSG_METRICS.format(choices=FRAME_METRICS, value=value)) from None
    if not names or not all(isinstance(m, str) and m in FRAME_METRICS for m in names):
        raise ValueError(MSG_METRICS.format(choices=FRAME_METRICS, value=value))
    return names


def _name(sensitive_features):
    """The index name of ``by_group``: a Series' name, several columns' names joined."""
    if _frames.is_series(sensitive_features) and isinstance(sensitive_features.name, str):
        return sensitive_features.name
    names = _frames.column_names(sensitive_features)
    return " & ".join(names) if names is not None else "group"
