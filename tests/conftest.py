"""Shared pytest configuration.

Hypothesis profiles (pick one with the ``HYPOTHESIS_PROFILE`` environment variable):

- unset (local runs): 300 examples per property, no deadline, a fresh random seed each run;
- ``ci`` (``.ci/run`` sets it): the same 300 examples, derandomised — the seed is derived from
  each test's name, so every CI run tries the same examples and a failure is reproduced by running
  the same test with ``HYPOTHESIS_PROFILE=ci`` — and a failure prints its
  ``@reproduce_failure(...)`` blob (``print_blob``) to paste above the test; no example database
  is written into the checkout;
- ``dev``: 50 examples, for a quick local loop.

Rules every test file follows (enforced by ``.ci/run``; see tests/README.md):

- tests are type-checked: ``mypy --strict tests/``;
- any warning fails the test (``filterwarnings = error``): assert an expected one with
  ``pytest.warns``;
- ``xfail`` is strict: an xfail test that passes fails;
- each test has a time limit (pytest-timeout, ``timeout`` in pyproject.toml); a test that needs
  longer says so with ``@pytest.mark.timeout(seconds)``.
"""

from __future__ import annotations

import hashlib
import os

import pytest
from hypothesis import settings

# ci: derandomised (the same examples every run), no example database (a run
# writes nothing into the checkout) and the @reproduce_failure blob printed.
settings.register_profile("local", max_examples=300, deadline=None)
settings.register_profile(
    "ci", max_examples=300, deadline=None, derandomize=True, print_blob=True, database=None
)
settings.register_profile("dev", max_examples=50, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "local"))


@pytest.fixture
def op_type(request: pytest.FixtureRequest) -> str:
    """A fresh op type name: the OperatorFactory is process-global, so every
    test registers under a name no other test uses. The name is the test's
    own (its node id hashed), the same on every run: opgraph.testing's
    check_inference keys hypothesis's seed on the op type, so a random name
    would undo the ``ci`` profile's derandomisation."""
    digest = hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:12]
    return f"{request.node.name.split('[')[0]}_{digest}"
