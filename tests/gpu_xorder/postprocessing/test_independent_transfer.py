"""An independent audit of the adjusted scores of ``XOrder`` (docs/design.md, section 5).

Every check here is an oracle written from the documented contract, not from the code:

- the best interleaving by enumeration, its objective counted pair by pair in exact
  fractions (within-group pairs by the original scores, ties 1/2; cross-group pairs by
  position), against ``fair_order``'s ordering where the solver is exact (``solver=
  "exact"``, or ``lam = 0``);
- the ranking the adjusted training scores must realise, built from the learned ordering
  and the two documented exceptions (an item between equal reference scores goes to the
  nearer end of their run, to the top on a draw; a split tie of a group goes, whole, to
  its median item's place);
- the map of a group as the straight lines through *all* of its training points
  ``(score, adjusted score)`` plus ``(lo, lo)`` and ``(hi, hi)``, a shift beyond the
  outermost point;
- the metrics as O(n^2) pair loops in fractions.
"""

import itertools
import json
import os
import pickle
from fractions import Fraction

import numpy as np
import pytest

from gpu_xorder import XOrder, fair_order
from gpu_xorder.postprocessing import _model_file

# ---------------------------------------------------------------------------------------
# Oracles


def ordering_pairs(order, scores, groups):
    """Twice what the pair "i above j" counts in an ordering, for every (i, j): within a
    group the original scores decide (a tie counts 1/2), across groups the position."""
    pos = np.empty(len(order), dtype=np.int64)
    pos[np.asarray(order)] = np.arange(len(order))
    within = score_pairs(scores)
    across = 2 * (pos[:, None] < pos[None, :])
    return np.where(groups[:, None] == groups[None, :], within, across)


def score_pairs(scores):
    """Twice what the pair "i above j" counts between scores (a tie counts 1/2)."""
    s = np.asarray(scores)
    return 2 * (s[:, None] > s[None, :]) + (s[:, None] == s[None, :])


def metrics_of(twice, y, groups, metric):
    """``(AUC, D)`` in exact fractions from ``twice[i, j]``, twice what "i above j"
    counts; ``D`` the largest |term| over the pairs of groups (design section 2); None
    for ``metric=None``."""
    y = np.asarray(y)

    def share(upper, lower):
        return Fraction(int(twice[np.ix_(upper, lower)].sum()), 2 * upper.sum() * lower.sum())

    auc = share(y == 1, y == 0)
    if metric is None:
        return auc, None
    terms = []
    for g, h in itertools.combinations(sorted(set(groups.tolist())), 2):
        if metric == "xauc":
            terms.append(share((groups == g) & (y == 1), (groups == h) & (y == 0))
                         - share((groups == h) & (y == 1), (groups == g) & (y == 0)))
        elif metric == "prf":
            terms.append(share((groups == g) & (y == 1), y == 0)
                         - share((groups == h) & (y == 1), y == 0))
        else:
            terms.append(share(groups == g, groups == h) - share(groups == h, groups == g))
    return auc, max(abs(t) for t in terms)


def ordering_objective(order, scores, y, groups, metric, lam, signed=False):
    """``AUC - lam |D|`` of an ordering, exactly (the AUC alone for ``lam = 0``; with
    ``signed``, two groups, ``AUC - lam D``, D the term of the first sorted label
    against the second)."""
    twice = ordering_pairs(order, scores, groups)
    auc, d = metrics_of(twice, y, groups, metric if lam else None)
    if signed:
        d = signed_term(twice, y, groups, metric)
    return auc - Fraction(lam) * d if lam else auc


def signed_term(twice, y, groups, metric):
    """D of two groups, signed, by its definition (design section 2)."""
    g, h = sorted(set(groups.tolist()))

    def share(upper, lower):
        return Fraction(int(twice[np.ix_(upper, lower)].sum()), 2 * upper.sum() * lower.sum())

    if metric == "xauc":
        return (share((groups == g) & (y == 1), (groups == h) & (y == 0))
                - share((groups == h) & (y == 1), (groups == g) & (y == 0)))
    if metric == "prf":
        return (share((groups == g) & (y == 1), y == 0)
                - share((groups == h) & (y == 1), y == 0))
    return share(groups == g, groups == h) - share(groups == h, groups == g)


