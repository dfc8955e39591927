"""Input checks shared by the metrics, the DP front end and the estimator.

Every check copies nothing the caller owns into a writable alias: arrays are converted
with ``np.asarray(..., dtype=...)`` and then treated as read-only. Error messages are
module constants so that tests can match them.
"""

import decimal
import fractions
import math
import numbers
import re
import warnings

import numpy as np

# the group encoding and pair keys live in _groups; callers reach them here (re-exported)
from ._frames import user_level
from ._groups import (
    INTERSECTION_SEP as INTERSECTION_SEP,
)
from ._groups import (
    MAX_LABEL_CHARS as MAX_LABEL_CHARS,
)
from ._groups import (
    MSG_GROUPS_MIXED as MSG_GROUPS_MIXED,
)
from ._groups import (
    MSG_GROUPS_NDIM as MSG_GROUPS_NDIM,
)
from ._groups import (
    MSG_GROUPS_NULL as MSG_GROUPS_NULL,
)
from ._groups import (
    MSG_GROUPS_RAGGED as MSG_GROUPS_RAGGED,
)
from ._groups import (
    MSG_GROUPS_TRANSPOSED as MSG_GROUPS_TRANSPOSED,
)
from ._groups import (
    MSG_INTERSECTION_CLASH as MSG_INTERSECTION_CLASH,
)
from ._groups import (
    MSG_LENGTH as MSG_LENGTH,
)
from ._groups import (
    MSG_LONG_LABEL as MSG_LONG_LABEL,
)
from ._groups import (
    PAIR_SEPS as PAIR_SEPS,
)
from ._groups import (
    encode_groups as encode_groups,
)
from ._groups import (
    escape_label as escape_label,
)
from ._groups import (
    intersect as intersect,
)
from ._groups import (
    pair_key as pair_key,
)
from ._groups import (
    split_pair_key as split_pair_key,
)
from ._metrics import METRIC_NAMES
from ._metrics import METRICS as METRICS_BY_NAME

#: The metrics (``_metrics.METRICS``, the registry).
METRICS = METRIC_NAMES
DISPARITIES = ("absolute", "signed")
BACKENDS = ("auto", "numpy", "numba", "cupy")
METHODS = ("auto", "kd", "iterative", "best")
SOLVERS = ("auto", "paper", "lagrangian", "exact")
#: Which of its estimator's methods ``FairRanker`` scores with.
RESPONSE_METHODS = ("auto", "predict_proba", "decision_function")
#: What a high score does to a person (docs/design.md, section 2).
HIGH_SCORES = ("favourable", "harmful")
#: The default margin of a "parity within delta" finding (``metrics._findings``; here so
#: that the command line's parser shows it without importing the metrics).
DEFAULT_DELTA = 0.05

MSG_NOT_1D = "{name} must be one-dimensional, got shape {shape}"
MSG_EMPTY = "{name} is empty"
MSG_NOT_NUMERIC = "{name} must be numeric, got dtype {dtype}"
MSG_NOT_FINITE = "{name} contains NaN or infinite values (first at index {index})"
MSG_LABELS = "y must be binary with values 0 and 1, got {values}"
MSG_Y_NONE = "xOrder requires y to be passed, but the target y is None (give the 0/1 labels)"
MSG_ONE_GROUP = "need at least two groups, got one ({label!r})"
MSG_UNKNOWN = "unknown {name} {value!r}; expected one of {choices}"
MSG_LAM = "lam must be a finite number >= 0, got {value!r}"
#: The largest ``lam``: a larger weight times a disparity overflows float64 in the exact
#: solver's state values (lam=1e308 ran on for minutes at 48 items).
MAX_LAM = 1e300
MSG_LAM_HUGE = ("lam must be at most {limit:g} (a larger weight overflows float64 in the "
                "solvers' sums), got {value!r}")


class BeyondLimitError(ValueError):
    """A value of the right kind above a limit the parameter's plain description does
    not state (``lam`` above ``MAX_LAM``): a model file quotes its message as it is."""
