"""A stand-in for the ``cupy`` module, so that ``gpu_xorder._cupy_engine`` runs on any
machine: arrays are NumPy arrays with ``.get()``, and the two-group kernels
(``diag_kernel``, ``tile_kernel``, ``traceback_kernel``) are emulated in plain Python.

The emulators follow each kernel's indexing literally (flat pointer arithmetic, the
tile's lanes and steps, the word and bit of every decision, which boundary entries a
tile overwrites) and compute G-hat with Python floats (IEEE double, no fused
multiply-add) in the operation order of ``ghat()`` in ``cuda/xorder_common.cuh``. They
are a third implementation of the cell rule, next to the NumPy fill and the CUDA code:
what they check is the *launcher* (argument order, buffer shapes, grids, the schedule,
the banded solve's glue) against the NumPy reference. The kernels themselves are
checked on a GPU (``test_gpu.py``) and, for the multi-group ones, by host compilation.

Every launch is first checked against the kernel's C signature, read from the source
the engine compiles (``kernel_signatures``): the count of arguments, the NumPy scalar
type of every scalar and the dtype of every array, which a real CuPy launch does not
check (a mismatch shifts or misreads the arguments on a GPU).

The multi-group kernels (``xorder_multi.cu``) need no Python twin: their launches go to
the kernels' own code compiled for the host (``cuda_host``), from the libraries a test
puts in ``HOST_LIBS`` (METRIC code -> library).
"""

import functools
import re
import types

import numpy as np

__version__ = "0.0+fake"

int8, int64, uint32, float64 = np.int8, np.int64, np.uint32, np.float64

#: (free, total) bytes reported by ``cuda.runtime.memGetInfo``; tests may change it.
MEMORY = [16 * 2**30, 16 * 2**30]
#: Launches so far: "count" in all, and per kernel name.
LAUNCHES = {"count": 0}
HOST_LIBS = {}


class ndarray(np.ndarray):
    """A "device" array: a NumPy array with CuPy's ``get``."""

    def get(self):
        return np.array(self)


def asarray(a, dtype=None):
    return np.array(a, dtype=dtype).view(ndarray)


def zeros(shape, dtype=float):
    return np.zeros(shape, dtype=dtype).view(ndarray)


def empty(shape, dtype=float):
    return np.zeros(shape, dtype=dtype).view(ndarray)  # zeroed: emulators may OR into it


def zeros_like(a):
    return np.zeros_like(a).view(ndarray)


def asnumpy(a):
    return np.array(a)


def memoize(for_each_device=False):
    return functools.lru_cache(maxsize=None)


class _Pool:
    @staticmethod
    def free_bytes():
        return 0

    @staticmethod
    def free_all_blocks():
        pass


def get_default_memory_pool():
    return _Pool()


class _Device:
    id = 0
    compute_capability = "90"

    def synchronize(self):
        pass


cuda = types.SimpleNamespace(
    is_available=lambda: True,
    Device=_Device,
    runtime=types.SimpleNamespace(
        memGetInfo=lambda: tuple(MEMORY),
        getDeviceProperties=lambda i: {"name": b"fake device (NumPy emulation)",
                                       "multiProcessorCount": 1},
    ),
)


class RawModule:
    """Reads the ``#define``s the engine prepends; ``get_function`` returns emulators."""

    def __init__(self, code, options=()):
        assert "--fmad=false" in options, "kernels must be compiled without FMA"
        # the engine's defines come first; the source's #ifndef fallbacks later
        self.defines = {}
        for name, value in re.findall(r"#define (\w+) (\d+)\n", code):
            self.defines.setdefault(name, int(value))
        self.signatures, self.bounds = kernel_signatures(code)

    def get_function(self, name):
        kernels = {"tile_kernel": _tile_kernel, "diag_kernel": _diag_kernel,
                   "traceback_kernel": _traceback_kernel,
                   "band_traceback_kernel": _band_traceback_kernel}
        if name not in self.signatures:
            raise AttributeError(f"the module has no kernel {name!r}")
        if name in ("iter_diag_kernel", "kd_plane_kernel", "kd_traceback_kernel"):
            run = functools.partial(_host_launch, name, HOST_LIBS[self.defines["METRIC"]])
        elif name in kernels:
            run = functools.partial(_launch, kernels[name], dict(self.defines))
        else:
            raise NotImplementedError(f"fake_cupy emulates no kernel {name!r}")
        return functools.partial(_checked_launch, name, self.signatures[name], run,
                                 launch_bound=self._launch_bound(name))

    def _launch_bound(self, name):
        """Most threads per block of kernel ``name`` (its ``__launch_bounds__``), or
        None."""
        expr = self.bounds.get(name)
        if expr is None:
            return None
        expr = re.sub(r"[A-Za-z_]\w*", lambda m: str(self.defines[m.group(0)]), expr)
        assert re.fullmatch(r"[\d\s*+()]+", expr), expr
        return int(eval(expr))


