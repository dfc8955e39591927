"""Paired differences between two methods of a ``gpu-xorder paper --out DIR`` run.

Every method of a run sees the same splits, so the difference of two methods' test
values within each repetition removes the split-to-split spread that the means' standard
deviations carry. Prints, per data set, the mean ± sd over repetitions of (A - B) for
AUC and the run's disparity, in how many repetitions A is the larger, and the corrected
resampled t interval (Nadeau and Bengio 2003) of the mean difference: the splits'
training sets overlap, so the repetitions are not independent and a plain t interval, or
"A larger in k of 10", overstates the evidence.

    python benchmarks/paired_differences.py DIR/records.json xorder:0.5 post-logit-public

A method is ``NAME`` (its parameter None: unadjusted, post-logit-public) or
``NAME:PARAMETER``. With ``--matched`` instead of two methods it prints the AUC at
matched disparity per repetition of ``tables.md`` (xOrder's trade-off curve minus every
other method's in each repetition, with the same corrected interval) for runs that
predate that table:

    python benchmarks/paired_differences.py DIR/records.json --matched
"""

import argparse
import json

import numpy as np

from gpu_xorder.experiments._matched import LEVEL, corrected_interval, matched_paired_table
from gpu_xorder.experiments._studies import Comparison


def _method(text):
    name, _, parameter = text.partition(":")
    return name, (float(parameter) if parameter else None)


def _values(experiment, method, key):
    """Test value of ``key`` per repetition of ``(name, parameter)`` (no study)."""
    name, parameter = method
    return {r["repeat"]: r[key] for r in experiment["records"]
            if (r["method"], r["parameter"], r["split"], r["setting"])
            == (name, parameter, "test", None)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", help="records.json of gpu-xorder paper --out")
    parser.add_argument("a", type=_method, nargs="?", help="NAME or NAME:PARAMETER")
    parser.add_argument("b", type=_method, nargs="?", help="NAME or NAME:PARAMETER")
    parser.add_argument("--matched", action="store_true",
                        help="AUC at matched disparity per repetition instead of A - B")
    args = parser.parse_args()
    if args.matched == (args.b is not None):
        parser.error("give two methods A B, or --matched alone")
    with open(args.records, encoding="utf-8") as f:
        experiments = json.load(f)["experiments"]
    if args.matched:
        tables = [matched_paired_table(Comparison.from_dict(e)) for e in experiments
                  if e["study"] is None]
        print("\n\n".join(t for t in tables if t))
        return
    label = [f"{n}" + ("" if p is None else f":{p:g}") for n, p in (args.a, args.b)]
    print(f"| data | quantity | {label[0]} - {label[1]} (mean ± sd) | repetitions A > B | "
          f"corrected {LEVEL:.0%} interval | excludes 0 |")
    print("|---|---|---|---|---|---|")
    for e in experiments:
        for key in ("auc", e["metric"]):
            a, b = _values(e, args.a, key), _values(e, args.b, key)
            common = sorted(r for r in a if r in b and None not in (a[r], b[r]))
            if len(common) < 2:
                continue
            d = np.array([a[r] - b[r] for r in common])
            name = {"auc": "AUC", "xauc": "Δ-xAUC", "prf": "Δ-PRF", "urf": "Δ-URF"}[key]
            _, lo, hi = corrected_interval(d, e["test_size"])
            print(f"| {e['data']} | {name} | {d.mean():+.4f} ± {d.std(ddof=1):.4f} | "
                  f"{int((d > 0).sum())} of {d.size} | [{lo:+.4f}, {hi:+.4f}] | "
                  f"{'yes' if lo > 0 or hi < 0 else 'no'} |")


if __name__ == "__main__":
    main()
