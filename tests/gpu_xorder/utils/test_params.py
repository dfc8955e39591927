"""The rules between parameters (``utils._params.RULES``): each written once, with one
message, and that message wherever the rule is broken."""

import dataclasses
import re

import numpy as np
import pytest

import cpu_reference as cr
from gpu_xorder import XOrder, fair_order
from gpu_xorder.utils import _params as params
from gpu_xorder.utils import _validation as v
from gpu_xorder.utils._metrics import MSG_SIGNED_TWO
from support.problems import random_problem, step_lattices


def _data(k):
    return random_problem(np.random.default_rng(k), [6] * k, "xauc")


@pytest.mark.parametrize("kwargs,k,message", [
    (dict(lam=0.5, max_disparity=0.1), 2, v.MSG_LAM_AND_CONSTRAINT),
    (dict(lam=[0.0], max_disparity=0.1), 2, v.MSG_LAM_AND_CONSTRAINT),
    (dict(disparity="signed"), 3, MSG_SIGNED_TWO.format(n_groups=3)),
    (dict(max_disparity=0.1), 3, params.MSG_CONSTRAINT_SCOPE.format(
        n_groups=3, disparity="absolute")),
    (dict(max_disparity=0.1, disparity="signed"), 2, params.MSG_CONSTRAINT_SCOPE.format(
        n_groups=2, disparity="signed")),
    (dict(solver="exact"), 4, params.MSG_SOLVER_GROUPS.format(solver="exact", n_groups=4)),
    (dict(solver="lagrangian"), 3, params.MSG_SOLVER_GROUPS.format(solver="lagrangian",
                                                                   n_groups=3)),
])
def test_every_rule_raises_its_message(kwargs, k, message):
    s, y, g = _data(k)
    with pytest.raises(ValueError, match=re.escape(message)):
        fair_order(s, y, g, backend="numpy", **kwargs)
    if "lam" not in kwargs or not isinstance(kwargs["lam"], list):
        with pytest.raises(ValueError, match=re.escape(message)):
            XOrder(backend="numpy", **kwargs).fit(s, y, sensitive_features=g)


def test_the_signed_rule_has_one_message_everywhere():
    """Checked at the front door, by the reference's fill of a step lattice of three
    groups and by the GPU's launcher (before any device work): the same words."""
    from gpu_xorder.engine import _launch

    s, y, g = _data(3)
    message = re.escape(MSG_SIGNED_TWO.format(n_groups=3))
    with pytest.raises(ValueError, match=message):
        fair_order(s, y, g, disparity="signed", backend="numpy")
    steps = step_lattices("xauc", (5, 4, 6), False, 0.5)
    signed = dataclasses.replace(steps[-1], mode="signed")
    with pytest.raises(ValueError, match=message):
        cr.fill(signed, 0.5)
    with pytest.raises(ValueError, match=message):
        _launch._fill_args(None, signed, [0.5], None)


def test_a_rule_applies_where_its_parameters_are_given():
    assert params.check_together(n_groups=3, disparity="absolute", solver="auto",
                                 max_disparity=None) is None
    assert params.check_together(disparity="signed") is None  # no number of groups
    assert params.check_together(lam=0.0, max_disparity=0.2) is None
    with pytest.raises(ValueError, match=re.escape(v.MSG_LAM_AND_CONSTRAINT)):
        params.check_together(lam=np.array([0.0]), max_disparity=0.2)  # a sequence
    names = {name for rule in params.RULES for name in rule.names}
    assert names - {"n_groups"} <= set(params.PARAMETERS)


def test_validation_needs_a_weight_to_choose():
    """``validation`` chooses the weight of ``max_disparity`` or of a ``lam`` > 0: without
    either, the rule's one message (checked before any data are read)."""
    message = re.escape(params.MSG_VALIDATION_ALONE)
    with pytest.raises(ValueError, match=message):
        XOrder(validation=0.3).fit([0.9, 0.1], [1, 0], sensitive_features=[0, 1])
    with pytest.raises(ValueError, match=message):
        params.check_together(validation=0.3, max_disparity=None, lam=np.zeros(2))
    for lam, eps in ((np.array([0.0, 0.5]), None), (0.0, 0.1)):
        assert params.check_together(validation=0.3, max_disparity=eps, lam=lam) is None
    assert params.check_together(validation=None, max_disparity=None, lam=0.0) is None
