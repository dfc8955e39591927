"""Loaders for the four benchmark data sets shipped with the package.

The files are gzip-compressed, one-hot encoded CSVs (see ``README.md`` next to this
module for provenance, licences and columns). Each file is parsed once per process
(``functools.lru_cache``) into a read-only float64 table; every loader call then builds
fresh arrays from it by fancy indexing, so a caller may modify what it gets without
affecting later calls. ``as_frame=True`` gives the same data as pandas objects, the
protected attribute as named categories.
"""

from __future__ import annotations

import csv
import functools
import gzip
import io
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING

import numpy as np

from ..utils import _frames

if TYPE_CHECKING:
    import pandas as pd
    from numpy.typing import ArrayLike

DATASETS = ("adult", "compas", "german", "framingham")

MSG_UNKNOWN_DATASET = "unknown data set {name!r}; expected one of {choices}"
MSG_AGE_NOT_1D = "age must be one-dimensional, got shape {shape}"
MSG_AGE_NAN = "age contains NaN values"
MSG_AGE_EMPTY = "age is empty: age groups cut at its quantiles need at least one age"

# Per data set: label column, the paper's default sensitive column, the column holding
# age in years (None when the file has none), and the columns that are not features.
# Sensitive attributes stay among the features, as in the paper's public code; the
# derived combinations (``race-sex``, ``sex-race``, ``sex-age``) leak them and are
# dropped, as is Framingham's row identifier.
_SPECS = {
    "adult": ("income-per-year", "race", "age", ("race-sex",)),
    "compas": ("two_year_recid", "race", "age", ("sex-race",)),
    "german": ("credit", "age", None, ("sex-age",)),
    "framingham": ("chdfate", "sex", "age", ("id",)),
}
#: The protected attribute's codes and their names (``as_frame=True``), in code order.
GROUP_NAMES = {
    "adult": {0: "non-white", 1: "white"},
    "compas": {0: "non-white", 1: "white"},
    "german": {0: "young", 1: "adult"},
    "framingham": {1: "male", 2: "female"},
    "icu-synthetic": {0: "younger half", 1: "older half"},  # datasets.make_icu
}
#: What a positive label of each data set means (README.md beside the data).
POSITIVE_MEANS = {
    "adult": "income > 50K",
    "compas": "re-offended within two years",
    "german": "bad credit",
    "framingham": "coronary heart disease",
    "icu-synthetic": "died in hospital (synthetic)",
}
#: Name of ``y`` with ``as_frame=True``: the label column, or what German's label means.
_TARGET_NAMES = {"german": "bad_credit"}
#: The bands of :func:`age_bands`, 0, 1 and 2, as a pandas Series names them.
AGE_BAND_NAMES = ("age <= 25", "25 < age <= 40", "age > 40")


@dataclass(frozen=True, eq=False)
class Dataset:
    """A benchmark data set: features, binary labels and the protected attribute.

    Attributes
    ----------
    X : ndarray of float64, shape (n_samples, n_features), or DataFrame
        Features, sensitive attribute columns included (the label, derived leak columns
        and identifiers excluded). ``as_frame=True``: a DataFrame, columns
        ``feature_names``.
    y : ndarray of int64, shape (n_samples,), or Series
        Binary label, 1 = the outcome the score ranks high (see the data set's README).
        ``as_frame=True``: a Series named after the label.
    sensitive : ndarray of int64, shape (n_samples,), or Series
        The paper's default protected attribute for this data set. ``as_frame=True``: a
        categorical Series named ``sensitive_name`` whose categories name the groups
        (``GROUP_NAMES``: "non-white"/"white", "young"/"adult", "male"/"female").
    age : ndarray of float64, Series or None
        Age in years, where the file records it; None otherwise (German).
    feature_names : tuple of str
        Names of the columns of ``X``.
    sensitive_name : str
        Name of the column ``sensitive`` was taken from.
    name : str
        Name of the data set.
    """

    X: np.ndarray
    y: np.ndarray
    sensitive: np.ndarray
    age: np.ndarray | None
    feature_names: tuple
    sensitive_name: str
    name: str

    def __repr__(self):
        n, p = self.X.shape
        return (
            f"Dataset(name={self.name!r}, n_samples={n}, n_features={p}, "
            f"sensitive_name={self.sensitive_name!r})"
        )


