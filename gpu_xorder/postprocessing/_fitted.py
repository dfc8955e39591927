"""One fit of ``XOrder``, from its request to its fitted state.

What a fit (or a path of them, :func:`gpu_xorder.xorder_path`) works from: its
parameters as one validated request (:func:`check_params`), the training data validated
and encoded once and the items it learns on (:func:`prepare`, :class:`Fitting`; on a
subsample, every k-th item of each group's score order, refused where it leaves a group
without what the metric needs, docs/design.md, section 6); and what it keeps: the group
labels, the reference group, the bounds and the map of every other group in one object,
:class:`FittedMaps`, that ``transform`` applies; the estimator's base class
:class:`FittedModel`, whose public attributes (``groups_``, ``maps_``, ...) read it and
whose fits set it; and :func:`fit_path`, the fits of a path of weights.

As fairlearn's ``ThresholdOptimizer`` keeps its fitted rule in one
``InterpolatedThresholder``, ``XOrder`` keeps its maps in one :class:`FittedMaps`. Only
the estimator (``_estimator.py``, with this module) and the model file
(``_model_file.py``: it makes one from a file) build or read it; everybody else reads
the estimator's public attributes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .. import metrics
from ..core._work import execute, plan_encoded
from ..utils import _frames, _params
from ..utils import _validation as v
from ._maps import apply_group_maps
from ._promises import warn_unrealised
from ._scores import score_column
from ._transfer import default_bounds, fit_transfer

# ------------------------------------------------------------------ the items learnt on

MSG_SUBSAMPLE_SHORT = (
    "subsample={k} keeps {kept} of the {n} items (the smallest group, {group!r} with "
    "{size} items, keeps {group_kept}), and then {why}; use a smaller subsample"
)


def subsample_with_supports(scores, y, labels, index, step, metric):
    """``equidistant_subsample``, refused with a message naming the step and the
    smallest group when the kept items lack what ``metric`` needs (the fit would only
    say that a group has no positives or negatives)."""
    keep = equidistant_subsample(scores, index, step)
    if step == 1:
        return keep
    try:
        v.check_supports(labels, index[keep], y[keep], metric)
    except ValueError as exc:
        sizes = np.bincount(index, minlength=labels.size)
        g = int(np.argmin(sizes))
        raise ValueError(MSG_SUBSAMPLE_SHORT.format(
            k=step, kept=keep.size, n=scores.size, group=labels[g].item(),
            size=int(sizes[g]), group_kept=-(-int(sizes[g]) // step), why=exc)) from None
    return keep


def equidistant_subsample(scores, index, step):
    """Every ``step``-th item of each group's descending (stable) score order, starting
    with the top one; returned as increasing indices into ``scores``."""
    if step == 1:
        return np.arange(scores.size)
    keep = []
    for g in np.unique(index):
        members = np.flatnonzero(index == g)
        ranked = members[np.argsort(-scores[members], kind="stable")]
        keep.append(ranked[::step])
    return np.sort(np.concatenate(keep))


# ------------------------------------------------------------------ the request and the data

MSG_REFERENCE = "reference_group {value!r} is not one of the groups {labels}"

#: The parameters of the table (``utils._params``) that ``XOrder`` takes besides lam.
PARAMS = ("metric", "disparity", "backend", "method", "solver", "max_disparity",
          "subsample", "memory_limit", "validation", "exact_budget")


def check_params(params):
    """``XOrder``'s parameters ``params`` (``get_params()``) as a validated request
    (``utils._params.validate``): ``request[name]`` for the names of ``PARAMS``
    (``validation``: None, a share as a float, or held-out data as a tuple) and
    ``"lam"`` (``(values, is_batch)``, as ``check_lam``), the rules between them
    checked. Only these values reach arithmetic: the estimator keeps what the user gave
    (a ``Decimal``, a 0-d array). :func:`prepare` adds the data. ``FairRanker``'s
    parameters (``params`` with ``response_method``) make its one request here too."""
    names = PARAMS + ("lam",) + (("response_method",) if "response_method" in params
                                 else ())
    return _params.validate({name: params[name] for name in names})


class Fitting(NamedTuple):
    """Validated training data of one fit, shared by every lam of :func:`xorder_path`."""

    scores: np.ndarray
    y: np.ndarray
    labels: np.ndarray      # sorted group labels
    index: np.ndarray       # position of every item's group in labels
    reference: int          # position of the reference group
    keep: np.ndarray        # items the ordering is learned on (increasing)
    names: np.ndarray | None  # feature_names_in_ (a DataFrame's column name)

    def plan(self, checked, lam, n_jobs=None):
        """The plan (``core._choice.Plan``) of :meth:`solve` with the same arguments:
        what it runs, decided once."""
        k = self.keep
        constraint = checked["max_disparity"] if checked["validation"] is None else None
        return plan_encoded(
            self.scores[k], self.y[k], self.labels, self.index[k],
            np.atleast_1d(np.asarray(lam, dtype=np.float64)), metric=checked["metric"],
            mode=checked["disparity"], backend=checked["backend"],
            method=checked["method"], solver=checked["solver"], max_disparity=constraint,
            memory_limit=checked["memory_limit"], n_jobs=_params.check("n_jobs", n_jobs),
            keep_ties=True, alone=True, exact_budget=checked["exact_budget"])

    def solve(self, checked, lam, progress, n_jobs=None):
        """The ordering of the kept items with the validated parameters ``checked``
        (:func:`check_params`); ``lam`` a float (one result) or an array (a list of
        results, one batched DP). The data were validated and encoded once, in
        :func:`prepare`: this carries out the plan (:meth:`plan`) of the encoded core of
        :func:`fair_order`, every value solved as if alone, so that a path's model is
        its single fit's."""
        progress = _params.check("progress", progress)
        k = self.keep
        results = execute(self.scores[k], self.y[k], self.labels, self.index[k],
                          self.plan(checked, lam, n_jobs), progress)
        return results if np.ndim(lam) else results[0]


