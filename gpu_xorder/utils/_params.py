"""The parameters of the front doors, in one table.

``fair_order``, ``XOrder``/``xorder_path``, ``FairRanker``, the scorer, the metrics, the
intervals, the data generators, the model file and the command line all validate a
parameter through :func:`check` (the command line takes its ``choices`` from
:func:`choices`): what a parameter may be and the message when it is not are written
once, here, as scikit-learn's ``_parameter_constraints`` are. Every real parameter
takes every real number type (``int``, ``float``, ``Decimal``, ``Fraction``, NumPy
scalars and 0-d arrays; a bool or None is a ``TypeError``) and comes back a float by
the one conversion ``_validation.as_real``; every count takes every integer type and
comes back an int. Callers use the value :func:`check` returns, never the raw one (an
estimator keeps its raw parameters, as scikit-learn wants, and checks them in ``fit``).
Private helpers trust validated values.

The rules between parameters (and the number of groups) are a second table,
:data:`RULES`, checked by :func:`check_together`: each rule is written once, with its one
message, as scikit-learn's constraints are.

Every public entry (``fair_order``, ``XOrder.fit``, ``xorder_path``, ``FairRanker.fit``,
``gpu-xorder fit``) builds one immutable :class:`Request` through :func:`validate`: each
parameter by the table, every rule with the full set of names (those not given at their
defaults, :data:`DEFAULTS`), and the data (:meth:`Request.with_data`) once, with the
rules that need the number of groups. Nothing below it checks them again.
"""

import dataclasses
import types
from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np

from . import _parallel
from . import _validation as v
from ._metrics import MSG_SIGNED_TWO

MSG_CONSTRAINT_SCOPE = (
    "max_disparity needs two groups and disparity='absolute' (got {n_groups} groups, "
    "disparity={disparity!r})"
)
MSG_SOLVER_GROUPS = (
    "solver={solver!r} handles two groups ({n_groups} given); use solver='auto' or 'paper'"
)
MSG_PROGRESS = "progress must be callable or None"
MSG_VALIDATION_ALONE = (
    "validation chooses the weight for max_disparity or for lam > 0: give one of them"
)


@dataclass(frozen=True)
class Parameter:
    """One parameter: ``check(value, name)`` returns the validated value or raises
    ``TypeError``/``ValueError`` naming it; ``choices`` for a choice among names;
    ``json`` the JSON types a model file may hold it as and ``text`` what it must be,
    in the words of a model file's message."""

    name: str
    check: Callable
    choices: tuple = ()
    json: tuple = ()
    text: str = ""

    def __post_init__(self):
        if self.choices and not self.text:
            object.__setattr__(self, "text", f"one of {self.choices}")


def _choice(choices):
    return lambda value, name: v.check_choice(value, name, choices)


def _lam(value, name):
    return v.check_lam(value)


def _optional(check):
    return lambda value, name: None if value is None else check(value, name)


def _fraction(message):
    """A real number strictly between 0 and 1."""
    return lambda value, name: v.check_fraction(value, name, message, closed=False)


def _count(minimum, message=v.MSG_COUNT):
    return lambda value, name: v.check_count(value, name, minimum, message)


#: The largest ``exact_budget``: 1e9 s (32 years) lets the exact solver's fronts
#: (``core._exact``) grow past any memory, so a larger one runs the same; 1e308 s
#: overflowed the count of states it allows (OverflowError).
MAX_EXACT_BUDGET = 1e9
MSG_EXACT_BUDGET = ("exact_budget must be a number of seconds from 0 to "
                    f"{MAX_EXACT_BUDGET:g}, got {{value!r}}")


def _seconds(value, name):
    """A real number from 0 to ``MAX_EXACT_BUDGET`` (``exact_budget``, seconds)."""
    seconds = v.as_real(value, name, MSG_EXACT_BUDGET)
    if not 0 <= seconds <= MAX_EXACT_BUDGET:  # NaN and infinities fail
        raise ValueError(MSG_EXACT_BUDGET.format(value=value))
    return seconds


def _progress(value, name):
    if value is not None and not callable(value):
        raise TypeError(MSG_PROGRESS)
    return value


_TEXT, _NUMBER, _NONE = (str,), (int, float), (type(None),)

