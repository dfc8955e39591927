"""What one fit of ``XOrder`` (or one path of them, :func:`gpu_xorder.xorder_path`)
works from: its parameters checked by the table, the training data validated and
encoded once, and the ordering of the items it learns on."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core._work import execute, plan_encoded
from ..utils import _frames, _params
from ..utils import _validation as v
from ._scores import score_column
from ._subsample import subsample_with_supports

MSG_REFERENCE = "reference_group {value!r} is not one of the groups {labels}"

#: The parameters of the table (``utils._params``) that ``XOrder`` takes besides lam.
PARAMS = ("metric", "disparity", "backend", "method", "solver", "max_disparity",
          "subsample", "memory_limit", "validation")


def check_params(params):
    """``XOrder``'s parameters ``params`` (``get_params()``) as a validated request
    (``utils._params.validate``): ``request[name]`` for the names of ``PARAMS``
    (``validation``: None, a share as a float, or held-out data as a tuple) and
    ``"lam"`` (``(values, is_batch)``, as ``check_lam``), the rules between them
    checked. Only these values reach arithmetic: the estimator keeps what the user gave
    (a ``Decimal``, a 0-d array). :func:`prepare` adds the data."""
    return _params.validate({name: params[name] for name in PARAMS + ("lam",)})


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
            keep_ties=True, alone=True)

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


def prepare(scores, y, sensitive_features, checked, reference_group, stacklevel):
    """The :class:`Fitting` of the training data: validated, encoded, the reference
    group (``reference_group``, or the one of highest mean score) and the items to learn
    on (``checked``: the request of the parameters, :func:`check_params`, to which the
    data are added: validated once, with the rules that need the groups); ``stacklevel``:
    the misaligned-index warning's, as ``_frames.warn_misaligned`` counts it."""
    _frames.warn_misaligned(stacklevel, scores=scores, y=y,
                            sensitive_features=sensitive_features)
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
