"""The model file: a fitted ``XOrder`` as plain JSON (never pickle).

:func:`model_to_dict` writes the document; :func:`model_from_dict` checks it field by
field before any value of it is used (the parameters through the table of
``utils._params``). Floats are written by ``repr`` (shortest round trip), so a loaded
model transforms bit for bit as the fitted one.
"""


import json
import math
import os
from typing import NamedTuple

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..io._read import read_text
from ..utils import _validation as v
from ..utils._params import PARAMETERS, json_refusal
from ..utils._params import check as check_parameter
from ._fitted import FittedMaps, check_params

MODEL_FORMAT = "gpu-xorder-model"
MODEL_VERSION = 2
MSG_MODEL = "{path}: not a gpu-xorder model file ({why})"
#: Top-level fields of a model file of each version; all but ``summary`` and ``fields``
#: are required.
MODEL_FIELDS = {
    1: ("format", "version", "params", "groups", "reference_group", "bounds", "clip",
        "maps", "summary"),
    2: ("format", "version", "package_version", "columns", "params", "groups",
        "reference_group", "bounds", "maps", "summary", "fields"),
}
_OPTIONAL_FIELDS = ("summary", "fields")
#: What each field of a version-2 model file holds: written into every file as
#: ``fields``, and explained in docs/user_guide/files.md ("Files").
MODEL_GLOSSARY = {
    "format": "always 'gpu-xorder-model'",
    "version": "version of this file layout (2); version-1 files still load",
    "package_version": "the gpu-xorder version that wrote the file",
    "columns": "names of the training data's columns: score, label and group (a list, "
               "one per attribute); null where not known (arrays given to the API)",
    "params": "the XOrder parameters the model was fitted with",
    "groups": "the group labels, sorted; maps name their group by its label",
    "reference_group": "the group whose scores stay unchanged",
    "bounds": "[lo, hi]: the range adjusted scores live in; every adjusted score of a "
              "score inside [lo, hi] lies inside it, and beyond it the maps are the "
              "identity",
    "maps": "per group but the reference: knots x (original score) and y (adjusted "
            "score) of an increasing piecewise-linear map, linear between knots, a "
            "shift beyond the end knots; the knots are the ends of the group's runs in "
            "the learned ordering (the map is linear along a run), so transform gives "
            "the adjusted training scores back bit for bit",
    "summary": "facts of the fit: n_train training items, n_items the ordering was "
               "learned on (fewer with subsample), auc and disparity of the adjusted "
               "training scores on all n_train items (what gpu-xorder fit prints), "
               "ordering_auc, ordering_disparity, objective and upper_bound of the "
               "learned ordering (fair_order's), lam, method, backend, solver",
    "fields": "this glossary",
}
#: Parameters every version-1 model file holds; later ones may be missing (older files).
REQUIRED_PARAMS = ("metric", "lam", "disparity", "reference_group", "backend", "method",
                   "subsample", "memory_limit")
_LABEL_TYPES = (str, int, float, bool)
_COLUMNS = ("score", "label", "group")


class _Invalid(Exception):
    """What is wrong with a model document (becomes a ValueError naming the file)."""


def _short(value):
    text = repr(value)
    return text if len(text) <= 40 else text[:20] + "..." + text[-10:]


def _label(value):
    """A group label as a JSON value: a string, a boolean, an integer within int64 or a
    finite float."""
    value = np.asarray(value).item()
    if isinstance(value, (bool, str)) or (isinstance(value, float) and math.isfinite(value)):
        return value
    if isinstance(value, int) and -(2**63) <= value < 2**63:
        return value
    raise TypeError(f"group label {_short(value)} of type {type(value).__name__} cannot "
                    "be saved; use strings, integers within int64 or finite floats")


def _floats(a):
    return [float(x) for x in np.asarray(a, dtype=np.float64)]


def model_to_dict(params, groups, reference, bounds, maps, summary, columns=None):
    """The JSON document (version 2) of a fitted ``XOrder``; ``maps`` keyed by group
    position; ``columns``: ``{"score": ..., "label": ..., "group": [...]}``, each entry a
    name or None (None: all unknown)."""
    from ..utils._version import __version__

    params = {name: (value.item() if isinstance(value, np.generic) else value)
              for name, value in params.items()}
    if params.get("reference_group") is not None:
        params["reference_group"] = _label(params["reference_group"])
    columns = dict.fromkeys(_COLUMNS) if columns is None else {
        name: columns.get(name) for name in _COLUMNS}
    if columns["group"] is not None:
        columns["group"] = [str(name) for name in columns["group"]]
    for name in ("score", "label"):
        if columns[name] is not None:
            columns[name] = str(columns[name])
    return {
        "format": MODEL_FORMAT,
        "version": MODEL_VERSION,
        "package_version": __version__,
        "columns": columns,
        "params": params,
        "groups": [_label(g) for g in groups],
        "reference_group": _label(reference),
        "bounds": _floats(bounds),
        "maps": [{"group": _label(groups[g]), "x": _floats(x), "y": _floats(y)}
                 for g, (x, y) in sorted(maps.items())],
        "summary": {name: _summary_value(value) for name, value in summary.items()},
        "fields": dict(MODEL_GLOSSARY),
    }


def _summary_value(value):
    """A summary entry as JSON: NumPy scalars as Python ones, a non-finite float (which
    JSON cannot hold; the summary only informs) as null."""
    value = value.item() if isinstance(value, np.generic) else value
    return None if isinstance(value, float) and not math.isfinite(value) else value


class Model(NamedTuple):
    """A model document, checked (:func:`model_from_dict`)."""

    params: dict
    groups: list
    reference: int          # position of the reference group in groups
    bounds: tuple
    clip: "tuple | None"    # version 1 only: the range transformed scores were clipped to
    maps: dict              # group position -> (x, y)
    summary: dict
    version: int
    package_version: "str | None"
    columns: dict


def model_from_dict(doc, path="<model>", known_params=REQUIRED_PARAMS):
    """The :class:`Model` of a model document, every field checked before use:
    ``groups`` a sorted list of distinct labels of one type, ``reference`` the position
    of the reference group in it, ``maps`` keyed by group position. ``known_params``:
    the parameter names the estimator takes (any other is refused; those of
    ``REQUIRED_PARAMS`` must be present)."""
    try:
        return _parse_model(doc, known_params)
    except _Invalid as exc:
        raise ValueError(MSG_MODEL.format(path=os.fspath(path), why=exc)) from None


def _parse_model(doc, known_params):
    if not isinstance(doc, dict):
        raise _Invalid(f"the file holds a JSON {type(doc).__name__}, not an object")
    if doc.get("format") != MODEL_FORMAT:
        raise _Invalid(f"the 'format' field is not {MODEL_FORMAT!r}")
    version = doc.get("version")
    if type(version) is not int:
        raise _Invalid(f"'version' must be an integer, got {_short(version)}")
    if version not in MODEL_FIELDS:
        raise _Invalid(f"version {version}; this gpu-xorder reads versions "
                       f"{' and '.join(map(str, MODEL_FIELDS))}")
    fields = MODEL_FIELDS[version]
    missing = [field for field in fields if field not in doc and
               field not in _OPTIONAL_FIELDS]
    if missing:
        raise _Invalid(f"missing fields {missing}")
    unknown = sorted(set(doc) - set(fields))
    if unknown:
        raise _Invalid(f"unknown fields {unknown}")
    groups = _groups(doc["groups"])
    reference = _position(doc["reference_group"], groups, "'reference_group'")
    params = _params(doc["params"], groups, reference, known_params)
    bounds = _pair(doc["bounds"], "'bounds'")
    clip = None
    if version == 1 and doc["clip"] is not None:
        clip = _pair(doc["clip"], "'clip'")
    maps = _maps(doc["maps"], groups, reference)
    summary = doc.get("summary", {})
    if not isinstance(summary, dict):
        raise _Invalid("'summary' must be an object")
    if version == 1:
        return Model(params, groups, reference, bounds, clip, maps, summary, version,
                     None, dict.fromkeys(_COLUMNS))
    package_version = doc["package_version"]
    if not isinstance(package_version, str):
        raise _Invalid(f"'package_version' must be a string, got {_short(package_version)}")
    glossary = doc.get("fields", {})
    if not isinstance(glossary, dict) or not all(
            isinstance(text, str) for text in glossary.values()):
        raise _Invalid("'fields' must be an object of strings")
    return Model(params, groups, reference, bounds, None, maps, summary, version,
                 package_version, _columns(doc["columns"]))


