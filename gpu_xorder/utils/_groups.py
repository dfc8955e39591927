"""Group labels: the encoding of the groups every layer is given (one label per item,
or one column per attribute, intersected) into sorted labels and indices, and the
report keys of pairs of groups. ``_validation`` re-exports these names: callers check
their inputs through it, one module."""

import math
import numbers

import numpy as np

MSG_LENGTH = "{name} has length {got}, expected {expected} (the length of scores)"
MSG_GROUPS_NULL = "sensitive features contain missing values (None or NaN)"
MSG_GROUPS_MIXED = (
    "sensitive features mix labels of types {types} (e.g. {first!r} and {second!r}); "
    "give every label of a column one type (all strings or all numbers)"
)
MSG_GROUPS_BOOL_NUMBER = (
    "sensitive features mix booleans and numbers (e.g. {first!r} and {second!r}), and "
    "True equals 1, so two groups would be one; give every label of a column one type"
)
MSG_GROUPS_TYPE = (
    "sensitive features hold a label of type {type} ({value!r}); group labels are "
    "strings, integers, floats or booleans"
)
MSG_GROUPS_RAGGED = (
    "sensitive features are ragged (rows of different lengths): give one label per "
    "item, or the same number of attribute columns for every item"
)
MSG_GROUPS_NDIM = (
    "sensitive features must be one-dimensional (a group label per item) or "
    "two-dimensional (a column per attribute, intersected), got shape {shape}"
)
MSG_GROUPS_TRANSPOSED = (
    "sensitive features have shape {shape}: pass one row per item and one column per "
    "attribute (np.column_stack of the attributes), not one row per attribute"
)
MSG_INTERSECTION_CLASH = (
    "the attribute values {first!r} and {second!r} give the same intersection label "
    "{label!r}; rename values that contain {sep!r}"
)
MSG_LONG_LABEL = (
    "a group label of item {index} has {length} characters, more than {limit} (is it "
    "the group column?): {start!r}..."
)

#: Joins the attribute values of an intersectional group: ("white", "female") is the
#: group "white & female".
INTERSECTION_SEP = " & "

#: Separators of the keys of ordered (xAUC: ``"g > h"``) and unordered (URF:
#: ``"g ~ h"``) pairs of groups in reports (:func:`pair_key`).
PAIR_SEPS = (" > ", " ~ ")
_LABEL_ESCAPES = str.maketrans({c: "\\" + c for c in "\\>~[]"})

#: Characters a text group label may have. Labels are kept, sorted and unique, in a
#: NumPy string array as wide as the longest: a cell of megabytes (a wrong column, a
#: broken file) would make that array, and the CLI's per-row labels, gigabytes.
MAX_LABEL_CHARS = 1000


def escape_label(label):
    """A group label as text with ``\\ > ~ [ ]`` escaped by a backslash: the labels in
    the keys of pairs (:func:`pair_key`) and of ``FairOrderResult.counters``
    (``"C[g][h]"``), so that two pairs never share a key whatever their labels."""
    return str(label).translate(_LABEL_ESCAPES)


def pair_key(g, h, sep=PAIR_SEPS[0]):
    """The report key of the pair of groups ``(g, h)``: ``"g > h"`` with the labels
    escaped (:func:`escape_label`): ``("a > b", "c")`` gives ``"a \\> b > c"``, ``("a",
    "b > c")`` gives ``"a > b \\> c"``; labels without those characters read as
    before. :func:`split_pair_key` reads the labels back."""
    return f"{escape_label(g)}{sep}{escape_label(h)}"


def split_pair_key(key, sep=PAIR_SEPS[0]):
    """``(g, h)``, the labels (as text) of a :func:`pair_key`."""
    parts, label, k = [], [], 0
    while k < len(key):
        if key[k] == "\\" and k + 1 < len(key):
            label.append(key[k + 1])
            k += 2
        elif key.startswith(sep, k) and not parts:
            parts.append("".join(label))
            label = []
            k += len(sep)
        else:
            label.append(key[k])
            k += 1
    if not parts:
        raise ValueError(f"{key!r} is not a pair key (no unescaped {sep!r})")
    return parts[0], "".join(label)


