"""A tiny synthetic store for forecast tests: star_signals written from known series."""

from __future__ import annotations

import pytest
from support.forecast_data import signals_from_stars, synthetic_signals


@pytest.fixture
def synthetic():
    """The synthetic star_signals frame (the known answers)."""
    return synthetic_signals()


@pytest.fixture
def synthetic_store(store, synthetic):
    """The `store` fixture filled with the synthetic star_signals."""
    store.upsert("star_signals", synthetic)
    return store


@pytest.fixture
def signals_for():
    """`signals_from_stars`, for tests that build their own series."""
    return signals_from_stars
