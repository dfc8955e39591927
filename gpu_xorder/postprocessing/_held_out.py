"""The weight chosen on held-out data (``XOrder(validation=...)``): every weight of
``VALIDATION_LAMS`` fitted on the training data and scored on held-out data by the
constrained AUC (``max_disparity``) or ``AUC - lam |D|`` (docs/design.md, section 3.5)."""

import warnings

import numpy as np
from sklearn.model_selection import train_test_split

from cpu_reference import within_eps

from .. import metrics
from ..utils import _frames
from ._fitted import fit_path_quietly, plan_path
from ._promises import warn_unrealised
from ._scores import score_column

MSG_VALIDATION_MISSED = (
    "no lam of VALIDATION_LAMS keeps the held-out |D| <= {eps:g}; kept lam = {lam:g}, "
    "whose held-out |D| is the smallest ({best:.4f})"
)
#: The weights a held-out choice tries.
VALIDATION_LAMS = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0)


def validated_fit(est, checked, scores, y, sensitive_features, progress):
    """``XOrder(max_disparity=eps, validation=...)``: fit every lam of
    ``VALIDATION_LAMS``, keep the one whose held-out scores have the best AUC with
    ``|D| <= eps``; ``XOrder(lam=lam, validation=...)``: the best ``AUC - lam |D|``.
    ``checked``: the validated request of ``est`` (``_fitted.check_params``), to
    which the data are added (validated once, there, for the split of a share).
    Returns the chosen fitted model (refitted on all the data, for a share) and the
    table of ``validation_``."""
    params = _path_params(est)
    eps, share = checked["max_disparity"], checked["validation"]
    fit_data, val_data = _split(checked, scores, y, sensitive_features)
    s_val, y_val, g_val = val_data
    s_val = score_column(s_val)[0]
    models, fitting = fit_path_quietly(type(est)(**params), *fit_data, VALIDATION_LAMS,
                                       progress)
    auc, dis = [], []
    for m in models:
        adjusted = m.transform(s_val, sensitive_features=g_val)
        auc.append(metrics.auc(y_val, adjusted))
        dis.append(metrics.disparity(y_val, adjusted, sensitive_features=g_val,
                                     metric=est.metric))
    auc, dis = np.array(auc), np.array(dis)
    ok = np.flatnonzero(within_eps(dis, eps)) if eps is not None else np.array([], dtype=int)
    if eps is None:
        k = int(np.argmax(auc - checked["lam"][0][0] * dis))
    elif ok.size:
        k = int(ok[np.argmax(auc[ok])])
    else:
        k = int(np.argmin(dis))
        warnings.warn(MSG_VALIDATION_MISSED.format(eps=eps, best=dis[k],
                                                   lam=VALIDATION_LAMS[k]),
                      UserWarning, stacklevel=_frames.user_level())
    chosen = models[k]
    if isinstance(share, float):  # refitted on all the data (its fit warns itself)
        chosen = type(est)(**params, lam=VALIDATION_LAMS[k]).fit(
            scores, y, sensitive_features=sensitive_features, progress=progress)
    else:  # of the fits compared, only the one chosen may warn
        warn_unrealised(chosen, fitting, None)
    return chosen, {"lams": list(VALIDATION_LAMS), "auc": auc.tolist(),
                    "disparity": dis.tolist(), "chosen": VALIDATION_LAMS[k]}


def validated_plan(est, checked, scores, y, sensitive_features):
    """The plan (``core._choice.Plan``) of the fits :func:`validated_fit` runs to
    choose: every lam of ``VALIDATION_LAMS`` on the data it learns on (the training
    part of a share; the chosen lam's refit on all the data is one fit more). The data
    validated and their indexes compared once, then planned as arrays."""
    _frames.warn_misaligned(scores=scores, y=y, sensitive_features=sensitive_features)
    s, labels_y, labels, index = checked.with_data(score_column(scores)[0], y,
                                                   sensitive_features).data
    fit_data, _ = _split(checked, s, labels_y, labels[index])
    return plan_path(type(est)(**_path_params(est)), *fit_data, VALIDATION_LAMS)


def _path_params(est):
    """The parameters of the models of the held-out choice's path: ``est``'s but its
    weight, limit and validation."""
    return {k: val for k, val in est.get_params().items()
            if k not in ("lam", "max_disparity", "validation")}


def _split(checked, scores, y, sensitive_features):
    """``(fit_data, val_data)``: the data the choice learns on and those it scores on,
    each ``(scores, y, sensitive_features)``; a share (``checked["validation"]``, a
    float) split off the data given, stratified by group and label."""
    share = checked["validation"]
    if not isinstance(share, float):
        return (scores, y, sensitive_features), share
    s, labels_y, labels, index = checked.with_data(score_column(scores)[0], y,
                                                   sensitive_features).data
    strata = index * 2 + labels_y
    train, held = train_test_split(np.arange(s.size), test_size=share,
                                   stratify=strata, random_state=0)
    return ((s[train], labels_y[train], labels[index[train]]),
            (s[held], labels_y[held], labels[index[held]]))