# ------------------------------------------------------------------ kernel signatures

#: NumPy type CuPy must be given for each C type of a kernel parameter (CuPy passes a
#: NumPy scalar by its dtype's size and an array as a bare pointer, checking neither
#: against the kernel: a mismatch would shift or misread the arguments on a GPU).
C_TYPES = {"int": np.int32, "long long": np.int64, "unsigned int": np.uint32,
           "double": np.float64, "signed char": np.int8}


def kernel_signatures(code):
    """``{kernel name: [(is_pointer, C type), ...]}`` of the ``extern "C" __global__``
    functions of ``code``, parameter macros (``ITER_PARAMS``, ...) expanded, and
    ``{kernel name: its __launch_bounds__ expression}``."""
    code = re.sub(r"//[^\n]*", "", code).replace("\\\n", " ")
    macros = dict(re.findall(r"#define (\w+)[ \t]+([^\n]*)", code))
    signatures, bounds = {}, {}
    head = re.compile(r'extern "C" __global__ void (?:__launch_bounds__\(([^)]*)\) )?(\w+)\(')
    for match in head.finditer(code):
        depth, end = 1, match.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(code[end], 0)
            end += 1
        params = code[match.end():end - 1]
        for name, body in macros.items():
            params = re.sub(rf"\b{name}\b", body, params)
        signatures[match.group(2)] = [_parameter(p) for p in params.split(",")]
        if match.group(1):
            bounds[match.group(2)] = match.group(1)
    return signatures, bounds


def _parameter(text):
    words = [w for w in text.replace("*", " * ").split() if w not in ("const", "__restrict__")]
    pointer = "*" in words
    ctype = " ".join(w for w in words[:-1] if w != "*")
    assert ctype in C_TYPES, f"parameter {text.strip()!r}: C type {ctype!r} not in C_TYPES"
    return pointer, ctype


def _checked_launch(name, signature, run, grid, block, args, launch_bound=None):
    """Check the launch shape and every argument against the kernel's parameter, then
    launch."""
    grid, block = tuple(grid), tuple(block)
    assert 1 <= len(grid) <= 3 and 1 <= len(block) <= 3, (name, grid, block)
    assert all(isinstance(v, (int, np.integer)) and v >= 1 for v in grid + block), (
        f"{name}: grid {grid} and block {block} need positive integers")
    assert grid[0] < 2**31 and all(v <= 65535 for v in grid[1:]), f"{name}: grid {grid}"
    threads = int(np.prod(block))
    assert threads <= 1024 and threads % 32 == 0, (
        f"{name}: block {block}: at most 1024 threads, whole warps (the kernels ballot "
        "with a full mask)")
    assert launch_bound is None or threads <= launch_bound, (
        f"{name}: {threads} threads per block, over its __launch_bounds__ {launch_bound}")
    assert len(args) == len(signature), (
        f"{name}: {len(args)} arguments for {len(signature)} parameters")
    for k, ((pointer, ctype), a) in enumerate(zip(signature, args)):
        want = np.dtype(C_TYPES[ctype])
        if pointer:
            assert isinstance(a, np.ndarray) and a.dtype == want, (
                f"{name} argument {k}: {ctype}* needs a {want} array, got {_kind(a)}")
        else:
            assert isinstance(a, np.generic) and a.dtype == want, (
                f"{name} argument {k}: {ctype} needs a NumPy {want} scalar, got {_kind(a)}")
    run(grid, block, args)


