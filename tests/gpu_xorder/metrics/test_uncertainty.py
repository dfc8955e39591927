"""Confidence intervals (gpu_xorder.metrics._uncertainty and _delong, public in
gpu_xorder.metrics): against slow reference computations (a bootstrap loop over the
library's metrics, DeLong's formula by O(n^2) loops) and by coverage on simulated data."""

import re
import signal
import subprocess
import sys
import time
import tracemalloc
from statistics import NormalDist

import numpy as np
import pytest

from cpu_reference import half_wins2
from gpu_xorder import metrics
from gpu_xorder.metrics import _delong, _uncertainty
from gpu_xorder.metrics._uncertainty import (
    MAX_BOOTSTRAP,
    MSG_BOOTSTRAP_DELONG,
    MSG_N_BOOTSTRAP,
    MSG_N_BOOTSTRAP_MAX,
)
from gpu_xorder.utils._validation import MSG_LEVEL, MSG_RANDOM_STATE
from support import REPO


def tiny(n=30, k=3, seed=3, ties=True):
    """Scores with ties (if asked), labels and string groups; every stratum occupied."""
    rng = np.random.default_rng(seed)
    g = np.array([f"g{i}" for i in rng.integers(0, k, n)])
    y = rng.integers(0, 2, n)
    g[:2 * k] = np.repeat([f"g{i}" for i in range(k)], 2)
    y[:2 * k] = np.tile([0, 1], k)
    s = y + (g == "g0") + rng.normal(0, 1, n)
    if ties:
        s = np.round(s, 1)
    return s, y, g


# ---------------------------------------------------------------- references

def loop_bootstrap(s, y, g, level, n_bootstrap, seed):
    """The stratified bootstrap, one resample at a time through gpu_xorder.metrics:
    resample b draws slot by slot (strata 2 k + y in group order, items in increasing
    index) with default_rng(SeedSequence(seed).spawn(B)[b]).integers(0, high)."""
    labels = np.unique(g)
    k = labels.size
    stratum = 2 * np.searchsorted(labels, g) + y
    members = [np.flatnonzero(stratum == t) for t in range(2 * k)]
    high = np.concatenate([np.full(m.size, m.size) for m in members])
    pairs = [(a, b) for a in labels for b in labels if a < b]
    values = {}

    def keep(key, value):
        values.setdefault(key, []).append(value)

    for seq in np.random.SeedSequence(seed).spawn(n_bootstrap):
        draw = np.random.default_rng(seq).integers(0, high)
        items, start = [], 0
        for m in members:
            items += [m[d] for d in draw[start:start + m.size]]
            start += m.size
        sb, yb, gb = s[items], y[items], g[items]
        keep("auc", metrics.auc(yb, sb))
        for a in labels:
            keep(("prf", a), metrics.prf(yb, sb, sensitive_features=gb, g=a))
            for b in labels:
                keep(("xauc", a, b), metrics.xauc(yb, sb, sensitive_features=gb, g=a, h=b))
        for a, b in pairs:
            keep(("dx", a, b), metrics.xauc(yb, sb, sensitive_features=gb, g=a,
                                            h=b) - metrics.xauc(yb, sb,
                                                                             sensitive_features=gb,
                                                                             g=b, h=a))
            keep(("dp", a, b), metrics.prf(yb, sb, sensitive_features=gb,
                                           g=a) - metrics.prf(yb, sb,
                                                                        sensitive_features=gb,
                                                                        g=b))
            up, down = half_wins2(sb[gb == a], sb[gb == b]), (
                (gb == a).sum() * (gb == b).sum())
            keep(("du", a, b), (up - down) / down)
    return values, pairs


def quantiles(values, level):
    return tuple(np.quantile(values, [(1 - level) / 2, (1 + level) / 2]))


def absolute(lo, hi):
    if lo <= 0 <= hi:
        return 0.0, max(-lo, hi)
    return min(abs(lo), abs(hi)), max(abs(lo), abs(hi))


