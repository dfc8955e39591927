"""Confidence intervals of the ranking metrics: DeLong variances (``_delong``) and a
stratified bootstrap.

Both see the data as strata, group x label: stratum ``2 k + y`` holds the items of group
index ``k`` with label ``y``. Every metric of :mod:`gpu_xorder.metrics` is a ratio of
doubled pair counts between strata, ``W[u, t] = 2 #{item of u above item of t} +
#{ties}``, to a product of stratum sizes; a bootstrap resample keeps every stratum's size
(so it keeps every metric defined where the data define it) and changes only ``W``.

Disparities are intervals of the signed difference (``xauc(a, b) - xauc(b, a)``,
``prf(a) - prf(b)``, ``P(S^a > S^b) - P(S^b > S^a)``) carried to its absolute value: an
interval ``[lo, hi]`` of ``D`` gives ``[0, max(-lo, hi)]`` for ``|D|`` when it holds 0,
else ``[min(|lo|, |hi|), max(|lo|, |hi|)]``, so a disparity of 0 is covered as often as
``D = 0`` is. The disparity of several groups, the maximum of ``P`` pairs' ``|D|``, gets
``[max lo_p, max hi_p]`` from the pairs' intervals at level ``1 - (1 - level) / P``
(Bonferroni): when every pair's interval covers its ``|D|``, which happens with at least
the nominal probability, the maximum lies in it.
"""

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..utils import _parallel
from ..utils import _params as params
from ..utils._memory import host_memory_available
from ..utils._validation import check_count
from ._delong import delong_variances, normal_limits

METHODS = ("bootstrap", "delong")
#: Resamples of ``method="bootstrap"`` when ``n_bootstrap`` is None.
DEFAULT_BOOTSTRAP = 2000
#: Elements of one bootstrap chunk's largest arrays (resamples x items x strata); three
#: such float64 arrays live at once, so a chunk takes about 50 MB.
CHUNK_ELEMENTS = 2**21
#: Resamples of one chunk at most (their seeds are made with the chunk).
CHUNK_RESAMPLES = 1024

#: Most resamples :func:`check_n_bootstrap` accepts (every resample costs tens of
#: microseconds and keeps its statistics for the percentiles).
MAX_BOOTSTRAP = 10**6
#: Share of the available host memory the resamples' statistics may take.
BOOTSTRAP_MEMORY_SHARE = 0.5

MSG_N_BOOTSTRAP = "n_bootstrap must be an integer >= 1, got {value!r}"
MSG_N_BOOTSTRAP_MAX = (
    "n_bootstrap={value} is more than {limit:,} resamples; percentile intervals need a "
    "few thousand"
)
MSG_BOOTSTRAP_MEMORY = (
    "{n} bootstrap resamples of {k} groups keep {need:.3g} GiB of statistics, more than "
    "{budget:.3g} GiB (half the host memory available); use at most {most} resamples"
)
MSG_BOOTSTRAP_DELONG = (
    "n_bootstrap applies to method='bootstrap'; method='delong' draws no resamples "
    "(leave n_bootstrap at None)"
)


class Interval(NamedTuple):
    """A value and its confidence interval ``[low, high]``.

    Attributes
    ----------
    estimate : float
        The value measured on the data.
    low, high : float
        The interval's bounds.
    """

    estimate: float
    low: float
    high: float


@dataclass(frozen=True)
class MetricIntervals:
    """Confidence intervals of every metric :func:`gpu_xorder.metrics.confidence_intervals`
    covers; ``None`` where the data leave the metric (or, for DeLong, its variance)
    undefined.

    Attributes
    ----------
    method : {"bootstrap", "delong"}
    level : float
    n_bootstrap : int or None
        Resamples (bootstrap only).
    groups : tuple
        Sorted group labels.
    auc : Interval
    auc_within : dict
        ``{g: Interval}``: the AUC within every group, ``xauc(g, g)``.
    xauc : dict
        ``{(g, h): Interval}`` for every ordered pair of distinct groups.
    prf : dict
        ``{g: Interval}``.
    urf : dict
        ``{(g, h): Interval}`` for ``g < h``.
    disparity_pairs : dict
        ``{metric: {(g, h): Interval}}``, ``g < h``, as :func:`metrics.disparity_pairs`.
    disparity : dict
        ``{metric: Interval}``: the maximum over pairs, as :func:`metrics.disparity`.
    auc_gap_pairs : dict
        ``{(g, h): Interval}``, ``g < h``: the gap ``|auc_within[g] - auc_within[h]|``.
    auc_gap : Interval or None
        The largest such gap (``RankingMetricFrame.difference()["auc"]``).
    signed_pairs : dict
        ``{metric: {(g, h): Interval}}``, ``g < h``: the signed difference of each pair
        (``xauc(g, h) - xauc(h, g)``, ``prf(g) - prf(h)``, ``P(S^g > S^h) - P(S^h >
        S^g)``) at ``level``.
    joint_level : float
        The pairs' level when the worst of them is judged: ``1 - (1 - level) / pairs``
        (Bonferroni), ``level`` with two groups.
    signed_pairs_joint : dict
        As ``signed_pairs``, at ``joint_level``.
    """

    method: str
    level: float
    n_bootstrap: int
    groups: tuple
    auc: Interval
    auc_within: dict
    xauc: dict
    prf: dict
    urf: dict
    disparity_pairs: dict
    disparity: dict
    auc_gap_pairs: dict = None
    auc_gap: Interval = None
    signed_pairs: dict = None
    joint_level: float = None
    signed_pairs_joint: dict = None


