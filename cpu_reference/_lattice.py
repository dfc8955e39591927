"""The two-group xOrder lattice: sorting, prefix counts, step gains, G-hat constants.

docs/design.md, section 3.1. Group ``a`` is group index 0 and ``b`` index 1 (sorted
group labels). Cell ``(i, j)`` is the state "the first ``i`` items of a and the first
``j`` items of b are placed". A step along a into ``(i, j)`` places ``a[i-1]`` below
everything placed so far; a step along b places ``b[j-1]``.

Counters of decided cross-group pairs, kept as int64 (``COUNTERS``):

- ``cab``: positive of a above negative of b. An a-step into ``(i, j)`` adds
  ``y_a[i-1] * (n_b0 - Q_b(j))``, ``Q_b(j)`` the negatives among the first ``j`` of b.
- ``cba``: positive of b above negative of a; a b-step adds ``y_b[j-1] * (n_a0 - Q_a(i))``.
- ``uab`` / ``uba`` (URF only): any a above any b; an a-step adds ``n_b - j``, a b-step
  adds ``n_a - i``.

Everything a cell needs is a prefix count computed here once (the public reference code
summed a label suffix in every cell, which is O(N^3)).
"""

from dataclasses import dataclass

import numpy as np

from ._counting import half_wins2_within

COUNTERS = {
    "xauc": ("cab", "cba"),
    "prf": ("cab", "cba"),
    "urf": ("cab", "cba", "uab", "uba"),
}


@dataclass(frozen=True)
class GhatConstants:
    """The float64 constants of G-hat (docs/design.md, section 3.2), in kernel-argument
    order.

    ``w``: within-group positive-above-negative pairs (ties 1/2), counted in full from
    the first cell; ``w_a``/``w_b``: the same per group (PRF); ``inv_*``: reciprocals
    of the denominators, so that both backends multiply instead of divide.
    """

    w: float
    w_a: float
    w_b: float
    inv_auc: float
    inv_ab: float
    inv_ba: float
    inv_pa: float
    inv_pb: float
    inv_u: float


@dataclass(frozen=True, eq=False)
class Lattice:
    """Everything the fill and the traceback need for one two-group problem.

    Arrays indexed by ``i`` have length ``n_a + 1``; the ``*_rev`` arrays are indexed by
    ``k = n_b - j`` so that, along an anti-diagonal ``i + j = d``, both axes are read by
    forward slices of increasing ``i``.
    """

    metric: str
    mode: str
    n_a: int
    n_b: int
    perm_a: np.ndarray       # input indices of group a, in DP (descending score) order
    perm_b: np.ndarray
    y_a: np.ndarray          # (n_a,) labels of a in DP order
    y_b_rev: np.ndarray      # (n_b + 1,) y_b_rev[k] = y_b[n_b - 1 - k], last entry 0
    negleft_a: np.ndarray    # (n_a + 1,) negleft_a[i] = n_a0 - Q_a(i)
    negleft_b_rev: np.ndarray  # (n_b + 1,) negleft_b_rev[k] = n_b0 - Q_b(n_b - k)
    left_a: np.ndarray       # (n_a + 1,) n_a - i, the URF gain of a b-step
    left_b_rev: np.ndarray   # (n_b + 1,) n_b - j at k = n_b - j, i.e. k itself
    consts: GhatConstants
    row_offset: int = 0      # rows above this lattice: > 0 for a band (``_banded``)

    @property
    def n_counters(self):
        return len(COUNTERS[self.metric])

    @property
    def n_cells(self):
        return (self.n_a + 1) * (self.n_b + 1)


def dp_order(scores):
    """Indices that sort ``scores`` descending, equal scores keeping input order."""
    return np.argsort(-scores, kind="stable")


def build_lattice(scores, y, group_index, metric, mode, perms=None):
    """Prefix counts and constants of the two-group DP (groups 0 and 1 of ``group_index``).

    Inputs are assumed validated (``gpu_xorder._validation``). ``perms``: the input
    indices of groups 0 and 1 in DP order, where the caller has sorted them already (the
    GPU engine sorts on the device); they must be :func:`dp_order`'s.
    """
    if perms is None:
        members = [np.flatnonzero(group_index == g) for g in (0, 1)]
        perms = [m[dp_order(scores[m])] for m in members]
    perm_a, perm_b = perms
    y_a, y_b = y[perm_a].astype(np.int64), y[perm_b].astype(np.int64)
    n_a, n_b = y_a.size, y_b.size
    n_a1, n_b1 = int(y_a.sum()), int(y_b.sum())
    n_a0, n_b0 = n_a - n_a1, n_b - n_b1
    n_1, n_0 = n_a1 + n_b1, n_a0 + n_b0

    negleft_a = n_a0 - np.concatenate(([0], np.cumsum(1 - y_a)))
    negleft_b = n_b0 - np.concatenate(([0], np.cumsum(1 - y_b)))
    y_b_rev = np.concatenate((y_b[::-1], [0]))

    w2 = []
    for perm in (perm_a, perm_b):
        s, lab = scores[perm], y[perm]
        w2.append(half_wins2_within(s, lab))  # s: descending
    consts = GhatConstants(
        w=(w2[0] + w2[1]) / 2.0,
        w_a=w2[0] / 2.0,
        w_b=w2[1] / 2.0,
        inv_auc=_inv(n_1 * n_0),
        inv_ab=_inv(n_a1 * n_b0),
        inv_ba=_inv(n_b1 * n_a0),
        inv_pa=_inv(n_a1 * n_0),
        inv_pb=_inv(n_b1 * n_0),
        inv_u=_inv(n_a * n_b),
    )
    return Lattice(
        metric=metric, mode=mode, n_a=n_a, n_b=n_b, perm_a=perm_a, perm_b=perm_b,
        y_a=y_a, y_b_rev=y_b_rev, negleft_a=negleft_a.astype(np.int64),
        negleft_b_rev=negleft_b[::-1].astype(np.int64).copy(),
        left_a=np.arange(n_a, -1, -1, dtype=np.int64),
        left_b_rev=np.arange(n_b + 1, dtype=np.int64),
        consts=consts,
    )