def psi(u, v):
    return 1.0 if u > v else 0.5 if u == v else 0.0


def loop_components(x, y):
    """Placement values by the O(n^2) double loop."""
    v10 = np.array([sum(psi(a, b) for b in y) / len(y) for a in x])
    v01 = np.array([sum(psi(a, b) for a in x) / len(x) for b in y])
    return v10, v01


def loop_delong(x, y):
    v10, v01 = loop_components(x, y)
    theta = v10.mean()
    s10 = sum((v - theta) ** 2 for v in v10) / (len(x) - 1)
    s01 = sum((v - theta) ** 2 for v in v01) / (len(y) - 1)
    return s10 / len(x) + s01 / len(y)


# ---------------------------------------------------------------- tests

@pytest.mark.parametrize("method", ["bootstrap", "delong"])
def test_estimates_are_the_metrics(method):
    s, y, g = tiny()
    ci = metrics.confidence_intervals(y, s, sensitive_features=g, method=method,
                                      n_bootstrap=50 if method == "bootstrap" else None,
                                      random_state=1)
    assert ci.auc.estimate == metrics.auc(y, s)
    for (a, b), iv in ci.xauc.items():
        assert iv.estimate == metrics.xauc(y, s, sensitive_features=g, g=a, h=b)
    for a, iv in ci.auc_within.items():
        assert iv.estimate == metrics.xauc(y, s, sensitive_features=g, g=a, h=a)
        assert ci.prf[a].estimate == metrics.prf(y, s, sensitive_features=g, g=a)
    for m in ("xauc", "prf", "urf"):
        pairs = metrics.disparity_pairs(y, s, sensitive_features=g, metric=m)
        assert {p: iv.estimate for p, iv in ci.disparity_pairs[m].items()} == pairs
        assert ci.disparity[m].estimate == max(pairs.values())
    assert {p: iv.estimate for p, iv in ci.urf.items()} == {
        (a, b): metrics.urf(None, s, sensitive_features=g, g=a, h=b) for a, b in ci.urf}
    every = [ci.auc, *ci.xauc.values(), *ci.prf.values(), *ci.urf.values(),
             *ci.disparity.values()]
    assert all(0 <= iv.low <= iv.estimate <= iv.high <= 1 for iv in every)


def test_bootstrap_equals_a_loop_over_the_metrics():
    """Same seed, same intervals: every metric, the pairs' |D| from the signed D's
    interval, and the maximum over three pairs at the Bonferroni level."""
    s, y, g = tiny()
    level, n_boot = 0.9, 120
    ci = metrics.confidence_intervals(y, s, sensitive_features=g, level=level,
                                      n_bootstrap=n_boot, random_state=7)
    values, pairs = loop_bootstrap(s, y, g, level, n_boot, 7)
    assert (ci.auc.low, ci.auc.high) == quantiles(values["auc"], level)
    for a in ci.groups:
        assert (ci.prf[a].low, ci.prf[a].high) == quantiles(values["prf", a], level)
        assert (ci.auc_within[a].low, ci.auc_within[a].high) == quantiles(
            values["xauc", a, a], level)
    for (a, b), iv in ci.xauc.items():
        assert (iv.low, iv.high) == quantiles(values["xauc", a, b], level)
    joint = 1 - (1 - level) / len(pairs)
    for m, key in (("xauc", "dx"), ("prf", "dp"), ("urf", "du")):
        for a, b in pairs:
            iv = ci.disparity_pairs[m][a, b]
            assert (iv.low, iv.high) == absolute(*quantiles(values[key, a, b], level))
        limits = [absolute(*quantiles(values[key, a, b], joint)) for a, b in pairs]
        assert (ci.disparity[m].low, ci.disparity[m].high) == (
            max(lo for lo, _ in limits), max(hi for _, hi in limits))
    assert ci.urf == ci.disparity_pairs["urf"]


