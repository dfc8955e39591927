"""Which group a ranking disadvantages (docs/design.md, section 2): the finding of one
measure (:mod:`._findings`), the sign of the most disparate pair's difference read as
``high_score`` says, with the verdict its interval allows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._findings import DEFAULT_DELTA, MSG_INTERVALS, Finding, ranking_finding
from ._ranking import check_order
from ._uncertainty import MetricIntervals

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["disadvantaged_group", "Disadvantage", "MSG_INTERVALS"]

#: The finding of :func:`disadvantaged_group`: the name of earlier versions, kept as
#: ``gpu_xorder.metrics.Disadvantage`` (documented as :class:`Finding`).
Disadvantage = Finding


def disadvantaged_group(y_true: ArrayLike | None, y_score: ArrayLike, *,
                        sensitive_features: ArrayLike, metric: str = "xauc",
                        high_score: str = "favourable",
                        intervals: MetricIntervals | None = None, level: float = 0.95,
                        delta: float = DEFAULT_DELTA,
                        decision: str | None = None) -> Finding:
    """The group of the most disparate pair that the ranking disadvantages, judged.

    The signed difference of the pair (``xauc(g, h) - xauc(h, g)``, ``prf(g) -
    prf(h)``, ``P(S^g > S^h) - P(S^h > S^g)``) says which group is ranked higher; with
    ``high_score="favourable"`` the lower one is disadvantaged, with ``"harmful"`` (a
    risk score whose high ranks bring a harmful decision) the higher one
    (docs/design.md, section 2). Whether the data establish it is the finding's
    ``verdict`` (:func:`gpu_xorder.metrics.ranking_finding`): the pair, picked as the
    worst, is judged by its interval at the family-wise level (Bonferroni).

    Parameters
    ----------
    y_true, y_score, sensitive_features : array-like of shape (n,)
        As :func:`disparity_pairs` (``y_true`` may be None for ``"urf"``).
    metric : {"xauc", "prf", "urf"}, default="xauc"
    high_score : {"favourable", "harmful"}, default="favourable"
        What a high score does to a person.
    intervals : MetricIntervals, optional
        :func:`confidence_intervals` of the same data (default: DeLong's at
        ``level``).
    level : float, default=0.95
        The family-wise level where ``intervals`` are not given.
    delta : float, default=DEFAULT_DELTA
        The equivalence margin of a ``"parity"`` verdict.
    decision : str, optional
        What a high score leads to, named in the sentence.

    Returns
    -------
    Finding
        The group the estimate disadvantages (``group``), the pair and the values
        compared, the interval, ``verdict`` and ``text``.

    Raises
    ------
    TypeError
        If ``y_true`` is recognisably scores (given first, in the earlier order).
    ValueError
        As :func:`gpu_xorder.metrics.ranking_finding`.

    Examples
    --------
    >>> s, y, grp = [6, 5, 4, 3, 2, 1], [1, 0, 0, 1, 1, 0], ["a", "b", "a", "b", "a", "b"]
    >>> found = disadvantaged_group(y, s, sensitive_features=grp)  # xAUC(a, b) 3/4, (b, a) 0
    >>> found.group, found.value, found.reverse
    ('b', 0.0, 0.75)
    >>> found.verdict   # six items do not say so
    'inconclusive'
    >>> disadvantaged_group(y, s, sensitive_features=grp, high_score="harmful").group
    'a'
    """
    check_order("disadvantaged_group", y_true, y_score)
    return ranking_finding(y_true, y_score, sensitive_features=sensitive_features,
                           measure=metric, high_score=high_score,
                           intervals=intervals, level=level, delta=delta,
                           decision=decision)