def prepare(scores, y, sensitive_features, checked, reference_group):
    """The :class:`Fitting` of the training data: validated, encoded, the reference
    group (``reference_group``, or the one of highest mean score) and the items to learn
    on (``checked``: the request of the parameters, :func:`check_params`, to which the
    data are added: validated once, with the rules that need the groups)."""
    _frames.warn_misaligned(scores=scores, y=y, sensitive_features=sensitive_features)
    s, labels_y, labels, index = checked.with_data(score_column(scores)[0], y,
                                                   sensitive_features).data
    reference = _reference_index(s, labels, index, reference_group)
    keep = subsample_with_supports(s, labels_y, labels, index,
                                   checked["subsample"] or 1, checked["metric"])
    return Fitting(s, labels_y, labels, index, reference, keep,
                   _frames.column_names(scores))


def _reference_index(s, labels, index, reference_group):
    """Position of the reference group: the given one, or the highest mean score."""
    if reference_group is None:
        means = np.bincount(index, weights=s) / np.bincount(index)
        return int(np.argmax(means))
    try:
        return v.group_position(labels, reference_group)
    except ValueError:
        raise ValueError(MSG_REFERENCE.format(value=reference_group,
                                              labels=labels.tolist())) from None


# ------------------------------------------------------------------ the fitted state

MSG_UNSEEN = "sensitive features contain group {label!r}, not seen in fit (groups {labels})"


@dataclass(frozen=True, eq=False)
class FittedMaps:
    """What ``XOrder.transform`` needs: the maps of a fit, or of a model file."""

    groups: np.ndarray           # the sorted group labels seen in fit
    reference: int               # position of the reference group in groups
    bounds: tuple                # (lo, hi): the range adjusted scores live in
    maps: dict                   # group position -> knots (x, y) of its increasing map
    clip: tuple | None = None    # a version-1 model file's clipping range
    rule: int = 2                # apply_group_maps's rule: 1 for version-1 files

    @classmethod
    def learn(cls, scores, index, labels, reference, keep, order):
        """The maps that realise ``order``, the ordering of the items ``keep`` of the
        encoded training data ``scores``, ``labels[index]``, with the group
        ``reference`` kept; and the adjusted training scores of every item, which the
        maps give back bit for bit: ``(FittedMaps, adjusted)``."""
        bounds = default_bounds(scores, scores[index == reference])
        learned, maps = fit_transfer(scores[keep], order, index[keep], reference, bounds)
        # the maps keep every score inside bounds: nothing to clip
        fitted = cls(labels.copy(), reference, bounds, maps)
        if keep.size == scores.size:
            return fitted, learned
        return fitted, fitted.apply(scores, index)

    @property
    def reference_group(self):
        """The label of the reference group."""
        return self.groups[self.reference]

    def apply(self, scores, index):
        """Adjusted ``scores`` of items of the groups at positions ``index`` of
        ``groups``."""
        return apply_group_maps(scores, index, self.maps, clip=self.clip, rule=self.rule)

    def transform(self, scores, labels, index):
        """Adjusted ``scores`` of items of the groups ``labels[index]`` (``labels``:
        the sorted labels of the data transformed, each one seen in fit)."""
        position = np.array([self.position(label) for label in labels], dtype=np.int64)
        return self.apply(scores, position[index])

    def position(self, label):
        """Position of a transform-time group label among ``groups``."""
        try:
            return v.group_position(self.groups, label)
        except ValueError:
            raise ValueError(MSG_UNSEEN.format(label=np.asarray(label).item(),
                                               labels=self.groups.tolist())) from None




