"""Layout of the packed decision bits: 1 bit per interior cell, shared by every backend.

Rows are grouped in blocks of 32 (one warp on the GPU). Cell ``(i, j)``, ``i, j >= 1``,
lives in block ``r = (i - 1) // 32`` at lane ``t = (i - 1) % 32``, in the 32-bit word

    ``r * stride + (j + t - 1)``,  ``stride = n_b + 31``,

bit ``t``. One word therefore holds 32 consecutive cells of one anti-diagonal
(``d = 32 r + 1 + c`` for skewed column ``c = j + t``): the GPU writes it with a single
warp ballot, the NumPy fill with one ``packbits`` per diagonal, and the traceback walks
a block's words backwards one by one (both predecessors of a cell sit in word ``c - 1``).
A set bit means the cell was entered by a step along group a (the lower group index);
on equal G-hat the step along b wins, so ties leave the bit clear.
"""

import numpy as np

BLOCK = 32


def bit_layout(n_a, n_b):
    """``(n_blocks, stride)`` of the decision words of an ``n_a`` x ``n_b`` lattice."""
    return -(-n_a // BLOCK), n_b + BLOCK - 1


def n_words(n_a, n_b):
    n_blocks, stride = bit_layout(n_a, n_b)
    return n_blocks * stride


def word_index(i, j, n_b):
    """Word holding cell ``(i, j)`` (``i, j >= 1``); works on ints and int arrays."""
    return ((i - 1) // BLOCK) * (n_b + BLOCK - 1) + j + (i - 1) % BLOCK - 1


class DiagonalPacker:
    """Packs the decisions of consecutive anti-diagonals into ``words``, a chunk at a time.

    The fill writes each diagonal's decisions into ``row(d, i_lo, i_hi)`` (a bool view
    indexed by ``i``, ``pad`` entries longer than needed at most); every ``chunk``
    diagonals one ``packbits`` turns the staged rows into words and one operation stores
    them through a strided view of ``words`` (word of block ``r`` on diagonal ``d``:
    ``r * (n_b - 1) + d - 2``). Staged bits outside a diagonal's cells are zero, so when
    no two entries of that view share a word (``n_b - 1 >= chunk``) a bitwise OR stores
    them; otherwise a masked copy writes the words of the diagonals' cells only.
    """

    def __init__(self, n_a, n_b, chunk=64, pad=0):
        self.n_a, self.n_b, self.chunk = n_a, n_b, chunk
        self.n_blocks = -(-n_a // BLOCK)
        size = n_words(n_a, n_b)
        # The strided chunk view ends at most at offset n_a + n_b - 2 +
        # (n_blocks - 1)(n_b - 1) < size; a chunk of slack keeps that true with margin.
        self._buf = np.zeros(size + chunk, dtype=np.uint32)
        self.words = self._buf[:size]
        self._width = self.n_blocks * BLOCK
        self._stage = np.zeros((chunk, self._width + pad), dtype=bool)
        self._first = None
        self._count = 0

    def row(self, d, i_lo, i_hi):
        """Bool view receiving the decisions of cells ``i_lo..i_hi`` of diagonal ``d``."""
        if self._first is None:
            self._first = d
        return self._stage[d - self._first, i_lo - 1:i_hi]

    def end_diagonal(self):
        self._count += 1
        if self._count == self.chunk:
            self.flush()

    def flush(self):
        if self._first is None:
            return
        rows, d0 = self._count, self._first
        packed = np.packbits(self._stage[:rows, :self._width], axis=1,
                             bitorder="little").view("<u4")
        item = self._buf.itemsize
        dest = np.ndarray((rows, self.n_blocks), dtype=np.uint32, buffer=self._buf,
                          offset=(d0 - 2) * item, strides=(item, (self.n_b - 1) * item))
        if self.n_b - 1 >= rows:
            np.bitwise_or(dest, packed, dest)
        else:
            d = d0 + np.arange(rows)[:, None]
            first_row = BLOCK * np.arange(self.n_blocks)[None, :] + 1
            i_lo, i_hi = np.maximum(1, d - self.n_b), np.minimum(self.n_a, d - 1)
            valid = (first_row <= i_hi) & (first_row + BLOCK - 1 >= i_lo) & (i_lo <= i_hi)
            np.copyto(dest, packed, where=valid)
        self._stage[:rows] = False
        self._first, self._count = None, 0


def bits_to_matrix(words, n_a, n_b):
    """Dense bool ``(n_a, n_b)`` matrix of decisions (for tests and debugging only)."""
    i = np.arange(1, n_a + 1)[:, None]
    j = np.arange(1, n_b + 1)[None, :]
    w = words[word_index(i, j, n_b)]
    return ((w >> ((i - 1) % BLOCK).astype(np.uint32)) & 1).astype(bool)
