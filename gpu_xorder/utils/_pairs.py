"""Which pictures of pairs of groups to draw when there are many groups: the rule that
``audit --plot`` and the HTML report share. Pairs grow with the square of the groups
(50 groups: 1,225 pairs, a quarter of an hour of xROC pictures; 200 groups: 19,900), so
each score column gets the xROC pictures of the ``limit`` pairs of its largest
disparity, and the forest plot of every interval is drawn up to ``MAX_FOREST_GROUPS``
groups; what is left out is said."""

import itertools

#: xROC pictures per score column unless the caller asks for more: those of the pairs
#: of groups with the largest disparities (every pair of 6 groups).
PLOT_PAIRS = 20
#: Groups beyond which the forest plot of every interval is not drawn: its rows grow
#: with the square of the groups (12 groups: some 300 rows).
MAX_FOREST_GROUPS = 12
MSG_PAIRS_DRAWN = ("{column}: xROC pictures of {drawn} of the {n} pairs of groups, those "
                   "of the largest disparities ({option} {limit}): {pairs}; "
                   "{option} {n} draws them all")
MSG_NO_FOREST = ("intervals.png not drawn: {k} groups give {rows} intervals, more than "
                 "a picture shows (at most {most} groups); they are in --json")


def largest_disparity(xauc, prf, urf):
    """The largest disparity of a pair of groups: of its two xAUCs, its two PRFs and
    its URF, those defined (not None); -1 where none is."""
    found = [abs(x - z) for x, z in (xauc, prf) if x is not None and z is not None]
    if urf is not None:
        found.append(urf)
    return max(found, default=-1.0)


def worst_pairs(keys, xauc, prf, urf, limit):
    """The ``limit`` unordered pairs of ``keys`` of the largest disparity (ties in the
    order of the pairs, pairs without any last), and all the pairs in order.
    ``xauc``: ``{(g, h): value}`` of the ordered pairs, ``prf``: ``{g: value}``,
    ``urf``: ``{(g, h): value}`` of the pairs ``g`` before ``h`` in ``keys`` (None where
    undefined)."""
    pairs = list(itertools.combinations(keys, 2))
    gap = {(a, b): largest_disparity((xauc[a, b], xauc[b, a]), (prf[a], prf[b]),
                                     urf[a, b]) for a, b in pairs}
    ranked = sorted(pairs, key=lambda pair: -gap[pair])  # stable: ties in order
    return ranked[:limit], pairs


def forest_rows(k):
    """The intervals of a forest plot of ``k`` groups (one score column)."""
    return 2 * k + k * (k - 1) + 1