class FittedModel:
    """Base class of ``XOrder``: its fitted attributes of the maps, read from its one
    :class:`FittedMaps` (``_fitted``), and how a fit sets them."""

    # no docstrings: XOrder's "Attributes" documents them, and numpydoc would replace
    # that text with a property's own docstring on the site
    @property
    def groups_(self):
        return self._fitted.groups

    @property
    def reference_group_(self):
        return self._fitted.reference_group

    @property
    def bounds_(self):
        return self._fitted.bounds

    @property
    def clip_(self):
        return self._fitted.clip

    @property
    def maps_(self):
        return self._fitted.maps

    def _set_fitted(self, fitting, result, lam):
        """Learn the score maps from ``result``, the ordering of ``fitting.keep`` found
        with weight ``lam``; set the fitted attributes and return self."""
        s, y, labels, index, reference, keep, names = fitting
        self._fitted, adjusted = FittedMaps.learn(s, index, labels, reference, keep,
                                                  result.order)
        self.result_ = result
        self.subsample_indices_ = keep.copy()
        self.order_ = keep[result.order]
        self.train_scores_adjusted_ = adjusted
        # what the model does on its training data: printed by `fit`, saved in the file
        self.train_auc_ = metrics.auc(y, adjusted)
        self.train_disparity_ = metrics.disparity(y, adjusted, sensitive_features=index,
                                                  metric=self.metric)
        self.lam_ = lam
        self.n_features_in_ = 1
        if names is None:
            vars(self).pop("feature_names_in_", None)
        else:
            self.feature_names_in_ = names
        return self

    def _adopt(self, fitted):
        """Take the fitted state of the model ``fitted`` (a held-out choice); return
        self."""
        for name, value in vars(fitted).items():
            if name.endswith("_") or name == "_fitted":
                setattr(self, name, value)
        return self


def fit_path(template, scores, y, sensitive_features, lams, progress=None, n_jobs=None):
    """A fitted copy of the unfitted model ``template`` for every value of ``lams``
    (its ``lam`` replaced): the data validated and encoded once, the orderings from one
    batched call of the core of :func:`gpu_xorder.fair_order`
    (:func:`gpu_xorder.xorder_path`, a held-out choice of the weight)."""
    models, fitting = fit_path_quietly(template, scores, y, sensitive_features, lams,
                                       progress, n_jobs)
    for model in models:
        warn_unrealised(model, fitting, None)
    return models


def fit_path_quietly(template, scores, y, sensitive_features, lams, progress=None,
                     n_jobs=None):
    """:func:`fit_path` without its warnings of fits that miss what they claim:
    ``(models, fitting)``, ``fitting`` for ``warn_unrealised`` of the models the
    caller keeps (a held-out choice warns of the one it chooses, not of the fits it
    only compared)."""
    params, checked, values, fitting = _path_fitting(template, scores, y,
                                                     sensitive_features, lams)
    results = fitting.solve(checked, values, progress, n_jobs)
    return [type(template)(**{**params, "lam": float(lam)})._set_fitted(
        fitting, result, float(lam)) for lam, result in zip(values, results)], fitting


def plan_path(template, scores, y, sensitive_features, lams, n_jobs=None):
    """The plan (``core._choice.Plan``) of :func:`fit_path` with the same arguments."""
    _, checked, values, fitting = _path_fitting(template, scores, y, sensitive_features,
                                                lams)
    return fitting.plan(checked, values, n_jobs)


def _path_fitting(template, scores, y, sensitive_features, lams):
    """``(params, checked, values, fitting)`` of a path of ``template`` over ``lams``:
    its parameters, the one request of the path's lams, their values and the
    :class:`Fitting` of the data."""
    params = template.get_params()
    checked = check_params({**params, "lam": lams})  # one request: the path's lams
    fitting = prepare(scores, y, sensitive_features, checked, params["reference_group"])
    return params, checked, checked["lam"][0], fitting
