"""The 2-D lattices of xOrder: the counters, prefix counts, step gains, G-hat constants.

docs/design.md, sections 3.1 and 4. One lattice type, :class:`StepLattice`: m groups
(the "old" groups) on axis a against one group b on axis b. The two-group lattice is
``m = 1`` (:func:`build_lattice`: group ``a`` is group index 0 and ``b`` index 1, sorted
group labels), every step of iterative xOrder is one (``_iterative.step_lattice``); both
are built by :func:`step_of` from the groups' sorted orders and prefix counts
(``_kgroups.build_problem``). Cell ``(i, j)`` is the state "the first ``i`` items of axis
a and the first ``j`` items of b are placed". A step along a into ``(i, j)`` places item
``i - 1`` of axis a below everything placed so far; a step along b places ``b[j-1]``.

Counters of decided cross-group pairs, kept as int64, per metric
(:data:`COUNTER_KINDS`, the one table of which counters a metric keeps); for two groups:

- ``cab``: positive of a above negative of b. An a-step into ``(i, j)`` adds
  ``y_a[i-1] * (n_b0 - Q_b(j))``, ``Q_b(j)`` the negatives among the first ``j`` of b.
- ``cba``: positive of b above negative of a; a b-step adds ``y_b[j-1] * (n_a0 - Q_a(i))``.
- ``uab`` / ``uba`` (URF only): any a above any b; an a-step adds ``n_b - j``, a b-step
  adds ``n_a - i``. On a lattice of runs (a row or column is a run of ``r`` items,
  ``_blocks.merged_lattice``) a step carries its run's *weight on U*: an a-step adds
  ``r_a[i-1]`` times the items of b not yet placed, a b-step ``r_b[j-1]`` times those of
  a (``u_a``, ``u_b_rev``; weight 1 on a lattice of items, where the products are the
  same integers as before).

Everything a cell needs is a prefix count computed once (the public reference code
summed a label suffix in every cell, which is O(N^3)).
"""

from dataclasses import dataclass, replace

import numpy as np

from gpu_xorder.utils._metrics import METRICS

from ._kgroups import build_constants, build_problem

#: Per metric, the counters it keeps (the registry's ``kinds``).
COUNTER_KINDS = {name: m.kinds for name, m in METRICS.items()}

#: The two-group counters of every metric, by name (``FairOrderResult.counters``).
COUNTERS = {metric: kinds.names for metric, kinds in COUNTER_KINDS.items()}


@dataclass(frozen=True)
class StepConstants:
    """The float64 constants of a step lattice's G-hat (docs/design.md, section 4).

    Scalars: ``s_const`` (the C of every pair of old groups, one exact integer), ``w``
    and ``inv_auc`` of the groups merged so far plus b, ``w_b`` and ``inv_p_b`` of b,
    ``floor`` (the largest |term| of the pairs without b, whose counters no longer
    move; 0.0 when there are none, and for PRF, whose terms all move). Arrays, one
    entry per old group q: ``inv_qb = 1 / (n_q1 n_b0)``, ``inv_bq = 1 / (n_b1 n_q0)``,
    ``inv_u = 1 / (n_q n_b)``, ``old_first`` (q < b: the orientation of the signed
    term), ``row_const`` (R_q over the pairs without b, an exact integer), ``w_q`` and
    ``inv_p``.
    """

    s_const: float
    w: float
    inv_auc: float
    inv_qb: np.ndarray
    inv_bq: np.ndarray
    inv_u: np.ndarray
    old_first: np.ndarray
    row_const: np.ndarray
    w_q: np.ndarray
    inv_p: np.ndarray
    w_b: float
    inv_p_b: float
    floor: float


