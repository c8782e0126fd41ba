"""Shared pytest configuration.

Hypothesis profiles: ``ci`` (the default: 300 examples per property, no
deadline) and ``dev`` (50 examples, for a quick local loop). Pick one with the
``HYPOTHESIS_PROFILE`` environment variable, e.g. ``HYPOTHESIS_PROFILE=dev pytest``.
"""

from __future__ import annotations

import os

import pytest
from helpers import unique_name
from hypothesis import settings

# ci: no example database (a run writes nothing into the checkout) and the
# @reproduce_failure blob printed; .ci/run also fixes the seed
# (--hypothesis-seed, printed), so a run is repeatable and a failure names it.
settings.register_profile("ci", max_examples=300, deadline=None, database=None, print_blob=True)
settings.register_profile("dev", max_examples=50, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def op_type(request: pytest.FixtureRequest) -> str:
    """A fresh op type name: the OperatorFactory is process-global, so every
    test registers under a name no other test uses."""
    return unique_name(request.node.name.split("[")[0])
