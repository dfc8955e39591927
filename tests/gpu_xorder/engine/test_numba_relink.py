"""The compiled relink (``engine._numba_relink``) against its oracle,
``cpu_reference.relink`` (pure NumPy; itself checked against every switch of the two
paths in tests/gpu_xorder/core/test_solvers.py): the same path and counters, bit for
bit, on random paths, on adversarial ones (equal, disjoint, crossing everywhere, ties,
lam 0 where p = q everywhere, huge lam), with and without the paths' states given; its
sort against the reference order on runs in and out of order; and the solver's choice
of relink."""

import numpy as np
import pytest

pytest.importorskip("numba")

import cpu_reference as cr  # noqa: E402
from cpu_reference import _relink  # noqa: E402
from gpu_xorder.core import _solvers  # noqa: E402
from gpu_xorder.core._candidates import states_for  # noqa: E402
from gpu_xorder.engine import _numba_relink as nr  # noqa: E402
from support.problems import two_group_problem  # noqa: E402

METRICS = ("xauc", "prf", "urf")
LAMS = (0.0, 0.05, 0.7, 3.0, 1e6)


def assert_same(lat, lam, first, second, states=(None, None)):
    want_path, want_final = cr.relink(lat, lam, first, second, states)
    got_path, got_final = nr.relink(lat, lam, first, second, states)
    np.testing.assert_array_equal(got_path, want_path)
    np.testing.assert_array_equal(got_final, want_final)
    assert got_path.dtype == want_path.dtype and got_final.dtype == want_final.dtype


def random_path(rng, lat):
    return rng.permutation(np.repeat([0, 1], [lat.n_a, lat.n_b])).astype(np.int8)


@pytest.mark.parametrize("metric", METRICS)
def test_random_paths_relink_as_the_reference(metric):
    rng = np.random.default_rng(len(metric) * 101)
    for trial in range(25):
        s, y, g = two_group_problem(rng, int(rng.integers(1, 45)),
                                    int(rng.integers(1, 45)), ties=trial % 2 == 1)
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        for lam in LAMS:
            first, second = random_path(rng, lat), random_path(rng, lat)
            assert_same(lat, lam, first, second)
            states = (cr.path_states(lat, first), cr.path_states(lat, second))
            assert_same(lat, lam, first, second, states)


@pytest.mark.parametrize("metric", METRICS)
def test_adversarial_paths_relink_as_the_reference(metric):
    """Equal paths (nothing to relink), the two extreme paths (they meet only at the
    ends), a staircase against its mirror (they cross at every other step), and the
    solver's own candidates (the cell rule against signed maximisers) on tied scores
    with unlabeled runs."""
    rng = np.random.default_rng(7)
    s, y, g = two_group_problem(rng, 30, 24, ties=True)
    lat = cr.build_lattice(s, y, g, metric, "absolute")
    n_a, n_b = lat.n_a, lat.n_b
    a_first = np.repeat(np.int8([0, 1]), [n_a, n_b])
    b_first = np.repeat(np.int8([1, 0]), [n_b, n_a])
    k = min(n_a, n_b)
    stairs = np.concatenate((np.tile(np.int8([0, 1]), k), np.full(n_a - k, 0, np.int8),
                             np.full(n_b - k, 1, np.int8)))
    mirror = np.concatenate((np.tile(np.int8([1, 0]), k), np.full(n_a - k, 0, np.int8),
                             np.full(n_b - k, 1, np.int8)))
    signed = cr.build_lattice(s, y, g, metric, "signed")
    candidates = [cr.traceback(cr.fill(lat, 0.5)[0], n_a, n_b)] + [
        cr.traceback(cr.fill(signed, mu)[0], n_a, n_b) for mu in (-0.3, 0.0, 0.3)]
    pairs = [(a_first, a_first), (a_first, b_first), (b_first, a_first),
             (stairs, mirror), (mirror, stairs)]
    pairs += [(candidates[0], c) for c in candidates[1:]]
    for lam in LAMS:
        for first, second in pairs:
            assert_same(lat, lam, first, second)


