"""Hypothesis strategies that reach the edges of the library's inputs.

Scores come from a small pool around one base value, so that ties (within and across
groups) and neighbouring floats (``numpy.nextafter``) are common; the base is drawn
among subnormals, values near the float64 limits, zero of either sign and ordinary
numbers. Group labels are short, long, odd (separators, quotes, non-ASCII, spaces) or
numbers of several types; problems have one-item groups and many groups.
"""

import decimal
import fractions

import numpy as np
from hypothesis import strategies as st

MAX = np.finfo(float).max
TINY = np.finfo(float).smallest_subnormal
NORMAL = np.finfo(float).tiny

#: Bases of the score pools: the float64 limits, subnormals, signed zeros, ordinary.
EDGE_BASES = [0.0, -0.0, TINY, 3 * TINY, NORMAL, -NORMAL, 1e-300, 0.5, 1.0, -1.0, 1e300,
              MAX, -MAX, np.nextafter(MAX, 0), 2.0 ** 53]


def edge_floats(limit=MAX):
    """A finite float64 of magnitude at most ``limit``: an edge value or any float."""
    return (st.sampled_from([b for b in EDGE_BASES if abs(b) <= limit])
            | st.floats(-limit, limit, allow_nan=False, allow_infinity=False))


@st.composite
def score_pools(draw, size=None, limit=MAX):
    """Distinct floats of magnitude at most ``limit`` around one base: the base, its
    neighbours one and two ulps away (``nextafter``) and ``size`` (a strategy; 1-5)
    values anywhere.
    ``XOrder`` needs ``limit`` below about 9e307: its adjusted scores need the span of
    the scores plus a margin below the largest float (a ``ValueError`` says so)."""
    size = st.integers(1, 5) if size is None else size
    base = draw(edge_floats(limit))
    pool = {base}
    for direction in (np.inf, -np.inf):
        near = base
        for _ in range(draw(st.integers(0, 2))):
            with np.errstate(over="ignore"):  # past the largest float: inf, left out
                near = np.nextafter(near, direction)
            if abs(near) <= limit:
                pool.add(float(near))
    pool.update(draw(st.lists(edge_floats(limit), max_size=draw(size))))
    return sorted({0.0 if v == 0 else float(v) for v in pool})  # -0.0 == 0.0: one value


def scores_from(pool, n):
    """``n`` scores drawn from ``pool`` (ties whenever ``n`` exceeds its size)."""
    return st.lists(st.sampled_from(pool), min_size=n, max_size=n)


#: Odd group labels: separators of the library's reports and files, quotes, spaces,
#: non-ASCII, the empty string, digits as text, a long one.
ODD_LABELS = ["", " ", "a b", "x,y", 'say "hi"', "it's", "a > b", "a ~ b", "[g]", "a\\b",
              "é", "中文", "0", "1", "-1.5", "NaN?", "x" * 1000, "group\twith tab"]


def label_sets(k):
    """``k`` distinct group labels of one type: strings (odd ones among them), ints or
    floats."""
    strings = st.lists(st.sampled_from(ODD_LABELS) | st.text(min_size=1, max_size=30),
                       min_size=k, max_size=k, unique=True)
    ints = st.lists(st.integers(-2**40, 2**40), min_size=k, max_size=k, unique=True)
    floats = st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=k, max_size=k,
                      unique=True)
    return strings | ints | floats


@st.composite
def problems(draw, groups=None, size=None, metric="xauc", labelled=True, limit=MAX):
    """``(scores, y, groups, labels)``: scores from a ``score_pools`` pool, 0/1 labels
    such that ``metric`` is defined in every group (a positive in each for xAUC and PRF,
    a negative too for xAUC; URF needs neither), scores of magnitude at most ``limit``,
    group labels of ``label_sets`` (``labels[g]`` for group index g; with
    ``labelled=False`` the indices 0..k-1). ``groups`` and ``size`` are strategies of
    the number of groups (2-3) and of the items of each (1-8).
    Groups of one item occur (URF; an xAUC group needs two)."""
    groups = st.integers(2, 3) if groups is None else groups
    size = st.integers(1, 8) if size is None else size
    k = draw(groups)
    low = {"xauc": 2, "prf": 1, "urf": 1}[metric]
    sizes = [draw(size.filter(lambda n: n >= low)) for _ in range(k)]
    if metric == "prf" and max(sizes) == 1:  # a negative beside every group's positive
        sizes[0] = 2
    pool = draw(score_pools(limit=limit))
    labels = draw(label_sets(k)) if labelled else list(range(k))
    index = draw(st.permutations(np.repeat(np.arange(k), sizes).tolist()))
    index = np.asarray(index)
    y = np.asarray(draw(st.lists(st.integers(0, 1), min_size=index.size,
                                 max_size=index.size)))
    for g in range(k):  # the items the metric needs, at the group's first places
        at = np.flatnonzero(index == g)
        if metric in ("xauc", "prf"):
            y[at[0]] = 1
        if metric == "xauc":
            y[at[1]] = 0
    if y.all():  # AUC needs a negative: an item no rule above made a positive
        free = [i for i in range(y.size) if metric == "urf"
                or i != np.flatnonzero(index == index[i])[0]]
        y[free[0] if free else 0] = 0
    if not y.any():
        y[0] = 1
    scores = np.asarray(draw(scores_from(pool, index.size)))
    return scores, y, index, labels


def defined(y, index, metric):
    """Whether every metric of ``metric``'s kind is defined for these labels."""
    if not ((y == 0).any() and (y == 1).any()):
        return False
    for g in np.unique(index):
        yg = y[index == g]
        if metric in ("xauc", "prf") and not yg.any():
            return False
        if metric == "xauc" and yg.all():
            return False
    return True


def real_numbers(value):
    """``value`` as every real number type the library accepts: float, int where it is
    one, Decimal, Fraction, NumPy float and int scalars, 0-d arrays."""
    out = [float(value), decimal.Decimal(repr(float(value))),
           fractions.Fraction(float(value)), np.float64(value), np.float32(value)
           if float(np.float32(value)) == value else np.float64(value),
           np.array(value), np.array(np.float64(value))]
    if float(value).is_integer():
        out += [int(value), np.int64(value), np.int8(value) if abs(value) < 128 else
                np.int64(value), np.array(int(value))]
    return out
