"""Fitted models compared bit for bit: every fitted attribute, every field of
``result_`` (``extra``'s records included) and the transform of new scores."""

import dataclasses

import numpy as np


def same_value(a, b):
    """Equal, bit for bit: arrays by dtype and content, containers item by item, floats
    by identity of value (NaN equal to NaN)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
                and a.dtype == b.dtype and np.array_equal(a, b))
    if isinstance(a, dict):
        return (isinstance(b, dict) and a.keys() == b.keys()
                and all(same_value(a[k], b[k]) for k in a))
    if isinstance(a, (list, tuple)):
        return (type(a) is type(b) and len(a) == len(b)
                and all(same_value(x, y) for x, y in zip(a, b)))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (a != a and b != b)
    return type(a) is type(b) and a == b


def assert_same_model(got_model, want_model, new_scores, new_groups):
    """The two fitted models agree in every fitted attribute, every field of
    ``result_`` and the transform of new scores, bit for bit."""
    for field in dataclasses.fields(want_model.result_):
        got = getattr(got_model.result_, field.name)
        want = getattr(want_model.result_, field.name)
        assert same_value(got, want), (field.name, got, want)
    for name in ("order_", "subsample_indices_", "train_scores_adjusted_", "groups_",
                 "bounds_", "maps_", "train_auc_", "train_disparity_", "lam_"):
        assert same_value(getattr(got_model, name), getattr(want_model, name)), name
    assert got_model.reference_group_ == want_model.reference_group_
    assert same_value(got_model.transform(new_scores, sensitive_features=new_groups),
                       want_model.transform(new_scores, sensitive_features=new_groups))
