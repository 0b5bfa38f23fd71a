"""Shared fixtures and hypothesis profiles."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "ci", deadline=None, max_examples=200, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("fast", deadline=None, max_examples=20)
# CI runs a fixed set of examples (the same on every run, so a red build is the change's
# own); locally every run explores new ones. HYPOTHESIS_PROFILE picks one by name.
settings.register_profile(
    "ci-fixed",
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE", "ci-fixed" if os.environ.get("CI") else "default")
)
