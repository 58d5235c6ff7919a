"""Stores for the signal tests: a small synthetic one (always) and a sample of the real data."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.signal_data import insert_observations, load_real_sample, synthetic_observations

from shu.settings import get_settings
from shu.store import Store, open_store


@pytest.fixture
def synthetic_store(store: Store) -> Store:
    insert_observations(store, synthetic_observations())
    return store


@pytest.fixture(scope="module")
def parquet(shared_dir: Path) -> Path:
    return shared_dir / "data" / "stars" / "stars_daily.parquet"


@pytest.fixture(scope="module")
def real_store(parquet: Path, tmp_path_factory) -> Iterator[Store]:
    """The real sample, fully refreshed once for the module."""
    from shu.signals import refresh_signals

    s = open_store(tmp_path_factory.mktemp("real") / "shu.duckdb")
    load_real_sample(s, parquet)
    refresh_signals(s, full=True, settings=get_settings())
    yield s
    s.close()