def check_n_bootstrap(n, method="bootstrap"):
    """``n`` as an int in ``[1, MAX_BOOTSTRAP]`` (default ``DEFAULT_BOOTSTRAP`` for
    None; a bool or a non-integer is a TypeError); with ``method="delong"``, None
    (anything else is refused)."""
    if method == "delong":
        if n is not None:
            raise ValueError(MSG_BOOTSTRAP_DELONG)
        return None
    if n is None:
        return DEFAULT_BOOTSTRAP
    n = check_count(n, "n_bootstrap", 1, MSG_N_BOOTSTRAP)  # every integer type
    if n > MAX_BOOTSTRAP:
        raise ValueError(MSG_N_BOOTSTRAP_MAX.format(value=n, limit=MAX_BOOTSTRAP))
    return int(n)


def seed_sequence(random_state):
    """The ``SeedSequence`` the resamples' streams are spawned from."""
    random_state = params.check("random_state", random_state)
    if random_state is None:
        return np.random.SeedSequence()
    if isinstance(random_state, np.random.Generator):
        return np.random.SeedSequence(int(random_state.integers(0, 2**63)))
    return np.random.SeedSequence(random_state)


# ---------------------------------------------------------------- strata and counts

@dataclass(frozen=True)
class Strata:
    """What the counts of any resample need, computed once from the data.

    ``stratum`` (by item), ``sizes`` (by stratum), and in ascending score order:
    ``sorted_stratum`` and, for every position, ``first`` / ``stop`` (where its tie
    run starts and ends, so that a cumulative count at ``first`` counts the items
    strictly below and at ``stop`` those below or tied). A resample draws, slot by slot,
    ``draw[j]`` in ``[0, high[j])`` and takes item ``slots[offset[j] + draw[j]]``:
    slots are laid out stratum after stratum, items in increasing index.
    """

    k: int
    stratum: np.ndarray
    sizes: np.ndarray
    position: np.ndarray
    sorted_stratum: np.ndarray
    first: np.ndarray
    stop: np.ndarray
    slots: np.ndarray
    offset: np.ndarray
    high: np.ndarray


def strata(scores, y, index, k):
    """:class:`Strata` of validated scores, 0/1 labels and group indices (``k`` groups)."""
    stratum = 2 * index + y
    n_strata = 2 * k
    sizes = np.bincount(stratum, minlength=n_strata)
    order = np.argsort(scores, kind="stable")
    ranked = scores[order]
    position = np.empty_like(order)
    position[order] = np.arange(order.size)
    slots = np.argsort(stratum, kind="stable")
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    return Strata(
        k=k, stratum=stratum, sizes=sizes, position=position,
        sorted_stratum=stratum[order],
        first=np.searchsorted(ranked, ranked, side="left"),
        stop=np.searchsorted(ranked, ranked, side="right"),
        slots=slots, offset=np.repeat(starts, sizes), high=np.repeat(sizes, sizes))


