"""`ingest_github` against the local GitHub API server on the small synthetic dataset: what it
loads, what a re-run costs, and that faults neither lose nor duplicate rows."""

from __future__ import annotations

import hashlib
import logging
import os
import signal
import subprocess
import sys
import time
from datetime import date, datetime, timedelta

import pandas as pd
import pytest

from shu.errors import GitHubError, RateLimited, SourceError
from shu.settings import load_settings
from shu.sources.github_ingest import client_for, ingest_github
from shu.store import open_store
from shu.testing.github_server import CommitRecord, ReleaseRecord, RepoRecord

TODAY = date(2026, 3, 2)
DEFAULTS = ["pytorch/pytorch", "tensorflow/tensorflow", "ollama/ollama"]


@pytest.fixture
def run(server, sleeps, settings, make_client):
    """Run ingest_github into a store with a fresh client (as a new process would)."""

    def go(store, day=TODAY, backfill=False, **kwargs):
        client = kwargs.pop("client", None) or make_client(server, sleeps, store)
        return ingest_github(
            store,
            kwargs.pop("settings", settings),
            backfill=backfill,
            client=client,
            today=day,
            **kwargs,
        )

    return go


def count(store, sql, *params):
    return store.con.execute(sql, list(params)).fetchall()[0][0]


def test_backfill_fills_every_table(store, run, server):
    summary = run(store, backfill=True)
    assert summary.repos == DEFAULTS and summary.notes == []
    assert count(store, "SELECT count(*) FROM repos WHERE is_tracked") == 3
    assert count(store, "SELECT count(*) FROM commits") == 450
    assert count(store, "SELECT count(*) FROM releases") == 18  # drafts excluded
    assert count(store, "SELECT count(*) FROM releases WHERE tag LIKE '%.9.0'") == 0
    assert (
        count(store, "SELECT count(*) FROM stars_daily WHERE source = 'github' AND day = ?", TODAY)
        == 3
    )
    snapshot = store.con.execute(
        "SELECT stars, forks, open_issues, watchers FROM stars_daily WHERE repo = "
        "'ollama/ollama' AND day = ?",
        [TODAY],
    ).fetchall()[0]
    repo = server.repo("ollama/ollama")
    assert snapshot == (repo.stars, repo.forks, repo.open_issues, repo.watchers)
    rocm = store.con.execute("SELECT subject, topics FROM commits WHERE touches_rocm").fetchall()
    assert len(rocm) == 3 and all("rocm-adoption" in t for _, t in rocm)
    assert count(store, "SELECT count(*) FROM commits WHERE author_is_bot") == 18
    assert count(store, "SELECT count(*) FROM commits WHERE author_id IS NULL") == 0
    assert count(store, "SELECT count(*) FROM ingest_log WHERE status = 'ok'") == 12
    assert summary.rows["commits"].inserted == 450
    assert summary.requests == server.count("") and summary.not_modified == 0


def test_rerun_sends_only_conditional_requests_and_changes_nothing(
    store, run, server, store_snapshot
):
    run(store, backfill=True)
    before = store_snapshot(store)
    server.clear_requests()
    summary = run(store, backfill=True)
    assert summary.changed == 0
    assert server.requests and all(r.conditional for r in server.requests)
    assert all(r.status == 304 for r in server.requests)
    assert summary.requests == summary.not_modified == len(server.requests) == 12
    assert store_snapshot(store) == before


def test_daily_run_with_nothing_new_costs_at_most_15_requests(store, run, server):
    run(store, backfill=True)
    server.clear_requests()
    summary = run(store, day=TODAY + timedelta(days=1))
    assert summary.requests == len(server.requests) == 12 <= 15
    assert summary.not_modified == 12
    # the unchanged snapshot is still recorded for the new day, copied from the stored one
    assert summary.rows["stars_daily"].inserted == 3 and summary.changed == 3


