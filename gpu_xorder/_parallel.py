"""Independent jobs in workers (joblib), for the CPU paths: the lattices of a ``lam``
sequence on the NumPy backend, the repetitions of the paper's experiments and chunks of
bootstrap resamples. Results come back in order and equal those of a run in this process.

The workers are those of joblib's active backend: worker processes (loky) by default, a
Dask cluster inside ``with joblib.parallel_backend("dask"):``. As in scikit-learn,
``n_jobs=None`` means one job in this process, unless a ``parallel_backend`` context
says otherwise (the Dask backend: one per worker thread of the cluster).
"""

import itertools
import numbers

MSG_N_JOBS = "n_jobs must be None or a nonzero integer (-1: every CPU core), got {value!r}"


def check_n_jobs(n_jobs):
    """``n_jobs`` as an int or None (left for the active backend); raise ValueError on
    anything else or 0."""
    if n_jobs is None:
        return None
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(MSG_N_JOBS.format(value=n_jobs))
    return int(n_jobs)


def workers(n_jobs, n_items):
    """How many workers ``n_jobs`` gives for ``n_items`` jobs under joblib's active
    backend (None: 1 outside a ``parallel_backend`` context)."""
    if n_jobs == 1 or n_items <= 1:
        return 1
    from joblib import effective_n_jobs

    return max(1, min(effective_n_jobs(n_jobs), n_items))


def map_in_rounds(function, arguments, n_workers, after=None):
    """``[function(*args) for args in arguments]``, in this process when ``n_workers``
    is 1, else in rounds of ``n_workers`` jobs on joblib's active backend (``function``
    and its arguments must pickle); ``after(done)`` is called after every call (one
    process) or every round (workers)."""
    out = []
    for result in imap_in_rounds(function, arguments, n_workers, after):
        out.append(result)
    return out


def imap_in_rounds(function, arguments, n_workers, after=None):
    """:func:`map_in_rounds` as a generator: the results in order, one round of
    ``n_workers`` jobs at a time, ``arguments`` read one round ahead at most (an
    iterator of many jobs is never held whole)."""
    arguments = iter(arguments)
    done = 0
    if n_workers == 1:
        for args in arguments:
            yield function(*args)
            done += 1
            if after is not None:
                after(done)
        return
    from joblib import Parallel, delayed

    with Parallel(n_jobs=n_workers) as parallel:
        while True:
            batch = list(itertools.islice(arguments, n_workers))
            if not batch:
                return
            results = parallel(delayed(function)(*args) for args in batch)
            done += len(results)
            if after is not None:
                after(done)
            yield from results
