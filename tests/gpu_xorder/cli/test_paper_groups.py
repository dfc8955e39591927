"""``gpu-xorder paper`` names the groups in a library's refusal as its tables do (the
age bands, not their codes)."""

import numpy as np
import pytest

from gpu_xorder import XOrder
from gpu_xorder.cli import main
from gpu_xorder.cli._common import group_names, named_groups


def _refusal():
    """The library's refusal of a subsample whose smallest group (code 7) keeps no
    positive."""
    rng = np.random.default_rng(0)
    g = np.repeat([0, 7], [300, 40])
    y = (rng.random(340) < 0.3).astype(int)
    y[300:], y[300] = 0, 1
    s = rng.random(340)
    s[300] = -1.0
    with pytest.raises(ValueError) as exc:
        XOrder(lam=0.5, subsample=20).fit(s, y, sensitive_features=g)
    return str(exc.value)


def test_age_band_codes_are_named_as_the_tables_name_them():
    message = _refusal()
    assert "group 7 has no positives" in message  # the library knows codes only
    names = group_names(None, "age10")[1]
    assert names[7] == "70 < age <= 75"
    named = named_groups(message, names)
    assert named == message.replace("group, 7 with", "group, '70 < age <= 75' with"
                                    ).replace("group 7 has", "group '70 < age <= 75' has")
    assert "7" not in named.replace("17 of", "").replace("75", "").replace("70", "")
    # numbers that are no group codes stay, and a code without a name stays a code
    assert named_groups("group 3 of 12 items", {}) == "group 3 of 12 items"
    assert named_groups("subsample=7 keeps 7", names) == "subsample=7 keeps 7"


def test_paper_names_the_group_in_a_refusal(capsys):
    """The paper command's refusal of a subsample (german, groups by age: the code 0
    is "young") names the group."""
    assert main(["paper", "--data", "german", "--repeats", "1", "--lam", "0.5",
                 "--backend", "numpy", "--methods", "xorder", "--subsample", "100"]) == 2
    err = capsys.readouterr().err
    assert "the smallest group, 'young' with 94 items" in err
    assert "group 'young' has no negatives" in err
    assert "group 0" not in err and "group, 0" not in err


def test_only_whole_group_codes_are_named():
    """A code is named only as a whole word after "group" (or "group,"): not inside
    a longer number, nor after "groups", "subgroup" or "Group"; every code of the
    message named at once (a name holding a code is not named again)."""
    names = group_names(None, "age10")[1]
    band = repr(names[7])
    assert named_groups("group 7 and group 70 of group 17", names) == (
        f"group {band} and group 70 of group 17")
    for kept in ("groups 0 and 7", "subgroup 7", "Group 7", "group7", "group  7"):
        assert named_groups(kept, names) == kept
    assert named_groups("the smallest group, 7 with 3 items; group 0 has none", names) == (
        f"the smallest group, {band} with 3 items; group {names[0]!r} has none")
    assert named_groups("group 1", {1: "group 2", 2: "x"}) == "group 'group 2'"
