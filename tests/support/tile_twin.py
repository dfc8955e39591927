"""NumPy twin of the tiled CUDA schedule (``cuda/xorder_tiled.cu``), for tests.

Same tile order (``_launch.tile_schedule``), same per-step lane work, same boundary
arrays, same word writes, with the cells decided by the reference objective
(``cpu_reference.StepObjective``): it checks the tiled kernel's schedule against the
reference fill on every machine, GPU or not, for two-group lattices and iterative steps
alike. GPU code, so it lives here, not in the reference package. Slow by design (a
Python loop over tiles and steps); use it on small lattices only.
"""

import numpy as np

from cpu_reference import StepObjective, edge_counters, n_words
from gpu_xorder.engine._launch import BLOCK, MSG_BOTTOM, tile_schedule


def fill_tiled(lat, lam, tile_j, *, edges=None, bottom=False):
    """Fill the lattice tile by tile (``tile_kernel``); return ``(words, final)`` like
    ``_fill.fill``.

    ``edges`` and ``bottom`` as in ``_fill.fill`` (``edges[1]`` one row of counters);
    like the kernel, ``bottom`` needs ``n_a`` to be a multiple of 32.
    """
    run = _Run(lat, lam, edges)
    for tile_diag, r_first, n_tiles in tile_schedule(lat.n_a, lat.n_b, tile_j):
        for tile in range(n_tiles):
            r = r_first + tile
            j0 = (tile_diag - r) * tile_j + 1
            width = min(lat.n_b - j0 + 1, tile_j)
            mine = run.registers()
            for s in range(width + BLOCK - 1):
                run.step(r, j0, width, s, mine, tile_j)
    return run.result(bottom)


def fill_strips(lat, lam, chunk, n_warps, *, edges=None, bottom=False, seed=0):
    """The persistent kernel's schedule (``strip_kernel``, issue #16; its host replay is
    ``strip_launch_host``): warps own strips of 32 rows.

    A warp takes the next strip in order (a ticket counter) and walks it left to right,
    step ``s`` deciding cell ``(32 r + 1 + t, s - t + 1)`` in lane ``t``, so each
    32-row block's word of a diagonal is one ballot, written once. Before the steps
    ``[s0, s0 + chunk)`` a warp waits until the strip above has published at least
    ``min(s0 + chunk, n_b)`` columns of its last row (its progress flag); after them it
    publishes its own. One row buffer serves every strip: column j is written by strip
    r - 1, read by strip r, then overwritten with strip r's last row. ``n_warps``
    resident warps run in an arbitrary interleaving (``seed``) of the chunks whose
    flags allow them; as strips are handed out in order, a strip only ever waits on one
    taken earlier, so the walk cannot deadlock, whatever the number of warps (the twin
    asserts it). Returns ``(words, final)`` (and the last row) like ``_fill.fill``. One
    lattice: the kernel hands out the strips of a lam batch r-major, strip r of lattice
    b waiting on strip r - 1 of lattice b alone.
    """
    run = _Run(lat, lam, edges)
    n_a, n_b = lat.n_a, lat.n_b
    n_strips, n_steps = -(-n_a // BLOCK), n_b + BLOCK - 1
    progress = np.zeros(n_strips, dtype=np.int64)  # last-row columns published
    rng = np.random.default_rng(seed)
    ticket, warps = 0, []
    while True:
        while len(warps) < n_warps and ticket < n_strips:  # idle warps take strips
            warps.append({"r": ticket, "s": 0, "mine": run.registers()})
            ticket += 1
        if not warps:
            break
        ready = [w for w in warps if w["r"] == 0
                 or progress[w["r"] - 1] >= min(w["s"] + chunk, n_b)]
        assert ready, "deadlock: every resident warp waits"
        w = ready[rng.integers(len(ready))]
        s1 = min(w["s"] + chunk, n_steps)
        for s in range(w["s"], s1):  # a strip: one tile as wide as the lattice
            run.step(w["r"], 1, n_b, s, w["mine"], n_steps)
        w["s"] = s1
        progress[w["r"]] = min(max(s1 - (BLOCK - 1), 0), n_b)
        if s1 == n_steps:
            warps.remove(w)
    return run.result(bottom)


class _Run:
    """One fill's boundary arrays (as the reference fill's exact state rows), words and
    the lane work of a step, shared by both schedules."""

    def __init__(self, lat, lam, edges):
        self.lat = lat
        self.col0, row0 = edge_counters(lat) if edges is None else edges
        self.obj = obj = StepObjective(lat, lam)
        # cells (32R, j) and (i, j0 - 1)
        self.rowbuf, self.colbuf = obj.to_state(row0), obj.to_state(self.col0)
        self.words = np.zeros(n_words(lat.n_a, lat.n_b), dtype=np.uint32)
        self.decide = obj.decider(BLOCK)

    def registers(self):
        return np.zeros((self.obj.rows, BLOCK))

    def step(self, r, j0, width, s, mine, tile_j):
        """Step ``s`` of the warp on rows ``32r+1 .. 32r+32``, columns ``j0 ..
        j0+width-1``: lane t decides cell ``(32r+1+t, j0+s-t)`` (kernel body)."""
        lat, obj, rowbuf, colbuf = self.lat, self.obj, self.rowbuf, self.colbuf
        n_a, n_b = lat.n_a, lat.n_b
        i0 = BLOCK * r + 1
        lanes = min(BLOCK, n_a - i0 + 1)  # lanes whose row exists
        # lane t is active when its column offset c = s - t lies inside the tile
        t_lo, t_hi = max(0, s - width + 1), min(s, lanes - 1)
        if t_lo > t_hi:
            return
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
        dec = np.empty(n, dtype=bool)
        self.decide(obj.pred_views(pred), obj.candidate_views(cand), i0 + t_lo,
                    n_b - d + i0 + t_lo, n, dec)
        new = cand[:, 1]
        mine[:, t_lo:t_hi + 1] = new
        if t_hi == BLOCK - 1:  # lane 31: the tile's last row
            rowbuf[:, j0 + s - (BLOCK - 1)] = new[:, n - 1]
        if t_lo == s - width + 1:  # the tile's last column
            colbuf[:, i0 + t_lo] = new[:, 0]
        ballot = int(np.sum(dec.astype(np.uint64) << t.astype(np.uint64)))
        w = r * (n_b - 1) + d - 2
        if BLOCK - 1 <= s < tile_j:
            self.words[w] = ballot  # every cell of this word is the tile's
        else:
            self.words[w] |= ballot  # shared with the neighbouring column tile

    def result(self, bottom):
        lat, obj = self.lat, self.obj
        final = obj.from_state(self.colbuf[:, lat.n_a])
        if not bottom:
            return self.words, final
        if lat.n_a % BLOCK:
            raise ValueError(MSG_BOTTOM.format(n_a=lat.n_a))
        self.rowbuf[:, 0] = obj.to_state(self.col0[:, lat.n_a])  # (n_a, 0): no kernel cell
        return self.words, final, obj.from_state(self.rowbuf, np.arange(lat.n_b + 1))