def pair_counts(st, weights):
    """Doubled pair counts between strata of weighted samples.

    ``weights`` (B, n): how often each item, in ascending score order, occurs in each
    of B samples. Entry ``[b, u, t]`` is ``sum w_i w_j (2 [s_i > s_j] + [s_i == s_j])``
    over items ``i`` of stratum u and ``j`` of stratum t (self-pairs included, which
    no metric uses: every metric counts pairs of two distinct strata).

    Returns
    -------
    ndarray of float64, shape (B, 2k, 2k)
        Exact integers while they stay below 2**53.
    """
    b, n = weights.shape
    n_strata = 2 * st.k
    by_stratum = np.zeros((b, n, n_strata))
    by_stratum[:, np.arange(n), st.sorted_stratum] = weights
    cum = np.zeros((b, n + 1, n_strata))
    np.cumsum(by_stratum, axis=1, out=cum[:, 1:])
    # below + below-or-tied = 2 #below + #tied, for every position and stratum
    doubled = cum[:, st.first, :]
    doubled += cum[:, st.stop, :]
    return np.matmul(by_stratum.transpose(0, 2, 1), doubled)


def statistics(counts, sizes, k):
    """Every metric, as :mod:`gpu_xorder.metrics` computes it, from pair counts.

    ``counts`` (B, 2k, 2k) as :func:`pair_counts`. Entries the sizes leave undefined
    are NaN (never used).

    Returns
    -------
    dict of ndarray
        ``auc`` (B,), ``xauc`` (B, k, k) ``[g, h]``, ``prf`` (B, k), ``urf_signed``
        (B, k, k): ``P(S^g > S^h) - P(S^h > S^g)``.
    """
    npos = sizes[1::2].astype(np.int64)
    nneg = sizes[0::2].astype(np.int64)
    total_pos, total_neg = int(npos.sum()), int(nneg.sum())
    cross = counts[:, 1::2, 0::2]  # positives of g above negatives of h
    per_group = counts.reshape(-1, k, 2, k, 2).sum(axis=(2, 4))
    n_group = npos + nneg
    pairs = (n_group[:, None] * n_group[None, :]).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return {
            "auc": cross.sum(axis=(1, 2)) / float(2 * total_pos * total_neg),
            "xauc": cross / (2 * npos[:, None] * nneg[None, :]).astype(np.float64),
            "prf": cross.sum(axis=2) / (2 * npos * total_neg).astype(np.float64),
            "urf_signed": (per_group - pairs) / pairs,
        }


def signed_pairs(stats, k):
    """``{metric: (B, P)}`` signed disparities of the pairs ``a < b`` (in that order)."""
    a, b = np.triu_indices(k, 1)
    x = stats["xauc"]
    return {"xauc": x[:, a, b] - x[:, b, a],
            "prf": stats["prf"][:, a] - stats["prf"][:, b],
            "urf": stats["urf_signed"][:, a, b]}


def signed_auc_gaps(stats, k):
    """``(B, P)`` signed gaps ``auc_within[a] - auc_within[b]`` of the pairs ``a < b``."""
    a, b = np.triu_indices(k, 1)
    return stats["xauc"][:, a, a] - stats["xauc"][:, b, b]


# ---------------------------------------------------------------- bootstrap

