"""``FairRanker``: a classifier and xOrder as one estimator.

A meta-estimator in the manner of fairlearn's ``ThresholdOptimizer``: ``fit`` learns
xOrder on scores the classifier gives to data it was not fitted on (out-of-fold scores
by cross-fitting, or held-out data for a prefit classifier), because the in-sample
scores of a flexible model are better separated, and differently disparate, than the
scores it will give new data (docs/user_guide/choosing_lam.md, "Why FairRanker learns
from out-of-fold
scores").
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import numpy as np
import sklearn
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.model_selection import cross_val_predict
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    get_routing_for_object,
    process_routing,
)
from sklearn.utils.validation import check_is_fitted, has_fit_parameter

from cpu_reference import within_eps

from .. import metrics
from ..utils import _frames, _params
from ..utils._validation import check_flag
from ._estimator import XOrder
from ._fitted import check_params
from ._scores import check_equal_weights

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from numpy.typing import ArrayLike

#: What ``response_method="auto"`` tries, in order (scikit-learn's ranking scorers' order).
AUTO_RESPONSE = ("decision_function", "predict_proba")
MSG_NO_RESPONSE = (
    "{name} has neither predict_proba nor decision_function: FairRanker needs scores"
)
MSG_NO_METHOD = "{name} has no {method}"
MSG_BINARY_PROBA = (
    "predict_proba of {name} gives {k} columns; FairRanker ranks by the probability of "
    "the positive class of binary 0/1 labels"
)
MSG_NO_GROUPS = (
    "FairRanker.{method} needs the protected group of every row: pass "
    "sensitive_features=... (through a Pipeline or GridSearchCV, with "
    "sklearn.set_config(enable_metadata_routing=True)), or name the column of a "
    "DataFrame X that holds them: FairRanker(..., sensitive_features='column')"
)
MSG_SCORER_HINT = (
    "; a search's other scorer (\"roc_auc\" beside fairness_scorer(), say) calls this "
    "without the groups and scores NaN: fairness_scorer(multimetric=True) has \"auc\", "
    "the AUC of the fair scores, and \"neg_disparity\"")
MSG_GROUPS_TWICE = (
    "FairRanker(sensitive_features={column!r}) reads the groups from X; do not pass "
    "sensitive_features to {method} as well"
)
MSG_COLUMN = (
    "sensitive_features must be None, a column name or a list of column names, "
    "got {value!r}"
)
MSG_NOT_A_FRAME = (
    "FairRanker(sensitive_features={column!r}) reads the groups from a column of a "
    "pandas DataFrame X, got X of type {kind}"
)
MSG_NO_COLUMN = "X has no column {missing!r} (FairRanker(sensitive_features={column!r}))"
MSG_WEIGHTED = (
    "FairRanker cannot weigh items in xOrder (its dynamic program counts pairs of "
    "items), so sample_weight must be None or one value > 0 for all (got values from "
    "{lo!r} to {hi!r}). To weight the classifier only, route the weights to it under "
    "another name (metadata routing: estimator.set_fit_request(sample_weight="
    "'classifier_weight'), then fit(..., classifier_weight=w)), or fit it yourself and "
    "pass prefit=True"
)

MSG_UNROUTED = (
    "FairRanker.fit got the groups as the fit parameter sensitive_features inside "
    "scikit-learn's cross-validation (GridSearchCV, cross_validate, ...) without "
    "metadata routing: the folds' scoring and predictions cannot get them, so every "
    "fold would score NaN. Either enable routing, "
    "sklearn.set_config(enable_metadata_routing=True), and pass "
    "sensitive_features=... to the search's fit (FairRanker and fairness_scorer "
    "request it), or give X as a DataFrame holding the groups in a column and name it: "
    "FairRanker(..., sensitive_features='column')"
)
#: scikit-learn's functions that fit an estimator for cross-validation and then score
#: or predict it (``sklearn.model_selection._validation``).
CROSS_VALIDATION_FITS = ("_fit_and_score", "_fit_and_predict")

#: Weight of the disparity in ``score``: AUC - SCORE_LAM * |D| (without max_disparity).
SCORE_LAM = 1.0


class FairRanker(MetaEstimatorMixin, BaseEstimator):
    """A classifier whose scores are made fair by xOrder.

    ``fit`` gets scores of ``estimator`` on data it was not fitted on and learns
    :class:`XOrder` from them; ``decision_function`` gives the fair scores of new
    data. Without ``prefit`` the scores are out of fold: ``cross_val_predict`` of a
    clone of ``estimator`` over ``cv``, after which a clone is fitted on all the data.
    With ``prefit=True`` the given estimator, already fitted, scores the data passed to
    ``fit``, which should then be data it was not trained on.

    It wraps a classifier in the manner of fairlearn's ``ThresholdOptimizer``, but
    returns fair scores (a ranking) where that returns decisions; the site's page
    "Coming from fairlearn" sets the two side by side.

    Parameters
    ----------
    estimator : classifier
        A scikit-learn classifier with ``predict_proba`` or ``decision_function``,
        trained on 0/1 labels.
    prefit : bool, default=False
        Use ``estimator`` as fitted; ``fit`` then only learns xOrder.
    cv : int, cross-validation generator or iterable, default=5
        Folds of the out-of-fold scores (as ``sklearn.model_selection.cross_val_predict``;
        an int gives stratified folds for a classifier).
    response_method : {"auto", "predict_proba", "decision_function"}, default="auto"
        Where the scores come from: the probability of class 1, or the decision
        function; ``"auto"`` tries ``decision_function`` first, as scikit-learn's
        ranking scorers do (a logistic regression's log-odds: its probabilities round
        to ties near 0 and 1, which loses ranking information), then ``predict_proba``.
    metric, lam, disparity, reference_group, backend, method : as in :class:`XOrder`
        Parameters of :class:`XOrder`.
    subsample, memory_limit, solver, max_disparity, validation : as in :class:`XOrder`
        Parameters of :class:`XOrder`.
    exact_budget : float, default=2.0
        As in :class:`XOrder`: the seconds ``solver="auto"`` may spend in the exact
        solver per fit (0: the search alone, as a search over many fits may want).
    n_jobs : int or None, default=None
        Folds fitted at once by ``cross_val_predict``.
    sensitive_features : str, list of str or None, default=None
        The column of a DataFrame ``X`` that holds every row's protected group (a list:
        several columns, whose intersections are the groups), read by ``fit``,
        ``decision_function`` and ``score``; ``X`` still goes to the estimator whole.
        None: the groups are passed to those methods as ``sensitive_features=``.

    Attributes
    ----------
    estimator_ : classifier
        The estimator that scores new data: fitted on all the data, or ``estimator``
        itself with ``prefit``.
    xorder_ : XOrder
        xOrder learned from ``fit_scores_``.
    fit_scores_ : ndarray of float64
        The scores xOrder was learned from: out of fold, or of the prefit estimator.
    response_method_ : str
        ``"predict_proba"`` or ``"decision_function"``.
    n_features_in_, feature_names_in_
        Those of ``estimator_``, where it has them.

    Notes
    -----
    There is no ``predict_proba``: the fair scores keep the reference group's scores
    (decision function or probabilities, ``response_method_``) but move the other
    groups' scores to realise the learned ordering, so they rank well and are not
    calibrated probabilities (calibrate them on held-out data where probabilities are
    needed). ``score`` is a model-selection criterion:
    ``AUC - |D|`` of the fair scores (``SCORE_LAM = 1``; with ``max_disparity``, the AUC
    where ``|D| <= max_disparity`` and a penalty beyond, as
    :func:`gpu_xorder.fairness_scorer`), so that ``GridSearchCV`` over ``lam`` weighs
    fairness by default.

    The groups come from a column of ``X`` (the ``sensitive_features`` parameter) or as
    the metadata ``sensitive_features`` of ``fit``, ``decision_function`` and ``score``,
    which FairRanker requests by default: with
    ``sklearn.set_config(enable_metadata_routing=True)``, ``Pipeline``, ``GridSearchCV``
    and ``cross_validate`` pass it on without ``set_*_request`` calls. Any other keyword
    of ``fit`` goes to the estimator's ``fit`` (routed by its own requests under
    metadata routing). Groups passed to ``fit`` as a fit parameter inside
    scikit-learn's cross-validation without routing are a ``ValueError`` at fit (the
    folds' scoring could not get them), naming these two ways.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from gpu_xorder import FairRanker
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 400)
    >>> X = np.column_stack([rng.normal(size=400), a])
    >>> y = (X[:, 0] + 0.8 * a + rng.normal(size=400) > 0.5).astype(int)
    >>> ranker = FairRanker(LogisticRegression(), lam=1.0, backend="numpy")
    >>> ranker = ranker.fit(X, y, sensitive_features=a)
    >>> ranker.decision_function(X[:3], sensitive_features=a[:3]).shape
    (3,)
    """

    # the groups are required: requested by default, so that routing needs no set-up
    __metadata_request__fit = {"sensitive_features": True}
    __metadata_request__decision_function = {"sensitive_features": True}
    __metadata_request__score = {"sensitive_features": True}

    def __init__(self, estimator: BaseEstimator, *, prefit: bool = False,
                 cv: int | object = 5, response_method: str = "auto",
                 metric: str = "xauc", lam: float = 0.0, disparity: str = "absolute",
                 reference_group: object = None, backend: str = "auto",
                 method: str = "auto", subsample: int | None = None,
                 memory_limit: int | str | None = None, solver: str = "auto",
                 max_disparity: float | None = None,
                 validation: float | tuple | None = None, exact_budget: float = 2.0,
                 n_jobs: int | None = None,
                 sensitive_features: str | Sequence[str] | None = None) -> None:
        self.estimator = estimator
        self.prefit = prefit
        self.cv = cv
        self.response_method = response_method
        self.metric = metric
        self.lam = lam
        self.disparity = disparity
        self.reference_group = reference_group
        self.backend = backend
        self.method = method
        self.subsample = subsample
        self.memory_limit = memory_limit
        self.solver = solver
        self.exact_budget = exact_budget
        self.max_disparity = max_disparity
        self.validation = validation
        self.n_jobs = n_jobs
        self.sensitive_features = sensitive_features

    def fit(self, X: ArrayLike, y: ArrayLike, *,
            sensitive_features: ArrayLike | None = None,
            sample_weight: ArrayLike | None = None, **fit_params: Any) -> FairRanker:
        """Score ``X`` out of fold (or by the prefit estimator) and learn xOrder.

        Parameters
        ----------
        X : array-like of shape (n, p)
            Features, as the estimator takes them.
        y : array-like of shape (n,)
            0/1 labels.
        sensitive_features : array-like of shape (n,) or (n, c), optional
            Protected group of every row (see :meth:`XOrder.fit`); required unless the
            parameter ``sensitive_features`` names columns of ``X``.
        sample_weight : array-like of shape (n,), optional
            None or equal weights (xOrder counts items); passed to the estimator's
            ``fit`` where it takes them (under metadata routing: where it requests them).
        **fit_params
            Passed to the estimator's ``fit`` (not used with ``prefit``).

        Returns
        -------
        self : FairRanker
            The fitted ranker itself.
        """
        # the one request (XOrder's parameters and response_method) and the labels,
        # validated before the estimator's fits; XOrder's fit checks them no more
        xorder = XOrder(**self._xorder_params())
        request = check_params({**xorder.get_params(),
                                "response_method": self.response_method}).with_labels(y)
        groups = self._groups(X, sensitive_features, "fit")
        routed = sklearn.get_config()["enable_metadata_routing"]
        if sensitive_features is not None and not routed and _in_cross_validation():
            raise ValueError(MSG_UNROUTED)
        check_equal_weights(sample_weight, request.labels.size, MSG_WEIGHTED)
        if sample_weight is not None and (
                routed or has_fit_parameter(self.estimator, "sample_weight")):
            fit_params = {**fit_params, "sample_weight": sample_weight}
        cv_params = fit_params
        if routed:
            # the estimator's fit gets its own names (an alias resolved); cross_val_predict
            # routes again, so it gets the names the estimator asked for
            cv_params = {name: fit_params[name] for name in get_routing_for_object(
                self.estimator).consumes("fit", fit_params)}
            fit_params = process_routing(self, "fit", **fit_params).estimator.fit
        if check_flag(self.prefit, "prefit"):
            check_is_fitted(self.estimator)
            estimator, response = self.estimator, _response(self.estimator,
                                                            self.response_method)
            scores = _scores(estimator, X, response)
        else:
            response = _response(self.estimator, self.response_method)
            scores = cross_val_predict(clone(self.estimator), X, y, cv=self.cv,
                                       method=response, params=cv_params,
                                       n_jobs=self.n_jobs)
            scores = _column(scores, response, self.estimator)
            estimator = clone(self.estimator).fit(X, y, **fit_params)
        self.estimator_ = estimator
        self.response_method_ = response
        self.fit_scores_ = np.asarray(scores, dtype=np.float64)
        self.xorder_ = xorder._fit(request, self.fit_scores_, request.labels, groups, None)
        for name in ("n_features_in_", "feature_names_in_"):
            if hasattr(estimator, name):
                setattr(self, name, getattr(estimator, name))
        return self

    def decision_function(self, X: ArrayLike, *,
                          sensitive_features: ArrayLike | None = None) -> np.ndarray:
        """The fair scores of ``X``: the estimator's scores through ``xorder_``.

        Parameters
        ----------
        X : array-like of shape (n, p)
            Features, as the estimator takes them.
        sensitive_features : array-like of shape (n,) or (n, c), optional
            Protected group of every row; required unless the parameter
            ``sensitive_features`` names columns of ``X``.

        Returns
        -------
        ndarray of float64, shape (n,)
            The fair scores: higher ranked first (not calibrated probabilities).
        """
        check_is_fitted(self)
        return self._fair_scores(X, self._groups(X, sensitive_features,
                                                 "decision_function"))

    def score(self, X: ArrayLike, y: ArrayLike, *,
              sensitive_features: ArrayLike | None = None,
              sample_weight: ArrayLike | None = None) -> float:
        """The selection criterion of the fair scores of ``X``: ``AUC - |D|``.

        ``D`` is the disparity of ``metric``; with ``max_disparity`` the criterion is
        that of ``fairness_scorer(metric, max_disparity=max_disparity)``: the AUC where
        ``|D| <= max_disparity``, ``AUC - 1 - (|D| - max_disparity)`` beyond. The
        metrics are weighted by ``sample_weight`` (a pair weighs the product of its
        items' weights).

        Parameters
        ----------
        X : array-like of shape (n, p)
            Features, as the estimator takes them.
        y : array-like of shape (n,)
            0/1 labels.
        sensitive_features : array-like of shape (n,) or (n, c), optional
            Protected group of every row; required unless the parameter
            ``sensitive_features`` names columns of ``X``.
        sample_weight : array-like of shape (n,), optional
            Weights >= 0 of the metrics.

        Returns
        -------
        float
            The criterion of the fair scores of ``X``: higher is better.
        """
        check_is_fitted(self)
        groups = self._groups(X, sensitive_features, "score")
        eps = _params.check("max_disparity", self.max_disparity)
        return criterion(y, self._fair_scores(X, groups), groups,
                         metric=_params.check("metric", self.metric),
                         lam=None if eps is not None else SCORE_LAM, max_disparity=eps,
                         sample_weight=sample_weight)

    def summary(self, X: ArrayLike, y: ArrayLike, *,
                sensitive_features: ArrayLike | None = None,
                high_score: str = "favourable") -> dict:
        """AUC, disparity and disadvantaged group of the estimator's and the fair scores.

        :meth:`XOrder.summary` of ``xorder_`` on the estimator's scores of ``X``.

        Parameters
        ----------
        X : array-like of shape (n, p)
            Features, as the estimator takes them.
        y : array-like of shape (n,)
            0/1 labels.
        sensitive_features : array-like of shape (n,) or (n, c), optional
            Protected group of every row; required unless the parameter
            ``sensitive_features`` names columns of ``X`` (as in :meth:`score`).
        high_score : {"favourable", "harmful"}, default="favourable"
            ``"harmful"`` for a risk score whose high ranks harm people.

        Returns
        -------
        dict
            As :meth:`XOrder.summary` returns it.

        Raises
        ------
        ValueError
            Without the groups, or with them both in ``X`` and as the keyword.
        """
        check_is_fitted(self)
        groups = self._groups(X, sensitive_features, "summary")
        return self.xorder_.summary(_scores(self.estimator_, X, self.response_method_), y,
                                    sensitive_features=groups, high_score=high_score)

    def get_metadata_routing(self) -> MetadataRouter:
        """The metadata routing of this estimator (scikit-learn's metadata routing).

        ``sensitive_features`` for this estimator, other ``fit`` metadata for the
        classifier's ``fit``.

        Returns
        -------
        sklearn.utils.metadata_routing.MetadataRouter
            The routing information.
        """
        return (MetadataRouter(owner=self)
                .add_self_request(self)
                .add(estimator=self.estimator,
                     method_mapping=MethodMapping().add(caller="fit", callee="fit")))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    def _fair_scores(self, X, groups):
        return self.xorder_.transform(_scores(self.estimator_, X, self.response_method_),
                                      sensitive_features=groups)

    def _groups(self, X, sensitive_features, method):
        """The groups of the rows of ``X``: ``sensitive_features``, or the columns of
        ``X`` that the parameter of that name names."""
        column = self.sensitive_features
        if column is None:
            if sensitive_features is None:
                hint = MSG_SCORER_HINT if method == "decision_function" else ""
                raise ValueError(MSG_NO_GROUPS.format(method=method) + hint)
            return sensitive_features
        names = [column] if isinstance(column, str) else column
        if not isinstance(names, (list, tuple)) or not names or not all(
                isinstance(name, str) for name in names):
            raise ValueError(MSG_COLUMN.format(value=column))
        if sensitive_features is not None:
            raise ValueError(MSG_GROUPS_TWICE.format(column=column, method=method))
        if not _frames.is_frame(X):
            raise TypeError(MSG_NOT_A_FRAME.format(column=column, kind=type(X).__name__))
        missing = [name for name in names if name not in X.columns]
        if missing:
            raise ValueError(MSG_NO_COLUMN.format(missing=missing[0], column=column))
        return X[column]

    def _xorder_params(self):
        names = XOrder().get_params()
        return {name: value for name, value in self.get_params(deep=False).items()
                if name in names}


def _in_cross_validation():
    """Whether scikit-learn's cross-validation (``CROSS_VALIDATION_FITS``) is fitting
    the caller: without metadata routing it then passes the scorer, and
    ``decision_function``, no groups."""
    frame = sys._getframe(1)
    while frame is not None:
        if (frame.f_code.co_name in CROSS_VALIDATION_FITS
                and frame.f_globals.get("__name__", "").startswith("sklearn.")):
            return True
        frame = frame.f_back
    return False


def _response(estimator, response_method):
    """The method that gives ``estimator``'s scores."""
    name = type(estimator).__name__
    if response_method == "auto":
        for method in AUTO_RESPONSE:
            if hasattr(estimator, method):
                return method
        raise TypeError(MSG_NO_RESPONSE.format(name=name))
    if not hasattr(estimator, response_method):
        raise TypeError(MSG_NO_METHOD.format(name=name, method=response_method))
    return response_method


def _scores(estimator, X, response):
    return _column(getattr(estimator, response)(X), response, estimator)


def _column(values, response, estimator):
    """The scores in ``values``: the positive class's column of ``predict_proba``."""
    values = np.asarray(values)
    if response == "predict_proba":
        if values.ndim != 2 or values.shape[1] != 2:
            raise ValueError(MSG_BINARY_PROBA.format(name=type(estimator).__name__,
                                                     k=values.shape[-1]))
        return values[:, 1]
    return values


#: Below every score that keeps ``|D| <= max_disparity``: a fold beyond the ceiling
#: scores ``AUC - PENALTY - (|D| - max_disparity)``.
PENALTY = 1.0


def criterion(y, scores, groups, *, metric, lam, max_disparity, sample_weight=None,
              part="objective"):
    """``part`` of the selection criterion of ``scores`` (validated settings)."""
    value = metrics.auc(y, scores, sample_weight=sample_weight)
    if part == "auc":
        return value
    d = metrics.disparity(y, scores, sensitive_features=groups, metric=metric,
                          sample_weight=sample_weight)
    if part == "neg_disparity":
        return -d
    if max_disparity is None:
        return value - lam * d
    # the constraint's test, the solvers' (0.8 - 0.7 is 0.1 + 1e-16)
    if within_eps(d, max_disparity):
        return value
    return value - PENALTY - (d - max_disparity)
