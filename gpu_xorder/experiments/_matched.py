"""The intervals and per-repetition tables of ``tables.md``: the corrected resampled t
interval of Nadeau and Bengio 2003 (:func:`corrected_interval`, Student's t in closed
form); the AUC of two trade-off curves at matched disparity (:func:`matched_auc`), and
per repetition with no repetition left out (one where the curves do not meet is named,
with the method that could not reach the other's disparity, and counted against it);
and the training against the test disparity of the train-test study (the paper's
Figures 14-15)."""

import math

import numpy as np

from ._experiment import _mean_std
from ._studies import ONE_POINT, PARAMETER_NAMES, POST_PROCESSING

#: The level of the paired comparisons' intervals.
LEVEL = 0.95


def t_cdf(t, df):
    """``P(T <= t)`` for Student's t with an integer number ``df >= 1`` of degrees of
    freedom, in closed form (Abramowitz and Stegun 26.7.3-4: finite sums in
    ``cos(theta)``, ``theta = arctan(t / sqrt(df))``), so that no SciPy is needed."""
    if isinstance(df, bool) or int(df) != df or df < 1:
        raise ValueError(f"df must be an integer >= 1, got {df!r}")
    df = int(df)
    theta = math.atan(abs(t) / math.sqrt(df))
    c2, term, total = math.cos(theta) ** 2, 1.0, 1.0
    if df % 2:  # odd: 2/pi (theta + sin cos (1 + 2/3 cos^2 + 2*4/(3*5) cos^4 + ...))
        for j in range(1, (df - 1) // 2):
            term *= c2 * (2 * j) / (2 * j + 1)
            total += term
        inside = 2 / math.pi * (theta + (math.sin(theta) * math.cos(theta) * total
                                         if df > 1 else 0.0))
    else:  # even: sin (1 + 1/2 cos^2 + 1*3/(2*4) cos^4 + ...)
        for j in range(1, df // 2):
            term *= c2 * (2 * j - 1) / (2 * j)
            total += term
        inside = math.sin(theta) * total
    return 0.5 + math.copysign(inside / 2, t)


def t_quantile(p, df):
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (bisection on
    :func:`t_cdf` to about 1e-12)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must lie in (0, 1), got {p!r}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        lo, hi = hi, 2 * hi
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if t_cdf(mid, df) < p else (lo, mid)
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return (lo + hi) / 2


def corrected_interval(differences, test_share, level=LEVEL):
    """Mean and the corrected resampled t interval (Nadeau and Bengio 2003) of paired
    differences over ``J`` random splits.

    The splits' training sets overlap, so the differences are correlated and the plain
    ``sd / sqrt(J)`` understates the mean's spread; the correction scales the sample
    variance by ``1 / J + n_test / n_train`` instead of ``1 / J`` and keeps ``J - 1``
    degrees of freedom.

    Parameters
    ----------
    differences : sequence of float
        One paired difference per split (at least two).
    test_share : float
        The share of the data each split tests on (``n_test / n`` in (0, 1)).
    level : float, default=0.95

    Returns
    -------
    (mean, low, high) : tuple of float

    Examples
    --------
    >>> mean, low, high = corrected_interval([1.0, 2.0, 3.0], test_share=0.5)
    >>> mean, round(high - mean, 4)  # t_2 (4.3027) * sqrt((1/3 + 1) * 1)
    (2.0, 4.9683)
    """
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim != 1 or d.size < 2 or not np.all(np.isfinite(d)):
        raise ValueError("differences must be at least two finite numbers")
    if not 0.0 < test_share < 1.0:
        raise ValueError(f"test_share must lie in (0, 1), got {test_share!r}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    j = d.size
    half = (t_quantile(0.5 + level / 2, j - 1)
            * math.sqrt((1 / j + test_share / (1 - test_share)) * d.var(ddof=1)))
    mean = float(d.mean())
    return mean, mean - half, mean + half


def matched_auc(curve_a, curve_b):
    """AUC of trade-off curve ``a`` minus that of ``b`` at the disparities both reach.

    Each curve is a sequence of ``(disparity, auc)`` points (a method's mean test
    values per parameter); AUC is interpolated linearly in disparity between a curve's
    points (points of equal disparity averaged). The differences are taken at every
    point of either curve inside the common range of disparity. Points are taken in
    order of disparity, dominated ones included (the curve as drawn, not its Pareto
    front).

    Returns
    -------
    (disparities, differences) : tuple of ndarray
        Both empty where the curves share no range of disparity.

    Examples
    --------
    >>> d, diff = matched_auc([(0.0, 0.8), (0.1, 0.9)], [(0.05, 0.8), (0.2, 0.9)])
    >>> d.tolist(), np.round(diff, 3).tolist()
    ([0.05, 0.1], [0.05, 0.067])
    """
    def prepared(curve):
        points = np.asarray(curve, dtype=np.float64).reshape(-1, 2)
        points = points[np.all(np.isfinite(points), axis=1)]
        x, inverse = np.unique(points[:, 0], return_inverse=True)
        y = np.bincount(inverse, points[:, 1], x.size) / np.bincount(inverse, None, x.size)
        return x, y

    (xa, ya), (xb, yb) = prepared(curve_a), prepared(curve_b)
    if not xa.size or not xb.size:
        return np.empty(0), np.empty(0)
    lo, hi = max(xa[0], xb[0]), min(xa[-1], xb[-1])
    at = np.unique(np.concatenate((xa, xb)))
    at = at[(at >= lo) & (at <= hi)]
    return at, np.interp(at, xa, ya) - np.interp(at, xb, yb)


def _pm(pair, digits=3):
    mean, sd = pair
    if np.isnan(mean):
        return "n/a"
    return f"{mean:.{digits}f}" + ("" if np.isnan(sd) else f" ± {sd:.{digits}f}")


def _parameter(method, parameter):
    if method in ONE_POINT:
        return "least train Δ"
    if parameter is None:
        return ""
    return f"{PARAMETER_NAMES[method]} {parameter:g}".replace("|", "\\|")


def _curves(points):
    """Trade-off curves ``{method: [(disparity, auc), ...]}`` from ``(method,
    disparity, auc)`` points, one per parameter; the curve of a post-processing method
    with a weight also starts at the unadjusted point (its weight 0)."""
    base = [(d, a) for m, d, a in points if m == "unadjusted"]
    curve = {}
    for m, d, a in points:
        if m != "unadjusted":
            curve.setdefault(m, []).append((d, a))
    for m in curve:
        if m in POST_PROCESSING and m not in ONE_POINT:
            curve[m] += base
    return curve


def _others(c, curve):
    return [m for m in c.methods if m not in ("unadjusted", "xorder") and m in curve]


#: Where two curves of a repetition share no disparity: which of them could not reach
#: the other's (the other lies wholly below it in disparity).
XORDER_SHORT, OTHER_SHORT = "xorder", "other"


def matched_outcomes(c):
    """Per repetition, xOrder's test trade-off curve against every other method's
    (curves as in :func:`matched_table`): ``{method: {repeat: (difference, short)}}``,
    the difference the mean AUC difference over the disparities both curves reach
    (:func:`matched_auc`) and ``short`` None; where they share no disparity, difference
    None and ``short`` the method that could not reach the other's disparity
    (:data:`XORDER_SHORT` where the other's whole curve lies below xOrder's lowest
    disparity, :data:`OTHER_SHORT` where xOrder's lies below the other's)."""
    points = {}
    for r in c.records:
        if r["split"] == "test" and r["setting"] is None:
            value = [np.nan if r[k] is None else r[k] for k in (c.metric, "auc")]
            points.setdefault(r["repeat"], []).append((r["method"], *value))
    curves = {repeat: _curves(p) for repeat, p in points.items()}
    out = {}
    for repeat, curve in sorted(curves.items()):
        if "xorder" not in curve:
            continue
        for method in _others(c, curve):
            at, diff = matched_auc(curve["xorder"], curve[method])
            if at.size:
                out.setdefault(method, {})[repeat] = (float(diff.mean()), None)
                continue
            lows = [min((d for d, _ in curve[m] if np.isfinite(d)), default=np.nan)
                    for m in ("xorder", method)]
            if np.isnan(lows).any():
                continue
            short = XORDER_SHORT if lows[1] < lows[0] else OTHER_SHORT
            out.setdefault(method, {})[repeat] = (None, short)
    return out


def matched_repetitions(c):
    """Per repetition, xOrder's test trade-off curve minus every other method's, the
    mean AUC difference over the disparities both of that repetition's curves reach
    (:func:`matched_outcomes`): ``{method: {repeat: difference}}``, a repetition left
    out where the two curves share no disparity."""
    out = {}
    for method, outcomes in matched_outcomes(c).items():
        met = {r: d for r, (d, short) in outcomes.items() if short is None}
        if met:
            out[method] = met
    return out


def scored_against(outcomes):
    """Every repetition's difference, a repetition where the curves do not meet scored
    against the method that could not reach the other's disparity: as a loss of the
    largest size of any difference where they meet (``-m`` against xOrder, ``+m``
    against the other; ``m = max |difference|``, None where they never meet)."""
    met = [d for d, short in outcomes.values() if short is None]
    if not met:
        return None
    m = max(abs(d) for d in met)
    return {r: d if short is None else (-m if short == XORDER_SHORT else m)
            for r, (d, short) in outcomes.items()}


def matched_paired_table(c, level=LEVEL):
    """AUC at matched disparity per repetition (:func:`matched_outcomes`): the
    repetitions where the curves do not meet, by the side that could not reach; the
    mean over the repetitions where they meet with the corrected resampled t interval
    (:func:`corrected_interval`); and the mean over every repetition, those that do not
    meet scored against the method that could not reach the other's disparity
    (:func:`scored_against`), with its interval and xOrder's wins."""
    per = matched_outcomes(c)
    if c.repeats < 2 or not per:
        return ""
    lines = [("AUC at matched test disparity per repetition, xorder minus the other (each "
              "repetition's curves interpolated as above, the difference averaged over "
              "the disparities both reach; corrected "
              f"{level:.0%} intervals, Nadeau and Bengio 2003). Where a repetition's "
              "curves do not meet, the method that could not reach the other's "
              "disparity is named; in the last columns such a repetition counts "
              "against it, as a loss as large as the largest |difference| of any "
              "repetition where they meet:\n"),
             ("| data | other method | repetitions where the curves meet | AUC difference: "
              "mean [interval] | excludes 0 | not meeting (could not reach) | every "
              "repetition, not meeting counted against: mean [interval] | excludes 0 | "
              "xorder higher |"), "|---|---|---|---|---|---|---|---|---|"]
    for method in c.methods:
        if method not in per:
            continue
        outcomes = per[method]
        d = [x for x, short in outcomes.values() if short is None]
        cells = ["n/a", ""]
        if len(d) >= 2:
            mean, lo, hi = corrected_interval(d, c.test_size, level)
            cells = [f"{mean:+.4f} [{lo:+.4f}, {hi:+.4f}]",
                     "yes" if lo > 0 or hi < 0 else "no"]
        missing = [(r, short) for r, (_, short) in outcomes.items() if short is not None]
        by_side = {side: [str(r) for r, s in missing if s == side]
                   for side in (XORDER_SHORT, OTHER_SHORT)}
        gaps = "; ".join(f"{', '.join(reps)} ({'xorder' if side == XORDER_SHORT else method})"
                         for side, reps in by_side.items() if reps) or "none"
        scored = scored_against(outcomes)
        every = ["n/a", "", "n/a"]
        if scored is not None and len(scored) >= 2:
            mean, lo, hi = corrected_interval(list(scored.values()), c.test_size, level)
            every = [f"{mean:+.4f} [{lo:+.4f}, {hi:+.4f}]",
                     "yes" if lo > 0 or hi < 0 else "no",
                     f"{sum(x > 0 for x in scored.values())} of {len(scored)}"]
        lines.append(f"| {c.data} | {method} | {len(d)} of {c.repeats} | "
                     + " | ".join(cells) + f" | {gaps} | " + " | ".join(every) + " |")
    return "\n".join(lines)


def train_test_table(c, level=LEVEL):
    """Training against test disparity (the train-test study, the paper's Figures
    14-15): per method at its largest weight (the public post-logit at its rule) the
    mean ± sd on both splits and the gap test minus training with the corrected
    interval; then xOrder's gap minus each other method's, paired per repetition."""
    key = c.metric
    gaps = {}
    lines = [("Training against test disparity (each method at its largest weight; gap: "
              f"test minus training, mean over the repetitions [corrected {level:.0%} "
              "interval]):\n"),
             "| data | method (parameter) | training Δ | test Δ | gap | excludes 0 |",
             "|---|---|---|---|---|---|"]
    for method in c.methods:
        parameters = [r["parameter"] for r in c.records if r["method"] == method
                      and r["parameter"] is not None]
        parameter = max(parameters) if parameters else None
        split = {s: _per_repeat_split(c, method, parameter, key, s) for s in ("train", "test")}
        repeats = sorted(set(split["train"]) & set(split["test"]))
        gap = {r: split["test"][r] - split["train"][r] for r in repeats}
        gaps[method] = gap
        cells = ["n/a", ""]
        if len(gap) >= 2:
            mean, lo, hi = corrected_interval(list(gap.values()), c.test_size, level)
            cells = [f"{mean:+.4f} [{lo:+.4f}, {hi:+.4f}]",
                     "yes" if lo > 0 or hi < 0 else "no"]
        label = _parameter(method, parameter)
        lines.append(f"| {c.data} | {method}{f' ({label})' if label else ''} | "
                     f"{_pm(_mean_std(list(split['train'].values())))} | "
                     f"{_pm(_mean_std(list(split['test'].values())))} | "
                     + " | ".join(cells) + " |")
    if "xorder" in gaps:
        lines += ["", "xOrder's gap minus the other's, paired per repetition:\n",
                  "| data | other method | gap difference [interval] | excludes 0 |",
                  "|---|---|---|---|"]
        for method in c.methods:
            if method in ("xorder", "unadjusted") or method not in gaps:
                continue
            common = sorted(set(gaps["xorder"]) & set(gaps[method]))
            if len(common) < 2:
                continue
            mean, lo, hi = corrected_interval(
                [gaps["xorder"][r] - gaps[method][r] for r in common], c.test_size, level)
            lines.append(f"| {c.data} | {method} | {mean:+.4f} [{lo:+.4f}, {hi:+.4f}] | "
                         + ("yes" if lo > 0 or hi < 0 else "no") + " |")
    return "\n".join(lines)


def _per_repeat_split(c, method, parameter, key, split):
    return {r["repeat"]: r[key] for r in c.records
            if (r["method"], r["parameter"], r["split"]) == (method, parameter, split)
            and r["setting"] is None and r[key] is not None}
