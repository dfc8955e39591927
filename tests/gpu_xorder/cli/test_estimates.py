"""The command line's estimates before long work: how they are said, what the cost
models grow with, and (slow) that they are within a factor of two of measured CPU
times on this machine."""

import math
import re
import time

import numpy as np
import pytest

from gpu_xorder.cli import _costs, _output

pytestmark = pytest.mark.usefixtures("plain_consoles")


def test_an_estimate_is_said_in_words_above_its_threshold(capsys):
    assert [_output.spell(s) for s in (0.4, 20, 60, 130, 599, 700, 3600, 6000)] == [
        "0 s", "20 s", "1 min", "2 min 10 s", "9 min 59 s", "11 min", "1 h", "1 h 40 min"]
    assert _output.estimate(29.0, "short") == 29.0
    assert capsys.readouterr().err == ""
    _output.estimate(130.0, "a bootstrap of 10^6 resamples")
    _output.estimate(40.0, "at most", bound=True)
    _output.estimate(None, "unknown")
    _output.estimate(90.0, "some parts", lower=True)
    assert capsys.readouterr().err.splitlines() == [
        "estimate: about 2 min 10 s (a bootstrap of 10^6 resamples)",
        "estimate: up to about 40 s (at most)",
        "estimate: at least about 1 min 30 s (some parts)"]


def test_a_countdown_without_a_measure_of_progress():
    beat = _output.Heartbeat("bootstrap", "", lambda text: None, now=lambda: 10.0,
                             expected=100.0)
    assert beat.line(35.0) == "bootstrap: running, elapsed 0:00:35, about 0:01:05 left"
    # late: never "about 0:00:00 left" with the work not done (paper said it at 0 %)
    assert beat.line(135.0) == ("bootstrap: running, elapsed 0:02:15, past the estimate "
                                "of 0:01:40")
    counted = _output.Heartbeat("paper", "repetitions", lambda text: None,
                                now=lambda: 0.0, expected=2.0)
    counted.update(0, 10)
    assert counted.line(5.0) == ("paper: 0 of 10 repetitions (0%), elapsed 0:00:05, past "
                                 "the estimate of 0:00:02")
    counted.update(1, 10)
    assert counted.line(5.0).endswith("elapsed 0:00:05, about 0:00:45 left")


def test_the_cost_models_grow_as_the_work_does():
    base = _costs.bootstrap_seconds(400, 2, 1000)
    assert 1.9 * base < _costs.bootstrap_seconds(400, 2, 2000) < 2 * base
    assert _costs.bootstrap_seconds(400, 2, 2000, n_workers=2) == pytest.approx(base)
    assert _costs.bootstrap_seconds(4000, 2, 1000) > 5 * base  # items x strata
    # the tables: pairs of groups, each on its two groups' items
    assert _costs.pair_tables_seconds(4000, 1000) > 50 * _costs.pair_tables_seconds(
        4000, 100)
    assert _costs.delong_seconds(4000, 200) > 3 * _costs.delong_seconds(4000, 100)
    assert _costs.pictures_seconds(200, 400) == pytest.approx(
        100 * _costs.pictures_seconds(2, 400))
    assert _costs.workers(None) == 1 and _costs.workers(-1, "tcp://x:1") == 1


def _plan(sizes, lams=(0.5,), backend="numpy", **kw):
    """The plan of a fit of groups of ``sizes`` (``core._choice.plan``, which the
    command line prints from)."""
    from gpu_xorder.core import _choice

    args = dict(metric="xauc", mode="absolute", backend=backend, method="auto",
                solver="auto", max_disparity=None, memory_limit=None, alone=True)
    return _choice.plan(sizes, list(lams), **{**args, **kw})


