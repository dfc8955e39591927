"""Counter checkpoints for lattices whose decision bits do not fit.

docs/design.md, section 6.

The rows of the lattice are cut into *bands* of whole 32-row blocks. The decisions of a
band's cells depend only on the band's cells, on its first column (the forced edge cells
``(i, 0)``) and on the counters of the row just above it. So:

1. **Pass 1** fills the bands top to bottom keeping no decision bits, only the bottom
   row of counters of every band but the last (a *checkpoint*, ``K (n_b + 1)`` int64).
2. **Pass 2** refills the bands bottom to top, each from its checkpoint, this time with
   its decision bits, and walks the path back through the band (``_traceback.walk``)
   before the next band reuses the memory. It stops early once the path has reached
   column 0.

Every cell is decided from the same counters by the same cell code as in a full fill,
so the decisions, the path and the final counters are those of the full fill, bit for
bit (the tests check it). A band's bits have the layout of ``_bits`` for a lattice of
the band's rows, which is the full layout's words of those blocks.

Cost: ``2 - 1 / n_bands`` fills. Memory: the bits of one band plus ``n_bands - 1``
checkpoints, instead of the bits of the whole lattice. The schedule is written once
against a ``fill_band`` callable: the NumPy fill here, the tiled CUDA kernel in
``gpu_xorder.engine._cupy_engine``.
"""

import dataclasses

import numpy as np

from ._bits import BLOCK
from ._fill import fill
from ._lattice import edge_counters
from ._traceback import walk


def band_lattice(lat, i0, i1):
    """Rows ``i0..i1`` of ``lat`` (a ``StepLattice``) as a lattice of ``i1 - i0``
    rows.

    Row ``i`` of the band is row ``i0 + i`` of ``lat``; the b axis and the G-hat
    constants are the whole lattice's. ``left_a`` keeps the whole lattice's counts, so
    ``left_a[..., -1]`` counts the a items below the band (the CUDA kernels read it),
    and ``row_offset`` is ``i0``.
    """
    rows, edges = slice(i0, i1), slice(i0, i1 + 1)
    return dataclasses.replace(
        lat, n_a=i1 - i0, row_offset=lat.row_offset + i0, y_a=lat.y_a[rows],
        u_a=lat.u_a[rows],
        negleft_a=lat.negleft_a[:, edges], left_a=lat.left_a[:, edges],
        seq_q=lat.seq_q[rows], a_wins_ties=lat.a_wins_ties[rows],
        perm_a=None if lat.perm_a is None else lat.perm_a[rows])


def band_bounds(n_a, band_rows):
    """``[(i0, i1), ...]``: bands of ``band_rows`` rows (a multiple of 32), last one
    shorter."""
    if band_rows < BLOCK or band_rows % BLOCK:
        raise ValueError(f"band_rows must be a positive multiple of {BLOCK}, got {band_rows}")
    return [(i0, min(i0 + band_rows, n_a)) for i0 in range(0, n_a, band_rows)]


