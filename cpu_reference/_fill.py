"""The anti-diagonal fill of the two-group lattice (DESIGN section 3, "wavefront").

Counters of two diagonals live in int64 buffers of shape ``(K, n_a + 1)`` indexed by
``i``: on diagonal ``d`` cell ``(i, d - i)`` sits at column ``i``, its a-predecessor
``(i - 1, j)`` at column ``i - 1`` and its b-predecessor ``(i, j - 1)`` at column ``i``
of the previous diagonal, so both are plain slices. ``diagonal_update`` is the step
that the CUDA function ``cell_update`` (``gpu_xorder/cuda/xorder_common.cuh``) mirrors
cell by cell; the tiled NumPy twin (``_tiled``) reuses it on the segments a warp
processes at once.
"""

import numpy as np

from ._bits import DiagonalPacker
from ._ghat import ghat
from ._lattice import edge_counters


class Workspace:
    """Scratch buffers for diagonals of up to ``length`` cells (no allocation per step)."""

    def __init__(self, n_counters, length):
        self.cand = np.empty((n_counters, 2, length), dtype=np.int64)
        self.fcand = np.empty((n_counters, 2, length))
        self.gain = np.empty(length, dtype=np.int64)
        self.g = np.empty((2, length))
        self.tmp = np.empty((2, length))
        self.ftmp = np.empty((2, length))

    def views(self, length):
        return (self.cand[:, :, :length], self.fcand[:, :, :length], self.gain[:length],
                self.g[:, :length], self.tmp[:, :length], self.ftmp[:, :length])


def diagonal_update(lat, lam, d, i_lo, i_hi, from_a, from_b, ws, dec_out, new_out):
    """Decide cells ``(i, d - i)``, ``i = i_lo..i_hi``, of one anti-diagonal.

    Parameters
    ----------
    lat : Lattice
    lam : float
    d, i_lo, i_hi : int
        Diagonal and its (interior) row range, ``1 <= i_lo <= i_hi``, ``d - i >= 1``.
    from_a, from_b : ndarray of int64, shape (K, L)
        Counters of the predecessors ``(i - 1, j)`` and ``(i, j - 1)``.
    ws : Workspace
    dec_out : ndarray of bool, shape (L,)
        Receives True where the step along a wins (strictly larger G-hat).
    new_out : ndarray of int64, shape (K, L)
        Receives the counters of the chosen predecessor after the step.
    """
    length = i_hi - i_lo + 1
    cand, fcand, gain, g, tmp, ftmp = ws.views(length)
    np.copyto(cand[:, 0], from_a)
    np.copyto(cand[:, 1], from_b)
    k_lo, k_hi = lat.n_b - d + i_lo, lat.n_b - d + i_hi + 1  # k = n_b - j
    # a-step into (i, j): cab += y_a[i-1] * (n_b0 - Q_b(j)); uab += n_b - j
    np.multiply(lat.y_a[i_lo - 1:i_hi], lat.negleft_b_rev[k_lo:k_hi], out=gain)
    np.add(cand[0, 0], gain, out=cand[0, 0])
    # b-step into (i, j): cba += y_b[j-1] * (n_a0 - Q_a(i)); uba += n_a - i
    np.multiply(lat.y_b_rev[k_lo:k_hi], lat.negleft_a[i_lo:i_hi + 1], out=gain)
    np.add(cand[1, 1], gain, out=cand[1, 1])
    if cand.shape[0] == 4:
        np.add(cand[2, 0], lat.left_b_rev[k_lo:k_hi], out=cand[2, 0])
        np.add(cand[3, 1], lat.left_a[i_lo:i_hi + 1], out=cand[3, 1])
    np.copyto(fcand, cand)  # exact: every counter is below 2**53
    ghat(fcand, lat.consts, lam, lat.metric, lat.mode, g, tmp, ftmp)
    np.greater(g[0], g[1], out=dec_out)
    np.copyto(new_out, cand[:, 1])
    np.copyto(new_out, cand[:, 0], where=dec_out)


def fill(lat, lam, progress=None):
    """Fill the lattice; return ``(words, final_counters)``.

    Parameters
    ----------
    lat : Lattice
    lam : float
    progress : callable(done_cells, total_cells), optional
        Called every few diagonals.

    Returns
    -------
    words : ndarray of uint32
        Decision bits (layout of ``_bits``).
    final : ndarray of int64, shape (K,)
        Counters of the last cell ``(n_a, n_b)``.
    """
    n_a, n_b = lat.n_a, lat.n_b
    k = lat.n_counters
    col0, row0 = edge_counters(lat)
    prev = np.zeros((k, n_a + 1), dtype=np.int64)
    cur = np.zeros_like(prev)
    packer = DiagonalPacker(n_a, n_b)
    ws = Workspace(k, min(n_a, n_b))
    n_diag = n_a + n_b
    every = max(1, n_diag // 200)
    done = 1
    for d in range(1, n_diag + 1):
        i_lo, i_hi = max(1, d - n_b), min(n_a, d - 1)
        if i_lo <= i_hi:
            diagonal_update(lat, lam, d, i_lo, i_hi, prev[:, i_lo - 1:i_hi],
                            prev[:, i_lo:i_hi + 1], ws, packer.row(d, i_lo, i_hi),
                            cur[:, i_lo:i_hi + 1])
            packer.end_diagonal()
        if d <= n_a:
            cur[:, d] = col0[:, d]
        if d <= n_b:
            cur[:, 0] = row0[:, d]
        prev, cur = cur, prev
        done += min(d, n_a) - max(0, d - n_b) + 1
        if progress is not None and (d % every == 0 or d == n_diag):
            progress(done, lat.n_cells)
    packer.flush()
    return packer.words, prev[:, n_a].copy()
