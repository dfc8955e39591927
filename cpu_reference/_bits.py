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


def store_diagonal(words, decbuf, d, i_lo, i_hi, n_b):
    """Pack the decisions of diagonal ``d`` (cells ``i_lo..i_hi``) into ``words``.

    ``decbuf`` is a bool buffer indexed by ``i - 1`` whose entries ``i_lo-1 .. i_hi-1``
    hold the diagonal's decisions; the padding up to whole blocks is cleared here.
    """
    r_lo, r_hi = (i_lo - 1) // BLOCK, (i_hi - 1) // BLOCK
    decbuf[BLOCK * r_lo:i_lo - 1] = False
    decbuf[i_hi:BLOCK * (r_hi + 1)] = False
    packed = np.packbits(decbuf[BLOCK * r_lo:BLOCK * (r_hi + 1)], bitorder="little")
    packed = packed.view("<u4")
    # Word of block r on diagonal d: r * (n_b - 1) + d - 2, an arithmetic progression.
    start = r_lo * (n_b - 1) + d - 2
    if r_hi == r_lo:
        words[start] = packed[0]
    else:
        step = n_b - 1
        words[start:start + (r_hi - r_lo) * step + 1:step] = packed


def bits_to_matrix(words, n_a, n_b):
    """Dense bool ``(n_a, n_b)`` matrix of decisions (for tests and debugging only)."""
    i = np.arange(1, n_a + 1)[:, None]
    j = np.arange(1, n_b + 1)[None, :]
    w = words[word_index(i, j, n_b)]
    return ((w >> ((i - 1) % BLOCK).astype(np.uint32)) & 1).astype(bool)