def group_sequences(scores, groups):
    """Each group's items, descending by score, equal scores in input order."""
    return {g: [int(i) for i in sorted(np.flatnonzero(groups == g), key=lambda i: -scores[i])]
            for g in sorted(set(groups.tolist()))}


def interleavings(scores, groups):
    """Every ordering that keeps each group's descending (stable) order."""
    seqs = list(group_sequences(scores, groups).values())

    def extend(taken, prefix):
        if len(prefix) == len(scores):
            yield list(prefix)
            return
        for k, items in enumerate(seqs):
            if taken[k] < len(items):
                taken[k] += 1
                yield from extend(taken, prefix + [items[taken[k] - 1]])
                taken[k] -= 1

    yield from extend([0] * len(seqs), [])


def keeps_ties(order, scores, groups):
    """No item of another group between two items of one group with equal scores: what
    scores that keep each group's ties can realise."""
    key = [(groups[i], scores[i]) for i in order]
    first, last = {}, {}
    for k, run in enumerate(key):
        first.setdefault(run, k)
        last[run] = k
    return all(key[k][0] == run[0] for run in first
               for k in range(first[run], last[run] + 1))


def best_objective(scores, y, groups, metric, lam, signed=False, keep_ties=False):
    """The best objective over all interleavings, or (``keep_ties``) over those whose
    every run of equal scores of a group is whole."""
    return max(ordering_objective(o, scores, y, groups, metric, lam, signed)
               for o in interleavings(scores, groups)
               if not keep_ties or keeps_ties(o, scores, groups))


def expected_levels(scores, groups, order, reference):
    """The ranking the adjusted training scores must realise, as levels top down (the
    items of a level share one value, every level lies strictly above the next),
    written from docs/design.md, section 5: every non-reference item goes into the gap
    between the reference items around it in ``order``; (1) between *equal* reference
    scores (a run of r, p of them above) it goes above the run when ``p <= r - p``,
    else below it; (2) a tie of one group that ``order`` splits goes, whole, to the
    place of its median item (the upper one of two); a gap's items keep ``order``."""
    pos = {int(i): k for k, i in enumerate(order)}
    ref = [int(i) for i in order if groups[i] == reference]
    r = len(ref)
    gap, key = {}, {}
    for i in order:
        i = int(i)
        if groups[i] == reference:
            continue
        p = sum(pos[j] < pos[i] for j in ref)
        if 0 < p < r and scores[ref[p - 1]] == scores[ref[p]]:
            a = p - 1
            while a > 0 and scores[ref[a - 1]] == scores[ref[p]]:
                a -= 1
            b = p
            while b < r and scores[ref[b]] == scores[ref[p]]:
                b += 1
            p = a if p - a <= b - p else b
        gap[i], key[i] = p, pos[i]
    for g in set(groups.tolist()) - {reference}:
        for value in set(scores[groups == g].tolist()):
            tie = sorted((int(i) for i in np.flatnonzero((groups == g) & (scores == value))),
                         key=pos.get)
            median = tie[(len(tie) - 1) // 2]
            for i in tie:
                gap[i], key[i] = gap[median], key[median]
    levels = []
    for k in range(r + 1):
        slots = {}
        for i in sorted((i for i in gap if gap[i] == k), key=key.get):
            slots.setdefault(key[i], []).append(i)
        levels.extend(slots.values())
        if k < r:
            if levels and groups[levels[-1][0]] == reference and (
                    scores[levels[-1][0]] == scores[ref[k]]):
                levels[-1].append(ref[k])
            else:
                levels.append([ref[k]])
    return levels


def assert_realises(adjusted, levels):
    for level in levels:
        assert len(set(adjusted[level].tolist())) == 1, level
    for upper, lower in zip(levels, levels[1:]):
        assert adjusted[upper[0]] > adjusted[lower[0]], (upper, lower)


def map_oracle(t, x, y, lo, hi):
    """The documented map of a group at new scores ``t``: linear through its training
    points ``(x, y)`` (and ``(lo, lo)``, ``(hi, hi)`` where its scores stay off them),
    a shift (slope 1) beyond the outermost point."""
    x, first = np.unique(x, return_index=True)
    y = y[first]
    if lo < x[0]:
        x, y = np.insert(x, 0, lo), np.insert(y, 0, lo)
    if hi > x[-1]:
        x, y = np.append(x, hi), np.append(y, hi)
    out = np.interp(t, x, y)
    out = np.where(t < x[0], t + (y[0] - x[0]), out)
    return np.where(t > x[-1], t + (y[-1] - x[-1]), out)


def bits(a):
    return np.asarray(a, dtype=np.float64).view(np.int64)


# ---------------------------------------------------------------------------------------
# Small nasty inputs


def tie_problem(seed, n=(5, 5), labels=("a", "b"), grid=4, logit=False):
    """Scores on a coarse grid: ties within and across groups; both labels in every
    group."""
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.array(labels), n)
    y = np.concatenate([rng.permutation([1, 0] + list(rng.integers(0, 2, k - 2)))
                        for k in n])
    p = (rng.integers(1, grid, groups.size) / grid) + 0.05 * (groups == labels[0])
    scores = np.log(p / (1 - p)) if logit else p
    return scores, y, groups