def test_a_constrained_fit_estimates_its_bound():
    """--max-disparity on a lattice of exact fronts: their size is the data's, so the
    estimate is the bound (the fronts' cap), and says so."""
    from gpu_xorder.core._choice import EXACT_SECONDS_PER_STATE, front_states_bound
    from gpu_xorder.core._constrained import CONSTRAINT_EXACT_STATES

    constrained = _plan([60, 60], max_disparity=0.0)
    assert constrained.seconds_bound and constrained.solvers == ("constrained",)
    assert constrained.seconds >= CONSTRAINT_EXACT_STATES * EXACT_SECONDS_PER_STATE
    # a small lattice has fewer paths into its cells than the cap: C(6, 3) - 1 of 3 x 3
    assert front_states_bound(2, 2) == 19 == sum(
        math.comb(i + j, i) for i in range(3) for j in range(3))
    assert _plan([4, 4], max_disparity=0.0).seconds < 0.1
    assert not _plan([60, 60]).seconds_bound
    assert not _plan([3000, 3000], max_disparity=0.0).seconds_bound  # no exact fronts


# ------------------------------------------------------------- calibration (slow)

def _cpu(function):
    start = time.process_time()
    function()
    return time.process_time() - start


def _data(n, k, seed=0):
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, k, n)  # in no order, as data are
    y = (rng.random(n) < 0.4).astype(int)
    groups[:2 * k], y[:2 * k] = np.repeat(np.arange(k), 2), np.tile([0, 1], k)
    return rng.normal(size=n) + y, y, groups


def _within_two(measured, estimated, what):
    ratio = measured / estimated
    print(f"{what}: measured {measured:.3g} s, estimated {estimated:.3g} s, ratio "
          f"{ratio:.2f}")  # the figures, with -s
    assert 0.5 <= ratio <= 2.0, f"{what}: measured {measured:.3g} s, estimated " \
                                f"{estimated:.3g} s (ratio {ratio:.2f})"
    return ratio


@pytest.mark.slow
@pytest.mark.parametrize("n,k,resamples", [(400, 2, 20000), (2000, 5, 2000),
                                           (20000, 2, 300), (2000, 20, 300),
                                           (200000, 2, 10)])
def test_the_bootstrap_estimate_is_within_two(n, k, resamples):
    from gpu_xorder import metrics

    s, y, g = _data(n, k)
    measured = _cpu(lambda: metrics.confidence_intervals(
        y, s, sensitive_features=g, method="bootstrap", n_bootstrap=resamples,
        random_state=0))
    _within_two(measured, _costs.bootstrap_seconds(n, k, resamples), "bootstrap")


@pytest.mark.slow
@pytest.mark.parametrize("n,k", [(2000, 100), (20000, 10), (4000, 60)])
def test_the_audit_tables_and_delong_estimates_are_within_two(n, k):
    from gpu_xorder import metrics
    from gpu_xorder.cli import _audit

    s, y, g = _data(n, k)
    measured = _cpu(lambda: metrics.confidence_intervals(y, s, sensitive_features=g,
                                                         method="delong"))
    _within_two(measured, _costs.delong_seconds(n, k), "DeLong")
    labels = np.unique(g)
    items = _audit._items_of(g, labels)

    def tables():
        from gpu_xorder.metrics._ranking import defined

        for a in labels.tolist():
            for b in labels.tolist():
                index = items[a] if a == b else np.sort(np.concatenate((items[a],
                                                                        items[b])))
                defined(metrics.xauc, y[index], s[index], sensitive_features=g[index], g=a,
                        h=b)
                if a < b:
                    defined(metrics.urf, None, s[index], sensitive_features=g[index], g=a,
                            h=b)
            defined(metrics.prf, y, s, sensitive_features=g, g=a)

    _within_two(_cpu(tables), _costs.pair_tables_seconds(n, k), "tables")


@pytest.mark.slow
@pytest.mark.parametrize("k,per", [(100, 4), (200, 4), (3, 1500), (10, 100), (30, 30)])
def test_the_numba_fit_estimate_is_within_two(k, per):
    pytest.importorskip("numba")
    from gpu_xorder import XOrder

    s, y, g = _data(k * per, k)
    warm = np.concatenate([np.flatnonzero(g == h)[:8] for h in range(3)])
    XOrder(lam=0.5, backend="numba").fit(s[warm], y[warm], sensitive_features=g[warm])
    measured = _cpu(lambda: XOrder(lam=0.5, backend="numba", method="iterative").fit(
        s, y, sensitive_features=g))
    _within_two(measured, _plan(np.bincount(g), backend="numba",
                                method="iterative").seconds, "numba iterative fit")


