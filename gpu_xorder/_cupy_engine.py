"""The CuPy engine: fills xOrder lattices on the GPU.

docs/design.md, sections 3, 4, 6, 7 and 9. The only module of the package that imports
CuPy. Kernels live in ``cuda/*.cu``, are compiled by NVRTC with ``--fmad=false``
(bit-identical G-hat, docs/design.md, section 3.7) and memoized per device and
compile-time constants (metric, mode). Two groups: ``solve`` (2-D kernels); more:
``solve_multi`` runs the schedule of ``_multi_launch`` on the kernels of
``cuda/xorder_multi.cu``.
"""

import cupy as cp
import numpy as np

import cpu_reference
from cpu_reference import n_words, plan_bands, solve_banded

from . import _multi_launch
from ._launch import MSG_BOTTOM, tile_schedule
from ._kernel_source import NVRTC_OPTIONS, kernel_source, warps_per_block

_METRIC_CODE = {"xauc": 0, "prf": 1, "urf": 2}
_THREADS = 256

MSG_DEVICE_MEMORY = (
    "the xOrder lattice needs {need:.2f} GiB of device memory but {free:.2f} GiB is free "
    "({n_a} x {n_b} cells, {batch} lam value(s)); subsample each group (learn the "
    "ordering on every k-th item, docs/design.md, section 6) or pass fewer lam values "
    "at once"
)


class DeviceMemoryError(MemoryError):
    """The lattice does not fit in the free device memory."""


KERNELS = ("tiled", "diagonal")
DEFAULT_TILE_J = 128


@cp.memoize(for_each_device=True)
def get_module(name, metric_code, signed, tile_j=DEFAULT_TILE_J):
    """Compiled RawModule of one ``.cu`` file for compile-time constants; memoized per
    device (docs/design.md, section 3.7: always ``--fmad=false``)."""
    return cp.RawModule(code=kernel_source(name, metric_code, signed, tile_j),
                        options=NVRTC_OPTIONS)


def _module(lat, name, tile_j=DEFAULT_TILE_J):
    return get_module(name, _METRIC_CODE[lat.metric], lat.mode == "signed", tile_j)


def smoke_test():
    """Compile the kernels and run a 2 x 2 lattice; raises if the device is unusable."""
    if not cp.cuda.is_available():
        raise RuntimeError("no CUDA device is visible")
    s = np.array([0.9, 0.8, 0.7, 0.6])
    y = np.array([1, 0, 1, 0])
    g = np.array([0, 0, 1, 1])
    lat = cpu_reference.build_lattice(s, y, g, "xauc", "absolute")
    for fill in (fill_batch, fill_batch_tiled):
        words, _ = fill(lat, np.array([0.5]))
        traceback_batch(lat, words).get()


def device_info():
    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    free, total = cp.cuda.runtime.memGetInfo()
    name = props["name"]
    return {
        "cupy_version": cp.__version__,
        "device_name": name.decode() if isinstance(name, bytes) else name,
        "compute_capability": dev.compute_capability,
        "memory_bytes": int(total),
        "free_memory_bytes": int(free),
        "multiprocessors": int(props["multiProcessorCount"]),
    }


def required_bytes(lat, batch):
    """Device memory of one call: decision bits, two counter diagonals, inputs, paths."""
    k = lat.n_counters
    bits = batch * n_words(lat.n_a, lat.n_b) * 4
    counters = 2 * batch * k * (lat.n_a + 1) * 8
    inputs = 8 * (4 * (lat.n_a + lat.n_b + 2) + k * (lat.n_a + lat.n_b + 2)) + 8 * (9 + batch)
    paths = batch * (lat.n_a + lat.n_b)
    return bits + counters + inputs + paths


def _free_bytes():
    return cp.cuda.runtime.memGetInfo()[0] + cp.get_default_memory_pool().free_bytes()


def _check_memory(lat, batch):
    need = required_bytes(lat, batch)
    free = _free_bytes()
    if need > 0.9 * free:
        raise DeviceMemoryError(MSG_DEVICE_MEMORY.format(
            need=need / 2**30, free=free / 2**30, n_a=lat.n_a, n_b=lat.n_b, batch=batch))


