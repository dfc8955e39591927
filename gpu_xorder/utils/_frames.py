"""pandas in, pandas out, with pandas optional.

pandas is never imported to look at the user's data: an object is a pandas one only when
pandas is already loaded (``sys.modules``). Methods that build a DataFrame from nothing
(``Experiment.to_frame``) import it through :func:`import_pandas`, whose error names the
extra that installs it.
"""

import sys

import numpy as np

MSG_PANDAS = "{what} needs pandas: pip install 'gpu-xorder[pandas]'"


def import_pandas(what):
    """The pandas module; ImportError naming ``what`` and the extra when missing."""
    try:
        import pandas
    except ImportError as exc:
        raise ImportError(MSG_PANDAS.format(what=what)) from exc
    return pandas


def is_series(obj):
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(obj, pd.Series)


def is_frame(obj):
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(obj, pd.DataFrame)


def column_names(table):
    """The column names of a DataFrame as an object array when all are strings (what
    scikit-learn keeps as ``feature_names_in_``), else None."""
    if not is_frame(table):
        return None
    names = list(table.columns)
    if not names or not all(isinstance(name, str) for name in names):
        return None
    return np.asarray(names, dtype=object)


def like(values, original):
    """``values`` (a float vector) in the form of ``original``, a pandas Series (its
    index and name) or one-column DataFrame (its index and column); None otherwise."""
    if is_series(original):
        return type(original)(values, index=original.index, name=original.name)
    if is_frame(original):
        return type(original)({original.columns[0]: values}, index=original.index)
    return None
