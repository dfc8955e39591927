"""The outcome of :func:`gpu_xorder.experiments._studies.compare_methods`: every record of
a comparison or study, its summaries over repetitions and its CSV and JSON forms."""

import csv
import dataclasses
import io
from dataclasses import dataclass, field

import numpy as np

from ..utils import _validation as v
from ._experiment import SPLITS, _mean_std, json_label


@dataclass(frozen=True)
class Comparison:
    """Outcome of :func:`compare_methods`: every record, and summaries over repetitions.

    ``seconds`` and ``cpu_seconds`` map each method to its wall and CPU time per
    repetition (all parameters); ``notes`` holds per-repetition facts a method chose
    (``"xorder-kd subsample"``: its k); ``curves`` keeps repetition 0's test scores
    ``(scores, y, groups)`` unadjusted, after xOrder at the largest ``lam`` and after
    the public post-logit (xROC figures), and in the shift study the score samples of
    each setting (histograms); neither timings nor curves are in :meth:`to_dict`.
    """

    data: str
    groups: str
    metric: str
    model: str
    methods: tuple
    study: object
    repeats: int
    test_size: float
    seed: int
    group_labels: tuple
    records: tuple
    seconds: dict
    cpu_seconds: dict = field(default_factory=dict, compare=False)
    notes: dict = field(default_factory=dict)
    curves: dict = field(default_factory=dict, compare=False)

    def summary(self, split="test"):
        """Mean and sample sd over the repetitions, one row per method, setting and
        parameter: ``{"method", "setting", "parameter", "auc": (mean, sd), ...}``."""
        v.check_choice(split, "split", SPLITS)
        keys = []
        for r in self.records:
            key = (r["method"], r["setting"], r["parameter"])
            if r["split"] == split and key not in keys:
                keys.append(key)
        rows = []
        for method, setting, parameter in keys:
            chosen = [r for r in self.records if r["split"] == split
                      and (r["method"], r["setting"], r["parameter"])
                      == (method, setting, parameter)]
            row = {"method": method, "setting": setting, "parameter": parameter}
            for key in ("auc",) + v.METRICS:
                row[key] = _mean_std([r[key] for r in chosen])
            rows.append(row)
        return rows

    def ranges(self, split="test"):
        """The smallest and largest single-repetition value of every quantity, one row
        per method, setting and parameter (as :meth:`summary`): where the mean hides a
        split outcome, the range shows it. ``{"method", ..., "auc": (min, max), ...}``."""
        rows = []
        for row in self.summary(split):
            key = (row["method"], row["setting"], row["parameter"])
            chosen = [r for r in self.records if r["split"] == split
                      and (r["method"], r["setting"], r["parameter"]) == key]
            out = dict(zip(("method", "setting", "parameter"), key))
            for name in ("auc",) + v.METRICS:
                known = [r[name] for r in chosen if r[name] is not None]
                out[name] = (min(known), max(known)) if known else (float("nan"),) * 2
            rows.append(out)
        return rows

    def csv_text(self):
        """The summary of both splits as CSV: one row per split, method, setting and
        parameter; the mean, sd, smallest and largest value over the repetitions per
        quantity (empty where undefined)."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        header = ["data", "groups", "model", "split", "method", "setting", "parameter",
                  "repeats"]
        for key in ("auc",) + v.METRICS:
            header += [f"{key}_mean", f"{key}_sd"]
        for key in ("auc",) + v.METRICS:
            header += [f"{key}_min", f"{key}_max"]
        writer.writerow(header)
        for split in SPLITS:
            for row, spread in zip(self.summary(split), self.ranges(split)):
                cells = [self.data, self.groups, self.model, split, row["method"],
                         _cell(row["setting"]), _cell(row["parameter"]), self.repeats]
                for key in ("auc",) + v.METRICS:
                    cells += [_cell(x) for x in row[key]]
                for key in ("auc",) + v.METRICS:
                    cells += [_cell(x) for x in spread[key]]
                writer.writerow(cells)
        return out.getvalue()

    def to_dict(self):
        """Everything but ``curves`` and ``seconds`` as plain JSON types: the same
        seed gives the same document."""
        return {
            "data": self.data, "groups": self.groups, "metric": self.metric,
            "model": self.model, "methods": list(self.methods), "study": self.study,
            "repeats": self.repeats, "test_size": self.test_size, "seed": self.seed,
            "group_labels": [json_label(g) for g in self.group_labels],
            "parameters": {m: list(dict.fromkeys(r["parameter"] for r in self.records
                                                 if r["method"] == m))
                           for m in self.methods},
            "notes": dict(self.notes),
            "records": [dict(r) for r in self.records],
        }


    def at_setting(self, setting):
        """The comparison of one setting of a study (its records, the setting None, no
        study), so that the tables and figures of a comparison describe it."""
        records = tuple({**r, "setting": None} for r in self.records
                        if r["setting"] == setting)
        return dataclasses.replace(self, study=None, records=records, curves={})

    @classmethod
    def from_dict(cls, doc):
        """The comparison of a :meth:`to_dict` document (a ``records.json``
        experiment): its records and notes, its group labels (numbers stay numbers:
        ``json_label``), no timings or curves."""
        return cls(data=doc["data"], groups=doc["groups"], metric=doc["metric"],
                   model=doc["model"], methods=tuple(doc["methods"]), study=doc["study"],
                   repeats=doc["repeats"], test_size=doc["test_size"], seed=doc["seed"],
                   group_labels=tuple(doc["group_labels"]),
                   records=tuple(dict(r) for r in doc["records"]), seconds={},
                   notes=dict(doc["notes"]))

MSG_MERGE = ("the runs to merge differ in {what}; merge the repetitions of one command "
             "only")
MSG_MERGE_SEEDS = ("the runs' repetitions must be seeds {low} to {high} once each (one "
                   "run of --seed {low} --repeats {n}), got seeds {seeds}")


def merge_repetitions(parts):
    """One comparison of the repetitions of several runs of one command that differ
    only in ``seed`` and ``repeats`` (runs of ``--repeats 1``, say, so that what
    finished is kept): the comparison that one run of the lowest seed and all those
    repetitions would give, repetition ``r`` the split of seed ``seed + r`` (records,
    notes, timings in that order; repetition 0's curves).

    Parameters
    ----------
    parts : sequence of Comparison
        Their seeds and repetitions must cover consecutive seeds once each.

    Returns
    -------
    Comparison
    """
    parts = sorted(parts, key=lambda c: c.seed)
    if not parts:
        raise ValueError(MSG_MERGE_SEEDS.format(low=0, high=0, n=0, seeds=[]))
    first = parts[0]
    for what in ("data", "groups", "metric", "model", "methods", "study", "test_size",
                 "group_labels"):
        if any(getattr(c, what) != getattr(first, what) for c in parts):
            raise ValueError(MSG_MERGE.format(what=what))
    grids = [{(r["method"], r["parameter"], r["setting"]) for r in c.records} for c in parts]
    if any(grid != grids[0] for grid in grids):
        raise ValueError(MSG_MERGE.format(what="parameters or settings"))
    seeds = [c.seed + r for c in parts for r in range(c.repeats)]
    if seeds != list(range(first.seed, first.seed + len(seeds))):
        raise ValueError(MSG_MERGE_SEEDS.format(low=first.seed, high=first.seed
                                                + len(seeds) - 1, n=len(seeds),
                                                seeds=seeds))
    records, notes = [], {}
    seconds = {m: [] for m in first.methods}
    cpu = {m: [] for m in first.methods}
    for c in parts:
        shift = c.seed - first.seed
        records += [{**r, "repeat": r["repeat"] + shift} for r in c.records]
        for key, values in c.notes.items():
            notes.setdefault(key, []).extend(values)
        for m in first.methods:
            seconds[m] += list(c.seconds.get(m, []))
            cpu[m] += list(c.cpu_seconds.get(m, []))
    return dataclasses.replace(first, repeats=len(seeds), records=tuple(records),
                               notes=notes, seconds=seconds, cpu_seconds=cpu)


def _cell(x):
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return ""
    return repr(x) if isinstance(x, float) else str(x)
