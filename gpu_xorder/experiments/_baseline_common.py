"""What the baselines share (``baselines``): the logit and the sigmoid, the two groups
they handle, and the AUC and disparity they pick by."""

import numpy as np

from .. import metrics

MSG_TWO_GROUPS = "the baselines handle two groups, got {n}"
MSG_METRIC = "unknown metric {value!r}; expected one of xauc, prf, urf"


def logit(p):
    p = np.clip(np.asarray(p, dtype=np.float64), 1e-12, 1.0 - 1e-12)
    return np.log(p) - np.log1p(-p)


def sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def two_groups(groups):
    groups = np.asarray(groups)
    labels = np.unique(groups)
    if labels.size != 2:
        raise ValueError(MSG_TWO_GROUPS.format(n=labels.size))
    return groups, labels


def auc_and_disparity(scores, y, groups, metric):
    return metrics.auc(y, scores), metrics.disparity(y, scores, sensitive_features=groups,
                                                     metric=metric)