MSG_INEXACT_SCORES = (
    "{name} hold integers beyond 2**53 that float64 cannot represent exactly (first at "
    "index {index}: {value}); they are rounded, so nearly equal scores may tie"
)
MSG_LAM_EMPTY = "lam is an empty sequence"
MSG_LAM_NDIM = (
    "lam must be a number or a one-dimensional sequence of numbers, got an array of "
    "shape {shape}"
)
MSG_BOOL_NUMBER = "{name} must be a number, not the bool {value!r}"
MSG_GROUP_LACKS = "group {label!r} has no {what}, which metric {metric!r} needs"
MSG_UNKNOWN_GROUP = "group {label!r} does not occur in the groups passed"
MSG_COUNT = "{name} must be None or an integer >= 1, got {value!r}"
MSG_VALIDATION = (
    "validation must be None, a share in (0, 1) or (scores, y, sensitive_features), "
    "got {value!r}"
)
MSG_N_SAMPLES = "n_samples must be an integer >= 1 (rows to draw), got {value!r}"
MSG_PREVALENCE = "prevalence must be a number strictly between 0 and 1, got {value!r}"
MSG_BANDS = "bands must be an integer >= 2, got {value!r}"
MSG_MAX_POINTS = "max_points must be an integer >= 2 (thresholds drawn), got {value!r}"
MSG_TEST_SIZE = "test_size must lie strictly between 0 and 1, got {value!r}"
MSG_LEVEL = "level must be a number strictly between 0 and 1, got {value!r}"
MSG_RANDOM_STATE = ("random_state must be None, an integer >= 0 or a numpy Generator, "
                    "got {value!r}")
MSG_MAX_DISPARITY = "max_disparity must be None or a number in [0, 1], got {value!r}"
MSG_LAM_AND_CONSTRAINT = (
    "give lam or max_disparity, not both: max_disparity chooses the weight itself "
    "(leave lam at 0)"
)
MSG_MEMORY_LIMIT = (
    "memory_limit must be None, a positive integer (bytes) or a size such as '2GB' or "
    "'512MiB', got {value!r}"
)
MSG_MEMORY_SIZE = (
    "{value!r} is not a memory size: give bytes (1000000000, 1e9) or a number with a unit "
    "({units})"
)
MSG_GROUPS_TWICE = "give sensitive_features or its deprecated alias groups, not both"
MSG_GROUPS_MISSING = "fair_order() missing the required argument 'sensitive_features'"
MSG_GROUPS_DEPRECATED = (
    "fair_order(groups=...) is deprecated; pass sensitive_features=... (the name XOrder "
    "uses) or the groups as the third positional argument"
)
MSG_SAMPLE_WEIGHT = (
    "sample_weight must be None or {n} finite numbers >= 0 (one per item), got {what}"
)
MSG_SAMPLE_WEIGHT_ZERO = "sample_weight is zero for every item"
MSG_TOO_MANY = (
    "{n} items is more than xOrder supports ({limit}): pair counts must stay exact in "
    "float64 (below 2**53); learn the order on a subsample instead"
)