def test_daily_run_picks_up_new_commits_releases_and_stars(store, run, server):
    run(store, backfill=True)
    repo = server.repo("pytorch/pytorch")
    last_day, last_stars = repo.star_counts[-1]
    newest = max(c.committed_at for c in repo.commits)
    server.add_commits(
        "pytorch/pytorch",
        [
            CommitRecord(
                sha="f" * 40,
                authored_at=newest,
                committed_at=newest + timedelta(hours=3),
                author_name="Ada",
                author_email="Ada@Example.com ",
                message="Add HIP kernels\n\nbody",
                parents=["0" * 40],
            )
        ],
    )
    server.add_release(
        "pytorch/pytorch",
        ReleaseRecord(tag="v9.0.0", published_at=newest + timedelta(hours=4), body="big"),
    )
    server.set_stars("pytorch/pytorch", last_day + timedelta(days=1), last_stars + 40)
    server.clear_requests()
    summary = run(store, day=last_day + timedelta(days=1))
    assert summary.rows["commits"].inserted == 1 and summary.rows["releases"].inserted == 1
    commit = store.con.execute(
        "SELECT author_id, touches_rocm, subject, source FROM commits WHERE sha = ?", ["f" * 40]
    ).fetchall()[0]
    hashed = hashlib.sha1(b"ada@example.com").hexdigest()[:12]  # lower-cased, stripped
    assert commit == (hashed, True, "Add HIP kernels", "github")
    since = [r for r in server.requests if "since" in r.query]
    assert len(since) == 1 and since[0].query["since"] == newest.strftime("%Y-%m-%dT%H:%M:%SZ")
    day = store.con.execute(
        "SELECT stars, stars_added, source FROM stars_daily WHERE repo = "
        "'pytorch/pytorch' AND day = ?",
        [last_day + timedelta(days=1)],
    ).fetchall()[0]
    assert day == (last_stars + 40, 40, "github")
    assert summary.requests <= 15 + 2  # one extra page for the since query and one for stars


def test_star_history_is_reconciled_with_stargazers_count(store, run, server):
    run(store, backfill=True)
    repo = server.repo("ollama/ollama")
    days, added = server._daily_added(repo)
    rows = store.con.execute(
        "SELECT day, stars, stars_added, source FROM stars_daily WHERE repo = 'ollama/ollama' "
        "AND source = 'github-star-history' ORDER BY day"
    ).fetchall()
    padding = [r for r in rows if r[0] < days[0]]  # the first week's days before creation
    assert len(padding) < 7 and all(r[2] == 0 for r in padding)
    rows = rows[len(padding) :]
    assert [r[0] for r in rows] == days
    assert [r[2] for r in rows] == added
    held = pd.Series(added).cumsum()
    offset = repo.stars - held.iloc[-1]  # stars given but since withdrawn (0 when monotone)
    assert [r[1] for r in rows] == list(held + offset)
    assert rows[-1][1] == repo.stars


def test_observed_counts_keep_their_stars_and_source(store, run, server):
    day = server.repo("tensorflow/tensorflow").star_counts[-5][0]
    store.con.execute(
        "INSERT INTO stars_daily (repo, day, stars, source) VALUES "
        "('tensorflow/tensorflow', ?, 123, 'ranking')",
        [day],
    )
    run(store, backfill=True)
    row = store.con.execute(
        "SELECT stars, stars_added, source FROM stars_daily WHERE repo = "
        "'tensorflow/tensorflow' AND day = ?",
        [day],
    ).fetchall()[0]
    assert row[0] == 123 and row[2] == "ranking" and row[1] is not None


def small_repo(**flags) -> RepoRecord:
    start = date(2026, 1, 1)
    return RepoRecord(
        full_name="acme/rocket",
        repo_id=7,
        created_at=datetime(2026, 1, 1),
        star_counts=[(start + timedelta(days=i), 3 * i + i % 2) for i in range(40)],
        **flags,
    )


def test_stargazer_listing_fallback(store, run, server, settings):
    server.add_repo(small_repo(stargazer_history_available=False))
    run(store, repos=["acme/rocket"], backfill=True, day=date(2026, 2, 9))
    rows = store.con.execute(
        "SELECT day, stars, stars_added, source FROM stars_daily WHERE repo = 'acme/rocket' "
        "AND stars_added IS NOT NULL ORDER BY day"
    ).fetchall()
    repo = server.repo("acme/rocket")
    assert sum(r[2] for r in rows) == repo.stars == 118
    assert {r[3] for r in rows[:-1]} == {"github-stargazers"}
    assert rows[-1] == (date(2026, 2, 9), 118, 4, "github")  # today's snapshot keeps its source
    observed = dict(repo.star_counts)  # monotone series: the held count is the true count
    assert [r[1] for r in rows] == [observed[r[0]] for r in rows]
    assert rows[0][0] == date(2026, 1, 2)  # the first day anyone starred
    assert server.count("/stargazers?") == 2  # 118 stars: two pages of 100
    assert all(
        r.headers["accept"] == "application/vnd.github.star+json"
        for r in server.requests
        if "/stargazers?" in r.path
    )


