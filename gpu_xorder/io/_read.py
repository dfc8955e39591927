"""Files: reads that name the file.

Compressed files (gzip, bz2, xz) are recognised by their content, whatever they are
called. Text is UTF-8, with or without a byte-order mark; an archive, a workbook,
UTF-16 or UTF-32 text and binary data are refused saying what the file is.
"""

import bz2
import codecs
import gzip
import lzma
import os
import re
import zlib

MSG_COMPRESSED = "{path}: cannot read the {kind} data ({why}); is the file truncated?"
MSG_UTF16 = "{path}: the file is UTF-16 text; save it as UTF-8 (Excel: CSV UTF-8)"
MSG_WIDE = ("{path}: the file is {encoding} text{bom}; save it as UTF-8 (Excel: CSV "
            "UTF-8)")
MSG_BINARY = ("{path}, line {line}: a NUL byte, so binary data, not text; give a text "
              "file (UTF-8, or gzip, bz2 or xz of one)")
MSG_ARCHIVE = ("{path}: the file is {what}; {fix} (gzip, bz2 and xz files are read as "
               "they are)")
MSG_DECODE = ("{path}, line {line}: not UTF-8 text (byte {byte}); save the file as "
              "UTF-8 (Excel: CSV UTF-8)")
_BZ2_BLOCK = (b"\x31\x41\x59\x26\x53\x59", b"\x17\x72\x45\x38\x50\x90")  # block, end
_DECOMPRESS = {"gzip": gzip.decompress, "bz2": bz2.decompress, "xz": lzma.decompress}
_ZIP = (b"PK\x03\x04", b"PK\x05\x06", b"PK\x07\x08")
_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_WIDE = (("UTF-32", "utf-32-le", "little"), ("UTF-32", "utf-32-be", "big"),
         ("UTF-16", "utf-16-le", "little"), ("UTF-16", "utf-16-be", "big"))



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
