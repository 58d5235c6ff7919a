"""Fixtures of the integration tests: the forecast tests' synthetic star_signals store (defined
in support.forecast_data, shared with tests/unit/forecast)."""

from __future__ import annotations

from support.forecast_data import synthetic, synthetic_store

__all__ = ["synthetic", "synthetic_store"]  # fixtures, found by name