def _columns(value):
    """``columns``: score and label a name or null, group a list of names or null."""
    if not isinstance(value, dict) or set(value) != set(_COLUMNS):
        raise _Invalid(f"'columns' must be an object with the fields score, label and "
                       f"group, got {_short(value)}")
    for name in ("score", "label"):
        if value[name] is not None and not isinstance(value[name], str):
            raise _Invalid(f"'columns.{name}' must be a string or null, got "
                           f"{_short(value[name])}")
    group = value["group"]
    if group is not None and not (isinstance(group, list) and group and all(
            isinstance(name, str) for name in group)):
        raise _Invalid(f"'columns.group' must be a non-empty list of strings or null, "
                       f"got {_short(group)}")
    return dict(value)


def _groups(value):
    if not isinstance(value, list):
        raise _Invalid(f"'groups' must be a list of group labels, got {_short(value)}")
    if len(value) < 2:
        raise _Invalid("'groups' must list two or more labels")
    for label in value:
        if type(label) not in _LABEL_TYPES or (
                type(label) is float and not math.isfinite(label)):
            raise _Invalid(f"group label {_short(label)} is not a string, an integer, a "
                           "finite float or a boolean")
        if type(label) is int and not -(2**63) <= label < 2**63:
            raise _Invalid(f"group label {_short(label)} does not fit a 64-bit integer")
    types = sorted({type(label).__name__ for label in value})
    if len(types) > 1:
        raise _Invalid(f"'groups' mixes labels of types {' and '.join(types)}")
    for a, b in zip(value, value[1:]):
        if not a < b:
            raise _Invalid(f"'groups' must list distinct labels in increasing order "
                           f"({_short(a)} comes before {_short(b)})")
    return value


def _position(label, groups, what):
    """Position of ``label`` among ``groups``, of the same type (True is not 1)."""
    if type(label) is type(groups[0]):
        for k, group in enumerate(groups):
            if group == label:
                return k
    raise _Invalid(f"{what}: {_short(label)} is not among the groups {_short(groups)}")


def _number(value, what, lo=-math.inf, hi=math.inf):
    """``value`` as a float when it is a JSON number (not a boolean) in [lo, hi]."""
    if type(value) in (int, float):
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if math.isfinite(number) and lo <= number <= hi:
            return number
    if hi < math.inf:
        span = f" in [{lo:g}, {hi:g}]"
    else:
        span = f" >= {lo:g}" if lo > -math.inf else ""
    raise _Invalid(f"{what} must be a finite number{span}, got {_short(value)}")


def _validation_share(value, what):
    # a model file keeps a held-out share; held-out data are never saved
    if value is not None:
        _number(value, what, lo=0.0, hi=1.0)
    return value


def _params(value, groups, reference, known_params):
    if not isinstance(value, dict):
        raise _Invalid(f"'params' must be an object, got {_short(value)}")
    unknown = sorted(set(value) - set(known_params))
    if unknown:
        raise _Invalid(f"unknown parameters {unknown}")
    missing = [name for name in REQUIRED_PARAMS if name not in value]
    if missing:
        raise _Invalid(f"'params' lacks {missing}")
    params = dict(value)
    for name in set(params) & set(PARAMETERS):
        reason = json_refusal(name, params[name])
        if reason is not None and reason.startswith("must be "):
            raise _Invalid(f"'params.{name}' {reason}, got {_short(params[name])}")
        if reason is not None:  # the check's own words, naming the value
            raise _Invalid(f"'params.{name}': {reason}")
    if "validation" in params:
        params["validation"] = _validation_share(params["validation"], "'params.validation'")
    chosen = params["reference_group"]
    if chosen is not None and _position(chosen, groups,
                                        "'params.reference_group'") != reference:
        raise _Invalid(f"'params.reference_group' {_short(chosen)} is not the "
                       f"'reference_group' {_short(groups[reference])}")
    return params


def _pair(value, what):
    """``(lo, hi)``: two finite numbers, lo < hi."""
    if not isinstance(value, list) or len(value) != 2:
        raise _Invalid(f"{what} must be a list of two numbers, got {_short(value)}")
    lo, hi = (_number(x, what) for x in value)
    if not lo < hi:
        raise _Invalid(f"{what} must hold two numbers, the lower first, got "
                       f"{_short(value)}")
    return lo, hi


