"""DeLong's variances of the ranking metrics (DeLong, DeLong and Clarke-Pearson 1988):
every metric is a two-sample U-statistic whose variance its placement values estimate,
and the normal limits they give (:mod:`._uncertainty`, ``method="delong"``)."""

import math
from statistics import NormalDist

import numpy as np


def placements(x, y):
    """DeLong's placement values: for every ``x_i`` the share of ``y`` below it, for
    every ``y_j`` the share of ``x`` above it (ties 1/2)."""
    xs, ys = np.sort(x), np.sort(y)
    v10 = (np.searchsorted(ys, x, "left") + np.searchsorted(ys, x, "right")) / (2 * y.size)
    v01 = (2 * x.size - np.searchsorted(xs, y, "left") - np.searchsorted(xs, y, "right")) \
        / (2 * x.size)
    return v10, v01


def delong_variance(x, y):
    """DeLong (1988) variance of the two-sample U-statistic ``P(X > Y)`` (ties 1/2):
    ``S10 / m + S01 / n`` with the sample variances of the placement values; NaN
    when a sample has fewer than two items."""
    if x.size < 2 or y.size < 2:
        return math.nan
    v10, v01 = placements(x, y)
    return float(v10.var(ddof=1) / x.size + v01.var(ddof=1) / y.size)


def _prf_difference_variance(pos_a, pos_b, neg):
    """Variance of ``PRF(a) - PRF(b)``: the positives differ (independent), the
    negatives are shared, so the covariance is that of the negatives' placements among
    the two groups' positives over their number."""
    if min(pos_a.size, pos_b.size, neg.size) < 2:
        return math.nan
    va10, va01 = placements(pos_a, neg)
    vb10, vb01 = placements(pos_b, neg)
    cov = np.cov(va01, vb01, ddof=1)
    return float(va10.var(ddof=1) / pos_a.size + vb10.var(ddof=1) / pos_b.size
                 + (cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]) / neg.size)


def delong_variances(scores, y, index, k):
    """DeLong variances of every metric (NaN where undefined or where a sample has
    fewer than two items), shaped as ``_uncertainty.statistics`` and ``signed_pairs``."""
    pos = [scores[(index == g) & (y == 1)] for g in range(k)]
    neg = [scores[(index == g) & (y == 0)] for g in range(k)]
    all_neg = scores[y == 0]
    members = [scores[index == g] for g in range(k)]
    x = np.array([[delong_variance(pos[g], neg[h]) for h in range(k)] for g in range(k)])
    prf = np.array([delong_variance(pos[g], all_neg) for g in range(k)])
    a, b = np.triu_indices(k, 1)
    return {
        "auc": delong_variance(scores[y == 1], all_neg),
        "xauc": x,
        "prf": prf,
        # positives and negatives of the two directions are four distinct samples
        "pairs": {"xauc": x[a, b] + x[b, a],
                  "prf": np.array([_prf_difference_variance(pos[i], pos[j], all_neg)
                                   for i, j in zip(a, b)]),
                  # P(S^a > S^b) - P(S^b > S^a) = 2 P(S^a > S^b) - 1
                  "urf": np.array([4 * delong_variance(members[i], members[j])
                                   for i, j in zip(a, b)])},
    }


def normal_limits(estimate, variance, level, lo=0.0, hi=1.0):
    """``estimate -/+ z sqrt(variance)``, clipped to ``[lo, hi]``."""
    z = NormalDist().inv_cdf(0.5 + level / 2)
    half = z * np.sqrt(variance)
    return np.clip(estimate - half, lo, hi), np.clip(estimate + half, lo, hi)
