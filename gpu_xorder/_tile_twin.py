"""NumPy twin of the tiled CUDA schedule (``cuda/xorder_tiled.cu``), for tests.

Same tile order (``_launch.tile_schedule``), same per-step lane work, same boundary
arrays, same word writes, with the cells decided by the reference objective
(``cpu_reference.StepObjective``): it checks the tiled kernel's schedule against the
reference fill on every machine, GPU or not, for two-group lattices and iterative steps
alike. GPU code, so it lives here, not in the reference package. Slow by design (a
Python loop over tiles and steps); use it on small lattices only.
"""

import numpy as np

from cpu_reference import StepObjective, as_step, edge_counters, n_words

from ._launch import BLOCK, MSG_BOTTOM, tile_schedule


def fill_tiled(lat, lam, tile_j, *, edges=None, bottom=False):
    """Fill the lattice tile by tile; return ``(words, final)`` like ``_fill.fill``.

    ``edges`` and ``bottom`` as in ``_fill.fill`` (``edges[1]`` one row of counters);
    like the kernel, ``bottom`` needs ``n_a`` to be a multiple of 32.
    """
    n_a, n_b = lat.n_a, lat.n_b
    col0, row0 = edge_counters(lat) if edges is None else edges
    obj = StepObjective(as_step(lat), lam)
    # cells (32R, j) and (i, j0 - 1), as the reference fill's exact state rows
    rowbuf, colbuf = obj.to_state(row0), obj.to_state(col0)
    words = np.zeros(n_words(n_a, n_b), dtype=np.uint32)
    decide = obj.decider(BLOCK)
    for tile_diag, r_first, n_tiles in tile_schedule(n_a, n_b, tile_j):
        for tile in range(n_tiles):
            r = r_first + tile
            _tile(lat, obj, decide, r, tile_diag - r, tile_j, rowbuf, colbuf, words)
    final = obj.from_state(colbuf[:, n_a])
    if not bottom:
        return words, final
    if n_a % BLOCK:
        raise ValueError(MSG_BOTTOM.format(n_a=n_a))
    rowbuf[:, 0] = obj.to_state(col0[:, n_a])  # cell (n_a, 0): never a kernel cell
    return words, final, obj.from_state(rowbuf, np.arange(n_b + 1))


def _tile(lat, obj, decide, r, j_tile, tile_j, rowbuf, colbuf, words):
    """One warp's tile: rows 32r+1 .. 32r+32, columns j0 .. j0+width-1 (kernel body)."""
    n_a, n_b = lat.n_a, lat.n_b
    i0, j0 = BLOCK * r + 1, j_tile * tile_j + 1
    width = min(n_b - j0 + 1, tile_j)
    lanes = min(BLOCK, n_a - i0 + 1)  # lanes whose row exists
    mine = np.zeros((obj.rows, BLOCK))  # the lanes' registers
    dec = np.empty(BLOCK, dtype=bool)
    for s in range(width + BLOCK - 1):
        # lane t is active when its column offset c = s - t lies inside the tile
        t_lo, t_hi = max(0, s - width + 1), min(s, lanes - 1)
        if t_lo > t_hi:
            continue
        t = np.arange(t_lo, t_hi + 1)
        c = s - t
        # a-predecessor: lane t-1's register (shuffle up); lane 0: the row above
        from_a = np.where(t == 0, rowbuf[:, j0 + c], mine[:, np.maximum(t - 1, 0)])
        # b-predecessor: own register; first column: the column to the left
        from_b = np.where(c == 0, colbuf[:, i0 + t], mine[:, t])
        n = t.size
        d = i0 + j0 + s
        pred = np.stack([from_a, from_b], axis=1)
        cand = np.empty_like(pred)
        decide(obj.pred_views(pred), obj.candidate_views(cand), i0 + t_lo,
               n_b - d + i0 + t_lo, n, dec[:n])
        new = cand[:, 1]
        mine[:, t_lo:t_hi + 1] = new[:, :n]
        if t_hi == BLOCK - 1:
            rowbuf[:, j0 + s - (BLOCK - 1)] = new[:, n - 1]
        if t_lo == s - width + 1:
            colbuf[:, i0 + t_lo] = new[:, 0]
        ballot = int(np.sum(dec[:n].astype(np.uint64) << t.astype(np.uint64)))
        w = r * (n_b - 1) + d - 2
        if BLOCK - 1 <= s < tile_j:
            words[w] = ballot
        else:
            words[w] |= ballot