def test_stargazer_listing_daily_run_reads_only_the_newest_pages(store, run, server):
    start = date(2026, 1, 1)
    server.add_repo(
        RepoRecord(
            full_name="acme/rocket",
            repo_id=7,
            created_at=datetime(2026, 1, 1),
            star_counts=[(start + timedelta(days=i), 12 * i) for i in range(40)],
            stargazer_history_available=False,
        )
    )
    run(store, repos=["acme/rocket"], backfill=True, day=date(2026, 2, 9))
    assert server.count("/stargazers?") == 5  # 468 stars, 100 a page
    server.set_stars("acme/rocket", date(2026, 2, 10), 468 + 95)
    server.clear_requests()
    run(store, repos=["acme/rocket"], day=date(2026, 2, 10))
    pages = [r.query.get("page", "1") for r in server.requests if "/stargazers?" in r.path]
    assert pages == ["1", "6", "5"]  # page 1 for the last page number, then back to Feb 9
    rows = store.con.execute(
        "SELECT day, stars, stars_added FROM stars_daily WHERE repo = 'acme/rocket' "
        "AND stars_added IS NOT NULL ORDER BY day"
    ).fetchall()
    observed = dict(server.repo("acme/rocket").star_counts)
    assert [r[1] for r in rows] == [observed[r[0]] for r in rows]
    assert sum(r[2] for r in rows) == 563 and rows[-1][:2] == (date(2026, 2, 10), 563)


def test_restricted_star_lists_are_noted_not_fatal(store, run, server):
    server.add_repo(small_repo(stargazer_history_available=False, stargazers_available=False))
    summary = run(store, repos=["acme/rocket"])
    assert any("restricted" in n for n in summary.notes)
    assert count(store, "SELECT count(*) FROM stars_daily WHERE repo = 'acme/rocket'") == 1


def test_missing_repository_fails_and_the_others_load(store, run, server):
    """A repository GitHub does not have is a failure named with its reason, logged 'failed'
    (never 'ok'), while the others load."""
    summary = run(store, repos=["nobody/nothing", "ollama/ollama"])
    assert summary.repos == ["ollama/ollama"]
    assert summary.failed == {
        "nobody/nothing": "repository: not found on GitHub (HTTP 404): check the name (owner/name)"
    }
    assert store.con.execute(
        "SELECT status, message FROM ingest_log WHERE target LIKE 'nobody/nothing%'"
    ).fetchall() == [("failed", "not found on GitHub (HTTP 404): check the name (owner/name)")]
    # without --backfill a first run reads github_commit_lookback_days (90) of commits
    since = datetime.combine(TODAY - timedelta(days=90), datetime.min.time())
    recent = [c for c in server.repo("ollama/ollama").commits if c.committed_at >= since]
    assert 0 < len(recent) < 150
    assert count(store, "SELECT count(*) FROM commits WHERE repo = 'ollama/ollama'") == len(recent)


def test_history_not_ready_is_skipped_then_filled(store, run, server):
    server.fail("accepted", match="/stargazers/history", times=None)
    summary = run(store, repos=["ollama/ollama"], backfill=True)
    assert any("not ready" in n for n in summary.notes)
    assert count(store, "SELECT count(*) FROM stars_daily WHERE stars_added IS NOT NULL") == 0
    assert count(store, "SELECT count(*) FROM commits") == 150  # the other steps ran
    server.clear_faults()
    run(store, repos=["ollama/ollama"], backfill=True)
    days, _ = server._daily_added(server.repo("ollama/ollama"))
    assert count(
        store,
        "SELECT count(*) FROM stars_daily WHERE stars_added IS NOT NULL AND day >= ?",
        days[0],
    ) == len(days)


def test_history_not_ready_midway_rolls_back_its_etags(store, run, server):
    server.fail("accepted", match="/stargazers/history?page=3", times=None)
    summary = run(store, repos=["ollama/ollama"], backfill=True)
    assert any("not ready" in n for n in summary.notes)
    assert count(store, "SELECT count(*) FROM http_cache WHERE url LIKE '%history%'") == 0
    assert (
        count(
            store,
            "SELECT count(*) FROM ingest_log WHERE status = 'failed' AND "
            "target = 'ollama/ollama star history'",
        )
        == 1
    )
    server.clear_faults()
    server.clear_requests()
    run(store, repos=["ollama/ollama"], backfill=True)
    assert server.count("/stargazers/history", status=200) == 5  # pages 1-5, none trusted
    days, _ = server._daily_added(server.repo("ollama/ollama"))
    assert count(
        store,
        "SELECT count(*) FROM stars_daily WHERE stars_added IS NOT NULL AND day >= ?",
        days[0],
    ) == len(days)


