"""The code blocks of the Markdown documents, read and run as ``tests/test_docs.py``
runs them.

The rules, which the documents follow:

- A fenced ``python`` block runs, in the order of the document, in one namespace per
  document, in a scratch folder (the files a block writes are there for the next).
- A fenced ``bash`` block runs too: every command (``\\`` continues a line, ``#`` starts
  a comment) must be ``gpu-xorder ...``, run in-process by ``gpu_xorder.cli.main`` in the
  same folder, and end with exit status 0.
- ``<!-- not run: REASON -->`` just before a block keeps it from running: a ``python``
  block is compiled, each ``gpu-xorder`` command of a ``bash`` block parsed by the
  command line's own parser, and every repository path a ``bash`` command names must
  exist.
- A ``text`` block right after a block that runs, with only ``prints`` between them, is
  everything the block prints to stdout (line by line, trailing spaces ignored); with a
  sentence between them that ends with ``among its lines,`` (or ``among its
  tables,``), every one of its lines must be one of the lines printed, in that order.
- ``<!-- rounding: REASON -->`` between a block and its ``text`` block (before or after
  ``prints`` or the ``among`` sentence) lets every number of two or more decimals in
  the shown lines differ from the printed one by one unit of its last digit (0.730
  against 0.729 or 0.731); the rest of the line, integers and numbers of one decimal
  (parameters such as ``lam 0.5``) exactly as shown. It is for numbers that the
  rounding of a model trained in the block can move (BLAS kernels differ from CPU to
  CPU), never for exact ones, and the REASON says which model; a choice the data settle
  (the ``lam`` a search keeps) is shown exactly, with a margin far above rounding.

Run as a script (``python tests/support/docblocks.py docs/user_guide/choosing_lam.md``)
it prints what each
block prints; ``--write`` rewrites the ``text`` blocks that differ (after a change that
moves the numbers: review the diff).
"""

import contextlib
import dataclasses
import io
import os
import re
import shlex
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

FENCE = re.compile(r"^( *)```(\w*)\n(.*?)^\1```[ \t]*$", re.MULTILINE | re.DOTALL)
NOT_RUN = re.compile(r"<!-- not run: (.+?) -->\s*$", re.DOTALL)
ROUNDING = re.compile(r"\s*<!-- rounding: .+? -->\s*", re.DOTALL)
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
AMONG = re.compile(r"among\s+its\s+(?:lines|tables),\s*$")


@dataclasses.dataclass
class Block:
    """One fenced block: its language, code (indentation removed), first line number,
    the reason it is not run (None: it runs) and the output the document shows."""

    lang: str
    code: str
    line: int
    not_run: str = None
    shown: str = None
    exact: bool = True
    rounding: bool = False  # numbers within one unit of their last digit (ROUNDING)
    shown_at: tuple = None  # (start, end, indent) of the shown text's body in the document

    def where(self, path):
        return f"{Path(path).name}, line {self.line}"


def blocks(text):
    """Every fenced block of a Markdown text, ``text`` blocks attached as the shown
    output of the block before them where the rules say so."""
    out, end = [], 0
    for match in FENCE.finditer(text):
        indent, lang, body = match.group(1), match.group(2), match.group(3)
        code = "\n".join(line[len(indent):] if line.startswith(indent) else line
                         for line in body.split("\n"))
        between = text[end:match.start()].strip()
        rounding = bool(ROUNDING.search(between))
        between = ROUNDING.sub(" ", between).strip()
        end = match.end()
        line = text.count("\n", 0, match.start()) + 1
        if lang == "text" and out and out[-1].lang in ("python", "bash") \
                and out[-1].not_run is None:
            if between == "prints":
                out[-1].shown, out[-1].exact, out[-1].rounding = code, True, rounding
                out[-1].shown_at = (match.start(3), match.end(3), indent)
                continue
            if AMONG.search(between):
                out[-1].shown, out[-1].exact, out[-1].rounding = code, False, rounding
                out[-1].shown_at = (match.start(3), match.end(3), indent)
                continue
        reason = NOT_RUN.search(between)
        out.append(Block(lang, code, line, reason.group(1) if reason else None))
    return out


