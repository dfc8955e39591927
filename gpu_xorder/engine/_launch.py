"""Launch schedules of the CUDA kernels, device-neutral (docs/design.md, sections 6 and 9).

Written once against a small device interface, so that the same schedules run on CuPy
(``_cupy_engine``) and, in the tests, on an emulated device whose launches are replayed
by the kernels' own code compiled for the host:

- ``asarray(a)`` (a NumPy array onto the device, same dtype), ``zeros(shape, dtype)``,
  ``get(a)`` (a device array back as a NumPy array); device arrays slice like NumPy's;
- ``kernel(name, constants)``: ``(function, parameters)`` of kernel ``name`` compiled for
  ``constants`` (``_kernel_source.constants``): ``function(grid, block, args)`` launches
  it, ``parameters`` are its C parameters (``_kernel_source.kernel_parameters``), which
  ``BoundKernel`` fills from a dict of named arguments;
- ``resident_blocks(function, threads)``: blocks of ``function`` the whole device holds
  at once (the persistent kernel's grid).

Results have the shapes of the NumPy reference (``cpu_reference.fill``, ``traceback``,
``solve_banded``, ``solve_kd``), decision for decision.
"""

import weakref

import numpy as np

import cpu_reference as cr

from ..utils._metrics import MSG_SIGNED_TWO
from ._kernel_source import KD_MAX_GROUPS, MAX_OLD_GROUPS, BoundKernel, constants

BLOCK = 32  # rows of a tile: one warp, one 32-row block of the decision-bit layout
THREADS = 256  # threads per block of the one-thread-per-cell kernels

MSG_BOTTOM = "the last row is kept for whole 32-row blocks only, n_a = {n_a}"
MSG_KERNEL = "kernel must be 'tiles' or 'strips', got {kernel!r}"
MSG_OLD_GROUPS = (
    "iterative xOrder on the GPU takes at most {all} groups (a step merges at most {most} "
    "into the next one), got {k}; use backend='numpy'")
MSG_KD_GROUPS = "K-D xOrder on the GPU takes at most {most} groups, got {k}"

#: Most lattices of one ``tile_kernel`` launch: the grid's y dimension.
MAX_GRID_Y = 65535