def distinct_problem(seed, n=(5, 5), labels=("a", "b")):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.array(labels), n)
    y = np.concatenate([rng.permutation([1, 0] + list(rng.integers(0, 2, k - 2)))
                        for k in n])
    return rng.permutation(np.arange(1, groups.size + 1) / (groups.size + 1)), y, groups


def fit(scores, y, groups, **params):
    params.setdefault("backend", "numpy")
    return XOrder(**params).fit(scores, y, sensitive_features=groups)


def check_contract(xo, scores, y, groups):
    """Everything section 5 promises on the training data of a fitted model (no
    subsample), against the oracles above."""
    order = xo.result_.order
    adjusted = xo.train_scores_adjusted_
    ref = xo.reference_group_
    lo, hi = xo.bounds_
    is_ref = groups == ref
    assert np.isfinite(adjusted).all()
    # the reference group keeps its scores bit for bit
    assert np.array_equal(bits(adjusted[is_ref]), bits(scores[is_ref]))
    # every other group strictly inside the bounds, never on one
    assert ((adjusted[~is_ref] > lo) & (adjusted[~is_ref] < hi)).all()
    # every group keeps its order strictly: ties stay ties, distinct stay distinct
    for g in np.unique(groups):
        s, a = scores[groups == g], adjusted[groups == g]
        assert np.array_equal(np.sign(s[:, None] - s[None, :]),
                              np.sign(a[:, None] - a[None, :]))
    # the ranking: the learned ordering with the two documented exceptions
    assert_realises(adjusted, expected_levels(scores, groups, order, ref))
    # transform of the training scores gives them back bit for bit
    again = xo.transform(scores, sensitive_features=groups)
    assert np.array_equal(bits(again), bits(adjusted))
    # the model's training metrics are those of its adjusted scores, pair by pair
    auc, d = metrics_of(score_pairs(adjusted), y, groups, xo.metric)
    assert xo.train_auc_ == pytest.approx(float(auc), abs=1e-12)
    assert xo.train_disparity_ == pytest.approx(float(d), abs=1e-12)


def sorted_is_order(xo):
    """Sorting by adjusted score, ties in input order (the DP's stable per-group sort),
    gives the learned ordering."""
    return np.array_equal(np.argsort(-xo.train_scores_adjusted_, kind="stable"),
                          xo.result_.order)


# ---------------------------------------------------------------------------------------
# 1. The ordering is the best one where the solver is exact, and the adjusted scores
#    realise it.


