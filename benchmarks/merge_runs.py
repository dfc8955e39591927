"""Merge the ``--out`` folders of runs of one ``gpu-xorder paper`` command that differ
only in ``--seed`` and ``--repeats`` (one repetition each, so that what finished is
kept) into the folder one run of all those repetitions would write: records.json,
summary.csv, tables.md, timings.csv and the figures
(:func:`gpu_xorder.experiments._comparison.merge_repetitions`).

    python benchmarks/merge_runs.py OUT/age5-seed0 OUT/age5-seed1 ... --out OUT/age5

The runs' repetitions must be consecutive seeds; the merged records number them from
the lowest (repetition r: the split of seed lowest + r).
"""

import argparse
import csv
import json
import os
import sys

from gpu_xorder.cli._paper import _paper_outputs
from gpu_xorder.experiments._comparison import Comparison, merge_repetitions
from gpu_xorder.io import staged_folder


def read_run(folder):
    """The comparisons of one ``--out`` folder, with the seconds of its timings.csv;
    ``ValueError`` naming the folder where it is not one."""
    try:
        return _read_run(folder)
    except (KeyError, TypeError, ValueError, csv.Error) as exc:
        raise ValueError(f"{folder}: not the --out folder of a gpu-xorder paper run "
                         f"({type(exc).__name__}: {exc})") from None


def _read_run(folder):
    with open(os.path.join(folder, "records.json"), encoding="utf-8") as f:
        docs = json.load(f)["experiments"]
    with open(os.path.join(folder, "timings.csv"), encoding="utf-8") as f:
        timings = list(csv.DictReader(f))
    runs = []
    for doc in docs:
        c = Comparison.from_dict(doc)  # labels read back as written (json_label)
        mine = [t for t in timings if (t["data"], t["groups"], t["model"])
                == (c.data, c.groups, c.model)]
        for m in c.methods:
            rows = sorted((t for t in mine if t["method"] == m),
                          key=lambda t: int(t["repeat"]))
            c.seconds[m] = [float(t["seconds"]) for t in rows]
            c.cpu_seconds[m] = [float(t["cpu_seconds"]) for t in rows]
        runs.append(c)
    return runs


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="--out folders of the runs")
    parser.add_argument("--out", required=True, help="the merged folder (new)")
    parser.add_argument("--no-figures", action="store_true")
    args = parser.parse_args(argv)
    try:
        merged = _merge(args)
    except (OSError, ValueError) as exc:  # one line, exit 2, nothing written
        text = f"{exc.filename}: {exc.strerror}" if isinstance(exc, OSError) \
            and exc.filename and exc.strerror else str(exc)
        print(f"error: {text}", file=sys.stderr)
        sys.exit(2)
    print(f"merged {', '.join(str(c.repeats) for c in merged)} repetitions into {args.out}")


def _merge(args):
    if os.path.exists(args.out):
        raise ValueError(f"{args.out} exists; name a new folder")
    runs = [read_run(folder) for folder in args.runs]
    if len({len(r) for r in runs}) != 1:
        raise ValueError("the runs hold different numbers of experiments")
    merged = [merge_repetitions([r[k] for r in runs]) for k in range(len(runs[0]))]
    document = {"experiments": [c.to_dict() for c in merged]}
    with staged_folder(args.out, set()) as folder:
        _paper_outputs(folder, merged, document, not args.no_figures)
    return merged


if __name__ == "__main__":
    main()
