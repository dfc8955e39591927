"""Decisions of release 0.3, recorded: the refactors since change no bit.

SHA-256 digests (first 20 hex digits) of the decision words, paths, final counters and
last rows of the 2-D fill, the banded solve, the K-D DP and iterative xOrder, every metric
and mode, ties and lam 0 included, computed by release 0.3's code (the commit before the
objective module, 8f0143c) on the inputs of ``support.golden.digests``. A change of any
decision, path or counter on these inputs changes a digest. The independent oracles
(enumeration, cell-by-cell definitions) are the other tests; this one pins the exact bits
across refactors.
"""

from support.golden import GOLDEN, digests


def test_decisions_are_those_of_release_0_3():
    got = digests()
    assert got.keys() == GOLDEN.keys()
    changed = sorted(k for k in GOLDEN if got[k] != GOLDEN[k])
    assert not changed, f"decisions changed: {changed}"