@pytest.mark.slow
def test_the_pictures_estimate_is_within_two(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from gpu_xorder.cli import main

    s, y, g = _data(2000, 21)
    path = tmp_path / "d.csv"
    path.write_text("s,y,g\n" + "".join(f"{float(a)!r},{b},g{c}\n"
                                        for a, b, c in zip(s, y, g)))
    argv = ["audit", str(path), "--score", "s", "--label", "y", "--group", "g",
            "--max-groups", "30", "--no-ci"]
    main(argv)  # imports and caches warm
    without = _cpu(lambda: main(argv))
    with_pictures = _cpu(lambda: main(argv + ["--plot", str(tmp_path / "P"),
                                              "--plot-pairs", "20"]))
    capsys.readouterr()
    _within_two(with_pictures - without, _costs.pictures_seconds(21, 2000, False),
                "pictures")
    assert re.fullmatch(r"\d+", str(len(list((tmp_path / "P").iterdir()))))


def test_paper_is_estimated_before_its_work_and_after_its_first_repetition(monkeypatch,
                                                                           capsys):
    """paper printed no estimate before a run of 200 CPU seconds (its model counts
    xOrder's fits only, the base models and baselines are most of it), and its
    progress counted that lower bound down to "about 0:00:00 left" at 0 %: now the
    lower bound says so, and the first repetition times the others, every method
    counted. (Every estimate is printed here: ESTIMATE_SECONDS 0.)"""
    from gpu_xorder.cli import main

    monkeypatch.setattr(_output, "ESTIMATE_SECONDS", 0.0)
    assert main(["paper", "--data", "german", "--repeats", "3", "--methods", "xorder",
                 "post-logit", "--lam", "1", "--subsample", "4", "--backend",
                 "numpy"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert re.fullmatch(r"estimate: at least about \d+ s \(3 repetitions of german: "
                        r"xOrder's fits for 1 lams on the numpy engine; the base models "
                        r"and the other methods not counted, timed on the first "
                        r"repetition\)", err[0]), err
    assert re.fullmatch(r"estimate: about \d+ s \(german: the other 2 of 3 repetitions, "
                        r"timed on the first 1 \(\d+ s\), every method counted\)",
                        err[1]), err
    assert not any("0:00:00 left" in line for line in err)


def test_audit_report_with_a_model_counts_its_trade_off_path(tmp_path, monkeypatch,
                                                             capsys):
    """audit --report --model fits an xOrder path on the data (the trade-off along
    lam): its cost (fit's model) is part of the estimate before the work."""
    pytest.importorskip("jinja2")
    pytest.importorskip("matplotlib")
    from gpu_xorder.cli import main

    rng = np.random.default_rng(0)
    n = 400
    y = (np.arange(n) // 2) % 2
    s = np.round(rng.normal(size=n) + y, 3)
    path = tmp_path / "d.csv"
    path.write_text("score,label,group\n" + "".join(
        f"{a!r},{b},{'ab'[k % 2]}\n" for k, (a, b) in enumerate(zip(s.tolist(),
                                                                  y.tolist()))))
    model = str(tmp_path / "m.json")
    assert main(["fit", str(path), "--score", "score", "--label", "label", "--group",
                 "group", "--model", model, "--backend", "numpy"]) == 0
    capsys.readouterr()
    monkeypatch.setattr(_output, "ESTIMATE_SECONDS", 0.0)
    assert main(["audit", str(path), "--score", "score", "--label", "label", "--group",
                 "group", "--no-ci", "--report", str(tmp_path / "r.html"), "--model",
                 model, "--high-score", "harmful"]) == 0
    err = capsys.readouterr().err
    assert re.match(r"estimate: about \d+ s \(400 rows, 2 groups, 1 score column, 4 "
                    r"pictures in the report, the report's trade-off path of the "
                    r"model\)", err), err
