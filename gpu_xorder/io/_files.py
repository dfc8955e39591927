"""Files: writes that are all or nothing (reads: ``_read``).

Writing. :func:`check_all_outputs` takes every output of a command, files and folders
with the files they will hold, before the command does any work: it refuses two
outputs that are one file by any path, and through :func:`check_output` an output that
is one of the command's inputs, a folder, a file it may not write, a name or path longer
than the file system takes, the command's own standard output or error (``-``,
``/dev/stdout`` sent to a file: its printed tables would be lost), or a path in a folder
that is missing or that it cannot write; a symbolic link is written through (its target
is replaced, the link kept). A character device or a pipe (``/dev/null``, ``>(jq .)``)
is written directly, after the files. :func:`write_files` writes several files
or none: each goes to a temporary file beside its target, all of them are written and
flushed before the first is moved into place by ``os.replace``, and the temporary files
are removed on any error, on Ctrl-C and on SIGTERM or SIGHUP (held while a temporary
file or folder is made and recorded, and while files are moved into place). A file
named ``.gz``, ``.bz2`` or ``.xz`` is written compressed so. JSON documents are written
strictly (:func:`json_text`: no NaN), floats by ``repr`` (shortest round trip).
"""

import bz2
import contextlib
import errno
import gzip
import io
import json
import lzma
import os
import shutil
import stat
import tempfile

from ._signals import signals_held, signals_raise

MSG_SAME_FILE = "refusing to write {path}: it is also an input of this command"
MSG_TWICE = ("refusing to write {path} twice: two outputs of this command name it "
             "({first} and {second})")
MSG_NO_FOLDER = "cannot write {path}: no folder {folder}"
MSG_FOLDER_LOCKED = "cannot write {path}: cannot create files in {folder} ({why})"
MSG_NOT_FOLDER = "refusing to write {path}: it is a file, not a folder"
MSG_NOT_REGULAR = "refusing to write {path}: it is {what}, not a regular file"
MSG_READ_ONLY = "cannot write {path}: the file is read-only"
MSG_WRITE = "cannot write {path}: {why}"
MSG_NAME_LONG = ("cannot write {path}: its name is {size} bytes long, more than the "
                 "{limit} the file system allows")
MSG_PATH_LONG = ("cannot write {path}: the path is {size} bytes long, more than the "
                 "{limit} the file system allows")
MSG_STANDARD = ("refusing to write {path}: it is this command's standard {stream}, "
                "where its tables and messages go (they would be lost or mixed with the "
                "file); give a file name{hint}")
#: The name of standard output as an output path.
STDOUT = "-"
#: Compression of an output by its name's suffix.
_COMPRESS = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz"}


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

    def claim(path, what, key=None):
        key = _identity(path) if key is None else key
        if key in claimed:
            raise ValueError(MSG_TWICE.format(path=path, first=claimed[key], second=what))
        claimed[key] = what

    for what, path in files:
        claim(path, what)
    for what, path, names in folders:
        claim(path, what)
        real = os.path.realpath(path)
        missing = not os.path.isdir(real)
        for name in names:  # in a folder yet to be made: a name is its path, at once
            claim(os.path.join(path, name), f"the file {name} of {what}",
                  ("path", os.path.join(real, name)) if missing else None)
    for _, path in files:
        check_output(path, inputs)
    for _, path, names in folders:
        target = check_folder(path)
        exists = os.path.isdir(target)
        limits = _name_limits(target if exists else os.path.dirname(target))
        for name in names:
            _check_name(os.path.join(path, name), os.path.join(target, name), limits)
            if exists:
                _check_replaced(os.path.join(path, name), os.path.join(target, name),
                                inputs)


