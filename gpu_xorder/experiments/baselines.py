"""The paper's baselines, NumPy and SciPy only (``_post_logit``, ``_in_processing``).

- :class:`PostLogit` (Kallus and Zhou 2019), post-processing: some groups' scores through
  a sigmoid. ``search="public"`` is the paper's public code (github.com/cuis15/xorder,
  ``experiment.py``): ``sigmoid(alpha * s - 2)`` on the probability ``s`` of every
  group but one, alpha in 0, 0.1, ..., 9.9, and the candidate of the least training
  disparity (more than two groups: every combination of one alpha per shifted group).
  ``search="joint"`` transforms ``logit(s)``, ``sigmoid(alpha * logit(s) + beta)``, of
  either group over a grid of alpha and beta; ``search="logit-alpha"`` the same with beta
  fixed (what ``search="alpha"`` computed before it was found to differ from the public
  code). A weight ``lam`` instead picks the best ``AUC - lam * D`` of the same table.
- :class:`CorrReg` (Beutel et al. 2019), in-processing: a linear model trained on the
  mean cross-entropy plus ``weight * |corr(A, r)|``, with ``r`` the score margin of
  sampled (upper, lower) pairs of the disparity and ``A`` which side of the disparity a
  pair counts for.
- :class:`ConstrainedRanker` (in the spirit of TFCO, Narasimhan et al. 2020): a linear
  scorer trained on a pairwise logistic loss subject to ``|D| <= max_disparity`` by
  gradient descent on the weights (sigmoid surrogate of ``D``) and ascent on a Lagrange
  multiplier (the disparity itself); the kept iterate is the best-AUC one among those
  meeting the constraint on the training data.

``D`` is the disparity of ``metric`` (``"xauc"``, ``"prf"`` or ``"urf"``) between the
groups, as :func:`gpu_xorder.metrics.disparity` measures it (more than two groups: the
largest over pairs).
"""

from ._baseline_common import MSG_METRIC, MSG_TWO_GROUPS
from ._in_processing import MSG_NO_CEILING, ConstrainedRanker, CorrReg, metric_pairs
from ._post_logit import (
    ALPHAS,
    BETAS,
    MAX_COMBINATIONS,
    MSG_GROUP_MANY,
    MSG_ONE_LAM,
    MSG_PUBLIC_SIZE,
    MSG_SEARCH,
    MSG_SEARCH_ALPHA,
    MSG_WIDEN,
    PUBLIC_BETA,
    SEARCHES,
    WIDEN_FACTOR,
    PostLogit,
    public_transform,
)

__all__ = ["ALPHAS", "BETAS", "MAX_COMBINATIONS", "MSG_GROUP_MANY", "MSG_METRIC",
           "MSG_NO_CEILING", "MSG_ONE_LAM", "MSG_PUBLIC_SIZE", "MSG_SEARCH",
           "MSG_SEARCH_ALPHA", "MSG_TWO_GROUPS", "MSG_WIDEN", "PUBLIC_BETA", "SEARCHES",
           "WIDEN_FACTOR", "ConstrainedRanker", "CorrReg", "PostLogit", "metric_pairs",
           "public_transform"]
