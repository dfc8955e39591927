"""A seeded synthetic stand-in for the paper's large eICU data set.

MIMIC-III and eICU need credentialed access, so they cannot ship. This generator draws
a table of the same shape as the paper's large eICU set (127,564 stays, 78 features, a
mortality-like prevalence of about 9%) with age in years, so that xOrder's scale on it
(full lattice against the paper's subsampling) can be measured anywhere. **It is
synthetic**: no patient stands behind any row, and no figure measured on it says
anything about eICU itself.

The features are age in years, 59 correlated "vitals and labs" (Gaussian, a low-rank
covariance of 8 factors plus noise) and 18 binary "diagnosis" indicators; the label is
drawn from a logistic model of the features and of age, with the intercept set for the
prevalence. Older patients die more often and their features shift, so a model's scores
differ between age bands, as in the paper's age groupings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..utils import _params
from ._loaders import MSG_AGE_EMPTY, Dataset, check_age

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

ICU_ROWS = 127_564
ICU_FEATURES = 78
ICU_PREVALENCE = 0.09
N_CONTINUOUS = 59


def make_icu(n_samples: int = ICU_ROWS, *, prevalence: float = ICU_PREVALENCE,
             random_state: int = 0) -> Dataset:
    """A synthetic ICU-mortality table of the paper's large eICU shape (78 features).

    Parameters
    ----------
    n_samples : int, default=127564
        Rows, at least 1 (any integer type).
    prevalence : float, default=0.09
        Share of positive labels (deaths), met to within sampling noise; strictly
        between 0 and 1, any real number type.
    random_state : int, numpy.random.Generator or None, default=0
        Seed (an integer >= 0).

    Returns
    -------
    Dataset
        ``sensitive`` is two age bands (:func:`icu_age_groups`); ``age`` in years.

    Raises
    ------
    TypeError
        On a bool, a non-integer ``n_samples`` or ``random_state``, or a non-number
        ``prevalence``.
    ValueError
        On ``n_samples < 1``, a negative ``random_state`` or a ``prevalence`` outside
        (0, 1).

    Examples
    --------
    >>> data = make_icu(20000)
    >>> data.X.shape, round(float(data.y.mean()), 2)
    ((20000, 78), 0.09)
    """
    n_samples = _params.check("n_samples", n_samples)
    prevalence = _params.check("prevalence", prevalence)
    rng = np.random.default_rng(_params.check("random_state", random_state))
    age = np.clip(rng.normal(63.0, 17.0, n_samples), 18.0, 90.0).round()
    old = (age - 63.0) / 17.0
    loadings = rng.normal(scale=0.6, size=(8, N_CONTINUOUS))
    factors = rng.normal(size=(n_samples, 8))
    continuous = (factors @ loadings + rng.normal(size=(n_samples, N_CONTINUOUS))
                  + 0.4 * old[:, None] * rng.normal(size=N_CONTINUOUS))
    rates = rng.uniform(0.02, 0.3, ICU_FEATURES - 1 - N_CONTINUOUS)
    binary = rng.random((n_samples, rates.size)) < rates * np.exp(0.3 * old)[:, None]
    X = np.column_stack((age, continuous, binary.astype(np.float64)))
    beta = rng.normal(scale=0.15, size=ICU_FEATURES) * (rng.random(ICU_FEATURES) < 0.5)
    beta[0] = 0.0
    logit = X @ beta + 1.5 * old + 0.4 * old**2
    intercept = _intercept(logit, prevalence)
    y = (rng.random(n_samples) < 1.0 / (1.0 + np.exp(-(logit + intercept)))).astype(np.int64)
    names = ("age",) + tuple(f"lab{k}" for k in range(N_CONTINUOUS)) + tuple(
        f"dx{k}" for k in range(rates.size))
    return Dataset(X=X, y=y, sensitive=icu_age_groups(age, 2), age=age,
                   feature_names=names, sensitive_name="age", name="icu-synthetic")


def _intercept(logit, prevalence):
    """The intercept whose mean predicted probability is ``prevalence`` (bisection)."""
    lo, hi = -20.0, 20.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if np.mean(1.0 / (1.0 + np.exp(-(logit + mid)))) < prevalence:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def icu_age_groups(age: ArrayLike, bands: int) -> np.ndarray:
    """Age groups of about equal size, cut at quantiles of ``age``.

    Two bands split at the median, as the paper's binary age attribute.

    Parameters
    ----------
    age : array-like of shape (n,)
        Age in years.
    bands : int
        How many groups, at least 2.

    Returns
    -------
    ndarray of int64, shape (n,)
        The group of every age: 0 the youngest, ``bands - 1`` the oldest.

    Examples
    --------
    >>> icu_age_groups([20, 30, 40, 50, 60, 70], 3).tolist()
    [0, 0, 1, 1, 2, 2]
    """
    bands = _params.check("bands", bands)
    age = check_age(age)
    if age.size == 0:
        raise ValueError(MSG_AGE_EMPTY)
    cuts = np.quantile(age, np.arange(1, bands) / bands)
    return np.searchsorted(cuts, age, side="left").astype(np.int64)
