"""Size of a saved ``XOrder`` model and what its maps hold (issue #22, item 3).

Two groups of ``--n`` items each, logistic-model-like probabilities (group 1 shifted
down), labels drawn from the scores; ``XOrder(lam=...)`` fitted on all of them (the DP
on the whole lattice, no subsampling, unless ``--subsample``) and saved. Prints the rows,
the fit's seconds, every map's knots against the group's distinct training scores and
the file's size in bytes, by field. Uses the public API only, so that it measures any
version of the package (``PYTHONPATH`` picks it)::

    PYTHONPATH=. python benchmarks/model_size.py [--n 100000] [--lam 0.5]
"""

import argparse
import json
import os
import tempfile
import time

import numpy as np

from gpu_xorder import XOrder


def data(n, seed=0):
    rng = np.random.default_rng(seed)
    groups = np.repeat([0, 1], n)
    logits = rng.normal(size=2 * n) - 0.6 * groups
    scores = 1 / (1 + np.exp(-logits))
    y = (rng.random(2 * n) < scores).astype(np.int64)
    return scores, y, groups


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="items per group")
    parser.add_argument("--lam", type=float, default=0.5)
    parser.add_argument("--subsample", type=int, default=None)
    args = parser.parse_args()
    scores, y, groups = data(args.n)
    start = time.perf_counter()
    xo = XOrder(lam=args.lam, backend="numpy", solver="paper",
                subsample=args.subsample).fit(scores, y, sensitive_features=groups)
    seconds = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.json")
        xo.save(path)
        size = os.path.getsize(path)
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    print(f"{scores.size} rows, lam {args.lam:g}, subsample {args.subsample}, "
          f"fit {seconds:.1f} s")
    for g, (x, _) in sorted(xo.maps_.items()):
        distinct = np.unique(scores[groups == g]).size
        print(f"group {g}: {x.size} knots for {distinct} distinct training scores")
    fields = {name: len(json.dumps(value, separators=(",", ":")))
              for name, value in doc.items()}
    print(f"model file: {size} bytes; by field: {fields}")


if __name__ == "__main__":
    main()
