"""A fitted ``XOrder``'s state: the group labels, the reference group, the bounds and the
map of every other group in one object, :class:`FittedMaps`, that ``transform`` applies;
the estimator's base class :class:`FittedModel`, whose public attributes (``groups_``,
``maps_``, ...) read it and whose fits set it; and :func:`fit_path`, the fits of a path
of weights.

As fairlearn's ``ThresholdOptimizer`` keeps its fitted rule in one
``InterpolatedThresholder``, ``XOrder`` keeps its maps in one :class:`FittedMaps`. Only
the estimator (``_estimator.py``, with this module) and the model file
(``_model_file.py``: it makes one from a file) build or read it; everybody else reads
the estimator's public attributes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import metrics
from ..utils import _params
from ..utils import _validation as v
from ._bounds import default_bounds
from ._fitting import check_params, prepare
from ._maps import apply_group_maps
from ._promises import warn_unrealised
from ._transfer import fit_transfer

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


def fit_path(template, scores, y, sensitive_features, lams, progress=None, n_jobs=None,
             *, stacklevel):
    """A fitted copy of the unfitted model ``template`` for every value of ``lams``
    (its ``lam`` replaced): the data validated and encoded once, the orderings from one
    batched call of the core of :func:`gpu_xorder.fair_order`
    (:func:`gpu_xorder.xorder_path`, a held-out choice of the weight); ``stacklevel``:
    the warnings' (``warn_unrealised``)."""
    params = template.get_params()
    values, _ = _params.check("lam", lams)
    checked = check_params(params)
    fitting = prepare(scores, y, sensitive_features, checked, params["reference_group"],
                      stacklevel + 1)
    results = fitting.solve(checked, values, progress, n_jobs)
    models = [type(template)(**{**params, "lam": float(lam)})._set_fitted(
        fitting, result, float(lam)) for lam, result in zip(values, results)]
    for model in models:
        warn_unrealised(model, fitting, None, stacklevel=stacklevel)
    return models