def encode_groups(groups, n):
    """Map group labels (ints, strings, ...) to indices 0..K-1 in sorted label order.

    ``groups`` is one label per item, or a 2-D array with one column per attribute
    (a DataFrame of several columns, say): each item's group is then the intersection
    of its values, labelled by ``intersect``.

    Returns
    -------
    labels : ndarray
        The sorted unique group labels; index k of the DP is ``labels[k]``.
    index : ndarray of int64
        The group index of every item.
    """
    arr = _group_array(groups)
    if arr.ndim == 2:
        if arr.shape[0] != n and arr.shape[1] == n:
            raise ValueError(MSG_GROUPS_TRANSPOSED.format(shape=arr.shape))
        if arr.shape[1] != 1:
            return intersect(arr, n)
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise ValueError(MSG_GROUPS_NDIM.format(shape=arr.shape))
    arr = _check_group_column(arr, n)
    return _unique(arr)


def _unique(arr):
    """``(labels, index)`` as ``np.unique(arr, return_inverse=True)``; a small range of
    integers is counted, not sorted, and text held as Python strings (an object array)
    is encoded through a dict, so that only the sorted unique labels, not every item's,
    become a fixed-width string array."""
    small_ints = arr.dtype.kind == "i" or (arr.dtype.kind == "u" and arr.dtype.itemsize < 8)
    if small_ints and arr.size and int(arr.max()) - int(arr.min()) < 2**16:
        # a small range of integers: counted, not sorted (np.unique's labels and index)
        lo = arr.min()
        shifted = arr.astype(np.int64) - np.int64(lo)
        present = np.bincount(shifted) > 0
        labels = (np.flatnonzero(present) + lo).astype(arr.dtype)
        return labels, (np.cumsum(present) - 1)[shifted].astype(np.int64)
    if arr.dtype == object and arr.size and isinstance(arr[0], str):
        values = arr.tolist()
        labels = sorted(set(values))
        code = {label: k for k, label in enumerate(labels)}
        index = np.fromiter(map(code.__getitem__, values), dtype=np.int64,
                            count=len(values))
        return np.array(labels, dtype=str), index
    labels, index = np.unique(arr, return_inverse=True)
    return labels, index.reshape(-1).astype(np.int64)


def _group_array(groups):
    """``np.asarray(groups)``, refusing ragged rows and lists that NumPy would turn into
    text by mixing strings with numbers (0 and "0" would become one group). A list of
    strings becomes an object array (not one padded to the longest string)."""
    if not isinstance(groups, np.ndarray):
        try:
            text = np.asarray(groups, dtype=object)
        except ValueError:
            raise ValueError(MSG_GROUPS_RAGGED) from None
        if text.ndim in (1, 2) and text.size and all(
                isinstance(value, str) for value in text.flat):
            return text
    try:
        arr = np.asarray(groups)
    except ValueError:
        raise ValueError(MSG_GROUPS_RAGGED) from None
    if arr.dtype == object and arr.ndim == 1 and arr.size and all(
            isinstance(v, (list, tuple, np.ndarray)) for v in arr):
        raise ValueError(MSG_GROUPS_RAGGED)
    if arr.dtype.kind == "U" and not isinstance(groups, np.ndarray) and arr.ndim <= 2:
        values = np.asarray(groups, dtype=object)
        for column in values.reshape(values.shape[0] if values.ndim else 1, -1).T:
            _check_one_type(column)
    return arr


def _check_one_type(values):
    """Raise TypeError when ``values`` (an object array) holds strings and non-strings."""
    is_text = np.fromiter((isinstance(v, str) for v in values), dtype=bool,
                          count=values.size)
    if is_text.any() and not is_text.all():
        first, second = values[np.argmax(is_text)], values[np.argmin(is_text)]
        types = " and ".join(sorted({type(first).__name__, type(second).__name__}))
        raise TypeError(MSG_GROUPS_MIXED.format(types=types, first=first, second=second))