@pytest.mark.parametrize("metric", ["xauc", "prf", "urf"])
@pytest.mark.parametrize("lam", [0.25, 1.0, 3.0])
@pytest.mark.parametrize("seed", [0, 1])
def test_exact_solver_is_the_brute_force_optimum_and_scores_realise_it(metric, lam, seed):
    scores, y, groups = tie_problem(seed)
    xo = fit(scores, y, groups, metric=metric, lam=lam, solver="exact")
    r = xo.result_
    assert r.solver == "exact"
    # fair_order orders items: the optimum over every interleaving
    direct = fair_order(scores, y, groups, metric=metric, lam=lam, solver="exact",
                        backend="numpy")
    assert ordering_objective(direct.order, scores, y, groups, metric, lam) == \
        best_objective(scores, y, groups, metric, lam)
    # every group keeps its descending stable order
    assert sorted(r.order.tolist()) == list(range(scores.size))
    seqs = group_sequences(scores, groups)
    for g, items in seqs.items():
        assert [i for i in r.order.tolist() if groups[i] == g] == items
    # XOrder (every metric, any number of groups, docs/design.md section 5): the optimum
    # over the orderings its scores can realise, which keep every run of equal scores
    best = best_objective(scores, y, groups, metric, lam, keep_ties=True)
    mine = ordering_objective(r.order, scores, y, groups, metric, lam)
    assert mine == best and keeps_ties(r.order, scores, groups)
    assert r.objective == pytest.approx(float(best), abs=1e-12)
    check_contract(xo, scores, y, groups)
    # realised: the adjusted scores' objective is the ordering's
    assert xo.train_auc_ - lam * xo.train_disparity_ == pytest.approx(float(best), abs=1e-12)


@pytest.mark.parametrize("metric", ["xauc", "prf", "urf"])
@pytest.mark.parametrize("lam", [0.5, 2.0])
def test_signed_mode_is_the_brute_force_optimum(metric, lam):
    """Signed D is a sum of step gains: the default solver is exact at any lam."""
    scores, y, groups = tie_problem(7, n=(5, 4))
    xo = fit(scores, y, groups, metric=metric, lam=lam, disparity="signed")
    best = best_objective(scores, y, groups, metric, lam, signed=True)
    assert ordering_objective(xo.result_.order, scores, y, groups, metric, lam,
                              signed=True) == best
    check_contract(xo, scores, y, groups)


@pytest.mark.parametrize("metric", ["xauc", "urf"])
@pytest.mark.parametrize("seed,n", [(0, (3, 3, 3)), (1, (3, 3, 3)), (2, (3, 3, 3)),
                                    (3, (5, 5)), (4, (6, 4))])
def test_lam_zero_is_the_brute_force_optimum(metric, seed, n):
    scores, y, groups = tie_problem(seed, n=n, labels=("p", "q", "r")[:len(n)])
    xo = fit(scores, y, groups, metric=metric, lam=0.0, method="kd" if len(n) > 2 else "auto")
    best = best_objective(scores, y, groups, None, 0, keep_ties=True)
    assert ordering_objective(xo.result_.order, scores, y, groups, None, 0) == best
    check_contract(xo, scores, y, groups)


@pytest.mark.parametrize("metric", ["xauc", "prf", "urf"])
@pytest.mark.parametrize("seed", range(4))
def test_distinct_scores_sort_back_into_the_learned_ordering(metric, seed):
    """With distinct reference scores and no tie in any group, sorting by adjusted score
    is the learned ordering itself, and the adjusted scores' metrics the DP's."""
    scores, y, groups = distinct_problem(seed, n=(6, 5))
    for lam in (0.0, 0.5, 4.0):
        xo = fit(scores, y, groups, metric=metric, lam=lam, solver="paper")
        check_contract(xo, scores, y, groups)
        assert sorted_is_order(xo)
        assert xo.train_auc_ == pytest.approx(xo.result_.auc, abs=1e-12)
        assert xo.train_disparity_ == pytest.approx(xo.result_.disparity, abs=1e-12)


@pytest.mark.parametrize("method", ["kd", "iterative"])
@pytest.mark.parametrize("seed", range(3))
def test_three_string_groups_with_ties(method, seed):
    scores, y, groups = tie_problem(seed, n=(4, 5, 3), labels=("zeta", "alpha", "mu"))
    for lam in (0.0, 1.0):
        for reference in (None, "alpha", "mu"):
            xo = fit(scores, y, groups, metric="xauc", lam=lam, method=method,
                     reference_group=reference)
            if reference is not None:
                assert xo.reference_group_ == reference
            check_contract(xo, scores, y, groups)


# ---------------------------------------------------------------------------------------
# The documented exceptions, built by hand.


