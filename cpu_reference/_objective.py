"""The objective J = AUC - lam * D: every metric's state, step gains and G-hat, in one place.

docs/design.md, sections 3.2 and 4. **The disparity term is written once**:
``PAIR_TERM`` (the signed term of one pair of groups, per metric, :func:`_pair_term`) and
:func:`prf_share` (PRF's per-group share ``P_g``), with the two-group pair's reciprocals
picked by :func:`pair_scales`; which counters a metric keeps is ``_lattice.COUNTER_KINDS``.
Every form of G-hat forms its terms through them, and there are two, as in CUDA:

- **a step lattice** (``_lattice.StepLattice``: m groups on axis a, one on axis b; the
  two-group lattice is ``m = 1``): :class:`StepObjective`, whose state rows
  (:func:`state_rows`) the fill (``_fill``) decides anti-diagonal by anti-diagonal, as
  the numba kernels do, with one decider for ``m = 1`` (:func:`lean_auc`,
  :func:`lean_disparity`) and one for more old groups. One cell's counters of a
  two-group lattice go through the same ``m = 1`` functions: :func:`cell_values` (and
  :func:`state_values` of states, which the exact solvers ``_fronts`` and ``_relink``
  read), the contract every fill, solver and kernel is checked against;
- **K groups**: ``_kobjective.KTerms``, of one cell's pair counters
  (``kgroup_values``) and of the candidates of a K-D hyperplane (``KdObjective``).

The CUDA twin is ``gpu_xorder/engine/cuda/xorder_objective.cuh``, the numba twin
``gpu_xorder/engine/_numba_kernels.py``; both name the term ``pair_term`` and the share
``prf_share``.

Exactness: every counter is an integer below 2**53 (validation bounds the input), held
exactly in float64, so integer sums may be regrouped freely; every *rounded* operation
(a product by a reciprocal, a difference of products, ``auc - d * lam``) is the same in
every form, and the GPU compiles without fused multiply-add, so all backends take the
same decision in every cell, exact ties included. For PRF the maximum over pairs of
``|P_g - P_h|`` is taken as ``P_max - P_min``: the same double, as rounding is monotone
and ``fl(x - y) = -fl(y - x)``; likewise the signed term of a pair whose groups come in
the other order is ``-t``, carried as ``t * (-lam)``, the same double as ``(-t) * lam``.
"""

import numpy as np

from gpu_xorder.utils._metrics import METRICS, MSG_SIGNED_TWO

from ._lattice import COUNTER_KINDS

# ------------------------------------------------------------------ the disparity term


def _pair_term(urf):
    """The signed disparity term of one pair of groups g, h, elementwise (broadcasting):
    ``first * scale_first - second * scale_second``, for URF ``first * scale_first``.

    ======  ==========================  ==============================
    metric  first, second               scale_first, scale_second
    ======  ==========================  ==============================
    xauc    C[g][h], C[h][g]            1 / (n_g1 n_h0), 1 / (n_h1 n_g0)
    prf     R_g + w_g, R_h + w_h        1 / (n_g1 n_0), 1 / (n_h1 n_0)
    urf     U[g][h] - U[h][g], unused   1 / (n_g n_h), unused
    ======  ==========================  ==============================

    (PRF: ``P_g - P_h``, see :func:`prf_share`.) The operands are exact integers (or
    half-integers) held in float64. ``out`` receives the term (a new array or scalar if
    None), ``tmp`` the second product. One function per kind of term, so that the fill
    calls it once per anti-diagonal with no test of the metric.
    """
    mul, sub = np.multiply, np.subtract
    if urf:
        def term(first, second, scale_first, scale_second, out=None, tmp=None):
            return mul(first, scale_first, out)
    else:
        def term(first, second, scale_first, scale_second, out=None, tmp=None):
            return sub(mul(first, scale_first, out), mul(second, scale_second, tmp), out)
    term.__doc__ = _pair_term.__doc__
    return term


#: ``PAIR_TERM[metric](first, second, scale_first, scale_second, out=None, tmp=None)``:
#: the disparity term of a pair of groups (:func:`_pair_term`), written once.
PAIR_TERM = {name: _pair_term(m.any_pairs) for name, m in METRICS.items()}