PARAMETERS = {p.name: p for p in (
    Parameter("metric", _choice(v.METRICS), v.METRICS, _TEXT),
    Parameter("disparity", _choice(v.DISPARITIES), v.DISPARITIES, _TEXT),
    Parameter("backend", _choice(v.BACKENDS), v.BACKENDS, _TEXT),
    Parameter("method", _choice(v.METHODS), v.METHODS, _TEXT),
    Parameter("solver", _choice(v.SOLVERS), v.SOLVERS, _TEXT),
    Parameter("high_score", _choice(v.HIGH_SCORES), v.HIGH_SCORES, _TEXT),
    Parameter("response_method", _choice(v.RESPONSE_METHODS), v.RESPONSE_METHODS, _TEXT),
    Parameter("lam", _lam, json=_NUMBER, text="a finite number >= 0"),
    Parameter("max_disparity", lambda value, name: v.check_max_disparity(value),
              json=_NUMBER + _NONE, text="a finite number in [0, 1] or null"),
    Parameter("validation", lambda value, name: v.check_validation_value(value),
              json=_NUMBER + _NONE, text="a number in (0, 1) or null"),
    Parameter("subsample", _optional(_count(1)),
              json=(int,) + _NONE, text="null or an integer >= 1"),
    Parameter("memory_limit", lambda value, name: v.check_memory_limit(value),
              json=(int,) + _NONE, text="null or an integer >= 1 (bytes)"),
    Parameter("exact_budget", _seconds, json=_NUMBER,
              text=f"a number of seconds from 0 to {MAX_EXACT_BUDGET:g}"),
    Parameter("level", _fraction(v.MSG_LEVEL)),
    Parameter("test_size", _fraction(v.MSG_TEST_SIZE)),
    Parameter("random_state", lambda value, name: v.check_random_state(value)),
    Parameter("n_samples", _count(1, v.MSG_N_SAMPLES)),
    Parameter("prevalence", _fraction(v.MSG_PREVALENCE)),
    Parameter("bands", _count(2, v.MSG_BANDS)),
    Parameter("max_points", _count(2, v.MSG_MAX_POINTS)),
    Parameter("n_jobs", lambda value, name: _parallel.check_n_jobs(value)),
    Parameter("progress", _progress),
)}


@dataclass(frozen=True)
class Rule:
    """A rule between parameters: ``broken(values)`` says whether the validated values
    (a dict by name; ``n_groups``: the number of groups of the data) break it, and
    ``message``, formatted with them, says how."""

    names: tuple
    broken: Callable
    message: str


def _lam_given(lam):
    """A weight other than the default: a sequence of them, or a value other than 0."""
    return not isinstance(lam, float) or lam != 0


#: The rules between parameters, checked in this order (the first broken one raises).
RULES = (
    Rule(("lam", "max_disparity"),
         lambda p: p["max_disparity"] is not None and _lam_given(p["lam"]),
         v.MSG_LAM_AND_CONSTRAINT),
    Rule(("validation", "max_disparity", "lam"),
         lambda p: p["validation"] is not None and p["max_disparity"] is None
         and not np.any(np.asarray(p["lam"]) > 0),
         MSG_VALIDATION_ALONE),
    Rule(("n_groups", "disparity"),
         lambda p: p["n_groups"] > 2 and p["disparity"] == "signed",
         MSG_SIGNED_TWO),
    Rule(("n_groups", "disparity", "max_disparity"),
         lambda p: p["max_disparity"] is not None and (
             p["n_groups"] > 2 or p["disparity"] == "signed"),
         MSG_CONSTRAINT_SCOPE),
    Rule(("n_groups", "solver"),
         lambda p: p["n_groups"] > 2 and p["solver"] in ("lagrangian", "exact"),
         MSG_SOLVER_GROUPS),
)


#: The values of the rules' names that an entry does not take (``fair_order`` has no
#: ``validation``, ``xorder_path`` no ``max_disparity``): every rule is checked with
#: every name, so that a name an entry lacks cannot skip a rule.
DEFAULTS = {"lam": 0.0, "max_disparity": None, "validation": None,
            "disparity": "absolute", "solver": "auto"}


class Data(NamedTuple):
    """Validated, encoded data: float64 ``scores``, 0/1 ``y``, the sorted group
    ``labels`` and every item's ``index`` among them."""

    scores: object
    y: object
    labels: object
    index: object


