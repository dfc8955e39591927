"""Score tables as CSV: one reader (:class:`Table`) for every command.

A CSV file is read whole: blank lines are skipped, every row keeps the line it starts
on (quoted cells may span lines), a cell may be of any length, and every error names
the file, and where it can the line and the column (a cell shown shortened,
:func:`shown_cell`).
"""


import csv
import io
import math
import os
import re
import warnings

import numpy as np

from ..utils import _validation as v
from ._read import read_text

MSG_SEPARATOR = ("{path}: the header is one column, {header}, holding {sep}: the file "
                 "is separated by {name}, not commas; save it as comma-separated CSV "
                 "(Excel: CSV UTF-8)")
MSG_NO_COLUMN = "{path}: no column {name!r} (columns: {columns})"
MSG_DUPLICATE_COLUMN = ("{path}: the header names column {name} twice (columns "
                        "{first} and {second}); rename one of them")
MSG_BAD_NUMBER = "{path}, line {line}: column {name!r} holds {value}, not a number"
MSG_NOT_FINITE = ("{path}, line {line}: column {name!r} holds {value}, not a finite "
                  "number")
MSG_BLANK = "{path}, line {line}: column {name!r} is blank"
MSG_BAD_LABEL = ("{path}, line {line}: column {name!r} holds {value!r}, not {kind} "
                 "group label")
MSG_LONG_LABEL = ("{path}, line {line}: column {name!r} holds a group label of {length} "
                  "characters, more than {limit} (is it the group column?)")
MSG_INEXACT = ("{path}, line {line}: column {name!r} holds the integer {value}, beyond "
               "2**53; float64 rounds it to {rounded!r} (and {more} more such cells), so "
               "nearly equal scores may tie")
MSG_NOT_BINARY = ("{path}, line {line}: column {name!r} holds {value}, not a label 0 or "
                  "1; code the outcome as 1 (positive) or 0 (negative) in every row")
MSG_ONE_CLASS = ("{path}: column {name!r} holds {value} in all its {n} rows; the labels "
                 "need both 0 and 1 (is it the label column?)")
MSG_MISSING_GROUP = ("{path}, line {line}: column {name!r} {what} ({count} {rows}): a "
                     "missing group label; fill it in or drop those rows{keep}")
MSG_BAD_GROUP = ("{path}, line {line}: column {name!r} holds {value}, not {what} group "
                 "label{fix}")
MSG_MERGED = ("{path}: column {name!r} spells one group two ways, {first} (line "
              "{first_line}) and {second} (line {second_line}): as {kind} labels both "
              "are {label!r}, one group{more}; read the labels as text to keep them "
              "apart")
MSG_STRIPPED = ("{path}: column {name!r} has spaces around the group label in {count} "
                "of its cells (first on line {line}: {value!r}); the spaces are ignored")
MSG_EMPTY_CSV = "{path}: no header row"
MSG_NO_ROWS = "{path}: no rows after the header"
MSG_RAGGED = "{path}, line {line}: {got} fields, the header has {expected}"
MSG_CSV = "{path}, line {line}: malformed CSV ({why})"
#: The most characters of a cell an error message shows (``shown_cell``).
CELL_SHOWN = 60
#: Group label types a table can read, by the name the command line uses.
LABEL_KINDS = ("text", "int", "float", "bool")
#: How messages call the labels of each kind.
LABEL_KIND_NAMES = {"text": "text", "int": "integer", "float": "float", "bool": "boolean"}


