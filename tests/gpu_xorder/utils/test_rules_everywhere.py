"""Every rule between parameters (``utils._params.RULES``) fires, with its one message,
from every public entry whose parameters it names: ``fair_order``, ``XOrder.fit``,
``xorder_path``, ``FairRanker.fit`` and ``gpu-xorder fit``; and so do the request's
checks of one parameter and of the data (the one validator, ``utils._params.validate``,
and nothing below it: the same message from every entry)."""

import re

import numpy as np
import pytest

from gpu_xorder.utils import _params


def _data(k, bad_y=False):
    """8 items of each of ``k`` groups (``bad_y``: the first label a 2)."""
    rng = np.random.default_rng(0)
    g = np.repeat(np.arange(k), 8)
    y = np.tile([0, 1], 4 * k)
    s = rng.random(8 * k) + 0.2 * y
    if bad_y:
        y[0] = 2
    return s, y, g


#: ``(rule's position in RULES, groups, parameters that break it first)``.
BREAKING = [
    (0, 2, dict(lam=0.5, max_disparity=0.1)),
    (1, 2, dict(lam=0.0, validation=0.3)),
    (2, 3, dict(lam=0.5, disparity="signed")),
    (3, 3, dict(lam=0.0, max_disparity=0.1)),
    (3, 2, dict(lam=0.0, max_disparity=0.1, disparity="signed")),
    (4, 3, dict(lam=0.5, solver="exact")),
]
ENTRIES = ("fair_order", "XOrder.fit", "xorder_path", "FairRanker.fit", "cli fit")


def _accepts(entry, params):
    """Whether ``entry`` takes every parameter of ``params``."""
    if entry in ("fair_order", "cli fit"):
        return "validation" not in params
    if entry == "xorder_path":
        return "max_disparity" not in params
    return True


def _call(entry, k, params, tmp_path, bad_y=False):
    from gpu_xorder import FairRanker, XOrder, fair_order, xorder_path

    s, y, g = _data(k, bad_y)
    kw = {**params, "backend": "numpy"}
    if entry == "fair_order":
        return fair_order(s, y, g, **kw)
    if entry == "XOrder.fit":
        return XOrder(**kw).fit(s, y, sensitive_features=g)
    if entry == "xorder_path":
        lam = kw.pop("lam")
        return xorder_path(s, y, sensitive_features=g, lams=[lam], **kw)
    if entry == "FairRanker.fit":
        from sklearn.linear_model import LogisticRegression

        return FairRanker(LogisticRegression(), **kw).fit(s[:, None], y,
                                                          sensitive_features=g)
    from gpu_xorder.cli import main

    path = tmp_path / "d.csv"
    path.write_text("s,y,g\n" + "".join(f"{float(a)!r},{b},{c}\n" for a, b, c in zip(s, y, g)))
    argv = ["fit", str(path), "--score", "s", "--label", "y", "--group", "g", "--model",
            str(tmp_path / "m.json"), "--backend", "numpy"]
    for name, value in kw.items():
        if name == "backend" or (name == "lam" and "max_disparity" in kw and value == 0):
            continue
        argv += [f"--{name.replace('_', '-')}", str(value)]
    return main(argv)


def _message(rule, k, params):
    """The rule's message, where it is the first rule these values break."""
    values = {"n_groups": k, "lam": 0.0, "max_disparity": None, "validation": None,
              "disparity": "absolute", "solver": "auto", **params}
    assert next(r for r in _params.RULES if r.broken(values)) is rule
    return rule.message.format(**values)


#: Where the command line refuses its options itself, in their words: --lam and
#: --max-disparity together (its own options, before any data is read).
CLI_WORDS = {0: "give --lam or --max-disparity, not both"}

CASES = [(i, k, params, entry) for i, k, params in BREAKING
         for entry in ENTRIES if _accepts(entry, params)]


@pytest.mark.parametrize("i,k,params,entry", CASES,
                         ids=[f"rule{i}-{entry}" for i, _, _, entry in CASES])