#: Units of memory sizes (case ignored): decimal (kB = 1000 bytes) and binary (KiB =
#: 1024 bytes).
MEMORY_UNITS = {"b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
                "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
_MEMORY_SIZE = re.compile(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([a-zA-Z]*)\s*")

# Twice the within- and cross-group pair counts reach n**2 / 2, which must stay below
# 2**53 for the DP's float64 arithmetic on counters to be exact.
MAX_ITEMS = 2**26


MSG_FLAG = "{name} must be True or False, got {value!r}"


def check_flag(value, name):
    """``value`` as a bool when it is one (Python or NumPy); anything else, a string
    such as ``"False"`` or a number included, a ``TypeError`` naming ``name`` (its
    truth would be taken otherwise: ``"False"`` is true)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(MSG_FLAG.format(name=name, value=value))
    return bool(value)


def check_choice(value, name, choices):
    """Return ``value`` if it is one of ``choices``, else raise ValueError naming it."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(MSG_UNKNOWN.format(name=name, value=value, choices=choices))
    return value


def check_scores(scores, name="scores"):
    """Return scores as a float64 1-D array; reject NaN, inf, non-numeric, empty input."""
    arr = np.asarray(scores)
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_
    ):
        raise TypeError(MSG_NOT_NUMERIC.format(name=name, dtype=arr.dtype))
    if np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(MSG_NOT_NUMERIC.format(name=name, dtype=arr.dtype))
    if arr.ndim != 1:
        raise ValueError(MSG_NOT_1D.format(name=name, shape=arr.shape))
    if arr.size == 0:
        raise ValueError(MSG_EMPTY.format(name=name))
    if np.issubdtype(arr.dtype, np.integer):
        _warn_inexact(arr, name)
    arr = arr.astype(np.float64, copy=False)
    finite = np.isfinite(arr)
    if not finite.all():
        raise ValueError(MSG_NOT_FINITE.format(name=name, index=int(np.argmin(finite))))
    return arr


def _warn_inexact(arr, name):
    """Warn when integer scores lose digits in float64 (beyond 2**53)."""
    big = np.flatnonzero(arr > 2**53) if arr.dtype.kind == "u" else np.flatnonzero(
        (arr > 2**53) | (arr < -(2**53)))
    if big.size == 0:
        return
    values = arr[big]
    as_float = values.astype(np.float64)
    limit = 2.0**64 if arr.dtype.kind == "u" else 2.0**63
    in_range = (as_float < limit) & (as_float >= -limit)
    back = np.where(in_range, as_float, 0.0).astype(arr.dtype)
    inexact = ~in_range | (back != values)
    if inexact.any():
        first = int(np.argmax(inexact))
        warnings.warn(MSG_INEXACT_SCORES.format(name=name, index=int(big[first]),
                                                value=int(values[first])),
                      stacklevel=user_level())


def check_size(n):
    """Raise ValueError when ``n`` items are too many for exact pair counts."""
    if n > MAX_ITEMS:
        raise ValueError(MSG_TOO_MANY.format(n=n, limit=MAX_ITEMS))


def is_number(value):
    """Whether ``value`` is one number (of any type: Python, ``Decimal``, ``Fraction``, a
    NumPy scalar or 0-d array), as opposed to a sequence of them."""
    return isinstance(value, (numbers.Number, decimal.Decimal, np.generic)) or (
        isinstance(value, np.ndarray) and value.ndim == 0)


def _scalar(value):
    """The element of a 0-d array; any other value as it is."""
    return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value


def as_real(value, name, message):
    """``value`` as a float when it is one real number: an int, float, ``Fraction``,
    ``Decimal``, NumPy integer or floating scalar or 0-d array. A bool (Python or NumPy)
    raises ``TypeError`` (``MSG_BOOL_NUMBER``, naming ``name``); anything else (None,
    text, a complex number, a sequence) ``TypeError(message.format(value=value))``.
    Range and finiteness are the caller's: a NaN (a signalling ``Decimal`` one too)
    comes back as NaN, a number beyond float64 as an infinity.

    This is the one conversion of every real parameter of the parameter table
    (``utils._params``): no raw ``Decimal`` or array reaches arithmetic."""
    value = _scalar(value)
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(MSG_BOOL_NUMBER.format(name=name, value=value))
    if isinstance(value, (numbers.Real, decimal.Decimal)):
        try:
            return float(value)
        except OverflowError:  # an int or Fraction beyond float64: out of any range
            return math.inf if value > 0 else -math.inf
        except ValueError:  # Decimal("sNaN") refuses float()
            return math.nan
    raise TypeError(message.format(value=value))


def check_fraction(value, name, message, closed):
    """``value`` (any real number type, :func:`as_real`) as a float in [0, 1]
    (``closed``) or (0, 1); ``ValueError(message)`` outside, NaN included."""
    number = as_real(value, name, message)
    inside = 0.0 <= number <= 1.0 if closed else 0.0 < number < 1.0
    if not inside:
        raise ValueError(message.format(value=value))
    return number


def check_max_disparity(value):
    """Return ``value`` as a float in [0, 1], or None."""
    if value is None:
        return None
    return check_fraction(value, "max_disparity", MSG_MAX_DISPARITY, closed=True)


def check_validation_value(value):
    """``XOrder``'s ``validation``: None, a share in (0, 1) of any real number type (a
    float) or held-out data ``(scores, y, sensitive_features)`` (a tuple)."""
    if value is None:
        return None
    if is_number(value):
        return check_fraction(value, "validation", MSG_VALIDATION, closed=False)
    if not (isinstance(value, (tuple, list)) and len(value) == 3):
        raise TypeError(MSG_VALIDATION.format(value=type(value).__name__))
    return tuple(value)


def check_count(value, name, minimum=1, message=MSG_COUNT):
    """Return ``value`` as an int >= ``minimum`` (a count such as ``subsample``): any
    integer type (Python, NumPy, a 0-d integer array); a bool or a non-integer is a
    TypeError, a smaller count a ValueError, each ``message`` naming ``name``."""
    value = _scalar(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(message.format(name=name, value=value))
    if value < minimum:
        raise ValueError(message.format(name=name, value=value))
    return int(value)


def check_random_state(value):
    """``value`` as a seed ``random_state``: None, a ``numpy.random.Generator`` (both
    returned as they are) or an integer >= 0 of any integer type (an int; a bool or
    another type is a TypeError, a negative integer a ValueError)."""
    if value is None or isinstance(value, np.random.Generator):
        return value
    return check_count(value, "random_state", 0, MSG_RANDOM_STATE)


def check_memory_limit(value):
    """Return ``value`` as None or a positive int of bytes; a string is a size
    (``parse_memory_size``). Raise TypeError/ValueError."""
    value = _scalar(value)
    if value is None:
        return None
    if isinstance(value, str):
        return parse_memory_size(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(MSG_MEMORY_LIMIT.format(value=value))
    if value <= 0:
        raise ValueError(MSG_MEMORY_LIMIT.format(value=value))
    return int(value)


def parse_memory_size(text):
    """Bytes in ``text``: ``"2GB"`` (2 * 10**9), ``"512MiB"`` (512 * 2**20), ``"1e9"``,
    ``"1000000"``; units as ``MEMORY_UNITS``, case ignored. A fraction of a byte is
    dropped; the result is at least 1."""
    match = _MEMORY_SIZE.fullmatch(text)
    unit = match and MEMORY_UNITS.get(match.group(2).lower() or "b")
    if not unit:
        raise ValueError(MSG_MEMORY_SIZE.format(value=text, units=", ".join(
            ("B", "kB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB"))))
    size = math.floor(fractions.Fraction(match.group(1)) * unit)
    if size < 1:
        raise ValueError(MSG_MEMORY_LIMIT.format(value=text))
    return size


def sensitive_features_argument(sensitive_features, groups):
    """``fair_order``'s groups, given as ``sensitive_features`` or by the deprecated
    keyword ``groups`` (a FutureWarning)."""
    if groups is not None:
        if sensitive_features is not None:
            raise TypeError(MSG_GROUPS_TWICE)
        warnings.warn(MSG_GROUPS_DEPRECATED, FutureWarning, stacklevel=3)
        return groups
    if sensitive_features is None:
        raise TypeError(MSG_GROUPS_MISSING)
    return sensitive_features


def check_labels(y, n):
    """Return labels as an int64 0/1 array of length ``n``."""
    if y is None:
        raise ValueError(MSG_Y_NONE)
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(MSG_NOT_1D.format(name="y", shape=arr.shape))
    if arr.shape[0] != n:
        raise ValueError(MSG_LENGTH.format(name="y", got=arr.shape[0], expected=n))
    if arr.dtype == np.bool_:
        return arr.astype(np.int64)
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number):
        raise TypeError(MSG_NOT_NUMERIC.format(name="y", dtype=arr.dtype))
    if not ((arr == 0) | (arr == 1)).all():  # no sort unless there is an error to name
        values = np.unique(arr)
        shown = values[:5].tolist()
        more = ["..."] if values.size > 5 else []
        raise ValueError(MSG_LABELS.format(values=shown + more))
    return arr.astype(np.int64)


def check_sample_weight(sample_weight, n):
    """Return None or ``sample_weight`` as a float64 vector of ``n`` finite values >= 0.

    Weights held as Python objects (``Decimal``, ``Fraction``, ints beyond int64) are
    converted one by one as every real number is (:func:`as_real`); a bool among them
    is a TypeError. Their scale is the metrics' business (``metrics._counts.unit``)."""
    if sample_weight is None:
        return None
    arr = np.asarray(sample_weight)
    what = MSG_SAMPLE_WEIGHT.format(n=n, what="{value!r} among them")
    if isinstance(sample_weight, (list, tuple)) and arr.dtype.kind in "iuf":
        for item in sample_weight:  # NumPy made numbers of them: no bool among them?
            if isinstance(item, (bool, np.bool_)):
                raise TypeError(what.format(value=item))
    if arr.dtype == object and arr.ndim == 1:
        arr = np.array([as_real(x, "sample_weight", what) for x in arr.tolist()],
                       dtype=np.float64)
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.number) \
            or np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(MSG_SAMPLE_WEIGHT.format(n=n, what=f"dtype {arr.dtype}"))
    if arr.shape != (n,):
        raise ValueError(MSG_SAMPLE_WEIGHT.format(n=n, what=f"shape {arr.shape}"))
    arr = arr.astype(np.float64)
    bad = ~np.isfinite(arr) | (arr < 0)
    if bad.any():
        raise ValueError(MSG_SAMPLE_WEIGHT.format(
            n=n, what=f"{arr[bad][0].item()!r} at index {int(np.argmax(bad))}"))
    if n and not arr.any():
        raise ValueError(MSG_SAMPLE_WEIGHT_ZERO)
    return arr


def check_n_groups(labels, minimum=2):
    """Raise ValueError naming the one group where the sorted group ``labels`` are fewer
    than ``minimum`` (labels of any kind: an object array holds Python values, which
    have no ``.item()``)."""
    if labels.size < minimum:
        raise ValueError(MSG_ONE_GROUP.format(label=labels.tolist()[0]))


def group_position(labels, label):
    """Index of ``label`` among the sorted group labels."""
    hits = np.flatnonzero(labels == label)
    if hits.size == 0:
        raise ValueError(MSG_UNKNOWN_GROUP.format(label=label))
    return int(hits[0])


def check_lam(lam):
    """Return ``(values, is_batch)``: lam as a float64 array and whether it was a sequence."""
    if lam is None or isinstance(lam, (str, bytes)):
        raise TypeError(MSG_LAM.format(value=lam))
    if is_number(lam):  # Decimal, Fraction, NumPy scalars and 0-d arrays included
        values, batch = np.array([as_real(lam, "lam", MSG_LAM)]), False
    else:
        try:
            arr = np.asarray(lam)
        except ValueError:  # ragged
            raise TypeError(MSG_LAM.format(value=lam)) from None
        if arr.ndim == 0:  # neither a number nor a sequence (a dict, a set, ...)
            raise TypeError(MSG_LAM.format(value=lam))
        if arr.ndim != 1:
            raise ValueError(MSG_LAM_NDIM.format(shape=arr.shape))
        if arr.size == 0:
            raise ValueError(MSG_LAM_EMPTY)
        if arr.dtype.kind in "iuf":  # NumPy made numbers of them: no bool among them?
            if not isinstance(lam, np.ndarray):
                for item in lam:
                    if isinstance(item, (bool, np.bool_)):
                        raise TypeError(MSG_BOOL_NUMBER.format(name="lam", value=item))
            values = arr.astype(np.float64)
        elif arr.dtype.kind in "bO":  # bools, or Decimals, Fractions, ...
            values = np.array([as_real(item, "lam", MSG_LAM) for item in arr.tolist()])
        else:
            raise TypeError(MSG_LAM.format(value=lam))
        batch = True
    bad = ~np.isfinite(values) | (values < 0)
    if bad.any():
        raise ValueError(MSG_LAM.format(value=values[bad][0].item()))
    if (values > MAX_LAM).any():
        raise BeyondLimitError(MSG_LAM_HUGE.format(limit=MAX_LAM,
                                             value=values[values > MAX_LAM][0].item()))
    return values, batch


def check_supports(labels, index, y, metric):
    """Raise if some group lacks the positives/negatives that ``metric`` divides by.

    xAUC needs positives and negatives in every group (xAUC(g, h) divides by the
    positives of g and the negatives of h); PRF needs positives in every group and
    negatives somewhere; URF needs nothing beyond non-empty groups. The AUC part of the
    objective needs positives and negatives overall.
    """
    k = labels.size
    pos = np.bincount(index, weights=y, minlength=k).astype(np.int64)
    size = np.bincount(index, minlength=k)
    neg = size - pos
    if pos.sum() == 0:
        raise ValueError("y has no positives; AUC is undefined")
    if neg.sum() == 0:
        raise ValueError("y has no negatives; AUC is undefined")
    if not METRICS_BY_NAME[metric].any_pairs:  # positives above negatives
        for g in range(k):
            if pos[g] == 0:
                raise ValueError(MSG_GROUP_LACKS.format(label=labels[g].item(),
                                                        what="positives", metric=metric))
    if metric == "xauc":
        for g in range(k):
            if neg[g] == 0:
                raise ValueError(MSG_GROUP_LACKS.format(label=labels[g].item(),
                                                        what="negatives", metric=metric))
