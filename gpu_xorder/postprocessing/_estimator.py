"""``XOrder``: the scikit-learn style transformer over ``fair_order`` and the transfer.

A thin layer (STYLE item 6): ``fit`` validates (``_fitted``), learns the ordering with
:func:`gpu_xorder.fair_order` and the score maps (``_fitted.FittedMaps``, the one object
of its fitted state that ``transform`` applies; docs/design.md, section 5).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils import metadata_routing
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import metrics
from ..io import write_json
from ..utils import _frames, _params
from ..utils import _validation as v
from . import _model_file
from ._fitted import FittedModel, check_params, prepare
from ._held_out import validated_fit, validated_plan
from ._promises import warn_unrealised
from ._scores import check_equal_weights, score_column, shaped

if TYPE_CHECKING:
    from collections.abc import Callable

    import pandas as pd
    from numpy.typing import ArrayLike

    from ..core import Plan

MSG_LAM_SEQUENCE = (
    "XOrder needs a single lam value, got a sequence of {k}; call gpu_xorder.fair_order "
    "for a sweep over lam"
)


def _single_lam(checked):
    """The values of ``checked["lam"]``, one (``MSG_LAM_SEQUENCE`` for a sequence: a
    fit has one weight)."""
    lams, batch = checked["lam"]
    if batch:
        raise ValueError(MSG_LAM_SEQUENCE.format(k=lams.size))
    return lams


class XOrder(FittedModel, OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Fair risk scores by xOrder: learn a fair interleaving, then transfer it to scores.

    ``fit`` chooses, by the xOrder dynamic program, how the groups' rankings interleave
    so as to maximise ``AUC - lam * D``; the reference group keeps its scores, the other
    groups' scores are moved to realise that interleaving, and a monotone map per group
    carries the adjustment over to new scores in ``transform``.

    Parameters
    ----------
    metric : {"xauc", "prf", "urf"}, default="xauc"
        Disparity metric ``D`` (see :func:`gpu_xorder.fair_order`).
    lam : float, default=0.0
        Weight of the disparity on the paper's scale; a single value (use
        :func:`gpu_xorder.fair_order` for a sweep).
    disparity : {"absolute", "signed"}, default="absolute"
        Penalise ``|D|`` or the signed ``D`` (two groups only).
    reference_group : group label or None, default=None
        The group whose scores stay unchanged. None: the group with the highest mean
        training score (the group ranked highest, which :meth:`summary` names
        advantaged or disadvantaged as ``high_score`` says; on equal means the first in
        sorted label order).
    backend : {"auto", "numpy", "numba", "cupy"}, default="auto"
        Where the dynamic program runs, each engine with the same decisions (see
        :func:`gpu_xorder.fair_order`): ``"numpy"`` the reference, ``"numba"`` the
        compiled CPU engine, ``"cupy"`` the GPU; ``"auto"`` takes CuPy, then numba,
        then NumPy.
    method : {"auto", "kd", "iterative", "best"}, default="auto"
        How more than two groups are merged (see :func:`gpu_xorder.fair_order`). With
        more than two groups the reference group keeps its scores and every other group
        gets its own monotone map.
    subsample : int or None, default=None
        Learn the ordering on every ``subsample``-th item of each group's descending
        score order (items 1, 1 + k, 1 + 2k, ...; docs/design.md, section 6, the
        paper's large-data setting), then carry it to all training items, and later to
        new ones, through the same monotone per-group maps. The lattice shrinks by about
        ``subsample ** 2``.
        None or 1: every item.
    memory_limit : int, str or None, default=None
        Bytes the decision bits may take (or a size: ``"2GB"``, ``"512MiB"``); beyond,
        the lattice is filled in bands with counter checkpoints, same result for about
        twice the work (see :func:`gpu_xorder.fair_order`; two groups only).
    solver : {"auto", "paper", "lagrangian", "exact"}, default="auto"
        How the ordering is chosen for two groups (see :func:`gpu_xorder.fair_order`);
        ``result_.upper_bound`` and ``result_.gap`` certify it.
    max_disparity : float or None, default=None
        Fairness as a constraint instead of a weight: maximise AUC subject to
        ``|D| <= max_disparity`` (two groups; leave ``lam`` at 0). Without
        ``validation`` the constraint holds on the training data: for the learned
        ordering, and for the adjusted training scores unless the ordering separates
        equal scores, which scores cannot do (``fit`` then warns, naming both).
    validation : float, (scores, y, sensitive_features) or None, default=None
        Choose the weight the DP uses on held-out data, where an auditor measures the
        disparity. A float in (0, 1) holds out that share of the training data
        (stratified by group and label), a tuple gives the held-out data itself.
        Every weight of ``VALIDATION_LAMS`` is fitted on the training data (the rest,
        for a share), and the one whose transformed held-out scores have, with
        ``max_disparity``, the highest AUC with ``|D| <= max_disparity`` (none: the
        smallest ``|D|``, with a warning), else (``lam > 0``) the highest
        ``AUC - lam |D|`` is kept; with a share the model is then refitted on all the
        data with that weight (``lam_``). ``validation_`` records the table. For xAUC
        the training gain of the default solver does not carry to new data on
        average, and this choice does (docs/user_guide/solvers.md, "Solvers and the
        certificate").
    exact_budget : float, default=2.0
        Seconds ``solver="auto"`` may spend in the exact solver (see
        :func:`gpu_xorder.fair_order`); 0: the Lagrangian search alone; at most 1e9.

    Attributes
    ----------
    groups_ : ndarray
        Sorted group labels seen in fit; the keys of ``maps_`` index into it.
    reference_group_ : group label
        The reference group used.
    subsample_indices_ : ndarray of int64
        Training items the ordering was learned on (all of them without subsampling),
        increasing.
    order_ : ndarray of int64
        The learned ordering of those items, top first, as indices into the training
        data.
    result_ : FairOrderResult
        The full result of :func:`gpu_xorder.fair_order` (on the subsample, if any: its
        ``order`` indexes into ``subsample_indices_``).
    train_scores_adjusted_ : ndarray of float64
        Adjusted training scores, equal to ``transform`` of the training scores. Without
        subsampling they rank the training items as ``order_`` when the reference scores
        are distinct and ``order_`` splits no tie of a group; within every group equal
        scores stay equal and distinct ones distinct, in the same order.
    train_auc_, train_disparity_ : float
        AUC and disparity (``metric``, absolute) of ``train_scores_adjusted_`` on all
        training items: what ``gpu-xorder fit`` prints and the model file's summary
        holds. ``result_`` has those of the learned ordering.
    bounds_ : (float, float)
        ``(lo, hi)``: the range adjusted scores live in, (0, 1) for probability-like
        training scores (see :func:`gpu_xorder.postprocessing._transfer.default_bounds`).
    clip_ : None
        None: the maps keep scores inside ``bounds_`` without clipping (a model loaded
        from a version-1 file may hold the range it clipped to).
    maps_ : dict of int to (ndarray, ndarray)
        Knots ``(x, y)`` of the increasing map of every non-reference group, keyed by
        its position in ``groups_`` (see
        :func:`gpu_xorder.postprocessing._transfer.fit_transfer`).
    n_features_in_ : int
        Always 1: the scores.
    feature_names_in_ : ndarray of str
        The column name of a one-column DataFrame of scores given to fit (absent
        otherwise).
    lam_ : float
        The weight the ordering was fitted with: ``lam``, or the one chosen on
        ``validation`` (with ``max_disparity`` and no validation: 0, see ``result_``).
    validation_ : dict or None
        With ``validation``: ``lams``, the held-out ``auc`` and ``disparity`` of each,
        and the ``chosen`` lam.

    Notes
    -----
    A scikit-learn transformer of one feature, the scores: 1-D input gives 1-D output,
    an array of shape (n, 1) gives shape (n, 1), and a pandas Series or one-column
    DataFrame gives the same with its index (also without ``set_output``).
    ``sensitive_features`` is required metadata of ``fit`` and ``transform``; inside a
    ``Pipeline`` or ``ColumnTransformer`` route it with
    ``sklearn.set_config(enable_metadata_routing=True)`` and
    ``XOrder().set_fit_request(sensitive_features=True)
    .set_transform_request(sensitive_features=True)``.

    The ordering keeps every run of equal scores of a group whole (every metric, any
    number of groups: no item of another group inside it), since scores that keep a
    group's ties cannot realise anything else; ``result_`` and its certificate are over such
    orderings, where :func:`gpu_xorder.fair_order` ranks items and may split a run.

    Training: the non-reference items ranked between two consecutive distinct
    reference scores (or a reference score and a bound) are placed strictly between
    them, each group's items spread by their original scores; tied scores of a group
    stay tied. Test: each group's map is linear between its knots, strictly increasing,
    and the identity beyond ``bounds_``; adjusted scores stay inside ``bounds_``
    (docs/design.md, section 5).

    Examples
    --------
    >>> import numpy as np
    >>> from gpu_xorder import XOrder
    >>> scores = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
    >>> y = np.array([1, 0, 1, 0, 1, 0, 1, 0])
    >>> groups = np.array(["a", "a", "a", "a", "b", "b", "b", "b"])
    >>> xo = XOrder(lam=1.0, backend="numpy").fit(scores, y, sensitive_features=groups)
    >>> str(xo.reference_group_)
    'a'
    >>> adjusted = xo.transform(np.array([0.85, 0.35]), sensitive_features=["a", "b"])
    >>> float(adjusted[0])
    0.85
    """

    # the scores are the transformer's X, not metadata for a router to pass on
    __metadata_request__fit = {"scores": metadata_routing.UNUSED}
    __metadata_request__transform = {"scores": metadata_routing.UNUSED}

    def __init__(self, *, metric: str = "xauc", lam: float = 0.0,
                 disparity: str = "absolute", reference_group: object = None,
                 backend: str = "auto", method: str = "auto", subsample: int | None = None,
                 memory_limit: int | str | None = None, solver: str = "auto",
                 max_disparity: float | None = None,
                 validation: float | tuple | None = None,
                 exact_budget: float = 2.0) -> None:
        self.metric = metric
        self.lam = lam
        self.disparity = disparity
        self.reference_group = reference_group
        self.backend = backend
        self.method = method
        self.subsample = subsample
        self.memory_limit = memory_limit
        self.solver = solver
        self.max_disparity = max_disparity
        self.validation = validation
        self.exact_budget = exact_budget

    def fit(self, scores: ArrayLike, y: ArrayLike, *, sensitive_features: ArrayLike,
            sample_weight: ArrayLike | None = None,
            progress: Callable[[int, int], object] | None = None) -> XOrder:
        """Learn the fair ordering of the training items and the per-group score maps.

        Parameters
        ----------
        scores : array-like of shape (n,) or (n, 1)
            Finite training risk scores (a Series or one-column DataFrame too).
        y : array-like of shape (n,)
            Binary labels (0/1).
        sensitive_features : array-like of shape (n,) or (n, c)
            Protected group of every item (ints, strings, ...); at least two groups.
            With c columns (one per attribute) the groups are their intersections,
            labelled ``"white & female"`` (see :func:`gpu_xorder.fair_order`).
        sample_weight : array-like of shape (n,), optional
            Accepted so that weighted pipelines run, but the dynamic program counts
            items: only None or equal weights (the same fit) are allowed.
        progress : callable(done_cells, total_cells), optional
            Passed on to :func:`gpu_xorder.fair_order`.

        Returns
        -------
        self : XOrder
            The fitted transformer itself.

        Raises
        ------
        ValueError
            On an unknown ``metric``/``disparity``/``backend``, a sequence ``lam``, a
            ``reference_group`` that is not a group label, NaN or mismatched lengths,
            and on unequal ``sample_weight``.
        TypeError
            On non-numeric scores or labels.

        Examples
        --------
        >>> import numpy as np
        >>> xo = XOrder(backend="numpy").fit(np.array([0.9, 0.1, 0.6, 0.4]),
        ...                                   np.array([1, 0, 1, 0]),
        ...                                   sensitive_features=np.array([0, 0, 1, 1]))
        >>> xo.order_.tolist()
        [0, 2, 1, 3]
        """
        checked = check_params(self.get_params())
        if sample_weight is not None:
            check_equal_weights(sample_weight, np.size(score_column(scores)[0]))
        return self._fit(checked, scores, y, sensitive_features, progress)

    def _fit(self, checked, scores, y, sensitive_features, progress):
        """:meth:`fit` with its validated request ``checked`` (``_fitted.check_params``
        of this estimator's parameters; ``FairRanker.fit`` makes it with its own)."""
        lams = _single_lam(checked)
        if checked["validation"] is not None:
            chosen, table = validated_fit(self, checked, scores, y, sensitive_features,
                                          progress)
            self._adopt(chosen)  # a refit's validation_ (None) gives way to the table
            self.validation_ = table
            return self
        fitting = prepare(scores, y, sensitive_features, checked, self.reference_group)
        lam = float(lams[0])
        self.validation_ = None
        self._set_fitted(fitting, fitting.solve(checked, lam, progress), lam)
        warn_unrealised(self, fitting, checked["max_disparity"])
        return self

    def plan(self, scores: ArrayLike, y: ArrayLike, *,
             sensitive_features: ArrayLike) -> Plan:
        """What :meth:`fit` would run on these data, without running it.

        Parameters
        ----------
        scores : array-like of shape (n,) or (n, 1)
            Finite training risk scores.
        y : array-like of shape (n,)
            Binary labels (0/1).
        sensitive_features : array-like of shape (n,) or (n, c)
            Protected group of every item.

        Returns
        -------
        Plan
            The engine, route, solver of every lam, expected fills, cells, decision
            bits, estimated seconds and warnings of the fit (after ``subsample``; a
            sequence ``lam``: of :func:`gpu_xorder.xorder_path` over it; with
            ``validation``: of the fits of the held-out choice, every weight it tries
            on the data it learns on, without the chosen weight's refit on all the
            data after a share); ``print`` it for a summary.

        Examples
        --------
        >>> import numpy as np
        >>> plan = XOrder(backend="numpy", lam=1.0).plan(
        ...     np.array([0.9, 0.1, 0.6, 0.4]), np.array([1, 0, 1, 0]),
        ...     sensitive_features=np.array([0, 0, 1, 1]))
        >>> plan.engine, plan.sizes
        ('numpy', (2, 2))
        """
        checked = check_params(self.get_params())
        if checked["validation"] is not None:  # one lam, as fit takes
            _single_lam(checked)
            return validated_plan(self, checked, scores, y, sensitive_features)
        fitting = prepare(scores, y, sensitive_features, checked, self.reference_group)
        return fitting.plan(checked, checked["lam"][0])

    def transform(self, scores: ArrayLike, *,
                  sensitive_features: ArrayLike) -> np.ndarray | pd.Series | pd.DataFrame:
        """Adjusted scores: the reference group unchanged, every other group mapped.

        Parameters
        ----------
        scores : array-like of shape (n,) or (n, 1)
            Finite risk scores on the scale of the training scores; they may lie outside
            the training range.
        sensitive_features : array-like of shape (n,) or (n, c)
            Group of every item, in the form given to fit; only groups seen in fit.

        Returns
        -------
        ndarray of float64, shape (n,) or (n, 1), or pandas Series or DataFrame
            New scores, strictly increasing in the original score within every group
            (equal scores equal; a version-1 model file's: non-decreasing), in the form
            of ``scores``: its shape, and a pandas input's index and name. Where float64
            rounding would give two distinct scores of a group one value, they are moved
            apart by the fewest ulps, so those values depend on the scores transformed
            with them (:func:`gpu_xorder.postprocessing._maps.apply_group_maps`).

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        ValueError
            On a group not seen in fit, NaN or mismatched lengths, or where float64
            holds fewer numbers than distinct scores of a group need.

        Examples
        --------
        >>> import numpy as np
        >>> xo = XOrder(backend="numpy").fit(np.array([0.9, 0.1, 0.6, 0.4]),
        ...                                   np.array([1, 0, 1, 0]),
        ...                                   sensitive_features=np.array([0, 0, 1, 1]))
        >>> xo.transform(np.array([0.9, 0.5]), sensitive_features=np.array([0, 0])).tolist()
        [0.9, 0.5]
        """
        check_is_fitted(self)
        _frames.warn_misaligned(scores=scores, sensitive_features=sensitive_features)
        column, table = score_column(scores)
        if table:  # its feature names checked against fit's
            validate_data(self, scores, reset=False, skip_check_array=True)
        s = v.check_scores(column)
        labels, index = v.encode_groups(sensitive_features, s.size)
        return shaped(self._fitted.transform(s, labels, index), scores, table)

    def fit_transform(self, scores: ArrayLike, y: ArrayLike, *,
                      sensitive_features: ArrayLike, sample_weight: ArrayLike | None = None,
                      progress: Callable[[int, int], object] | None = None,
                      ) -> np.ndarray | pd.Series | pd.DataFrame:
        """Fit, then return the adjusted training scores (``train_scores_adjusted_``).

        These equal ``transform`` on the training data, bit for bit.

        Parameters
        ----------
        scores, y, sensitive_features, sample_weight, progress : as in :meth:`fit`
            The training data and options of :meth:`fit`.

        Returns
        -------
        ndarray of float64, shape (n,) or (n, 1), or pandas Series or DataFrame
            A new array, in the form of ``scores`` (as :meth:`transform`).

        Examples
        --------
        >>> import numpy as np
        >>> XOrder(backend="numpy").fit_transform(
        ...     np.array([0.9, 0.1, 0.6, 0.4]), np.array([1, 0, 1, 0]),
        ...     sensitive_features=np.array([0, 0, 1, 1])).round(4).tolist()
        [0.9, 0.1, 0.5, 0.05]
        """
        self.fit(scores, y, sensitive_features=sensitive_features,
                 sample_weight=sample_weight, progress=progress)
        return shaped(self.train_scores_adjusted_.copy(), scores,
                       score_column(scores)[1])

    def summary(self, scores: ArrayLike, y: ArrayLike, *, sensitive_features: ArrayLike,
                high_score: str = "favourable") -> dict:
        """AUC, disparity and disadvantaged group of ``scores`` before and after.

        Parameters
        ----------
        scores, y, sensitive_features : array-like
            Data to measure, held-out data say (as :meth:`transform`, with labels).
        high_score : {"favourable", "harmful"}, default="favourable"
            What a high score does to a person: ``"harmful"`` for a risk score whose
            high ranks bring detention, say (:func:`gpu_xorder.metrics.disadvantaged_group`).

        Returns
        -------
        dict
            ``{"metric", "high_score", "unadjusted": {...}, "adjusted": {...}}``, each
            ``{"auc", "disparity", "disadvantaged"}`` by ``self.metric``, the last a
            :class:`gpu_xorder.metrics.Disadvantage`.

        Examples
        --------
        >>> import numpy as np
        >>> s, y = np.array([0.9, 0.8, 0.6, 0.7, 0.3, 0.2]), np.array([1, 0, 1, 0, 1, 0])
        >>> g = np.array(["a", "a", "a", "b", "b", "b"])
        >>> xo = XOrder(lam=1.0, backend="numpy").fit(s, y, sensitive_features=g)
        >>> report = xo.summary(s, y, sensitive_features=g, high_score="harmful")
        >>> [(report[k]["disadvantaged"].group, report[k]["disparity"])
        ...  for k in ("unadjusted", "adjusted")]
        [('a', 0.75), ('b', 0.25)]
        """
        check_is_fitted(self)
        _params.check("high_score", high_score)
        adjusted = self.transform(score_column(scores)[0],
                                  sensitive_features=sensitive_features)
        measured = {"metric": self.metric, "high_score": high_score}
        for key, s in (("unadjusted", score_column(scores)[0]), ("adjusted", adjusted)):
            measured[key] = {
                "auc": metrics.auc(y, s),
                "disparity": metrics.disparity(y, s, sensitive_features=sensitive_features,
                                               metric=self.metric),
                "disadvantaged": metrics.disadvantaged_group(
                    y, s, sensitive_features=sensitive_features, metric=self.metric,
                    high_score=high_score)}
        return measured

    def save(self, path: str | os.PathLike) -> None:
        """Write the fitted model to ``path`` as JSON, atomically (never pickle).

        The file holds the package version, the score column's name (where known), the
        parameters, the group labels (ints, floats, strings or booleans), the reference
        group, the bounds and every group's map as its knots, a summary of the fit (AUC
        and disparity of the adjusted training scores and of the learned ordering, ...)
        and a glossary of these fields (``_model_file.MODEL_GLOSSARY``). :meth:`load` reads it
        back into a model whose ``transform`` gives bit-identical scores.

        Parameters
        ----------
        path : str or path-like
            The file to write (a new file, or a regular file to replace).

        Examples
        --------
        >>> import os, tempfile
        >>> import numpy as np
        >>> xo = XOrder(lam=1.0, backend="numpy").fit(
        ...     np.array([0.9, 0.1, 0.6, 0.4]), np.array([1, 0, 1, 0]),
        ...     sensitive_features=np.array(["a", "a", "b", "b"]))
        >>> path = os.path.join(tempfile.mkdtemp(), "xorder.json")
        >>> xo.save(path)
        >>> loaded = XOrder.load(path)
        >>> new = np.array([0.3, 0.7])
        >>> bool((loaded.transform(new, sensitive_features=["b", "b"])
        ...       == xo.transform(new, sensitive_features=["b", "b"])).all())
        True
        """
        write_json(path, _model_file.model_document(self))

    @classmethod
    def load(cls, path: str | os.PathLike) -> XOrder:
        """A fitted model from a file written by :meth:`save`.

        It has the parameters, ``groups_``, ``reference_group_``, ``bounds_``,
        ``clip_`` and ``maps_`` of the saved model, and ``transform`` works as it did;
        the training-time attributes (``result_``, ``order_``, ...) are not saved.

        Parameters
        ----------
        path : str or path-like
            A file written by :meth:`save` (or ``gpu-xorder fit --model``).

        Returns
        -------
        XOrder
            The fitted model.

        Raises
        ------
        ValueError
            If the file is not a valid gpu-xorder model: every field is checked before
            use (format, version, package version, column names, parameters, group
            labels, bounds, a version-1 file's clipping range and maps: their types,
            sizes, finiteness and order); the message says what is wrong.
        """
        params, fitted = _model_file.load_model(path, cls().get_params())
        est = cls(**params)
        est._fitted = fitted
        est.n_features_in_ = 1
        return est

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags
