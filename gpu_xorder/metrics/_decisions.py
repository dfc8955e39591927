"""Decisions at a cut-off: who a score selects, group by group.

A score usually feeds a decision (who is detained, who gets a loan): the items scoring
at or above a threshold, or the top k, are selected. :func:`decision_rates` gives per
group the selection rate, the true and false positive rates and the precision of that
decision, each with a Wilson score interval, and their differences (Newcombe's hybrid
score interval) and ratios (Katz's log interval) between groups.

Ties at the cut. With a threshold t an item is selected when its score is ``>= t``, so
ties at t are all selected. With the top k (or the top share q, ``k = q n``) the items
above the k-th highest score are selected and the items tied at it share the places
left: each is selected with weight ``(k - above) / tied``, the expected decision of a
random tie-break. The counts (selected, true and false positives) are then sums of
weights, and exactly k items are selected in all.

The places of a share. ``q n`` is computed in floating point, where a share written as
a decimal is rarely exact (``0.28 * 25`` is ``7.000000000000001``, which would select a
sliver of an 8th item): a product within ``PLACES_TOLERANCE`` (relative, 1e-9) of a
whole number is that whole number (:func:`share_places`). Other products keep their
fraction: ``0.3`` of 25 is 7.5 places, the items tied at the cut or the 8th item
sharing the half place.

The intervals treat each group's counts as binomial (as fairlearn's users read them);
under a top-k rule the groups' selections are not independent, since k is fixed, and
the intervals are approximate. The difference and the ratio of more than two groups
(the largest gap, the smallest ratio over pairs) take the pairs' intervals at the
Bonferroni level ``1 - (1 - level) / pairs``, as :func:`confidence_intervals` does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING

import numpy as np

from ..utils import _params as params
from ..utils._validation import as_real, check_n_groups
from ._counts import grouped
from ._ranking import check_order
from ._uncertainty import Interval, absolute

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

#: The rates of a decision, in order, and what each is a share of.
RATES = ("selection_rate", "tpr", "fpr", "precision")
RATE_MEANINGS = {
    "selection_rate": "share of the group selected",
    "tpr": "share of the group's positives selected (true positive rate)",
    "fpr": "share of the group's negatives selected (false positive rate)",
    "precision": "share of the group's selected that are positive",
}

MSG_RULE = "give exactly one of threshold, top_k and top_share, got {given}"
MSG_THRESHOLD = "threshold must be a finite number, got {value!r}"
MSG_TOP_K = "top_k must be an integer from 1 to the number of items ({n}), got {value!r}"
MSG_TOP_SHARE = "top_share must be a number in (0, 1], got {value!r}"
#: A share's places ``q n`` within this relative distance of a whole number are that
#: number (floating-point error of a decimal share, never a real fraction of an item).
PLACES_TOLERANCE = 1e-9


@dataclass(frozen=True)
class DecisionRates:
    """The rates of a decision at a cut-off, per group, with intervals.

    Attributes
    ----------
    rule : str
        The decision in words (``"score >= 0.5"``, ``"top 100 of 1000"``).
    cut : float
        The lowest score selected: the threshold, or the k-th highest score.
    level : float
        Confidence level of every interval.
    groups : tuple
        Sorted group labels.
    counts : dict
        ``{g: {"n", "positives", "negatives", "selected", "true_positives",
        "false_positives"}}`` (selected counts are sums of weights under top-k ties).
    overall : dict
        ``{rate: Interval or None}`` over all items.
    by_group : dict
        ``{rate: {g: Interval or None}}``: Wilson score intervals; None where the group
        has no item the rate is a share of (no positives for the TPR, nothing selected
        for the precision).
    difference : dict
        ``{rate: Interval or None}``: the largest gap between two groups' rates
        (``max - min``) with Newcombe's interval; None where a group leaves the rate
        undefined.
    ratio : dict
        ``{rate: Interval or None}``: the smallest ratio of two groups' rates
        (``min / max``, 1: parity) with Katz's interval (NaN limits where a group's
        count is 0); None where every rate is 0 or a group leaves it undefined.
    """

    rule: str
    cut: float
    level: float
    groups: tuple
    counts: dict
    overall: dict
    by_group: dict
    difference: dict
    ratio: dict

    def to_dict(self) -> dict:
        """The rates as JSON-ready values.

        Returns
        -------
        dict
            Intervals as ``[estimate, low, high]``, None (JSON null) where undefined.
        """
        def iv(interval):
            if interval is None:
                return None
            return [None if math.isnan(v) else v for v in interval]

        return {"rule": self.rule, "cut": self.cut, "level": self.level,
                "counts": {str(g): c for g, c in self.counts.items()},
                "overall": {r: iv(self.overall[r]) for r in RATES},
                "by_group": {r: {str(g): iv(v) for g, v in self.by_group[r].items()}
                             for r in RATES},
                "difference": {r: iv(self.difference[r]) for r in RATES},
                "ratio": {r: iv(self.ratio[r]) for r in RATES}}


def decision_rates(y_true: ArrayLike, y_score: ArrayLike, *,
                   sensitive_features: ArrayLike, threshold: float | None = None,
                   top_k: int | None = None, top_share: float | None = None,
                   level: float = 0.95) -> DecisionRates:
    """Selection rate, TPR, FPR and precision per group of the decision a score makes.

    Parameters
    ----------
    y_true, y_score, sensitive_features : array-like of shape (n,)
        0/1 labels, finite scores (higher selected first) and the group of every item.
    threshold : float, optional
        Select every item scoring ``>= threshold`` (ties at it included).
    top_k : int, optional
        Select the k highest-scoring items; items tied at the k-th score share the
        places left (the expected decision of a random tie-break).
    top_share : float, optional
        Select the share ``top_share`` of the items (``top_share * n`` places, a whole
        number where the product is one up to floating-point error: see
        :func:`share_places`), ties as for ``top_k``.
    level : float, default=0.95
        Confidence level of the intervals.

    Returns
    -------
    DecisionRates
        The rule, the lowest score selected, the counts and every rate with its
        interval, per group, overall, and as differences and ratios between groups.

    Raises
    ------
    TypeError
        If ``y_true`` is recognisably scores (given first, in the earlier order).
    ValueError
        On invalid data, fewer than two groups, not exactly one rule, or a rule out of
        range.

    Examples
    --------
    >>> s = [0.9, 0.8, 0.3, 0.7, 0.2, 0.1]
    >>> y = [1, 0, 1, 1, 0, 0]
    >>> grp = ["a", "a", "a", "b", "b", "b"]
    >>> d = decision_rates(y, s, sensitive_features=grp, threshold=0.5)
    >>> [round(d.by_group["selection_rate"][g].estimate, 3) for g in ("a", "b")]
    [0.667, 0.333]
    >>> round(d.difference["selection_rate"].estimate, 3)
    0.333
    >>> d = decision_rates(y, s, sensitive_features=grp, top_k=1)
    >>> d.rule, d.counts["a"]["selected"]
    ('top 1 of 6', 1.0)
    """
    check_order("decision_rates", y_true, y_score)
    scores, y, labels, index, _ = grouped(y_score, y_true, sensitive_features)
    check_n_groups(labels)
    level = params.check("level", level)
    weight, rule, cut = selection(scores, threshold=threshold, top_k=top_k,
                                  top_share=top_share)
    names = [g.item() for g in labels]
    counts = {name: _counts(weight[index == k], y[index == k])
              for k, name in enumerate(names)}
    z = NormalDist().inv_cdf(0.5 + level / 2)
    n_pairs = len(names) * (len(names) - 1) // 2
    z_joint = NormalDist().inv_cdf(1 - (1 - level) / (2 * n_pairs))
    by_group, difference, ratio = {}, {}, {}
    overall_counts = _counts(weight, y)
    overall = {}
    for rate in RATES:
        shares = {g: _share(c, rate) for g, c in counts.items()}
        by_group[rate] = {g: wilson(*share, z) if share else None
                          for g, share in shares.items()}
        share = _share(overall_counts, rate)
        overall[rate] = wilson(*share, z) if share else None
        defined = list(shares.values())
        if all(defined):
            pairs = [(defined[i], defined[j]) for i in range(len(defined))
                     for j in range(i + 1, len(defined))]
            difference[rate] = _largest_gap(pairs, z_joint)
            ratio[rate] = _smallest_ratio(pairs, z_joint)
        else:
            difference[rate] = ratio[rate] = None
    return DecisionRates(rule=rule, cut=cut, level=level, groups=tuple(names),
                         counts=counts, overall=overall, by_group=by_group,
                         difference=difference, ratio=ratio)


def selection(scores, *, threshold=None, top_k=None, top_share=None):
    """``(weight, rule, cut)``: how much each item is selected (0, 1, or a share for
    items tied at a top-k cut), the rule in words and the lowest score selected."""
    given = [name for name, value in (("threshold", threshold), ("top_k", top_k),
                                      ("top_share", top_share)) if value is not None]
    if len(given) != 1:
        raise ValueError(MSG_RULE.format(given=", ".join(given) or "none"))
    n = scores.size
    if threshold is not None:
        t = as_real(threshold, "threshold", MSG_THRESHOLD)
        if not math.isfinite(t):
            raise ValueError(MSG_THRESHOLD.format(value=threshold))
        return (scores >= t).astype(np.float64), f"score >= {t:g}", t
    if top_k is not None:
        if (isinstance(top_k, (bool, np.bool_)) or not isinstance(top_k, (int, np.integer))
                or not 1 <= top_k <= n):
            raise ValueError(MSG_TOP_K.format(n=n, value=top_k))
        places, rule = float(top_k), f"top {int(top_k)} of {n}"
    else:
        share = as_real(top_share, "top_share", MSG_TOP_SHARE)
        if not 0.0 < share <= 1.0:
            raise ValueError(MSG_TOP_SHARE.format(value=top_share))
        places = share_places(share, n)
        rule = f"top {share:.4g} of {n} ({places:g} places)"
    ranked = np.sort(scores)[::-1]
    cut = float(ranked[math.ceil(places) - 1])
    above = scores > cut
    tied = scores == cut
    weight = above.astype(np.float64)
    weight[tied] = (places - above.sum()) / tied.sum()
    return weight, rule, cut


def share_places(share, n):
    """The places the share ``share`` of ``n`` items selects: ``share * n``, or the
    whole number it is within ``PLACES_TOLERANCE`` (relative) of, so that a decimal
    share whose product with ``n`` is whole in exact arithmetic (``0.28`` of 25: 7, not
    ``7.000000000000001``) selects exactly that many items.

    Parameters
    ----------
    share : float
        In (0, 1].
    n : int
        Number of items.

    Returns
    -------
    float
        The places, at least the smallest positive product and at most ``n``.

    Examples
    --------
    >>> share_places(0.28, 25), share_places(0.3, 25)
    (7.0, 7.5)
    """
    places = share * n
    whole = round(places)
    if whole >= 1 and abs(places - whole) <= PLACES_TOLERANCE * whole:
        return float(whole)
    return min(places, float(n))


def _counts(weight, y):
    return {"n": int(y.size), "positives": int(y.sum()), "negatives": int(y.size - y.sum()),
            "selected": float(weight.sum()), "true_positives": float(weight[y == 1].sum()),
            "false_positives": float(weight[y == 0].sum())}


def _share(c, rate):
    """``(successes, trials)`` of ``rate`` in counts ``c``; None where there are no
    trials."""
    x, n = {"selection_rate": (c["selected"], c["n"]),
            "tpr": (c["true_positives"], c["positives"]),
            "fpr": (c["false_positives"], c["negatives"]),
            "precision": (c["true_positives"], c["selected"])}[rate]
    return (x, n) if n > 0 else None


def wilson(x, n, z):
    """Wilson's score interval of the proportion ``x / n`` (``x`` may be a sum of
    weights) at the normal quantile ``z``."""
    p = x / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(max(p * (1 - p), 0.0) / n + z2 / (4 * n * n))
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half))


def newcombe(a, b, z):
    """Newcombe's hybrid score interval (his method 10) of ``p_a - p_b`` from the two
    shares ``(x, n)``."""
    pa, la, ua = wilson(*a, z)
    pb, lb, ub = wilson(*b, z)
    d = pa - pb
    return Interval(d, d - math.sqrt((pa - la) ** 2 + (ub - pb) ** 2),
                    d + math.sqrt((ua - pa) ** 2 + (pb - lb) ** 2))


def katz(a, b, z):
    """Katz's log interval of ``p_a / p_b``; NaN limits where a count is 0."""
    (xa, na), (xb, nb) = a, b
    if xa <= 0 or xb <= 0:
        return Interval(math.nan if xb <= 0 else xa / na / (xb / nb), math.nan, math.nan)
    r = (xa / na) / (xb / nb)
    half = z * math.sqrt(max(1 / xa - 1 / na + 1 / xb - 1 / nb, 0.0))
    log_r = math.log(r)  # in logs: a count that is a sliver of a tied item makes
    return Interval(r, _exp(log_r - half), _exp(log_r + half))  # half huge


def _exp(x):
    """``exp(x)``, infinite where it overflows."""
    return math.inf if x > 700 else math.exp(x)


def _largest_gap(pairs, z):
    """The largest ``|p_a - p_b|`` over pairs, its interval from the pairs' Newcombe
    intervals carried to absolute values (``_uncertainty.absolute``)."""
    signed = [newcombe(a, b, z) for a, b in pairs]
    low, high = absolute([d.low for d in signed], [d.high for d in signed])
    return Interval(max(abs(d.estimate) for d in signed), float(low.max()),
                    float(high.max()))


def _smallest_ratio(pairs, z):
    """The smallest ``min(p_a, p_b) / max(p_a, p_b)`` over pairs whose rates are not
    both 0 (0 / 0 says nothing of a pair); None where every pair's are (every rate 0).
    Its interval: each such pair's Katz interval of ``p_a / p_b`` folded onto
    ``[0, 1]`` (``r`` and ``1 / r`` are the same ratio), then the smallest limits."""
    folded = []
    for a, b in pairs:
        pa, pb = a[0] / a[1], b[0] / b[1]
        if max(pa, pb) == 0:
            continue
        estimate = min(pa, pb) / max(pa, pb)
        r = katz(a, b, z)
        if math.isnan(r.low):
            folded.append(Interval(estimate, math.nan, math.nan))
        elif r.low <= 1 <= r.high:
            folded.append(Interval(estimate, min(r.low, 1 / r.high), 1.0))
        else:
            lo, hi = (r.low, r.high) if r.high < 1 else (1 / r.high, 1 / r.low)
            folded.append(Interval(estimate, lo, hi))
    if not folded:
        return None
    estimate = min(f.estimate for f in folded)
    if any(math.isnan(f.low) for f in folded):
        return Interval(estimate, math.nan, math.nan)
    return Interval(estimate, min(f.low for f in folded), min(f.high for f in folded))
