"""``fairness_scorer``: model selection by the AUC and the disparity on held-out folds.

A scikit-learn scorer, ``scorer(estimator, X, y, *, sensitive_features=None,
sample_weight=None)``, for ``GridSearchCV``, ``cross_validate`` and the like. It scores
the fair scores of a :class:`FairRanker`, or of a ``Pipeline`` ending in one (any other
classifier: its own scores), by ``AUC - lam * |D|``, or by the AUC under a ceiling on
``|D|``. The groups come by metadata routing (the scorer requests
``sensitive_features``), or, without routing, from the ranker: the column of ``X`` named
by ``FairRanker(sensitive_features=...)``.
"""

from __future__ import annotations

import sklearn
from sklearn.pipeline import Pipeline
from sklearn.utils.metadata_routing import MetadataRequest

from ..utils import _params as params
from ._ranker import FairRanker, _response, _scores, criterion

#: What a scorer returns: the criterion, the AUC alone, or minus ``|D|`` (greater is
#: better, scikit-learn's convention for every scorer).
PARTS = ("objective", "auc", "neg_disparity")

MSG_LAM_AND_CEILING = "fairness_scorer takes lam or max_disparity, not both"
MSG_ONE_LAM = "fairness_scorer takes one lam, got a sequence of {k}"
MSG_REQUEST = "the fairness scorer takes requests for {known}, got {unknown}"
MSG_NO_GROUPS = (
    "the fairness scorer needs the groups of the rows it scores: enable metadata routing "
    "(sklearn.set_config(enable_metadata_routing=True)) and pass sensitive_features to "
    "the search's fit, or let FairRanker(..., sensitive_features='column') read them "
    "from a DataFrame X"
)


def fairness_scorer(metric: str = "xauc", lam: float | None = None, *,
                    max_disparity: float | None = None, multimetric: bool = False,
                    ) -> FairnessScorer | dict[str, FairnessScorer]:
    """A scikit-learn scorer of ranking fairness: ``AUC - lam * |D|`` of the fair scores.

    Parameters
    ----------
    metric : {"xauc", "prf", "urf"}, default="xauc"
        The disparity ``D`` (:func:`gpu_xorder.metrics.disparity`).
    lam : float >= 0 or None, default=None
        Weight of ``|D|``; None: 1.0 (unless ``max_disparity`` is given).
    max_disparity : float in [0, 1] or None, default=None
        Instead of a weight, a ceiling: a fold scores its AUC where ``|D| <=
        max_disparity``, else ``AUC - 1 - (|D| - max_disparity)`` (below every fold
        within the ceiling).
    multimetric : bool, default=False
        Return ``{"objective": ..., "auc": ..., "neg_disparity": ...}``, three scorers
        for ``GridSearchCV(scoring=..., refit="objective")``, whose ``cv_results_`` then
        show the AUC and ``-|D|`` of every candidate too.

    Returns
    -------
    FairnessScorer or dict of str to FairnessScorer
        ``scorer(estimator, X, y, *, sensitive_features=None, sample_weight=None)``.
        It requests ``sensitive_features`` under metadata routing; without it (or
        without routing) the groups come from ``FairRanker(sensitive_features=...)``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from gpu_xorder import FairRanker, fairness_scorer
    >>> rng = np.random.default_rng(0)
    >>> a = rng.integers(0, 2, 400)
    >>> X = np.column_stack([rng.normal(size=400), a])
    >>> y = (X[:, 0] + 0.8 * a + rng.normal(size=400) > 0.5).astype(int)
    >>> ranker = FairRanker(LogisticRegression(), lam=1.0, backend="numpy")
    >>> ranker = ranker.fit(X[:300], y[:300], sensitive_features=a[:300])
    >>> scorer = fairness_scorer(lam=0.5)
    >>> value = scorer(ranker, X[300:], y[300:], sensitive_features=a[300:])
    >>> bool(-0.5 <= value <= 1.0)
    True
    """
    metric = params.check("metric", metric)
    if max_disparity is not None:
        if lam is not None:
            raise ValueError(MSG_LAM_AND_CEILING)
        max_disparity = params.check("max_disparity", max_disparity)
    else:
        values, batch = params.check("lam", 1.0 if lam is None else lam)
        if batch:
            raise ValueError(MSG_ONE_LAM.format(k=values.size))
        lam = float(values[0])
    if multimetric:
        return {part: FairnessScorer(metric, lam, max_disparity, part) for part in PARTS}
    return FairnessScorer(metric, lam, max_disparity, "objective")


class FairnessScorer:
    """A scorer made by :func:`fairness_scorer` (see there)."""

    _KNOWN = ("sensitive_features", "sample_weight")

    def __init__(self, metric, lam, max_disparity, part):
        self.metric = metric
        self.lam = lam
        self.max_disparity = max_disparity
        self.part = part
        self._requests = {"sensitive_features": True, "sample_weight": None}

    def __call__(self, estimator, X, y_true, *, sensitive_features=None,
                 sample_weight=None) -> float:
        """``part`` of the criterion of ``estimator``'s fair scores of ``X``."""
        scores, groups = _scores_and_groups(estimator, X, sensitive_features)
        return criterion(y_true, scores, groups, metric=self.metric, lam=self.lam,
                         max_disparity=self.max_disparity, sample_weight=sample_weight,
                         part=self.part)

    def set_score_request(self, **requests):
        """Change what the scorer asks metadata routing for (``sensitive_features``:
        True by default; ``sample_weight``: None, not requested). Returns self."""
        unknown = sorted(set(requests) - set(self._KNOWN))
        if unknown:
            raise ValueError(MSG_REQUEST.format(known=list(self._KNOWN), unknown=unknown))
        self._requests.update(requests)
        return self

    def get_metadata_routing(self):
        """The scorer's requests, as scikit-learn's routers read them."""
        request = MetadataRequest(owner=self)
        for param, alias in self._requests.items():
            request.score.add_request(param=param, alias=alias)
        return request

    def __repr__(self):
        setting = (f"lam={self.lam!r}" if self.max_disparity is None
                   else f"max_disparity={self.max_disparity!r}")
        part = "" if self.part == "objective" else f"[{self.part!r}]"
        return f"fairness_scorer(metric={self.metric!r}, {setting}){part}"


def _scores_and_groups(estimator, X, sensitive_features):
    """The scores ``estimator`` gives ``X`` (fair ones from a FairRanker, or a Pipeline
    ending in one) and the rows' groups: ``sensitive_features``, or else those the
    ranker reads from its ``X``. A fitted search stands for its best estimator (nested
    cross-validation)."""
    while hasattr(estimator, "best_estimator_"):
        estimator = estimator.best_estimator_
    final = estimator[-1] if isinstance(estimator, Pipeline) else estimator
    if not isinstance(final, FairRanker):
        if sensitive_features is None:
            raise ValueError(MSG_NO_GROUPS)
        return _scores(estimator, X, _response(estimator, "auto")), sensitive_features
    if sensitive_features is not None and sklearn.get_config()["enable_metadata_routing"]:
        return (estimator.decision_function(X, sensitive_features=sensitive_features),
                sensitive_features)
    if final is not estimator:  # without routing a Pipeline passes no metadata on
        X = estimator[:-1].transform(X)
    if sensitive_features is not None:
        return final.decision_function(X, sensitive_features=sensitive_features), \
            sensitive_features
    if final.sensitive_features is None:
        raise ValueError(MSG_NO_GROUPS)
    return final.decision_function(X), final._groups(X, None, "score")
