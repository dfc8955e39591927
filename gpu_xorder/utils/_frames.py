"""pandas in, pandas out, with pandas optional.

pandas is never imported to look at the user's data: an object is a pandas one only when
pandas is already loaded (``sys.modules``). Methods that build a DataFrame from nothing
(``Experiment.to_frame``) import it through :func:`import_pandas`, whose error names the
extra that installs it.
"""

import sys
import warnings

import numpy as np

from ._optional import optional

MSG_PANDAS = "{what} needs pandas: pip install 'gpu-xorder[pandas]'"
MSG_MISALIGNED = (
    "{names} are pandas objects with different indexes; they are used by position, as "
    "scikit-learn does, not aligned by index: align them first (e.g. "
    "y.loc[scores.index]) if rows with the same index label belong together"
)


def import_pandas(what):
    """The pandas module; ImportError naming ``what`` and the extra when missing."""
    return optional("pandas", MSG_PANDAS.format(what=what))


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


#: The package whose frames a warning about the user's call passes over, and the
#: module of the wrapper scikit-learn puts around ``transform`` (``set_output``).
PACKAGE = __name__.split(".")[0]
WRAPPERS = ("sklearn.utils._set_output",)


def warn_misaligned(**named):
    """Warn (``MSG_MISALIGNED``) when the pandas Series and DataFrames among ``named``
    do not all have the same index: the library, as scikit-learn, takes their values by
    position, which silently pairs the wrong rows when a user expected alignment. The
    warning names the line of the user's call (:func:`user_level`), however deep in the
    package the check runs (a fixed count named the wrong line where public functions
    call each other: the caller of the user's call, or a line of the package)."""
    indexed = [(name, obj.index) for name, obj in named.items()
               if is_series(obj) or is_frame(obj)]
    if any(not index.equals(indexed[0][1]) for _, index in indexed[1:]):
        names = [name for name, _ in indexed]
        warnings.warn(MSG_MISALIGNED.format(names=", ".join(names[:-1]) + " and " + names[-1]),
                      UserWarning, stacklevel=user_level())


def user_level():
    """``warnings.warn``'s ``stacklevel``, for a warning made by this function's caller,
    of the first frame outside the package and scikit-learn's wrappers of its methods:
    the user's call."""
    frame, level = sys._getframe(1), 1
    while frame is not None and _passed_over(frame.f_globals.get("__name__", "")):
        frame, level = frame.f_back, level + 1
    return level


def _passed_over(module):
    return module.split(".")[0] == PACKAGE or module in WRAPPERS
