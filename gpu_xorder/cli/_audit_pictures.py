"""The pictures of ``gpu-xorder audit --plot``: their names, checked before any work
(:func:`picture_plan`), which of them to draw (:func:`drawn_plan`) and the drawing
(:func:`audit_plots`)."""

import itertools
import re

import numpy as np

from ..utils._pairs import (
    MAX_FOREST_GROUPS,
    MSG_NO_FOREST,
    MSG_PAIRS_DRAWN,
    forest_rows,
    worst_pairs,
)
from ..utils._validation import pair_key

__all__ = ["MAX_FOREST_GROUPS", "MSG_NO_FOREST", "MSG_PAIRS_DRAWN", "audit_plots",
           "drawn_plan", "picture_plan"]

#: The longest picture name in bytes: far below the 255 of common file systems
#: (NAME_MAX; 143 on eCryptfs), so that a folder's path and a suffix fit as well.
PICTURE_NAME_BYTES = 120


def drawn_plan(plan, columns, keys, values, limit):
    """The pictures of ``plan`` to draw: every one but the xROC pictures of each score
    column beyond the ``limit`` pairs of its largest disparity (any metric; pairs
    without one last: ``utils._pairs.worst_pairs``), and the notes that say which
    were drawn where some were left out; ``(plan, notes)``."""
    ordered = [(g, h) for g in keys for h in keys if g != h]
    chosen, notes = {}, []
    for c, column in enumerate(columns):
        xauc = dict(zip(ordered, values[1][c]))
        prf = dict(zip(keys, values[2][c]))
        urf = dict(zip(itertools.combinations(keys, 2), values[3][c]))
        drawn, pairs = worst_pairs(keys, xauc, prf, urf, limit)
        chosen[column] = set(drawn)
        if len(pairs) > limit:
            notes.append(MSG_PAIRS_DRAWN.format(
                column=column, drawn=limit, n=len(pairs), limit=limit,
                option="--plot-pairs",
                pairs=", ".join(pair_key(a, b, " ~ ") for a, b in drawn)))
    if len(keys) > MAX_FOREST_GROUPS and plan and plan[0][1] is None:
        k = len(keys)
        notes.append(MSG_NO_FOREST.format(k=k, rows=forest_rows(k),
                                          most=MAX_FOREST_GROUPS))
        plan = plan[1:]
    return [p for p in plan if p[2] is None or p[2] in chosen[p[1]]], notes


def picture_plan(columns, keys, with_intervals):
    """The pictures ``--plot`` may write, in order, as ``(file name, column, pair)``:
    the intervals of every column (column and pair None), then per score column the
    score distributions per group (pair None) and the xROC curves of every pair of
    groups (drawn where a direction is defined; ``drawn_plan`` chooses among many).
    A name is made of its parts' ASCII letters, digits, dots and dashes (a part with
    none, all of another script say, is named by a hash of it), shortened to
    ``PICTURE_NAME_BYTES`` with a hash of the whole where longer, numbered where two
    would be alike, in any case."""
    import hashlib

    plan, taken = [], set()

    def digest(text):
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:10]

    def safe(part):
        text = str(part)
        return re.sub(r"[^A-Za-z0-9.-]+", "-", text).strip("-.") or f"u{digest(text)}"

    def add(column, pair, *parts):
        stem = "_".join(safe(p) for p in parts)
        if len(stem) + len(".png") > PICTURE_NAME_BYTES:  # ASCII: a byte a character
            whole = "\x00".join(str(p) for p in parts)
            stem = f"{stem[:PICTURE_NAME_BYTES - 20]}-{digest(whole)}"
        name, n = f"{stem}.png", 1
        while name.casefold() in taken:  # labels that differ only in other characters
            n += 1
            name = f"{stem}-{n}.png"
        taken.add(name.casefold())
        plan.append((name, column, pair))

    if with_intervals:
        add(None, None, "intervals")
    for column in columns:
        add(column, None, "scores", column)
        for a, b in itertools.combinations(keys, 2):
            add(column, (a, b), "xroc", column, a, b)
    return plan


def audit_plots(folder, plan, columns, y, groups, intervals, label):
    """Write the pictures of ``plan`` (``picture_plan``) into ``folder``: with
    intervals, every metric and disparity of every score column with its interval
    (forest plot); per score column the score distributions per group and the xROC
    curves of every pair of groups (both directions, with pointwise bands at the
    intervals' level). Returns the file names."""
    import os

    from matplotlib.figure import Figure

    from .. import metrics
    from ..metrics._ranking import defined
    from ..plotting import plot_intervals, plot_score_distributions, plot_xroc
    from ..plotting._plots import drawn, legend_inches

    keys = [g.item() for g in np.unique(groups)]
    level = None if intervals is None else intervals[0].level
    written = []
    for name, column, pair in plan:
        if column is None:
            k = len(keys)
            rows = max(1 + k + k * (k - 1) + k, 3 * (k * (k - 1) // 2 + (k > 2)))
            fig = Figure(figsize=(11, 1.6 + 0.3 * rows * max(1, len(columns) / 2)),
                         layout="constrained")
            left, right = fig.subplots(1, 2)
            sets = dict(zip(columns, intervals))
            plot_intervals(sets, part="metrics", ax=left)
            plot_intervals(sets, part="disparities", ax=right)
        elif pair is None:  # taller by the legend's rows beyond four groups
            fig = Figure(figsize=(6, 4.5 + legend_inches(max(0, 2 * len(keys) - 8), 2)),
                         layout="constrained")
            ax = plot_score_distributions(y, columns[column], sensitive_features=groups,
                                          ax=fig.add_subplot())
            ax.set_title(f"{drawn(column)}: scores by group")
        else:
            s, (a, b) = columns[column], pair
            pairs = [(g, h) for g, h in ((a, b), (b, a))
                     if defined(metrics.xauc, y, s, sensitive_features=groups, g=g, h=h)
                     is not None]
            if not pairs:
                continue
            fig = Figure(figsize=(5.5, 5.2), layout="constrained")
            ax = plot_xroc(y, s, sensitive_features=groups, pairs=pairs, band=level,
                           positive=label, ax=fig.add_subplot())
            ax.set_title(f"{drawn(column)}: xROC curves of {drawn(a)} and {drawn(b)}"
                         + ("" if level is None else f"\n{level:.0%} pointwise bands"))
        fig.savefig(os.path.join(folder, name), dpi=100)
        written.append(name)
    return written
