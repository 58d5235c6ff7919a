"""The daily flow's GitHub ingestion on a real 2-worker Dask LocalCluster: the fetches run in
worker processes (no store, token from the worker's environment), the flow alone writes, and the
store ends up as a sequential `ingest_github` leaves it (a rename included)."""

from __future__ import annotations

import os
import pickle
from datetime import date

import pytest

from shu.settings import load_settings
from shu.sources.github_ingest import ingest_github
from shu.store import open_store
from shu.testing.datasets import small_dataset
from shu.testing.github_server import GitHubAPIServer

pytest.importorskip("prefect_dask", reason="needs the optional extra: pip install 'shu[dask]'")

DAY = date(2026, 3, 2)
TOKEN = "ghp_" + "W0rkerEnvOnly" * 3
REPOS = ["pytorch/pytorch", "tensorflow/tensorflow", "ollama/ollama"]


def _contents(db) -> dict[str, list[tuple]]:
    """The data a GitHub ingest writes, without its timestamps of writing."""
    with open_store(db, read_only=True) as store:
        q = store.con.execute
        return {
            "repos": q("SELECT * EXCLUDE (updated_at) FROM repos ORDER BY repo").fetchall(),
            "repo_aliases": q("SELECT alias, repo, source FROM repo_aliases ORDER BY 1").fetchall(),
            **{
                t: q(f"SELECT * FROM {t} ORDER BY ALL").fetchall()
                for t in ("stars_daily", "commits", "releases")
            },
            "http_cache": q(
                "SELECT url, etag, last_modified FROM http_cache ORDER BY url"
            ).fetchall(),
            "ingest_log": q(
                "SELECT source, target, rows_read, rows_inserted, rows_updated, "
                "status FROM ingest_log ORDER BY ALL"
            ).fetchall(),
        }


def test_github_fetches_on_a_two_worker_dask_cluster_one_writer(
    prefect_harness, tmp_path, monkeypatch
) -> None:
    from shu.flows.ingest import run_github_flow

    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)  # the workers inherit it; no task sees it
    with GitHubAPIServer(small_dataset()) as server:
        server.rename("ollama/ollama", "ollama/ollama-ng")  # a 301, followed on a worker
        overrides = {
            "github_api_url": server.url,
            "github_retries": 1,
            "aliases": {},
            "repos": [{"repo": r, "category": "ml"} for r in REPOS],
        }
        with open_store(tmp_path / "sequential.duckdb") as store:
            expected = ingest_github(store, load_settings(**overrides), backfill=True, today=DAY)
        assert not expected.failed and expected.renamed == {"ollama/ollama": "ollama/ollama-ng"}

        server.clear_requests()
        dask = {**overrides, "task_runner": "dask", "dask_workers": 2}
        result = run_github_flow(tmp_path / "fanout.duckdb", REPOS, DAY, True, dask)
        assert [r["repo"] for r in result["results"]] == REPOS
        assert all(r["ok"] for r in result["results"]), result
        assert server.requests and all(
            r.headers.get("authorization") == "<redacted>" for r in server.requests
        )
        pids = {w.rsplit(":", 1)[1] for w in result["workers"]}
        assert pids and str(os.getpid()) not in pids  # fetched in Dask worker processes
        assert TOKEN.encode() not in pickle.dumps(result)
        assert _contents(tmp_path / "fanout.duckdb") == _contents(tmp_path / "sequential.duckdb")

        # a second run sends what a sequential second run sends: conditional, nearly all 304
        server.clear_requests()
        with open_store(tmp_path / "sequential.duckdb") as store:
            ingest_github(store, load_settings(**overrides), today=DAY)
        sequential = sorted(_seen(server))
        server.clear_requests()  # now through the daily flow's ingest stage, which picks Dask
        again = _ingest_stage(tmp_path / "fanout.duckdb", dask)
        assert again["ok"] and again["counts"]["github_repos"] == len(REPOS), again
        assert " 0 rows changed" in again["message"], again
        assert sorted(_seen(server)) == sequential
        assert sum(1 for *_, status in sequential if status == 304) >= 3 * len(REPOS)
        assert _contents(tmp_path / "fanout.duckdb") == _contents(tmp_path / "sequential.duckdb")


def _ingest_stage(db, overrides: dict) -> dict:
    from prefect import flow

    from shu.flows import ingest

    @flow
    def ingest_only() -> dict:
        return ingest.ingest(db, load_settings(**overrides), DAY, False, overrides).as_dict()

    return ingest_only()


def _seen(server: GitHubAPIServer) -> list[tuple]:
    return [
        (r.path, tuple(sorted(r.query.items())), r.conditional, r.status) for r in server.requests
    ]