def banded_bytes(n_a, n_b, band_rows, n_counters, batch=1, checkpoints=True):
    """Bytes of one band's decision words plus (``checkpoints``) the checkpoint rows;
    ``band_rows`` may be an int array."""
    rows = np.minimum(band_rows, n_a)
    need = batch * (-(-rows // BLOCK)) * (n_b + BLOCK - 1) * 4
    if checkpoints:
        need = need + batch * (-(-n_a // rows) - 1) * n_counters * (n_b + 1) * 8
    return need


def _candidate_rows(n_a):
    """Band heights of 1, 2, ... bands of whole blocks (fewest bands first)."""
    blocks = -(-n_a // BLOCK)
    return BLOCK * -(-blocks // np.arange(1, blocks + 1))


def plan_bands(n_a, n_b, budget, n_counters, batch=1, checkpoints=True):
    """Rows per band of the fewest bands whose memory (``banded_bytes``) fits ``budget``
    bytes; None if no band height does."""
    rows = _candidate_rows(n_a)
    fits = np.flatnonzero(banded_bytes(n_a, n_b, rows, n_counters, batch, checkpoints)
                          <= budget)
    return int(rows[fits[0]]) if fits.size else None


def least_banded_bytes(n_a, n_b, n_counters, batch=1, checkpoints=True):
    """The least memory of any band height (``banded_bytes``)."""
    rows = _candidate_rows(n_a)
    return int(banded_bytes(n_a, n_b, rows, n_counters, batch, checkpoints).min())


def solve_banded(lat, n_lattices, band_rows, fill_band, progress=None, walker=None):
    """Paths and final counters of ``n_lattices`` fills of ``lat``, band by band.

    Parameters
    ----------
    lat : StepLattice
    n_lattices : int
        Lattices filled together (one per lam value; ``fill_band`` knows the values).
    band_rows : int
        Rows per band, a multiple of 32.
    fill_band : callable(band, col0, top, bits) -> (words, final, bottom)
        Fills ``band`` (``band_lattice``) for every lattice from ``col0`` (int64,
        ``(K, rows + 1)``, shared) and ``top`` (int64, ``(B, K, n_b + 1)``). Returns the
        decision words ``(B, n_words)`` in whatever form ``walker`` reads (None when
        ``bits`` is False), the counters of the band's last cell ``(B, K)`` and of its
        last row ``(B, K, n_b + 1)`` (read only when ``bits`` is False), both on the
        host.
    progress : callable(done_cells, total_cells), optional
        Called after every band, over the cells of both passes.
    walker : object, optional
        Walks the paths back through each band: ``walk(words, i0, i1)`` returns True
        once every path is complete, ``paths()`` gives them. Default: ``HostWalker``
        (the CuPy engine walks on the device with the same rules).

    Returns
    -------
    list of (path, final) : one per lattice, as ``traceback`` and ``fill`` give them.
    """
    bands = band_bounds(lat.n_a, band_rows)
    col0, row0 = edge_counters(lat)
    walker = HostWalker(lat, n_lattices) if walker is None else walker
    cells = [(i1 - i0 + 1) * (lat.n_b + 1) for i0, i1 in bands]
    total, done = 2 * sum(cells) - cells[-1], 0
    tops = [np.broadcast_to(row0, (n_lattices,) + row0.shape)]
    for (i0, i1), n in zip(bands[:-1], cells):
        _, _, bottom = fill_band(band_lattice(lat, i0, i1), col0[:, i0:i1 + 1], tops[-1],
                                 False)
        tops.append(np.asarray(bottom))
        done = _report(progress, done, n, total)
    finals = None
    for k in range(len(bands) - 1, -1, -1):
        i0, i1 = bands[k]
        words, final, _ = fill_band(band_lattice(lat, i0, i1), col0[:, i0:i1 + 1], tops[k],
                                    True)
        if finals is None:
            finals = np.asarray(final)
        tops[k] = None  # this checkpoint is spent
        done = _report(progress, done, cells[k], total)
        complete = walker.walk(words, i0, i1)
        # released before the next band allocates its bits: one band's at a time
        del words
        if complete:
            break
    if progress is not None and done < total:
        progress(total, total)
    return list(zip(walker.paths(), finals))


class HostWalker:
    """Paths walked back band by band on host words (``_traceback.walk``); the rules of
    ``band_walk_one`` in ``cuda/xorder_traceback.cu``: each path fills from its end, ``k[b]``
    ranks still open, and the forced rest is written when the walk meets column 0 or
    the top band's row 0."""

    def __init__(self, lat, n_lattices):
        self.n_b = lat.n_b
        self.path = np.empty((n_lattices, lat.n_a + lat.n_b), dtype=np.int8)
        self.j = [lat.n_b] * n_lattices
        self.k = [lat.n_a + lat.n_b] * n_lattices

    def walk(self, words, i0, i1):
        for b, k in enumerate(self.k):
            if k == 0:
                continue
            j, k = self.walk_band(words[b], i1 - i0, self.j[b], self.path[b], k)
            if j == 0 or i0 == 0:
                self.path[b, :k] = 0 if j == 0 else 1
                k = 0
            self.j[b], self.k[b] = j, k
        return not any(self.k)

    def walk_band(self, words, rows, j, path, k):
        """Walk one lattice's band of ``rows`` rows back from its bottom row's column
        ``j``, writing the steps into ``path[:k]`` from its end: ``(j, k)`` where it
        stopped (an engine may put a compiled walk here)."""
        steps, _, j = walk(words, rows, self.n_b, j)
        path[k - len(steps):k] = steps[::-1]
        return j, k - len(steps)

    def paths(self):
        return list(self.path)


def _report(progress, done, n, total):
    done += n
    if progress is not None:
        progress(done, total)
    return done


def numpy_band_fill(lams):
    """The ``fill_band`` of ``solve_banded`` on the NumPy fill, one lattice per lam."""
    def fill_band(band, col0, top, bits):
        # pass 2 (bits) reads no bottom row: it would cost a checkpoint's memory again
        out = [fill(band, lam, edges=(col0, top[b]), bits=bits, bottom=not bits)
               for b, lam in enumerate(lams)]
        if bits:
            return [o[0] for o in out], np.stack([o[1] for o in out]), None
        return None, np.stack([o[1] for o in out]), np.stack([o[2] for o in out])
    return fill_band
