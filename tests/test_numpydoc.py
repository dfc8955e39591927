"""numpydoc's validator on every public function, class and method: the API reference is
generated from these docstrings (``docs/api/``), so what the validator flags here would
show on the site as a parameter without a type, a return value without a word, or a
parameter left out.

The checks (``CHECKS``) are those that say whether a reader can call the function from its
page; the stylistic ones (``ES01`` an extended summary, ``SA01`` a See Also section,
``EX01`` examples, ``SS05``/``SS06`` the summary's grammar and length, ``GL02`` the
closing quotes, ``RT02`` a named return value) are left out. A class that documents its
constructor's arguments as ``Attributes`` (a result record the library builds:
``FairOrderResult``, ``Interval``, ``Dataset``) passes ``PR01`` when every argument is
among them. Skipped without numpydoc (the ``test`` extra installs it).
"""

import inspect

import pytest

from support import public_api

validate = pytest.importorskip("numpydoc.validate")
docscrape = pytest.importorskip("numpydoc.docscrape")

#: numpydoc's codes that fail the test (numpydoc.validate.ERROR_MSGS says each in full).
CHECKS = {
    "GL08": "no docstring",
    "SS01": "no summary",
    "PR01": "a parameter not documented",
    "PR02": "a documented parameter that does not exist",
    "PR03": "parameters documented in another order",
    "PR04": "a parameter without a type",
    "PR07": "a parameter without a description",
    "PR10": "no space before a parameter's colon",
    "RT01": "no Returns section",
    "RT03": "a return value without a description",
}


def _targets():
    """Dotted names of the public functions, classes and their methods (constants,
    ``gpu_xorder.models.MODELS``, have no docstring of their own)."""
    out = []
    for name, obj in public_api.documented().items():
        if inspect.isclass(obj):
            out.append(name)
            out += [f"{name}.{method}" for method in public_api.methods(obj)]
        elif callable(obj):
            out.append(name)
    return out


TARGETS = _targets()


def _record_fields_documented(name):
    """Whether the class ``name`` has no Parameters section and names every argument of
    its constructor in its Attributes section."""
    obj = validate.Validator._load_obj(name)
    if not inspect.isclass(obj):
        return False
    doc = docscrape.ClassDoc(obj)
    if doc["Parameters"]:
        return False
    attributes = {part.strip() for attr in doc["Attributes"]
                  for part in attr.name.split(",")}
    arguments = [p for p in inspect.signature(obj).parameters if p != "self"]
    return bool(arguments) and set(arguments) <= attributes


def test_the_targets_cover_the_api():
    """Every public name, and the methods users call most, are among the targets."""
    assert len(TARGETS) > 70
    for name in ("gpu_xorder.fair_order", "gpu_xorder.XOrder.fit",
                 "gpu_xorder.XOrder.transform", "gpu_xorder.FairRanker.decision_function",
                 "gpu_xorder.metrics.RankingMetricFrame.intervals",
                 "gpu_xorder.plotting.plot_tradeoff", "gpu_xorder.datasets.load_compas"):
        assert name in TARGETS


@pytest.mark.parametrize("name", TARGETS)
def test_docstring_passes_numpydoc_validation(name):
    errors = [(code, message) for code, message in validate.validate(name)["errors"]
              if code in CHECKS]
    if any(code == "PR01" for code, _ in errors) and _record_fields_documented(name):
        errors = [(code, message) for code, message in errors if code != "PR01"]
    assert errors == []


def test_the_record_rule_still_catches_a_missing_field():
    """The exemption for result records applies only when every field is documented:
    a class whose Attributes leave one argument out is not exempt."""
    assert _record_fields_documented("gpu_xorder.FairOrderResult")

    class Partial:
        """A record.

        Attributes
        ----------
        a : int
            One field.
        """

        def __init__(self, a, b):
            self.a, self.b = a, b

    import sys
    import types
    module = types.ModuleType("_numpydoc_probe")
    module.Partial = Partial
    sys.modules["_numpydoc_probe"] = module
    try:
        assert not _record_fields_documented("_numpydoc_probe.Partial")
    finally:
        del sys.modules["_numpydoc_probe"]
