"""What the command line's long work costs, for the estimates it prints before the work
(``_output.estimate``): CPU seconds on the 2-core development machine of the audit's
tables, intervals and pictures and of ``paper``'s repetitions (``fit``'s model is
``core._choice.plan``, its ``seconds``). Each rate is a least-squares fit of measured times;
``tests/gpu_xorder/cli/test_estimates.py`` (slow) checks them against measured
times within a factor of two; a machine twice as fast takes half.
"""

import os

#: A bootstrap of ``n`` items in ``k`` groups (2k strata): per item once (sorting,
#: the strata), and per resample a fixed part (its seed, its draws' calls) and the
#: cumulative counts over items x strata, which dominate (the product of the strata's
#: counts, items x strata**2, is BLAS's and small beside them); one BLAS thread (more
#: threads on a busy machine add CPU time that is no faster).
BOOTSTRAP_SECONDS = {"item": 3e-7, "resample": 3e-5, "item_stratum": 2.5e-8}
#: DeLong's intervals: per ordered pair of groups, and per item and group.
DELONG_SECONDS = {"pair": 1.6e-4, "item_group": 1.6e-6}
#: The audit's tables: a value of a pair of groups (xAUC, URF) computed on the two
#: groups' items, a per-group value (PRF) on every item.
TABLE_SECONDS = {"value": 6e-5, "value_item": 6e-8, "group_item": 6e-8}
#: A picture of ``--plot``: drawing and saving the PNG, and per item of the data (the
#: xROC curves and their pointwise bands).
PICTURE_SECONDS = {"picture": 0.2, "item": 1e-5}


def bootstrap_seconds(n, k, n_bootstrap, n_workers=1):
    """Seconds of ``n_bootstrap`` stratified resamples of ``n`` items in ``k`` groups,
    shared among ``n_workers`` processes."""
    per = BOOTSTRAP_SECONDS["resample"] + BOOTSTRAP_SECONDS["item_stratum"] * n * 2 * k
    return BOOTSTRAP_SECONDS["item"] * n + n_bootstrap * per / max(1, n_workers)


def delong_seconds(n, k):
    """Seconds of DeLong's intervals of one score column of ``n`` items in ``k``
    groups."""
    return k * k * DELONG_SECONDS["pair"] + n * k * DELONG_SECONDS["item_group"]


def pair_tables_seconds(n, k):
    """Seconds of the audit's tables of one score column: ``k * (k - 1)`` xAUC values
    and ``k * (k - 1) / 2`` URF values, each on two groups' items (``2n / k`` on
    average), and ``2k`` per-group values."""
    values = 1.5 * k * (k - 1)
    return (values * (TABLE_SECONDS["value"] + TABLE_SECONDS["value_item"] * 2 * n / k)
            + 2 * k * TABLE_SECONDS["group_item"] * n)


def pictures_seconds(n_pictures, n, bands=True):
    """Seconds of ``n_pictures`` pictures of ``n`` items (``bands``: with pointwise
    bands, which take about as long again per item)."""
    return n_pictures * (PICTURE_SECONDS["picture"]
                         + PICTURE_SECONDS["item"] * n * (2 if bands else 1))


def workers(jobs, scheduler=None):
    """Processes ``--jobs`` gives on this machine (a Dask cluster's: unknown, taken
    as one)."""
    if jobs is None or scheduler is not None:
        return 1
    cores = os.cpu_count() or 1
    return cores if jobs < 0 else min(jobs, cores)