def _kind(a):
    return f"{type(a).__name__} of {a.dtype}" if hasattr(a, "dtype") else type(a).__name__


def _launch(kernel, defines, grid, block, args):
    LAUNCHES["count"] += 1
    LAUNCHES[kernel.__name__.lstrip("_")] = LAUNCHES.get(kernel.__name__.lstrip("_"), 0) + 1
    kernel(defines, tuple(grid), tuple(block), [_scalar(a) for a in args])


def _host_launch(name, lib, grid, block, args):
    """A multi-group kernel launch, replayed by its host-compiled code."""
    import cuda_host

    LAUNCHES["count"] += 1
    LAUNCHES[name] = LAUNCHES.get(name, 0) + 1
    if name == "kd_traceback_kernel":
        assert tuple(grid) == (1,)
        lib.kd_walk_host(*[cuda_host.c_arg(a) for a in args])
    else:
        cuda_host.HostDevice(lib).launch(name, grid[0], block[0], args)


def _scalar(a):
    if isinstance(a, np.ndarray):
        assert a.flags.c_contiguous, "kernel arguments must be contiguous"
        return a.reshape(-1)  # a flat view: the kernel sees a pointer
    assert isinstance(a, (np.integer, np.floating)), f"kernel scalar of type {type(a)}"
    return a.item()


# ------------------------------------------------------------------ cell rule

class _Cell:
    """G-hat and the step gains of one metric, as ``xorder_common.cuh`` computes them."""

    def __init__(self, defines, consts):
        self.metric, self.signed = defines["METRIC"], defines["SIGNED"]
        self.k = 4 if self.metric == 2 else 2
        (self.w, self.w_a, self.w_b, self.inv_auc, self.inv_ab, self.inv_ba, self.inv_pa,
         self.inv_pb, self.inv_u) = (float(c) for c in consts[:9])

    def ghat(self, x, lam):
        auc = (float(x[0] + x[1]) + self.w) * self.inv_auc
        if self.metric == 0:
            d = float(x[0]) * self.inv_ab - float(x[1]) * self.inv_ba
        elif self.metric == 1:
            d = (float(x[0]) + self.w_a) * self.inv_pa - (float(x[1]) + self.w_b) * self.inv_pb
        else:
            d = float(x[2] - x[3]) * self.inv_u
        if not self.signed:
            d = abs(d)
        return auc - lam * d

    def update(self, from_a, from_b, gains, lam):
        """``cell_update``: the chosen counters and whether the a-step won (strictly)."""
        ca, cb = list(from_a), list(from_b)
        ca[0] += gains[0]
        cb[1] += gains[1]
        if self.k == 4:
            ca[2] += gains[2]
            cb[3] += gains[3]
        take_a = self.ghat(ca, lam) > self.ghat(cb, lam)
        return (ca if take_a else cb), take_a


def _gains(i, j, left_a, n_b, y_a, y_b_rev, negleft_a, negleft_b_rev):
    k = n_b - j
    return (int(y_a[i - 1]) * int(negleft_b_rev[k]), int(y_b_rev[k]) * int(negleft_a[i]),
            k, left_a)


# ------------------------------------------------------------------ kernels

