"""``RankingMetricFrame``: the ranking metrics of scores by group and pair, as DataFrames.

In the manner of fairlearn's ``MetricFrame``: the data once, then ``overall``,
``by_group``, ``by_pair``, ``difference()``, ``ratio()``, ``group_min()`` and
``group_max()``, whose values are those of :mod:`gpu_xorder.metrics` (``difference()``
is :func:`gpu_xorder.metrics.disparity`), and of any metric given as a callable;
``intervals()`` gives the same tables' confidence intervals from
:func:`gpu_xorder.metrics.confidence_intervals`, ``decisions()`` the rates of the
decision at a cut-off (:func:`gpu_xorder.metrics.decision_rates`). pandas is needed, and
imported here only when a frame is built.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ..utils import _frames
from ..utils._metrics import METRIC_NAMES, METRICS
from ..utils._validation import (
    check_choice,
    check_labels,
    check_n_groups,
    check_sample_weight,
    check_scores,
    encode_groups,
)
from . import _ranking as _metrics
from ._confidence import confidence_intervals
from ._decisions import decision_rates
from ._frame_tables import (
    FRAME_METRICS,
    MSG_WEIGHTED_DECISIONS,
    MSG_WEIGHTED_INTERVALS,
    MSG_WEIGHTED_REPORT,
    check_metrics,
    decision_table,
    index_name,
    interval_rows,
    series,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    import pandas as pd
    from matplotlib.axes import Axes
    from numpy.typing import ArrayLike

#: The built-in metrics measured between two groups only (no value per group).
PAIR_METRICS = tuple(name for name, m in METRICS.items() if m.per == "pair")
DIFFERENCE_METHODS = ("between_groups", "to_overall")


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
    metrics : sequence of {"auc", "xauc", "prf", "urf"} or callables, or dict
        The metrics of ``by_group``, ``by_pair`` and ``difference()`` (default: the four
        built-in ones). A callable ``f(y_true, y_score)`` returning a number (say
        ``sklearn.metrics.average_precision_score``) is measured overall and within
        every group, under its ``__name__`` or its key in a dict ``{name: metric}``;
        with ``sample_weight`` it is called with ``sample_weight=`` the group's
        weights. A ``ValueError`` it raises (one class only, say) makes its value NaN.
    sample_weight : array-like of shape (n,), optional
        Weights >= 0: every metric weighted (a pair weighs the product of its items'
        weights); no intervals then.

    Attributes
    ----------
    overall : pandas.Series
        ``auc``: the AUC of all the items, and every callable metric of all of them.
    by_group : pandas.DataFrame
        One row per group (sorted labels): ``n``, ``positives``, ``auc`` (the AUC within
        the group), ``prf`` and every callable metric; NaN where the group leaves a
        value undefined.
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
    >>> float(frame.difference()["xauc"]) == disparity(y, s, sensitive_features=race)
    True
    >>> [float(v) for v in (frame.group_min()["auc"], frame.group_max()["auc"],
    ...                     frame.ratio()["auc"])]
    [0.5, 1.0, 0.5]
    """

    def __init__(self, y_true: ArrayLike, y_score: ArrayLike, *,
                 sensitive_features: ArrayLike,
                 metrics: Sequence[str | Callable] | Mapping[str, str | Callable]
                 = FRAME_METRICS,
                 sample_weight: ArrayLike | None = None) -> None:
        pd = _frames.import_pandas("RankingMetricFrame")
        self._custom = check_metrics(metrics)
        self.metrics = tuple(self._custom)
        self._custom = {name: f for name, f in self._custom.items() if f is not None}
        self._scores = check_scores(y_score, name="y_score")
        n = self._scores.size
        self._y = check_labels(y_true, n)
        labels, index = encode_groups(sensitive_features, n)
        check_n_groups(labels)
        self._groups, self._labels = labels[index], labels.tolist()
        self._weight = check_sample_weight(sample_weight, n)
        self._name = index_name(sensitive_features)
        self._index = index
        self.overall = pd.Series({"auc": self._value(_metrics.auc, grouped=False),
                                  **{name: self._custom_value(f, slice(None))
                                     for name, f in self._custom.items()}},
                                 name="overall")
        self.by_group = self._by_group(pd, index)
        self.by_pair = self._by_pair(pd)

    def difference(self, method: str = "between_groups") -> pd.Series:
        """The gap of every metric between groups (NaN where undefined).

        Parameters
        ----------
        method : {"between_groups", "to_overall"}, default="between_groups"
            ``"between_groups"``: the Delta, the largest over the pairs of groups: for
            ``xauc``, ``prf`` and ``urf`` :func:`gpu_xorder.metrics.disparity`, for
            ``auc`` and a callable the largest minus the smallest value of a group
            (fairlearn's ``between_groups``). ``"to_overall"``: the largest
            ``|value of a group - overall value|`` of ``auc``, ``prf`` (whose overall
            value is the AUC: PRF over every positive) and callables; NaN for ``xauc``
            and ``urf``, which have no value per group.

        Returns
        -------
        pandas.Series
            The largest Delta over pairs of groups, one value per metric.
        """
        method = check_choice(method, "method", DIFFERENCE_METHODS)
        values = {}
        for m in self.metrics:
            if method == "between_groups" and m in FRAME_METRICS:
                values[m] = self.by_pair[m].max(skipna=False)
            elif method == "between_groups":
                values[m] = self.by_group[m].max(skipna=False) - self.by_group[m].min(
                    skipna=False)
            elif m in PAIR_METRICS:
                values[m] = math.nan
            else:
                values[m] = (self.by_group[m] - self._overall_of(m)).abs().max(
                    skipna=False)
        return series(values, "difference")

    def ratio(self, method: str = "between_groups") -> pd.Series:
        """The smallest ratio of every metric between groups (1: parity; NaN where
        undefined), as fairlearn's ``MetricFrame.ratio``.

        Parameters
        ----------
        method : {"between_groups", "to_overall"}, default="between_groups"
            ``"between_groups"``: the smallest value of a group over the largest for
            ``auc``, ``prf`` and callables; for ``xauc`` the smallest over pairs of
            ``min(xauc_ab, xauc_ba) / max(xauc_ab, xauc_ba)``. ``"to_overall"``: the
            smallest ``min(v / overall, overall / v)`` over the groups' values v (the
            overall value of ``prf`` is the AUC). NaN for ``urf`` and, with
            ``"to_overall"``, for ``xauc``.

        Returns
        -------
        pandas.Series
            The smallest ratio, one value per metric.
        """
        method = check_choice(method, "method", DIFFERENCE_METHODS)
        values = {}
        for m in self.metrics:
            if m == "urf" or (m == "xauc" and method == "to_overall"):
                values[m] = math.nan
            elif m == "xauc":
                pair = self.by_pair[["xauc_ab", "xauc_ba"]]
                values[m] = (pair.min(axis=1, skipna=False)
                             / pair.max(axis=1, skipna=False)).min(skipna=False)
            elif method == "between_groups":
                values[m] = self.by_group[m].min(skipna=False) / self.by_group[m].max(
                    skipna=False)
            else:
                overall, v = self._overall_of(m), self.by_group[m]
                values[m] = np.minimum(v / overall, overall / v).min(skipna=False)
        return series(values, "ratio")

    def group_min(self) -> pd.Series:
        """The smallest value of a group of every metric that has one per group.

        Returns
        -------
        pandas.Series
            One value per metric of ``auc``, ``prf`` and callables; NaN where a
            group's value is undefined.
        """
        return series({m: self.by_group[m].min(skipna=False)
                        for m in self._group_metrics()}, "group_min")

    def group_max(self) -> pd.Series:
        """The largest value of a group of every metric that has one per group.

        Returns
        -------
        pandas.Series
            One value per metric of ``auc``, ``prf`` and callables; NaN where a
            group's value is undefined.
        """
        return series({m: self.by_group[m].max(skipna=False)
                        for m in self._group_metrics()}, "group_max")

    def decisions(self, *, threshold: float | None = None, top_k: int | None = None,
                  top_share: float | None = None, level: float = 0.95) -> pd.DataFrame:
        """The rates of the decision the scores make at a cut-off, as one flat table, by
        :func:`gpu_xorder.metrics.decision_rates`.

        Parameters
        ----------
        threshold : float, optional
            Select every item scoring ``>= threshold`` (ties at it included).
        top_k : int, optional
            Select the k highest-scoring items; items tied at the k-th score share the
            places left.
        top_share : float, optional
            Select the share ``top_share`` of the items, ties as for ``top_k``.
        level : float, default=0.95
            Confidence level of the intervals.

        Returns
        -------
        pandas.DataFrame
            One row per group (``("group", label)``), then ``("overall", "")``,
            ``("difference", "")`` (the largest gap between groups, Newcombe's interval)
            and ``("ratio", "")`` (the smallest ratio, Katz's): an index of two levels,
            ``part`` and the groups' name. Flat columns: ``n``, ``positives``,
            ``selected`` (NaN on the difference and ratio rows), then per rate
            (``selection_rate``, ``tpr``, ``fpr``, ``precision``) the estimate under the
            rate's name and its limits as ``<rate>_low`` and ``<rate>_high``. NaN where
            undefined. ``table.loc["group"]`` is the table by group; the columns' order
            is ``DECISION_COLUMNS``.

        Raises
        ------
        ValueError
            For a frame with ``sample_weight``, or as :func:`decision_rates`.

        Examples
        --------
        >>> from gpu_xorder.metrics import RankingMetricFrame
        >>> frame = RankingMetricFrame([1, 0, 1, 1, 0, 0], [0.9, 0.8, 0.3, 0.7, 0.2, 0.1],
        ...                            sensitive_features=list("aaabbb"))
        >>> table = frame.decisions(threshold=0.5)
        >>> table.loc["group", "selection_rate"].round(3).tolist()
        [0.667, 0.333]
        >>> round(float(table.loc[("difference", ""), "selection_rate"]), 3)
        0.333
        """
        if self._weight is not None:
            raise ValueError(MSG_WEIGHTED_DECISIONS)
        pd = _frames.import_pandas("RankingMetricFrame.decisions")
        d = decision_rates(self._y, self._scores, sensitive_features=self._groups,
                           threshold=threshold, top_k=top_k, top_share=top_share,
                           level=level)
        return decision_table(pd, d, self._labels, self._name)

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
            its interval is undefined; callable metrics have estimates only.

        Raises
        ------
        ValueError
            For a frame with ``sample_weight``.
        """
        pd = _frames.import_pandas("RankingMetricFrame.intervals")
        ci = self._confidence(level=level, method=method, n_bootstrap=n_bootstrap,
                              random_state=random_state, n_jobs=n_jobs)
        groups, pairs = self._labels, list(self.by_pair.index)
        by_group = {"auc": [ci.auc_within[g] for g in groups],
                    "prf": [ci.prf[g] for g in groups]}
        by_pair = {"xauc_ab": [ci.xauc[a, b] for a, b in pairs],
                   "xauc_ba": [ci.xauc[b, a] for a, b in pairs],
                   "auc": [ci.auc_gap_pairs[pair] for pair in pairs],
                   **{m: [ci.disparity_pairs[m][pair] for pair in pairs]
                      for m in METRIC_NAMES}}

        def table(frame, intervals):
            """Intervals of the columns of ``frame`` that have them, in its order."""
            parts = {c: interval_rows(pd, intervals[c], frame[c])
                     for c in frame.columns if c in intervals}
            return pd.concat(parts, axis=1) if parts else pd.DataFrame(index=frame.index)

        return {
            # the AUC's interval on its own row; a callable's row keeps its estimate
            "overall": interval_rows(pd, [ci.auc if m == "auc" else None
                                          for m in self.overall.index],
                                     self.overall.rename_axis("metric")),
            "by_group": table(self.by_group, by_group),
            "by_pair": table(self.by_pair, by_pair),
            "difference": interval_rows(pd, [ci.auc_gap if m == "auc" else ci.disparity.get(m)
                                     for m in self.metrics],
                                self.difference().rename_axis("metric")),
        }

    def plot(self, *, part: str = "metrics", level: float = 0.95,
             method: str = "bootstrap", n_bootstrap: int | None = None,
             random_state: int | np.random.Generator | None = None,
             n_jobs: int | None = None, names: Mapping | None = None,
             ax: Axes | None = None) -> Axes:
        """Draw the frame's metrics with their confidence intervals, by group and pair.

        A forest plot (:func:`gpu_xorder.plotting.plot_intervals` of this frame): the
        values of :meth:`intervals`, one row per group or pair, of the built-in metrics
        the frame holds (callables have no intervals and are not drawn). matplotlib is
        needed.

        Parameters
        ----------
        part : {"metrics", "disparities"}, default="metrics"
            ``"metrics"``: the AUC overall and within every group, xAUC of every ordered
            pair, PRF of every group; ``"disparities"``: every pair's Delta-xAUC,
            Delta-PRF and URF.
        level, method, n_bootstrap, random_state, n_jobs : as in :meth:`intervals`
            How the intervals are computed.
        names : mapping, optional
            Readable names of the group labels.
        ax : matplotlib Axes, optional
            Where to draw; default: a new figure.

        Returns
        -------
        matplotlib.axes.Axes
            The axes drawn on.

        Raises
        ------
        ValueError
            For a frame with ``sample_weight``, or as :meth:`intervals`.

        Examples
        --------
        >>> from gpu_xorder.metrics import RankingMetricFrame
        >>> frame = RankingMetricFrame([1, 0, 1, 0, 1, 0], [6, 5, 4, 3, 2, 1],
        ...                            sensitive_features=list("aabbab"),
        ...                            metrics=["auc", "prf"])
        >>> ax = frame.plot(method="delong")
        >>> [tick.get_text() for tick in ax.get_yticklabels()]
        ['AUC', 'AUC within a', 'AUC within b', 'PRF(a)', 'PRF(b)']
        """
        # the one call up the layers (tests/test_layers.py, UPWARD): a frame hands
        # itself to the forest plot, imported when it is drawn
        from ..plotting._intervals import plot_intervals

        ci = self._confidence(level=level, method=method, n_bootstrap=n_bootstrap,
                              random_state=random_state, n_jobs=n_jobs)
        return plot_intervals(ci, part=part, names=names, ax=ax,
                              metrics=[m for m in self.metrics if m in FRAME_METRICS])

    def __repr__(self):
        return (f"RankingMetricFrame(n={self._scores.size}, groups={self._labels}, "
                f"metrics={self.metrics})")

    def _data(self):
        """``(y_score, y_true, sensitive_features, groups' name)``, for the report;
        a ValueError for weighted items, which it does not weigh."""
        if self._weight is not None:
            raise ValueError(MSG_WEIGHTED_REPORT)
        return self._scores, self._y, self._groups, self._name

    def _confidence(self, **settings):
        """:func:`confidence_intervals` of the frame's data (``settings``: its keywords)."""
        if self._weight is not None:
            raise ValueError(MSG_WEIGHTED_INTERVALS)
        return confidence_intervals(self._y, self._scores, sensitive_features=self._groups,
                                    **settings)

    def _by_group(self, pd, index):
        columns = {"n": [int((index == k).sum()) for k in range(len(self._labels))],
                   "positives": [int(self._y[index == k].sum())
                                 for k in range(len(self._labels))]}
        if "auc" in self.metrics:
            columns["auc"] = [self._value(_metrics.xauc, g=g, h=g) for g in self._labels]
        if "prf" in self.metrics:
            columns["prf"] = [self._value(_metrics.prf, g=g) for g in self._labels]
        for name, f in self._custom.items():
            columns[name] = [self._custom_value(f, index == k)
                             for k in range(len(self._labels))]
        return pd.DataFrame(columns, index=pd.Index(self._labels, name=self._name))

    def _custom_value(self, f, chosen):
        """The callable metric ``f`` of the items ``chosen``, NaN where it raises a
        ValueError (a group of one class, for a metric that needs both)."""
        kwargs = {} if self._weight is None else {"sample_weight": self._weight[chosen]}
        try:
            return float(f(self._y[chosen], self._scores[chosen], **kwargs))
        except ValueError:
            return math.nan

    def _group_metrics(self):
        return [m for m in self.metrics if m not in PAIR_METRICS]

    def _overall_of(self, metric):
        """The overall value a group's value of ``metric`` is compared with: the AUC
        for ``auc`` and ``prf``, the callable's own overall value."""
        return self.overall["auc" if metric in FRAME_METRICS else metric]

    def _by_pair(self, pd):
        pairs = [(a, b) for i, a in enumerate(self._labels) for b in self._labels[i + 1:]]
        columns = {}
        if "xauc" in self.metrics:
            columns["xauc_ab"] = [self._value(_metrics.xauc, g=a, h=b) for a, b in pairs]
            columns["xauc_ba"] = [self._value(_metrics.xauc, g=b, h=a) for a, b in pairs]
        for m in (m for m in self.metrics if m in FRAME_METRICS):
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
        groups = {"sensitive_features": self._groups} if grouped else {}
        try:
            return function(self._y, self._scores, **groups, sample_weight=self._weight,
                            **labels)
        except ValueError:
            return math.nan

    def _pair_deltas(self, metric):
        try:
            return _metrics.disparity_pairs(self._y, self._scores,
                                            sensitive_features=self._groups, metric=metric,
                                            sample_weight=self._weight)
        except ValueError:  # a group the metric cannot measure: pair by pair
            return {}

    def _pair_delta(self, metric, a, b):
        """One pair's disparity where ``disparity_pairs`` refused the whole metric (a
        group without positives refuses it for every pair), NaN where it is undefined."""
        if metric == "urf":
            return self._value(_metrics.urf, g=a, h=b)
        if metric == "xauc":
            return abs(self._value(_metrics.xauc, g=a, h=b)
                       - self._value(_metrics.xauc, g=b, h=a))
        return abs(self._value(_metrics.prf, g=a) - self._value(_metrics.prf, g=b))
