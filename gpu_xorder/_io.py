"""Files: fitted models as JSON, score tables as CSV, every write atomic.

A saved model is plain JSON (never pickle): the estimator's parameters, the group
labels, the reference group and each group's monotone map as its knots. Floats are
written by ``repr`` (shortest round-trip), so a loaded model transforms bit for bit as
the fitted one. Files are written to a temporary file in the target's folder and moved
over the target in one ``os.replace``; a failed write leaves the target as it was, and
no write may land on one of the command's input files.
"""

import csv
import gzip
import json
import math
import os
import tempfile

import numpy as np

from ._validation import intersect

MODEL_FORMAT = "gpu-xorder-model"
MODEL_VERSION = 1

MSG_MODEL = "{path}: not a gpu-xorder model file ({why})"
MSG_SAME_FILE = "refusing to write {path}: it is also an input of this command"
MSG_NO_FOLDER = "cannot write {path}: no folder {folder}"
MSG_NO_COLUMN = "{path}: no column {name!r} (columns: {columns})"
MSG_BAD_NUMBER = "{path}, line {line}: column {name!r} holds {value!r}, not a number"
MSG_EMPTY_CSV = "{path}: no header row"
MSG_RAGGED = "{path}, line {line}: {got} fields, the header has {expected}"


# ------------------------------------------------------------------ writing

