"""Findings: every sentence the library prints about groups, made by one decision rule
on an interval at the level actually used.

A :class:`Finding` is about one measure of one score column: the pair of groups with
the largest gap, its estimate, the interval of its signed difference and a verdict
among three:

``"disadvantages"``
    The interval excludes 0 (and the estimate lies on the same side): the data say
    which group of the pair the ranking (or the decision) puts at a disadvantage,
    given what a high score does to a person (``high_score``).
``"parity"``
    Parity within ``delta`` (equivalence): the interval of every pair's gap lies
    strictly inside ``(-delta, delta)``, so no pair differs by ``delta`` or more.
``"inconclusive"``
    Neither: the data do not say whether there is a gap or which way it goes.

The worst of ``P`` pairs is picked by the data, so it is judged at the family-wise
level (Bonferroni): its interval is taken at ``1 - (1 - level) / P``, as are the
intervals of every pair that parity needs. Under no gap at all the chance that a
``"disadvantages"`` verdict is given is then at most ``1 - level`` (up to the
intervals' own approximation). A value is never named larger than another when the
printed values are equal: values are printed with as many digits as tell them apart,
or said to be equal.

At a cut-off (:func:`gpu_xorder.metrics.decision_findings`) the same rule reads the
rates of a decision (:func:`gpu_xorder.metrics.decision_rates`): the largest gap of each
rate, the extreme pair's Newcombe interval at the family-wise level, and the selection-rate
ratio with its interval beside the four-fifths rule.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..utils import _params as params
from ..utils import _validation
from ..utils._metrics import METRICS
from ..utils._validation import group_position
from ._counts import grouped
from ._ranking import check_order, disparity_pairs, prf, xauc
from ._uncertainty import Interval, MetricIntervals
from ._wording import (
    CLOSE,
    OPEN,
    below,
    interval_text,
    limit,
    mark,
    numbers,
    percent,
    reading,
    rule_text,
    unmark,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["Finding", "ranking_finding", "check_delta", "DEFAULT_DELTA", "FOUR_FIFTHS"]

#: Parity within this gap is the default equivalence margin: a difference of 0.05 in
#: xAUC, PRF, URF (a probability) or in a rate. Set ``delta`` (``--delta``) to change it.
DEFAULT_DELTA = _validation.DEFAULT_DELTA
#: The four-fifths rule: a selection-rate ratio (smallest over largest) below 0.8.
FOUR_FIFTHS = 0.8
VERDICTS = ("disadvantages", "parity", "inconclusive")
MEASURE_NAMES = {**{name: m.display for name, m in METRICS.items()},
                 "selection_rate": "selection rate", "tpr": "TPR", "fpr": "FPR",
                 "precision": "precision",
                 "selection_rate_ratio": "selection-rate ratio"}
MSG_INTERVALS = ("intervals must be the MetricIntervals of the same groups, got "
                 "{what}")
MSG_DELTA = "delta must be a number in (0, 1), got {value!r}"
#: Disparities of two pairs this many ulps apart are one value: an exact tie (1/3 as
#: 4/12 and as 2/6) can round to neighbouring floats.
TIE_ULPS = 8


@dataclass(frozen=True)
class Finding:
    """One finding: a measure's largest gap between two groups, judged by a stated rule.

    Attributes
    ----------
    measure : str
        ``"xauc"``, ``"prf"``, ``"urf"`` (ranking), a rate of a decision
        (``"selection_rate"``, ``"tpr"``, ``"fpr"``, ``"precision"``) or
        ``"selection_rate_ratio"``.
    score : str or None
        The score column it is about, where named.
    high_score : {"favourable", "harmful"}
        What a high score (being selected) does to a person.
    pair : (group label, group label)
        The pair with the largest gap (sorted label order for a ranking measure).
    group, other : group label or None
        The group the estimate puts at a disadvantage and the other one (``pair``'s
        order and None when the estimates are equal). Only a ``"disadvantages"``
        verdict says the data establish it.
    value, reverse : float
        The measure for ``group`` and ``other`` (``pair[0]`` and ``pair[1]`` when
        neither): ``xauc(group, other)`` and ``xauc(other, group)``, ``prf`` or the
        rates, or ``P(S^group > S^other)`` and the reverse for URF.
    estimate : float
        The pair's gap ``|value - reverse|`` (the ratio for the ratio finding).
    interval : Interval or None
        The interval of the signed difference ``value - reverse`` (of the ratio) at
        ``level``; None where it is not defined.
    level : float or None
        The level the verdict used: the family-wise pair level
        ``1 - (1 - family_level) / pairs`` (Bonferroni).
    family_level : float or None
        The stated level (``--ci``).
    pairs : int
        The number of pairs of groups the worst was picked from.
    rule : str
        The decision rule in words.
    delta : float or None
        The equivalence margin of ``"parity"``.
    verdict : {"disadvantages", "parity", "inconclusive"}
    decision : str or None
        What being selected (ranked high) means (``"detention"``), named in ``text``.
    base_rates : dict or None
        ``{group: share of positives}`` of the pair (URF and PRF), which a label-free
        measure cannot tell from a disadvantage.
    text : str
        The finding in one sentence.
    headline : str
        The verdict and its numbers in a few words (the report's findings box).
    marked, marked_headline : str
        ``text`` and ``headline`` with every label between marks, for :meth:`html`.
    """

    measure: str
    score: str | None
    high_score: str
    pair: tuple
    group: object
    other: object
    value: float
    reverse: float
    estimate: float
    interval: Interval | None
    level: float | None
    family_level: float | None
    pairs: int
    rule: str
    delta: float | None
    verdict: str
    decision: str | None
    base_rates: dict | None
    text: str
    headline: str
    marked: str = field(default="", repr=False, compare=False)
    marked_headline: str = field(default="", repr=False, compare=False)

    def html(self, headline: bool = False) -> str:
        """``text`` (or ``headline``) as HTML: escaped, every group label and the
        decision's words in ``<bdi>``, so that a right-to-left or control character
        in a label cannot reorder the numbers after it.

        Parameters
        ----------
        headline : bool, default=False
            The headline instead of the sentence.

        Returns
        -------
        str
            Markup safe to put in a page.
        """
        import html

        text = html.escape(self.marked_headline if headline else self.marked)
        return text.replace(OPEN, "<bdi>").replace(CLOSE, "</bdi>")

    @property
    def disparity(self) -> float:
        """The pair's gap, ``estimate`` (the name :func:`disadvantaged_group` used)."""
        return self.estimate

    def to_dict(self) -> dict:
        """The finding as JSON types: labels as text, the interval as ``[low, high]``.

        Returns
        -------
        dict
            One key per field, among them ``verdict``, ``rule``, ``level`` and
            ``delta``.
        """
        return {"measure": self.measure, "score": self.score,
                "high_score": self.high_score, "pair": [str(g) for g in self.pair],
                "group": _label(self.group), "other": _label(self.other),
                "value": self.value, "reverse": self.reverse, "estimate": self.estimate,
                "interval": (None if self.interval is None
                             else [self.interval.low, self.interval.high]),
                "level": self.level, "family_level": self.family_level,
                "pairs": self.pairs, "rule": self.rule, "delta": self.delta,
                "verdict": self.verdict, "decision": self.decision,
                "base_rates": (None if self.base_rates is None else
                               {str(g): v for g, v in self.base_rates.items()}),
                "text": self.text, "headline": self.headline}


def _label(label):
    return None if label is None else str(label)


def _finding(**fields):
    """A Finding from marked ``text`` and ``headline``."""
    text, headline = fields.pop("text"), fields.pop("headline")
    return Finding(text=unmark(text), headline=unmark(headline), marked=text,
                   marked_headline=headline, **fields)


MSG_DECISION_TYPE = "decision must be text or None, got {type}"
MSG_DECISION_BLANK = ("decision is blank ({value!r}): name what a high score leads to "
                      "('detention', 'a loan') or leave it out")


def check_decision(decision):
    """``decision`` (the words of what a high score leads to) when it is None or text
    with something to show; a ``TypeError`` when it is not text, a ``ValueError`` when
    it is blank (it would read "leads to    , which ...")."""
    if decision is None:
        return None
    if not isinstance(decision, str):
        raise TypeError(MSG_DECISION_TYPE.format(type=type(decision).__name__))
    if not decision.strip():
        raise ValueError(MSG_DECISION_BLANK.format(value=decision))
    return decision


def check_delta(delta):
    """``delta`` as a float in (0, 1); a ValueError naming it otherwise."""
    if isinstance(delta, (bool, np.bool_)) or not isinstance(delta, (int, float,
                                                                     np.number)):
        raise TypeError(MSG_DELTA.format(value=delta))
    delta = float(delta)
    if not 0.0 < delta < 1.0:
        raise ValueError(MSG_DELTA.format(value=delta))
    return delta


# ---------------------------------------------------------------- ranking measures

def _largest(pairs):
    """The first pair (sorted label order) of the largest disparity, exact ties found
    through their rounding (``TIE_ULPS``)."""
    top = max(pairs.values())
    return next(p for p, v in pairs.items() if v >= top - TIE_ULPS * np.spacing(top))


def _urf_sides(scores, groups, g, h):
    """``P(S^g > S^h)`` and ``P(S^h > S^g)`` (ties 1/2)."""
    from cpu_reference import half_wins2  # on first use: the CLI's parser imports this

    s, _, labels, index, _ = grouped(scores, None, groups)
    upper = s[index == group_position(labels, g)]
    lower = s[index == group_position(labels, h)]
    pairs2 = 2 * upper.size * lower.size
    wins2 = half_wins2(upper, lower)
    return wins2 / pairs2, (pairs2 - wins2) / pairs2


def _sides(scores, y, groups, measure, g, h):
    if measure == "xauc":
        return (xauc(y, scores, sensitive_features=groups, g=g, h=h),
                xauc(y, scores, sensitive_features=groups, g=h, h=g))
    if measure == "prf":
        return (prf(y, scores, sensitive_features=groups, g=g),
                prf(y, scores, sensitive_features=groups, g=h))
    return _urf_sides(scores, groups, g, h)


def _base_rates(y, groups, pair):
    if y is None:
        return None
    _, y, labels, index, _ = grouped(np.zeros(len(y)), y, groups)
    return {g: float(y[index == group_position(labels, g)].mean()) for g in pair}


def ranking_finding(y_true: ArrayLike | None, y_score: ArrayLike, *,
                    sensitive_features: ArrayLike, measure: str = "xauc", high_score: str,
                    intervals: MetricIntervals | None = None, level: float = 0.95,
                    delta: float = DEFAULT_DELTA, decision: str | None = None,
                    score: str | None = None) -> Finding:
    """The finding of one ranking measure: its worst pair of groups, judged.

    Parameters
    ----------
    y_true, y_score, sensitive_features : array-like of shape (n,)
        As :func:`gpu_xorder.metrics.disparity_pairs` (``y_true`` may be None for
        ``"urf"``, whose verdict is then ``"inconclusive"``: no interval).
    measure : {"xauc", "prf", "urf"}, default="xauc"
    high_score : {"favourable", "harmful"}
        What a high score does to a person (required: it decides which group is
        disadvantaged).
    intervals : MetricIntervals, optional
        :func:`gpu_xorder.metrics.confidence_intervals` of the same data; without
        them DeLong's at ``level`` are computed.
    level : float or None, default=0.95
        The family-wise level when ``intervals`` are not given (theirs otherwise);
        None with no ``intervals``: no interval, so the verdict is ``"inconclusive"``.
    delta : float, default=DEFAULT_DELTA
        The equivalence margin of ``"parity"``.
    decision : str, optional
        What a high score leads to (``"detention"``, ``"a loan"``), named in the text.
    score : str, optional
        The score column's name, kept in the finding.

    Returns
    -------
    Finding
        The pair with the largest gap, its values, the interval at the level used,
        the verdict, the rule and the sentence.

    Raises
    ------
    TypeError
        If ``y_true`` is recognisably scores (given first, in the earlier order), or
        ``decision`` is not text.
    ValueError
        As :func:`gpu_xorder.metrics.disparity_pairs`, on an unknown ``high_score``,
        ``delta`` out of (0, 1), a blank ``decision`` or ``intervals`` of other groups.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> grp = np.repeat(["a", "b"], 200)
    >>> y = rng.integers(0, 2, 400)
    >>> s = y + rng.normal(0, 1, 400) - (grp == "b")
    >>> found = ranking_finding(y, s, sensitive_features=grp, high_score="favourable")
    >>> found.verdict, found.group
    ('disadvantages', 'b')
    """
    check_order("ranking_finding", y_true, y_score)
    y, scores, groups = y_true, y_score, sensitive_features
    measure = params.check("metric", measure)
    high_score = params.check("high_score", high_score)
    delta = check_delta(delta)
    decision = check_decision(decision)
    pairs = disparity_pairs(y, scores, sensitive_features=groups, metric=measure)
    g, h = _largest(pairs)
    v_g, v_h = _sides(scores, y, groups, measure, g, h)
    if intervals is None and y is not None and level is not None:
        from ._confidence import confidence_intervals

        try:
            intervals = confidence_intervals(y, scores, sensitive_features=groups,
                                             level=level, method="delong")
        except ValueError:
            intervals = None
    signed = joint = None
    family_level = None
    if intervals is not None:
        if not isinstance(intervals, MetricIntervals) or (g, h) not in \
                intervals.disparity_pairs[measure]:
            raise ValueError(MSG_INTERVALS.format(what=type(intervals).__name__))
        family_level = intervals.level
        signed = intervals.signed_pairs_joint[measure][g, h]
        joint = intervals.disparity[measure]
    n_pairs = len(pairs)
    base = _base_rates(y, groups, (g, h)) if measure in ("urf", "prf") else None
    return _judge(measure=measure, score=score, high_score=high_score, pair=(g, h),
                  sides=(v_g, v_h), signed=signed, every=joint, family_level=family_level,
                  pairs=n_pairs, delta=delta, decision=decision, base_rates=base,
                  lower_is_disadvantaged=high_score == "favourable")


def _judge(*, measure, score, high_score, pair, sides, signed, every, family_level,
           pairs, delta, decision, base_rates, lower_is_disadvantaged, directed=True):
    """The verdict and sentence of a pair's two sides ``(v_g, v_h)``, the signed
    interval of ``v_g - v_h`` at the family-wise pair level and the interval of
    every pair's gap at once (``every``, for parity)."""
    g, h = pair
    v_g, v_h = sides
    level = None if family_level is None else 1 - (1 - family_level) / pairs
    rule = ("no interval: no verdict" if family_level is None else
            rule_text(family_level, pairs, delta))
    verdict = "inconclusive"
    if signed is not None and not signed.low < signed.high:
        signed = None  # a variance of 0 (every score tied, say): no evidence either way
    if signed is not None and directed:
        d = v_g - v_h
        if (signed.low > 0 and d > 0) or (signed.high < 0 and d < 0):
            verdict = "disadvantages"
    if verdict == "inconclusive" and every is not None and every.high < delta \
            and signed is not None:
        verdict = "parity"
    if v_g == v_h or not directed:
        group, other, value, reverse = None, None, v_g, v_h
    else:
        higher, lower = (g, h) if v_g > v_h else (h, g)
        group, other = (lower, higher) if lower_is_disadvantaged else (higher, lower)
        value, reverse = (v_g, v_h) if group == g else (v_h, v_g)
    oriented = signed
    if signed is not None and group is not None and group != g:
        oriented = Interval(-signed.estimate, -signed.high, -signed.low)
    finding = dict(measure=measure, score=score, high_score=high_score, pair=pair,
                   group=group, other=other, value=float(value), reverse=float(reverse),
                   estimate=float(abs(v_g - v_h)), interval=oriented, level=level,
                   family_level=family_level, pairs=pairs, rule=rule, delta=delta,
                   verdict=verdict, decision=decision, base_rates=base_rates)
    return _finding(text=_sentence(finding, every), headline=_headline(finding, every),
                    **finding)


def _headline(f, every):
    """The verdict and its numbers in a few words."""
    p, q = mark(f["pair"][0]), mark(f["pair"][1])
    at = ("" if f["level"] is None else
          f" at {percent(f['level'])}" + (f" (Bonferroni over {f['pairs']} pairs)"
                                          if f["pairs"] > 1 else ""))
    rates = ""
    if f["base_rates"]:
        rates = "; base rates " + ", ".join(f"'{mark(k)}' {v:.3f}"
                                             for k, v in f["base_rates"].items())
    if f["verdict"] == "disadvantages":
        low, high = sorted((abs(f["interval"].low), abs(f["interval"].high)))
        return (f"disadvantages '{mark(f['group'])}' against '{mark(f['other'])}': gap "
                f"{limit(f['estimate'])} [{limit(low)}, {limit(high)}]{at}{rates}")
    if f["verdict"] == "parity":
        return (f"parity within {f['delta']:g}: every pair's gap in "
                f"{below(every, f['delta'])} ({percent(f['family_level'])} family-wise)"
                f"{rates}")
    why = ("no interval" if f["interval"] is None else
           f"interval of the difference {interval_text(f['interval'])}{at} holds 0")
    return (f"inconclusive: largest gap {limit(f['estimate'])}, '{p}' and '{q}'; "
            f"{why}{rates}")


def _sides_text(f):
    """The two sides of the finding's pair in symbols, with a direction only where the
    printed values differ."""
    m, g, h = f["measure"], f["pair"][0], f["pair"][1]
    if f["group"] is not None:
        g, h = f["group"], f["other"]
    g, h = mark(g), mark(h)
    a, b = f["value"], f["reverse"]
    name = {"xauc": lambda p, q: f"xAUC({p}, {q})", "prf": lambda p, q: f"PRF({p})",
            "urf": lambda p, q: f"P(S^{p} > S^{q})"}.get(
        m, lambda p, q: f"{MEASURE_NAMES[m]}({p})")
    x, y = numbers(a, b)
    if x == y:
        return f"{name(g, h)} = {name(h, g)} = {x}"
    sign = "<" if a < b else ">"
    return f"{name(g, h)} = {x} {sign} {name(h, g)} = {y}"


def _sentence(f, every):
    """The finding's sentence: the verdict first, then the numbers and the rule."""
    m, g, h = f["measure"], mark(f["group"]), mark(f["other"])
    p, q = mark(f["pair"][0]), mark(f["pair"][1])
    ranking = m in METRICS
    if f["level"] is None:
        ci = f"gap {limit(f['estimate'])}; no interval was computed, so no verdict"
    else:
        what = "interval" if f["pairs"] == 1 else (
            f"interval at {percent(f['level'])}, Bonferroni over {f['pairs']} pairs "
            f"({percent(f['family_level'])} family-wise)")
        ci = (f"gap {limit(f['estimate'])}, {percent(f['family_level'])} "
              if f["pairs"] == 1 else f"gap {limit(f['estimate'])}, ")
        ci = (f"{ci}{what} of the difference "
              f"{interval_text(f['interval'])}" if f["interval"] is not None else
              f"gap {limit(f['estimate'])}; the pair's interval is not defined or has "
              "no width (a sample too small or all tied), so no verdict")
    reading_text = reading(f["high_score"], f["decision"])
    rates = ""
    if f["base_rates"]:
        shares = ", ".join(f"'{mark(k)}' {v:.3f}" for k, v in f["base_rates"].items())
        rates = (f"; base rates (share positive) {shares}: URF ignores the labels, so "
                 f"a gap in base rates alone makes a gap in URF" if m == "urf" else
                 f"; base rates (share positive) {shares}")
    if f["verdict"] == "disadvantages":
        fact = _fact(f) if ranking else _sides_text(f)
        return (f"disadvantages '{g}' (against '{h}'): {fact}; {ci}, which excludes 0 "
                f"({reading_text}){rates}")
    if f["verdict"] == "parity":
        return (f"parity within {f['delta']:g}: every pair's gap lies in "
                f"{below(every, f['delta'])} ({percent(f['family_level'])} family-wise), "
                f"inside +-{f['delta']:g}; the largest is between '{p}' and '{q}', "
                f"{_sides_text(f)}{rates}")
    holds = ("" if f["level"] is None or f["interval"] is None else
             ", which holds 0" + ("" if every is None else
                                  f" and is not within +-{f['delta']:g}"))
    says = ("which group it is" if m != "precision" else
            "whether the precision differs (a gap in it names no group)")
    return (f"inconclusive: the largest gap is between '{p}' and '{q}', "
            f"{_sides_text(f)}; {ci}{holds}: at this level the data do not say {says} "
            f"({reading_text}){rates}")


def _fact(f):
    """What the disadvantage is, for a ranking measure."""
    m, g, h = f["measure"], mark(f["group"]), mark(f["other"])
    favourable = f["high_score"] == "favourable"
    if m == "xauc" and favourable:
        return (f"positives of '{g}' are ranked below negatives of '{h}' more often "
                f"than the reverse, {_sides_text(f)}")
    if m == "xauc":  # P(S_0^g > S_1^h) = 1 - xauc(h, g)
        v, r = numbers(1 - f["reverse"], 1 - f["value"])
        return (f"negatives of '{g}' are ranked above positives of '{h}' more often "
                f"than the reverse, 1 - xAUC({h}, {g}) = {v} > 1 - xAUC({g}, {h}) = {r}")
    if m == "prf":
        return (f"positives of '{g}' are ranked above the negatives of all groups "
                f"{'less' if favourable else 'more'} often than positives of '{h}', "
                f"{_sides_text(f)}")
    return (f"members of '{g}' are ranked {'below' if favourable else 'above'} members "
            f"of '{h}' more often than the reverse, {_sides_text(f)}")
