"""Fixtures for source tests: the local GitHub API server on the small synthetic dataset, a
client wired to it with instant (recorded) sleeps, and a store-snapshot helper."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from shu.settings import Settings, load_settings
from shu.sources.github import GitHubClient, StoreValidatorCache
from shu.store import Store
from shu.testing.datasets import small_dataset
from shu.testing.github_server import GitHubAPIServer

TOKEN = "ghp_" + "T0kenNeverShown" * 3


class Sleeps(list):
    """A sleep function that records how long it was asked to sleep and returns at once."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def server() -> Iterator[GitHubAPIServer]:
    with GitHubAPIServer(small_dataset()) as srv:
        yield srv


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
def settings(server: GitHubAPIServer) -> Settings:
    return load_settings(github_api_url=server.url, github_retries=3, github_max_wait_s=900)


@pytest.fixture
def token() -> str:
    """A fake token that must never appear in logs, errors or the store."""
    return TOKEN


@pytest.fixture
def make_client():
    """Factory: the real client against the local server, instant sleeps, fixed jitter."""

    def make(
        server: GitHubAPIServer, sleeps: Sleeps, store: Store | None = None, **kwargs
    ) -> GitHubClient:
        if store is not None:
            kwargs.setdefault("cache", StoreValidatorCache(store))
        kwargs.setdefault("retries", 3)
        return GitHubClient(server.url, sleep=sleeps, jitter=lambda: 0.5, **kwargs)

    return make


@pytest.fixture
def store_snapshot():
    """Function returning every ingested table's rows (sorted, without wall-clock columns)."""
    return _snapshot


def _snapshot(store: Store) -> dict[str, list[tuple]]:
    """Every ingested table's rows, sorted, without the wall-clock bookkeeping columns."""
    queries = {
        "repos": "SELECT * EXCLUDE (updated_at) FROM repos",
        "repo_aliases": "SELECT * EXCLUDE (recorded_at) FROM repo_aliases",
        "stars_daily": "SELECT * FROM stars_daily",
        "commits": "SELECT * FROM commits",
        "releases": "SELECT * FROM releases",
        "http_cache": "SELECT * EXCLUDE (fetched_at) FROM http_cache",
    }
    return {name: sorted(store.con.execute(q).fetchall(), key=repr) for name, q in queries.items()}
