"""Every model of ``xorder_path`` is the very model of its single fit, bit for bit.

The lams of a path are solved each as if alone (``solve_encoded(alone=True)``): the same
solver choice, search, candidates and tie rule as ``XOrder(lam=value).fit``, so the same
ordering is chosen among orderings of equal objective. Before, the lams of a path shared
one Lagrangian search, and the exact solver kept, among optimal orderings, the one that
search had found: ``xorder_path(..., lams=[0, 0.1, 0.5, 3])`` and ``XOrder(lam=0.5)``
chose orderings of equal objective but different adjusted scores (the reproducer below).
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu_xorder import XOrder, xorder_path
from support.models import assert_same_model
from support.problems import metric_defined
from support.properties import examples

#: The reproducer of the defect, and lists with duplicates and values in any order.
LAM_LISTS = ([0.0, 0.1, 0.5, 3.0], [3.0, 0.0, 0.5, 0.1], [0.5, 0.5, 0.0],
             [2.0, 0.05, 2.0], [0.3])


@st.composite
def path_problem(draw):
    """Small problems: 2 groups (each solver) or 3 (each method), every metric, scores
    distinct, from few values (ties within and across groups) or the reproducer's
    shifted normal, learnt on every item or every second; one of ``LAM_LISTS`` or a
    drawn list (duplicates, any order)."""
    k = draw(st.sampled_from([2, 2, 3]))
    metric = draw(st.sampled_from(["xauc", "prf", "urf"]))
    sizes = draw(st.lists(st.integers(3, 16 if k == 2 else 6), min_size=k, max_size=k))
    kind = draw(st.sampled_from(["ties", "distinct", "reproducer"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    groups = rng.permutation(np.repeat(np.arange(k), sizes))
    y = rng.integers(0, 2, groups.size)
    if kind == "ties":
        scores = rng.integers(0, 4, groups.size) / 4.0
    elif kind == "distinct":
        scores = rng.permutation(groups.size) / groups.size
    else:
        scores = y * rng.uniform(0, 2) + 0.5 * groups + rng.normal(0, 1, groups.size)
    lams = draw(st.one_of(
        st.sampled_from(LAM_LISTS),
        st.lists(st.sampled_from([0.0, 0.05, 0.1, 0.5, 1.0, 3.0]), min_size=1,
                 max_size=4)))
    if k == 2:
        params = {"solver": draw(st.sampled_from(["auto", "auto", "lagrangian", "exact",
                                                  "paper"]))}
    else:
        params = {"method": draw(st.sampled_from(["auto", "kd", "iterative", "best"]))}
    params.update(metric=metric, backend="numpy",
                  subsample=draw(st.sampled_from([None, None, None, 2])))
    return scores, y, groups, list(lams), params


@settings(max_examples=examples(30), deadline=None)
@given(path_problem())
def test_every_path_model_is_its_single_fit(problem):
    scores, y, groups, lams, params = problem
    if not metric_defined(y, groups, np.unique(groups).size, params["metric"]):
        return  # the fit refuses such labels; tests of the validation cover that
    new_scores = np.linspace(scores.min() - 1.0, scores.max() + 1.0, 9)
    new_groups = np.arange(9) % np.unique(groups).size
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unrealised-promise warnings: the same for both
        try:
            singles = {lam: XOrder(lam=lam, **params).fit(scores, y,
                                                          sensitive_features=groups)
                       for lam in set(lams)}
        except ValueError as refusal:  # a subsample without both labels: the same refusal
            with pytest.raises(ValueError) as path_refusal:
                xorder_path(scores, y, sensitive_features=groups, lams=lams, **params)
            assert str(path_refusal.value) == str(refusal)
            return
        models = xorder_path(scores, y, sensitive_features=groups, lams=lams, **params)
    assert [m.lam for m in models] == lams
    for lam, model in zip(lams, models):
        assert model.get_params() == singles[lam].get_params()
        assert_same_model(model, singles[lam], new_scores, new_groups)


def _reproducer(seed):
    rng = np.random.default_rng(seed)
    n = rng.integers(8, 120)
    g = rng.integers(0, 2, n)
    y = rng.integers(0, 2, n)
    s = y * rng.uniform(0, 2) + 0.5 * g + rng.normal(0, 1, n)
    return s, y, g


@pytest.mark.parametrize("seed, metric", [(9, "xauc"), (1, "urf")])
def test_reproducer_path_equals_single_fits(seed, metric):
    """The reported cases: two orderings of equal objective, where the path kept the
    one its shared search had found (seed 9: lam 0.5; seed 1, URF: lam 3)."""
    s, y, g = _reproducer(seed)
    lams = [0.0, 0.1, 0.5, 3.0]
    models = xorder_path(s, y, sensitive_features=g, lams=lams, metric=metric,
                         backend="numpy")
    new = np.linspace(-3.0, 4.0, 8)
    for lam, model in zip(lams, models):
        single = XOrder(lam=lam, metric=metric, backend="numpy").fit(
            s, y, sensitive_features=g)
        assert_same_model(model, single, new, np.arange(8) % 2)


def test_held_out_choice_keeps_the_single_fit_of_its_lam():
    """``XOrder(max_disparity=..., validation=(held-out data))`` keeps a model of its
    path: the very model ``XOrder(lam=lam_)`` fits."""
    s, y, g = _reproducer(9)
    rng = np.random.default_rng(1)
    held = (rng.normal(0, 1, 40) + 0.5 * (np.arange(40) % 2), np.arange(40) // 20,
            np.arange(40) % 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chosen = XOrder(max_disparity=0.05, validation=held, backend="numpy").fit(
            s, y, sensitive_features=g)
        single = XOrder(lam=chosen.lam_, backend="numpy").fit(s, y, sensitive_features=g)
    assert chosen.lam_ > 0
    assert_same_model(chosen, single, np.linspace(-3.0, 4.0, 8), np.arange(8) % 2)


def test_path_progress_counts_the_rule_and_every_search():
    """Lams solved alone: the cell rule's lams in one batch, then a search per positive
    lam, all counted on one scale that ends at ``(done, done)``."""
    s, y, g = _reproducer(3)
    seen = []
    xorder_path(s, y, sensitive_features=g, lams=[0.0, 0.5, 0.0, 2.0], backend="numpy",
                progress=lambda done, total: seen.append((done, total)))
    done = [d for d, _ in seen]
    cells = (np.sum(g == 0) + 1) * (np.sum(g == 1) + 1)
    assert done == sorted(done) and all(d <= t for d, t in seen)
    assert seen[-1][0] == seen[-1][1] > 2 * cells  # the rule's two fills and the searches'


@pytest.mark.parametrize("metric", ["xauc", "prf", "urf"])
@pytest.mark.parametrize("ties", [False, True])
def test_numba_path_models_with_exact_solves_are_single_fits(metric, ties):
    """On numba (the compiled fronts) the default solves a path's lams exactly: each
    model of ``xorder_path`` and the model a held-out choice keeps are the single fit's,
    bit for bit (the fronts' records in ``result_.extra`` included), on distinct and on
    tied scores (many orderings of equal objective)."""
    pytest.importorskip("numba")
    rng = np.random.default_rng(7 + len(metric) + ties)
    n = 90
    g = rng.integers(0, 2, n)
    y = rng.integers(0, 2, n)
    s = y * 1.2 + 0.6 * g + rng.normal(0, 1, n)
    if ties:
        s = np.round(s * 2) / 2
    lams = [0.0, 0.1, 0.5, 3.0]
    new = np.linspace(-3.0, 4.0, 8)
    models = xorder_path(s, y, sensitive_features=g, lams=lams, metric=metric,
                         backend="numba")
    assert "exact" in {m.result_.solver for m in models}
    for lam, model in zip(lams, models):
        single = XOrder(lam=lam, metric=metric, backend="numba").fit(
            s, y, sensitive_features=g)
        assert_same_model(model, single, new, np.arange(8) % 2)
    held = (rng.normal(0, 1, 40) + 0.5 * (np.arange(40) % 2), np.arange(40) // 20,
            np.arange(40) % 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chosen = XOrder(lam=1.0, metric=metric, validation=held, backend="numba").fit(
            s, y, sensitive_features=g)
        single = XOrder(lam=chosen.lam_, metric=metric, backend="numba").fit(
            s, y, sensitive_features=g)
    assert_same_model(chosen, single, new, np.arange(8) % 2)