def _inv(den):
    # A zero denominator belongs to a metric term the chosen metric never reads
    # (validation rejects the others), so 0.0 keeps the constant finite.
    return 1.0 / den if den else 0.0


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
    (:func:`as_step`). The fill (``_fill``), the banded solve (``_banded``) and the
    CUDA tile kernel read every lattice in this form.

    Row ``i`` is merged item ``i - 1``: its old group (compact index ``seq_q``), label
    ``y_a`` and whether it wins a tie against b (``a_wins_ties``: its group index is the
    higher). Per old group q, over the merged prefix: ``negleft_a[q, i] = n_q0 -
    Q_q(i)`` and ``left_a[q, i] = n_q - count_q(i)`` (whole-lattice counts, kept by a
    band). Axis b as in :class:`Lattice`. ``size_a[q] = n_q``.

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
    row_offset: int = 0

    @property
    def m(self):
        return len(self.old)

    @property
    def n_counters(self):
        return (4 if self.metric == "urf" else 2) * self.m

    @property
    def n_cells(self):
        return (self.n_a + 1) * (self.n_b + 1)


def as_step(lat):
    """The two-group lattice ``lat`` as a :class:`StepLattice` with one old group (a,
    index 0) and b = 1: the same decisions, counters and constants."""
    if isinstance(lat, StepLattice):
        return lat
    c = lat.consts
    one = lambda v, dtype=np.float64: np.array([v], dtype=dtype)  # noqa: E731
    consts = StepConstants(
        s_const=0.0, w=c.w, inv_auc=c.inv_auc, inv_qb=one(c.inv_ab), inv_bq=one(c.inv_ba),
        inv_u=one(c.inv_u), old_first=one(True, bool), row_const=one(0.0), w_q=one(c.w_a),
        inv_p=one(c.inv_pa), w_b=c.w_b, inv_p_b=c.inv_pb, floor=0.0)
    return StepLattice(
        metric=lat.metric, mode=lat.mode, n_a=lat.n_a, n_b=lat.n_b, old=(0,), b=1,
        seq_q=np.zeros(lat.n_a, dtype=np.int64), y_a=lat.y_a,
        a_wins_ties=np.zeros(lat.n_a, dtype=bool), negleft_a=lat.negleft_a[None],
        left_a=lat.left_a[None],
        size_a=np.array([lat.row_offset + lat.left_a[0]], dtype=np.int64),
        y_b_rev=lat.y_b_rev, negleft_b_rev=lat.negleft_b_rev, left_b_rev=lat.left_b_rev,
        consts=consts, row_offset=lat.row_offset)


def edge_counters(lat):
    """Counters of the forced edge cells: ``(i, 0)`` for all i and ``(0, j)`` for all j.

    Returns ``(col0, row0)`` of shapes ``(K, n_a + 1)`` and ``(K, n_b + 1)``, exact
    cumulative sums of the step gains along each edge (any lattice; the counter layout
    of :class:`StepLattice`).
    """
    s = as_step(lat)
    m, k = s.m, s.n_counters
    col0 = np.zeros((k, s.n_a + 1), dtype=np.int64)
    row0 = np.zeros((k, s.n_b + 1), dtype=np.int64)
    is_q = s.seq_q[None, :] == np.arange(m)[:, None]
    # (i, 0): the first i merged items above every item of b
    col0[:m, 1:] = np.cumsum(is_q * s.y_a, axis=1) * s.negleft_b_rev[-1]
    # (0, j): the first j items of b above every merged item
    y_b = s.y_b_rev[:-1][::-1]
    row0[m:2 * m, 1:] = np.cumsum(y_b)[None, :] * s.negleft_a[:, :1]
    if k == 4 * m:
        col0[2 * m:3 * m, 1:] = np.cumsum(is_q, axis=1) * s.n_b
        row0[3 * m:, 1:] = np.arange(1, s.n_b + 1)[None, :] * s.left_a[:, :1]
    return col0, row0