def prf_share(r, w, inv_p, out=None):
    """PRF's share of a group g: ``P_g = ((double)R_g + w_g) * inv_p[g]``, ``R_g`` the
    sum of ``C[g][h]`` over the other groups (an exact integer), ``w_g`` its
    within-group pairs; the PRF term of a pair is ``P_g - P_h`` (``PAIR_TERM``)."""
    t = np.add(r, w, out)
    return np.multiply(t, inv_p, t if isinstance(t, np.ndarray) else None)


def pair_scales(consts, metric):
    """``(scale_first, scale_second)`` of ``PAIR_TERM`` for the pair (old group 0, b)
    of a step lattice's constants (``_lattice.StepConstants``): the two-group lattice's
    pair (a, b)."""
    if metric == "xauc":
        return consts.inv_qb[0], consts.inv_bq[0]
    if metric == "prf":
        return consts.inv_p[0], consts.inv_p_b
    return consts.inv_u[0], 0.0


def term_operands(rows, metric):
    """``(first, second)`` of ``PAIR_TERM`` from state rows indexed by kind along
    axis 0: ``C[g][h]``, ``C[h][g]`` and, for URF, ``U[g][h] - U[h][g]``."""
    return (rows[2], None) if COUNTER_KINDS[metric].has_u else (rows[0], rows[1])


def flipped(consts, mode):
    """Whether the signed term of a step lattice's pair is minus its ``PAIR_TERM``: the
    signed D is the term of the pair ordered g < h, and b precedes old group 0."""
    return mode == "signed" and not bool(consts.old_first[0])


# ------------------------------------------------------------------ two groups, counters


def state_rows(counters, consts, metric, m=1):
    """The state rows (float64, ``(rows, ...)``) of int counters ``(n_counters, ...)``
    of a step lattice with ``m`` old groups and constants ``consts``
    (:class:`StepObjective`'s: for ``m = 1``, ``cab, cba[, uab - uba]``, PRF's with
    ``w_a``, ``w_b`` added)."""
    c = np.asarray(counters, dtype=np.float64)
    if COUNTER_KINDS[metric].has_u:
        return np.concatenate([c[:2 * m], c[2 * m:3 * m] - c[3 * m:]])
    if metric == "prf" and m == 1:
        return np.stack([c[0] + consts.w_q[0], c[1] + consts.w_b])
    return c.copy()


def lean_auc(rows, w, inv_auc, add_w, out):
    """auc of ``m = 1`` state rows, into ``out``: ``((double)(cab + cba) + w) *
    inv_auc`` (``add_w`` False: PRF's rows already hold ``w_a``, ``w_b``)."""
    np.add(rows[0], rows[1], out)
    if add_w:
        np.add(out, w, out)
    return np.multiply(out, inv_auc, out)


def lean_disparity(rows, term, first, scale, scale_b, absolute, out, tmp):
    """The disparity term of ``m = 1`` state rows, into ``out``: ``term``
    (``PAIR_TERM[metric]``) of rows ``first`` (0, URF: 2) and 1 with the scales of
    :func:`pair_scales`, ``|.|`` where ``absolute`` (signed: the pair's orientation is
    the caller's, :func:`flipped`)."""
    term(rows[first], rows[1], scale, scale_b, out, tmp)
    if absolute:
        np.abs(out, out)
    return out


def cell_values(counters, consts, lam, metric, mode):
    """``(objective, auc, disparity)`` of one cell's int counters ``cab, cba[, uab,
    uba]`` of a two-group lattice with constants ``consts`` (``_lattice.COUNTERS``):
    G-hat ``auc - d * lam`` by the lean form of :class:`StepObjective`, the operations
    of every fill."""
    counters = np.asarray(counters, dtype=np.int64).reshape(-1, 1)
    values = state_values(state_rows(counters, consts, metric), consts, lam, metric, mode)
    return tuple(float(v[0]) for v in values)