def test_one_item_groups_relink_as_the_reference():
    rng = np.random.default_rng(3)
    for metric in METRICS:
        for n_a, n_b in ((1, 1), (1, 9), (9, 1)):
            s, y, g = two_group_problem(rng, n_a, n_b)
            lat = cr.build_lattice(s, y, g, metric, "absolute")
            for _ in range(4):
                assert_same(lat, 1.0, random_path(rng, lat), random_path(rng, lat))


def test_the_order_is_the_reference_order():
    """``_order`` against ``_relink._descending``: runs in order (merged), runs out of
    order (sorted), ties in p, in q, in both (the AUC decides) and in all three (the
    index decides), signed zeros."""
    rng = np.random.default_rng(11)
    for trial in range(300):
        size = int(rng.integers(1, 12))
        m = 2 * size
        pool = rng.choice([-1.0, -0.0, 0.0, 0.25, 0.5], m) if trial % 3 == 0 else (
            rng.random(m))
        p = np.array(pool, dtype=np.float64)
        q = rng.choice([0.0, 1.0, 2.0], m) if trial % 2 else rng.random(m)
        u = rng.choice([0.25, 0.5], m)
        if trial % 4 < 2:  # each run in the reference order: the merge
            for lo, hi in ((0, size), (size, m)):
                order = np.lexsort((np.arange(hi - lo), -u[lo:hi], -q[lo:hi], -p[lo:hi]))
                for a in (p, q, u):
                    a[lo:hi] = a[lo:hi][order]
        want = np.lexsort((np.arange(m), -u, -q, -p))
        np.testing.assert_array_equal(nr._order(p, q, u, size), want)
        np.testing.assert_array_equal(_relink._descending(p, q, u), want)


@pytest.mark.parametrize("metric", METRICS)
def test_path_states_are_the_reference_states(metric):
    """The compiled ``path_states`` against ``cpu_reference.path_states``: the same
    integer states and rows (values and dtypes) of random paths and of the two extreme
    ones, on lattices of items (with and without ties, either mode, one-item groups)
    and of merged label runs; a sequence that is not a path of the lattice gets the
    reference's own answer."""
    rng = np.random.default_rng(len(metric) * 13)
    for trial in range(40):
        sizes = (1, 1) if trial == 0 else (int(rng.integers(1, 50)),
                                           int(rng.integers(1, 50)))
        s, y, g = two_group_problem(rng, *sizes, ties=trial % 2 == 1)
        lat = cr.build_lattice(s, y, g, metric, ("absolute", "signed")[trial % 2])
        if trial % 4 == 3:
            lat = cr.merged_lattice(lat, *cr.label_runs(lat))
        n_a, n_b = lat.n_a, lat.n_b
        for path in (random_path(rng, lat), np.repeat(np.int8([0, 1]), [n_a, n_b]),
                     np.repeat(np.int8([1, 0]), [n_b, n_a])):
            want, got = cr.path_states(lat, path), nr.path_states(lat, path)
            for w, o in zip(want, got):
                np.testing.assert_array_equal(o, w)
                assert o.dtype == w.dtype
    short = np.zeros(lat.n_a, dtype=np.int8)  # no b-step: not a path of lat
    for w, o in zip(cr.path_states(lat, short), nr.path_states(lat, short)):
        np.testing.assert_array_equal(o, w)


def test_solvers_take_the_compiled_relink_on_numba_and_cupy():
    """The compiled relink on numba and CuPy, with its compiled ``path_states`` for
    the states the solvers keep; the reference's pair on NumPy."""
    assert _solvers.relink_for("numba") is nr.relink
    assert _solvers.relink_for("cupy") is nr.relink
    assert _solvers.relink_for("numpy") is cr.relink
    assert states_for(nr.relink) is nr.path_states
    assert states_for(cr.relink) is cr.path_states
