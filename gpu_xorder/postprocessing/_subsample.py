"""Learning the ordering on a subsample (docs/design.md, section 6): every k-th item of
each group's score order, refused where it leaves a group without what the metric
needs."""

import numpy as np

from ..utils import _validation as v

MSG_SUBSAMPLE_SHORT = (
    "{option}{k} keeps {kept} of the {n} {items} (the smallest group, {group!r} with "
    "{size} {items}, keeps {group_kept}), and then {why}; use a smaller {name}"
)


def subsample_with_supports(scores, y, labels, index, step, metric,
                            option="subsample=", items="items"):
    """``equidistant_subsample``, refused with a message naming the step and the
    smallest group when the kept items lack what ``metric`` needs (the fit would only
    say that a group has no positives or negatives)."""
    keep = equidistant_subsample(scores, index, step)
    if step == 1:
        return keep
    try:
        v.check_supports(labels, index[keep], y[keep], metric)
    except ValueError as exc:
        sizes = np.bincount(index, minlength=labels.size)
        g = int(np.argmin(sizes))
        raise ValueError(MSG_SUBSAMPLE_SHORT.format(
            option=option, name=option.rstrip("= "), k=step, kept=keep.size, n=scores.size,
            items=items,
            group=labels[g].item(), size=int(sizes[g]), group_kept=-(-int(sizes[g]) // step),
            why=exc)) from None
    return keep


def equidistant_subsample(scores, index, step):
    """Every ``step``-th item of each group's descending (stable) score order, starting
    with the top one; returned as increasing indices into ``scores``."""
    if step == 1:
        return np.arange(scores.size)
    keep = []
    for g in np.unique(index):
        members = np.flatnonzero(index == g)
        ranked = members[np.argsort(-scores[members], kind="stable")]
        keep.append(ranked[::step])
    return np.sort(np.concatenate(keep))
