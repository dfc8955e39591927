"""``FairRanker``: a classifier and xOrder as one estimator.

A meta-estimator in the manner of fairlearn's ``ThresholdOptimizer``: ``fit`` learns
xOrder on scores the classifier gives to data it was not fitted on (out-of-fold scores
by cross-fitting, or held-out data for a prefit classifier), because the in-sample
scores of a flexible model are better separated, and differently disparate, than the
scores it will give new data (README, "FairRanker").
"""

import numpy as np
import sklearn
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.model_selection import cross_val_predict
from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping, process_routing
from sklearn.utils.validation import check_is_fitted

from ..utils import _validation as v
from .. import metrics
from ._estimator import XOrder

RESPONSE_METHODS = ("auto", "predict_proba", "decision_function")
MSG_NO_RESPONSE = (
    "{name} has neither predict_proba nor decision_function: FairRanker needs scores"
)
MSG_NO_METHOD = "{name} has no {method}"
MSG_BINARY_PROBA = (
    "predict_proba of {name} gives {k} columns; FairRanker ranks by the probability of "
    "the positive class of binary 0/1 labels"
)


class FairRanker(MetaEstimatorMixin, BaseEstimator):
    """A classifier whose scores are made fair by xOrder.

    ``fit`` gets scores of ``estimator`` on data it was not fitted on and learns
    :class:`XOrder` from them; ``decision_function`` gives the fair scores of new
    data. Without ``prefit`` the scores are out of fold: ``cross_val_predict`` of a
    clone of ``estimator`` over ``cv``, after which a clone is fitted on all the data.
    With ``prefit=True`` the given estimator, already fitted, scores the data passed to
    ``fit``, which should then be data it was not trained on.

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
        function; ``"auto"`` tries ``predict_proba`` first.
    metric, lam, disparity, reference_group, backend, method, subsample, memory_limit, solver, max_disparity, validation
        Parameters of :class:`XOrder`.
    n_jobs : int or None, default=None
        Folds fitted at once by ``cross_val_predict``.

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
    There is no ``predict_proba``: the fair scores keep the reference group's
    probabilities but move the other groups' scores to realise the learned ordering,
    so they rank well and are not calibrated probabilities (calibrate them on held-out
    data where probabilities are needed). ``score`` is the AUC of the fair scores.

    ``sensitive_features`` is required metadata of ``fit``, ``decision_function`` and
    ``score``. Inside ``GridSearchCV`` or a ``Pipeline`` enable metadata routing and
    request it: ``set_fit_request(sensitive_features=True)``,
    ``set_score_request(sensitive_features=True)``; any other keyword of ``fit`` goes
    to the estimator's ``fit`` (routed by its own requests under metadata routing).

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

    def __init__(self, estimator, *, prefit=False, cv=5, response_method="auto",
                 metric="xauc", lam=0.0, disparity="absolute", reference_group=None,
                 backend="auto", method="auto", subsample=None, memory_limit=None,
                 solver="auto", max_disparity=None, validation=None, n_jobs=None):
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
        self.max_disparity = max_disparity
        self.validation = validation
        self.n_jobs = n_jobs

    def fit(self, X, y, *, sensitive_features, **fit_params):
        """Score ``X`` out of fold (or by the prefit estimator) and learn xOrder.

        Parameters
        ----------
        X : array-like of shape (n, p)
            Features, as the estimator takes them.
        y : array-like of shape (n,)
            0/1 labels.
        sensitive_features : array-like of shape (n,) or (n, c)
            Protected group of every row (see :meth:`XOrder.fit`).
        **fit_params
            Passed to the estimator's ``fit`` (not used with ``prefit``).

        Returns
        -------
        self : FairRanker
        """
        v.check_choice(self.response_method, "response_method", RESPONSE_METHODS)
        v.check_labels(y, 0 if y is None else len(y))
        xorder = XOrder(**self._xorder_params())
        xorder._check_params()  # before the estimator's fits
        if sklearn.get_config()["enable_metadata_routing"]:
            fit_params = process_routing(self, "fit", **fit_params).estimator.fit
        if self.prefit:
            check_is_fitted(self.estimator)
            estimator, response = self.estimator, _response(self.estimator,
                                                            self.response_method)
            scores = _scores(estimator, X, response)
        else:
            response = _response(self.estimator, self.response_method)
            scores = cross_val_predict(clone(self.estimator), X, y, cv=self.cv,
                                       method=response, params=fit_params,
                                       n_jobs=self.n_jobs)
            scores = _column(scores, response, self.estimator)
            estimator = clone(self.estimator).fit(X, y, **fit_params)
        self.estimator_ = estimator
        self.response_method_ = response
        self.fit_scores_ = np.asarray(scores, dtype=np.float64)
        self.xorder_ = xorder.fit(self.fit_scores_, y, sensitive_features=sensitive_features)
        for name in ("n_features_in_", "feature_names_in_"):
            if hasattr(estimator, name):
                setattr(self, name, getattr(estimator, name))
        return self

    def decision_function(self, X, *, sensitive_features):
        """The fair scores of ``X``: the estimator's scores through ``xorder_``.

        Returns
        -------
        ndarray of float64, shape (n,)
        """
        check_is_fitted(self)
        return self.xorder_.transform(_scores(self.estimator_, X, self.response_method_),
                                      sensitive_features=sensitive_features)

    def score(self, X, y, *, sensitive_features):
        """AUC of the fair scores of ``X`` (ties count 1/2)."""
        return metrics.auc(self.decision_function(X, sensitive_features=sensitive_features),
                           y)

    def summary(self, X, y, *, sensitive_features, high_score="favourable"):
        """AUC, disparity and disadvantaged group of the estimator's scores of ``X``
        and of the fair scores: :meth:`XOrder.summary` of ``xorder_``.

        ``high_score="harmful"`` for a risk score whose high ranks harm people.
        """
        check_is_fitted(self)
        return self.xorder_.summary(_scores(self.estimator_, X, self.response_method_), y,
                                    sensitive_features=sensitive_features,
                                    high_score=high_score)

    def get_metadata_routing(self):
        """``sensitive_features`` for this estimator, other ``fit`` metadata for the
        classifier's ``fit``."""
        return (MetadataRouter(owner=self)
                .add_self_request(self)
                .add(estimator=self.estimator,
                     method_mapping=MethodMapping().add(caller="fit", callee="fit")))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    def _xorder_params(self):
        names = XOrder().get_params()
        return {name: value for name, value in self.get_params(deep=False).items()
                if name in names}


def _response(estimator, response_method):
    """The method that gives ``estimator``'s scores."""
    name = type(estimator).__name__
    if response_method == "auto":
        for method in ("predict_proba", "decision_function"):
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
