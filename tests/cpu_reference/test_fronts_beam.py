"""The bounded front (``solve_fronts(..., beam=B)``: the reference's, pure NumPy, and
where numba imports the compiled twin's) and the reference's completion values of
several weights at once, against independent oracles: a beam wider than every front is
the exact solver (the same path, counters and states) and the optimum of every
interleaving on tiny lattices; a narrow beam keeps at most B states per cell, returns a
path whose counters are its own, never above the optimum and, pruned by a known
ordering's objective, never below it; the tables of an array of weights are each
weight's table alone, bit for bit. (The two beams are compared bit for bit in
tests/gpu_xorder/engine/test_numba_beam.py.)"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cpu_reference as cr
from support.oracles import best_objective
from support.problems import check_bounded_front, two_group_problem
from support.properties import examples

METRICS = ("xauc", "prf", "urf")


def objective(lat, lam, final):
    return cr.cell_values(final, lat.consts, lam, lat.metric, "absolute")[0]


def bounds_of(lat, lam, k=5):
    mus = np.linspace(-lam, lam, k)
    return list(zip(mus, cr.completion_values(lat, mus)))


def reference_beam(lat, lam, width, lower=None):
    return cr.solve_fronts(lat, lam, lower=lower, bounds=bounds_of(lat, lam), beam=width)


def compiled_beam(lat, lam, width, lower=None):
    nf = pytest.importorskip("gpu_xorder.engine._numba_fronts")
    mus = np.linspace(-lam, lam, 5)
    return nf.solve_fronts(lat, lam, lower=lower, mus=mus,
                           tables=nf.completion_tables(lat, mus), beam=width)


BEAMS = pytest.mark.parametrize("beam", [reference_beam, compiled_beam],
                                ids=["reference", "compiled"])


@pytest.mark.parametrize("metric", METRICS)
def test_the_tables_of_many_weights_are_each_weight_s_table(metric):
    rng = np.random.default_rng(3 + len(metric))
    for trial in range(6):
        s, y, g = two_group_problem(rng, int(rng.integers(1, 30)),
                                    int(rng.integers(1, 30)), ties=trial % 2 == 1)
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        mus = np.array([-2.5, -0.3, 0.0, 1.0, 4.0])
        many = cr.completion_values(lat, mus)
        assert many.shape == (mus.size, lat.n_a + 1, lat.n_b + 1)
        for t, mu in enumerate(mus):
            np.testing.assert_array_equal(many[t], cr.completion_values(lat, mu))
        zero = cr.completion_values(lat, np.array([1.0, -1.0]), 0.0)
        np.testing.assert_array_equal(zero[1], cr.completion_values(lat, -1.0, 0.0))


@BEAMS
@pytest.mark.parametrize("metric", METRICS)
def test_a_beam_wider_than_every_front_is_the_exact_solver(metric, beam):
    """B = 10**9 and B = the largest front: the exact fronts' answer and stats (tied
    scores too); on 2-6 items per group with distinct scores the optimum of every
    interleaving (enumeration)."""
    rng = np.random.default_rng(41 + len(metric))
    for trial in range(8):
        s, y, g = two_group_problem(rng, int(rng.integers(2, 7)), int(rng.integers(2, 7)),
                                    ties=trial % 3 == 2)
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        for lam in (0.4, 3.0):
            want = cr.solve_fronts(lat, lam)
            for width in (10**9, want[2]["largest"]):
                got = beam(lat, lam, width)
                np.testing.assert_array_equal(got[0], want[0])
                np.testing.assert_array_equal(got[1], want[1])
                assert got[2] == want[2]
            if trial % 3 != 2:  # distinct scores: the enumeration's interleavings
                optimum = best_objective(s, y, g, metric, lam, "absolute")
                assert objective(lat, lam, want[1]) == pytest.approx(optimum, abs=1e-12)


@BEAMS
@pytest.mark.parametrize("metric", METRICS)
def test_a_narrow_beam_lies_between_the_incumbent_and_the_optimum(metric, beam):
    """B in 1, 2, 4 on 20-40 items per group at lam 2: at most B states per cell, a
    path of the lattice whose counters are the final state's, never above the exact
    optimum; pruned by the cell rule's objective (an incumbent), never below it, or
    no state left."""
    rng = np.random.default_rng(7 * len(metric))
    for trial in range(3):
        s, y, g = two_group_problem(rng, int(rng.integers(20, 41)),
                                    int(rng.integers(20, 41)), ties=trial == 1)
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        lam = 2.0
        exact = cr.solve_fronts(lat, lam)
        best = objective(lat, lam, exact[1])
        assert exact[2]["largest"] > 4  # the beams below do cut these fronts
        words, rule = cr.fill(lat, lam)
        incumbent = objective(lat, lam, rule)
        for width in (1, 2, 4):
            check_bounded_front(lat, lam, beam(lat, lam, width), width, best)
            try:
                _, final, _ = beam(lat, lam, width, lower=incumbent)
            except cr.NoneLeft:
                continue
            assert incumbent - cr.PRUNE_TOLERANCE <= objective(lat, lam, final)
            assert objective(lat, lam, final) <= best + 1e-12


def test_a_beam_needs_bounds_and_no_eps():
    rng = np.random.default_rng(1)
    s, y, g = two_group_problem(rng, 5, 5)
    lat = cr.build_lattice(s, y, g, "xauc", "absolute")
    with pytest.raises(ValueError, match="completion bounds"):
        cr.solve_fronts(lat, 1.0, beam=4)
    with pytest.raises(ValueError, match="completion bounds"):
        cr.solve_fronts(lat, 1.0, bounds=bounds_of(lat, 1.0), eps=0.1, beam=4)


def test_the_pruning_is_the_same_with_tables_given_one_by_one():
    """The fronts read the tables of an array of weights in place (no copy); tables
    computed one by one (a copy) prune the same states: the same answer and stats."""
    rng = np.random.default_rng(5)
    s, y, g = two_group_problem(rng, 30, 25)
    lat = cr.build_lattice(s, y, g, "prf", "absolute")
    lam = 1.5
    together = bounds_of(lat, lam, 9)
    alone = [(mu, cr.completion_values(lat, mu)) for mu, _ in together]
    want = cr.solve_fronts(lat, lam)
    lower = objective(lat, lam, want[1]) - 1e-3
    for width in (None, 3):
        a = cr.solve_fronts(lat, lam, lower=lower, bounds=together, beam=width)
        b = cr.solve_fronts(lat, lam, lower=lower, bounds=alone, beam=width)
        np.testing.assert_array_equal(a[0], b[0])
        assert a[2] == b[2]
    assert a[2]["states"] < want[2]["states"]  # the bounds did prune


@pytest.mark.parametrize("metric", METRICS)
def test_the_pruning_reads_the_same_values_from_the_diagonal_slice(metric):
    """The pruning of one anti-diagonal (``_fronts._pruned``) against its definition: a
    candidate is kept iff ``auc - mu d + R_mu(cell)`` reaches the threshold at every
    weight, and its bound is the least of those, bit for bit, whether the diagonal has
    more candidates than cells (its values read from the diagonal's strided slice of the
    tables) or fewer (from each candidate's own cells)."""
    from cpu_reference._fronts import _pruned, _stacked

    rng = np.random.default_rng(11 + len(metric))
    for trial in range(8):
        n_a, n_b = int(rng.integers(1, 25)), int(rng.integers(1, 25))
        s, y, g = two_group_problem(rng, n_a, n_b, ties=trial % 2 == 1)
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        bounds = bounds_of(lat, 2.0, 7)
        mus = np.array([mu for mu, _ in bounds])
        tables = _stacked(bounds, (lat.n_a + 1) * (lat.n_b + 1))
        passes = [(mus[ws, None], None, ws) for ws in (np.array([0, 6]), np.arange(1, 6))]
        for d in range(1, lat.n_a + lat.n_b + 1):
            r0, r1 = max(0, d - lat.n_b), min(lat.n_a, d)
            for many in (0, 1, r1 - r0 + 1 + int(rng.integers(1, 40))):
                rows = np.sort(rng.integers(r0, r1 + 1, many))
                auc, dis = rng.random(many), rng.normal(0.0, 0.3, many)
                threshold = float(rng.uniform(0.5, 2.5))
                kept, ub = _pruned(auc, dis, rows, d, lat.n_a, lat.n_b, tables, passes,
                                   threshold)
                values = np.array([auc - mu * dis + r[rows, d - rows] for mu, r in bounds])
                want = np.flatnonzero((values >= threshold).all(axis=0))
                np.testing.assert_array_equal(kept, want)
                np.testing.assert_array_equal(ub[kept], values[:, want].min(axis=0))


def _any_path_to(rng, i, j):
    """A random path of ``i`` a-steps and ``j`` b-steps (0: a, 1: b)."""
    steps = np.array([0] * i + [1] * j, dtype=np.int8)
    rng.shuffle(steps)
    return steps


@pytest.mark.parametrize("metric", METRICS)
def test_the_priced_completion_is_a_best_completion_with_its_disparity(metric):
    """``completion_path`` from a cell: ``n_a - i`` a-steps and ``n_b - j`` b-steps; the
    counters it gains are those ``path_states`` finds along any path through the cell
    (an independent sum); its signed value is the cell's ``completion_values`` and its
    disparity the cell's ``completion_disparities`` (up to rounding); on 1-6 items per
    group no completion of the cell (every one enumerated) has a larger signed value."""
    import itertools

    from cpu_reference._fronts import signed_increment, step_disparity

    rng = np.random.default_rng(23 + len(metric))
    for trial in range(12):
        small = trial < 6
        hi = 7 if small else 30
        s, y, g = two_group_problem(rng, int(rng.integers(1, hi)), int(rng.integers(1, hi)),
                                    ties=trial % 2 == 1)
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        mus = np.array([-1.7, 0.0, 0.6, 3.0])
        values = cr.completion_values(lat, mus).reshape(mus.size, -1)
        disparities = cr.completion_disparities(lat, mus, values)
        for t, mu in enumerate(mus):
            for i, j in {(0, 0), (lat.n_a, lat.n_b), (int(rng.integers(0, lat.n_a + 1)),
                                                      int(rng.integers(0, lat.n_b + 1)))}:
                steps, gains = cr.completion_path(lat, mu, values[t], i, j)
                assert (steps == 0).sum() == lat.n_a - i and (steps == 1).sum() == lat.n_b - j
                states, _ = cr.path_states(lat, np.concatenate((_any_path_to(rng, i, j),
                                                                steps)))
                np.testing.assert_array_equal(gains, states[:, -1] - states[:, i + j])
                cell = i * (lat.n_b + 1) + j
                value = signed_increment(lat.consts, metric, gains[:, None], mu)[0]
                assert value == pytest.approx(values[t, cell], abs=1e-12)
                assert step_disparity(lat.consts, metric, gains[:, None])[0] == \
                    pytest.approx(disparities[t, cell], abs=1e-12)
                if small:
                    n_rest = lat.n_a - i + lat.n_b - j
                    for downs in itertools.combinations(range(n_rest), lat.n_a - i):
                        order = np.ones(n_rest, dtype=np.int8)
                        order[list(downs)] = 0
                        other, _ = cr.path_states(lat, np.concatenate((np.array(
                            [0] * i + [1] * j, dtype=np.int8), order)))
                        gain = other[:, -1] - other[:, i + j]
                        assert signed_increment(lat.consts, metric, gain[:, None],
                                                mu)[0] <= values[t, cell] + 1e-12


@pytest.mark.parametrize("metric", METRICS)
def test_a_beam_with_dives_answers_a_path_between_its_lower_bound_and_the_optimum(metric):
    """Dives (the completions of three weights) on 15-35 items per group, B in 1, 2, 4,
    from a lower bound at, below and above the cell rule's objective: the answer's
    counters are its path's own, its objective reaches the lower bound where a dive
    answers (a dive answers only above it) and never exceeds the exact optimum; where
    no state and no dive reaches the lower bound, ``NoneLeft``. Some answers are dives
    (the test is not vacuous)."""
    rng = np.random.default_rng(31 + len(metric))
    dived = 0
    for trial in range(4):
        s, y, g = two_group_problem(rng, int(rng.integers(15, 36)),
                                    int(rng.integers(15, 36)), ties=trial % 2 == 1)
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        lam = (0.5, 2.0)[trial % 2]
        bounds = bounds_of(lat, lam, 7)
        index = np.array([1, 3, 5])
        dive = (index, cr.completion_disparities(
            lat, np.array([bounds[k][0] for k in index]),
            np.stack([bounds[k][1].reshape(-1) for k in index])))
        optimum = objective(lat, lam, cr.solve_fronts(lat, lam)[1])
        _, rule = cr.fill(lat, lam)
        for lower in (objective(lat, lam, rule) + shift for shift in (-0.02, 0.0, 0.01)):
            for width in (1, 2, 4):
                try:
                    path, final, stats = cr.solve_fronts(lat, lam, lower=lower,
                                                         bounds=bounds, beam=width, dive=dive)
                except cr.NoneLeft:
                    assert lower > optimum - 0.02
                    continue
                np.testing.assert_array_equal(cr.path_counters(lat, path), final)
                got = objective(lat, lam, final)
                assert got <= optimum + 1e-12
                if stats["dive"]:
                    dived += 1
                    assert got >= lower - 1e-12
    assert dived > 0


def test_dives_need_a_beam_its_bounds_and_a_lower_bound():
    rng = np.random.default_rng(2)
    s, y, g = two_group_problem(rng, 6, 5)
    lat = cr.build_lattice(s, y, g, "xauc", "absolute")
    bounds = bounds_of(lat, 1.0)
    dive = (np.array([0]), cr.completion_disparities(lat, [bounds[0][0]],
                                                     bounds[0][1].reshape(1, -1)))
    for kw in (dict(lower=0.1), dict(beam=2)):
        with pytest.raises(ValueError, match="dives need"):
            cr.solve_fronts(lat, 1.0, bounds=bounds, dive=dive, **kw)


@settings(max_examples=examples(40), deadline=None)
@given(st.integers(2, 6), st.integers(2, 6), st.sampled_from(METRICS),
       st.sampled_from([0.3, 1.0, 4.0]), st.integers(1, 3), st.booleans(),
       st.integers(0, 2**32 - 1), st.floats(-0.05, 0.02))
def test_property_a_beam_with_dives_never_passes_the_optimum_of_every_interleaving(
        n_a, n_b, metric, lam, width, ties, seed, shift):
    """Property (hypothesis, the derandomised profile): on 2-6 items per group, any
    metric, lam, width and lower bound around the optimum, the bounded front with dives
    answers an ordering whose counters are its path's own, whose objective is at most
    the best of every interleaving (enumerated, the pair definitions of docs/design.md,
    section 2) and, where a dive answers, at least the lower bound given; or no state
    and no dive reaches that bound."""
    rng = np.random.default_rng(seed)
    s, y, g = two_group_problem(rng, n_a, n_b, ties=ties)
    lat = cr.build_lattice(s, y, g, metric, "absolute")
    optimum = best_objective(s, y, g, metric, lam, "absolute")
    bounds = bounds_of(lat, lam, 5)
    index = np.array([0, 2, 4])
    dive = (index, cr.completion_disparities(
        lat, np.array([bounds[k][0] for k in index]),
        np.stack([bounds[k][1].reshape(-1) for k in index])))
    lower = optimum + shift
    try:
        path, final, stats = cr.solve_fronts(lat, lam, lower=lower, bounds=bounds,
                                             beam=width, dive=dive)
    except cr.NoneLeft:
        return
    np.testing.assert_array_equal(cr.path_counters(lat, path), final)
    got = objective(lat, lam, final)
    assert got <= optimum + 1e-12
    if stats["dive"]:
        assert got >= lower - cr.PRUNE_TOLERANCE
