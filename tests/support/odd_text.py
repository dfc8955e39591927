"""Text that other layers interpret, for every face that shows a label (plots, the
report, the command line's tables): each of these was once drawn, printed or written
as something else, or broke what held it."""

#: name -> label. Two ``$`` make matplotlib's mathtext (``$\foo$`` raised after the
#: work, ``$0-$50k`` was drawn as "0 - 50k"); control characters made every SVG of the
#: report invalid XML and an escape sequence drove the terminal; U+202E turned the
#: numbers after it around; a tab or newline split a TSV row.
ODD_LABELS = {
    "mathtext command": "$\\foo$",
    "dollars": "$0-$50k",
    "bell": "a\x07b",
    "escape sequence": "\x1b[31mred",
    "right-to-left override": "b\u202e12",
    "right-to-left isolate left open": "c\u2067x",
    "tab and newline": "t\tn\nl",
    "noncharacter": "n\ufffe",
    "Arabic": "\u0639\u0631\u0628\u064a",
}

#: The characters that must never reach a terminal, an SVG or a TSV row as they are.
ACTING = ("\x07", "\x1b", "\u202e", "\u2067", "\ufffe", "\t")


def assert_valid_svg(data):
    """``data`` (bytes) parses as XML and is an SVG document."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(data)
    assert root.tag.endswith("svg"), root.tag
    return root


def svg_text(root):
    """Every text an SVG document shows, in document order."""
    return ["".join(node.itertext()) for node in root.iter() if node.tag.endswith("text")]
