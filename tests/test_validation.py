"""Input checks shared by the API (``gpu_xorder._validation``): the messages that name
the problem instead of NumPy's."""

import re
import warnings

import numpy as np
import pytest

from gpu_xorder import _validation as v
from gpu_xorder import fair_order


@pytest.mark.parametrize("groups", [
    [0, "a", 1, "a"],                                   # a list NumPy would make text
    np.array([0, "a", 1, "a"], dtype=object),           # an object column
    [["x", 0], ["y", "a"], ["x", 1], ["y", "a"]],       # one attribute column mixed
])
def test_mixed_label_types_are_refused(groups):
    with pytest.raises(TypeError, match="mix labels of types int and str"):
        v.encode_groups(groups, 4)


def test_one_type_per_attribute_column_is_fine():
    labels, index = v.encode_groups([["x", 0], ["y", 1], ["x", 1], ["y", 0]], 4)
    assert labels.tolist() == ["x & 0", "x & 1", "y & 0", "y & 1"]
    assert index.tolist() == [0, 3, 1, 2]


@pytest.mark.parametrize("groups", [
    [[0, 1], [0], [1, 1], [0, 0]],
    np.array([[0, 1], [0], [1, 1], [0, 0]], dtype=object),
])
def test_ragged_groups_are_refused(groups):
    with pytest.raises(ValueError, match=re.escape(v.MSG_GROUPS_RAGGED)):
        v.encode_groups(groups, 4)


def test_lam_none_is_named():
    with pytest.raises(TypeError, match=re.escape(v.MSG_LAM.format(value=None))):
        v.check_lam(None)
    with pytest.raises(TypeError, match="got None"):
        fair_order([0.9, 0.1, 0.5, 0.4], [1, 0, 1, 0], [0, 0, 1, 1], lam=None)


@pytest.mark.parametrize("dtype,value,warns", [
    (np.int64, 2**53, False),            # exact
    (np.int64, 2**60, False),            # exact: a power of two
    (np.int64, 2**53 + 1, True),
    (np.int64, -(2**53) - 1, True),
    (np.int64, 2**63 - 1, True),          # rounds to 2**63, beyond int64
    (np.uint64, 2**64 - 1, True),
])
def test_integer_scores_beyond_2_53_warn(dtype, value, warns):
    scores = np.array([3, value, 5], dtype=dtype)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = v.check_scores(scores)
    assert out.dtype == np.float64
    messages = [str(w.message) for w in caught]
    if warns:
        assert messages == [v.MSG_INEXACT_SCORES.format(name="scores", index=1,
                                                        value=value)]
    else:
        assert messages == []