def test_every_rule_fires_from_every_entry(i, k, params, entry, tmp_path, capsys):
    rule = _params.RULES[i]
    message = _message(rule, k, params)
    if entry == "cli fit":
        message = CLI_WORDS.get(i, message)
        assert _call(entry, k, params, tmp_path) == 2
        assert message in " ".join(capsys.readouterr().err.split())
        assert not (tmp_path / "m.json").exists()
        return
    with pytest.raises(ValueError, match=re.escape(message)):
        _call(entry, k, params, tmp_path)


#: ``(name, parameters, y changed, the message's start, entries)``: checks of one value or
#: of the data, each made by the request alone. The command line's --metric is
#: argparse's choice and its labels the CSV reader's (a line and column named), so
#: those two are left to its own tests.
CHECKS = [
    ("metric", dict(lam=0.5, metric="auc"), False,
     "unknown metric 'auc'; expected one of", ENTRIES[:-1]),
    ("subsample", dict(lam=0.5, subsample=8), False,
     "subsample=8 keeps 2 of the 16 items (the smallest group,",
     ENTRIES[1:]),
    ("labels", dict(lam=0.5), True, "y must be binary with values 0 and 1, got [0, 1, 2]",
     ENTRIES[:-1]),
]
CHECK_CASES = [(name, params, bad_y, start, entry) for name, params, bad_y, start, entries
               in CHECKS for entry in entries]


@pytest.mark.parametrize("name,params,bad_y,start,entry", CHECK_CASES,
                         ids=[f"{c[0]}-{c[-1]}" for c in CHECK_CASES])
def test_every_check_of_the_request_fires_from_every_entry(name, params, bad_y, start, entry,
                                                          tmp_path, capsys):
    if entry == "cli fit":
        assert _call(entry, 2, params, tmp_path) == 2
        err = capsys.readouterr().err
        assert start in " ".join(err.split()) and "Traceback" not in err
        assert not (tmp_path / "m.json").exists()
        return
    with pytest.raises(ValueError, match=re.escape(start)):
        _call(entry, 2, params, tmp_path, bad_y)


def test_every_rule_has_a_breaking_case():
    assert sorted({i for i, _, _, _ in CASES}) == list(range(len(_params.RULES)))


def test_every_rule_name_is_given_by_every_request():
    """A request checks every rule with all its names: those an entry lacks at their
    defaults, the number of groups with the data; so no name can skip a rule."""
    names = {n for rule in _params.RULES for n in rule.names}
    assert names - set(_params.DEFAULTS) == {"n_groups"}
    request = _params.validate({"metric": "prf", "lam": [0.0, 1.0]})
    assert set(request._together()) == set(_params.DEFAULTS)
    with pytest.raises(TypeError):
        request.values["metric"] = "xauc"
    with pytest.raises(ValueError):
        request["lam"][0][0] = 5.0
    s, y, g = _data(3)
    with_data = request.with_data(s, y, g)
    assert with_data.data.labels.tolist() == [0, 1, 2] and request.data is None
    with pytest.raises(ValueError, match="solver='exact' handles two groups"):
        _params.validate({"solver": "exact"}).with_data(s, y, g)


def test_labels_validated_first_are_not_checked_again():
    """``Request.with_labels`` (``FairRanker.fit``, before its estimator's fits) checks
    the labels once: ``with_data`` given them back checks only their length."""
    s, y, g = _data(2)
    request = _params.validate({"metric": "xauc"})
    with pytest.raises(ValueError, match=re.escape("y must be binary with values 0 and 1")):
        request.with_labels(_data(2, bad_y=True)[1])
    first = request.with_labels(y.astype(bool))
    assert first.labels.dtype == np.int64 and not first.labels.flags.writeable
    assert first.with_data(s, first.labels, g).data.y is first.labels
    with pytest.raises(ValueError, match=re.escape("y has length 16, expected 15")):
        first.with_data(s[:-1], first.labels, g[:-1])