def test_bootstrap_does_not_depend_on_chunks(monkeypatch):
    s, y, g = tiny(n=60, ties=False)
    whole = metrics.confidence_intervals(y, s, sensitive_features=g, n_bootstrap=64,
                                         random_state=3)
    monkeypatch.setattr(_uncertainty, "CHUNK_ELEMENTS", 5 * 60 * 6)  # chunks of 5
    assert metrics.confidence_intervals(y, s, sensitive_features=g, n_bootstrap=64,
                                        random_state=3) == whole
    gen = metrics.confidence_intervals(y, s, sensitive_features=g, n_bootstrap=64,
                                       random_state=np.random.default_rng(0))
    assert gen != whole and gen.auc.estimate == whole.auc.estimate


def test_delong_variances_equal_the_loop_formula():
    s, y, g = tiny(n=40, k=2)
    pos, neg = s[y == 1], s[y == 0]
    assert metrics.auc_variance(y, s) == pytest.approx(loop_delong(pos, neg), rel=1e-12)
    for a, b in (("g0", "g1"), ("g1", "g0"), ("g1", "g1")):
        x, z = s[(g == a) & (y == 1)], s[(g == b) & (y == 0)]
        assert metrics.xauc_variance(y, s, sensitive_features=g, g=a,
                                     h=b) == pytest.approx(loop_delong(x, z),
                                                                     rel=1e-12)
    var = _delong.delong_variances(s, y, (g == "g1").astype(int), 2)
    # PRF(g0) - PRF(g1): independent positives, shared negatives
    pa, pb = s[(g == "g0") & (y == 1)], s[(g == "g1") & (y == 1)]
    va10, va01 = loop_components(pa, neg)
    vb10, vb01 = loop_components(pb, neg)
    s01_ab = sum((u - va01.mean()) * (w - vb01.mean()) for u, w in zip(va01, vb01)) / (
        neg.size - 1)
    expected = (loop_delong(pa, neg) + loop_delong(pb, neg) - 2 * s01_ab / neg.size)
    assert var["pairs"]["prf"][0] == pytest.approx(expected, rel=1e-12)
    assert var["pairs"]["xauc"][0] == pytest.approx(
        loop_delong(s[(g == "g0") & (y == 1)], s[(g == "g1") & (y == 0)])
        + loop_delong(s[(g == "g1") & (y == 1)], s[(g == "g0") & (y == 0)]), rel=1e-12)
    assert var["pairs"]["urf"][0] == pytest.approx(
        4 * loop_delong(s[g == "g0"], s[g == "g1"]), rel=1e-12)
    ci = metrics.confidence_intervals(y, s, sensitive_features=g, method="delong", level=0.9)
    half = NormalDist().inv_cdf(0.95) * np.sqrt(loop_delong(pos, neg))
    assert (ci.auc.low, ci.auc.high) == pytest.approx(
        (ci.auc.estimate - half, ci.auc.estimate + half), rel=1e-12)


def test_coverage_on_simulated_data():
    """200 simulated data sets (binormal scores, fixed stratum sizes): the 95%
    intervals cover the true AUC and the true Delta-xAUC in 88-99% of them."""
    rng = np.random.default_rng(2024)
    mu = {(0, 1): 1.2, (0, 0): 0.0, (1, 1): 0.8, (1, 0): 0.3}  # (group, label): mean
    size = {(0, 1): 25, (0, 0): 35, (1, 1): 15, (1, 0): 25}
    phi = NormalDist().cdf

    def xauc(a, b):
        return phi((mu[a, 1] - mu[b, 0]) / np.sqrt(2))

    n_pos = size[0, 1] + size[1, 1]
    n_neg = size[0, 0] + size[1, 0]
    true_auc = sum(size[a, 1] * size[b, 0] * xauc(a, b) for a in (0, 1) for b in (0, 1)) \
        / (n_pos * n_neg)
    true_dx = abs(xauc(0, 1) - xauc(1, 0))
    covered = {m: [0, 0] for m in ("bootstrap", "delong")}
    keys = list(size)
    g = np.concatenate([np.full(size[k], k[0]) for k in keys])
    y = np.concatenate([np.full(size[k], k[1]) for k in keys])
    for _ in range(200):
        s = np.concatenate([rng.normal(mu[k], 1, size[k]) for k in keys])
        for method, n_boot in (("bootstrap", 300), ("delong", None)):
            ci = metrics.confidence_intervals(y, s, sensitive_features=g, method=method,
                                              n_bootstrap=n_boot, random_state=rng)
            covered[method][0] += ci.auc.low <= true_auc <= ci.auc.high
            dx = ci.disparity["xauc"]
            covered[method][1] += dx.low <= true_dx <= dx.high
    for method, counts in covered.items():
        for count in counts:
            assert 176 <= count <= 198, (method, counts)