def intersect(columns, n):
    """The intersections of the attribute columns ``columns`` (shape ``(n, c)``), as
    ``encode_groups`` returns groups: ``(labels, index)``, a label being the row's
    values, as text, joined by ``INTERSECTION_SEP``. Distinct rows must give distinct
    labels. Work on the distinct rows only, so it costs a few sorts of n integers."""
    if columns.ndim != 2 or columns.shape[1] == 0:
        raise ValueError(MSG_GROUPS_NDIM.format(shape=columns.shape))
    values, codes = [], []
    for c in range(columns.shape[1]):
        col = _check_group_column(np.ascontiguousarray(columns[:, c]), n)
        if col.dtype == object and not isinstance(col[0], str):
            col = col.astype(str)  # mixed types sort only as text
        uniq, code = _unique(col)
        values.append(uniq)
        codes.append(code)
    key = codes[0]
    for uniq, code in zip(values[1:], codes[1:]):
        # distinct rows so far (< n) times this column's values (<= n): below 2**53;
        # renumbered densely after every column, so any number of columns fits
        key = np.unique(key * uniq.size + code, return_inverse=True)[1].reshape(-1)
    rows, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    names = np.array([INTERSECTION_SEP.join(str(u[code[i]]) for u, code in zip(values, codes))
                      for i in first])
    labels, rank = np.unique(names, return_inverse=True)
    if labels.size != rows.size:
        seen = {}
        for i, name in zip(first, names):
            clash = seen.setdefault(name, i)
            if clash != i:
                raise ValueError(MSG_INTERSECTION_CLASH.format(
                    first=tuple(columns[clash].tolist()), second=tuple(columns[i].tolist()),
                    label=str(name), sep=INTERSECTION_SEP))
    return labels, rank.reshape(-1).astype(np.int64)[inverse.reshape(-1)]


def _check_group_column(arr, n):
    """A 1-D column of group labels of length ``n``, without missing values; object
    columns of strings become a str array."""
    if arr.shape[0] != n:
        raise ValueError(
            MSG_LENGTH.format(name="sensitive features", got=arr.shape[0], expected=n)
        )
    if arr.dtype == object:
        if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in arr):
            raise ValueError(MSG_GROUPS_NULL)
        _check_one_type(arr)
        if isinstance(arr[0], str):  # all strings: kept as they are (_unique)
            _check_label_lengths(np.fromiter(map(len, arr), dtype=np.int64,
                                             count=arr.size), arr)
        else:
            arr = _typed(arr)
    elif np.issubdtype(arr.dtype, np.floating) and np.isnan(arr).any():
        raise ValueError(MSG_GROUPS_NULL)
    elif arr.dtype.kind == "U" and arr.dtype.itemsize // 4 > MAX_LABEL_CHARS:
        _check_label_lengths(np.char.str_len(arr), arr)
    return arr


def _typed(arr):
    """An object column of numbers or booleans (a pandas object column, a list of
    NumPy scalars) as the NumPy array of its type, so that every label is a NumPy
    scalar like those of any other column: booleans as bool, integers as int64 (beyond
    int64: as text), integers and floats together as float64 where every integer is a
    float exactly (1 and 1.0 are one group, as Python compares them; otherwise as
    text). Booleans with numbers, and labels of other types, raise TypeError."""
    values = arr.tolist()
    is_bool = [isinstance(v, (bool, np.bool_)) for v in values]
    if all(is_bool):
        return np.array(values, dtype=bool)
    for v, b in zip(values, is_bool):
        if not b and not isinstance(v, numbers.Real):
            raise TypeError(MSG_GROUPS_TYPE.format(type=type(v).__name__, value=v))
    if any(is_bool):
        first, second = values[is_bool.index(True)], values[is_bool.index(False)]
        raise TypeError(MSG_GROUPS_BOOL_NUMBER.format(first=first, second=second))
    if all(isinstance(v, numbers.Integral) for v in values):
        try:
            return np.array(values, dtype=np.int64)
        except OverflowError:
            return np.array([str(v) for v in values], dtype=object)
    floats = np.array(values, dtype=np.float64)
    if any(isinstance(v, numbers.Integral) and int(f) != v
           for v, f in zip(values, floats.tolist())):
        return np.array([str(v) for v in values], dtype=object)  # ints beyond 2**53
    return floats


def _check_label_lengths(lengths, arr):
    """Raise ValueError (``MSG_LONG_LABEL``) at the first label of ``arr`` longer than
    ``MAX_LABEL_CHARS`` (``lengths``: every label's)."""
    too_long = np.flatnonzero(lengths > MAX_LABEL_CHARS)
    if too_long.size:
        k = int(too_long[0])
        raise ValueError(MSG_LONG_LABEL.format(index=k, length=int(lengths[k]),
                                               limit=MAX_LABEL_CHARS,
                                               start=str(arr[k])[:40]))