def bootstrap_statistics(st, seeds, n_bootstrap, n_jobs=None):
    """:func:`statistics` of ``n_bootstrap`` resamples, resample ``b`` drawn from child
    ``b`` of the ``SeedSequence`` ``seeds`` (:func:`child_seed`, the ``seeds.spawn``
    order). Chunk by chunk: every chunk spawns its own seeds and bounds the memory of
    its resamples, and its statistics go straight into arrays of ``n_bootstrap`` rows;
    with ``n_jobs`` workers (joblib's active backend), one chunk per worker at a time.
    The same numbers whatever the chunks and workers."""
    # every worker gets a chunk, however few the resamples
    size = min(chunk_resamples(st), -(-n_bootstrap // _parallel.workers(n_jobs, n_bootstrap)))
    starts = range(0, n_bootstrap, size)
    n_workers = _parallel.workers(n_jobs, len(starts))
    parent = (seeds.entropy, seeds.spawn_key, seeds.pool_size, seeds.n_children_spawned)
    jobs = ((st, parent, lo, min(lo + size, n_bootstrap)) for lo in starts)
    out = None
    for lo, part in zip(starts, _parallel.imap_in_rounds(_chunk_statistics, jobs,
                                                         n_workers)):
        if out is None:
            out = {key: np.empty((n_bootstrap,) + v.shape[1:]) for key, v in part.items()}
        for key, value in part.items():
            out[key][lo:lo + len(value)] = value
    return out


def chunk_resamples(st):
    """Resamples of one chunk: ``CHUNK_ELEMENTS`` elements of its largest arrays, and
    at most ``CHUNK_RESAMPLES``."""
    return max(1, min(CHUNK_RESAMPLES, CHUNK_ELEMENTS // (st.stratum.size * 2 * st.k)))


def child_seed(parent, b):
    """Child ``b`` of the ``SeedSequence`` whose ``(entropy, spawn_key, pool_size,
    n_children_spawned)`` is ``parent``: what ``SeedSequence.spawn`` gives as its
    ``b``-th child, made without spawning the ``b`` before it."""
    entropy, spawn_key, pool_size, spawned = parent
    return np.random.SeedSequence(entropy, spawn_key=tuple(spawn_key) + (spawned + b,),
                                  pool_size=pool_size)


def bootstrap_bytes(n_bootstrap, k):
    """Bytes the resamples' statistics take at the peak: every resample's statistics
    (``1 + k + 2 k**2`` values) and signed pair differences (4 per pair of groups),
    and a copy of the largest while its percentiles are taken."""
    n_pairs = k * (k - 1) // 2
    return 8 * n_bootstrap * (1 + k + 2 * k * k + 4 * n_pairs + max(k * k, n_pairs))


def check_bootstrap_memory(n_bootstrap, k, budget):
    """``MemoryError`` (``MSG_BOOTSTRAP_MEMORY``) when the statistics of ``n_bootstrap``
    resamples of ``k`` groups would take more than ``budget`` bytes (None: no check)."""
    need = bootstrap_bytes(n_bootstrap, k)
    if budget is not None and need > budget:
        raise MemoryError(MSG_BOOTSTRAP_MEMORY.format(
            n=n_bootstrap, k=k, need=need / 2**30, budget=budget / 2**30,
            most=max(1, n_bootstrap * budget // need)))


def resample_weights(st, seeds):
    """``(len(seeds), n)`` occurrences of every item (ascending score order) in the
    resamples: resample ``b`` draws with ``np.random.default_rng(seeds[b])`` one
    ``integers(0, st.high)`` call, slot ``j`` taking item ``st.slots[st.offset[j] +
    draw[j]]``."""
    n = st.stratum.size
    picked = np.empty((len(seeds), n), dtype=np.int64)
    for row, seed in enumerate(seeds):
        draw = np.random.default_rng(seed).integers(0, st.high)
        picked[row] = st.position[st.slots[st.offset + draw]]
    picked += n * np.arange(len(seeds))[:, None]
    return np.bincount(picked.ravel(), minlength=len(seeds) * n).reshape(len(seeds), n)


def _chunk_statistics(st, parent, lo, hi):
    seeds = [child_seed(parent, b) for b in range(lo, hi)]
    counts = pair_counts(st, resample_weights(st, seeds).astype(np.float64))
    return statistics(counts, st.sizes, st.k)


def _bootstrap_budget():
    """Bytes the resamples' statistics may take: ``BOOTSTRAP_MEMORY_SHARE`` of the host
    memory available (None where it cannot be read)."""
    available = host_memory_available()
    return None if available is None else int(BOOTSTRAP_MEMORY_SHARE * available)


def percentile(values, level):
    """``(low, high)`` percentile limits of ``values`` along axis 0 (linear
    interpolation, ``np.quantile``'s default)."""
    alpha = 1.0 - level
    low, high = np.quantile(values, [alpha / 2, 1 - alpha / 2], axis=0)
    return low, high


# ---------------------------------------------------------------- intervals

def absolute(low, high):
    """Limits of ``|D|`` from limits of ``D`` (see the module docstring)."""
    low, high = np.asarray(low), np.asarray(high)
    holds_zero = (low <= 0) & (high >= 0)
    return (np.where(holds_zero, 0.0, np.minimum(abs(low), abs(high))),
            np.maximum(abs(low), abs(high)))


def intervals(scores, y, labels, index, *, level, method, n_bootstrap, seeds, n_jobs):
    """:class:`MetricIntervals` of validated data (``labels`` sorted, ``index`` their
    indices; y with positives and negatives); resamples spawned from the
    ``SeedSequence`` ``seeds``."""
    k = labels.size
    st = strata(scores, y, index, k)
    estimates = statistics(pair_counts(st, np.ones((1, scores.size))), st.sizes, k)
    estimates = {key: value[0] for key, value in estimates.items()}
    signed = {m: d[0] for m, d in signed_pairs({key: v[None] for key, v in
                                                estimates.items()}, k).items()}
    signed_gap = signed_auc_gaps({key: v[None] for key, v in estimates.items()}, k)[0]
    n_pairs = len(signed["xauc"])
    # the pairs' level when the maximum over them is wanted (Bonferroni)
    joint_level = 1 - (1 - level) / max(n_pairs, 1)
    if method == "bootstrap":
        check_bootstrap_memory(n_bootstrap, k, _bootstrap_budget())
        boot = bootstrap_statistics(st, seeds, n_bootstrap, n_jobs)
        limits = {key: percentile(boot[key], level) for key in ("auc", "xauc", "prf")}
        pairs = signed_pairs(boot, k)
        pair_limits = {m: percentile(d, level) for m, d in pairs.items()}
        joint_limits = {m: percentile(d, joint_level) for m, d in pairs.items()}
        gaps = signed_auc_gaps(boot, k)
        gap_limits = percentile(gaps, level), percentile(gaps, joint_level)
    else:
        var = delong_variances(scores, y, index, k)
        limits = {key: normal_limits(estimates[key], var[key], level)
                  for key in ("auc", "xauc", "prf")}
        pair_limits = {m: normal_limits(signed[m], var["pairs"][m], level, -1.0)
                       for m in signed}
        joint_limits = {m: normal_limits(signed[m], var["pairs"][m], joint_level, -1.0)
                        for m in signed}
        # the within-group AUCs of two groups share no item: their variances add
        within = np.diagonal(var["xauc"])
        gap_var = within[np.triu_indices(k, 1)[0]] + within[np.triu_indices(k, 1)[1]]
        gap_limits = tuple(normal_limits(signed_gap, gap_var, lv, -1.0)
                           for lv in (level, joint_level))
        n_bootstrap = None
    npos, nneg = st.sizes[1::2], st.sizes[0::2]

    def interval(estimate, low, high, defined=True):
        if not defined or not np.isfinite([estimate, low, high]).all():
            return None
        return Interval(float(estimate), float(low), float(high))

    def cell(key, *at, defined=True):
        return interval(estimates[key][at], limits[key][0][at], limits[key][1][at],
                        defined)

    name = [lab.item() for lab in labels]
    x_defined = (npos[:, None] > 0) & (nneg[None, :] > 0)
    prf_defined = npos > 0
    a, b = np.triu_indices(k, 1)
    defined = {"xauc": x_defined[a, b] & x_defined[b, a],
               "prf": prf_defined[a] & prf_defined[b],
               "urf": np.ones(n_pairs, dtype=bool)}
    disparity_pairs, disparity, signed_at = {}, {}, ({}, {})
    for m in signed:
        for at, lim in zip(signed_at, (pair_limits[m], joint_limits[m])):
            at[m] = {(name[i], name[j]): interval(signed[m][p], lim[0][p], lim[1][p],
                                                  defined[m][p])
                     for p, (i, j) in enumerate(zip(a, b))}
        low, high = absolute(*pair_limits[m])
        disparity_pairs[m] = {
            (name[i], name[j]): interval(abs(signed[m][p]), low[p], high[p],
                                         defined[m][p])
            for p, (i, j) in enumerate(zip(a, b))}
        low, high = absolute(*joint_limits[m])
        disparity[m] = (interval(np.abs(signed[m]).max(), low.max(), high.max())
                        if n_pairs and defined[m].all() else None)
    gap_defined = x_defined[a, a] & x_defined[b, b]
    low, high = absolute(*gap_limits[0])
    auc_gap_pairs = {(name[i], name[j]): interval(abs(signed_gap[p]), low[p], high[p],
                                                  gap_defined[p])
                     for p, (i, j) in enumerate(zip(a, b))}
    low, high = absolute(*gap_limits[1])
    auc_gap = (interval(np.abs(signed_gap).max(), low.max(), high.max())
               if n_pairs and gap_defined.all() else None)
    return MetricIntervals(
        method=method, level=level, n_bootstrap=n_bootstrap, groups=tuple(name),
        auc=cell("auc"),
        auc_within={name[g]: cell("xauc", g, g, defined=x_defined[g, g])
                    for g in range(k)},
        xauc={(name[g], name[h]): cell("xauc", g, h, defined=x_defined[g, h])
              for g in range(k) for h in range(k) if g != h},
        prf={name[g]: cell("prf", g, defined=prf_defined[g]) for g in range(k)},
        urf=dict(disparity_pairs["urf"]),
        disparity_pairs=disparity_pairs, disparity=disparity,
        auc_gap_pairs=auc_gap_pairs, auc_gap=auc_gap, signed_pairs=signed_at[0],
        joint_level=float(joint_level), signed_pairs_joint=signed_at[1])