def test_undefined_values_are_none():
    s = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3])
    y = np.array([1, 0, 1, 0, 0, 1, 0])
    g = np.array(["a", "a", "a", "b", "b", "c", "c"])  # b has no positives
    for method in ("bootstrap", "delong"):
        ci = metrics.confidence_intervals(y, s, sensitive_features=g, method=method,
                                          n_bootstrap=30 if method == "bootstrap" else None,
                                          random_state=0)
        assert ci.xauc["b", "a"] is None and ci.prf["b"] is None
        assert ci.disparity["xauc"] is None and ci.disparity["prf"] is None
        assert ci.disparity_pairs["xauc"]["a", "b"] is None
        assert ci.urf["a", "b"] is not None
    # one positive in c: DeLong cannot estimate S10, the bootstrap can
    assert ci.xauc["c", "a"] is None
    boot = metrics.confidence_intervals(y, s, sensitive_features=g, n_bootstrap=30,
                                        random_state=0)
    assert boot.xauc["c", "a"] is not None
    one_group = metrics.confidence_intervals(y, s, sensitive_features=np.zeros(7),
                                             n_bootstrap=10)
    assert one_group.disparity == {"xauc": None, "prf": None, "urf": None}


@pytest.mark.parametrize("kwargs,message", [
    ({"level": 1.0}, MSG_LEVEL.format(value=1.0)),
    ({"n_bootstrap": 0}, MSG_N_BOOTSTRAP.format(value=0)),
    ({"random_state": -1}, MSG_RANDOM_STATE.format(value=-1)),
    ({"method": "jackknife"}, "unknown method 'jackknife'"),
])
def test_bad_parameters(kwargs, message):
    s, y, g = tiny()
    with pytest.raises(ValueError, match=re.escape(message)):
        metrics.confidence_intervals(y, s, sensitive_features=g, **kwargs)
    with pytest.raises(ValueError, match="y has no positives"):
        metrics.confidence_intervals(np.zeros(s.size), s, sensitive_features=g)


def test_a_bool_or_text_level_or_a_float_n_bootstrap_is_a_type_error():
    s, y, g = tiny()
    for level, message in ((True, "level must be a number, not the bool True"),
                           ("0.9", re.escape(MSG_LEVEL.format(value="0.9")))):
        with pytest.raises(TypeError, match=message):
            metrics.confidence_intervals(y, s, sensitive_features=g, level=level)
    for n in (2.0, True):
        with pytest.raises(TypeError, match=re.escape(MSG_N_BOOTSTRAP.format(value=n))):
            metrics.confidence_intervals(y, s, sensitive_features=g, n_bootstrap=n)


# ---------------------------------------------------------------- bounded work (issue #25)

def test_delong_refuses_n_bootstrap():
    s, y, g = tiny()
    with pytest.raises(ValueError, match=re.escape(MSG_BOOTSTRAP_DELONG)):
        metrics.confidence_intervals(y, s, sensitive_features=g, method="delong",
                                     n_bootstrap=2000)
    assert metrics.confidence_intervals(y, s, sensitive_features=g,
                                        method="delong").n_bootstrap is None
    assert metrics.confidence_intervals(y, s, sensitive_features=g,
                                        random_state=0).n_bootstrap == 2000


