"""The anti-diagonal fill of the two-group lattice (docs/design.md, section 3.6).

Exact float64 state
-------------------
Every counter is an integer below 2**53 (validation bounds the input size), so float64
holds it exactly and integer additions in float64 are exact. The fill therefore keeps
each cell's counters as float64 *state rows*, chosen so that the G-hat contract of
``_ghat`` needs as few operations as possible per cell:

- ``xauc``: ``(cab, cba)``;
- ``prf``:  ``(cab + w_a, cba + w_b)``, the exact sums the PRF term multiplies;
- ``urf``:  ``(cab, cba, uab - uba)``.

In every case ``row0 + row1 (+ w for xauc and urf)`` is the exact ``cab + cba + w`` of the
AUC term, and the disparity term multiplies rows by the same reciprocals as ``_ghat``;
only exact integer sums are regrouped, so every rounded operation, and hence every
decision, is that of ``_ghat.ghat`` (and of the CUDA twin ``ghat()``). ``to_state`` and
``from_state`` convert exactly between state rows and the counters of ``COUNTERS``.

Layout
------
The state rows of diagonal ``d`` live in a buffer row indexed by ``i - max(0, d - n_b)``,
edge cells included, so that the a-predecessors ``(i - 1, j)`` and b-predecessors
``(i, j - 1)`` of the next diagonal are two overlapping windows of it: one strided view
of shape ``(R, 2, L)`` reads both. The step gains are written into a buffer whose strided
view places them where each candidate needs them (zeros elsewhere), so that all
``2 R L`` candidates come from one addition. That addition writes the b-candidates
straight into the next diagonal's row and the a-candidates just before it (each row
has a lead of scratch columns), so each row's two candidates are one contiguous block
and choosing the winners is one masked copy of the a-candidates.

Diagonal lengths are rounded up to a multiple of ``PAD`` so that every view the step
needs is made once per rounded length, not once per diagonal: NumPy's fixed cost per
call, not arithmetic, limits the fill at these diagonal lengths. The padded lanes
compute on finite leftovers and are never read back: their decisions are cleared and
their counters lie beyond the cells the next diagonal reads.
"""

import numpy as np

from ._bits import DiagonalPacker
from ._lattice import edge_counters

PAD = 64


def n_state_rows(metric):
    return 3 if metric == "urf" else 2


def to_state(lat, counters):
    """State rows (float64, shape ``(R, ...)``) of int64 counters of shape ``(K, ...)``."""
    c = np.asarray(counters, dtype=np.float64)
    w = lat.consts
    if lat.metric == "urf":
        return np.stack([c[0], c[1], c[2] - c[3]])
    if lat.metric == "prf":
        return np.stack([c[0] + w.w_a, c[1] + w.w_b])
    return c.copy()


def from_state(lat, state, j=None):
    """int64 counters (shape ``(K, ...)``) of the state rows of last-row cells
    ``(n_a, j)`` (default ``j = n_b``, the last cell); inverse of ``to_state``.

    URF state holds ``uab - uba``; ``uab + uba`` is the number of cross pairs with an
    item placed, ``i n_b + j (N_a - i)`` at global row ``i = row_offset + n_a`` of a
    lattice whose a group has ``N_a`` items (``N_a - i = left_a[-1]``).
    """
    s = np.asarray(state, dtype=np.float64)
    w = lat.consts
    if lat.metric == "urf":
        j = lat.n_b if j is None else np.asarray(j, dtype=np.float64)
        pairs = float((lat.row_offset + lat.n_a) * lat.n_b) + j * float(lat.left_a[-1])
        uab = (pairs + s[2]) / 2.0
        out = np.stack([s[0], s[1], uab, pairs - uab])
    elif lat.metric == "prf":
        out = np.stack([s[0] - w.w_a, s[1] - w.w_b])
    else:
        out = s
    return out.astype(np.int64)