@dataclass(frozen=True, eq=False)
class StepLattice:
    """A 2-D lattice whose axis a is a sequence of items of ``m`` groups (the "old"
    groups, merged so far) and whose axis b is one group: one step of iterative xOrder
    (docs/design.md, section 4), and, with ``m = 1``, the two-group lattice itself
    (:func:`build_lattice`). The fills (``_fill``, the numba and CUDA kernels), the
    banded solve (``_banded``) and the exact solvers read every lattice in this form.

    Row ``i`` is merged item ``i - 1``: its old group (compact index ``seq_q``), label
    ``y_a`` and whether it wins a tie against b (``a_wins_ties``: its group index is the
    higher). Per old group q, over the merged prefix: ``negleft_a[q, i] = n_q0 -
    Q_q(i)`` and ``left_a[q, i] = n_q - count_q(i)`` (whole-lattice counts, kept by a
    band). Axis b, indexed by ``k = n_b - j`` so that along an anti-diagonal both axes
    are read by forward slices of increasing ``i``: ``y_b_rev[k] = y_b[n_b - 1 - k]``
    (last entry 0), ``negleft_b_rev[k] = n_b0 - Q_b(n_b - k)``, ``left_b_rev[k] = k =
    n_b - j``. ``size_a[q] = n_q``. ``perm_a``, ``perm_b``: for two groups, the input
    indices of a and b in DP (descending score) order (None for a step or a block
    lattice).

    Weight on U (URF; module docstring): ``u_a[i - 1]``, the items of row ``i`` (a run
    of equal scores, or one item), and ``u_b_rev[k]`` those of item ``n_b - 1 - k`` of
    b (last entry 0). ``left_a``, ``left_b_rev`` and ``size_a`` count *items*, so that
    on a lattice of runs ``left_b_rev[k]`` is the items of the last ``k`` runs of b and
    ``items_b`` all of b's. On a lattice of items every weight is 1.

    Counters (``n_counters`` rows): ``C[q][b]`` for q = 0..m-1, then ``C[b][q]``, then for
    URF ``U[q][b]`` and ``U[b][q]``; for ``m = 1`` the ``(cab, cba[, uab, uba])`` of the
    two-group lattice.
    """

    metric: str
    mode: str
    n_a: int
    n_b: int
    old: tuple
    b: int
    seq_q: np.ndarray
    y_a: np.ndarray
    a_wins_ties: np.ndarray
    negleft_a: np.ndarray
    left_a: np.ndarray
    size_a: np.ndarray
    y_b_rev: np.ndarray
    negleft_b_rev: np.ndarray
    left_b_rev: np.ndarray
    consts: StepConstants
    u_a: np.ndarray = None
    u_b_rev: np.ndarray = None
    row_offset: int = 0      # rows above this lattice: > 0 for a band (``_banded``)
    perm_a: np.ndarray = None
    perm_b: np.ndarray = None

    def __post_init__(self):
        # weight 1 on U where none is given: a lattice of items
        if self.u_a is None:
            object.__setattr__(self, "u_a", np.ones(self.n_a, dtype=np.int64))
        if self.u_b_rev is None:
            u_b = np.ones(self.n_b + 1, dtype=np.int64)
            u_b[-1] = 0
            object.__setattr__(self, "u_b_rev", u_b)

    @property
    def m(self):
        return len(self.old)

    @property
    def n_counters(self):
        return COUNTER_KINDS[self.metric].per_pair * self.m

    @property
    def n_cells(self):
        return (self.n_a + 1) * (self.n_b + 1)

    @property
    def items_b(self):
        """The items of group b (its rows' weights on U together)."""
        return int(self.left_b_rev[-1])


def build_lattice(scores, y, group_index, metric, mode, perms=None):
    """The two-group lattice (groups 0 and 1 of ``group_index``): the
    :class:`StepLattice` of one old group, a (index 0), against b (index 1).

    Inputs are assumed validated (``gpu_xorder.utils._validation``). ``perms``: the input
    indices of groups 0 and 1 in DP order, where the caller has sorted them already (the
    GPU engine sorts on the device); they must be ``_kgroups.dp_order``'s. The groups'
    prefix counts and constants are the K-group code's (``_kgroups.build_problem``,
    ``build_constants``), the lattice :func:`step_of`'s, as for every iterative step.
    """
    return problem_lattice(build_problem(scores, y, group_index, 2, metric, mode,
                                         perms=perms))


def problem_lattice(prob):
    """The two-group lattice of ``prob`` (a ``_kgroups.KProblem`` of two groups); of a
    problem of runs, the lattice of runs (rows weighted by their items), whose paths
    are not of items (``perm_a``, ``perm_b`` None)."""
    lat = step_of(prob, build_constants(prob, (0, 1)),
                  np.zeros(prob.sizes[0], dtype=np.int64), prob.ys[0], 1,
                  seq_w=prob.weight(0))
    if prob.weights is not None:
        return lat
    return replace(lat, perm_a=prob.perms[0], perm_b=prob.perms[1])


