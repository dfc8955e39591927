"""Text from the user (group labels, column and file names) made safe for the layers
that interpret characters: :func:`visible` writes out the characters that a terminal,
an XML file or a bidirectional renderer would act on instead of showing."""

import unicodedata

#: Explicit bidirectional formatting characters: embeddings, overrides (U+202E turns
#: the numbers after it around), isolates and marks.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                          "\u2066\u2067\u2068\u2069")
#: First strong isolate and pop directional isolate: text between them is laid out on
#: its own, whatever its direction, and closes every embedding or override it opens.
FSI, PDI = "\u2068", "\u2069"


def _acts(char, keep):
    if char in keep:
        return False
    if char in BIDI_CONTROLS or char in "\ufffe\uffff":
        return True
    return unicodedata.category(char) in ("Cc", "Cs")


def visible(text, keep=""):
    """``text`` with every character that acts rather than shows written as its
    escape (``\\x1b``, ``\\u202e``): control characters (an escape sequence would
    drive the terminal; XML 1.0 refuses them, so an SVG holding one is broken), lone
    surrogates and the noncharacters U+FFFE and U+FFFF (no UTF-8 or XML text holds
    them), and the explicit bidirectional controls (U+202E would turn the numbers
    after the label around); ``keep``: characters left as they are (``"\\n"`` in a
    message of several lines).

    Examples
    --------
    >>> print(visible("a\\u202eb\\x1b[31m"))
    a\\u202eb\\x1b[31m
    """
    text = str(text)
    if text.isprintable() and not BIDI_CONTROLS.intersection(text):
        return text  # the common case, at C speed (Cf characters are not printable)
    return "".join(ascii(c)[1:-1] if _acts(c, keep) else c for c in text)


def isolated(text):
    """``text`` between FSI and PDI: a label laid out on its own in bidirectional text
    (an SVG shown by a browser), so that a right-to-left label never moves the numbers
    beside it."""
    return f"{FSI}{text}{PDI}"