class DiagonalStep:
    """Decide one anti-diagonal (or any run of independent cells) of one lattice.

    Holds the lattice's gain arrays as float64 (padded with zeros), the gain buffer and
    the scratch arrays, and a cache of views per (padded) length. The reference fill
    and the tiled twin (``_tiled``) both call it; the CUDA function ``cell_update``
    (``gpu_xorder/cuda/xorder_common.cuh``) is its twin cell by cell.
    """

    def __init__(self, lat, lam, max_len):
        c = lat.consts
        self.metric = lat.metric
        self.absolute = lat.mode == "absolute"
        self.rows = r = n_state_rows(lat.metric)
        # 0-d arrays: NumPy converts a 0-d array operand faster than a scalar
        self.lam = np.array(lam, dtype=np.float64)
        self.w = np.array(c.w)
        self.inv_auc = np.array(c.inv_auc)
        size = max_len + PAD

        def padded(a):
            out = np.zeros(a.size + size)
            out[:a.size] = a
            return out

        self.y_a, self.negleft_b_rev = padded(lat.y_a), padded(lat.negleft_b_rev)
        self.y_b_rev, self.negleft_a = padded(lat.y_b_rev), padded(lat.negleft_a)
        self.left_b_rev, self.left_a = padded(lat.left_b_rev), padded(lat.left_a)
        # gains[k, cand] = buf[2k + cand]: a-step gains in even rows, b-step in odd ones
        self._buf = np.zeros((2 * r, size))
        row = self._buf.strides[0]
        self._gains = np.ndarray((r, 2, size), dtype=np.float64, buffer=self._buf,
                                 strides=(2 * row, row, 8))
        if lat.metric == "urf":
            self.scale = np.array(c.inv_u)
        else:
            inv = (c.inv_pa, c.inv_pb) if lat.metric == "prf" else (c.inv_ab, c.inv_ba)
            self.scale, self.scale_b = np.array(inv[0]), np.array(inv[1])
        self._auc = np.empty(2 * size)
        self._term = np.empty(4 * size)
        self._views = {}
        self.decide = self._decider()

    def views(self, length):
        """Gain and scratch views of one length (made once, then cached)."""
        v = self._views.get(length)
        if v is None:
            urf = self.rows == 3
            auc = self._auc[:2 * length].reshape(2, length)
            term = self._term[:4 * length].reshape(2, 2, length)
            gains = self._gains[:, :, :length]
            v = (self._buf[0, :length], self._buf[3, :length],
                 self._buf[4, :length] if urf else None,
                 self._buf[5, :length] if urf else None, tuple(gains),
                 auc, auc[0], auc[1], term[0], term[1])
            self._views[length] = v
        return v

    @staticmethod
    def candidate_views(cand):
        """What ``__call__`` reads of a candidate array (callers may cache it): its
        rows, and each row's a- and b-candidates. Every NumPy call of the step works on
        one state row at a time: a call over a 3-D strided view makes NumPy copy its
        operands through buffers, several times the cost of the arithmetic."""
        rows = tuple(cand)
        return (rows, tuple(r[0] for r in rows), tuple(r[1] for r in rows))

    def __call__(self, pred, cviews, i_lo, k_lo, length, dec_out):
        """Decide ``length`` cells ``(i_lo + m, n_b - k_lo - m)``, ``m = 0..length-1``.

        Parameters
        ----------
        pred : sequence of R ndarrays of float64, shape (2, length)
            For every state row, its values at each cell's a-predecessor (``[0]``) and
            b-predecessor (``[1]``): the rows of a ``(R, 2, length)`` array.
        cviews : tuple
            ``candidate_views(cand)`` of an array ``cand`` of shape (R, 2, length)
            receiving the candidates; on return ``cand[:, 1]`` holds the state rows of
            the winning candidate of every cell. (The fill lays ``cand[:, 1]`` over the
            next diagonal, so the b-candidates land there with no copy.)
        i_lo, k_lo : int
            Row of the first cell and its ``k = n_b - j``.
        dec_out : ndarray of bool, shape (length,)
            Receives True where the step along a wins (strictly larger G-hat).
        """
        self.decide(pred, cviews, i_lo, k_lo, length, dec_out)

    def _decider(self):
        """``__call__``'s work as a closure over local names: the fill calls it once per
        anti-diagonal, where attribute and global look-ups are a visible share."""
        y_a, negleft_b_rev = self.y_a, self.negleft_b_rev
        y_b_rev, negleft_a = self.y_b_rev, self.negleft_a
        left_b_rev, left_a = self.left_b_rev, self.left_a
        cached, make_views = self._views.get, self.views
        w, inv_auc, lam, scale = self.w, self.inv_auc, self.lam, self.scale
        scale_b = getattr(self, "scale_b", None)
        add_w, use_lam, absolute = self.metric != "prf", bool(lam), self.absolute
        urf = self.rows == 3
        mul, add, sub, copyto = np.multiply, np.add, np.subtract, np.copyto
        absolute_value, negative, greater = np.abs, np.negative, np.greater

        def decide(pred, cviews, i_lo, k_lo, length, dec_out):
            (gain_a, gain_b, gain_ua, gain_ub, gains, auc, auc_a, auc_b, term0,
             term1) = cached(length) or make_views(length)
            rows, cand_a, cand_b = cviews
            cab, cba = rows[0], rows[1]
            udiff = rows[2] if urf else None
            # a-step into (i, j): cab += y_a[i-1] * (n_b0 - Q_b(j)); uab += n_b - j
            mul(y_a[i_lo - 1:i_lo - 1 + length], negleft_b_rev[k_lo:k_lo + length], gain_a)
            # b-step into (i, j): cba += y_b[j-1] * (n_a0 - Q_a(i)); uba += n_a - i
            mul(y_b_rev[k_lo:k_lo + length], negleft_a[i_lo:i_lo + length], gain_b)
            if udiff is not None:
                copyto(gain_ua, left_b_rev[k_lo:k_lo + length])
                negative(left_a[i_lo:i_lo + length], gain_ub)
            for p, g, c in zip(pred, gains, rows):
                add(p, g, c)
            # auc = ((double)(cab + cba) + w) * inv_auc  (prf rows already hold w_a, w_b)
            add(cab, cba, auc)
            if add_w:
                add(auc, w, auc)
            mul(auc, inv_auc, auc)
            if use_lam:  # else g = auc - 0 * d = auc, exactly (d is finite)
                # the disparity term of _ghat.disparity_into, then g = auc - lam * d
                if udiff is not None:
                    mul(udiff, scale, term0)
                else:
                    mul(cab, scale, term0)
                    mul(cba, scale_b, term1)
                    sub(term0, term1, term0)
                if absolute:
                    absolute_value(term0, term0)
                mul(term0, lam, term0)
                sub(auc, term0, auc)
            greater(auc_a, auc_b, dec_out)
            for b, a in zip(cand_b, cand_a):
                copyto(b, a, where=dec_out)

        return decide


