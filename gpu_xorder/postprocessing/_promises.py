"""What a fit claimed and promised and whether its adjusted training scores keep it
(docs/design.md, section 5, "Orders no scores realise"): ``result_``'s AUC and ``|D|``,
the ``max_disparity`` constraint, and an objective no lower than the scores given; a
warning names the cause where they do not."""

import warnings

import numpy as np

from cpu_reference import within_eps

from .. import metrics
from ..utils._frames import user_level

#: A fit on a subsample whose adjusted training scores break ``max_disparity``.
MSG_UNREALISED_CONSTRAINT = (
    "max_disparity={eps:g} holds for the learned ordering (|D| {ordering:.4g}) but not for "
    "the adjusted training scores (|D| {adjusted:.4g}): the ordering was learned on a "
    "subsample")
MSG_ORDERING_WORSE = (
    "the adjusted training scores reach {adjusted:.4g} in {objective}, below the "
    "scores given ({given:.4g}), as the learned ordering does: {why}; keep the scores "
    "given")
#: Why a learned ordering can fall below the scores given (``MSG_ORDERING_WORSE``).
WHY_CROSS_TIES = ("the scores given tie items of different groups (half a pair each, "
                  "which no ordering realises)")
WHY_PAPER = ("the cell rule (solver='paper') is a heuristic for |D|: solver='auto' "
             "certifies how far from the best an ordering is")
WHY_SUBSAMPLE = "the ordering was learned on a subsample"
WHY_METHOD = "method {method!r} is a heuristic for |D| with more than two groups"
WHY_GAP = "the ordering is certified within {gap:.2g} of the best, no closer"
#: A fit whose ``result_`` claims what its adjusted training scores do not give (the
#: orderings keep each group's runs of equal scores whole, so this needs a cause below).
MSG_CLAIM_UNREALISED = (
    "result_ claims AUC {auc:.4g} and |D| {d:.4g} ({metric}), but the adjusted training "
    "scores give AUC {adjusted_auc:.4g} and |D| {adjusted_d:.4g}: {why}")
#: Why the adjusted training scores can miss what the ordering gives
#: (``MSG_CLAIM_UNREALISED``).
WHY_CROWDED = ("the adjusted scores tie items of different groups that the ordering "
               "separates (no float64 value lies between the scores around them); round "
               "the scores or use log-odds")
WHY_UNKNOWN = "the adjusted scores do not follow the ordering"
#: Tolerance of the comparison of objectives in ``warn_unrealised``.
OBJECTIVE_TOLERANCE = 1e-12
#: Tolerance of the comparison of a claimed AUC or |D| with the adjusted scores' (the
#: two are computed by different sums of the same pair counts).
CLAIM_TOLERANCE = 1e-9


def warn_unrealised(model, fitting, max_disparity):
    """Warn where the adjusted training scores break what the fit claimed or promised:
    ``result_``'s AUC and ``|D|`` (a fit on the whole training set), the
    ``max_disparity`` constraint (on a subsample; the validated float, or None, never
    the raw parameter, which may be a ``Decimal``), or (absolute disparity) an objective
    no lower than the scores given (at ``lam = 0``: their AUC), naming the cause. The
    orderings keep each group's runs of equal scores whole, so the adjusted scores
    realise them but where a gap between reference scores has no room (floating
    point); an ordering can itself fall below the scores given, and the message says
    why. Every warning names the user's call (``_frames.user_level``)."""
    adjusted_d, result = model.train_disparity_, model.result_
    if _warn_claim(model, fitting):
        return
    if max_disparity is not None:
        if not within_eps(adjusted_d, max_disparity):
            warnings.warn(MSG_UNREALISED_CONSTRAINT.format(
                eps=max_disparity, ordering=result.disparity, adjusted=adjusted_d),
                UserWarning, stacklevel=user_level())
        return
    lam = model.lam_
    if model.disparity != "absolute":
        return
    s, y, _, index, _, keep = fitting[:6]
    given = metrics.auc(y, s) - lam * metrics.disparity(y, s, sensitive_features=index,
                                                        metric=model.metric)
    adjusted = model.train_auc_ - lam * adjusted_d
    if adjusted >= given - OBJECTIVE_TOLERANCE:
        return
    objective = "AUC" if lam == 0 else f"AUC - {lam:g} |D|"
    why = [WHY_SUBSAMPLE] if keep.size != s.size else []
    if _ties_across_groups(s, index):
        why.append(WHY_CROSS_TIES)
    if lam > 0 and result.solver == "paper":
        why.append(WHY_PAPER if result.method == "2d" else
                   WHY_METHOD.format(method=result.method))
    elif not why and result.gap:
        why.append(WHY_GAP.format(gap=result.gap))
    message = MSG_ORDERING_WORSE.format(adjusted=adjusted, objective=objective,
                                        given=given, why=" and ".join(why))
    warnings.warn(message, UserWarning, stacklevel=user_level())


def _warn_claim(model, fitting):
    """Warn, naming the cause, where ``result_``'s AUC or ``|D|`` is not what the
    adjusted training scores give (a fit on the whole training set); whether it
    warned."""
    s, _, _, index, _, keep = fitting[:6]
    result = model.result_
    if keep.size != s.size or (
            abs(model.train_auc_ - result.auc) <= CLAIM_TOLERANCE
            and abs(model.train_disparity_ - result.disparity) <= CLAIM_TOLERANCE):
        return False
    # XOrder's orderings keep each group's runs of equal scores whole, so the scores
    # can realise them but for a gap too narrow for the items placed in it
    crowded = _ties_across_groups(np.asarray(model.train_scores_adjusted_), index)
    why = WHY_CROWDED if crowded else WHY_UNKNOWN
    warnings.warn(MSG_CLAIM_UNREALISED.format(
        auc=result.auc, d=result.disparity, metric=model.metric,
        adjusted_auc=model.train_auc_, adjusted_d=model.train_disparity_, why=why),
        UserWarning, stacklevel=user_level())
    return True


def _ties_across_groups(s, index):
    """Whether some score is held by items of two groups."""
    order = np.lexsort((index, s))
    same = (s[order][1:] == s[order][:-1]) & (index[order][1:] != index[order][:-1])
    return bool(same.any())