def check_output(path, inputs=()):
    """The file that writing output ``path`` replaces: ``path``, or the target of the
    link ``path`` is, or ``path`` itself where it is a character device, a pipe or a
    socket (written directly). Refuse (ValueError, or OSError for the file system) a
    path that is one of ``inputs``, a folder, the command's standard output or error
    (``_refuse_standard``), an existing file this process may not write, a name or path
    longer than the file system takes, or a path in a folder that is missing or where
    no file can be created. Commands call it on every output before their work."""
    path = os.fspath(path)
    _refuse_standard(path)
    if _stream(path):  # written directly, as it is: nothing to stage beside it
        if not os.access(path, os.W_OK):
            raise PermissionError(MSG_READ_ONLY.format(path=path))
        return path
    target = os.path.realpath(path)
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise FileNotFoundError(MSG_NO_FOLDER.format(path=path, folder=folder))
    _check_name(path, target)
    mode = _check_replaced(path, target, inputs)
    if mode is not None and not os.access(target, os.W_OK):
        raise PermissionError(MSG_READ_ONLY.format(path=path))
    try:  # the one sure test that the rename at the end can succeed
        with signals_held():  # the probe never outlives a signal
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


def _stream(path):
    """Whether output ``path`` is written as a stream, in place and never replaced: a
    character device (/dev/null, a terminal), a pipe (``>(command)``, a FIFO) or a
    socket, followed through links (``/dev/fd/63``)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _refuse_standard(path):
    """Refuse ``-`` and any path to the file or pipe of this process's standard output
    or error (``/dev/stdout`` with stdout sent to a file, say): replacing it would
    lose the command's printed tables, writing into it would mix them with the file.
    A terminal is left alone (nothing there is lost)."""
    hint = " (audit: --format json prints the JSON on standard output)"
    if path == STDOUT:
        raise ValueError(MSG_STANDARD.format(path=path, stream="output", hint=hint))
    try:
        info = os.stat(path)
    except OSError:
        return
    for fd, stream in ((1, "output"), (2, "error")):
        try:
            if os.isatty(fd):
                continue
            other = os.fstat(fd)
        except OSError:
            continue
        if (info.st_dev, info.st_ino) == (other.st_dev, other.st_ino):
            raise ValueError(MSG_STANDARD.format(path=path, stream=stream,
                                                 hint=hint if fd == 1 else ""))


def _name_limits(folder):
    """The longest name and path in bytes the file system of ``folder`` takes
    (NAME_MAX, PATH_MAX; 255 and 4096 where it does not say, or the folder is yet to
    be made)."""
    limits = []
    for key, default in (("PC_NAME_MAX", 255), ("PC_PATH_MAX", 4096)):
        try:
            limit = os.pathconf(folder, key)
        except (OSError, ValueError, AttributeError):
            limit = None
        limits.append(default if limit is None or limit < 0 else limit)
    return tuple(limits)


def _check_name(path, target, limits=None):
    """Refuse an output whose file name, or whole path, is longer than the file
    system of its folder takes (``limits``: :func:`_name_limits`, of the folder
    unless given), before any work rather than at the end."""
    folder, name = os.path.split(target)
    name_max, path_max = _name_limits(folder) if limits is None else limits
    for size, limit, message in ((len(os.fsencode(name)), name_max, MSG_NAME_LONG),
                                 (len(os.fsencode(target)), path_max, MSG_PATH_LONG)):
        if size > limit:
            raise OSError(errno.ENAMETOOLONG, message.format(
                path=path, size=size, limit=limit))


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
    ``open``). Outputs are checked as :func:`check_outputs` does; all regular files
    are staged in temporary files beside their targets before the first is moved into
    place, then a device or pipe is written directly."""
    check_outputs([path for path, _, _ in files], inputs)
    streams = [(path, write, newline) for path, write, newline in files
               if _stream(path)]
    files = [file for file in files if not _stream(file[0])]
    targets = [os.path.realpath(path) for path, _, _ in files]
    _write_staged(files, targets)
    for path, write, newline in streams:  # after the files: a reader may be slow
        _write_stream(path, write, newline)


def _write_stream(path, write, newline):
    """Write the text of ``write`` into the stream ``path`` (a device or a pipe), as
    it comes (compressed as its name says)."""
    try:
        with open(path, "wb") as raw:
            _write_text(raw, path, write, newline)
    except OSError as exc:
        raise OSError(exc.errno, MSG_WRITE.format(path=path, why=exc.strerror or exc)) \
            from None