def commands(code):
    """The commands of a bash block, each as its list of words."""
    joined = re.sub(r"\\\n", " ", code)
    return [words for words in (shlex.split(line, comments=True)
                                for line in joined.split("\n")) if words]


def run_python(block, namespace, path):
    """Run a python block in ``namespace``; return what it printed."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exec(compile(block.code, block.where(path), "exec"), namespace)
    return buffer.getvalue()


def run_bash(block, path):
    """Run every ``gpu-xorder`` command of a bash block in-process; return what they
    printed and their exit statuses."""
    from gpu_xorder.cli import main

    buffer, statuses = io.StringIO(), []
    for words in commands(block.code):
        if words[0] != "gpu-xorder":
            raise AssertionError(f"{block.where(path)}: not a gpu-xorder command: {words}")
        with contextlib.redirect_stdout(buffer):
            statuses.append(main(words[1:]))
    return buffer.getvalue(), statuses


def same_line(got, want, rounding=False):
    """Whether a printed line is the shown one: equal, or with ``rounding`` equal but
    for numbers of two or more decimals that differ by at most one unit of the shown
    number's last digit (and have as many decimals)."""
    if not rounding or got == want:
        return got == want
    if NUMBER.split(got) != NUMBER.split(want):
        return False
    for g, w in zip(NUMBER.findall(got), NUMBER.findall(want)):
        decimals = len(w.partition(".")[2])
        if g == w:
            continue
        if decimals < 2 or len(g.partition(".")[2]) != decimals or \
                abs(int(g.replace(".", "")) - int(w.replace(".", ""))) > 1:
            return False
    return True


def matches(block, printed):
    """Whether what a block printed is what the document shows (``same_line``: line by
    line, or in order among the printed lines)."""
    got = [line.rstrip() for line in printed.splitlines()]
    want = [line.rstrip() for line in block.shown.splitlines()]
    if block.exact:
        return len(got) == len(want) and all(
            same_line(g, w, block.rounding) for g, w in zip(got, want))
    position = 0
    for line in want:
        found = next((k for k in range(position, len(got))
                      if same_line(got[k], line, block.rounding)), None)
        if found is None:
            return False
        position = found + 1
    return True


def reselect(shown, printed):
    """An ``among`` selection brought up to date: each shown line replaced by the one
    printed line that starts as it does (up to its first digit), where there is one."""
    got = [line.rstrip() for line in printed.splitlines()]
    out = []
    for line in shown.splitlines():
        key = re.split(r"\d", line.rstrip(), maxsplit=1)[0]
        same = [g for g in got if g.startswith(key)]
        out.append(same[0] if len(same) == 1 and key else line.rstrip())
    return "\n".join(out) + "\n"


def main(argv):
    """Print what every block of a document prints (for writing its text blocks); with
    ``--write``, also replace every ``prints`` block that differs by what was printed,
    and in an ``among`` selection each line by the printed line that starts as it does
    (``reselect``)."""
    import tempfile

    write = "--write" in argv
    path = Path([a for a in argv if a != "--write"][0]).resolve()
    text = path.read_text(encoding="utf-8")
    namespace = {"__name__": "__docs__"}
    here = os.getcwd()
    replace = []
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)
        try:
            for block in blocks(text):
                if block.not_run is not None or block.lang not in ("python", "bash"):
                    continue
                printed = (run_python(block, namespace, path) if block.lang == "python"
                           else run_bash(block, path)[0])
                print(f"===== {block.where(path)} ({block.lang})")
                print(printed, end="")
                if block.shown is not None and not matches(block, printed):
                    print("----- (differs from the document)")
                    replace.append((block.shown_at, printed if block.exact
                                    else reselect(block.shown, printed)))
        finally:
            os.chdir(here)
    if write and replace:
        for (start, end, indent), printed in sorted(replace, reverse=True):
            body = "".join(indent + line if line.strip() else line
                           for line in printed.splitlines(keepends=True))
            text = text[:start] + body + text[end:]
        path.write_text(text, encoding="utf-8")
        print(f"===== {len(replace)} text block(s) rewritten in {path.name}")


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    main(sys.argv[1:])