def test_item_between_equal_reference_scores_goes_to_the_nearer_end():
    # reference a: 0.9, 0.6, 0.6, 0.6, 0.2 (a run of three 0.6); b: 0.95, 0.5 (y=1).
    # At lam = 0 with labels that reward it, the DP may put b's 0.5 anywhere; we fit the
    # scores and check whatever place the ordering chose with the oracle, and force the
    # inside-the-run case through lam on a crafted URF problem below.
    scores = np.array([0.9, 0.6, 0.6, 0.6, 0.2, 0.95, 0.5])
    y = np.array([1, 1, 0, 0, 0, 1, 0])
    groups = np.array(["a"] * 5 + ["b"] * 2)
    for lam in (0.0, 0.5, 2.0, 8.0):
        for metric in ("xauc", "urf"):
            xo = fit(scores, y, groups, metric=metric, lam=lam, reference_group="a",
                     solver="exact")
            check_contract(xo, scores, y, groups)


def test_urf_parity_splits_a_reference_run_and_a_group_tie():
    """URF at a large lam wants the groups evenly interleaved: with a run of equal
    reference scores and a tie in the other group, fair_order's ordering splits both,
    and the transfer follows the documented rules (checked by the oracle levels);
    XOrder's ordering keeps both runs whole, and its scores realise it."""
    from gpu_xorder.postprocessing import _transfer

    scores = np.array([0.7, 0.7, 0.7, 0.7, 0.3, 0.7, 0.7, 0.7, 0.2])
    y = np.array([1, 0, 1, 0, 1, 1, 0, 1, 0])
    groups = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1])
    order = fair_order(scores, y, groups, metric="urf", lam=10.0, solver="exact",
                       backend="numpy").order.tolist()
    path = [int(groups[i]) for i in order]
    # the ordering does split the reference run (an item of group 1 inside it)
    ref_pos = [k for k, i in enumerate(order) if groups[i] == 0 and scores[i] == 0.7]
    assert any(path[k] == 1 for k in range(ref_pos[0], ref_pos[-1])), path
    index = groups.astype(np.int64)
    bounds = _transfer.default_bounds(scores, scores[index == 0])
    learned, _ = _transfer.fit_transfer(scores, np.array(order), index, 0, bounds)
    assert_realises(learned, expected_levels(scores, groups, order, 0))
    xo = fit(scores, y, groups, metric="urf", lam=10.0, reference_group=0, solver="exact")
    assert keeps_ties(xo.result_.order, scores, groups)
    check_contract(xo, scores, y, groups)


# Where no scores realise an ordering, adjusted scores would lose what the ordering won.
# Three items a side, Delta-xAUC 0 before any adjustment: fair_order's ordering of |D| = 0
# puts b's tied positive above a's items and b's tied negatives below them; no scores
# keeping b's tie do that (b is the reference: its scores stay), and the transfer's rule
# moves a above the whole run (the fewest pairs): D = 1. XOrder's orderings keep every
# run of equal scores whole (every metric, any number of groups), so its scores realise
# them.
TIED = (np.array([0.4, 0.4, 0.7, 0.6, 0.6, 0.6]), np.array([1, 1, 0, 1, 0, 0]),
        np.array(["a", "a", "a", "b", "b", "b"]))


def test_tied_reference_run_split_by_the_ordering_follows_the_documented_rule():
    from gpu_xorder.postprocessing import _transfer

    scores, y, groups = TIED
    order = fair_order(scores, y, groups, lam=5.0, solver="exact", backend="numpy").order
    assert order.tolist() == [3, 2, 0, 1, 4, 5]
    assert not keeps_ties(order, scores, groups)
    index = (groups == "b").astype(np.int64)
    bounds = _transfer.default_bounds(scores, scores[index == 1])
    learned, _ = _transfer.fit_transfer(scores, order, index, 1, bounds)
    assert_realises(learned, expected_levels(scores, groups, order, "b"))
    _, d = metrics_of(score_pairs(learned), y, groups, "xauc")
    assert d == 1


def test_max_disparity_holds_on_the_adjusted_training_scores():
    scores, y, groups = TIED
    xo = fit(scores, y, groups, max_disparity=0.1)
    assert xo.result_.disparity <= 0.1 and keeps_ties(xo.result_.order, scores, groups)
    adjusted = xo.train_scores_adjusted_
    _, d = metrics_of(score_pairs(adjusted), y, groups, "xauc")
    assert d <= Fraction(1, 10)
    assert xo.train_disparity_ == pytest.approx(float(d), abs=1e-12)


