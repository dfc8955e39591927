"""The polish's compiled step (``engine._numba_polish``) against the Python step it
replaces: a moved copy by ``_polish.moved``, its ``cpu_reference.path_states`` and the
relink (``cpu_reference.relink``, the oracle): the same path and counters, bit for bit,
from the same draws; the polish with it the same candidate as with the reference's
steps; and a fit's whole result, records included, the same as with the Python steps
(the members of a path are single fits: tests/gpu_xorder/postprocessing/
test_path_properties.py)."""

import warnings

import numpy as np
import pytest

pytest.importorskip("numba")

import cpu_reference as cr  # noqa: E402
from gpu_xorder import XOrder  # noqa: E402
from gpu_xorder.core import _polish  # noqa: E402
from gpu_xorder.core._candidates import candidate  # noqa: E402
from gpu_xorder.engine import _numba_polish as npo  # noqa: E402
from gpu_xorder.engine import _numba_relink as nr  # noqa: E402
from support.models import assert_same_model  # noqa: E402
from support.problems import two_group_problem  # noqa: E402

METRICS = ("xauc", "prf", "urf")
LAMS = (0.0, 0.05, 0.7, 3.0, 1e6)


def assert_step_is_the_references(lat, lam, path, seed):
    """The compiled step from the draws of a generator seeded ``seed`` against
    ``cpu_reference.relink`` of ``path`` with ``_polish.moved`` of a generator seeded
    alike; None only where the reference's answer is ``path`` itself."""
    path = np.asarray(path, dtype=np.int8)
    other = _polish.moved(path, np.random.default_rng(seed))
    want_path, want_final = cr.relink(lat, lam, path, other)
    boundaries = int(np.count_nonzero(path[1:] != path[:-1]))
    kinds, at = _polish.draws(boundaries, np.random.default_rng(seed))
    got = npo.MovedRelink(lat).step(lam, path, cr.path_states(lat, path), kinds, at)
    if got is None:
        np.testing.assert_array_equal(want_path, path)
        np.testing.assert_array_equal(want_final, cr.path_counters(lat, path))
        return False
    np.testing.assert_array_equal(got[0], want_path)
    np.testing.assert_array_equal(got[1], want_final)
    assert got[0].dtype == want_path.dtype and got[1].dtype == want_final.dtype
    return True


@pytest.mark.parametrize("metric", METRICS)
def test_compiled_steps_are_the_references(metric):
    """Random paths (long ones with more than ``POLISH_MOVES`` boundaries: the drawn
    subset of them) and the cell rule's, distinct and tied scores, every lam; both
    outcomes (a segment of the copy taken, none) occur."""
    rng = np.random.default_rng(len(metric) * 31)
    outcomes = set()
    for trial in range(16):
        n_a, n_b = int(rng.integers(1, 90)), int(rng.integers(1, 90))
        s, y, g = two_group_problem(rng, n_a, n_b, ties=trial % 2 == 1)
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        rule = cr.traceback(cr.fill(lat, 0.5)[0], lat.n_a, lat.n_b)
        random = rng.permutation(np.repeat([0, 1], [lat.n_a, lat.n_b]))
        for lam in LAMS:
            for path in (rule, random):
                outcomes.add(assert_step_is_the_references(lat, lam, path,
                                                           int(rng.integers(2**31))))
    assert outcomes == {True, False}


def test_compiled_steps_on_degenerate_paths():
    """One item per group, one against many, two runs, alternating steps: the moves
    the Python step makes, and its relink."""
    rng = np.random.default_rng(5)
    for n_a, n_b in ((1, 1), (1, 9), (9, 1), (5, 5), (40, 40)):
        s, y, g = two_group_problem(rng, n_a, n_b)
        for metric in METRICS:
            lat = cr.build_lattice(s, y, g, metric, "absolute")
            paths = [np.repeat([0, 1], [n_a, n_b]), np.repeat([1, 0], [n_b, n_a])]
            if n_a == n_b:
                paths.append(np.tile([0, 1], n_a))
            for path in paths:
                for seed in range(6):
                    assert_step_is_the_references(lat, 1e3, path, seed)


@pytest.mark.parametrize("metric", METRICS)
def test_polish_with_compiled_steps_is_the_references(metric):
    """The polish with numba's relink (compiled steps) against the polish with the
    reference relink (Python steps): the same candidate, bit for bit, gains or not;
    ``best`` itself where nothing is gained."""
    rng = np.random.default_rng(len(metric) * 7)
    gained = 0
    for trial in range(12):
        s, y, g = two_group_problem(rng, int(rng.integers(2, 70)),
                                    int(rng.integers(2, 70)), ties=trial % 3 == 0)
        lat = cr.build_lattice(s, y, g, metric, "absolute")
        lam = float(10 ** rng.uniform(-1, 7))
        words, final = cr.fill(lat, lam)
        start = candidate(lat, cr.traceback(words, lat.n_a, lat.n_b), final)
        want = _polish.polish(lat, lam, start)
        got = _polish.polish(lat, lam, start, nr.relink)
        assert (got is start) == (want is start)
        np.testing.assert_array_equal(got.path, want.path)
        np.testing.assert_array_equal(got.final, want.final)
        assert got.path.dtype == want.path.dtype
        assert (got.auc, got.d) == (want.auc, want.d)
        gained += want is not start
    assert gained >= 3


def test_the_compiled_steps_run_with_numbas_relink_only():
    s, y, g = two_group_problem(np.random.default_rng(1), 5, 6)
    lat = cr.build_lattice(s, y, g, "xauc", "absolute")
    assert isinstance(_polish._compiled_step(lat, nr.relink), npo.MovedRelink)
    assert _polish._compiled_step(lat, cr.relink) is None
    assert _polish._compiled_step(lat, lambda *args: nr.relink(*args)) is None


@pytest.mark.parametrize("metric", METRICS)
def test_fits_with_compiled_steps_are_those_with_python_steps(monkeypatch, metric):
    """``XOrder(lam).fit`` on numba with the compiled steps and with the Python steps
    (the compiled relink called from Python, as before them): the same model, every
    field of ``result_`` bit for bit (``solver_reason``, ``polish_gain``, the fronts'
    records). Some of the fits polish with a gain."""
    rng = np.random.default_rng(11 + len(metric))
    polished = 0
    for trial in range(2):
        n = 140
        g = rng.integers(0, 2, n)
        y = rng.integers(0, 2, n)
        s = y * 1.2 + 0.6 * g + rng.normal(0, 1, n)
        if trial == 1:
            s = np.round(s * 2) / 2
        new = np.linspace(-3.0, 4.0, 8)
        for lam in (0.5, 5.0, 1e4):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compiled = XOrder(lam=lam, metric=metric, backend="numba").fit(
                    s, y, sensitive_features=g)
                with monkeypatch.context() as m:
                    m.setattr(_polish, "_compiled_step", lambda lat, relink: None)
                    python = XOrder(lam=lam, metric=metric, backend="numba").fit(
                        s, y, sensitive_features=g)
            assert_same_model(compiled, python, new, np.arange(8) % 2)
            polished += compiled.result_.extra.get("polish_gain", 0) > 0
    assert polished >= 1
