"""Per-repository GitHub ingest split in two: a fetch that needs no store (a snapshot in, plain
picklable data out, no token in it) and a write that replays it in the same transactions and
`ingest_log` rows as a direct run."""

from __future__ import annotations

import pickle
from datetime import date

from shu.settings import load_settings
from shu.sources.github_ingest import IngestSummary, fetch_repo, ingest_github, write_fetch
from shu.sources.github_journal import read_snapshot
from shu.store import open_store

TODAY = date(2026, 3, 2)
REPO = "tensorflow/tensorflow"


def _log(store) -> list[tuple]:
    return store.con.execute(
        "SELECT target, rows_read, rows_inserted, rows_updated, status FROM ingest_log ORDER BY ALL"
    ).fetchall()


def test_fetch_needs_no_store_and_its_replay_equals_a_direct_run(
    tmp_path, server, settings, token, store_snapshot
) -> None:
    with open_store(tmp_path / "direct.duckdb") as direct:
        ingest_github(direct, settings, repos=[REPO], backfill=True, today=TODAY)
        expected, expected_log = store_snapshot(direct), _log(direct)
    with open_store(tmp_path / "split.duckdb") as store:
        snapshot = read_snapshot(store, REPO)
    # the store is closed: the fetch reads only its snapshot; the worker's settings carry a token
    worker = load_settings(github_api_url=server.url, github_token=token)
    fetched = pickle.loads(pickle.dumps(fetch_repo(snapshot, worker, True, TODAY)))
    assert token.encode() not in pickle.dumps(fetched)
    assert [r.target for r in fetched.journal] == [
        f"{REPO} {step}" for step in ("repository", "star history", "commits", "releases")
    ]
    assert fetched.summary.requests > 4 and fetched.fatal is None
    # each load's validators (a row per response) are written in one upsert, not one a response
    cached = [[op for op in r.ops if op.table == "http_cache"] for r in fetched.journal]
    assert [len(ops) for ops in cached] == [1, 1, 1, 1]
    assert sum(len(ops[0].rows) for ops in cached) > len(cached)
    summary = IngestSummary()
    with open_store(tmp_path / "split.duckdb") as store:
        assert store.con.execute("SELECT count(*) FROM commits").fetchall()[0][0] == 0
        write_fetch(store, fetched, summary)
        assert store_snapshot(store) == expected and _log(store) == expected_log
        assert store.con.execute("SELECT count(*) FROM http_cache").fetchall()[0][0] == sum(
            len(ops[0].rows) for ops in cached
        )
    assert summary.repos == [REPO] and summary.rows["commits"].inserted == 150


def test_a_failed_step_replays_as_its_failed_row_only(
    tmp_path, server, settings, sleeps, make_client
) -> None:
    server.fail("malformed_json", match=f"/repos/{REPO}/releases", times=None)
    with open_store(tmp_path / "s.duckdb") as store:
        fetched = fetch_repo(
            read_snapshot(store, REPO),
            settings,
            True,
            TODAY,
            client=make_client(server, sleeps, store),
        )
        # the client's store cache was pointed at the scratch store: nothing written here yet
        assert store.con.execute("SELECT count(*) FROM http_cache").fetchall()[0][0] == 0
        failed = fetched.journal[-1]
        assert failed.status == "failed" and failed.ops == []  # its writes were rolled back
        summary = IngestSummary()
        write_fetch(store, fetched, summary)
        assert set(summary.failed) == {REPO} and summary.failed[REPO].startswith("releases: ")
        assert store.con.execute("SELECT count(*) FROM releases").fetchall()[0][0] == 0
        assert store.con.execute("SELECT count(*) FROM commits").fetchall()[0][0] == 150
        assert store.con.execute("SELECT count(*) FROM http_cache").fetchall()[0][0] > 0
        rows = store.con.execute(
            "SELECT target, status, message FROM ingest_log WHERE status = 'failed'"
        ).fetchall()
        assert [(t, s) for t, s, _ in rows] == [(f"{REPO} releases", "failed")]
        assert rows[0][2] == failed.message and failed.message