def atomic_write(path, write, *, inputs=(), newline=None):
    """Call ``write(file)`` on a temporary text file beside ``path``, then move it over
    ``path``; refuse when ``path`` is one of ``inputs``."""
    path = refuse_inputs(path, inputs)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".gpu-xorder-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, _mode(path))  # mkstemp makes 0600; give what open() would
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _mode(path):
    """The existing file's permissions, else those a new file gets under the umask."""
    try:
        return os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def refuse_inputs(path, inputs):
    """``path`` (as a string), unless it names the same file as one of ``inputs`` or
    lies in a folder that does not exist. Commands call it on every output before their
    work, so that a long run does not end on a path it cannot write."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise FileNotFoundError(MSG_NO_FOLDER.format(path=path, folder=folder))
    for other in inputs:
        if _same_file(path, os.fspath(other)):
            raise ValueError(MSG_SAME_FILE.format(path=path))
    return path


def _same_file(a, b):
    if os.path.exists(a) and os.path.exists(b):
        return os.path.samefile(a, b)
    return os.path.realpath(a) == os.path.realpath(b)


# ------------------------------------------------------------------ models

def _label(value):
    """A group label as a JSON value (ints, floats, strings, booleans)."""
    value = np.asarray(value).item()
    if isinstance(value, (bool, int, str)) or (isinstance(value, float)
                                               and math.isfinite(value)):
        return value
    raise TypeError(f"group label {value!r} of type {type(value).__name__} cannot be "
                    "saved; use ints or strings")


def _floats(a):
    return [float(x) for x in np.asarray(a, dtype=np.float64)]


def model_to_dict(params, groups, reference, bounds, clip, maps, summary):
    """The JSON document of a fitted ``XOrder``; ``maps`` keyed by group position."""
    params = {k: (v.item() if isinstance(v, np.generic) else v) for k, v in params.items()}
    if params.get("reference_group") is not None:
        params["reference_group"] = _label(params["reference_group"])
    return {
        "format": MODEL_FORMAT,
        "version": MODEL_VERSION,
        "params": params,
        "groups": [_label(g) for g in groups],
        "reference_group": _label(reference),
        "bounds": _floats(bounds),
        "clip": None if clip is None else _floats(clip),
        "maps": [{"group": _label(groups[g]), "x": _floats(x), "y": _floats(y)}
                 for g, (x, y) in sorted(maps.items())],
        "summary": summary,
    }


def model_from_dict(doc, path="<model>"):
    """``(params, groups, reference, bounds, clip, maps, summary)`` of a model document,
    checked; ``maps`` keyed by group position."""
    def bad(why):
        return ValueError(MSG_MODEL.format(path=path, why=why))

    if not isinstance(doc, dict) or doc.get("format") != MODEL_FORMAT:
        raise bad(f"the 'format' field is not {MODEL_FORMAT!r}")
    if doc.get("version") != MODEL_VERSION:
        raise bad(f"version {doc.get('version')!r}; this gpu-xorder reads version "
                  f"{MODEL_VERSION}")
    try:
        groups = list(doc["groups"])
        params, reference = dict(doc["params"]), doc["reference_group"]
        bounds = tuple(float(b) for b in doc["bounds"])
        clip = None if doc["clip"] is None else tuple(float(c) for c in doc["clip"])
        entries = list(doc["maps"])
    except (KeyError, TypeError, ValueError) as exc:
        raise bad(f"missing or malformed field: {exc}") from None
    if len(set(map(repr, groups))) != len(groups) or len(groups) < 2:
        raise bad("'groups' must list two or more distinct labels")
    if reference not in groups:
        raise bad(f"reference group {reference!r} is not among {groups}")
    if len(bounds) != 2 or (clip is not None and len(clip) != 2):
        raise bad("'bounds' and 'clip' hold two numbers")
    maps = {}
    for entry in entries:
        try:
            g = groups.index(entry["group"])
            x = np.array(entry["x"], dtype=np.float64)
            y = np.array(entry["y"], dtype=np.float64)
        except (KeyError, TypeError, ValueError) as exc:
            raise bad(f"malformed map: {exc}") from None
        if x.ndim != 1 or x.shape != y.shape or x.size == 0:
            raise bad(f"the map of group {entry['group']!r} needs x and y of one length")
        if not (np.isfinite(x).all() and np.isfinite(y).all()):
            raise bad(f"the map of group {entry['group']!r} holds non-finite knots")
        if np.any(np.diff(x) <= 0) or np.any(np.diff(y) < 0):
            raise bad(f"the map of group {entry['group']!r} is not increasing")
        maps[g] = (x, y)
    expected = {g for g, label in enumerate(groups) if label != reference}
    if set(maps) != expected:
        raise bad("every group but the reference group needs exactly one map")
    return params, groups, reference, bounds, clip, maps, doc.get("summary", {})


def write_json(path, doc, inputs=()):
    text = json.dumps(doc, separators=(",", ":"), allow_nan=False) + "\n"
    atomic_write(path, lambda f: f.write(text), inputs=inputs)


def read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except json.JSONDecodeError as exc:
        raise ValueError(MSG_MODEL.format(path=path, why=f"invalid JSON: {exc}")) from None


# ------------------------------------------------------------------ CSV tables

class Table:
    """A CSV file read whole: header and rows of strings (``.csv`` or ``.csv.gz``)."""

    def __init__(self, path):
        self.path = os.fspath(path)
        opener = gzip.open if self.path.endswith(".gz") else open
        with opener(self.path, "rt", encoding="utf-8", newline="") as f:
            reader = csv.reader(f)
            self.header = next(reader, None)
            if not self.header:
                raise ValueError(MSG_EMPTY_CSV.format(path=self.path))
            self.rows = [row for row in reader if row]
        for line, row in enumerate(self.rows, 2):
            if len(row) != len(self.header):
                raise ValueError(MSG_RAGGED.format(path=self.path, line=line, got=len(row),
                                                   expected=len(self.header)))

    def column(self, name):
        """The strings of column ``name``."""
        if name not in self.header:
            raise ValueError(MSG_NO_COLUMN.format(path=self.path, name=name,
                                                  columns=", ".join(self.header)))
        k = self.header.index(name)
        return [row[k] for row in self.rows]

    def groups(self, names):
        """The group label of every row: the text of column ``names[0]``, or with
        several columns their intersection (``_validation.intersect``)."""
        columns = np.array([self.column(name) for name in names], dtype=str).T
        if len(names) == 1:
            return columns[:, 0]
        labels, index = intersect(columns, len(self.rows))
        return labels[index]

    def numbers(self, name):
        """Column ``name`` as float64; a cell that is not a number is an error naming
        its line (NaN and infinities pass here and are refused by the library)."""
        values = self.column(name)
        try:
            return np.array(values, dtype=np.float64)
        except ValueError:
            for line, value in enumerate(values, 2):
                try:
                    float(value)
                except ValueError:
                    raise ValueError(MSG_BAD_NUMBER.format(
                        path=self.path, line=line, name=name, value=value)) from None
            raise

    def write_with(self, path, name, values, inputs=()):
        """Write the table plus (or replacing) column ``name`` to ``path``, atomically."""
        header = list(self.header)
        k = header.index(name) if name in header else None
        if k is None:
            header.append(name)
        text = [repr(float(v)) for v in values]

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

        atomic_write(path, write, inputs=(self.path,) + tuple(inputs), newline="")
