"""What a fit promised and whether its adjusted training scores keep it (docs/design.md,
section 5, "Orders no scores realise"): the ``max_disparity`` constraint, and an
objective no lower than the scores given; a warning names the cause where they do not."""

import warnings

import numpy as np

from cpu_reference import within_eps

from .. import metrics

#: A fit whose adjusted training scores cannot give what its ordering gives (docs/design.md,
#: section 5, "Orders no scores realise": the ordering separates equal scores).
MSG_UNREALISED_CONSTRAINT = (
    "max_disparity={eps:g} holds for the learned ordering (|D| {ordering:.4g}) but not for "
    "the adjusted training scores (|D| {adjusted:.4g}): the ordering separates equal "
    "scores, which the adjusted scores keep equal; break the ties (scores with more "
    "decimals, a model's log-odds)")
MSG_UNREALISED_WORSE = (
    "the adjusted training scores reach {adjusted:.4g} in {objective}, below the "
    "scores given ({given:.4g}; the learned ordering: {ordering:.4g}): the ordering "
    "separates equal scores, which the adjusted scores keep equal; break the ties (scores "
    "with more decimals, a model's log-odds) or keep the scores given")
MSG_ORDERING_WORSE = (
    "the adjusted training scores reach {adjusted:.4g} in {objective}, below the "
    "scores given ({given:.4g}), as the learned ordering does: {why}; keep the scores "
    "given")
#: Why a learned ordering can fall below the scores given (``MSG_ORDERING_WORSE``).
WHY_CROSS_TIES = ("the scores given tie items of different groups, which count as half "
                  "a pair each, and an ordering cannot")
WHY_PAPER = ("the cell rule (solver='paper') is a heuristic for |D|: solver='auto' "
             "certifies how far from the best an ordering is")
WHY_SUBSAMPLE = "the ordering was learned on a subsample"
WHY_METHOD = "method {method!r} is a heuristic for |D| with more than two groups"
WHY_GAP = "the ordering is certified within {gap:.2g} of the best, no closer"
#: Tolerance of the comparison of objectives in ``warn_unrealised``.
OBJECTIVE_TOLERANCE = 1e-12


def warn_unrealised(model, fitting, max_disparity, stacklevel):
    """Warn where the adjusted training scores break what the fit promised: the
    constraint ``max_disparity`` (the validated float, or None; never the raw
    parameter, which may be a ``Decimal``), or (absolute disparity) an objective no lower than
    the scores given (at ``lam = 0``: their AUC). The first happens only where the
    ordering separates equal scores, which no scores that keep a group's ties realise;
    the second also where the ordering itself falls below the scores given, and the
    message says which."""
    adjusted_d, result = model.train_disparity_, model.result_
    if max_disparity is not None:
        if not within_eps(adjusted_d, max_disparity):
            warnings.warn(MSG_UNREALISED_CONSTRAINT.format(
                eps=max_disparity, ordering=result.disparity, adjusted=adjusted_d),
                UserWarning, stacklevel=stacklevel + 1)
        return
    lam = model.lam_
    if model.disparity != "absolute":
        return
    s, y, _, index, _, keep = fitting[:6]
    given = metrics.auc(s, y) - lam * metrics.disparity(s, y, index, model.metric)
    adjusted = model.train_auc_ - lam * adjusted_d
    if adjusted >= given - OBJECTIVE_TOLERANCE:
        return
    objective = "AUC" if lam == 0 else f"AUC - {lam:g} |D|"
    whole = keep.size == s.size
    if whole and adjusted < result.objective - OBJECTIVE_TOLERANCE:  # not realised
        message = MSG_UNREALISED_WORSE.format(adjusted=adjusted, objective=objective,
                                              given=given, ordering=result.objective)
    else:
        why = [WHY_SUBSAMPLE] if not whole else []
        if _ties_across_groups(s, index):
            why.append(WHY_CROSS_TIES)
        if lam > 0 and result.solver == "paper":
            why.append(WHY_PAPER if result.method == "2d" else
                       WHY_METHOD.format(method=result.method))
        elif not why and result.gap:
            why.append(WHY_GAP.format(gap=result.gap))
        message = MSG_ORDERING_WORSE.format(adjusted=adjusted, objective=objective,
                                            given=given, why=" or ".join(why))
    warnings.warn(message, UserWarning, stacklevel=stacklevel + 1)


def _ties_across_groups(s, index):
    """Whether some score is held by items of two groups."""
    order = np.lexsort((index, s))
    same = (s[order][1:] == s[order][:-1]) & (index[order][1:] != index[order][:-1])
    return bool(same.any())


