"""Hypothesis profiles of the test suite and the one way a property test sizes itself.

Two profiles, registered by ``tests/conftest.py`` (``register``):

- ``ci`` (the default): derandomised, so every run tries the same examples and a
  failure is the same on every machine; no deadline (a busy 2-core machine is slow);
  a failure prints the blob that reproduces it (``@reproduce_failure``).
- ``deep``: ``DEEP_FACTOR`` times the examples, random (new examples each run, the
  blob printed to replay one). ``HYPOTHESIS_PROFILE=deep python -m pytest ...`` or
  ``python -m pytest --hypothesis-profile=deep ...``.

A property test never writes ``max_examples=`` itself: it takes ``examples(n)``,
``n`` on ``ci`` and ``DEEP_FACTOR * n`` on ``deep``, so that one switch deepens every
property of the suite::

    @settings(max_examples=examples(40))
"""

import os

from hypothesis import HealthCheck, settings

#: How many times the examples of ``ci`` the ``deep`` profile tries.
DEEP_FACTOR = 20

#: The profile a run uses when neither the environment nor ``--hypothesis-profile``
#: names one.
DEFAULT = "ci"

_CI_EXAMPLES = 50  # a test without its own examples(n)


def register():
    """Register ``ci`` and ``deep``, and load the one ``HYPOTHESIS_PROFILE`` names
    (``ci`` where it is unset); ``--hypothesis-profile`` loads its own later."""
    common = {"deadline": None, "print_blob": True,
              "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large,
                                        HealthCheck.function_scoped_fixture]}
    settings.register_profile("ci", max_examples=_CI_EXAMPLES, derandomize=True,
                              database=None, **common)
    settings.register_profile("deep", max_examples=DEEP_FACTOR * _CI_EXAMPLES,
                              derandomize=False, **common)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", DEFAULT))


def factor():
    """Examples of the loaded profile per example of ``ci`` (1 on ``ci``, 20 on
    ``deep``)."""
    return max(1, settings.default.max_examples // _CI_EXAMPLES)


def examples(n):
    """``n`` examples on the ``ci`` profile, ``n`` times ``factor()`` on another."""
    return n * factor()