@functools.lru_cache(maxsize=None)
def _read_table(name):
    """Parse ``data/<name>.csv.gz`` once: (header, read-only float64 table).

    Rows with an empty cell are dropped (only Framingham has any).
    """
    raw = resources.files(__package__).joinpath("data", f"{name}.csv.gz").read_bytes()
    text = gzip.decompress(raw).decode("utf-8")
    reader = csv.reader(io.StringIO(text, newline=""))
    header = tuple(next(reader))
    rows = [row for row in reader if row and all(cell.strip() for cell in row)]
    table = np.array(rows, dtype=np.float64).reshape(len(rows), len(header))
    table.flags.writeable = False
    return header, table


def _load(name, as_frame=False):
    label, sensitive, age, dropped = _SPECS[name]
    header, table = _read_table(name)
    column = {col: k for k, col in enumerate(header)}
    features = [k for k, col in enumerate(header) if col != label and col not in dropped]
    y = table[:, column[label]]
    if name == "german":
        y = y == 2  # credit: 1 = good, 2 = bad; the positive class is bad credit
    data = Dataset(
        X=table[:, features],
        y=y.astype(np.int64),
        sensitive=table[:, column[sensitive]].astype(np.int64),
        age=None if age is None else table[:, column[age]].copy(),
        feature_names=tuple(header[k] for k in features),
        sensitive_name=sensitive,
        name=name,
    )
    return _as_frame(data, _TARGET_NAMES.get(name, label)) if as_frame else data


def _as_frame(data, target):
    """``data`` with pandas objects: X a DataFrame, y a Series, the protected attribute
    a categorical Series of the group names, age a Series."""
    pd = _frames.import_pandas("as_frame=True")
    names = GROUP_NAMES[data.name]
    codes = np.searchsorted(np.array(list(names)), data.sensitive)
    sensitive = pd.Series(pd.Categorical.from_codes(codes, list(names.values())),
                          name=data.sensitive_name)
    return Dataset(
        X=pd.DataFrame(data.X, columns=list(data.feature_names)),
        y=pd.Series(data.y, name=target),
        sensitive=sensitive,
        age=None if data.age is None else pd.Series(data.age, name="age"),
        feature_names=data.feature_names,
        sensitive_name=data.sensitive_name,
        name=data.name,
    )


def load_adult(*, as_frame: bool = False) -> Dataset:
    """UCI Adult: income above 50K, sensitive attribute race (1 = white).

    30,162 rows and 98 features (``race-sex`` dropped).

    Parameters
    ----------
    as_frame : bool, default=False
        Return pandas objects (a DataFrame ``X``, Series ``y`` and a categorical
        ``sensitive`` naming the groups) instead of NumPy arrays.

    Returns
    -------
    Dataset
        The features, labels, protected attribute and their names.

    Examples
    --------
    >>> from gpu_xorder.datasets import load_adult
    >>> data = load_adult()
    >>> data.X.shape
    (30162, 98)
    """
    return _load("adult", as_frame)


def load_compas(*, as_frame: bool = False) -> Dataset:
    """ProPublica COMPAS: two-year recidivism, sensitive attribute race (1 = white).

    6,167 rows and 401 features (``sex-race`` dropped).

    Parameters
    ----------
    as_frame : bool, default=False
        Return pandas objects (a DataFrame ``X``, Series ``y`` and a categorical
        ``sensitive`` naming the groups) instead of NumPy arrays.

    Returns
    -------
    Dataset
        The features, labels, protected attribute and their names.

    Examples
    --------
    >>> from gpu_xorder.datasets import load_compas
    >>> data = load_compas()
    >>> data.X.shape, data.sensitive_name
    ((6167, 401), 'race')
    """
    return _load("compas", as_frame)


