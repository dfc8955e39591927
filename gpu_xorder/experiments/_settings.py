"""The settings of the samples studies: shares of the training split (``fractions``)
or numbers of training items (``sizes``), checked and told apart."""

import numpy as np

from ..utils import _validation as v

FRACTIONS = (0.05, 0.1, 0.2, 0.5, 1.0)
#: The studies whose settings are shares or sizes of the training split.
SHARE_STUDIES = ("samples", "samples-retrain", "subsample")
MSG_FRACTIONS_STUDY = "fractions are the shares of the samples and samples-retrain studies"
MSG_SIZES_STUDY = ("sizes are the numbers of training items of the samples, "
                   "samples-retrain and subsample studies")
MSG_FRACTIONS = "fractions must be distinct shares in (0, 1], got {value!r}"
MSG_SIZES = "sizes must be distinct whole numbers of training items >= 2, got {value!r}"


def _check_fractions(fractions, study):
    """The shares of a samples study, in the order given (default :data:`FRACTIONS`)."""
    if fractions is None:
        return FRACTIONS
    if study not in SHARE_STUDIES:
        raise ValueError(MSG_FRACTIONS_STUDY)
    if isinstance(fractions, (str, bytes)) or not hasattr(fractions, "__iter__"):
        raise TypeError(MSG_FRACTIONS.format(value=fractions))
    values = tuple(v.as_real(x, "fractions", MSG_FRACTIONS) for x in fractions)
    if not values or len(set(values)) != len(values) or not all(
            0.0 < x <= 1.0 for x in values):
        raise ValueError(MSG_FRACTIONS.format(value=fractions))
    return values


def _check_sizes(sizes, study):
    """The training sizes of a samples study, in the order given, as ints."""
    if study not in SHARE_STUDIES:
        raise ValueError(MSG_SIZES_STUDY)
    if isinstance(sizes, (str, bytes)) or not hasattr(sizes, "__iter__"):
        raise TypeError(MSG_SIZES.format(value=sizes))
    values = []
    for x in sizes:  # a count: a bool or a non-integer is a type error
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
            raise TypeError(MSG_SIZES.format(value=sizes))
        if x < 2:
            raise ValueError(MSG_SIZES.format(value=sizes))
        values.append(int(x))
    if not values or len(set(values)) != len(values):
        raise ValueError(MSG_SIZES.format(value=sizes))
    return tuple(values)


def is_size(setting):
    """Whether a samples study's setting is a number of training items (an int), not
    a share (a float)."""
    return isinstance(setting, (int, np.integer)) and not isinstance(setting, bool)