def test_absurd_resample_counts_are_refused_up_front(monkeypatch):
    s, y, g = tiny()
    with pytest.raises(ValueError, match=re.escape(MSG_N_BOOTSTRAP_MAX.format(
            value=MAX_BOOTSTRAP + 1, limit=MAX_BOOTSTRAP))):
        metrics.confidence_intervals(y, s, sensitive_features=g, n_bootstrap=MAX_BOOTSTRAP + 1)
    # the statistics kept per resample are checked against the memory before any work
    need = _uncertainty.bootstrap_bytes(10**5, 3)
    monkeypatch.setattr(_uncertainty, "_bootstrap_budget", lambda: need - 1)
    monkeypatch.setattr(_uncertainty, "bootstrap_statistics", None)  # never reached
    with pytest.raises(MemoryError, match=r"100000 bootstrap resamples of 3 groups keep "
                                          r"[0-9.]+ GiB .*use at most 99999 resamples"):
        metrics.confidence_intervals(y, s, sensitive_features=g, n_bootstrap=10**5,
                                     random_state=0)


def test_child_seeds_are_the_spawned_seeds():
    for parent in (np.random.SeedSequence(7), np.random.SeedSequence(123, spawn_key=(4, 2)),
                   np.random.SeedSequence(5, pool_size=8)):
        parent.spawn(3)  # children already spawned shift the numbering, as in spawn
        state = (parent.entropy, parent.spawn_key, parent.pool_size,
                 parent.n_children_spawned)
        mine = [_uncertainty.child_seed(state, b) for b in range(40)]
        for a, b in zip(mine, parent.spawn(40)):
            np.testing.assert_array_equal(a.generate_state(4), b.generate_state(4))


def test_bootstrap_memory_grows_only_by_the_statistics_kept():
    """Seeds and resamples are made chunk by chunk: 10,000 more resamples cost no more
    than their statistics (``bootstrap_bytes``), not a SeedSequence each (about 370
    bytes) nor a second copy of the statistics (measured: 0.75 of the statistics' bytes;
    a second copy would make it 1.75, the seeds 3.2)."""
    s, y, g = tiny(n=20, k=2, ties=False)
    peaks = {}
    for n_boot in (1000, 11000):
        metrics.confidence_intervals(y, s, sensitive_features=g, n_bootstrap=50,
                                     random_state=0)  # warm
        tracemalloc.start()
        metrics.confidence_intervals(y, s, sensitive_features=g, n_bootstrap=n_boot,
                                     random_state=0)
        peaks[n_boot] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    grown = peaks[11000] - peaks[1000]
    allowed = _uncertainty.bootstrap_bytes(11000, 2) - _uncertainty.bootstrap_bytes(1000, 2)
    assert 0 < grown <= 1.25 * allowed, (grown, allowed)


INTERRUPTED = """
import sys, time
import numpy as np
from gpu_xorder import metrics
rng = np.random.default_rng(0)
s, y, g = rng.random(400), rng.integers(0, 2, 400), rng.integers(0, 2, 400)
print("go", flush=True)
try:
    metrics.confidence_intervals(y, s, sensitive_features=g, n_bootstrap=10**6, random_state=0,
                                 n_jobs={n_jobs})
except KeyboardInterrupt:
    print(time.time(), flush=True)
    raise
"""


@pytest.mark.parametrize("n_jobs", [None, pytest.param(2, marks=pytest.mark.slow)])
def test_ctrl_c_stops_a_long_bootstrap_within_a_second(n_jobs):
    """SIGINT one second into 10**6 resamples (over a minute of work): the
    KeyboardInterrupt reaches the caller within a second, in this process or from
    joblib's workers."""
    root = str(REPO)
    proc = subprocess.Popen([sys.executable, "-c", INTERRUPTED.format(n_jobs=n_jobs)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=root)
    try:
        assert proc.stdout.readline().strip() == "go"
        time.sleep(1.0)
        sent = time.time()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert "KeyboardInterrupt" in err
    assert float(out.split()[0]) - sent < 1.0
