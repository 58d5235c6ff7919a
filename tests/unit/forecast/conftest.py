"""A tiny synthetic store for forecast tests: star_signals written from known series (the
fixtures `synthetic` and `synthetic_store` live in support.forecast_data, shared with
tests/integration)."""

from __future__ import annotations

import pytest
from support.forecast_data import signals_from_stars, synthetic, synthetic_store

__all__ = ["synthetic", "synthetic_store"]  # fixtures, found by name


@pytest.fixture
def signals_for():
    """`signals_from_stars`, for tests that build their own series."""
    return signals_from_stars
