"""``memory_limit`` in the public API: the NumPy engine's bands within the limit, the
errors that name the way out, K-group methods under a limit or the host's memory, the
estimator. The banded solve equals whole lattices on every engine in
tests/gpu_xorder/engine/test_engines.py; the bands of the reference in
tests/cpu_reference/test_banded.py."""

import numpy as np
import pytest

import cpu_reference as cr
from gpu_xorder import XOrder, fair_order
from gpu_xorder.engine import _plan


def problem(n=1200, seed=6):
    rng = np.random.default_rng(seed)
    s = rng.random(n)
    return s, (rng.random(n) < s).astype(int), np.where(rng.random(n) < 0.45, "f", "m")


def test_banded_solve_keeps_one_band_of_bits_within_the_memory_limit():
    """Issue #25: the banded solve held the previous band's bits while the next band
    allocated its own (and a bottom row it never read), so its peak was about twice the
    limit. Measured with tracemalloc against the same lattice's fill without bits
    (everything but the bits and checkpoints): within ``memory_limit`` now, the
    result that of the whole lattice."""
    import tracemalloc

    rng = np.random.default_rng(7)
    n_a, n_b = 1024, 3000
    s, y = rng.random(n_a + n_b), rng.integers(0, 2, n_a + n_b)
    g = np.r_[np.zeros(n_a, int), np.ones(n_b, int)]
    lat = cr.build_lattice(s, y, g, "xauc", "absolute")
    limit = int(0.6 * cr.n_words(n_a, n_b) * 4)
    band_rows, _ = _plan.numpy_plan(lat, 1, limit)
    assert band_rows < n_a
    tracemalloc.start()
    cr.fill(lat, 0.5, bits=False)
    base = tracemalloc.get_traced_memory()[1]
    tracemalloc.reset_peak()
    (path, final), = cr.solve_banded(lat, 1, band_rows, cr.numpy_band_fill([0.5]))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak - base <= limit, (peak - base, limit)
    words, want_final = cr.fill(lat, 0.5)
    want_path = cr.traceback(words, n_a, n_b)
    np.testing.assert_array_equal(path, want_path)
    np.testing.assert_array_equal(final, want_final)


def test_memory_limit_too_small_is_a_clear_memory_error():
    s, y, g = problem()
    with pytest.raises(MemoryError, match="subsample"):
        fair_order(s, y, g, backend="numpy", memory_limit=1000)


@pytest.mark.parametrize("value,exc", [(-1, ValueError), (0, ValueError), (1.5e9, TypeError),
                                       ("0.5B", ValueError), (True, TypeError)])
def test_memory_limit_is_validated(value, exc):
    s, y, g = problem(100)
    with pytest.raises(exc, match="memory_limit"):
        fair_order(s, y, g, backend="numpy", memory_limit=value)


def test_memory_limit_with_more_groups():
    """K-group methods keep their bits whole: auto falls back to iterative, an explicit
    method over the limit is a MemoryError that names the way out."""
    from gpu_xorder.engine._plan import decision_bytes

    rng = np.random.default_rng(8)
    sizes = (40, 30, 20)
    s = rng.random(90)
    y = (rng.random(90) < s).astype(int)
    g = np.repeat(["a", "b", "c"], sizes)
    kd_bytes, it_bytes = decision_bytes(sizes, "kd"), decision_bytes(sizes, "iterative")
    assert kd_bytes == 2 * -(-41 * 31 * 21 // 8)  # two bit planes for three groups
    assert it_bytes == cr.n_words(70, 20) * 4  # the last merge: 40 + 30 merged, then 20
    roomy = fair_order(s, y, g, backend="numpy", lam=1.0, memory_limit=kd_bytes)
    assert roomy.method == "kd"
    tight = fair_order(s, y, g, backend="numpy", lam=1.0, memory_limit=kd_bytes - 1)
    assert tight.method == "iterative"
    with pytest.raises(MemoryError, match="method='iterative'"):
        fair_order(s, y, g, backend="numpy", method="kd", memory_limit=kd_bytes - 1)
    with pytest.raises(MemoryError, match="subsample"):
        fair_order(s, y, g, backend="numpy", memory_limit=it_bytes - 1)
    two = problem(300)
    with pytest.raises(MemoryError, match="method='auto'"):
        fair_order(*two, backend="numpy", method="kd", memory_limit=100)


def test_more_groups_default_budget_is_the_host_memory(monkeypatch):
    """Without memory_limit the K-group methods on NumPy get the same default budget as
    the 2-D DP (a share of the available host memory), checked before any work."""
    from gpu_xorder.engine import _plan

    rng = np.random.default_rng(9)
    sizes = (40, 30, 20)
    s = rng.random(90)
    y = (rng.random(90) < s).astype(int)
    g = np.repeat(["a", "b", "c"], sizes)
    kd_bytes = _plan.decision_bytes(sizes, "kd")
    it_bytes = _plan.decision_bytes(sizes, "iterative")
    share = _plan.HOST_MEMORY_SHARE

    def available(n):
        monkeypatch.setattr(_plan, "host_memory_available", lambda: n)

    available(int(kd_bytes / share) + 2)
    assert fair_order(s, y, g, backend="numpy").method == "kd"
    available(int(kd_bytes / share) - 2)
    assert fair_order(s, y, g, backend="numpy").method == "iterative"
    with pytest.raises(MemoryError, match="of the available host memory.*method='iterative'"):
        fair_order(s, y, g, backend="numpy", method="kd")
    available(int(it_bytes / share) - 2)
    with pytest.raises(MemoryError, match="of the available host memory.*subsample"):
        fair_order(s, y, g, backend="numpy")
    # an explicit memory_limit overrides the host's
    assert fair_order(s, y, g, backend="numpy", memory_limit=kd_bytes).method == "kd"
    available(None)  # unreadable: no limit
    assert fair_order(s, y, g, backend="numpy").method == "kd"


def test_xorder_memory_limit():
    """The banded fills give the whole lattice's model. (The search alone: the exact
    solver's fronts and the bounded front hold their tables in the memory limit too,
    and 40 kB holds none, so with them the limit would decide which solver answers.)"""
    s, y, g = problem()
    plain = XOrder(lam=1.0, backend="numpy", exact_budget=0).fit(
        s, y, sensitive_features=g)
    banded = XOrder(lam=1.0, backend="numpy", memory_limit=40_000, exact_budget=0).fit(
        s, y, sensitive_features=g)
    np.testing.assert_array_equal(plain.order_, banded.order_)
    np.testing.assert_array_equal(plain.train_scores_adjusted_, banded.train_scores_adjusted_)
    assert banded.result_.extra["bands"] > 1
