"""Files: score tables as CSV, fitted models as JSON; reads that name the file, writes
that are all or nothing.

Reading. Compressed files (gzip, bz2, xz) are recognised by their content, whatever they
are called. Text is UTF-8, with or without a byte-order mark. A CSV file is read whole
by one reader (:class:`Table`): blank lines are skipped, every row keeps the line it
starts on (quoted cells may span lines), a cell may be of any length, and every error
names the file, and where it can the line and the column. A saved model is plain JSON
(never pickle), checked field by field by :func:`model_from_dict` before any value of it
is used.

Writing. :func:`check_output` refuses, before a command does any work, an output that
is one of the command's inputs, a folder, a device, a pipe, a file it may not write, or
a path in a folder that is missing or that it cannot write; a symbolic link is written
through (its target is replaced, the link kept). :func:`write_files` writes several files
or none: each goes to a temporary file beside its target, all of them are written and
flushed before the first is moved into place by ``os.replace``, and the temporary files
are removed on any error, on Ctrl-C and on SIGTERM or SIGHUP. A file named ``.gz``,
``.bz2`` or ``.xz`` is written compressed so. Floats are written by ``repr``
(shortest round trip), so a loaded model transforms bit for bit as the fitted one.
"""

import bz2
import codecs
import contextlib
import csv
import gzip
import io
import json
import lzma
import math
import os
import re
import shutil
import signal
import stat
import tempfile
import threading
import warnings
import zlib
from typing import NamedTuple

import numpy as np

from .utils import _validation as v
from .utils._params import PARAMETERS, valid_json

MODEL_FORMAT = "gpu-xorder-model"
MODEL_VERSION = 2

MSG_MODEL = "{path}: not a gpu-xorder model file ({why})"
MSG_SAME_FILE = "refusing to write {path}: it is also an input of this command"
MSG_TWICE = "refusing to write {path} twice: two outputs of this command name it"
MSG_NO_FOLDER = "cannot write {path}: no folder {folder}"
MSG_FOLDER_LOCKED = "cannot write {path}: cannot create files in {folder} ({why})"
MSG_NOT_FOLDER = "refusing to write {path}: it is a file, not a folder"
MSG_NOT_REGULAR = "refusing to write {path}: it is {what}, not a regular file"
MSG_READ_ONLY = "cannot write {path}: the file is read-only"
MSG_WRITE = "cannot write {path}: {why}"
MSG_COMPRESSED = "{path}: cannot read the {kind} data ({why}); is the file truncated?"
MSG_UTF16 = "{path}: the file is UTF-16 text; save it as UTF-8 (Excel: CSV UTF-8)"
MSG_DECODE = ("{path}, line {line}: not UTF-8 text (byte {byte}); save the file as "
              "UTF-8 (Excel: CSV UTF-8)")
MSG_NO_COLUMN = "{path}: no column {name!r} (columns: {columns})"
MSG_DUPLICATE_COLUMN = ("{path}: the header names column {name!r} twice (columns "
                        "{first} and {second}); rename one of them")
MSG_BAD_NUMBER = "{path}, line {line}: column {name!r} holds {value!r}, not a number"
MSG_NOT_FINITE = ("{path}, line {line}: column {name!r} holds {value!r}, not a finite "
                  "number")
MSG_BLANK = "{path}, line {line}: column {name!r} is blank"
MSG_BAD_LABEL = ("{path}, line {line}: column {name!r} holds {value!r}, not {kind} "
                 "group label")
MSG_LONG_LABEL = ("{path}, line {line}: column {name!r} holds a group label of {length} "
                  "characters, more than {limit} (is it the group column?)")
MSG_INEXACT = ("{path}, line {line}: column {name!r} holds the integer {value}, beyond "
               "2**53; float64 rounds it to {rounded!r} (and {more} more such cells), so "
               "nearly equal scores may tie")
MSG_STRIPPED = ("{path}: column {name!r} has spaces around the group label in {count} "
                "of its cells (first on line {line}: {value!r}); the spaces are ignored")
MSG_EMPTY_CSV = "{path}: no header row"
MSG_NO_ROWS = "{path}: no rows after the header"
MSG_RAGGED = "{path}, line {line}: {got} fields, the header has {expected}"
MSG_CSV = "{path}, line {line}: malformed CSV ({why})"

