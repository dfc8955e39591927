"""The range adjusted scores live in: :func:`default_bounds`, whose end points the
transfer places the items beyond the outer reference scores towards, and beyond which
every group's map is the identity (docs/design.md, section 5)."""

import numpy as np

from ._ulps import FLOAT_MAX


def is_probability_like(scores) -> bool:
    """Whether every score lies in [0, 1] (the scores are then treated as probabilities)."""
    scores = np.asarray(scores, dtype=np.float64)
    return bool(scores.min() >= 0.0 and scores.max() <= 1.0)


def _mean_gap(scores):
    """Mean gap between consecutive distinct scores, at most the largest float;
    ``max(1, |s|)`` for one distinct value."""
    lo, hi = float(scores.min()), float(scores.max())
    distinct = np.unique(scores).size
    if distinct < 2:
        return max(1.0, abs(lo))
    gap = (hi - lo) / (distinct - 1)
    if gap == np.inf:  # max - min overflows (scores of both signs beyond 9e307): halves
        gap = 2 * ((hi / 2 - lo / 2) / (distinct - 1))
    return min(gap, FLOAT_MAX)


def default_bounds(scores, ref_scores):
    """End points ``(lo, hi)`` of the range the adjusted scores live in.

    Items ranked above the first reference item are placed between the top reference
    score and ``hi``, items below the last one between the bottom reference score and
    ``lo`` (see :func:`gpu_xorder.postprocessing._transfer.fit_transfer`); beyond
    ``(lo, hi)`` the maps of :func:`gpu_xorder.postprocessing._maps.apply_group_maps`
    are the identity.

    What is done, exactly:

    1. ``margin``: the mean gap between consecutive distinct values of ``scores``, i.e.
       ``(max - min) / (u - 1)`` with ``u`` distinct values; when all scores are equal,
       ``max(1, |score|)``.
    2. Probability-like scores (all in [0, 1]): ``(lo, hi) = (0, 1)``. Otherwise the
       observed range widened by one margin: ``(min - margin, max + margin)``.
    3. In every case ``hi`` is raised to ``max(ref_scores) + margin`` when it is not above
       the top reference score (a reference score of 1 for probabilities), and ``lo`` is
       lowered to ``min(ref_scores) - margin`` when it is not below the bottom one. Should
       the margin vanish in floating point next to a huge score, the next representable
       float is taken instead; should it overflow, the largest finite float.

    So ``lo <= min(scores) <= max(scores) <= hi`` and ``lo < min(ref_scores) <=
    max(ref_scores) < hi`` hold, but where a reference score is the largest (smallest)
    float itself: then ``hi`` (``lo``) is that float. ``hi - lo`` may overflow (scores of
    both signs beyond about 9e307):
    :func:`gpu_xorder.postprocessing._transfer.fit_transfer` then works on half the
    scores.

    Parameters
    ----------
    scores : array-like of shape (n,)
        All training scores (every group), finite.
    ref_scores : array-like of shape (n_ref,)
        The training scores of the reference group, non-empty.

    Returns
    -------
    (float, float)
        ``(lo, hi)``, finite.

    Examples
    --------
    >>> default_bounds([0.2, 0.9, 0.5], [0.9, 0.5])
    (0.0, 1.0)
    >>> default_bounds([0.2, 1.0, 0.6], [1.0, 0.6])
    (0.0, 1.4)
    >>> default_bounds([-2.0, 3.0, 0.5], [3.0, 0.5])
    (-4.5, 5.5)
    """
    scores = np.asarray(scores, dtype=np.float64)
    ref_scores = np.asarray(ref_scores, dtype=np.float64)
    margin = _mean_gap(scores)
    with np.errstate(over="ignore"):
        if is_probability_like(scores):
            lo, hi = 0.0, 1.0
        else:
            lo, hi = float(scores.min()) - margin, float(scores.max()) + margin
        ref_lo, ref_hi = float(ref_scores.min()), float(ref_scores.max())
        if hi <= ref_hi:
            hi = max(ref_hi + margin, float(np.nextafter(ref_hi, np.inf)))
        if lo >= ref_lo:
            lo = min(ref_lo - margin, float(np.nextafter(ref_lo, -np.inf)))
    return max(lo, -FLOAT_MAX), min(hi, FLOAT_MAX)
