"""The command line's numeric options checked by the parameter table
(``utils._params``): one check serves the API, model files and the parser."""

import argparse

import pytest

from gpu_xorder.cli import _parser
from gpu_xorder.utils import _params

VALUES = ("0", "-0", "2", "1e9", "1000000001", "-1", "-1e-300", "inf", "nan", "1e308",
          "abc", "")


def test_exact_budget_option_is_the_table_check(monkeypatch):
    """``--exact-budget`` accepts what ``check("exact_budget", ...)`` accepts, as the
    same float, and refuses the rest in the table's words; a change of the table's
    check reaches the parser."""
    option = _parser._checked("exact_budget")
    for text in VALUES:
        try:
            want = _params.check("exact_budget", float(text))
        except ValueError:
            with pytest.raises(argparse.ArgumentTypeError) as exc:
                option(text)
            assert str(exc.value) == ("must be a number of seconds from 0 to 1e+09, got "
                                      + text)
        else:
            assert option(text) == want
    monkeypatch.setattr(_params, "MAX_EXACT_BUDGET", 10.0)
    assert option("10") == 10.0
    with pytest.raises(argparse.ArgumentTypeError):
        option("11")


@pytest.mark.parametrize("text", ["1_0", "1__0", "\u0661", "\u0663.5", "\uff11", "0x10",
                                  "1e", "--1", "1.5.2", "\u00b2"])
def test_numbers_are_ascii_decimals(text):
    """Every numeric option reads ASCII decimal notation only: Python's ``float`` and
    ``int`` read ``1_0`` as 10 and other scripts' digits (Arabic-Indic, full-width)
    as numbers, which a command line must not take for what the user meant."""
    for option in (_parser._float, _parser._finite, _parser._share,
                   _parser._checked("exact_budget"), _parser._checked("lam")):
        with pytest.raises(argparse.ArgumentTypeError, match="got "):
            option(text)
    with pytest.raises(ValueError):
        _parser._integer(text)


def test_a_negative_zero_is_zero():
    """``-0`` (and ``-0.0``, ``-0e5``) is read as 0.0, not -0.0, which a model file
    would save and print as ``-0``."""
    for text in ("-0", "-0.0", "-0e5", " -0 "):
        value = _parser._checked("exact_budget")(text)
        assert value == 0.0 and str(value) == "0.0"
        assert str(_parser._float(text)) == "0.0"
    assert _parser._integer("-0") == 0 and _parser._integer("+7") == 7
