"""Random problems and lattices the tests share.

Every generator draws from the caller's ``numpy.random.Generator`` in a fixed order:
the same generator state gives the same data (tests that pin values keep them).
"""

import numpy as np

import cpu_reference as cr


def two_group_problem(rng, n_a, n_b, ties=False):
    """Random scores (from four values when ``ties``), labels and shuffled groups 0/1.

    In a group of two or more items the first item is a positive and the last a
    negative, so every metric is defined; a one-item group holds one negative.
    """
    n = n_a + n_b
    g = np.array([0] * n_a + [1] * n_b)
    rng.shuffle(g)
    s = rng.integers(0, 4, n).astype(float) if ties else rng.random(n)
    y = rng.integers(0, 2, n)
    for k in (0, 1):
        idx = np.flatnonzero(g == k)
        y[idx[0]], y[idx[-1]] = 1, 0
    return s, y, g


def metric_defined(y, groups, k, metric):
    """Whether ``metric`` is defined for the labels ``y`` of groups ``0 .. k - 1``: both
    labels present, a positive in every group (xAUC, PRF) and a negative (xAUC)."""
    ok = y.sum() > 0 and (1 - y).sum() > 0
    for g in range(k):
        yg = y[groups == g]
        if metric in ("xauc", "prf"):
            ok &= yg.sum() > 0
        if metric == "xauc":
            ok &= (1 - yg).sum() > 0
    return ok


def random_problem(rng, sizes, metric, ties=False):
    """Scores, labels and shuffled groups ``0 .. len(sizes) - 1`` of ``sizes[g]`` items:
    labels drawn until ``metric`` is defined (``metric_defined``), then distinct scores
    (a permutation of ``k / n``) or, with ``ties``, scores from three values."""
    groups = rng.permutation(np.repeat(np.arange(len(sizes)), sizes))
    n = groups.size
    while True:
        y = rng.integers(0, 2, n)
        if metric_defined(y, groups, len(sizes), metric):
            break
    scores = rng.integers(0, 3, n).astype(float) if ties else rng.permutation(n) / n
    return scores, y, groups


def lattices(rng, shapes, metrics, mode="absolute"):
    """Two-group lattices of ``two_group_problem``: one per ``(n_a, n_b, ties)`` of
    ``shapes`` and metric of ``metrics`` (a name or a sequence; the inner loop), drawn
    from ``rng`` in that order. A one-item group leaves xAUC and PRF undefined: those
    lattices are URF's only."""
    metrics = (metrics,) if isinstance(metrics, str) else tuple(metrics)
    for n_a, n_b, ties in shapes:
        for metric in metrics:
            if min(n_a, n_b) < 2 and metric != "urf":
                continue
            s, y, g = two_group_problem(rng, n_a, n_b, ties)
            yield cr.build_lattice(s, y, g, metric, mode)


#: Ragged two-group shapes: one-item groups, row counts about multiples of 32 (the
#: kernels' row blocks and the bands' heights), axis b shorter and longer than axis a.
RAGGED_SHAPES = [(1, 1), (5, 9), (31, 2), (32, 40), (33, 1), (64, 64), (97, 50), (150, 33)]


def ragged_lattices(metric, mode, seed):
    """The lattices of ``RAGGED_SHAPES`` with distinct scores, then with ties."""
    shapes = [(n_a, n_b, ties) for ties in (False, True) for n_a, n_b in RAGGED_SHAPES]
    return lattices(np.random.default_rng(seed), shapes, metric, mode)


def step_lattices(metric, sizes, ties, lam):
    """The step lattices of iterative xOrder at ``lam`` on ``random_problem`` (groups of
    ``sizes``, seeded by them and the metric), in merge order."""
    rng = np.random.default_rng(sum(sizes) + len(metric))
    s, y, g = random_problem(rng, sizes, metric, ties)
    prob = cr.build_problem(s, y, g, len(sizes), metric, "absolute")
    steps = []

    def solve(lat, lam, progress=None):
        steps.append(lat)
        return cr.solve_lattice(lat, lam, progress)

    cr.solve_iterative(prob, lam, solve=solve)
    return steps


def check_bounded_front(lat, lam, answer, width, optimum):
    """A bounded front's ``answer`` ``(path, final, stats)`` of ``width`` states per
    cell: at most ``width`` states in a cell and per cell on average, a path of the
    lattice whose counters (recounted from its steps) are ``final``, its objective at
    most ``optimum`` (the exact fronts'); returns that objective."""
    path, final, stats = answer
    assert stats["largest"] <= width
    assert stats["states"] <= width * lat.n_cells
    assert path.size == lat.n_a + lat.n_b
    assert int((path == 0).sum()) == lat.n_a
    np.testing.assert_array_equal(cr.path_counters(lat, path), final)
    value = cr.cell_values(final, lat.consts, lam, lat.metric, "absolute")[0]
    assert value <= optimum + 1e-12
    return value


def degenerate_problems(seed=2026, lines=((1, 60), (60, 1))):
    """``(name, scores, y, groups)`` of degenerate two-group problems, drawn from
    ``default_rng(seed)``: 1 x 1, the one-item-against-many ``lines``, all scores tied,
    label runs (every positive above every negative in both groups), one label per group
    (URF's case; xAUC and PRF need a positive in every group), tied scores."""
    rng = np.random.default_rng(seed)
    out = []
    for n_a, n_b in ((1, 1),) + tuple(lines):
        s, y, g = two_group_problem(rng, n_a, n_b)
        out.append((f"{n_a}x{n_b}", s, y, g))
    s, y, g = two_group_problem(rng, 9, 7)
    out.append(("all-ties", np.zeros_like(s), y, g))
    g = np.repeat([0, 1], [8, 6])
    y = np.concatenate(([1] * 4 + [0] * 4, [1] * 3 + [0] * 3))
    s = np.concatenate((np.linspace(1, 0, 8), np.linspace(0.95, 0.05, 6)))
    out.append(("label-runs", s, y, g))
    g = np.repeat([0, 1], [5, 4])
    out.append(("one-label-per-group", np.linspace(0, 1, 9), np.array([1] * 5 + [0] * 4), g))
    s, y, g = two_group_problem(rng, 8, 9, ties=True)
    out.append(("ties", s, y, g))
    return out