def step_of(prob, cs, seq_g, seq_y, b, s_const=0.0, row_const=None, floor=0.0,
            seq_w=None):
    """The :class:`StepLattice` of merging group ``b`` of ``prob`` (a
    ``_kgroups.KProblem``) into the sequence ``(seq_g, seq_y)`` of the other groups of
    ``cs.members`` (``cs``: their constants, ``_kgroups.build_constants``).

    ``s_const``, ``row_const`` (``{g: R_g}`` over the pairs without b; default 0) and
    ``floor``: what the pairs among the old groups contribute (:class:`StepConstants`;
    ``_iterative.MergedSums`` keeps them). One old group: the two-group lattice.
    ``seq_w``: the items of every entry of the sequence (a problem of runs,
    ``_kgroups.runs_problem``; default 1 each), b's are ``prob.weight(b)``.
    """
    old = [g for g in cs.members if g != b]
    sizes = prob.sizes
    compact = np.full(prob.k, -1, dtype=np.int64)
    compact[old] = np.arange(len(old))
    seq_g, seq_y = np.asarray(seq_g), np.asarray(seq_y, dtype=np.int64)
    seq_w = (np.ones(seq_g.size, dtype=np.int64) if seq_w is None
             else np.asarray(seq_w, dtype=np.int64))
    # prefix counts (of items) over the merged sequence, one row per old group
    is_q = (seq_g[None, :] == np.array(old)[:, None]).astype(np.int64)
    placed = np.concatenate((np.zeros((len(old), 1), dtype=np.int64),
                             np.cumsum(is_q * seq_w, axis=1)), axis=1)
    negatives = np.concatenate((np.zeros((len(old), 1), dtype=np.int64),
                                np.cumsum(is_q * (seq_w - seq_y), axis=1)), axis=1)
    size_a = np.array([prob.n_items(h) for h in old], dtype=np.int64)
    n0_a = np.array([prob.n0(h) for h in old], dtype=np.int64)
    arr = np.array
    consts = StepConstants(
        s_const=float(s_const),  # exact
        w=cs.w, inv_auc=cs.inv_auc,
        inv_qb=arr([cs.inv_x[(g, b)] for g in old]),
        inv_bq=arr([cs.inv_x[(b, g)] for g in old]),
        inv_u=arr([cs.inv_u[(min(g, b), max(g, b))] for g in old]),
        old_first=arr([g < b for g in old], dtype=bool),
        row_const=arr([0 if row_const is None else row_const[g] for g in old],
                      dtype=np.float64),
        w_q=arr([cs.w_g[g] for g in old]), inv_p=arr([cs.inv_p[g] for g in old]),
        w_b=cs.w_g[b], inv_p_b=cs.inv_p[b], floor=floor)
    n_b, w_b = sizes[b], prob.weight(b)
    return StepLattice(
        metric=prob.metric, mode=prob.mode, n_a=seq_g.size, n_b=n_b, old=tuple(old), b=b,
        seq_q=compact[seq_g], y_a=seq_y, a_wins_ties=seq_g > b,
        negleft_a=n0_a[:, None] - negatives, left_a=size_a[:, None] - placed,
        size_a=size_a, y_b_rev=np.concatenate((prob.ys[b][::-1], [0])).astype(np.int64),
        negleft_b_rev=prob.negleft[b][::-1].astype(np.int64),
        left_b_rev=np.concatenate(([0], np.cumsum(w_b[::-1]))).astype(np.int64),
        consts=consts, u_a=seq_w, u_b_rev=np.concatenate((w_b[::-1], [0])).astype(np.int64))


def edge_counters(lat):
    """Counters of the forced edge cells: ``(i, 0)`` for all i and ``(0, j)`` for all j.

    Returns ``(col0, row0)`` of shapes ``(K, n_a + 1)`` and ``(K, n_b + 1)``, exact
    cumulative sums of the step gains along each edge (the counter layout of
    :class:`StepLattice`).
    """
    m, k = lat.m, lat.n_counters
    col0 = np.zeros((k, lat.n_a + 1), dtype=np.int64)
    row0 = np.zeros((k, lat.n_b + 1), dtype=np.int64)
    is_q = lat.seq_q[None, :] == np.arange(m)[:, None]
    # (i, 0): the first i merged items above every item of b
    col0[:m, 1:] = np.cumsum(is_q * lat.y_a, axis=1) * lat.negleft_b_rev[-1]
    # (0, j): the first j items of b above every merged item
    y_b = lat.y_b_rev[:-1][::-1]
    row0[m:2 * m, 1:] = np.cumsum(y_b)[None, :] * lat.negleft_a[:, :1]
    if COUNTER_KINDS[lat.metric].has_u:  # items above every item of the other axis
        col0[2 * m:3 * m, 1:] = np.cumsum(is_q * lat.u_a, axis=1) * lat.items_b
        u_b = lat.u_b_rev[:-1][::-1]
        row0[3 * m:, 1:] = np.cumsum(u_b)[None, :] * lat.left_a[:, :1]
    return col0, row0