def fill(lat, lam, progress=None, *, edges=None, bits=True, bottom=False):
    """Fill the lattice; return ``(words, final_counters)`` (and the bottom row).

    Parameters
    ----------
    lat : Lattice
    lam : float
    progress : callable(done_cells, total_cells), optional
        Called every few diagonals.
    edges : (col0, row0), optional
        int64 counters of the cells ``(i, 0)`` (shape ``(K, n_a + 1)``) and ``(0, j)``
        (shape ``(K, n_b + 1)``); default ``edge_counters(lat)``. A band of rows of a
        larger lattice (``_banded``) passes its first column and the bottom row of the
        band above.
    bits : bool, default=True
        False: decide every cell but keep no decision bits (``words`` is None).
    bottom : bool, default=False
        Also return the int64 counters of the last row, cells ``(n_a, j)``, shape
        ``(K, n_b + 1)``.

    Returns
    -------
    words : ndarray of uint32 or None
        Decision bits (layout of ``_bits``).
    final : ndarray of int64, shape (K,)
        Counters of the last cell ``(n_a, n_b)``.
    last_row : ndarray of int64, shape (K, n_b + 1)
        Only with ``bottom=True``.
    """
    n_a, n_b = lat.n_a, lat.n_b
    if edges is None:
        edges = edge_counters(lat)
    col0, row0 = (np.ascontiguousarray(to_state(lat, e).T) for e in edges)
    longest = min(n_a, n_b)
    step = DiagonalStep(lat, lam, longest)
    r = step.rows
    width = longest + 2 + PAD
    lead = longest + PAD  # at least any padded diagonal length
    item = 8
    # Row k of bufs[p] holds, from column ``lead`` on, state row k of a diagonal; the
    # a-candidates of the next one are written just before it, so that each row's two
    # candidates form one contiguous block (a-candidates, then the new state).
    bufs = [np.zeros((r, lead + width)) for _ in range(2)]
    bufs[0][:, lead] = row0[0]  # cell (0, 0)
    states = [b[:, lead:] for b in bufs]
    preds = [np.ndarray((r, 2, width - 1), dtype=np.float64, buffer=b,
                        offset=lead * item, strides=(b.strides[0], item, item))
             for b in bufs]
    # views[parity][off]: padded length -> (predecessors, candidate views)
    views = [[{}, {}], [{}, {}]]
    packer = DiagonalPacker(n_a, n_b, pad=PAD) if bits else _Discard(longest + PAD)
    last = np.empty((n_b + 1, r)) if bottom else None
    decide, stage_row, end_diagonal = step.decide, packer.row, packer.end_diagonal
    n_diag = n_a + n_b
    every = max(1, n_diag // 200)
    cur = 0
    for d in range(1, n_diag + 1):
        # diagonal d - 1 is in bufs[cur]; diagonal d goes to bufs[1 - cur], cell (i, d - i)
        # at column i - max(0, d - n_b)
        off = 1 if d <= n_b else 0
        i_lo = d - n_b if d > n_b else 1
        length = (n_a if d > n_a else d - 1) - i_lo + 1
        nxt = states[1 - cur]
        if length > 0:
            padded = -(-length // PAD) * PAD
            v = views[cur][off].get(padded)
            if v is None:
                # cand[k, 1] = nxt[k, off:off + padded], cand[k, 0] just before it
                buf = bufs[1 - cur]
                cand = np.ndarray((r, 2, padded), dtype=np.float64, buffer=buf,
                                  offset=(lead + off - padded) * item,
                                  strides=(buf.strides[0], padded * item, item))
                v = (tuple(preds[cur][:, :, :padded]), step.candidate_views(cand))
                views[cur][off][padded] = v
            dec = stage_row(d, i_lo, i_lo + padded - 1)
            decide(v[0], v[1], i_lo, n_b - d + i_lo, padded, dec)
            dec[length:] = False
            end_diagonal()
        if off:
            nxt[:, 0] = row0[d]
        if d <= n_a:
            nxt[:, off + length] = col0[d]
        if last is not None and d >= n_a:
            last[d - n_a] = nxt[:, n_a - (d - n_b if d > n_b else 0)]
        cur = 1 - cur
        if progress is not None and (d % every == 0 or d == n_diag):
            progress(_cells_through(d, n_a, n_b), lat.n_cells)
    packer.flush()
    final = from_state(lat, states[cur][:, 0])
    if last is None:
        return packer.words, final
    return packer.words, final, from_state(lat, last.T, np.arange(n_b + 1))


class _Discard:
    """Packer interface of ``DiagonalPacker`` that keeps no bits (``fill(bits=False)``)."""

    words = None

    def __init__(self, length):
        self._row = np.zeros(length, dtype=bool)

    def row(self, d, i_lo, i_hi):
        return self._row[:i_hi - i_lo + 1]

    def end_diagonal(self):
        pass

    def flush(self):
        pass


def _cells_through(d, n_a, n_b):
    """Cells on the anti-diagonals ``0..d`` of an ``(n_a + 1) x (n_b + 1)`` lattice."""
    i = np.arange(n_a + 1)
    return int(np.clip(d - i + 1, 0, n_b + 1).sum())