def fill_batch(lat, lams, progress=None):
    """Fill one lattice per lam value; return device arrays ``(words, final)``.

    ``words``: (B, n_words) uint32 decision bits; ``final``: (B, K) counters of the last
    cell. One launch per anti-diagonal covers the whole batch (grid.y = lattice).
    """
    lams = np.asarray(lams, dtype=np.float64)
    batch, n_a, n_b, k = lams.size, lat.n_a, lat.n_b, lat.n_counters
    _check_memory(lat, batch)
    diag = _module(lat, "xorder_fill.cu").get_function("diag_kernel")
    col0, row0 = cpu_reference.edge_counters(lat)
    dev = _inputs(lat)
    col0_d, row0_d = cp.asarray(col0), cp.asarray(row0)
    consts = cp.asarray(np.array(lat.consts.astuple(), dtype=np.float64))
    lams_d = cp.asarray(lams)
    nw = n_words(n_a, n_b)
    prev = cp.zeros((batch, k, n_a + 1), dtype=cp.int64)
    cur = cp.zeros_like(prev)
    words = cp.zeros((batch, nw), dtype=cp.uint32)
    n_diag = n_a + n_b
    every = max(1, n_diag // 200)
    done = 1
    for d in range(1, n_diag + 1):
        i_lo, i_hi = max(1, d - n_b), min(n_a, d - 1)
        rows = ((i_hi - 1) // 32 - (i_lo - 1) // 32 + 1) * 32 if i_lo <= i_hi else 32
        grid = ((rows + _THREADS - 1) // _THREADS, batch)
        diag(grid, (_THREADS,), (
            dev["y_a"], dev["y_b_rev"], dev["negleft_a"], dev["negleft_b_rev"],
            col0_d, row0_d, consts, lams_d, prev, cur, words, np.int64(nw),
            np.int32(n_a), np.int32(n_b), np.int32(d), np.int32(i_lo), np.int32(i_hi)))
        prev, cur = cur, prev
        done += min(d, n_a) - max(0, d - n_b) + 1
        if progress is not None and (d % every == 0 or d == n_diag):
            progress(done, lat.n_cells)
    return words, prev[:, :, n_a]


def fill_batch_tiled(lat, lams, tile_j=DEFAULT_TILE_J, progress=None, *, edges=None,
                     bottom=False):
    """Like ``fill_batch`` with the tiled kernel: one launch per anti-diagonal of tiles
    (32 rows x ``tile_j`` columns), ``n_a/32 + n_b/tile_j`` launches in all.

    Twin: ``cpu_reference._tiled.fill_tiled`` (same schedule, same boundary arrays).
    ``edges = (col0, top)``: int64 counters of the first column ``(K, n_a + 1)`` and of
    the row above ``(B, K, n_b + 1)``, for a band of rows of a larger lattice
    (``cpu_reference._banded.band_lattice``); default: the lattice's own edges. With
    ``bottom=True`` also returns the counters of the last row, ``(B, K, n_b + 1)``
    (``n_a`` must be a multiple of 32: the kernel stores the rows that end a block).
    """
    lams = np.asarray(lams, dtype=np.float64)
    batch, n_a, n_b = lams.size, lat.n_a, lat.n_b
    _check_memory(lat, batch)
    kernel = _module(lat, "xorder_tiled.cu", tile_j).get_function("tile_kernel")
    wpb = warps_per_block(tile_j)
    col0, top = cpu_reference.edge_counters(lat) if edges is None else edges
    dev = _inputs(lat)
    consts = cp.asarray(np.array(lat.consts.astuple(), dtype=np.float64))
    lams_d = cp.asarray(lams)
    # boundary arrays start as the edges: the row above and column 0
    shape = (batch,) + np.shape(top)[-2:]
    rowbuf = cp.asarray(np.broadcast_to(top, shape).copy())
    colbuf = cp.asarray(np.broadcast_to(col0, (batch,) + col0.shape).copy())
    nw = n_words(n_a, n_b)
    words = cp.zeros((batch, nw), dtype=cp.uint32)
    schedule = tile_schedule(n_a, n_b, tile_j)
    every = max(1, len(schedule) // 200)
    a_below = np.int32(lat.left_a[-1])
    for step, (tile_diag, r_first, n_tiles) in enumerate(schedule, 1):
        kernel(((n_tiles + wpb - 1) // wpb, batch), (32 * wpb,), (
            dev["y_a"], dev["y_b_rev"], dev["negleft_a"], dev["negleft_b_rev"],
            consts, lams_d, rowbuf, colbuf, words, np.int64(nw), np.int32(n_a),
            np.int32(n_b), np.int32(tile_diag), np.int32(r_first), np.int32(n_tiles),
            a_below))
        if progress is not None and (step % every == 0 or step == len(schedule)):
            progress(int(lat.n_cells * step / len(schedule)), lat.n_cells)
    if not bottom:
        return words, colbuf[:, :, n_a]
    if n_a % 32:
        raise ValueError(MSG_BOTTOM.format(n_a=n_a))
    rowbuf[:, :, 0] = cp.asarray(col0[:, n_a])  # cell (n_a, 0): never a kernel cell
    return words, colbuf[:, :, n_a], rowbuf


def _inputs(lat):
    return {name: cp.asarray(getattr(lat, name))
            for name in ("y_a", "y_b_rev", "negleft_a", "negleft_b_rev")}


def traceback_batch(lat, words):
    """Paths of every lattice, walked on the device (one thread per lattice)."""
    batch, nw = words.shape
    module = _module(lat, "xorder_fill.cu")
    paths = cp.empty((batch, lat.n_a + lat.n_b), dtype=cp.int8)
    threads = 32
    module.get_function("traceback_kernel")(
        ((batch + threads - 1) // threads,), (threads,),
        (words, np.int64(nw), paths, np.int32(lat.n_a), np.int32(lat.n_b), np.int32(batch)))
    return paths


def solve(lat, lams, progress=None, kernel="tiled", memory_limit=None):
    """``([(path, final_counters), ...], band_rows)`` on the host, one per lam value;
    ``band_rows`` is None unless the lattice was filled in bands.

    When the decision bits of the batch exceed ``memory_limit`` bytes (default: what
    the device has free), the tiled kernel fills the lattice in bands of rows with
    counter checkpoints held on the host (``cpu_reference._banded``; twice the work),
    and ``band_traceback_kernel`` walks the paths band by band on the device.
    """
    batch = len(lams)
    budget = _bits_budget(lat, batch, memory_limit)
    if budget >= batch * n_words(lat.n_a, lat.n_b) * 4:
        if kernel == "tiled":
            words, final = fill_batch_tiled(lat, lams, progress=progress)
        else:
            words, final = fill_batch(lat, lams, progress=progress)
        paths = traceback_batch(lat, words)
        final_h, paths_h = final.get(), paths.get()
        del words, paths
        return [(paths_h[b], final_h[b]) for b in range(batch)], None
    band_rows = plan_bands(lat.n_a, lat.n_b, budget, lat.n_counters, batch, checkpoints=False)
    if band_rows is None:
        raise DeviceMemoryError(MSG_DEVICE_MEMORY.format(
            need=(_other_bytes(lat, batch) + batch * n_words(min(32, lat.n_a), lat.n_b) * 4)
            / 2**30,
            free=_free_bytes() / 2**30, n_a=lat.n_a, n_b=lat.n_b, batch=batch))

    def fill_band(band, col0, top, bits):
        out = fill_batch_tiled(band, lams, edges=(col0, top), bottom=band.n_a % 32 == 0)
        last = out[2].get() if len(out) == 3 else None  # the last band's is never used
        return (out[0] if bits else None), out[1].get(), last

    walker = _DeviceWalker(lat, batch)
    return solve_banded(lat, batch, band_rows, fill_band, progress, walker), band_rows


class _DeviceWalker:
    """``cpu_reference._banded.HostWalker`` on the device: ``band_traceback_kernel``
    walks every lattice's path through a band's words where they lie; only the paths
    (``n_a + n_b`` bytes per lattice) and one flag per band come back."""

    def __init__(self, lat, batch):
        self.n_b, self.batch, self.length = lat.n_b, batch, lat.n_a + lat.n_b
        self.path = cp.empty((batch, self.length), dtype=cp.int8)
        self.js = cp.asarray(np.full(batch, lat.n_b, dtype=np.int32))
        self.ks = cp.asarray(np.full(batch, self.length, dtype=np.int64))
        self.kernel = get_module("xorder_fill.cu", 0, False).get_function(
            "band_traceback_kernel")

    def walk(self, words, i0, i1):
        threads = 32
        self.kernel(((self.batch + threads - 1) // threads,), (threads,), (
            words, np.int64(words.shape[1]), self.path, np.int64(self.length),
            np.int32(i1 - i0), np.int32(self.n_b), np.int32(i0), self.js, self.ks,
            np.int32(self.batch)))
        return not cp.asnumpy(self.ks).any()  # one tiny copy per band

    def paths(self):
        return list(self.path.get())


def _other_bytes(lat, batch):
    """Device bytes of one call besides the decision words."""
    return required_bytes(lat, batch) - batch * n_words(lat.n_a, lat.n_b) * 4


def _bits_budget(lat, batch, memory_limit):
    """Bytes the decision words of one call may take on the device."""
    budget = int(0.9 * _free_bytes()) - _other_bytes(lat, batch)
    return budget if memory_limit is None else min(budget, memory_limit)


# ------------------------------------------------------------------ more than two groups

MSG_DEVICE_MEMORY_MULTI = (
    "{method} xOrder of groups of sizes {sizes} needs {need:.2f} GiB of device memory but "
    "{free:.2f} GiB is free; use method='iterative' or subsample each group"
)


class _MultiDevice:
    """The device interface of ``_multi_launch`` on CuPy (one metric)."""

    def __init__(self, metric):
        self._module = get_module("xorder_multi.cu", _METRIC_CODE[metric], False)
        self._functions = {}

    asarray = staticmethod(cp.asarray)

    @staticmethod
    def zeros(shape, dtype):
        return cp.zeros(shape, dtype=dtype)

    @staticmethod
    def get(a):
        return cp.asnumpy(a)

    def _function(self, name):
        if name not in self._functions:
            self._functions[name] = self._module.get_function(name)
        return self._functions[name]

    def launch(self, name, grid, block, args):
        self._function(name)((grid,), (block,), args)

    @staticmethod
    def traceback(words, n_a, n_b):
        path = cp.empty((1, n_a + n_b), dtype=cp.int8)
        kernel = get_module("xorder_fill.cu", 0, False).get_function("traceback_kernel")
        kernel((1,), (32,), (words, np.int64(words.size), path, np.int32(n_a),
                             np.int32(n_b), np.int32(1)))
        return path[0].get()

    def kd_traceback(self, words, arrays):
        path = cp.empty(arrays["n_planes"], dtype=cp.int8)
        self._function("kd_traceback_kernel")((1,), (32,), (
            words, np.int64(arrays["plane_words"]), np.int32(arrays["nbits"]),
            cp.asarray(arrays["lo"]), cp.asarray(arrays["base"]), cp.asarray(arrays["rank"]),
            cp.asarray(arrays["stride"]), arrays["k"], arrays["last"],
            cp.asarray(arrays["sizes"]), path))
        return path.get()


def required_bytes_multi(prob, method):
    """Device memory of the largest lattice of a multi-group solve (decision words,
    two counter buffers, layout arrays)."""
    sizes, k = prob.sizes, prob.k
    per_pair = 2 if prob.metric == "urf" else 1
    if method == "kd":
        n_cells = cpu_reference.kd_cells(sizes)
        box = n_cells // (max(sizes) + 1)
        words = max(1, (k - 1).bit_length()) * (n_cells // 32 + sum(sizes) + 1) * 4
        counters = 2 * per_pair * k * (k - 1) * box * 8
        layout = box * (k - 1) * (4 + 8) + box * (4 + 8)
        return words + counters + layout
    need = 0
    for step, (merged, n_b) in enumerate(cpu_reference.step_shapes(sizes), 1):
        words = n_words(merged, n_b) * 4
        counters = 2 * 2 * per_pair * step * (merged + 1) * 8
        inputs = 2 * per_pair * step * (merged + 1) * 8 + 16 * (merged + n_b + 2)
        need = max(need, words + counters + inputs)
    return need


def solve_multi(prob, lam, method, progress=None):
    """``_multi_launch.kd`` / ``iterative`` of ``prob`` on this device."""
    need, free = required_bytes_multi(prob, method), _free_bytes()
    if need > 0.9 * free:
        raise DeviceMemoryError(MSG_DEVICE_MEMORY_MULTI.format(
            method=method, sizes=prob.sizes, need=need / 2**30, free=free / 2**30))
    dev = _MultiDevice(prob.metric)
    if method == "kd":
        return _multi_launch.kd(prob, lam, dev, progress)
    return _multi_launch.iterative(prob, lam, dev, progress, pair_solve=_pair_solve)


def _pair_solve(lat, lam, progress):
    """The first iterative step as a 2-D lattice on the tiled kernel: ``(path, final)``."""
    (path, final), = solve(lat, [lam], progress=progress)[0]
    return path, final
