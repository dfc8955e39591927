"""What ``XOrder.transform`` pays for the strict-order guarantee (issue #47, item 4).

Run from the source tree::

    PYTHONPATH=. python benchmarks/transform_cost.py [--n 1000000] [--train 4000]
        [--rounds 5]

Input: ``XOrder`` fitted (NumPy engine, default parameters) on ``--train`` random items
of two groups; ``--n`` new random scores of the same two groups transformed. Three
variants of ``_maps._keep_apart``, each timed once per round in a rotated order (the
fastest round's wall and CPU time of the process reported, and their ratios to the
first variant's fastest, in one run):

- ``no check``: the map's values as they come (the cost before the guarantee);
- ``argsort check``: the check of the guarantee's first version, a stable argsort of
  every group (``_maps._collide`` forced to report a collision, so the repair path runs);
- ``sort check``: the code as it is (two sorts of plain floats; the argsort only where
  distinct scores share a float).

The outputs of the last two are compared bit for bit (and with the first: new random
scores never collide).
"""

import argparse
import os
import time

import numpy as np

from gpu_xorder import XOrder
from gpu_xorder.postprocessing import _maps


def variants():
    keep, collide = _maps._keep_apart, _maps._collide
    return {
        "no check": dict(_keep_apart=lambda values, mapped, x, y: mapped, _collide=collide),
        "argsort check": dict(_keep_apart=keep, _collide=lambda values, mapped: True),
        "sort check": dict(_keep_apart=keep, _collide=collide),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10**6)
    ap.add_argument("--train", type=int, default=4000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    s = rng.random(args.train)
    a = rng.integers(0, 2, args.train)
    y = (rng.random(args.train) < s).astype(np.int64)
    model = XOrder(backend="numpy").fit(s, y, sensitive_features=a)
    new, groups = rng.random(args.n), rng.integers(0, 2, args.n)
    table = variants()
    names = list(table)
    times = {name: [] for name in names}
    outputs = {}
    saved = {key: getattr(_maps, key) for key in ("_keep_apart", "_collide")}
    load = os.getloadavg()[0]
    try:
        for r in range(args.rounds + 1):  # round 0 warms up
            for name in names[r % len(names):] + names[:r % len(names)]:
                for key, value in table[name].items():
                    setattr(_maps, key, value)
                t, c = time.perf_counter(), time.process_time()
                outputs[name] = model.transform(new, sensitive_features=groups)
                if r:
                    times[name].append((time.perf_counter() - t, time.process_time() - c))
    finally:
        for key, value in saved.items():
            setattr(_maps, key, value)
    same = all(np.array_equal(outputs[names[0]], outputs[n]) for n in names[1:])
    base = [min(t[i] for t in times[names[0]]) for i in (0, 1)]
    print(f"transform of {args.n:,} items (two groups), fit on {args.train:,}; "
          f"load {load:.1f} -> {os.getloadavg()[0]:.1f}; outputs identical: {same}")
    print("| variant | wall s (best) | x no check | spread | CPU s (best) | x no check |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in names:
        walls = [w for w, _ in times[name]]
        wall, cpu = min(walls), min(c for _, c in times[name])
        print(f"| {name} | {wall:.4f} | {wall / base[0]:.2f} | {max(walls) / wall:.2f} | "
              f"{cpu:.4f} | {cpu / base[1]:.2f} |")


if __name__ == "__main__":
    main()
