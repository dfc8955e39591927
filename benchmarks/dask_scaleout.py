"""The paper's repetitions and the audit's bootstrap: one process, loky workers, and a
Dask LocalCluster through joblib's Dask backend.

Run from the source tree::

    PYTHONPATH=. python benchmarks/dask_scaleout.py [--data compas] [--repeats 4]
        [--workers 2] [--bootstrap 4000]

Times ``paper_experiment(data, repeats=...)`` (NumPy backend, the paper's six lams) in
this process, in ``--workers`` loky processes (``n_jobs``) and on a
``distributed.LocalCluster`` of ``--workers`` single-thread worker processes under
``joblib.parallel_backend("dask")`` (the cluster's start is timed apart), then the same
three for ``metrics.confidence_intervals`` (``--bootstrap`` resamples of a
5000-item, two-group data set), checking every time that the results equal those of
one process.
"""

import argparse
import functools
import os
import time

import joblib
import numpy as np

from gpu_xorder import metrics, paper_experiment


def timed(function):
    start = time.perf_counter()
    out = function()
    return out, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="compas")
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--bootstrap", type=int, default=4000)
    args = parser.parse_args()
    from distributed import Client, LocalCluster

    rng = np.random.default_rng(0)
    g = rng.integers(0, 2, 5000)
    y = rng.integers(0, 2, 5000)
    s = y + 0.5 * g + rng.normal(0, 1, 5000)
    jobs = {
        f"paper_experiment({args.data!r}, repeats={args.repeats})": lambda n_jobs: (
            paper_experiment(args.data, repeats=args.repeats, backend="numpy",
                             n_jobs=n_jobs).records),
        f"confidence_intervals, n=5000, {args.bootstrap} resamples": lambda n_jobs: (
            metrics.confidence_intervals(y, s, sensitive_features=g,
                                         n_bootstrap=args.bootstrap, random_state=0,
                                         n_jobs=n_jobs)),
    }
    print(f"{os.cpu_count()} CPU cores")
    for name, job in jobs.items():
        one, t_one = timed(functools.partial(job, 1))
        loky, t_loky = timed(functools.partial(job, args.workers))
        assert loky == one
        (cluster, client), t_start = timed(lambda: (
            lambda c: (c, Client(c)))(LocalCluster(n_workers=args.workers,
                                                   threads_per_worker=1,
                                                   dashboard_address=None)))
        with cluster, client, joblib.parallel_backend("dask"):
            dask, t_dask = timed(functools.partial(job, None))
        assert dask == one
        print(f"{name}: one process {t_one:.1f} s; {args.workers} loky workers "
              f"{t_loky:.1f} s; LocalCluster of {args.workers} workers {t_dask:.1f} s "
              f"(+ {t_start:.1f} s to start it)")


if __name__ == "__main__":
    main()