def _tile_kernel(defines, grid, block, a):
    (y_a, y_b_rev, negleft_a, negleft_b_rev, consts, lams, rowbuf, colbuf, words, nw,
     n_a, n_b, tile_diag, r_first, n_tiles, a_below) = a
    tile_j, wpb = defines["TILE_J"], defines["WARPS_PER_BLOCK"]
    assert block == (32 * wpb,) and grid[0] * wpb >= n_tiles
    cell = _Cell(defines, consts)
    k, rs, cs = cell.k, n_b + 1, n_a + 1
    for b in range(grid[1]):
        rb, cb = b * k * rs, b * k * cs
        for tile in range(n_tiles):
            R = r_first + tile
            i0, j0 = 32 * R + 1, (tile_diag - R) * tile_j + 1
            width = min(n_b - j0 + 1, tile_j)
            above = [[int(rowbuf[rb + q * rs + j0 + c]) for q in range(k)]
                     for c in range(width)]
            for i in range(i0, min(i0 + 31, n_a) + 1):
                left = [int(colbuf[cb + q * cs + i]) for q in range(k)]
                for c in range(width):
                    j = j0 + c
                    g = _gains(i, j, n_a + a_below - i, n_b, y_a, y_b_rev, negleft_a,
                               negleft_b_rev)
                    out, take_a = cell.update(above[c], left, g, float(lams[b]))
                    above[c] = left = out
                    if take_a:
                        words[b * nw + R * (n_b - 1) + i + j - 2] |= np.uint32(
                            1 << ((i - 1) & 31))
                for q in range(k):
                    colbuf[cb + q * cs + i] = left[q]  # lane's last column
                if i == i0 + 31:  # only lane 31 stores the row boundary
                    for c in range(width):
                        for q in range(k):
                            rowbuf[rb + q * rs + j0 + c] = above[c][q]


def _diag_kernel(defines, grid, block, a):
    (y_a, y_b_rev, negleft_a, negleft_b_rev, col0, row0, consts, lams, prev, cur, words,
     nw, n_a, n_b, d, i_lo, i_hi) = a
    cell = _Cell(defines, consts)
    k, cs = cell.k, n_a + 1
    first_row = ((i_lo - 1) & ~31) + 1
    assert i_lo > i_hi or first_row + grid[0] * block[0] - 1 >= i_hi
    for b in range(grid[1]):
        pv, cu = b * k * cs, b * k * cs
        if i_lo <= i_hi:
            ballots = {}
            for i in range(i_lo, i_hi + 1):
                from_a = [int(prev[pv + q * cs + i - 1]) for q in range(k)]
                from_b = [int(prev[pv + q * cs + i]) for q in range(k)]
                g = _gains(i, d - i, n_a - i, n_b, y_a, y_b_rev, negleft_a, negleft_b_rev)
                out, take_a = cell.update(from_a, from_b, g, float(lams[b]))
                for q in range(k):
                    cur[cu + q * cs + i] = out[q]
                r = (i - 1) >> 5
                ballots[r] = ballots.get(r, 0) | (int(take_a) << ((i - 1) & 31))
            for r, ballot in ballots.items():  # one ballot store per warp
                words[b * nw + r * (n_b - 1) + d - 2] = ballot
        for q in range(k):
            if d <= n_a:
                cur[cu + q * cs + d] = col0[q * cs + d]
            if d <= n_b:
                cur[cu + q * cs] = row0[q * (n_b + 1) + d]


def _walk_back(words, w, stride, i, j, path, end):
    """``walk_back``: steps written before ``path[end]``; returns ``(i, j, end)``."""
    while i > 0 and j > 0:
        t = (i - 1) & 31
        end -= 1
        if (int(words[w + ((i - 1) >> 5) * stride + j + t - 1]) >> t) & 1:
            path[end], i = 0, i - 1
        else:
            path[end], j = 1, j - 1
    return i, j, end


def _traceback_kernel(defines, grid, block, a):
    words, nw, path, n_a, n_b, batch = a
    assert grid[0] * block[0] >= batch
    for b in range(batch):
        p = b * (n_a + n_b)
        i, j, end = _walk_back(words, b * nw, n_b + 31, n_a, n_b, path, p + n_a + n_b)
        path[p:end] = 0 if i > 0 else 1


def _band_traceback_kernel(defines, grid, block, a):
    words, nw, path, length, n_rows, n_b, row_offset, js, ks, batch = a
    assert grid[0] * block[0] >= batch
    for b in range(batch):
        if ks[b] == 0:
            continue
        p = b * length
        _, j, end = _walk_back(words, b * nw, n_b + 31, n_rows, int(js[b]), path,
                               p + int(ks[b]))
        if j == 0 or row_offset == 0:
            path[p:end] = 0 if j == 0 else 1
            end = p
        js[b], ks[b] = j, end - p