#: Group label types a table can read, by the name the command line uses.
LABEL_KINDS = ("text", "int", "float", "bool")


# ------------------------------------------------------------------ reading

_BZ2_BLOCK = (b"\x31\x41\x59\x26\x53\x59", b"\x17\x72\x45\x38\x50\x90")  # block, end
_DECOMPRESS = {"gzip": gzip.decompress, "bz2": bz2.decompress, "xz": lzma.decompress}
_COMPRESS = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz"}


def _compression(head):
    """The compression of data starting with ``head``, by its magic number, or None."""
    if head.startswith(b"\x1f\x8b"):
        return "gzip"
    if head.startswith(b"\xfd7zXZ\x00"):
        return "xz"
    if re.match(rb"BZh[1-9]", head) and head[4:10] in _BZ2_BLOCK:
        return "bz2"
    return None


def read_bytes(path):
    """The content of ``path``, decompressed when it is gzip, bz2 or xz data."""
    path = os.fspath(path)
    with open(path, "rb") as f:
        data = f.read()
    kind = _compression(data[:10])
    if kind is None:
        return data
    try:
        return _DECOMPRESS[kind](data)
    except (EOFError, OSError, ValueError, zlib.error, lzma.LZMAError) as exc:
        raise ValueError(MSG_COMPRESSED.format(path=path, kind=kind, why=exc)) from None


def read_text(path):
    """The text of ``path``: UTF-8 (a byte-order mark is dropped), decompressed."""
    data = read_bytes(path)
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise ValueError(MSG_UTF16.format(path=os.fspath(path)))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = len((data[:exc.start] + b".").splitlines())
        raise ValueError(MSG_DECODE.format(path=os.fspath(path), line=line,
                                           byte=data[exc.start:exc.start + 1])) from None


# ------------------------------------------------------------------ writing

def check_output(path, inputs=()):
    """The file that writing output ``path`` replaces: ``path``, or the target of the
    link ``path`` is. Refuse (ValueError, or OSError for the file system) a path that is
    one of ``inputs``, a folder, a device, a pipe or a socket, an existing file this
    process may not write, or a path in a folder that is missing or where no file can be
    created. Commands call it on every output before their work."""
    path = os.fspath(path)
    target = os.path.realpath(path)
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise FileNotFoundError(MSG_NO_FOLDER.format(path=path, folder=folder))
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        what = "a folder" if stat.S_ISDIR(mode) else "a device, a pipe or a socket"
        raise ValueError(MSG_NOT_REGULAR.format(path=path, what=what))
    for other in inputs:
        if _same_file(target, os.fspath(other)):
            raise ValueError(MSG_SAME_FILE.format(path=path))
    if mode is not None and not os.access(target, os.W_OK):
        raise PermissionError(MSG_READ_ONLY.format(path=path))
    try:  # the one sure test that the rename at the end can succeed
        fd, probe = tempfile.mkstemp(prefix=".gpu-xorder-", suffix=".tmp", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise PermissionError(MSG_FOLDER_LOCKED.format(
            path=path, folder=folder, why=exc.strerror or exc)) from None
    return target


def check_outputs(paths, inputs=()):
    """``check_output`` of every path of ``paths``, which must name distinct files."""
    targets = []
    for path in paths:
        target = check_output(path, inputs)
        if target in targets:
            raise ValueError(MSG_TWICE.format(path=os.fspath(path)))
        targets.append(target)
    return targets


def _same_file(a, b):
    if os.path.exists(a) and os.path.exists(b):
        return os.path.samefile(a, b)
    return os.path.realpath(a) == os.path.realpath(b)


def write_files(files, inputs=()):
    """Write every file of ``files`` or none: ``(path, write, newline)`` triples, with
    ``write(f)`` writing the text of ``path`` to the text file ``f`` (``newline`` as for
    ``open``). Outputs are checked as :func:`check_outputs` does; all are staged in
    temporary files beside their targets before the first is moved into place."""
    targets = check_outputs([path for path, _, _ in files], inputs)
    staged = []
    with _signals_raise():
        try:
            for (path, write, newline), target in zip(files, targets):
                staged.append(_stage(os.fspath(path), target, write, newline))
            for tmp, (path, _, _), target in zip(staged, files, targets):
                try:
                    os.replace(tmp, target)
                except OSError as exc:
                    raise OSError(exc.errno, MSG_WRITE.format(
                        path=os.fspath(path), why=exc.strerror or exc)) from None
        except BaseException:
            for tmp in staged:
                _unlink(tmp)
            raise


def atomic_write(path, write, *, inputs=(), newline=None):
    """Write one file as :func:`write_files` does."""
    write_files([(path, write, newline)], inputs)


def check_folder(path):
    """Refuse (ValueError, or OSError for the file system) an output folder ``path``
    that is something else than a folder, lies in a missing folder, or where no folder
    (or, existing, no file) can be created. Returns the real path."""
    path = os.fspath(path)
    target = os.path.realpath(path)
    if os.path.exists(target) and not os.path.isdir(target):
        raise ValueError(MSG_NOT_FOLDER.format(path=path))
    where = target if os.path.isdir(target) else os.path.dirname(target)
    if not os.path.isdir(where):
        raise FileNotFoundError(MSG_NO_FOLDER.format(path=path, folder=where))
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".gpu-xorder-", dir=where))
    except OSError as exc:
        raise PermissionError(MSG_FOLDER_LOCKED.format(
            path=path, folder=where, why=exc.strerror or exc)) from None
    return target


