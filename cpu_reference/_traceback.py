"""Traceback: read the decision bits back from the last cell (docs/design.md, section 3.3).

The walk is sequential; it reads one word per step from a bulk host copy of the bits
(never one device synchronisation per step). The CUDA twin is ``traceback_kernel`` in
``gpu_xorder/cuda/xorder_traceback.cu``, which writes the same path on the device.
"""

import numpy as np

from ._bits import BLOCK


def traceback(words, n_a, n_b):
    """Group index (0 = a, 1 = b) of each rank of the merged ordering, top first.

    Parameters
    ----------
    words : ndarray of uint32
        Decision bits in the layout of ``_bits``.
    n_a, n_b : int

    Returns
    -------
    path : ndarray of int8, shape (n_a + n_b,)
    """
    steps, i, j = walk(words, n_a, n_b, n_b)
    return assemble_path(steps, i, j)


def walk(words, n_a, n_b, j):
    """Walk back from cell ``(n_a, j)`` until the path meets row 0 or column 0.

    Returns ``(steps, i, j)``: the group index of every step taken, last rank first
    (a list), and the edge cell reached. The band solver (``_banded``) walks each band
    of rows with it, the bottom band first.
    """
    stride = n_b + BLOCK - 1
    bits = memoryview(np.ascontiguousarray(words, dtype=np.uint32)).cast("B").cast("I")
    steps = []
    i = n_a
    while i > 0 and j > 0:
        t = (i - 1) % BLOCK
        if (bits[((i - 1) // BLOCK) * stride + j + t - 1] >> t) & 1:
            steps.append(0)
            i -= 1
        else:
            steps.append(1)
            j -= 1
    return steps, i, j


def assemble_path(steps, i, j):
    """The path of ``steps`` (last rank first) walked back to the edge cell ``(i, j)``
    (``i == 0`` or ``j == 0``): from there the rest is forced."""
    k = i + j
    path = np.empty(k + len(steps), dtype=np.int8)
    path[:k] = 0 if i else 1
    path[k:] = steps[::-1]
    return path


def path_to_order(path, perms):
    """Input indices of the merged ordering, top first.

    ``perms[g]`` lists group g's input indices in DP (descending score) order; ``path``
    gives the group index of each rank (any number of groups).
    """
    path = np.asarray(path)
    order = np.empty(path.size, dtype=np.int64)
    for g, perm in enumerate(perms):
        order[path == g] = perm
    return order
