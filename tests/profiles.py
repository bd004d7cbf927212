"""The project's Hypothesis profiles, and the example counts of the properties under each.

* ``ci`` (loaded when ``CI`` is set, as .ci/run runs): every property runs its full count,
  derandomized (the same examples on every run, so a red build is the code's doing, not the
  draw's), no example database, and the reproduction blob printed with a failure.
* ``dev`` (the default): a quarter of the CI counts (at least a few), random examples, the
  example database in ``.hypothesis/`` so that a failure found once is tried first next time.
* ``nightly``: ten times the CI counts, random examples from a seed printed in the report
  header (``--hypothesis-seed`` replays it, docs/testing.md), the reproduction blob printed.

``HYPOTHESIS_PROFILE`` or pytest's ``--hypothesis-profile`` names another profile. A property
names its count as it runs under ``ci`` through :func:`examples`, which scales it for the
loaded profile; a property with no count of its own runs the profile's ``max_examples``.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

#: What a property with no count of its own runs under ``ci``; the other profiles scale from it.
CI_EXAMPLES = 200
#: The environment variable that names the profile (pytest's ``--hypothesis-profile`` wins over it).
PROFILE_VARIABLE = "HYPOTHESIS_PROFILE"
#: The fewest examples a property runs under any profile.
FEWEST = 5

settings.register_profile(
    "ci", max_examples=CI_EXAMPLES, derandomize=True, database=None, print_blob=True, deadline=None,
)
settings.register_profile("dev", max_examples=CI_EXAMPLES // 4, deadline=None)
settings.register_profile(
    "nightly", max_examples=CI_EXAMPLES * 10, derandomize=False, database=None, print_blob=True, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def profile_name() -> str:
    """The profile the environment asks for: ``HYPOTHESIS_PROFILE``, else ``ci`` under CI, else ``dev``."""
    return os.environ.get(PROFILE_VARIABLE) or ("ci" if in_ci() else "dev")


def examples(ci: int) -> int:
    """The examples of a property that runs ``ci`` of them under the ``ci`` profile, scaled for the
    loaded profile (a quarter under ``dev``, ten times under ``nightly``)."""
    return max(FEWEST, round(ci * settings().max_examples / CI_EXAMPLES))