def test_backfill_completes_a_history_that_daily_runs_left_partial(store, run, server):
    repo = server.repo("ollama/ollama")
    day = repo.star_counts[-1][0]
    store.con.execute(
        "INSERT INTO stars_daily (repo, day, stars_added, source) VALUES "
        "('ollama/ollama', ?, 0, 'github-star-history')",
        [day],
    )
    run(store, repos=["ollama/ollama"], day=day)  # a daily run: page 1 only
    assert server.count("/stargazers/history") == 1
    server.clear_requests()
    run(store, repos=["ollama/ollama"], backfill=True, day=day)
    statuses = [r.status for r in server.requests if "/stargazers/history" in r.path]
    assert statuses == [304, 200, 200, 200, 200]  # page 1 unchanged, the older pages fetched
    days, added = server._daily_added(repo)
    stored = dict(
        store.con.execute(
            "SELECT day, stars_added FROM stars_daily WHERE repo = 'ollama/ollama' AND day >= ? "
            "AND stars_added IS NOT NULL",
            [days[0]],
        ).fetchall()
    )
    assert stored == dict(zip(days, added, strict=True))
    server.clear_requests()
    run(store, repos=["ollama/ollama"], backfill=True, day=day)  # now whole: page 1 suffices
    assert [r.status for r in server.requests if "/stargazers/history" in r.path] == [304]


def test_backfill_fetches_commits_older_than_a_partial_first_run(store, run, server):
    run(store, repos=["ollama/ollama"])  # no --backfill: the last 90 days only
    partial = count(store, "SELECT count(*) FROM commits")
    assert 0 < partial < 150
    server.clear_requests()
    run(store, repos=["ollama/ollama"], backfill=True)
    assert count(store, "SELECT count(*) FROM commits") == 150
    until = [r for r in server.requests if "until" in r.query]
    assert len(until) == 1 and until[0].status == 200
    server.clear_requests()
    again = run(store, repos=["ollama/ollama"], backfill=True)  # the root is stored now
    assert again.changed == 0 and server.count("until") == 0
    assert all(r.status == 304 for r in server.requests)


def test_rename_is_followed_and_rows_move(store, run, server):
    run(store, backfill=True)
    before = count(store, "SELECT count(*) FROM commits")
    server.rename("ollama/ollama", "ollama-labs/ollama")
    summary = run(store, backfill=True)
    assert summary.renamed == {"ollama/ollama": "ollama-labs/ollama"}
    assert summary.repos[-1] == "ollama-labs/ollama"
    assert count(store, "SELECT count(*) FROM commits") == before
    for table in ("stars_daily", "commits", "releases", "repos"):
        assert count(store, f"SELECT count(*) FROM {table} WHERE repo = 'ollama/ollama'") == 0
    repo = store.con.execute(
        "SELECT repo_id, category, is_tracked, renamed_from FROM repos "
        "WHERE repo = 'ollama-labs/ollama'"
    ).fetchall()
    assert repo == [(658928958, "local-model apps", True, "ollama/ollama")]
    assert store.con.execute("SELECT alias, repo, source FROM repo_aliases").fetchall() == [
        ("ollama/ollama", "ollama-labs/ollama", "github-301")
    ]
    server.clear_requests()
    again = run(store, backfill=True)  # the configured old name now resolves locally
    assert server.count("/repos/ollama/ollama") == 0 and again.changed == 0


def test_transient_faults_lose_and_duplicate_nothing(
    tmp_path, server, sleeps, settings, make_client, store_snapshot
):
    with open_store(tmp_path / "clean.duckdb") as clean:
        ingest_github(
            clean, settings, backfill=True, today=TODAY, client=make_client(server, sleeps, clean)
        )
        expected = store_snapshot(clean)
    server.fail("server_error", match="/commits?per_page=100&sha=main&page=2", times=2)
    server.fail("malformed_json", match="/history?page=3&per_page=30", times=1)
    server.fail("truncated", match="/history?page=5&per_page=30", times=1)
    server.fail("slow", match="/releases", delay=0.5, times=1)
    server.fail("accepted", match="/repos/ollama/ollama/stargazers/history", times=1)
    server.fail("rate_limit", match="/repos/tensorflow/tensorflow/commits", reset_in=30)
    with open_store(tmp_path / "faulty.duckdb") as faulty:
        client = make_client(server, sleeps, faulty, timeout_s=0.25)
        summary = ingest_github(faulty, settings, backfill=True, today=TODAY, client=client)
        assert summary.retries >= 6 and summary.rate_limit_waits == 1
        assert store_snapshot(faulty) == expected


