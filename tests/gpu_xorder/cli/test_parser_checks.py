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