def tile_schedule(n_a, n_b, tile_j):
    """Tile diagonals in launch order: ``[(tile_diag, r_first, n_tiles), ...]``."""
    n_r, n_j = -(-n_a // BLOCK), -(-n_b // tile_j)
    out = []
    for k in range(n_r + n_j - 1):
        r_first, r_last = max(0, k - n_j + 1), min(n_r - 1, k)
        out.append((k, r_first, r_last - r_first + 1))
    return out


# ------------------------------------------------------------------ 2-D lattices

#: The device inputs of the last lattices filled: ``{id(lat): (weak reference to lat,
#: device, inputs)}``. A search fills one lattice at many weights; its inputs (read only
#: by the kernels) go to the device once (a profile of the default solver on an H200:
#: 424 uploads in 21 fills, 10% of the call).
_INPUTS = {}
_INPUTS_KEPT = 4


def lattice_args(dev, lat):
    """``tile_kernel``'s inputs of the lattice ``lat`` (a ``StepLattice``), by name: the
    axis-a and axis-b arrays and the G-hat constants (``StepConstants``' fields); kept
    on the device for the next fill of the same lattice object."""
    hit = _INPUTS.get(id(lat))
    if hit is not None and hit[0]() is lat and hit[1] is dev:
        return hit[2]
    inputs = _lattice_inputs(dev, lat)
    while len(_INPUTS) >= _INPUTS_KEPT:
        _INPUTS.pop(next(iter(_INPUTS)))
    _INPUTS[id(lat)] = (weakref.ref(lat), dev, inputs)
    return inputs


def _lattice_inputs(dev, lat):
    c = lat.consts
    f8 = np.float64
    return {
        "seq_q": dev.asarray(np.ascontiguousarray(lat.seq_q, dtype=np.int64)),
        "y_a": dev.asarray(np.ascontiguousarray(lat.y_a, dtype=np.int64)),
        "a_wins_ties": dev.asarray(np.ascontiguousarray(lat.a_wins_ties, dtype=bool)),
        "negleft_a": dev.asarray(np.ascontiguousarray(lat.negleft_a, dtype=np.int64)),
        "left_a": dev.asarray(np.ascontiguousarray(lat.left_a, dtype=np.int64)),
        "y_b_rev": dev.asarray(np.ascontiguousarray(lat.y_b_rev, dtype=np.int64)),
        "negleft_b_rev": dev.asarray(np.ascontiguousarray(lat.negleft_b_rev, dtype=np.int64)),
        **{name: dev.asarray(np.ascontiguousarray(getattr(lat, name), dtype=np.int64))
           for name in ("u_a", "left_b_rev", "u_b_rev")},  # URF's weights on U
        "s_const": c.s_const, "w": c.w, "inv_auc": c.inv_auc, "w_b": c.w_b,
        "inv_p_b": c.inv_p_b, "floor": c.floor,
        "old_first": dev.asarray(np.asarray(c.old_first, dtype=bool)),
        **{name: dev.asarray(np.asarray(getattr(c, name), dtype=f8))
           for name in ("inv_qb", "inv_bq", "inv_u", "row_const", "w_q", "inv_p")},
    }


def fill_tiled(dev, lat, lams, tile_j, progress=None, *, edges=None, bottom=False):
    """Fill one lattice per lam value with ``tile_kernel``: one launch per anti-diagonal
    of tiles (32 rows x ``tile_j`` columns), the batch as the grid's y dimension.

    ``lat``: a ``StepLattice`` (two groups, or an iterative step). Returns device arrays
    ``(words, final)``: ``(B, n_words)`` decision words and the ``(B, K)`` counters of the
    last cell. ``edges = (col0, top)``: int64 counters of the first column
    ``(K, n_a + 1)`` and of the row above ``(B, K, n_b + 1)``, for a band of rows
    (``cpu_reference.band_lattice``); default the lattice's own edges. With
    ``bottom=True`` also the counters of the last row, ``(B, K, n_b + 1)`` (``n_a`` a
    multiple of 32: the kernel stores the rows that end a block). Twin of the schedule:
    ``fill_tiled`` (tests/support/tile_twin.py).
    """
    lat, args, col0 = _fill_args(dev, lat, lams, edges)
    batch, n_a, n_b = len(lams), lat.n_a, lat.n_b
    name, const = fill_variant(lat, "tiles", tile_j)
    wpb = const["WARPS_PER_BLOCK"]
    schedule = tile_schedule(n_a, n_b, tile_j)
    function, parameters = dev.kernel(name, const)
    # lattice blockIdx.y of a launch: at most MAX_GRID_Y per launch, the rest through
    # views of the per-lattice arrays
    kernels = [(BoundKernel(function, parameters, {
        **args, **{name: args[name][b0:b0 + MAX_GRID_Y]
                   for name in ("lams", "rowbuf", "colbuf", "words")},
        "tile_diag": 0, "r_first": 0, "n_tiles": 0}, ("tile_diag", "r_first", "n_tiles")),
        min(MAX_GRID_Y, batch - b0)) for b0 in range(0, batch, MAX_GRID_Y)]
    every = max(1, len(schedule) // 200)
    for step, (tile_diag, r_first, n_tiles) in enumerate(schedule, 1):
        for kernel, lattices in kernels:
            kernel((-(-n_tiles // wpb), lattices), (32 * wpb,), tile_diag, r_first, n_tiles)
        if progress is not None and (step % every == 0 or step == len(schedule)):
            progress(int(lat.n_cells * step / len(schedule)), lat.n_cells)
    return _fill_result(dev, args, col0, n_a, bottom)


def fill_strips(dev, lat, lams, chunk, progress=None, *, edges=None, bottom=False,
                blocks=None):
    """Fill one lattice per lam value with ``strip_kernel``, the persistent wavefront: one
    launch for the whole batch, warps taking strips of 32 rows in order and waiting on
    the strip above every ``chunk`` steps. Arguments and results as ``fill_tiled``'s.
    ``blocks``: the grid (default: every block the device holds at once; the decisions
    do not depend on it). Twin of the schedule: ``fill_strips`` (tests/support/tile_twin.py).
    """
    # one row buffer for every strip (starts as the row above), column 0 as edges
    lat, args, col0 = _fill_args(dev, lat, lams, edges)
    batch, n_a = len(lams), lat.n_a
    n_strips = -(-n_a // BLOCK)
    name, const = fill_variant(lat, "strips", chunk)
    threads = 32 * const["STRIP_WARPS"]
    function, parameters = dev.kernel(name, const)
    if blocks is None:
        blocks = dev.resident_blocks(function, threads)
    # never more warps than strips: the others would only take an empty ticket
    blocks = max(1, min(blocks, -(-batch * n_strips // const["STRIP_WARPS"])))
    BoundKernel(function, parameters, {
        **args, "progress": dev.zeros((batch, n_strips), np.int32),  # zeroed per fill
        "ticket": dev.zeros(1, np.uint32), "batch": batch})((blocks,), (threads,))
    if progress is not None:
        progress(lat.n_cells, lat.n_cells)
    return _fill_result(dev, args, col0, n_a, bottom)


def fill_variant(lat, kernel, width):
    """``(kernel name, constants)`` of a fill of ``lat`` by ``kernel`` (``"tiles"``,
    ``width`` its tile width, or ``"strips"``, ``width`` its chunk)."""
    signed = lat.mode == "signed"
    if kernel == "strips":
        return "strip_kernel", constants("strip_kernel", lat.metric, signed, lat.m,
                                         chunk=width)
    return "tile_kernel", constants("tile_kernel", lat.metric, signed, lat.m, width)


def _fill_args(dev, lat, lams, edges):
    """``(lattice, named kernel arguments, col0)`` of a batch fill: the lattice's
    inputs, the lam values, the boundary arrays (starting as the edges: the row above and
    column 0, one per lattice) and zeroed decision words."""
    lams = np.asarray(lams, dtype=np.float64)
    batch, n_a, n_b, k = lams.size, lat.n_a, lat.n_b, lat.n_counters
    if lat.mode == "signed" and lat.m > 1:
        raise ValueError(MSG_SIGNED_TWO.format(n_groups=lat.m + 1))
    if lat.m > MAX_OLD_GROUPS:
        raise ValueError(MSG_OLD_GROUPS.format(most=MAX_OLD_GROUPS, all=MAX_OLD_GROUPS + 1,
                                               k=lat.m + 1))
    col0, top = cr.edge_counters(lat) if edges is None else edges

    def per_lattice(a, length):
        return dev.asarray(np.ascontiguousarray(np.broadcast_to(a, (batch, k, length)),
                                                dtype=np.int64))

    nw = cr.n_words(n_a, n_b)
    return lat, {**lattice_args(dev, lat), "lams": dev.asarray(lams),
                 "rowbuf": per_lattice(top, n_b + 1), "colbuf": per_lattice(col0, n_a + 1),
                 "words": dev.zeros((batch, nw), np.uint32), "n_words": nw, "n_a": n_a,
                 "n_b": n_b}, col0


def _fill_result(dev, args, col0, n_a, bottom):
    """``(words, final)`` of a batch fill, and with ``bottom`` its last row: the row
    buffer with cell ``(n_a, 0)``, never a kernel cell, filled in."""
    words, final = args["words"], args["colbuf"][:, :, n_a]
    if not bottom:
        return words, final
    if n_a % BLOCK:
        raise ValueError(MSG_BOTTOM.format(n_a=n_a))
    args["rowbuf"][:, :, 0] = dev.asarray(np.ascontiguousarray(col0[:, n_a]))
    return words, final, args["rowbuf"]


def fill(dev, lat, lams, kernel, width, progress=None, **kw):
    """``fill_tiled`` (``kernel="tiles"``, ``width``: the tile width) or ``fill_strips``
    (``"strips"``, ``width``: the chunk)."""
    if kernel not in KERNELS:
        raise ValueError(MSG_KERNEL.format(kernel=kernel))
    return KERNELS[kernel](dev, lat, lams, width, progress, **kw)


def traceback(dev, words, n_a, n_b):
    """Paths ``(B, n_a + n_b)`` int8 of a batch of decision words, walked on the device
    by ``traceback_kernel`` (one thread per lattice)."""
    batch = words.shape[0]
    paths = dev.zeros((batch, n_a + n_b), np.int8)
    BoundKernel(*dev.kernel("traceback_kernel", {}), {
        "words": words, "n_words": words.shape[1], "path": paths, "n_a": n_a, "n_b": n_b,
        "batch": batch})((-(-batch // 32),), (32,))
    return paths


class BandWalker:
    """``cpu_reference``'s band walker on the device: ``band_traceback_kernel`` walks
    every lattice's path through a band's words where they lie; only the paths and one
    flag per band come back."""

    def __init__(self, dev, lat, batch):
        self.dev, self.n_b, self.batch = dev, lat.n_b, batch
        self.length = lat.n_a + lat.n_b
        self.path = dev.zeros((batch, self.length), np.int8)
        self.js = dev.asarray(np.full(batch, lat.n_b, dtype=np.int32))
        self.ks = dev.asarray(np.full(batch, self.length, dtype=np.int64))

    def walk(self, words, i0, i1):
        BoundKernel(*self.dev.kernel("band_traceback_kernel", {}), {
            "words": words, "n_words": words.shape[1], "path": self.path,
            "path_len": self.length, "n_rows": i1 - i0, "n_b": self.n_b, "row_offset": i0,
            "js": self.js, "ks": self.ks, "batch": self.batch})((-(-self.batch // 32),), (32,))
        return not self.dev.get(self.ks).any()  # one tiny copy per band

    def paths(self):
        return list(self.dev.get(self.path))


def solve(dev, lat, lams, band_rows, tile_j, progress=None, kernel="tiles"):
    """``[(path, final), ...]`` on the host, one per lam value: the whole lattice
    (``band_rows`` None) or bands of ``band_rows`` rows, their counter checkpoints on the
    host and the paths walked band by band on the device (``cpu_reference.solve_banded``,
    twice the work). ``kernel``: ``"tiles"`` (``tile_j``: the tile width) or
    ``"strips"`` (``tile_j``: the chunk), see ``fill``."""
    if band_rows is None:
        words, final = fill(dev, lat, lams, kernel, tile_j, progress)
        paths = dev.get(traceback(dev, words, lat.n_a, lat.n_b))
        final = dev.get(final)
        return [(paths[b], final[b]) for b in range(len(lams))]

    def fill_band(band, col0, top, bits):
        # pass 2 (bits) and the last band read no bottom row
        out = fill(dev, band, lams, kernel, tile_j, edges=(col0, top),
                   bottom=not bits and band.n_a % BLOCK == 0)
        last = dev.get(out[2]) if len(out) == 3 else None
        return (out[0] if bits else None), dev.get(out[1]), last

    walker = BandWalker(dev, lat, len(lams))
    return cr.solve_banded(lat, len(lams), band_rows, fill_band, progress, walker)


#: The 2-D fills by name: the default ``"tiles"`` until a device run has measured the
#: persistent ``"strips"``.
KERNELS = {"tiles": fill_tiled, "strips": fill_strips}


# ------------------------------------------------------------------ K-D lattices

def kd_arrays(prob, lam):
    """``kd_plane_kernel``'s inputs of the K-D DP over all groups of ``prob`` (sorted-box
    layout of ``cpu_reference.KdLayout``), by name, and the hyperplanes' spans and
    decision-word offsets (``layout``)."""
    k, sizes = prob.k, prob.sizes
    lay = cr.KdLayout(sizes)
    cs = cr.kgroup_constants(prob, range(k))
    n = sum(sizes)
    d = np.arange(n + 1)
    lo = np.searchsorted(lay.sums, d - lay.n_last, side="left").astype(np.int64)
    hi = np.searchsorted(lay.sums, d, side="right").astype(np.int64)
    count = np.where(d >= 1, -(-(hi - (lo & ~31)) // 32), 0)
    base = np.concatenate(([0], np.cumsum(count)[:-1])).astype(np.int64)
    inv_x, inv_u = np.zeros((k, k)), np.zeros((k, k))
    for g, h in cr.ordered_pairs(range(k)):
        inv_x[g, h] = cs.inv_x[(g, h)]
        if g < h:
            inv_u[g, h] = cs.inv_u[(g, h)]
    stride = np.zeros(k, dtype=np.int64)
    for g in lay.axes:
        stride[g] = lay.strides[g]
    kernel = {
        "axis": np.array(lay.axes, dtype=np.int32),
        "coords": np.stack([lay.coords[g] for g in lay.axes]).astype(np.int32),
        "sums": lay.sums.astype(np.int32),
        "pred": np.stack([lay.pred[g] for g in lay.axes]).astype(np.int64),
        "sizes": np.array(sizes, dtype=np.int32),
        "ys": np.concatenate(prob.ys).astype(np.float64),
        "ys_off": np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64),
        "negleft": np.concatenate(prob.negleft).astype(np.float64),
        "nl_off": np.concatenate(([0], np.cumsum(np.array(sizes) + 1)[:-1])).astype(np.int64),
        # URF's weights on U: the items of every row, and of every group below x rows
        "wts": np.concatenate([prob.weight(g) for g in range(k)]).astype(np.float64),
        "items_left": np.concatenate([
            prob.n_items(g) - np.concatenate(([0], np.cumsum(prob.weight(g))))
            for g in range(k)]).astype(np.float64),
        "inv_x": inv_x, "inv_u": inv_u,
        "inv_p": np.array([cs.inv_p[g] for g in range(k)]),
        "w_g": np.array([cs.w_g[g] for g in range(k)]),
        "w": cs.w, "inv_auc": cs.inv_auc, "lam": float(lam),
        "k": k, "last": lay.last, "box": lay.sums.size,
    }
    layout = {
        "lo": lo, "hi": hi, "base": base, "plane_words": int(count.sum()),
        "nbits": max(1, (k - 1).bit_length()), "rank": lay.rank.astype(np.int64),
        "stride": stride, "end": lay.box_position(list(sizes)), "n_planes": n,
        "rows": len(cr.COUNTER_KINDS[prob.metric].kinds) * k * (k - 1),
    }
    return kernel, layout


def kd_finals(prob, final):
    """``(C, U)`` dicts of the K-D DP from the final counter rows."""
    pairs = cr.ordered_pairs(range(prob.k))
    values = [int(v) for v in np.asarray(final)]
    return dict(zip(pairs, values[:len(pairs)])), dict(zip(pairs, values[len(pairs):]))


def kd(dev, prob, lam, progress=None):
    """``(path, C, U, constants)`` of the K-D DP on ``dev``: one ``kd_plane_kernel``
    launch per hyperplane, the counters of two hyperplanes on the device, the path by
    ``kd_traceback_kernel``."""
    if prob.k > KD_MAX_GROUPS:
        raise ValueError(MSG_KD_GROUPS.format(most=KD_MAX_GROUPS, k=prob.k))
    inputs, layout = kd_arrays(prob, lam)
    args = {name: dev.asarray(v) if isinstance(v, np.ndarray) else v
            for name, v in inputs.items()}
    const = constants("kd_plane_kernel", prob.metric)
    rows, box = layout["rows"], inputs["box"]
    prev = dev.zeros((rows, box), np.float64)
    cur = dev.zeros((rows, box), np.float64)
    words = dev.zeros(layout["nbits"] * layout["plane_words"], np.uint32)
    n = layout["n_planes"]
    kernel = BoundKernel(*dev.kernel("kd_plane_kernel", const), {
        **args, "prev": prev, "cur": cur, "words": words,
        "plane_words": layout["plane_words"], "nbits": layout["nbits"], "d": 0, "lo": 0,
        "hi": 0, "base_d": 0}, ("prev", "cur", "d", "lo", "hi", "base_d"))
    every = max(1, n // 100)
    total = cr.kd_cells(prob.sizes)
    for d in range(1, n + 1):
        lo, hi = int(layout["lo"][d]), int(layout["hi"][d])
        kernel((-(-(hi - (lo & ~31)) // THREADS),), (THREADS,), prev, cur, d, lo, hi,
               layout["base"][d])
        prev, cur = cur, prev
        if progress is not None and (d % every == 0 or d == n):
            progress(int(total * d / n), total)
    final = dev.get(prev[:, layout["end"]])
    path = dev.zeros(n, np.int8)
    BoundKernel(*dev.kernel("kd_traceback_kernel", const), {
        "words": words, "plane_words": layout["plane_words"], "nbits": layout["nbits"],
        **{name: dev.asarray(layout[name]) for name in ("lo", "base", "rank", "stride")},
        "k": prob.k, "last": args["last"], "sizes": args["sizes"], "path": path})((1,), (32,))
    c, u = kd_finals(prob, final)
    return (dev.get(path).astype(np.int8), c, u,
            cr.kgroup_constants(prob, range(prob.k)))
