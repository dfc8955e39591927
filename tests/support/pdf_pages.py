"""How full each page of a PDF printed by Chromium is: the pages' content streams read
with a small interpreter of the PDF drawing operators (text positions, rectangles,
paths, with the transformation matrix), no PDF library needed."""

import re
import zlib

#: The tokens of a content stream: dictionaries, strings, names, numbers, operators.
TOKEN = re.compile(rb"<<|>>|<[0-9A-Fa-f\s]*>|\((?:\\.|[^\\)])*\)|/[^\s/<>\[\]()]+|"
                   rb"[-+]?\d*\.?\d+|[A-Za-z'\"*]+|\[|\]")
NUMBER = re.compile(rb"[-+]?\d*\.?\d+")
#: The report's @page margin, 15 mm, in points.
MARGIN_PT = 15 / 25.4 * 72


def _times(a, b):
    """The matrix product ``a b`` of PDF matrices ``(a, b, c, d, e, f)``."""
    return (a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
            a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3],
            a[4] * b[0] + a[5] * b[2] + b[4], a[4] * b[1] + a[5] * b[3] + b[5])


def _y(m, x, y):
    return m[1] * x + m[3] * y + m[5]


def _objects(pdf):
    starts = {int(m.group(1)): m.start() for m in re.finditer(rb"(\d+) 0 obj", pdf)}
    return {n: pdf[s:pdf.index(b"endobj", s)] for n, s in starts.items()}


def _lowest(stream):
    """The lowest y (page space, points) that anything is drawn at; None when blank.
    Clipping rectangles (``re`` followed by ``W``) draw nothing."""
    ctm, stack, args, lowest = (1, 0, 0, 1, 0, 0), [], [], None
    tokens = TOKEN.findall(stream)
    for i, token in enumerate(tokens):
        if NUMBER.fullmatch(token):
            args.append(float(token))
            continue
        points = []
        if token == b"q":
            stack.append(ctm)
        elif token == b"Q" and stack:
            ctm = stack.pop()
        elif token == b"cm" and len(args) >= 6:
            ctm = _times(tuple(args[-6:]), ctm)
        elif token == b"re" and len(args) >= 4:
            x, y, w, h = args[-4:]
            if tokens[i + 1:i + 2] not in ([b"W"], [b"W*"]):
                points = [(x, y), (x + w, y + h)]
        elif token in (b"m", b"l", b"c", b"v", b"y") and len(args) >= 2:
            points = [tuple(args[-2:])]
        elif token == b"Tm" and len(args) >= 6:
            points = [tuple(args[-2:])]
        for x, y in points:
            y = _y(ctm, x, y)
            lowest = y if lowest is None else min(lowest, y)
        args = []
    return lowest


def page_fills(pdf, margin_pt=MARGIN_PT):
    """Per page of ``pdf`` (bytes), the share of the printable height down to the
    lowest thing drawn: 1 a full page, 0 a blank one."""
    objects = _objects(pdf)
    fills = []
    for n in sorted(objects):
        page = objects[n]
        if not re.search(rb"/Type\s*/Page\b", page):
            continue
        box = [float(v) for v in
               re.search(rb"/MediaBox \[([^\]]+)\]", page).group(1).split()]
        content = objects[int(re.search(rb"/Contents (\d+) 0 R", page).group(1))]
        body = content[content.index(b"stream") + 6:content.rindex(b"endstream")]
        lowest = _lowest(zlib.decompress(body.lstrip(b"\r\n")))
        top, bottom = box[3] - margin_pt, box[1] + margin_pt
        fills.append(0.0 if lowest is None else
                     min(1.0, max(0.0, (top - lowest) / (top - bottom))))
    return fills