@dataclass(frozen=True)
class Request:
    """One validated call of a public entry: its parameters (``request[name]``, the
    values :func:`check` returned; ``"lam"`` is ``(values, is_batch)``) and, once
    given, its data (:meth:`with_data`; the labels may come first, :meth:`with_labels`).
    Immutable; made by :func:`validate` only."""

    values: types.MappingProxyType
    data: Data | None = None
    labels: object = None

    def __getitem__(self, name):
        return self.values[name]

    def __contains__(self, name):
        return name in self.values

    def with_labels(self, y):
        """The request with the labels ``y`` validated before the scores exist
        (``FairRanker.fit``: before its estimator's fits); :meth:`with_data` given
        :attr:`labels` back checks only their length."""
        labels = v.check_labels(y, np.shape(y)[0] if np.ndim(y) else 0)
        labels.flags.writeable = False
        return dataclasses.replace(self, labels=labels)

    def with_data(self, scores, y, groups):
        """The request with its data validated once (scores, labels, groups, what the
        metric needs of every group) and the rules that need the number of groups."""
        data = check_data(scores, y, groups, self.values.get("metric"),
                          checked_y=self.labels is not None and y is self.labels)
        _check_rules([r for r in RULES if "n_groups" in r.names],
                     {**self._together(), "n_groups": data.labels.size})
        return dataclasses.replace(self, data=data)

    def _together(self):
        out = {**DEFAULTS, **{n: self.values[n] for n in DEFAULTS if n in self.values}}
        if "lam" in self.values:
            lams, batch = self.values["lam"]
            out["lam"] = lams if batch else float(lams[0])
        return out


def validate(params, data=None):
    """The :class:`Request` of ``params`` (a dict by name of the table): each value
    checked by its row, the rules that need no data with the full set of names, then
    ``data`` (``(scores, y, groups)``, optional) by :meth:`Request.with_data`."""
    values = {name: check(name, value) for name, value in params.items()}
    if "lam" in values:
        values["lam"][0].flags.writeable = False  # the request is immutable
    request = Request(types.MappingProxyType(values))
    check_together(**request._together())
    return request if data is None else request.with_data(*data)


def check_data(scores, y, groups, metric=None, checked_y=False):
    """:class:`Data` of ``scores``, ``y`` and ``groups``: finite scores of a size the
    engines take, binary labels, at least two groups, and (``metric``) what the metric
    needs of every group (``_validation.check_supports``); ``checked_y``: ``y`` are
    labels :meth:`Request.with_labels` validated, whose length alone is checked."""
    s = v.check_scores(scores)
    v.check_size(s.size)
    if checked_y and y.size != s.size:
        raise ValueError(v.MSG_LENGTH.format(name="y", got=y.size, expected=s.size))
    labels_y = y if checked_y else v.check_labels(y, s.size)
    labels, index = v.encode_groups(groups, s.size)
    v.check_n_groups(labels)
    if metric is not None:
        v.check_supports(labels, index, labels_y, metric)
    return Data(s, labels_y, labels, index)


def check(name, value):
    """``value`` validated as parameter ``name`` of the table."""
    return PARAMETERS[name].check(value, name)


def check_together(**values):
    """Raise ``ValueError`` with the message of the first rule of :data:`RULES` that the
    validated ``values`` break (a rule applies where all its names are given: those of
    :data:`DEFAULTS` always are in a :class:`Request`, ``n_groups`` with the data;
    ``lam``: a float, or a sequence of them)."""
    _check_rules(RULES, values)


def _check_rules(rules, values):
    for rule in rules:
        if all(name in values for name in rule.names) and rule.broken(values):
            raise ValueError(rule.message.format(**values))


def choices(name):
    """The names parameter ``name`` may take (argparse's ``choices``)."""
    return PARAMETERS[name].choices


def json_refusal(name, value):
    """Why ``value``, read from a model file, is not a valid ``name`` (None when it is):
    a JSON type the parameter is saved as, and valid by :func:`check`. The reason is
    ``"must be " + PARAMETERS[name].text``, or the check's own message where the value
    is beyond a limit that text does not state (``v.BeyondLimitError``)."""
    parameter = PARAMETERS[name]
    if type(value) in parameter.json:
        try:
            check(name, value)
        except v.BeyondLimitError as error:
            return str(error)
        except (TypeError, ValueError):
            pass
        else:
            return None
    return f"must be {parameter.text}"