class Table:
    """A CSV file read whole: ``header`` and ``rows`` of strings, and the line every row
    starts on (``lines``). Blank lines are skipped; duplicate column names and rows of
    another length than the header are refused."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self.header, self.rows, self.lines = _parse_csv(read_text(self.path), self.path)
        if not self.header:
            raise ValueError(MSG_EMPTY_CSV.format(path=self.path))
        if len(self.header) == 1:
            for sep, name in ((";", "semicolons"), ("\t", "tabs"), ("|", "bars")):
                if sep in self.header[0]:
                    raise ValueError(MSG_SEPARATOR.format(
                        path=self.path, header=shown_cell(self.header[0]),
                        sep=repr(sep), name=name))
        if not self.rows:
            raise ValueError(MSG_NO_ROWS.format(path=self.path))
        seen = {}
        for k, name in enumerate(self.header):
            if name in seen:
                raise ValueError(MSG_DUPLICATE_COLUMN.format(
                    path=self.path, name=shown_cell(name), first=seen[name] + 1,
                    second=k + 1))
            seen[name] = k
        for line, row in zip(self.lines, self.rows):
            if len(row) != len(self.header):
                raise ValueError(MSG_RAGGED.format(path=self.path, line=line, got=len(row),
                                                   expected=len(self.header)))

    def column(self, name):
        """The strings of column ``name``."""
        if name not in self.header:
            shown = [shown_cell(c) for c in self.header[:20]]
            if len(self.header) > 20:
                shown.append(f"and {len(self.header) - 20} more")
            raise ValueError(MSG_NO_COLUMN.format(path=self.path, name=name,
                                                  columns=", ".join(shown)))
        k = self.header.index(name)
        return [row[k] for row in self.rows]

    def numbers(self, name):
        """Column ``name`` as finite float64 numbers; a blank cell, a cell that is not a
        number, NaN and infinities are errors naming their line. Integers beyond 2**53
        that float64 rounds give a warning."""
        values = self.column(name)
        try:
            numbers = np.array(values, dtype=np.float64)
        except ValueError:
            self._refuse_number(name, values)
        finite = np.isfinite(numbers)
        if not finite.all():
            k = int(np.argmin(finite))
            raise ValueError(MSG_NOT_FINITE.format(path=self.path, line=self.lines[k],
                                                   name=name,
                                                   value=shown_cell(values[k])))
        self._warn_inexact(name, values, numbers)
        return numbers

    def _refuse_number(self, name, values, chunk=4096):
        """Raise the error of the first cell of ``values`` that is not a number."""
        for start in range(0, len(values), chunk):
            try:
                np.array(values[start:start + chunk], dtype=np.float64)
                continue
            except ValueError:
                pass
            for k in range(start, min(start + chunk, len(values))):
                value = values[k]
                if not value.strip():
                    raise ValueError(MSG_BLANK.format(path=self.path, line=self.lines[k],
                                                      name=name))
                try:
                    np.array([value], dtype=np.float64)
                except ValueError:
                    raise ValueError(MSG_BAD_NUMBER.format(
                        path=self.path, line=self.lines[k], name=name,
                        value=shown_cell(value))) from None
        raise AssertionError("no cell failed on its own")  # pragma: no cover

    def _warn_inexact(self, name, values, numbers):
        inexact = [k for k in np.flatnonzero(np.abs(numbers) >= 2**53)
                   if re.fullmatch(r"\s*[+-]?\d+\s*", values[k])
                   and int(values[k]) != int(numbers[k])]
        if inexact:
            k = inexact[0]
            warnings.warn(MSG_INEXACT.format(
                path=self.path, line=self.lines[k], name=name, value=values[k].strip(),
                rounded=float(numbers[k]), more=len(inexact) - 1), stacklevel=3)

    def binary(self, name):
        """Column ``name`` as 0/1 labels (float64): every cell a number equal to 0 or 1,
        and both present; else an error naming the line and the fix."""
        values = self.column(name)
        codes = {}
        for text in dict.fromkeys(values):  # the spellings, in order of first use
            try:
                code = float(text)
            except ValueError:
                code = None
            if code not in (0.0, 1.0):
                k = values.index(text)
                raise ValueError(MSG_NOT_BINARY.format(
                    path=self.path, line=self.lines[k], name=name,
                    value=shown_cell(text)))
            codes[text] = code
        y = np.fromiter(map(codes.__getitem__, values), dtype=np.float64,
                        count=len(values))
        if y.min() == y.max():
            raise ValueError(MSG_ONE_CLASS.format(path=self.path, name=name,
                                                  value=int(y[0]), n=y.size))
        return y

    def check_groups(self, names, kind="text", fix=""):
        """Refuse in columns ``names`` a missing group label (a blank cell or a marker
        of ``MISSING_LABELS``; never a group of its own) and, for ``kind`` other than
        text, a cell that is not such a label (the error ends with ``fix``); warn where
        two spellings are one label of ``kind`` (``01`` and ``1`` as integers). Run
        before :meth:`groups`, whose messages name no fix."""
        for name in names:
            stripped = [value.strip() for value in self.column(name)]
            spellings = dict.fromkeys(stripped)
            missing = [text for text in spellings if text.casefold() in _MISSING]
            if missing:
                k = min(stripped.index(text) for text in missing)
                count = sum(stripped.count(text) for text in missing)
                what = ("is blank" if stripped[k] == "" else
                        f"holds {shown_cell(stripped[k])}")
                raise ValueError(MSG_MISSING_GROUP.format(
                    path=self.path, line=self.lines[k], name=name, what=what,
                    count=count, rows="row" if count == 1 else "rows",
                    keep="" if stripped[k] == "" else
                    f" (a group named {shown_cell(stripped[k])} needs another name)"))
            if kind == "text":
                continue
            first, merged = {}, []
            for text in spellings:
                try:
                    label = parse_label(text, kind)
                except ValueError:
                    k = stripped.index(text)
                    raise ValueError(MSG_BAD_GROUP.format(
                        path=self.path, line=self.lines[k], name=name,
                        value=shown_cell(text),
                        what=_LABEL_PARSERS[kind][1], fix=fix)) from None
                if label in first:
                    merged.append((first[label], text, label))
                first.setdefault(label, text)
            if merged:
                one, other, label = merged[0]
                warnings.warn(MSG_MERGED.format(
                    path=self.path, name=name, first=shown_cell(one),
                    first_line=self.lines[stripped.index(one)], second=shown_cell(other),
                    second_line=self.lines[stripped.index(other)],
                    kind=LABEL_KIND_NAMES[kind],
                    label=label, more=f" ({len(merged) - 1} more such spellings)"
                    if len(merged) > 1 else ""), stacklevel=2)

    def groups(self, names, kind="text"):
        """The group label of every row: column ``names[0]`` read as ``kind`` (one of
        ``LABEL_KINDS``), or with several columns their intersection
        (``_validation.intersect``), labelled by the text of each column's value. Spaces
        around a label are dropped, with a warning; a blank cell is an error."""
        columns = [self._labels(name, kind) for name in names]
        if len(names) == 1:
            return columns[0]
        labels, index = v.intersect(np.column_stack([c.astype(str) for c in columns]),
                                    len(self.rows))
        return labels[index]

    def _labels(self, name, kind):
        values = self.column(name)
        stripped = [value.strip() for value in values]
        if "" in stripped:
            k = stripped.index("")
            raise ValueError(MSG_BLANK.format(path=self.path, line=self.lines[k], name=name))
        changed = [k for k, (a, b) in enumerate(zip(values, stripped)) if a != b]
        if changed:
            k = changed[0]
            warnings.warn(MSG_STRIPPED.format(path=self.path, count=len(changed), name=name,
                                              line=self.lines[k], value=values[k]),
                          stacklevel=3)
        if kind == "text":
            # one long cell would widen every row's label (a fixed-width array)
            for k, value in enumerate(stripped):
                if len(value) > v.MAX_LABEL_CHARS:
                    raise ValueError(MSG_LONG_LABEL.format(
                        path=self.path, line=self.lines[k], name=name, length=len(value),
                        limit=v.MAX_LABEL_CHARS))
            return np.array(stripped, dtype=str)
        labels = []
        for k, value in enumerate(stripped):
            try:
                labels.append(parse_label(value, kind))
            except ValueError:
                raise ValueError(MSG_BAD_LABEL.format(
                    path=self.path, line=self.lines[k], name=name, value=value,
                    kind=_LABEL_PARSERS[kind][1])) from None
        return np.array(labels, dtype=_LABEL_PARSERS[kind][2])

    def writer(self, name, values):
        """``write(f)`` writing the table plus (or with a new) column ``name`` of
        ``values``, for :func:`write_files` (``newline=""``)."""
        header = list(self.header)
        k = header.index(name) if name in header else None
        if k is None:
            header.append(name)
        text = [repr(float(value)) for value in values]

        def write(f):
            out = csv.writer(f, lineterminator="\n")
            out.writerow(header)
            for row, value in zip(self.rows, text):
                row = list(row)
                if k is None:
                    row.append(value)
                else:
                    row[k] = value
                out.writerow(row)

        return write


def shown_cell(text, limit=CELL_SHOWN):
    """``repr(text)``, or where that is over ``limit`` characters by more than the
    length would take to say, about ``limit`` of them: its start and end around an
    ellipsis, and its length. A message never echoes a cell of megabytes."""
    shown = repr(text)
    if len(shown) <= limit + 20:
        return shown
    head = repr(text[:limit * 2 // 3])[:-1]
    tail = repr(text[-(limit // 6):])[1:]
    return f"{head}...{tail} ({len(text)} characters)"


def _int64(text):
    value = int(text)
    if not -(2**63) <= value < 2**63:
        raise OverflowError(text)
    return value


def _finite_float(text):
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def _boolean(text):
    try:
        return _BOOLEANS[text.lower()]
    except KeyError:
        raise ValueError(text) from None


_BOOLEANS = {"true": True, "1": True, "false": False, "0": False}
#: Cells that mark a missing group label (compared casefolded), as spreadsheets, R and
#: pandas write them; ``None`` is not one of them (a religion's "none" is a group).
MISSING_LABELS = ("", "NA", "N/A", "NaN", "-NaN", "null", "#N/A", "<NA>")
_MISSING = frozenset(text.casefold() for text in MISSING_LABELS)

# kind -> (parse one stripped cell, what a cell must be, NumPy dtype)
_LABEL_PARSERS = {
    "int": (_int64, "an integer", np.int64),
    "float": (_finite_float, "a finite float", np.float64),
    "bool": (_boolean, "a boolean (true, false, 1 or 0)", np.bool_),
}


def parse_label(text, kind):
    """The group label ``text`` (stripped) as ``kind``, one of ``LABEL_KINDS``."""
    if kind == "text":
        return text.strip()
    parse, what, _ = _LABEL_PARSERS[kind]
    try:
        return parse(text.strip())
    except (ValueError, OverflowError):
        raise ValueError(f"{text!r} is not {what} group label") from None


def label_kind(labels):
    """The ``LABEL_KINDS`` entry of an array of group labels (a model's ``groups_``)."""
    return {"b": "bool", "i": "int", "u": "int", "f": "float"}.get(labels.dtype.kind,
                                                                    "text")


def _parse_csv(text, path):
    """``(header, rows, lines)`` of CSV ``text``; ``lines[k]``: the line row k starts on.
    Cells may be of any length; malformed quoting is an error naming its line."""
    limit = csv.field_size_limit()
    csv.field_size_limit(max(limit, min(len(text) + 1, 2**31 - 1)))
    header, rows, lines = None, [], []
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    end = 0
    try:
        for row in reader:
            start, end = end + 1, reader.line_num
            if not row or (len(row) == 1 and not row[0].strip()):
                continue  # a blank line
            if header is None:
                header = row
            else:
                rows.append(row)
                lines.append(start)
    except csv.Error as exc:
        raise ValueError(MSG_CSV.format(path=path, line=end + 1, why=exc)) from None
    finally:
        csv.field_size_limit(limit)
    return header, rows, lines
