"""One bad repository never sinks the others: its failure is reported (summary, ingest_log,
exit status) and the rest of the run completes; a re-run without the fault converges."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date

import pytest

from shu.cli import PARTIAL_EXIT
from shu.errors import GitHubError
from shu.sources.github_ingest import ingest_github
from shu.store import open_store

TODAY = date(2026, 3, 2)


def _failed_log(store):
    return store.con.execute(
        "SELECT target, message FROM ingest_log WHERE status = 'failed' ORDER BY target"
    ).fetchall()


@pytest.mark.parametrize(
    "kind, options",
    [
        ("malformed_json", {}),  # invalid JSON on every try
        ("server_error", {"status": 503}),  # a 5xx that outlasts the retries
        ("status", {"status": 422}),  # an unexpected client error
    ],
)
def test_one_bad_repository_is_reported_and_the_others_load(
    tmp_path, server, sleeps, settings, make_client, store_snapshot, kind, options
):
    with open_store(tmp_path / "clean.duckdb") as clean:
        ingest_github(
            clean, settings, backfill=True, today=TODAY, client=make_client(server, sleeps, clean)
        )
        expected = store_snapshot(clean)
    fault = server.fail(kind, match="/repos/tensorflow/tensorflow/releases", times=None, **options)
    with open_store(tmp_path / "bad.duckdb") as bad:
        summary = ingest_github(
            bad, settings, backfill=True, today=TODAY, client=make_client(server, sleeps, bad)
        )
        assert summary.repos == ["pytorch/pytorch", "ollama/ollama"]
        assert list(summary.failed) == ["tensorflow/tensorflow"]
        assert summary.failed["tensorflow/tensorflow"].startswith("releases: GitHub GET ")
        assert [t for t, _ in _failed_log(bad)] == ["tensorflow/tensorflow releases"]
        got = store_snapshot(bad)
        for table in ("commits", "stars_daily"):  # its earlier steps and the others are whole
            assert got[table] == expected[table]
        assert [r for r in got["releases"] if r[0] != "tensorflow/tensorflow"] == [
            r for r in expected["releases"] if r[0] != "tensorflow/tensorflow"
        ]
        fault.times = 0
        again = ingest_github(
            bad, settings, backfill=True, today=TODAY, client=make_client(server, sleeps, bad)
        )
        assert again.failed == {}
        assert store_snapshot(bad) == expected


def test_malformed_object_in_one_repository(store, server, sleeps, settings, make_client):
    server.repo("pytorch/pytorch").releases[0].tag = None  # tag_name: null
    summary = ingest_github(
        store, settings, backfill=True, today=TODAY, client=make_client(server, sleeps, store)
    )
    assert "pytorch/pytorch" in summary.failed and len(summary.repos) == 2
    assert "malformed release object" in summary.failed["pytorch/pytorch"]


def test_rejected_credentials_still_stop_the_run(store, server, sleeps, settings, make_client):
    server.fail("status", match="/repos/pytorch/pytorch/commits", status=401, times=None)
    with pytest.raises(GitHubError, match="HTTP 401"):
        ingest_github(
            store, settings, backfill=True, today=TODAY, client=make_client(server, sleeps, store)
        )


def test_cli_exit_status_names_the_failed_repository(tmp_path, server):
    server.fail("malformed_json", match="/repos/ollama/ollama/commits", times=None)
    env = {
        **os.environ,
        "SHU_GITHUB_API_URL": server.url,
        "SHU_GITHUB_RETRIES": "0",
        "COLUMNS": "200",
    }
    db = tmp_path / "s.duckdb"
    proc = subprocess.run(
        [sys.executable, "-m", "shu", "ingest", "github", "--db", str(db)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == PARTIAL_EXIT, proc.stderr
    assert "failed: ollama/ollama: commits: GitHub GET" in proc.stderr
    assert "Traceback" not in proc.stderr
    with open_store(db, read_only=True) as store:
        assert [t for t, _ in _failed_log(store)] == ["ollama/ollama commits"]
        assert store.con.execute(
            "SELECT list(target ORDER BY target) FROM ingest_log WHERE "
            "status = 'ok' AND target LIKE '%releases'"
        ).fetchone()[0] == ["pytorch/pytorch releases", "tensorflow/tensorflow releases"]


def test_cli_a_repository_github_does_not_have_fails_in_one_line(tmp_path, server):
    """`shu ingest github --repo nosuch/repo` against the local stand-in (which answers 404 for
    a repository it does not serve): non-zero exit, one line naming it, 'failed' in ingest_log."""
    env = {**os.environ, "SHU_GITHUB_API_URL": server.url, "COLUMNS": "200"}
    db = tmp_path / "s.duckdb"
    proc = subprocess.run(
        [sys.executable, "-m", "shu", "ingest", "github", "--repo", "nosuch/repo", "--db", str(db)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == PARTIAL_EXIT, proc.stderr
    assert proc.stderr.splitlines() == [
        "failed: nosuch/repo: repository: not found on GitHub (HTTP 404): check the name "
        "(owner/name)"
    ]
    with open_store(db, read_only=True) as store:
        assert store.con.execute("SELECT DISTINCT status FROM ingest_log").fetchall() == [
            ("failed",)
        ]
        assert store.con.execute("SELECT count(*) FROM repos").fetchone()[0] == 0


def test_daily_flow_per_repository_task_reports_the_failure(tmp_path, server, settings):
    """The daily flow's mapped per-repository task (shu.flows.ingest.github_repo) returns the
    failure instead of reporting the repository as loaded."""
    from shu.flows.ingest import github_repo

    settings = settings.model_copy(update={"github_retries": 0})
    server.fail("malformed_json", match="/repos/ollama/ollama/releases", times=None)
    db = tmp_path / "s.duckdb"
    bad = github_repo(db, settings, TODAY, True, "ollama/ollama")
    assert not bad["ok"] and bad["error"].startswith("releases: GitHub GET ")
    assert github_repo(db, settings, TODAY, True, "pytorch/pytorch")["ok"]


def test_what_stops_the_run_is_not_waited_out_again_for_each_repository(tmp_path, server, settings):
    """Rejected credentials (like GitHub unreachable or the rate limit) stop the whole run: the
    first repository's failure is every repository's, the others are not tried (each would wait
    out its own retries), in the sequential path and in the daily flow's mapped task; the next
    run tries again."""
    from shu.flows.ingest import _RUN_STOPPED, github_repo, github_repos

    server.fail("status", status=401, times=None)
    repos = ["pytorch/pytorch", "tensorflow/tensorflow", "ollama/ollama"]
    results = github_repos(tmp_path / "a.duckdb", settings, TODAY, True, repos)
    assert [r["ok"] for r in results] == [False] * 3
    assert len({r["error"] for r in results}) == 1 and "401" in results[0]["error"]
    assert server.count("/repos/pytorch/") > 0
    assert server.count("/repos/tensorflow/") == server.count("/repos/ollama/") == 0
    server.clear_requests()
    db = tmp_path / "b.duckdb"
    first, *others = [github_repo(db, settings, TODAY, True, r) for r in repos]
    assert not first["ok"] and others == [
        {"repo": r, "ok": False, "error": first["error"]} for r in repos[1:]
    ]
    assert server.count("/repos/tensorflow/") == server.count("/repos/ollama/") == 0
    _RUN_STOPPED.clear()  # as `fanout.ingest` does when a run starts
    server.clear_faults()
    assert github_repo(db, settings, TODAY, True, "ollama/ollama")["ok"]