def _write_staged(files, targets):
    """:func:`write_files` of regular files: staged beside their ``targets``, then
    moved into place."""
    staged = []
    with signals_raise():
        try:
            for (path, write, newline), target in zip(files, targets):
                path = os.fspath(path)
                try:
                    with signals_held():  # no temporary file exists unrecorded
                        fd, tmp = tempfile.mkstemp(prefix=".gpu-xorder-", suffix=".tmp",
                                                   dir=os.path.dirname(target))
                        staged.append(tmp)
                except OSError as exc:
                    raise OSError(exc.errno, MSG_WRITE.format(
                        path=path, why=exc.strerror or exc)) from None
                _stage(fd, tmp, path, target, write, newline)
            with signals_held():  # a signal waits until every file is in place
                for tmp, (path, _, _), target in zip(staged, files, targets):
                    try:
                        os.replace(tmp, target)
                    except OSError as exc:
                        raise OSError(exc.errno, MSG_WRITE.format(
                            path=os.fspath(path), why=exc.strerror or exc)) from None
        except BaseException:
            with signals_held():  # a repeated Ctrl-C never leaves one behind
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
    _check_name(path, target)
    where = target if os.path.isdir(target) else os.path.dirname(target)
    if not os.path.isdir(where):
        raise FileNotFoundError(MSG_NO_FOLDER.format(path=path, folder=where))
    try:
        with signals_held():  # the probe never outlives a signal
            os.rmdir(tempfile.mkdtemp(prefix=".gpu-xorder-", dir=where))
    except OSError as exc:
        raise PermissionError(MSG_FOLDER_LOCKED.format(
            path=path, folder=where, why=exc.strerror or exc)) from None
    return target


@contextlib.contextmanager
def staged_folder(path, owned=()):
    """Write an output folder all or nothing: yields a temporary folder to write the
    files in; after the block it becomes ``path`` (one rename) or, when ``path`` exists,
    its files are moved into ``path`` one by one, replacing those of the same names, and
    the files named in ``owned`` (what this command, or an earlier run of it, writes
    there) that this run did not write are removed: the folder never mixes two runs'
    outputs. On an error (also SIGTERM, SIGHUP) it is removed and ``path`` left as it
    was; an OSError names the output, never the temporary folder."""
    path = os.fspath(path)
    target = check_folder(path)
    exists = os.path.isdir(target)
    tmp = None
    with signals_raise():
        try:
            with signals_held():  # no temporary folder exists unrecorded
                tmp = tempfile.mkdtemp(prefix=".gpu-xorder-",
                                       dir=target if exists else os.path.dirname(target))
            yield tmp
            for name in os.listdir(tmp):
                fd = os.open(os.path.join(tmp, name), os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
            with signals_held():  # a signal waits until every file is in place
                if exists:
                    written = sorted(os.listdir(tmp))
                    for name in written:
                        os.replace(os.path.join(tmp, name), os.path.join(target, name))
                    os.rmdir(tmp)
                    for name in sorted(set(owned) - set(written)):
                        if os.path.basename(name) == name:  # a name, never a path
                            with contextlib.suppress(FileNotFoundError):
                                os.remove(os.path.join(target, name))
                else:
                    os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes 0700
                    os.rename(tmp, target)
        except BaseException as exc:
            if tmp is not None:
                with signals_held():  # a repeated Ctrl-C never cuts the removal short
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
            _write_text(raw, path, write, newline)
            raw.flush()
            os.fsync(raw.fileno())
        os.chmod(tmp, _mode(target))  # mkstemp makes 0600; give what open() would
    except OSError as exc:  # named after the output, not the temporary file
        raise OSError(exc.errno, MSG_WRITE.format(path=path, why=exc.strerror or exc)) \
            from None


def _write_text(raw, path, write, newline):
    """Run ``write`` on a UTF-8 text stream over the binary file ``raw``, compressed as
    the name ``path`` says; the compressor's trailer written, ``raw`` left open."""
    stream = _compressor(path, raw)
    text = io.TextIOWrapper(stream, encoding="utf-8", newline=newline)
    write(text)
    text.flush()
    text.detach()
    if stream is not raw:
        stream.close()  # writes the trailer; leaves ``raw`` open


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


def json_text(doc):
    """The JSON text of a model document (raises ValueError for a non-finite float)."""
    return json.dumps(doc, separators=(",", ":"), allow_nan=False) + "\n"


def write_json(path, doc, inputs=()):
    text = json_text(doc)
    atomic_write(path, lambda f: f.write(text), inputs=inputs)
