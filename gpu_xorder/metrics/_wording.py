"""The words of the findings (:mod:`._findings`): numbers printed until they differ,
interval limits that never read 0 when they are not, levels as percentages, the
reading of a high score, the rule in words, and the marks that put every label in
``<bdi>`` on a page."""

from ..utils._text import visible

#: Around a label (or the user's words) in a sentence while it is made: ``text`` drops
#: them, :meth:`Finding.html` makes them ``<bdi>`` (Unicode private use characters,
#: taken out of the labels first).
OPEN, CLOSE = "\ue000", "\ue001"

def mark(label):
    """A label (or the user's words) marked for :meth:`Finding.html`."""
    text = str(label).replace(OPEN, "\ufffd").replace(CLOSE, "\ufffd")
    return f"{OPEN}{text}{CLOSE}"


def unmark(text):
    return text.replace(OPEN, "").replace(CLOSE, "")


def numbers(a, b):
    """``a`` and ``b`` with 3 decimals, or as many more as tell them apart (up to 17
    significant digits); equal strings mean equal values as printed."""
    for digits in range(3, 18):
        x, y = f"{a:.{digits}f}", f"{b:.{digits}f}"
        if x != y:
            return x, y
    return f"{a:.3f}", f"{b:.3f}"


def limit(x):
    """An interval limit with 3 decimals; a non-zero limit that would print as 0 with
    two significant digits, so that an interval excluding 0 never reads ``[0.000,``."""
    text = f"{x:.3f}"
    if x != 0 and float(text) == 0:
        return f"{x:.2g}"
    return text


def interval_text(interval):
    """``[low, high]`` of an Interval, ``limit`` formatted."""
    return f"[{limit(interval.low)}, {limit(interval.high)}]"


def below(interval, delta):
    """``[low, high]`` of an interval inside ``[0, delta)``, with as many decimals as
    show its upper limit below ``delta`` (``0.04998``, never ``0.050`` beside 0.05)."""
    for digits in range(3, 17):
        high = f"{interval.high:.{digits}f}"
        if float(high) < delta:
            break
    return f"[{limit(interval.low)}, {high}]"


def percent(level):
    """A level as a percentage with up to two decimals (95%, 99.17%)."""
    return f"{level * 100:.2f}".rstrip("0").rstrip(".") + "%"


def reading(high_score, decision):
    """What a high score does, with the decision named where given (its acting
    characters visible: a newline split a finding's one line)."""
    if decision:
        return (f"a high score leads to {mark(visible(decision))}, which is {high_score} "
                "to a person")
    return f"a high score is {high_score} to a person"


def rule_text(family_level, pairs, delta, what="the signed difference"):
    """The decision rule of a finding in words."""
    at = (f"its {percent(family_level)} interval" if pairs == 1 else
          f"its interval at {percent(1 - (1 - family_level) / pairs)} (Bonferroni over "
          f"{pairs} pairs: {percent(family_level)} family-wise)")
    return (f"the pair with the largest gap, {at} of {what}: 'disadvantages' when it "
            f"excludes 0, 'parity within {delta:g}' when every pair's interval lies "
            f"inside +-{delta:g}, else 'inconclusive'")