def state_values(rows, consts, lam, metric, mode):
    """``(objective, auc, disparity)`` of ``m = 1`` state rows ``(rows, cells)``, one
    array of the cells each."""
    auc, d, f = (np.empty(np.shape(rows[0])) for _ in range(3))
    lean_auc(rows, consts.w, consts.inv_auc, metric != "prf", auc)
    lean_disparity(rows, PAIR_TERM[metric], 2 if COUNTER_KINDS[metric].has_u else 0,
                   *pair_scales(consts, metric), mode == "absolute", d, f)
    if flipped(consts, mode):
        np.negative(d, d)
    return np.subtract(auc, np.multiply(d, lam)), auc, d


# ------------------------------------------------------------------ step lattices

#: Lanes of padding after every padded input: a decision of ``length`` cells reads
#: ``length`` entries from any offset up to the lattice's end.
PAD = 64


class StepObjective:
    """G-hat and step gains of a ``StepLattice`` at one lam, for the anti-diagonal fill.

    Exact float64 *state rows* per cell, chosen so that G-hat needs as few operations as
    possible, and converted exactly to and from the counters (:meth:`to_state`,
    :meth:`from_state`):

    - ``m = 1`` (two groups, or the first iterative step): ``(C[a][b], C[b][a])`` for
      xAUC, ``(C[a][b] + w_a, C[b][a] + w_b)`` for PRF (the exact sums its term
      multiplies, and ``row0 + row1`` is then ``C + w``), ``(C[a][b], C[b][a], U[a][b] -
      U[b][a])`` for URF;
    - ``m > 1``: ``C[q][b]`` (m rows), ``C[b][q]`` (m rows) and for URF ``U[q][b] -
      U[b][q]`` (m rows); the final U follow from ``U[q][b] + U[b][q]``, the number of
      pairs of q and b with an item placed.

    :meth:`decider` returns the function the fill calls once per anti-diagonal. The
    CUDA twin is ``StepObjective`` in ``cuda/xorder_objective.cuh``.
    """

    def __init__(self, lat, lam):
        self.lat, self.lam = lat, float(lam)
        self.metric, self.m = lat.metric, lat.m
        self.has_u = COUNTER_KINDS[lat.metric].has_u
        self.kinds = COUNTER_KINDS[lat.metric].state_rows  # state rows per old group
        self.rows = self.kinds * self.m
        self.signed = lat.mode == "signed"
        c = lat.consts
        if self.m == 1:
            # the lean path's assumptions: nothing is constant but w, one orientation
            assert c.s_const == 0 and c.floor == 0 and c.row_const[0] == 0
            assert lat.a_wins_ties.all() or not lat.a_wins_ties.any()
        elif self.signed:
            raise ValueError(MSG_SIGNED_TWO.format(n_groups=self.m + 1))
        #: ``m = 1``: the scales of the pair term (``pair_scales``), and whether the
        #: signed term's orientation is carried by lam's sign (``flipped``)
        self.scales = pair_scales(c, self.metric) if self.m == 1 else None
        self.flip = self.m == 1 and flipped(c, lat.mode)

    # ------------------------------------------------------------ state <-> counters

    def to_state(self, counters):
        """State rows (float64, ``(rows, ...)``) of int64 counters ``(n_counters, ...)``."""
        return state_rows(counters, self.lat.consts, self.metric, self.m)

    def from_state(self, state, j=None):
        """int64 counters of the state rows of last-row cells ``(n_a, j)`` (default
        ``j = n_b``, the last cell); inverse of :meth:`to_state`.

        ``U[q][b] + U[b][q]`` is the number of pairs of q and b with an item placed:
        ``count_q n_b + placed_b left_q`` at the last row, ``count_q`` the items of q
        placed, ``left_q`` those not yet placed, ``placed_b`` the items of b among the
        first ``j`` rows of its axis (``j`` on a lattice of items).
        """
        s = np.asarray(state, dtype=np.float64)
        lat, m = self.lat, self.m
        if self.has_u:
            items_b = lat.items_b
            placed_b = items_b if j is None else (
                items_b - lat.left_b_rev[lat.n_b - np.asarray(j)]).astype(np.float64)
            left = lat.left_a[:, -1].astype(np.float64)
            count = lat.size_a.astype(np.float64) - left
            shape = (m,) + (1,) * (s.ndim - 1)
            pairs = count.reshape(shape) * items_b + placed_b * left.reshape(shape)
            u_qb = (pairs + s[2 * m:]) / 2.0
            out = np.concatenate([s[:2 * m], u_qb, pairs - u_qb])
        elif self.metric == "prf" and m == 1:
            k = lat.consts
            out = np.stack([s[0] - k.w_q[0], s[1] - k.w_b])
        else:
            out = s
        return out.astype(np.int64)

    # ------------------------------------------------------------ the fill's views

    def pred_views(self, pred):
        """What the decider reads of the predecessors ``pred``, shape ``(rows, 2, L)``
        (``[:, 0]`` at each cell's a-predecessor, ``[:, 1]`` at its b-predecessor):
        the fill makes it once per (padded) length and caches it."""
        if self.m == 1:
            return tuple(pred)
        return self._blocks(pred)

    def candidate_views(self, cand):
        """What the decider writes: ``cand`` of shape ``(rows, 2, L)`` receives the
        candidates; on return ``cand[:, 1]`` holds the state of every cell's winner
        (the fill lays ``cand[:, 1]`` over the next diagonal, so the b-candidates land
        there with no copy). Every NumPy call of the ``m = 1`` path works on one state
        row: a call over a 3-D strided view makes NumPy copy its operands through
        buffers, several times the cost of the arithmetic."""
        if self.m == 1:
            rows = tuple(cand)
            return (rows, tuple(r[0] for r in rows), tuple(r[1] for r in rows))
        return self._blocks(cand)

    def _blocks(self, a):
        """``a`` (rows, 2, L), rows of one kind evenly strided, as ``(kinds, m, 2, L)``."""
        s = a.strides
        return np.lib.stride_tricks.as_strided(
            a, (self.kinds, self.m) + a.shape[1:], (self.m * s[0], s[0]) + s[1:])

    # ------------------------------------------------------------ deciding cells

    def decider(self, max_len):
        """``decide(pred, cand, i_lo, k_lo, length, dec_out)``: decide ``length`` cells
        ``(i_lo + t, n_b - k_lo - t)`` of one anti-diagonal from ``pred_views`` into
        ``candidate_views``; ``dec_out`` (bool, ``(length,)``) receives True where the
        step along a wins: a strictly larger G-hat, or an equal one where the row's
        item wins ties (``a_wins_ties``). Inputs are read ``length`` entries from the
        offsets, so ``length`` may exceed the cells by up to ``PAD`` lanes (padding).
        """
        return (self._lean if self.m == 1 else self._block)(max_len + PAD)

    def _inputs(self, size):
        """The lattice's gain inputs as padded float64 rows (index i on axis a,
        k = n_b - j on axis b)."""
        lat = self.lat

        def padded(a, shift=0):
            a = np.atleast_2d(a)
            out = np.zeros((a.shape[0], shift + a.shape[1] + size))
            out[:, shift:shift + a.shape[1]] = a
            return out

        is_q = (lat.seq_q[None, :] == np.arange(self.m)[:, None]).astype(np.float64)
        # is_q: the row's weight on U in its old group's row, 0 in the others
        return dict(
            ypos=padded(is_q * lat.y_a, 1), is_q=padded(is_q * lat.u_a, 1),  # column i:
            negleft_a=padded(lat.negleft_a), left_a=padded(lat.left_a),  # item i - 1
            y_b_rev=padded(lat.y_b_rev)[0], negleft_b_rev=padded(lat.negleft_b_rev)[0],
            left_b_rev=padded(lat.left_b_rev)[0], u_b_rev=padded(lat.u_b_rev)[0],
            a_wins=np.concatenate(([False], lat.a_wins_ties, np.zeros(size, dtype=bool))))

    def _lean(self, size):
        """``m = 1``: the two-group fill, one NumPy call per state row. The step gains
        go into a buffer whose strided view places them where each candidate needs them
        (zeros elsewhere), so that both candidates of a row come from one addition."""
        inp, c, r = self._inputs(size), self.lat.consts, self.rows
        y_a, negleft_b_rev = inp["ypos"][0], inp["negleft_b_rev"]
        y_b_rev, negleft_a = inp["y_b_rev"], inp["negleft_a"][0]
        left_b_rev, left_a = inp["left_b_rev"], inp["left_a"][0]
        u_a, u_b_rev = inp["is_q"][0], inp["u_b_rev"]
        # gains[k, cand] = buf[2k + cand]: a-step gains in even rows, b-step in odd ones
        buf = np.zeros((2 * r, size))
        row = buf.strides[0]
        gains_all = np.ndarray((r, 2, size), dtype=np.float64, buffer=buf,
                               strides=(2 * row, row, 8))
        # 0-d arrays: NumPy converts a 0-d array operand faster than a scalar; lam carries
        # the signed term's orientation (-t * lam and t * -lam are the same double)
        lam = -self.lam if self.flip else self.lam
        lam, w, inv_auc = (np.array(v, dtype=np.float64) for v in (lam, c.w, c.inv_auc))
        scale, scale_b = (np.array(v, dtype=np.float64) for v in self.scales)
        urf, add_w = self.has_u, self.metric != "prf"
        first = 2 if urf else 0  # the state row of the term's first operand
        use_lam, absolute = bool(self.lam), not self.signed
        compare = np.greater_equal if inp["a_wins"][1:].any() else np.greater
        auc_buf, term_buf = np.empty(2 * size), np.empty(4 * size)
        cache = {}

        def views(length):
            auc = auc_buf[:2 * length].reshape(2, length)
            term = term_buf[:4 * length].reshape(2, 2, length)
            v = (buf[0, :length], buf[3, :length], buf[4, :length] if urf else None,
                 buf[5, :length] if urf else None, tuple(gains_all[:, :, :length]),
                 auc, auc[0], auc[1], term[0], term[1])
            cache[length] = v
            return v

        mul, add, sub, copyto = np.multiply, np.add, np.subtract, np.copyto
        negative = np.negative
        term = PAIR_TERM[self.metric]

        def decide(pred, cviews, i_lo, k_lo, length, dec_out):
            (gain_a, gain_b, gain_ua, gain_ub, gains, auc, auc_a, auc_b, term0,
             term1) = cache.get(length) or views(length)
            rows, cand_a, cand_b = cviews
            # a-step into (i, j): C[a][b] += y_a[i-1] * (n_b0 - Q_b(j)); U[a][b] +=
            # r_a[i-1] (n_b - j) (weight on U: 1 on a lattice of items, the same integer)
            mul(y_a[i_lo:i_lo + length], negleft_b_rev[k_lo:k_lo + length], gain_a)
            # b-step into (i, j): C[b][a] += y_b[j-1] * (n_a0 - Q_a(i)); U[b][a] +=
            # r_b[j-1] (n_a - i)
            mul(y_b_rev[k_lo:k_lo + length], negleft_a[i_lo:i_lo + length], gain_b)
            if urf:
                mul(u_a[i_lo:i_lo + length], left_b_rev[k_lo:k_lo + length], gain_ua)
                mul(u_b_rev[k_lo:k_lo + length], left_a[i_lo:i_lo + length], gain_ub)
                negative(gain_ub, gain_ub)
            for p, g, cnd in zip(pred, gains, rows):
                add(p, g, cnd)
            lean_auc(rows, w, inv_auc, add_w, auc)
            if use_lam:  # else g = auc - 0 * d = auc, exactly (d is finite)
                lean_disparity(rows, term, first, scale, scale_b, absolute, term0, term1)
                mul(term0, lam, term0)
                sub(auc, term0, auc)
            compare(auc_a, auc_b, dec_out)
            for b, a in zip(cand_b, cand_a):
                copyto(b, a, where=dec_out)

        return decide

    def _block(self, size):
        """``m > 1``: every call serves all old groups and both candidates at once."""
        inp, c, m = self._inputs(size), self.lat.consts, self.m
        ypos, is_q = inp["ypos"], inp["is_q"]
        negleft_a, left_a = inp["negleft_a"], inp["left_a"]
        y_b_rev, negleft_b_rev = inp["y_b_rev"], inp["negleft_b_rev"]
        left_b_rev, a_wins, u_b_rev = inp["left_b_rev"], inp["a_wins"], inp["u_b_rev"]
        any_a_wins = bool(a_wins.any())
        col = lambda v: np.asarray(v, dtype=np.float64)[:, None, None]  # noqa: E731
        inv_qb, inv_bq, inv_u = col(c.inv_qb), col(c.inv_bq), col(c.inv_u)
        row_w = col(c.row_const), col(c.w_q)
        inv_p = col(c.inv_p)
        metric, urf, prf = self.metric, self.has_u, self.metric == "prf"
        lam, s_const, floor = self.lam, c.s_const, c.floor
        gain = np.empty((m, size))
        term_buf, term_tmp = np.empty(2 * m * size), np.empty(2 * m * size)
        term = PAIR_TERM[metric]
        add, mul, sub, copyto = np.add, np.multiply, np.subtract, np.copyto

        def decide(pred, cand, i_lo, k_lo, length, dec_out):
            cells, ks = slice(i_lo, i_lo + length), slice(k_lo, k_lo + length)
            g = gain[:, :length]
            # a-step into (i, j): item i - 1 (old group q) gains y (n_b0 - Q_b(j)) on
            # C[q][b] and r_a[i-1] (n_b - j) on U[q][b]
            mul(ypos[:, cells], negleft_b_rev[ks], g)
            add(pred[0, :, 0], g, cand[0, :, 0])
            copyto(cand[1, :, 0], pred[1, :, 0])
            # b-step into (i, j): item j - 1 of b gains y (n_q0 - Q_q(i)) on C[b][q] and
            # r_b[j-1] (n_q - count_q(i)) on U[b][q] (is_q holds the a-row's weight r_a)
            copyto(cand[0, :, 1], pred[0, :, 1])
            mul(negleft_a[:, cells], y_b_rev[ks], g)
            add(pred[1, :, 1], g, cand[1, :, 1])
            if urf:
                mul(is_q[:, cells], left_b_rev[ks], g)
                add(pred[2, :, 0], g, cand[2, :, 0])
                mul(left_a[:, cells], u_b_rev[ks], g)
                sub(pred[2, :, 1], g, cand[2, :, 1])
            c_qb, c_bq = cand[0], cand[1]
            # exact integer: the C of all pairs of the groups merged so far plus b
            total = cand[:2].sum(axis=(0, 1))
            if s_const:
                add(total, s_const, total)
            auc = add(total, c.w, total)
            mul(auc, c.inv_auc, auc)
            if prf:
                # P_q of the old groups (R_q = C[q][b] + row_const[q]), then P_b
                p_old = add(c_qb, row_w[0])
                prf_share(p_old, row_w[1], inv_p, p_old)
                p_b = prf_share(c_bq.sum(axis=0), c.w_b, c.inv_p_b)
                # max over pairs of |P_g - P_h| is P_max - P_min: rounding is monotone
                d = np.maximum(p_old.max(axis=0), p_b)
                sub(d, np.minimum(p_old.min(axis=0), p_b), d)
            else:
                # the term of every pair (q, b), both candidates: C[q][b] * inv_qb -
                # C[b][q] * inv_bq, or (U[q][b] - U[b][q]) * inv_u
                first, second = term_operands(cand, metric)
                shape = (m, 2, length)
                terms = term(first, second, inv_u if urf else inv_qb, inv_bq,
                             term_buf[:2 * m * length].reshape(shape),
                             term_tmp[:2 * m * length].reshape(shape))
                np.abs(terms, terms)
                d = terms.max(axis=0)
                if floor:  # the pairs without b (max(d, 0.0) would change no bit)
                    np.maximum(d, floor, out=d)
            if lam:  # else auc - 0 * d = auc exactly (d is finite)
                sub(auc, mul(d, lam), auc)
            np.greater(auc[0], auc[1], dec_out)
            if any_a_wins:  # equal G-hat: the item of the higher group index wins
                tie = np.equal(auc[0], auc[1])
                np.logical_and(tie, a_wins[cells], tie)
                np.logical_or(dec_out, tie, dec_out)
            for kind in range(self.kinds):
                copyto(cand[kind, :, 1], cand[kind, :, 0], where=dec_out)

        return decide