# ---------------------------------------------------------------------------------------
# 2. New scores: the maps.


def new_scores(scores, lo, hi, rng):
    """Training scores, midpoints, the bounds, points just inside and outside them,
    far outside, and random ones."""
    u = np.unique(scores)
    span = hi - lo
    return np.unique(np.concatenate([
        u, (u[1:] + u[:-1]) / 2, [lo, hi, np.nextafter(lo, np.inf), np.nextafter(hi, -np.inf),
                                  lo - span, hi + span, lo - 1e-9, hi + 1e-9],
        rng.uniform(lo - span / 2, hi + span / 2, 200)]))


def check_maps(xo, scores, groups, rng):
    lo, hi = xo.bounds_
    t = new_scores(scores, lo, hi, rng)
    adjusted = xo.train_scores_adjusted_
    for g in np.unique(groups):
        out = xo.transform(t, sensitive_features=np.full(t.size, g, dtype=groups.dtype))
        assert np.isfinite(out).all()
        if g == xo.reference_group_:
            assert np.array_equal(bits(out), bits(t))
            continue
        # monotone; strictly increasing where the oracle's slope times the distance is
        # far above an ulp
        assert (np.diff(out) >= 0).all()
        mine = groups == g
        expected = map_oracle(t, scores[mine], adjusted[mine], lo, hi)
        np.testing.assert_allclose(out, expected, rtol=0, atol=1e-12 * max(1.0, hi - lo))
        strict = np.diff(expected) > 1e-9 * max(1.0, hi - lo)
        assert (np.diff(out)[strict] > 0).all()
        # inside [lo, hi] stays inside; beyond the group's end points the identity
        inside = (t >= lo) & (t <= hi)
        assert ((out[inside] >= lo) & (out[inside] <= hi)).all()
        outside = (((t < lo) & (scores[mine].min() > lo))
                   | ((t > hi) & (scores[mine].max() < hi)))
        assert np.array_equal(bits(out[outside]), bits(t[outside]))
        # new scores equal to training scores get the adjusted training scores
        for s_i, a_i in zip(scores[mine], adjusted[mine]):
            assert out[np.searchsorted(t, s_i)] == a_i


