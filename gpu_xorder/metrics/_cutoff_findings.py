"""Findings of a decision at a cut-off (:func:`gpu_xorder.metrics.decision_rates`): the
rates' largest gaps and the selection-rate ratio judged by the rule of
:mod:`._findings`."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from ..utils import _params as params
from ._decisions import RATES, DecisionRates, _share, newcombe
from ._findings import (
    DEFAULT_DELTA,
    FOUR_FIFTHS,
    _finding,
    _judge,
    check_decision,
    check_delta,
)
from ._uncertainty import Interval
from ._wording import interval_text, mark, numbers, percent, reading

__all__ = ["decision_findings", "lowest_selected"]


def decision_findings(rates: DecisionRates, *, high_score: str,
                      delta: float = DEFAULT_DELTA, decision: str | None = None,
                      score: str | None = None) -> list:
    """The findings of a decision at a cut-off: one per rate and the selection-rate
    ratio beside the four-fifths rule.

    Per rate, the pair of groups with the largest gap (the highest and the lowest
    rate) is judged by Newcombe's interval of its difference at the family-wise level
    (Bonferroni over the pairs); parity within ``delta`` needs the interval of the
    largest gap (``rates.difference``, every pair at that level) inside
    ``[0, delta)``. The group disadvantaged: with ``high_score="favourable"`` (being
    selected is good) the one with the lower selection rate, TPR or FPR; with
    ``"harmful"`` the higher. The precision has no direction: its verdict is
    ``"disadvantages"`` never, only ``"parity"`` or ``"inconclusive"``. The ratio
    (smallest over largest, Katz's interval at the same level): ``"disadvantages"``
    when the whole interval is below ``FOUR_FIFTHS``, ``"parity"`` (the rule met)
    when the whole interval is at or above it.

    Parameters
    ----------
    rates : DecisionRates
        :func:`gpu_xorder.metrics.decision_rates` of the score column.
    high_score : {"favourable", "harmful"}
        What being selected does to a person.
    delta : float, default=DEFAULT_DELTA
        The equivalence margin of a rate's ``"parity"``.
    decision : str, optional
        What being selected means (``"detention"``), named in the text.
    score : str, optional
        The score column's name.

    Returns
    -------
    list of Finding
        One per rate with a defined gap (``RATES`` order), then the ratio's.

    Raises
    ------
    ValueError
        On an unknown ``high_score``, ``delta`` out of (0, 1) or a blank
        ``decision``.
    TypeError
        On a ``decision`` that is not text.

    Examples
    --------
    >>> from gpu_xorder.metrics import decision_rates
    >>> s = np.r_[np.linspace(0, 1, 100), np.linspace(0, 1, 100) - 0.5]
    >>> grp, y = np.repeat(["a", "b"], 100), np.tile([0, 1], 100)
    >>> found = decision_findings(decision_rates(y, s, sensitive_features=grp, threshold=0.5),
    ...                           high_score="favourable", decision="a loan")
    >>> found[0].verdict, found[0].group
    ('disadvantages', 'b')
    """
    high_score = params.check("high_score", high_score)
    delta = check_delta(delta)
    decision = check_decision(decision)
    groups = list(rates.groups)
    n_pairs = len(groups) * (len(groups) - 1) // 2
    z = NormalDist().inv_cdf(1 - (1 - rates.level) / (2 * n_pairs))
    found = []
    for rate in RATES:
        shares = {g: _share(rates.counts[g], rate) for g in groups}
        if rates.difference[rate] is None or not all(shares.values()):
            continue
        p = {g: x / n for g, (x, n) in shares.items()}
        low = min(groups, key=lambda g: p[g])
        high = max(groups, key=lambda g: p[g])
        pair = (low, high) if groups.index(low) < groups.index(high) else (high, low)
        signed = newcombe(shares[pair[0]], shares[pair[1]], z)
        found.append(_judge(
            measure=rate, score=score, high_score=high_score, pair=pair,
            sides=(p[pair[0]], p[pair[1]]), signed=signed,
            every=rates.difference[rate], family_level=rates.level, pairs=n_pairs,
            delta=delta, decision=decision, base_rates=None,
            lower_is_disadvantaged=high_score == "favourable",
            directed=rate != "precision"))
    ratio = rates.ratio["selection_rate"]
    if ratio is not None:
        found.append(_ratio_finding(rates, ratio, n_pairs, high_score, decision, score))
    return found


def _ratio_finding(rates, ratio, n_pairs, high_score, decision, score):
    p = {g: rates.by_group["selection_rate"][g].estimate for g in rates.groups}
    low = min(rates.groups, key=lambda g: p[g])
    high = max(rates.groups, key=lambda g: p[g])
    estimable = not (math.isnan(ratio.low) or math.isnan(ratio.high))
    verdict = "inconclusive"
    if estimable and ratio.high < FOUR_FIFTHS and p[low] < p[high]:
        verdict = "disadvantages"
    elif estimable and ratio.low >= FOUR_FIFTHS:
        verdict = "parity"
    group, other = ((low, high) if high_score == "favourable" else (high, low))
    level = 1 - (1 - rates.level) / n_pairs
    at = (f"{percent(rates.level)} interval" if n_pairs == 1 else
          f"interval at {percent(level)}, Bonferroni over {n_pairs} pairs "
          f"({percent(rates.level)} family-wise)")
    rule = (f"the smallest selection-rate ratio (lowest over highest rate), Katz's {at}: "
            f"'disadvantages' when the whole interval is below the four-fifths rule "
            f"({FOUR_FIFTHS:g}), 'parity' (the rule met) when it is at or above "
            f"{FOUR_FIFTHS:g}, else 'inconclusive'")
    x, y = numbers(p[low], p[high])
    rates_text = f"'{mark(low)}' {x} over '{mark(high)}' {y}"
    interval = Interval(ratio.estimate, ratio.low, ratio.high) if estimable else None
    shown = f"{ratio.estimate:.3f} {interval_text(interval)}" if estimable else (
        f"{ratio.estimate:.3f} (no interval: a count is 0)")
    head = f"selection-rate ratio {shown} ({at}; {rates_text})"
    what = reading(high_score, decision)
    if verdict == "disadvantages":
        text = (f"disadvantages '{mark(group)}' (against '{mark(other)}'): {head} is below "
                f"the four-fifths rule ({FOUR_FIFTHS:g}) over its whole interval ({what})")
    elif verdict == "parity":
        text = (f"parity by the four-fifths rule: {head} is at or above {FOUR_FIFTHS:g} "
                f"over its whole interval")
    else:
        text = (f"inconclusive: {head}; its interval "
                f"{'is not defined' if not estimable else f'holds {FOUR_FIFTHS:g}'}, so "
                f"the four-fifths rule is neither met nor failed at this level ({what})")
    headline = {"disadvantages": f"disadvantages '{mark(group)}' against '{mark(other)}': "
                                 f"below four-fifths over the whole interval",
                "parity": "the four-fifths rule met over the whole interval",
                "inconclusive": ("no interval" if not estimable else
                                 f"inconclusive: the interval holds {FOUR_FIFTHS:g}")}
    headline = f"{shown}, {rates_text}: {headline[verdict]}"
    if verdict != "disadvantages" or p[low] == p[high]:
        group = other = None
    return _finding(headline=headline, measure="selection_rate_ratio", score=score,
                    high_score=high_score, pair=(low, high), group=group, other=other,
                    value=p[low], reverse=p[high], estimate=ratio.estimate, interval=interval,
                   level=level, family_level=rates.level, pairs=n_pairs, rule=rule,
                   delta=None, verdict=verdict, decision=decision, base_rates=None,
                   text=text)


def lowest_selected(scores, rates):
    """The lowest score the decision ``rates`` selects (in part, under a top-k tie):
    with a threshold the lowest score at or above it, not the threshold; None where
    nothing is selected."""
    scores = np.asarray(scores, dtype=np.float64)
    chosen = scores[scores >= rates.cut]
    return None if chosen.size == 0 else float(chosen.min())