def load_german(*, as_frame: bool = False) -> Dataset:
    """UCI German credit: bad credit (1), sensitive attribute age (1 = adult, 0 = young).

    1,000 rows and 58 features (``sex-age`` dropped). The file stores age only
    binarised, so ``age`` is None.

    Parameters
    ----------
    as_frame : bool, default=False
        Return pandas objects (a DataFrame ``X``, Series ``y`` and a categorical
        ``sensitive`` naming the groups) instead of NumPy arrays.

    Returns
    -------
    Dataset
        The features, labels, protected attribute and their names.

    Examples
    --------
    >>> from gpu_xorder.datasets import load_german
    >>> data = load_german()
    >>> data.X.shape, int(data.y.sum()), data.age is None
    ((1000, 58), 300, True)
    """
    return _load("german", as_frame)


def load_framingham(*, as_frame: bool = False) -> Dataset:
    """Framingham heart study extract: coronary heart disease, sensitive attribute sex.

    4,658 rows (the 41 rows with an empty cell dropped) and 8 features (``id``
    dropped). ``sensitive`` keeps the file's coding: 1 = male, 2 = female.

    Parameters
    ----------
    as_frame : bool, default=False
        Return pandas objects (a DataFrame ``X``, Series ``y`` and a categorical
        ``sensitive`` naming the groups) instead of NumPy arrays.

    Returns
    -------
    Dataset
        The features, labels, protected attribute and their names.

    Examples
    --------
    >>> from gpu_xorder.datasets import load_framingham
    >>> data = load_framingham()
    >>> data.X.shape, sorted(set(data.sensitive.tolist()))
    ((4658, 8), [1, 2])
    """
    return _load("framingham", as_frame)


def load_dataset(name: str, *, as_frame: bool = False) -> Dataset:
    """Load a bundled data set by name.

    Parameters
    ----------
    name : {"adult", "compas", "german", "framingham"}
        The data set (:func:`load_adult`, :func:`load_compas`, :func:`load_german`,
        :func:`load_framingham`).
    as_frame : bool, default=False
        Return pandas objects instead of NumPy arrays.

    Returns
    -------
    Dataset
        The features, labels, protected attribute and their names.

    Examples
    --------
    >>> from gpu_xorder.datasets import load_dataset
    >>> load_dataset("german").name
    'german'
    """
    if not isinstance(name, str) or name not in DATASETS:
        raise ValueError(MSG_UNKNOWN_DATASET.format(name=name, choices=DATASETS))
    return _load(name, as_frame)


def check_age(age):
    """Ages in years as a float64 vector without NaN (``ValueError`` otherwise)."""
    arr = np.asarray(age, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(MSG_AGE_NOT_1D.format(shape=arr.shape))
    if np.isnan(arr).any():
        raise ValueError(MSG_AGE_NAN)
    return arr


def age_bands(age: ArrayLike) -> np.ndarray | pd.Series:
    """The paper's three age bands: 0 for age <= 25, 1 for 25 < age <= 40, 2 above 40.

    Parameters
    ----------
    age : array-like of shape (n_samples,)
        Age in years.

    Returns
    -------
    ndarray of int64, shape (n_samples,), or Series
        For a pandas Series ``age`` (as ``as_frame=True`` loads it), a categorical
        Series ``age_band`` with its index and the names ``AGE_BAND_NAMES`` ("age <= 25",
        "25 < age <= 40", "age > 40").

    Examples
    --------
    >>> from gpu_xorder.datasets import age_bands
    >>> age_bands([18, 25, 25.5, 40, 41]).tolist()
    [0, 0, 1, 1, 2]
    """
    arr = check_age(age)
    bands = np.searchsorted(np.array([25.0, 40.0]), arr, side="left").astype(np.int64)
    if _frames.is_series(age):
        pd = _frames.import_pandas("age_bands")
        return pd.Series(pd.Categorical.from_codes(bands, list(AGE_BAND_NAMES)),
                         index=age.index, name="age_band")
    return bands
