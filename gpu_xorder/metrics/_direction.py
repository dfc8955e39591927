"""Which group a ranking disadvantages, in numbers and in words (docs/design.md,
section 2): the sign of a metric's difference for the pair of groups with the largest
disparity, read as ``high_score="favourable"`` or ``"harmful"`` says."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

import cpu_reference
from cpu_reference import half_wins2

from ..utils import _params as params
from ..utils._validation import group_position
from ._counts import grouped
from ._ranking import disparity_pairs, prf, xauc
from ._uncertainty import Interval, MetricIntervals

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["disadvantaged_group", "Disadvantage"]

MSG_INTERVALS = ("intervals must be the MetricIntervals of the same groups, got "
                 "{what}")

_NAMES = {name: m.display for name, m in cpu_reference.METRICS.items()}


@dataclass(frozen=True)
class Disadvantage:
    """The group a ranking disadvantages by one metric, and why.

    Attributes
    ----------
    metric : {"xauc", "prf", "urf"}
    high_score : {"favourable", "harmful"}
    pair : (group label, group label)
        The pair of groups with the largest disparity, in sorted label order.
    group : group label or None
        The disadvantaged group of ``pair``; None when neither is.
    other : group label or None
        The other group of ``pair``; None when neither is disadvantaged.
    value, reverse : float
        The metric for ``group`` and for ``other`` (``pair[0]`` and ``pair[1]`` when
        neither is disadvantaged): ``xauc(group, other)`` and ``xauc(other, group)``,
        ``prf(group)`` and ``prf(other)``, or ``P(S^group > S^other)`` and
        ``P(S^other > S^group)`` (ties 1/2).
    disparity : float
        ``|value - reverse|``, the pair's disparity (as :func:`disparity_pairs`).
    interval : Interval or None
        The confidence interval of the pair's disparity, when intervals were given.
    text : str
        One sentence saying all of the above.
    """

    metric: str
    high_score: str
    pair: tuple
    group: object
    other: object
    value: float
    reverse: float
    disparity: float
    interval: Interval | None
    text: str

    def to_dict(self) -> dict:
        """The fields as JSON types: labels as text, the interval as ``[low, high]``.

        Returns
        -------
        dict
            One key per field.
        """
        return {"metric": self.metric, "high_score": self.high_score,
                "pair": [str(g) for g in self.pair], "group": _text(self.group),
                "other": _text(self.other), "value": self.value, "reverse": self.reverse,
                "disparity": self.disparity,
                "interval": (None if self.interval is None
                             else [self.interval.low, self.interval.high]),
                "text": self.text}


#: Disparities of two pairs this many ulps apart are one value: an exact tie (1/3 as
#: 4/12 and as 2/6) can round to neighbouring floats.
TIE_ULPS = 8


def _text(label):
    """A group label as JSON text, None kept."""
    return None if label is None else str(label)


def _largest(pairs):
    """The first pair (sorted label order) of the largest disparity, exact ties found
    through their rounding (``TIE_ULPS``)."""
    top = max(pairs.values())
    return next(p for p, v in pairs.items() if v >= top - TIE_ULPS * np.spacing(top))


def disadvantaged_group(scores: ArrayLike, y: ArrayLike, groups: ArrayLike, *,
                        metric: str = "xauc",
                        high_score: str = "favourable",
                        intervals: MetricIntervals | None = None) -> Disadvantage:
    """The group of the most disparate pair that the ranking disadvantages.

    The signed difference of the pair (``xauc(g, h) - xauc(h, g)``, ``prf(g) -
    prf(h)``, ``P(S^g > S^h) - P(S^h > S^g)``) says which group is ranked higher; with
    ``high_score="favourable"`` the lower one is disadvantaged, with ``"harmful"`` (a
    risk score: a high rank means detention, say) the higher one (docs/design.md,
    section 2).

    Parameters
    ----------
    scores, y, groups : array-like of shape (n,)
        As :func:`disparity_pairs` (``y`` may be None for ``"urf"``).
    metric : {"xauc", "prf", "urf"}, default="xauc"
    high_score : {"favourable", "harmful"}, default="favourable"
        What a high score does to a person.
    intervals : MetricIntervals, optional
        :func:`confidence_intervals` of the same data: the pair's interval is cited.

    Returns
    -------
    Disadvantage
        The group disadvantaged, the pair and the values compared, and ``text``: a
        sentence saying so.

    Raises
    ------
    ValueError
        As :func:`disparity_pairs`, or on an unknown ``high_score``.

    Examples
    --------
    >>> s, y, grp = [6, 5, 4, 3, 2, 1], [1, 0, 0, 1, 1, 0], ["a", "b", "a", "b", "a", "b"]
    >>> found = disadvantaged_group(s, y, grp)   # xAUC(a, b) = 3/4 > xAUC(b, a) = 0
    >>> found.group, found.value, found.reverse
    ('b', 0.0, 0.75)
    >>> disadvantaged_group(s, y, grp, high_score="harmful").group
    'a'
    """
    metric = params.check("metric", metric)
    high_score = params.check("high_score", high_score)
    pairs = disparity_pairs(scores, y, groups, metric)
    g, h = _largest(pairs)
    if metric == "xauc":
        v_g, v_h = xauc(scores, y, groups, g, h), xauc(scores, y, groups, h, g)
    elif metric == "prf":
        v_g, v_h = prf(scores, y, groups, g), prf(scores, y, groups, h)
    else:
        v_g, v_h = _urf_sides(scores, groups, g, h)
    interval = None
    if intervals is not None:
        if not isinstance(intervals, MetricIntervals) or (g, h) not in \
                intervals.disparity_pairs[metric]:
            raise ValueError(MSG_INTERVALS.format(what=type(intervals).__name__))
        interval = intervals.disparity_pairs[metric][g, h]
    if v_g == v_h:
        group = other = None
        value, reverse = v_g, v_h
    else:
        higher, lower = (g, h) if v_g > v_h else (h, g)
        group, other = (lower, higher) if high_score == "favourable" else (higher, lower)
        value, reverse = (v_g, v_h) if group == g else (v_h, v_g)
    text = _sentence(metric, high_score, (g, h), group, other, value, reverse)
    if interval is not None:
        text += (f"; {intervals.level:.0%} interval of their {_NAMES[metric]}: "
                 f"[{interval.low:.3f}, {interval.high:.3f}]")
        if interval.low == 0 and group is not None:
            text += ", which holds 0: at this level the data do not say which group it is"
    return Disadvantage(metric=metric, high_score=high_score, pair=(g, h), group=group,
                        other=other, value=value, reverse=reverse,
                        disparity=pairs[g, h], interval=interval, text=text)


def _urf_sides(scores, groups, g, h):
    """``P(S^g > S^h)`` and ``P(S^h > S^g)`` (ties 1/2) from the doubled pair count
    that :func:`urf` takes the absolute difference of."""
    s, _, labels, index, _ = grouped(scores, None, groups)
    upper = s[index == group_position(labels, g)]
    lower = s[index == group_position(labels, h)]
    pairs2 = 2 * upper.size * lower.size
    wins2 = half_wins2(upper, lower)
    return wins2 / pairs2, (pairs2 - wins2) / pairs2


def _numbers(a, b):
    """``a`` and ``b`` with 3 decimals, or as many more (up to 6) as tell them apart."""
    for digits in range(3, 7):
        x, y = f"{a:.{digits}f}", f"{b:.{digits}f}"
        if x != y:
            return x, y
    return x, y


def _sentence(metric, high_score, pair, group, other, value, reverse):
    g, h = pair
    if group is None:
        shown = f"{value:.3f}"
        equal = {"xauc": f"xAUC({g}, {h}) = xAUC({h}, {g}) = {shown}",
                 "prf": f"PRF({g}) = PRF({h}) = {shown}",
                 "urf": f"P(S^{g} > S^{h}) = P(S^{h} > S^{g}) = {shown}"}[metric]
        return f"{equal}: by {_NAMES[metric]} neither group is disadvantaged"
    v, r = _numbers(value, reverse)
    favourable = high_score == "favourable"
    if metric == "xauc" and favourable:  # value < reverse
        fact = (f"positives of group '{group}' are ranked below negatives of '{other}' "
                f"more often than the reverse: xAUC({group}, {other}) = {v} < "
                f"xAUC({other}, {group}) = {r}")
    elif metric == "xauc":  # value > reverse: P(S_0^group > S_1^other) = 1 - reverse
        v, r = _numbers(1 - reverse, 1 - value)
        fact = (f"negatives of group '{group}' are ranked above positives of '{other}' "
                f"more often than the reverse: 1 - xAUC({other}, {group}) = {v} > "
                f"1 - xAUC({group}, {other}) = {r}")
    elif metric == "prf":
        fact = (f"positives of group '{group}' are ranked above the negatives of all "
                f"groups {'less' if favourable else 'more'} often than positives of "
                f"'{other}': PRF({group}) = {v} {'<' if favourable else '>'} "
                f"PRF({other}) = {r}")
    else:
        fact = (f"members of group '{group}' are ranked {'below' if favourable else 'above'}"
                f" members of '{other}' more often than the reverse: P(S^{group} > "
                f"S^{other}) = {v} {'<' if favourable else '>'} P(S^{other} > "
                f"S^{group}) = {r}")
    return (f"{fact}; with high scores {high_score}, that disadvantages '{group}'")