@contextlib.contextmanager
def staged_folder(path):
    """Write an output folder all or nothing: yields a temporary folder to write the
    files in; after the block it becomes ``path`` (one rename) or, when ``path`` exists,
    its files are moved into ``path`` one by one, replacing those of the same names. On
    an error (also SIGTERM, SIGHUP) it is removed and ``path`` left as it was."""
    target = check_folder(path)
    exists = os.path.isdir(target)
    tmp = tempfile.mkdtemp(prefix=".gpu-xorder-",
                           dir=target if exists else os.path.dirname(target))
    with _signals_raise():
        try:
            yield tmp
            for name in os.listdir(tmp):
                fd = os.open(os.path.join(tmp, name), os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
            if exists:
                for name in sorted(os.listdir(tmp)):
                    os.replace(os.path.join(tmp, name), os.path.join(target, name))
                os.rmdir(tmp)
            else:
                os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes 0700
                os.rename(tmp, target)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise


def _umask():
    umask = os.umask(0)
    os.umask(umask)
    return umask


def _stage(path, target, write, newline):
    """A temporary file beside ``target`` holding what ``write`` writes (compressed as
    the name ``path`` says), flushed to disk and with the permissions of ``target``."""
    fd, tmp = tempfile.mkstemp(prefix=".gpu-xorder-", suffix=".tmp",
                               dir=os.path.dirname(target))
    try:
        with os.fdopen(fd, "wb") as raw:
            stream = _compressor(path, raw)
            text = io.TextIOWrapper(stream, encoding="utf-8", newline=newline)
            write(text)
            text.flush()
            text.detach()
            if stream is not raw:
                stream.close()  # writes the trailer; leaves ``raw`` open
            raw.flush()
            os.fsync(raw.fileno())
        os.chmod(tmp, _mode(target))  # mkstemp makes 0600; give what open() would
    except OSError as exc:  # named after the output, not the temporary file
        _unlink(tmp)
        raise OSError(exc.errno, MSG_WRITE.format(path=path, why=exc.strerror or exc)) \
            from None
    except BaseException:
        _unlink(tmp)
        raise
    return tmp


def _compressor(path, raw):
    """``raw``, or a compressing file over it when ``path`` ends in .gz, .bz2 or .xz."""
    kind = _COMPRESS.get(os.path.splitext(path)[1].lower())
    if kind == "gzip":  # the name, not the temporary file's, in the header; no time
        return gzip.GzipFile(filename=os.path.basename(path), mode="wb", fileobj=raw,
                             mtime=0)
    if kind == "bz2":
        return bz2.BZ2File(raw, "wb")
    if kind == "xz":
        return lzma.LZMAFile(raw, "wb")
    return raw


def _unlink(path):
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def _mode(path):
    """The existing file's permissions, else those a new file gets under the umask."""
    try:
        return os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


@contextlib.contextmanager
def _signals_raise():
    """While temporary files exist, make SIGTERM and SIGHUP raise SystemExit so that
    they are removed; only in the main thread and where the signal would otherwise kill
    the process (a program's own handlers are left alone)."""
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for name in ("SIGTERM", "SIGHUP"):
            signum = getattr(signal, name, None)
            if signum is not None and signal.getsignal(signum) == signal.SIG_DFL:
                previous[signum] = signal.signal(signum, _exit_on_signal)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _exit_on_signal(signum, frame):
    raise SystemExit(128 + signum)


# ------------------------------------------------------------------ models

#: Top-level fields of a model file of each version; all but ``summary`` and ``fields``
#: are required.
MODEL_FIELDS = {
    1: ("format", "version", "params", "groups", "reference_group", "bounds", "clip",
        "maps", "summary"),
    2: ("format", "version", "package_version", "columns", "params", "groups",
        "reference_group", "bounds", "maps", "summary", "fields"),
}
_OPTIONAL_FIELDS = ("summary", "fields")
#: What each field of a version-2 model file holds: written into every file as
#: ``fields``, and listed in the README.
MODEL_GLOSSARY = {
    "format": "always 'gpu-xorder-model'",
    "version": "version of this file layout (2); version-1 files still load",
    "package_version": "the gpu-xorder version that wrote the file",
    "columns": "names of the training data's columns: score, label and group (a list, "
               "one per attribute); null where not known (arrays given to the API)",
    "params": "the XOrder parameters the model was fitted with",
    "groups": "the group labels, sorted; maps name their group by its label",
    "reference_group": "the group whose scores stay unchanged",
    "bounds": "[lo, hi]: the range adjusted scores live in; every adjusted score of a "
              "score inside [lo, hi] lies inside it, and beyond it the maps are the "
              "identity",
    "maps": "per group but the reference: knots x (original score) and y (adjusted "
            "score) of an increasing piecewise-linear map, linear between knots, a "
            "shift beyond the end knots; the knots are the ends of the group's runs in "
            "the learned ordering (the map is linear along a run), so transform gives "
            "the adjusted training scores back bit for bit",
    "summary": "facts of the fit: n_train training items, n_items the ordering was "
               "learned on (fewer with subsample), auc and disparity of the adjusted "
               "training scores on all n_train items (what gpu-xorder fit prints), "
               "ordering_auc, ordering_disparity, objective and upper_bound of the "
               "learned ordering (fair_order's), lam, method, backend, solver",
    "fields": "this glossary",
}
#: Parameters every version-1 model file holds; later ones may be missing (older files).
REQUIRED_PARAMS = ("metric", "lam", "disparity", "reference_group", "backend", "method",
                   "subsample", "memory_limit")
_LABEL_TYPES = (str, int, float, bool)


class _Invalid(Exception):
    """What is wrong with a model document (becomes a ValueError naming the file)."""


def _short(value):
    text = repr(value)
    return text if len(text) <= 40 else text[:20] + "..." + text[-10:]


def _label(value):
    """A group label as a JSON value: a string, a boolean, an integer within int64 or a
    finite float."""
    value = np.asarray(value).item()
    if isinstance(value, (bool, str)) or (isinstance(value, float) and math.isfinite(value)):
        return value
    if isinstance(value, int) and -(2**63) <= value < 2**63:
        return value
    raise TypeError(f"group label {_short(value)} of type {type(value).__name__} cannot "
                    "be saved; use strings, integers within int64 or finite floats")


def _floats(a):
    return [float(x) for x in np.asarray(a, dtype=np.float64)]


def model_to_dict(params, groups, reference, bounds, maps, summary, columns=None):
    """The JSON document (version 2) of a fitted ``XOrder``; ``maps`` keyed by group
    position; ``columns``: ``{"score": ..., "label": ..., "group": [...]}``, each entry a
    name or None (None: all unknown)."""
    from gpu_xorder import __version__

    params = {name: (value.item() if isinstance(value, np.generic) else value)
              for name, value in params.items()}
    if params.get("reference_group") is not None:
        params["reference_group"] = _label(params["reference_group"])
    columns = dict.fromkeys(_COLUMNS) if columns is None else {
        name: columns.get(name) for name in _COLUMNS}
    if columns["group"] is not None:
        columns["group"] = [str(name) for name in columns["group"]]
    for name in ("score", "label"):
        if columns[name] is not None:
            columns[name] = str(columns[name])
    return {
        "format": MODEL_FORMAT,
        "version": MODEL_VERSION,
        "package_version": __version__,
        "columns": columns,
        "params": params,
        "groups": [_label(g) for g in groups],
        "reference_group": _label(reference),
        "bounds": _floats(bounds),
        "maps": [{"group": _label(groups[g]), "x": _floats(x), "y": _floats(y)}
                 for g, (x, y) in sorted(maps.items())],
        "summary": {name: _summary_value(value) for name, value in summary.items()},
        "fields": dict(MODEL_GLOSSARY),
    }


def _summary_value(value):
    """A summary entry as JSON: NumPy scalars as Python ones, a non-finite float (which
    JSON cannot hold; the summary only informs) as null."""
    value = value.item() if isinstance(value, np.generic) else value
    return None if isinstance(value, float) and not math.isfinite(value) else value


class Model(NamedTuple):
    """A model document, checked (:func:`model_from_dict`)."""

    params: dict
    groups: list
    reference: int          # position of the reference group in groups
    bounds: tuple
    clip: "tuple | None"    # version 1 only: the range transformed scores were clipped to
    maps: dict              # group position -> (x, y)
    summary: dict
    version: int
    package_version: "str | None"
    columns: dict


def model_from_dict(doc, path="<model>", known_params=REQUIRED_PARAMS):
    """The :class:`Model` of a model document, every field checked before use:
    ``groups`` a sorted list of distinct labels of one type, ``reference`` the position
    of the reference group in it, ``maps`` keyed by group position. ``known_params``:
    the parameter names the estimator takes (any other is refused; those of
    ``REQUIRED_PARAMS`` must be present)."""
    try:
        return _parse_model(doc, known_params)
    except _Invalid as exc:
        raise ValueError(MSG_MODEL.format(path=os.fspath(path), why=exc)) from None


def _parse_model(doc, known_params):
    if not isinstance(doc, dict):
        raise _Invalid(f"the file holds a JSON {type(doc).__name__}, not an object")
    if doc.get("format") != MODEL_FORMAT:
        raise _Invalid(f"the 'format' field is not {MODEL_FORMAT!r}")
    version = doc.get("version")
    if type(version) is not int:
        raise _Invalid(f"'version' must be an integer, got {_short(version)}")
    if version not in MODEL_FIELDS:
        raise _Invalid(f"version {version}; this gpu-xorder reads versions "
                       f"{' and '.join(map(str, MODEL_FIELDS))}")
    fields = MODEL_FIELDS[version]
    missing = [field for field in fields if field not in doc and
               field not in _OPTIONAL_FIELDS]
    if missing:
        raise _Invalid(f"missing fields {missing}")
    unknown = sorted(set(doc) - set(fields))
    if unknown:
        raise _Invalid(f"unknown fields {unknown}")
    groups = _groups(doc["groups"])
    reference = _position(doc["reference_group"], groups, "'reference_group'")
    params = _params(doc["params"], groups, reference, known_params)
    bounds = _pair(doc["bounds"], "'bounds'")
    clip = None
    if version == 1 and doc["clip"] is not None:
        clip = _pair(doc["clip"], "'clip'")
    maps = _maps(doc["maps"], groups, reference)
    summary = doc.get("summary", {})
    if not isinstance(summary, dict):
        raise _Invalid("'summary' must be an object")
    if version == 1:
        return Model(params, groups, reference, bounds, clip, maps, summary, version,
                     None, dict.fromkeys(_COLUMNS))
    package_version = doc["package_version"]
    if not isinstance(package_version, str):
        raise _Invalid(f"'package_version' must be a string, got {_short(package_version)}")
    glossary = doc.get("fields", {})
    if not isinstance(glossary, dict) or not all(
            isinstance(text, str) for text in glossary.values()):
        raise _Invalid("'fields' must be an object of strings")
    return Model(params, groups, reference, bounds, None, maps, summary, version,
                 package_version, _columns(doc["columns"]))


_COLUMNS = ("score", "label", "group")


def _columns(value):
    """``columns``: score and label a name or null, group a list of names or null."""
    if not isinstance(value, dict) or set(value) != set(_COLUMNS):
        raise _Invalid(f"'columns' must be an object with the fields score, label and "
                       f"group, got {_short(value)}")
    for name in ("score", "label"):
        if value[name] is not None and not isinstance(value[name], str):
            raise _Invalid(f"'columns.{name}' must be a string or null, got "
                           f"{_short(value[name])}")
    group = value["group"]
    if group is not None and not (isinstance(group, list) and group and all(
            isinstance(name, str) for name in group)):
        raise _Invalid(f"'columns.group' must be a non-empty list of strings or null, "
                       f"got {_short(group)}")
    return dict(value)


def _groups(value):
    if not isinstance(value, list):
        raise _Invalid(f"'groups' must be a list of group labels, got {_short(value)}")
    if len(value) < 2:
        raise _Invalid("'groups' must list two or more labels")
    for label in value:
        if type(label) not in _LABEL_TYPES or (
                type(label) is float and not math.isfinite(label)):
            raise _Invalid(f"group label {_short(label)} is not a string, an integer, a "
                           "finite float or a boolean")
        if type(label) is int and not -(2**63) <= label < 2**63:
            raise _Invalid(f"group label {_short(label)} does not fit a 64-bit integer")
    types = sorted({type(label).__name__ for label in value})
    if len(types) > 1:
        raise _Invalid(f"'groups' mixes labels of types {' and '.join(types)}")
    for a, b in zip(value, value[1:]):
        if not a < b:
            raise _Invalid(f"'groups' must list distinct labels in increasing order "
                           f"({_short(a)} comes before {_short(b)})")
    return value


def _position(label, groups, what):
    """Position of ``label`` among ``groups``, of the same type (True is not 1)."""
    if type(label) is type(groups[0]):
        for k, group in enumerate(groups):
            if group == label:
                return k
    raise _Invalid(f"{what}: {_short(label)} is not among the groups {_short(groups)}")


def _number(value, what, lo=-math.inf, hi=math.inf):
    """``value`` as a float when it is a JSON number (not a boolean) in [lo, hi]."""
    if type(value) in (int, float):
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if math.isfinite(number) and lo <= number <= hi:
            return number
    if hi < math.inf:
        span = f" in [{lo:g}, {hi:g}]"
    else:
        span = f" >= {lo:g}" if lo > -math.inf else ""
    raise _Invalid(f"{what} must be a finite number{span}, got {_short(value)}")


def _validation_share(value, what):
    # a model file keeps a held-out share; held-out data are never saved
    if value is not None:
        _number(value, what, lo=0.0, hi=1.0)
    return value


def _params(value, groups, reference, known_params):
    if not isinstance(value, dict):
        raise _Invalid(f"'params' must be an object, got {_short(value)}")
    unknown = sorted(set(value) - set(known_params))
    if unknown:
        raise _Invalid(f"unknown parameters {unknown}")
    missing = [name for name in REQUIRED_PARAMS if name not in value]
    if missing:
        raise _Invalid(f"'params' lacks {missing}")
    params = dict(value)
    for name in set(params) & set(PARAMETERS):
        if not valid_json(name, params[name]):
            raise _Invalid(f"'params.{name}' must be {PARAMETERS[name].text}, got "
                           f"{_short(params[name])}")
    if "validation" in params:
        params["validation"] = _validation_share(params["validation"], "'params.validation'")
    chosen = params["reference_group"]
    if chosen is not None and _position(chosen, groups,
                                        "'params.reference_group'") != reference:
        raise _Invalid(f"'params.reference_group' {_short(chosen)} is not the "
                       f"'reference_group' {_short(groups[reference])}")
    return params


def _pair(value, what):
    """``(lo, hi)``: two finite numbers, lo < hi."""
    if not isinstance(value, list) or len(value) != 2:
        raise _Invalid(f"{what} must be a list of two numbers, got {_short(value)}")
    lo, hi = (_number(x, what) for x in value)
    if not lo < hi:
        raise _Invalid(f"{what} must hold two numbers, the lower first, got "
                       f"{_short(value)}")
    return lo, hi


def _knots(value, what):
    """A non-empty JSON list of finite numbers as a float64 array."""
    if not isinstance(value, list) or not value:
        raise _Invalid(f"{what} must be a non-empty list of numbers")
    for x in value:
        if type(x) is not float and type(x) is not int:
            _number(x, what)  # raises, naming the value
    try:
        knots = np.array(value, dtype=np.float64)
    except OverflowError:
        knots = None
    if knots is None or not np.isfinite(knots).all():
        for x in value:
            _number(x, what)
    return knots


def _maps(entries, groups, reference):
    if not isinstance(entries, list):
        raise _Invalid(f"'maps' must be a list, got {_short(entries)}")
    maps = {}
    for entry in entries:
        if not isinstance(entry, dict) or set(entry) != {"group", "x", "y"}:
            raise _Invalid("every map must be an object with the fields group, x and y")
        g = _position(entry["group"], groups, "a map's group")
        name = f"the map of group {_short(groups[g])}"
        if g == reference or g in maps:
            raise _Invalid(f"{name} is given twice or for the reference group")
        x = _knots(entry["x"], f"{name}: x")
        y = _knots(entry["y"], f"{name}: y")
        if x.shape != y.shape:
            raise _Invalid(f"{name} needs x and y of one length, got {x.size} and {y.size}")
        if np.any(np.diff(x) <= 0) or np.any(np.diff(y) < 0):
            raise _Invalid(f"{name} is not increasing (x strictly, y never decreasing)")
        maps[g] = (x, y)
    lacking = [groups[g] for g in range(len(groups)) if g != reference and g not in maps]
    if lacking:
        raise _Invalid(f"every group but the reference group needs exactly one map (none "
                       f"for {_short(lacking[0])})")
    return maps


def model_text(doc):
    """The JSON text of a model document (raises ValueError for a non-finite float)."""
    return json.dumps(doc, separators=(",", ":"), allow_nan=False) + "\n"


def write_json(path, doc, inputs=()):
    text = model_text(doc)
    atomic_write(path, lambda f: f.write(text), inputs=inputs)


def read_json(path):
    """The JSON document of a model file; anything but strict JSON is a ValueError."""
    def refuse(constant):
        raise ValueError(f"{constant} is not a JSON number")

    path = os.fspath(path)
    text = read_text(path)
    try:
        return json.loads(text, parse_constant=refuse)
    except RecursionError:
        why = "JSON nested too deeply"
    except ValueError as exc:  # JSONDecodeError, a constant, an integer of 4300 digits
        why = f"invalid JSON: {exc}"
    raise ValueError(MSG_MODEL.format(path=path, why=why))


# ------------------------------------------------------------------ CSV tables

class Table:
    """A CSV file read whole: ``header`` and ``rows`` of strings, and the line every row
    starts on (``lines``). Blank lines are skipped; duplicate column names and rows of
    another length than the header are refused."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self.header, self.rows, self.lines = _parse_csv(read_text(self.path), self.path)
        if not self.header:
            raise ValueError(MSG_EMPTY_CSV.format(path=self.path))
        if not self.rows:
            raise ValueError(MSG_NO_ROWS.format(path=self.path))
        seen = {}
        for k, name in enumerate(self.header):
            if name in seen:
                raise ValueError(MSG_DUPLICATE_COLUMN.format(
                    path=self.path, name=name, first=seen[name] + 1, second=k + 1))
            seen[name] = k
        for line, row in zip(self.lines, self.rows):
            if len(row) != len(self.header):
                raise ValueError(MSG_RAGGED.format(path=self.path, line=line, got=len(row),
                                                   expected=len(self.header)))

    def column(self, name):
        """The strings of column ``name``."""
        if name not in self.header:
            shown = [repr(c) for c in self.header[:20]]
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
                                                   name=name, value=values[k]))
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
                        value=value)) from None
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
