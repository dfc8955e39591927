"""Block lattices: the two-group lattice with runs of consecutive items merged.

docs/design.md, section 3.5 ("A coarse start"). Merge every ``k`` consecutive items of
each group (in DP order) into one block. A path of the block lattice places whole blocks,
so it is a path of the item lattice (:func:`expand_path`), and for xAUC and PRF its
counters are exact: placing block I of a at block cell (I, J) adds ``pos_I * (n_b0 -
Q_b)``, the positives of the block times the negatives of b not yet placed, which is what
its items add one by one. The block lattice is a two-group ``StepLattice`` (the
positives of a block play the label), so every fill runs on it unchanged, at ``1 / k**2``
of the cells.

URF counts item pairs regardless of labels: a block carries its items as its weight on
U (``u_a``, ``u_b_rev`` of ``_lattice.StepLattice``; ``left_a`` and ``left_b_rev`` count
items), so that placing block I of a adds its size times the items of b not yet placed,
and URF's counters are exact as well.
"""

import dataclasses

import numpy as np


def block_sizes(n, k):
    """Items in each block of ``k`` consecutive items of ``n`` (the last may be shorter)."""
    return np.diff(np.append(np.arange(0, n, k), n))


def block_lattice(lat, k):
    """The lattice of blocks of ``k`` items of each group of ``lat`` (a two-group
    lattice, ``build_lattice``, either mode)."""
    return merged_lattice(lat, block_sizes(lat.n_a, k), block_sizes(lat.n_b, k))


def merged_lattice(lat, size_a, size_b):
    """The lattice of ``lat`` (two groups, either mode) with consecutive rows merged
    into blocks of ``size_a`` rows and columns into blocks of ``size_b`` columns: a path
    of it places whole blocks (:func:`expand_merged`). A block's positives and
    negatives are its rows' (read from ``lat``, whose rows may be merged already), so
    the counters of a path are exact for every metric (a block's items are its weight
    on U, module docstring)."""
    size_a, size_b = np.asarray(size_a), np.asarray(size_b)
    starts_a = np.concatenate(([0], np.cumsum(size_a)[:-1]))
    starts_b = np.concatenate(([0], np.cumsum(size_b)[:-1]))
    pos_a = np.add.reduceat(lat.y_a, starts_a)
    pos_b = np.add.reduceat(lat.y_b_rev[:-1][::-1], starts_b)
    # negatives and items not yet placed, at every block boundary
    bounds_a = np.concatenate((starts_a, [lat.n_a]))
    bounds_b = np.concatenate((starts_b, [lat.n_b]))
    negleft_a = lat.negleft_a[0, bounds_a]
    negleft_b = lat.negleft_b_rev[::-1][bounds_b]
    u_b = np.add.reduceat(lat.u_b_rev[:-1][::-1], starts_b)
    n_a, n_b = size_a.size, size_b.size
    return dataclasses.replace(
        lat, n_a=n_a, n_b=n_b, perm_a=None, perm_b=None, y_a=pos_a.astype(np.int64),
        seq_q=np.zeros(n_a, dtype=np.int64), a_wins_ties=np.zeros(n_a, dtype=bool),
        y_b_rev=np.concatenate((pos_b[::-1], [0])).astype(np.int64),
        negleft_a=negleft_a.astype(np.int64)[None],
        negleft_b_rev=negleft_b[::-1].astype(np.int64).copy(),
        left_a=lat.left_a[:, bounds_a].astype(np.int64),
        left_b_rev=lat.left_b_rev[::-1][bounds_b][::-1].astype(np.int64).copy(),
        u_a=np.add.reduceat(lat.u_a, starts_a).astype(np.int64),
        u_b_rev=np.concatenate((u_b[::-1], [0])).astype(np.int64), row_offset=0)


def label_runs(lat):
    """``(size_a, size_b)``: the lengths of the maximal runs of consecutive rows (and of
    consecutive columns) of ``lat`` (two groups) whose items have the same share of
    positives (on a lattice of items: the same label).

    Merging them (:func:`merged_lattice`) keeps the optimum of the *signed* objective
    ``AUC - mu * D`` for every weight mu and metric: swapping an item of a with an
    adjacent item of b changes the signed objective by an amount that depends only on
    the two rows' positives and items (the pairs they decide), so for two rows of a run
    (proportional positives and items) moving either past the items of b between them
    changes it by amounts of opposite signs, and one of the two moves loses nothing;
    some optimal path therefore places every run whole (docs/design.md, section 3.5).
    The cell rule of ``|D|`` has no such property."""
    def runs(pos, items):
        pos, items = np.asarray(pos), np.asarray(items)
        same = pos[1:] * items[:-1] == pos[:-1] * items[1:]
        starts = np.concatenate(([0], np.flatnonzero(~same) + 1))
        return np.diff(np.append(starts, pos.size))

    return (runs(lat.y_a, lat.u_a),
            runs(lat.y_b_rev[:-1][::-1], lat.u_b_rev[:-1][::-1]))


def expand_path(path, k, n_a, n_b):
    """The item path (int8, top first) of a path of the block lattice of ``k`` items
    per block of an ``n_a`` x ``n_b`` lattice."""
    return expand_merged(path, block_sizes(n_a, k), block_sizes(n_b, k))


def expand_merged(path, size_a, size_b):
    """The path (int8, top first) of the lattice that :func:`merged_lattice` merged
    into blocks of ``size_a`` rows and ``size_b`` columns, of a path of the merged one."""
    path = np.asarray(path)
    is_b = path == 1
    nth_a, nth_b = np.cumsum(~is_b) - 1, np.cumsum(is_b) - 1
    sizes = np.where(is_b, np.asarray(size_b)[np.maximum(nth_b, 0)],
                     np.asarray(size_a)[np.maximum(nth_a, 0)])
    return np.repeat(path, sizes).astype(np.int8)


