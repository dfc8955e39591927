"""docs/RESULTS.md: every number a sentence quotes is one of the tables it rests on, so
that prose cannot drift from its tables.

A number (three or more decimals: 0.061, +0.0023) in a paragraph of a section must
appear, as printed or rounded from a table's value, in a table (or a generated list
line, ``- ...``) of the same section or of a section the paragraph names ("section 5").
The summaries (the opening, "In short", "How measured", the paper's figures beside
ours, "Figures") may quote any table of the document. A paragraph whose numbers come
from elsewhere (a log, an earlier run, a formula) says so in an HTML comment right
before it, ``<!-- quotes: SOURCE -->``; the comment must name its source."""

import re

import pytest

from support import REPO

RESULTS = REPO / "docs" / "RESULTS.md"
NUMBER = re.compile(r"(?<![\w.])[+-]?\d*\.\d{3,}(?!\d)")
SECTION_REF = re.compile(r"sections? ((?:\d(?:, | and | or |-)?)+)")
SUMMARIES = ("In short", "How measured", "Figures", "8. ")
EXEMPT = re.compile(r"<!-- quotes: (.*?) -->\s*$")


def _numbers(text):
    return {m.lstrip("+-") for m in NUMBER.findall(text)}


def _with_roundings(numbers):
    """Each number and its roundings to fewer decimals (at least three)."""
    out = set(numbers)
    for n in numbers:
        decimals = len(n.split(".")[1])
        for d in range(3, decimals):
            out.add(f"{float(n):.{d}f}")
    return out


def _sections(text):
    parts = re.split(r"(?m)^(?=## )", text)
    sections = {}
    for part in parts:
        head = part.splitlines()[0] if part.strip() else ""
        m = re.match(r"## (\d)\.", head)
        key = m.group(1) if m else head
        sections[key] = part
    return sections


def _table_numbers(part):
    rows = [line for line in part.splitlines() if line.startswith(("|", "- "))]
    return _with_roundings(_numbers("\n".join(rows)))


def _paragraphs(part):
    """Prose paragraphs (no table, figure or code) with the comment just before."""
    blocks = re.split(r"\n\s*\n", re.sub(r"(?s)```.*?```", "", part))
    previous = ""
    for block in blocks:
        lines = [x for x in block.splitlines() if not x.startswith(("|", "![", "#"))]
        prose = "\n".join(x for x in lines if not x.startswith("<!--"))
        comment = next((x for x in lines if x.startswith("<!--")), previous)
        if prose.strip():
            yield prose, comment
        previous = comment if not prose.strip() else ""


def _unbacked(text):
    sections = _sections(text)
    tables = {key: _table_numbers(part) for key, part in sections.items()}
    everything = set().union(*tables.values())
    missing = []
    for key, part in sections.items():
        summary = key.startswith("# ") or any(s in key for s in SUMMARIES)
        for prose, comment in _paragraphs(part):
            m = EXEMPT.search(comment or "")
            if m:
                assert m.group(1).strip(), f"a quotes comment without a source: {comment}"
                continue
            allowed = set(everything) if summary else set(tables[key])
            for ref in SECTION_REF.findall(prose):
                for k in re.findall(r"\d", ref):
                    allowed |= tables.get(k, set())
            for n in sorted(_numbers(prose) - allowed):
                missing.append(f"{key[:30]}: {n} in {prose[:70]!r}")
    return missing


def test_every_number_of_the_prose_is_in_a_table_it_rests_on():
    missing = _unbacked(RESULTS.read_text(encoding="utf-8"))
    assert not missing, "\n".join(missing)


def test_the_check_finds_a_drifted_number():
    text = ("## 1. A\n\n| x | 0.123 ± 0.045 |\n|---|---|\n\nxOrder reaches 0.123 (sd "
            "0.045).\n\n## 2. B\n\n| y | 0.500 |\n\nAs in section 1, 0.123; here 0.500 "
            "and 0.12.\n")
    assert _unbacked(text) == []
    assert len(_unbacked(text.replace("reaches 0.123", "reaches 0.124"))) == 1
    assert len(_unbacked(text.replace("As in section 1, ", "As before, "))) == 1
    # a rounded table value is the same number; an exempt paragraph names its source
    assert _unbacked(text.replace("| x | 0.123 ±", "| x | 0.1234 ±")) == []
    exempt = text.replace("xOrder reaches", "<!-- quotes: the run's log -->\nxOrder "
                          "reaches 0.999 and")
    assert _unbacked(exempt) == []
    with pytest.raises(AssertionError, match="without a source"):
        _unbacked(exempt.replace("the run's log", " "))
