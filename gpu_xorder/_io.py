"""Files: score tables as CSV, fitted models as JSON; reads that name the file, writes
that are all or nothing.

Reading. Compressed files (gzip, bz2, xz) are recognised by their content, whatever they
are called. Text is UTF-8, with or without a byte-order mark; an archive, a workbook,
UTF-16 or UTF-32 text and binary data are refused saying what the file is. A CSV file
is read whole by one reader (:class:`Table`): blank lines are skipped, every row keeps
the line it starts on (quoted cells may span lines), a cell may be of any length, and
every error names the file, and where it can the line and the column (a cell shown
shortened, :func:`shown_cell`). A saved model is plain JSON (never pickle), checked
field by field by :func:`model_from_dict` before any value of it is used.

Writing. :func:`check_all_outputs` takes every output of a command, files and folders
with the files they will hold, before the command does any work: it refuses two
outputs that are one file by any path, and through :func:`check_output` an output that
is one of the command's inputs, a folder, a device, a pipe, a file it may not write, or
a path in a folder that is missing or that it cannot write; a symbolic link is written
through (its target is replaced, the link kept). :func:`write_files` writes several
files or none: each goes to a temporary file beside its target, all of them are written
and flushed before the first is moved into place by ``os.replace``, and the temporary
files are removed on any error, on Ctrl-C and on SIGTERM or SIGHUP (held while a
temporary file or folder is made and recorded, and while files are moved into place).
A file named ``.gz``, ``.bz2`` or ``.xz`` is written compressed so. Floats are written
by ``repr`` (shortest round trip), so a loaded model transforms bit for bit as the
fitted one.
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
MSG_TWICE = ("refusing to write {path} twice: two outputs of this command name it "
             "({first} and {second})")
MSG_NO_FOLDER = "cannot write {path}: no folder {folder}"
MSG_FOLDER_LOCKED = "cannot write {path}: cannot create files in {folder} ({why})"
MSG_NOT_FOLDER = "refusing to write {path}: it is a file, not a folder"
MSG_NOT_REGULAR = "refusing to write {path}: it is {what}, not a regular file"
MSG_READ_ONLY = "cannot write {path}: the file is read-only"
MSG_WRITE = "cannot write {path}: {why}"
MSG_COMPRESSED = "{path}: cannot read the {kind} data ({why}); is the file truncated?"
MSG_UTF16 = "{path}: the file is UTF-16 text; save it as UTF-8 (Excel: CSV UTF-8)"
MSG_WIDE = ("{path}: the file is {encoding} text{bom}; save it as UTF-8 (Excel: CSV "
            "UTF-8)")
MSG_BINARY = ("{path}, line {line}: a NUL byte, so binary data, not text; give a text "
              "file (UTF-8, or gzip, bz2 or xz of one)")
MSG_ARCHIVE = ("{path}: the file is {what}; {fix} (gzip, bz2 and xz files are read as "
               "they are)")
MSG_SEPARATOR = ("{path}: the header is one column, {header}, holding {sep}: the file "
                 "is separated by {name}, not commas; save it as comma-separated CSV "
                 "(Excel: CSV UTF-8)")
MSG_DECODE = ("{path}, line {line}: not UTF-8 text (byte {byte}); save the file as "
              "UTF-8 (Excel: CSV UTF-8)")
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
    """The text of ``path``: UTF-8 (a byte-order mark is dropped), decompressed. An
    archive, a workbook, UTF-16 or UTF-32 text and binary data are refused, saying
    what the file is."""
    data = read_bytes(path)
    _refuse_not_utf8(data, os.fspath(path))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = len((data[:exc.start] + b".").splitlines())
        raise ValueError(MSG_DECODE.format(path=os.fspath(path), line=line,
                                           byte=data[exc.start:exc.start + 1])) from None


_ZIP = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")
_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_WIDE = (("UTF-32", "utf-32-le", "little"), ("UTF-32", "utf-32-be", "big"),
         ("UTF-16", "utf-16-le", "little"), ("UTF-16", "utf-16-be", "big"))


def _refuse_not_utf8(data, path):
    """Raise the ValueError that says what ``data`` is when it cannot be UTF-8 text: a
    zip archive or workbook, UTF-16 or UTF-32 text (with or without a byte-order
    mark), binary data (a NUL byte, which no text file holds)."""
    if data.startswith(_ZIP):
        head = data[:65536]
        if b"xl/" in head or b"[Content_Types].xml" in head:
            what, fix = "an Excel workbook", "save it as CSV (Excel: CSV UTF-8)"
        elif b"opendocument.spreadsheet" in head:
            what, fix = "an OpenDocument spreadsheet", "save it as CSV (UTF-8)"
        else:
            what, fix = "a zip archive", "unzip it and give the file it holds"
        raise ValueError(MSG_ARCHIVE.format(path=path, what=what, fix=fix))
    if data.startswith(_OLE2):
        raise ValueError(MSG_ARCHIVE.format(
            path=path, what="an Excel 97-2003 workbook (or another OLE2 file)",
            fix="save it as CSV (Excel: CSV UTF-8)"))
    if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        raise ValueError(MSG_WIDE.format(path=path, encoding="UTF-32", bom=""))
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise ValueError(MSG_UTF16.format(path=path))
    nul = data.find(b"\x00")
    if nul < 0:
        return
    sample = data[:4096]
    sample = sample[:len(sample) - len(sample) % 4]
    for encoding, codec, order in _WIDE:
        text = sample.decode(codec, errors="replace")
        # text of ours has no NUL and holds a separator or a line break
        if "\x00" not in text and any(c in text for c in ",;\t\n"):
            raise ValueError(MSG_WIDE.format(
                path=path, encoding=encoding,
                bom=f" ({order}-endian, without a byte-order mark)"))
    raise ValueError(MSG_BINARY.format(path=path, line=data.count(b"\n", 0, nul) + 1))


# ------------------------------------------------------------------ writing

def check_all_outputs(files=(), folders=(), inputs=()):
    """Check every output of one command, before its work, against the others and
    against its ``inputs``. ``files``: ``(option, path)`` pairs; ``folders``:
    ``(option, path, names)``, ``names`` the files the folder will hold (None: not
    known yet); a None path is no output. Two outputs naming one file by any path
    (links, ``..``, another case where the file system ignores case), a folder output's
    file that is an input or not a regular file, and whatever :func:`check_output` or
    :func:`check_folder` refuses raise ValueError (OSError for the file system)."""
    files = [(what, os.fspath(path)) for what, path in files if path is not None]
    folders = [(what, os.fspath(path), tuple(names or ()))
               for what, path, names in folders if path is not None]
    claimed = {}

    def claim(path, what):
        key = _identity(path)
        if key in claimed:
            raise ValueError(MSG_TWICE.format(path=path, first=claimed[key], second=what))
        claimed[key] = what

    for what, path in files:
        claim(path, what)
    for what, path, names in folders:
        claim(path, what)
        for name in names:
            claim(os.path.join(path, name), f"the file {name} of {what}")
    for _, path in files:
        check_output(path, inputs)
    for _, path, names in folders:
        target = check_folder(path)
        for name in names if os.path.isdir(target) else ():
            _check_replaced(os.path.join(path, name), os.path.join(target, name), inputs)


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
    mode = _check_replaced(path, target, inputs)
    if mode is not None and not os.access(target, os.W_OK):
        raise PermissionError(MSG_READ_ONLY.format(path=path))
    try:  # the one sure test that the rename at the end can succeed
        with _signals_held():  # the probe never outlives a signal
            fd, probe = tempfile.mkstemp(prefix=".gpu-xorder-", suffix=".tmp", dir=folder)
            os.close(fd)
            os.unlink(probe)
    except OSError as exc:
        raise PermissionError(MSG_FOLDER_LOCKED.format(
            path=path, folder=folder, why=exc.strerror or exc)) from None
    return target


def _check_replaced(path, target, inputs):
    """Refuse a ``target`` that is not a regular file or is one of ``inputs``; its mode,
    None when it does not exist."""
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
    return mode


def check_outputs(paths, inputs=()):
    """``check_output`` of every path of ``paths``, which must name distinct files."""
    paths = [os.fspath(path) for path in paths]
    check_all_outputs([(f"output {k + 1}", path) for k, path in enumerate(paths)],
                      inputs=inputs)
    return [os.path.realpath(path) for path in paths]


def _same_file(a, b):
    if os.path.exists(a) and os.path.exists(b):
        return os.path.samefile(a, b)
    return os.path.realpath(a) == os.path.realpath(b)


def _identity(path):
    """What output ``path`` names, for comparing outputs: the existing file (device and
    inode), else its folder and name (casefolded where the file system ignores case)."""
    real = os.path.realpath(path)
    with contextlib.suppress(OSError):
        info = os.stat(real)
        return ("file", info.st_dev, info.st_ino)
    folder, name = os.path.split(real)
    try:
        info = os.stat(folder)
    except OSError:  # a missing folder; check_output refuses it
        return ("path", real)
    return ("name", info.st_dev, info.st_ino,
            name.casefold() if _ignores_case(folder) else name)


def _ignores_case(folder):
    """Whether the file system ignores the case of names (macOS, Windows), tried on the
    nearest of ``folder`` and its parents whose name has letters."""
    while True:
        parent, name = os.path.split(folder)
        if name.swapcase() != name:
            try:
                return os.path.samefile(folder, os.path.join(parent, name.swapcase()))
            except OSError:
                return False
        if parent == folder:
            return False
        folder = parent


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
                path = os.fspath(path)
                try:
                    with _signals_held():  # no temporary file exists unrecorded
                        fd, tmp = tempfile.mkstemp(prefix=".gpu-xorder-", suffix=".tmp",
                                                   dir=os.path.dirname(target))
                        staged.append(tmp)
                except OSError as exc:
                    raise OSError(exc.errno, MSG_WRITE.format(
                        path=path, why=exc.strerror or exc)) from None
                _stage(fd, tmp, path, target, write, newline)
            with _signals_held():  # a signal waits until every file is in place
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
        with _signals_held():  # the probe never outlives a signal
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
    an error (also SIGTERM, SIGHUP) it is removed and ``path`` left as it was; an
    OSError names the output, never the temporary folder."""
    path = os.fspath(path)
    target = check_folder(path)
    exists = os.path.isdir(target)
    tmp = None
    with _signals_raise():
        try:
            with _signals_held():  # no temporary folder exists unrecorded
                tmp = tempfile.mkdtemp(prefix=".gpu-xorder-",
                                       dir=target if exists else os.path.dirname(target))
            yield tmp
            for name in os.listdir(tmp):
                fd = os.open(os.path.join(tmp, name), os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
            with _signals_held():  # a signal waits until every file is in place
                if exists:
                    for name in sorted(os.listdir(tmp)):
                        os.replace(os.path.join(tmp, name), os.path.join(target, name))
                    os.rmdir(tmp)
                else:
                    os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes 0700
                    os.rename(tmp, target)
        except BaseException as exc:
            if tmp is not None:
                shutil.rmtree(tmp, ignore_errors=True)
                if isinstance(exc, OSError):
                    raise _named_for_user(exc, tmp, path) from None
            raise


def _named_for_user(exc, tmp, path):
    """The OSError ``exc`` naming the output ``path`` where it names the temporary
    folder ``tmp`` (``tmp/records.json`` becomes ``path/records.json``)."""
    name = os.fspath(exc.filename) if exc.filename is not None else tmp
    if name == tmp or name.startswith(tmp + os.sep):
        name = path + name[len(tmp):]
    why = exc.strerror or str(exc).replace(tmp, path)
    return OSError(exc.errno, MSG_WRITE.format(path=name, why=why))


def _umask():
    umask = os.umask(0)
    os.umask(umask)
    return umask


def _stage(fd, tmp, path, target, write, newline):
    """Fill the temporary file ``tmp`` (open as ``fd``) beside ``target`` with what
    ``write`` writes (compressed as the name ``path`` says), flushed to disk and with
    the permissions of ``target``; the caller removes it on any error."""
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
        raise OSError(exc.errno, MSG_WRITE.format(path=path, why=exc.strerror or exc)) \
            from None


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


@contextlib.contextmanager
def _signals_held():
    """SIGINT, SIGTERM and SIGHUP wait until the block ends, then act as they would
    have (KeyboardInterrupt, SystemExit, or the end of the process): the few steps that
    create a temporary file and record its name, or move staged files into place, are
    never cut in two. Only in the main thread; a program's own handlers are left alone."""
    pending, previous = [], {}
    if threading.current_thread() is threading.main_thread():
        for name in ("SIGINT", "SIGTERM", "SIGHUP"):
            signum = getattr(signal, name, None)
            if signum is not None and signal.getsignal(signum) in (
                    signal.SIG_DFL, signal.default_int_handler, _exit_on_signal):
                previous[signum] = signal.signal(
                    signum, lambda signum, frame: pending.append(signum))
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for signum in dict.fromkeys(pending):
            if previous[signum] == signal.SIG_DFL:
                os.kill(os.getpid(), signum)  # the default: the process ends here
            else:
                previous[signum](signum, None)


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