@pytest.mark.parametrize("logit", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_maps_are_the_lines_through_the_training_points(logit, seed):
    rng = np.random.default_rng(100 + seed)
    scores, y, groups = tie_problem(seed, n=(6, 5, 4), labels=("x", "y", "z"), grid=6,
                                    logit=logit)
    for lam in (0.0, 2.0):
        xo = fit(scores, y, groups, lam=lam, metric="prf")
        check_contract(xo, scores, y, groups)
        check_maps(xo, scores, groups, rng)


def test_probabilities_and_log_odds_learn_the_same_ranking():
    """The DP sees only each group's order and the labels: probabilities and their
    log-odds give one ordering, and the adjusted scores rank the items alike."""
    for seed in range(3):
        p, y, groups = tie_problem(seed, n=(6, 6), grid=8)
        logit = np.log(p / (1 - p))
        a = fit(p, y, groups, lam=1.0, solver="exact", reference_group="a")
        b = fit(logit, y, groups, lam=1.0, solver="exact", reference_group="a")
        assert np.array_equal(a.result_.order, b.result_.order)
        assert a.bounds_ == (0.0, 1.0) and b.bounds_[0] < logit.min()
        ra, rb = a.train_scores_adjusted_, b.train_scores_adjusted_
        assert np.array_equal(np.sign(ra[:, None] - ra[None, :]),
                              np.sign(rb[:, None] - rb[None, :]))


def test_probabilities_on_the_bounds():
    """Scores of 0 and 1: probability-like, bounds (0, 1), pushed beyond them only where
    a reference score lies on one (documented); a non-reference training score on a
    bound gets no end point there and beyond it the map shifts."""
    scores = np.array([0.9, 0.5, 0.1, 0.3, 1.0, 0.0, 0.6, 0.2])
    y = np.array([1, 0, 0, 1, 1, 0, 1, 0])
    groups = np.array(["r"] * 4 + ["o"] * 4)
    xo = fit(scores, y, groups, lam=1.0, reference_group="r", solver="exact")
    assert xo.bounds_ == (0.0, 1.0)
    check_contract(xo, scores, y, groups)
    check_maps(xo, scores, groups, np.random.default_rng(7))
    # only 0 and 1 themselves could map onto the bounds; "o" has training scores on both
    # so none of its scores in [0, 1] does
    t = np.array([0.0, 1e-300, 0.5, 1 - 2**-53, 1.0])
    out = xo.transform(t, sensitive_features=["o"] * t.size)
    assert ((out > 0) & (out < 1)).all()

    # a reference score of exactly 1 raises hi above 1 (design section 5)
    s2 = np.array([1.0, 0.5, 0.3, 0.1, 0.95, 0.6, 0.2, 0.05])
    xo2 = fit(s2, y, groups, lam=1.0, reference_group="r", solver="exact")
    assert xo2.bounds_[0] == 0.0 and xo2.bounds_[1] > 1.0
    check_contract(xo2, s2, y, groups)
    check_maps(xo2, s2, groups, np.random.default_rng(8))
    # and a reference score of 0 lowers lo below 0
    s3 = np.array([0.9, 0.5, 0.0, 0.3, 1.0, 0.1, 0.6, 0.2])
    xo3 = fit(s3, y, groups, lam=1.0, reference_group="r", solver="exact")
    assert xo3.bounds_[0] < 0.0 and xo3.bounds_[1] == 1.0
    check_contract(xo3, s3, y, groups)
    check_maps(xo3, s3, groups, np.random.default_rng(9))


def test_a_group_of_one_item():
    scores = np.array([0.9, 0.7, 0.4, 0.2, 0.8, 0.75, 0.3, 0.5])
    y = np.array([1, 0, 1, 0, 1, 0, 0, 1])
    groups = np.array(["big"] * 4 + ["mid"] * 3 + ["one"])
    for lam in (0.0, 1.0, 5.0):
        xo = fit(scores, y, groups, metric="urf", lam=lam, method="kd")
        check_contract(xo, scores, y, groups)
        check_maps(xo, scores, groups, np.random.default_rng(1))


def test_numba_engine_gives_the_same_model():
    scores, y, groups = tie_problem(3, n=(7, 6), grid=5)
    a = fit(scores, y, groups, lam=0.7, solver="paper")
    b = fit(scores, y, groups, lam=0.7, solver="paper", backend="numba")
    assert np.array_equal(a.result_.order, b.result_.order)
    assert np.array_equal(bits(a.train_scores_adjusted_), bits(b.train_scores_adjusted_))


def test_subsample_training_scores_are_the_transform_of_the_training_scores():
    scores, y, groups = distinct_problem(5, n=(12, 10))
    xo = fit(scores, y, groups, lam=1.0, subsample=2)
    again = xo.transform(scores, sensitive_features=groups)
    assert np.array_equal(bits(again), bits(xo.train_scores_adjusted_))
    is_ref = groups == xo.reference_group_
    assert np.array_equal(bits(again[is_ref]), bits(scores[is_ref]))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nan_and_inf_are_refused(bad):
    scores, y, groups = distinct_problem(0)
    broken = scores.copy()
    broken[3] = bad
    with pytest.raises(ValueError):
        fit(broken, y, groups)
    xo = fit(scores, y, groups, lam=1.0)
    with pytest.raises(ValueError):
        xo.transform(broken, sensitive_features=groups)
    assert np.isnan(broken[3]) or np.isinf(broken[3])  # the input is not modified


# ---------------------------------------------------------------------------------------
# 3. The model file (API).


@pytest.mark.parametrize("name", ["model.json", "model.json.gz"])
def test_save_load_transforms_bit_for_bit_and_is_json(tmp_path, name):
    scores, y, groups = tie_problem(4, n=(5, 4, 4), labels=("a", "b", "c"), grid=5)
    xo = fit(scores, y, groups, lam=1.0)
    path = tmp_path / name
    xo.save(path)
    raw = path.read_bytes()
    with pytest.raises(pickle.UnpicklingError):  # JSON (or gzip of it), not a pickle
        pickle.loads(raw)
    if name.endswith(".gz"):
        import gzip
        raw = gzip.decompress(raw)
    doc = json.loads(raw)
    assert doc["format"] == "gpu-xorder-model"
    loaded = XOrder.load(path)
    t = new_scores(scores, *xo.bounds_, np.random.default_rng(0))
    for g in ("a", "b", "c"):
        labels = np.full(t.size, g)
        assert np.array_equal(bits(loaded.transform(t, sensitive_features=labels)),
                              bits(xo.transform(t, sensitive_features=labels)))
    assert np.array_equal(bits(loaded.transform(scores, sensitive_features=groups)),
                          bits(xo.train_scores_adjusted_))
    assert doc["summary"]["auc"] == xo.train_auc_
    assert doc["summary"]["disparity"] == xo.train_disparity_


def tampered(doc):
    """Model documents broken in one field each."""
    def edit(change):
        copy = json.loads(json.dumps(doc))
        change(copy)
        return copy

    def reverse_x(d):
        d["maps"][0]["x"] = d["maps"][0]["x"][::-1]

    def decreasing_y(d):
        d["maps"][0]["y"][1] = d["maps"][0]["y"][0] - 1

    def drop_y(d):
        d["maps"][0]["y"].pop()

    yield "x reversed", edit(reverse_x)
    yield "y decreasing", edit(decreasing_y)
    yield "x and y lengths", edit(drop_y)
    yield "no maps", edit(lambda d: d.__setitem__("maps", []))
    yield "map for the reference", edit(
        lambda d: d["maps"][0].__setitem__("group", d["reference_group"]))
    yield "unknown reference", edit(lambda d: d.__setitem__("reference_group", "nobody"))
    yield "bounds reversed", edit(lambda d: d.__setitem__("bounds", d["bounds"][::-1]))
    yield "version", edit(lambda d: d.__setitem__("version", 99))
    yield "format", edit(lambda d: d.__setitem__("format", "pickle"))
    yield "lam", edit(lambda d: d["params"].__setitem__("lam", -1))
    yield "groups unsorted", edit(lambda d: d.__setitem__("groups", d["groups"][::-1]))


def test_tampered_and_truncated_model_files_are_one_line_value_errors(tmp_path):
    scores, y, groups = tie_problem(2, n=(5, 5), grid=5)
    xo = fit(scores, y, groups, lam=1.0)
    good = tmp_path / "good.json"
    xo.save(good)
    text = good.read_text()
    doc = json.loads(text)
    cases = list(tampered(doc))
    cases.append(("truncated", text[:len(text) // 2]))
    cases.append(("empty", ""))
    cases.append(("NaN knot", text.replace(repr(doc["maps"][0]["y"][1]), "NaN", 1)))
    for name, content in cases:
        path = tmp_path / f"{name.replace(' ', '_')}.json"
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content)
        else:
            path.write_text(json.dumps(content))
        with pytest.raises(ValueError) as info:
            XOrder.load(path)
        message = str(info.value)
        assert "\n" not in message, name
        assert message.startswith(f"{os.fspath(path)}: not a gpu-xorder model file ("), (
            name, message)


def unreadable_model_files(xo, tmp_path):
    """Files the text reader refuses before any JSON is parsed."""
    xo.save(tmp_path / "model.json.gz")
    packed = (tmp_path / "model.json.gz").read_bytes()
    (tmp_path / "model.json").unlink(missing_ok=True)
    return {"pickle": pickle.dumps(xo),
            "gzip cut short": packed[:len(packed) // 2],
            "UTF-16": json.dumps(_model_file.model_document(xo)).encode("utf-16")}


@pytest.mark.parametrize("case", ["pickle", "gzip cut short", "UTF-16"])
def test_unreadable_model_files_are_one_line_value_errors_naming_the_file(tmp_path, case):
    """'PATH: not a gpu-xorder model file (what the reader found)', one line."""
    scores, y, groups = tie_problem(2, n=(5, 5), grid=5)
    xo = fit(scores, y, groups, lam=1.0)
    path = tmp_path / "model.json"
    path.write_bytes(unreadable_model_files(xo, tmp_path)[case])
    with pytest.raises(ValueError) as info:
        XOrder.load(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{os.fspath(path)}: not a gpu-xorder model file (")
