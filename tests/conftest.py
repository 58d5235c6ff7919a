"""Shared fixtures: temporary stores, the ../shared data directory, and one Prefect harness; and
the `integration` marker on every test under tests/integration (`-m "not integration"` runs the
unit tests alone)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from shu.store import Store, open_store

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
INTEGRATION = Path(__file__).resolve().parent / "integration"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests under tests/integration run whole chains (shu processes, Prefect flows, clusters) or
    fit models at their real settings: marked `integration` by where they live, so no module can
    forget the marker."""
    for item in items:
        if item.path.is_relative_to(INTEGRATION):
            item.add_marker(pytest.mark.integration)


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    """Path of a fresh (not yet created) store file."""
    return tmp_path / "shu.duckdb"


@pytest.fixture
def store(store_path: Path):
    """A fresh, migrated store on disk (a real DuckDB file)."""
    s: Store = open_store(store_path)
    yield s
    s.close()


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """../shared beside the checkout; tests that need it skip (with the reason) when absent."""
    if not (SHARED / "data").is_dir():
        pytest.skip(f"needs the shared data directory {SHARED} (absent on this machine)")
    return SHARED


@pytest.fixture(scope="session")
def prefect_harness():
    """One Prefect test harness (temporary API + SQLite) for the whole session; it costs ~10 s.
    Telemetry is off: there is no network, and its writes only contend for the SQLite lock."""
    os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] = "false"
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        yield


@pytest.fixture(scope="session")
def prefect_api_url(prefect_harness) -> str:
    """The session harness's API URL, for the shu processes a test starts (PREFECT_API_URL):
    they use this one server instead of each starting an ephemeral one (a uvicorn process with
    its own SQLite database, slow to start on a loaded machine). Tests of the ephemeral server
    itself (a new user's first `shu daily`, a server that does not start) leave it out."""
    from prefect.settings import PREFECT_API_URL

    return str(PREFECT_API_URL.value())