def test_rate_limit_give_up_midway_then_rerun_converges(
    tmp_path, server, sleeps, settings, make_client, store_snapshot
):
    with open_store(tmp_path / "clean.duckdb") as clean:
        ingest_github(
            clean, settings, backfill=True, today=TODAY, client=make_client(server, sleeps, clean)
        )
        expected = store_snapshot(clean)
    fault = server.fail(
        "rate_limit", match="/repos/tensorflow/tensorflow/commits", reset_in=7200, times=None
    )
    with open_store(tmp_path / "cut.duckdb") as cut:
        with pytest.raises(RateLimited, match="retry after"):
            ingest_github(
                cut, settings, backfill=True, today=TODAY, client=make_client(server, sleeps, cut)
            )
        assert count(cut, "SELECT count(*) FROM commits WHERE repo = 'pytorch/pytorch'") == 150
        assert count(cut, "SELECT count(*) FROM commits WHERE repo <> 'pytorch/pytorch'") == 0
        failed = cut.con.execute(
            "SELECT target, message FROM ingest_log WHERE status = 'failed'"
        ).fetchall()
        assert failed[0][0] == "tensorflow/tensorflow commits" and "retry after" in failed[0][1]
        fault.times = 0
        ingest_github(
            cut, settings, backfill=True, today=TODAY, client=make_client(server, sleeps, cut)
        )
        assert store_snapshot(cut) == expected


def test_token_never_reaches_store_logs_or_errors(
    store_path, server, sleeps, settings, make_client, token, caplog
):
    caplog.set_level(logging.DEBUG)
    server.fail("status", match="/repos/ollama/ollama/releases", status=401, times=None)
    store = open_store(store_path)
    client = make_client(server, sleeps, store, token=token)
    with pytest.raises(GitHubError) as caught:
        ingest_github(store, settings, backfill=True, today=TODAY, client=client)
    assert token not in str(caught.value) and "check GITHUB_TOKEN" in str(caught.value)
    assert caplog.text and token not in caplog.text
    assert all(r.headers.get("authorization") == "<redacted>" for r in server.requests)
    for table, column in store.con.execute(
        "SELECT table_name, column_name FROM information_schema.columns WHERE data_type = "
        "'VARCHAR' AND table_schema = 'main'"
    ).fetchall():
        assert (
            count(
                store, f'SELECT count(*) FROM "{table}" WHERE "{column}" LIKE ?', f"%{token[:12]}%"
            )
            == 0
        )
    store.con.execute("CHECKPOINT")
    store.close()
    for path in store_path.parent.glob(store_path.name + "*"):
        assert token.encode() not in path.read_bytes()


def test_unreachable_github_is_one_line_source_error(store, sleeps):
    settings = load_settings(github_api_url="http://127.0.0.1:9", github_retries=1)
    with pytest.raises(SourceError) as caught:
        ingest_github(store, settings, client=client_for(store, settings, sleep=sleeps))
    assert "connection refused" in str(caught.value) and "\n" not in str(caught.value)
    assert store.con.execute("SELECT status FROM ingest_log").fetchall() == [("failed",)]


def test_killed_process_rerun_converges(tmp_path, server, settings, store_snapshot):
    """A real `shu ingest github` process SIGKILLed halfway, then run again, ends with the
    same store as an uninterrupted run (the self-contained twin of the integration test)."""
    env = {**os.environ, "SHU_GITHUB_API_URL": server.url, "COLUMNS": "200"}
    command = [
        sys.executable,
        "-c",
        "from shu.cli import main; main()",
        "ingest",
        "github",
        "--backfill",
        "--db",
    ]
    clean, killed = tmp_path / "clean.duckdb", tmp_path / "killed.duckdb"
    subprocess.run([*command, str(clean)], env=env, check=True, capture_output=True)
    total = len(server.requests)
    server.clear_requests()
    slow = server.fail("slow", delay=0.05, times=None)
    proc = subprocess.Popen(
        [*command, str(killed)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 60
    while len(server.requests) < total // 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    assert proc.wait(timeout=10) == -signal.SIGKILL
    slow.times = 0
    with open_store(killed, read_only=True) as cut:
        assert 0 < count(cut, "SELECT count(*) FROM ingest_log") < 12  # some steps committed
    subprocess.run([*command, str(killed)], env=env, check=True, capture_output=True)
    with open_store(clean, read_only=True) as a, open_store(killed, read_only=True) as b:
        assert store_snapshot(b) == store_snapshot(a)