def _knots(value, what):
    """A non-empty JSON list of finite numbers as a float64 array."""
    if not isinstance(value, list) or not value:
        raise _Invalid(f"{what} must be a non-empty list of numbers")
    for x in value:
        if type(x) is not float and type(x) is not int:
            _number(x, what)  # raises, naming the value
    try:
        knots = np.array(value, dtype=np.float64)
    except OverflowError:
        knots = None
    if knots is None or not np.isfinite(knots).all():
        for x in value:
            _number(x, what)
    return knots


def _maps(entries, groups, reference):
    if not isinstance(entries, list):
        raise _Invalid(f"'maps' must be a list, got {_short(entries)}")
    maps = {}
    for entry in entries:
        if not isinstance(entry, dict) or set(entry) != {"group", "x", "y"}:
            raise _Invalid("every map must be an object with the fields group, x and y")
        g = _position(entry["group"], groups, "a map's group")
        name = f"the map of group {_short(groups[g])}"
        if g == reference or g in maps:
            raise _Invalid(f"{name} is given twice or for the reference group")
        x = _knots(entry["x"], f"{name}: x")
        y = _knots(entry["y"], f"{name}: y")
        if x.shape != y.shape:
            raise _Invalid(f"{name} needs x and y of one length, got {x.size} and {y.size}")
        if np.any(np.diff(x) <= 0) or np.any(np.diff(y) < 0):
            raise _Invalid(f"{name} is not increasing (x strictly, y never decreasing)")
        maps[g] = (x, y)
    lacking = [groups[g] for g in range(len(groups)) if g != reference and g not in maps]
    if lacking:
        raise _Invalid(f"every group but the reference group needs exactly one map (none "
                       f"for {_short(lacking[0])})")
    return maps


def read_json(path):
    """The JSON document of a model file; anything but strict JSON is a ValueError."""
    def refuse(constant):
        raise ValueError(f"{constant} is not a JSON number")

    path = os.fspath(path)
    try:
        text = read_text(path)
    except ValueError as exc:  # what the text reader found (binary, UTF-16, a zip...)
        why = str(exc).removeprefix(path).lstrip(",: ")
        raise ValueError(MSG_MODEL.format(path=path, why=why)) from None
    try:
        return json.loads(text, parse_constant=refuse)
    except RecursionError:
        why = "JSON nested too deeply"
    except ValueError as exc:  # JSONDecodeError, a constant, an integer of 4300 digits
        why = f"invalid JSON: {exc}"
    raise ValueError(MSG_MODEL.format(path=path, why=why))


def model_document(est, columns=None):
    """The JSON document of a fitted ``XOrder`` ``est`` (``XOrder.save``; the command
    line writes it together with its other outputs); ``columns``: the CSV column names
    it was fitted from (by default the score column is ``feature_names_in_``, where
    known)."""
    check_is_fitted(est)
    r = est.result_
    summary = {"n_train": int(est.train_scores_adjusted_.size),
               "n_items": int(est.order_.size), "method": r.method,
               "backend": r.backend, "solver": r.solver, "auc": est.train_auc_,
               "disparity": est.train_disparity_, "ordering_auc": r.auc,
               "ordering_disparity": r.disparity, "objective": r.objective,
               "upper_bound": r.upper_bound, "lam": est.lam_}
    params = est.get_params()
    for name in ("lam", "max_disparity", "validation", "exact_budget"):  # Decimal: JSON
        if v.is_number(params[name]):
            params[name] = float(params[name])
    if not isinstance(params["validation"], (float, type(None))):
        params["validation"] = None  # held-out data stay out of the model file
    params["memory_limit"] = check_parameter("memory_limit", params["memory_limit"])  # "2GB"
    if columns is None and hasattr(est, "feature_names_in_"):
        columns = {"score": est.feature_names_in_[0]}
    return model_to_dict(params, est.groups_, est.reference_group_, est.bounds_,
                         est.maps_, summary, columns)


def load_model(path, defaults):
    """``(params, FittedMaps)`` of a model file (``XOrder.load``), every field checked
    before use; ``defaults``: the estimator's parameters and their defaults (a file
    may lack the later ones)."""
    model = model_from_dict(read_json(path), path, known_params=defaults)
    try:
        check_params({**defaults, **model.params})
    except (TypeError, ValueError) as exc:
        raise ValueError(MSG_MODEL.format(path=os.fspath(path), why=exc)) from None
    # a version-1 file's maps transform as they did
    fitted = FittedMaps(np.array(model.groups), model.reference, model.bounds, model.maps,
                        model.clip, rule=1 if model.version == 1 else 2)
    return model.params, fitted
