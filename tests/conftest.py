"""Settings shared by the whole suite."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

# The suite runs on every core at once (pytest -n auto); generating examples can then be slow
# for reasons that have nothing to do with the strategies. Every example still runs: only the
# "generation is slow" health check is off.
settings.register_profile("pith", suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("pith")
