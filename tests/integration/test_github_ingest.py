"""End to end: `shu ingest github|git|docs` as a user runs them, against the local GitHub API
server serving the real histories in ../shared/data (commits and tags of real repositories,
real daily star counts turned into weekly star-history rows)."""

from __future__ import annotations

import copy
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from shu.store import open_store
from shu.testing.datasets import default_repos_from_history
from shu.testing.github_server import GitHubAPIServer, RepoRecord

TOKEN = "ghp_" + "IntegrationSecret" * 2
SHU = [sys.executable, "-c", "from shu.cli import main; main()"]


@pytest.fixture(scope="module")
def real_repos(shared_dir) -> list[RepoRecord]:
    """The three defaults from real data (pytorch and tensorflow served with sibling
    repositories' commits and tags; see shu.testing.datasets)."""
    return default_repos_from_history(shared_dir, max_commits=250)


@pytest.fixture
def server(real_repos):
    with GitHubAPIServer(copy.deepcopy(real_repos)) as srv:
        yield srv


def shu(server: GitHubAPIServer, *args: str, **popen) -> subprocess.Popen | str:
    env = {
        **os.environ,
        "SHU_GITHUB_API_URL": server.url,
        "GITHUB_TOKEN": TOKEN,
        "COLUMNS": "200",
        "SHU_GITHUB_RETRIES": "2",
    }
    if popen:
        return subprocess.Popen([*SHU, *args], env=env, **popen)
    done = subprocess.run([*SHU, *args], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert TOKEN not in done.stdout + done.stderr
    return done.stdout


def requests_line(output: str) -> tuple[int, int]:
    match = re.search(r"requests: (\d+) \((\d+) answered 304", output)
    assert match, output
    return int(match.group(1)), int(match.group(2))


def snapshot(path: Path) -> dict[str, list[tuple]]:
    with open_store(path, read_only=True) as store:
        return {
            t: sorted(store.con.execute(q).fetchall(), key=repr)
            for t, q in {
                "repos": "SELECT * EXCLUDE (updated_at) FROM repos",
                "stars_daily": "SELECT * FROM stars_daily",
                "commits": "SELECT * FROM commits",
                "releases": "SELECT * FROM releases",
                "http_cache": "SELECT * EXCLUDE (fetched_at) FROM http_cache",
            }.items()
        }


def test_backfill_then_conditional_reruns_via_cli(server, tmp_path, real_repos):
    db = tmp_path / "shu.duckdb"
    first = shu(server, "ingest", "github", "--backfill", "--db", str(db))
    total, not_modified = requests_line(first)
    assert not_modified == 0 and total == len(server.requests)
    assert all(r.headers.get("authorization") == "<redacted>" for r in server.requests)
    with open_store(db, read_only=True) as store:

        def one(sql, *params):
            return store.con.execute(sql, list(params)).fetchall()[0][0]

        assert one("SELECT count(*) FROM repos WHERE is_tracked") == 3
        assert one("SELECT count(*) FROM commits") == 750
        served_releases = sum(len(r.releases) for r in real_repos)
        assert one("SELECT count(*) FROM releases") == served_releases
        for repo in real_repos:
            last_day, last_stars = repo.star_counts[-1]
            # the reconciled series ends on the real count of the last day served
            assert (
                one(
                    "SELECT stars FROM stars_daily WHERE repo = ? AND day = ?",
                    repo.full_name,
                    last_day,
                )
                == last_stars
            )
            first_day = one(
                "SELECT min(day) FROM stars_daily WHERE repo = ? AND stars_added > 0",
                repo.full_name,
            )
            assert first_day == repo.created_at.date()
            assert (
                one(
                    "SELECT count(*) FROM (SELECT stars - lag(stars) OVER (ORDER BY day) "
                    "AS d FROM stars_daily WHERE repo = ? AND source = "
                    "'github-star-history') WHERE d < 0",
                    repo.full_name,
                )
                == 0
            )
        ollama_rocm = one(
            "SELECT count(*) FROM commits WHERE repo = 'ollama/ollama' AND touches_rocm"
        )
        assert ollama_rocm > 0
    before = snapshot(db)
    server.clear_requests()
    second = shu(server, "ingest", "github", "--backfill", "--db", str(db))
    assert requests_line(second) == (12, 12)
    assert all(r.conditional and r.status == 304 for r in server.requests)
    assert snapshot(db) == before
    server.clear_requests()
    daily = shu(server, "ingest", "github", "--db", str(db))
    assert requests_line(daily) == (12, 12)  # the daily incremental run: <= 15 requests
    assert "rate budget left" in daily
    with open_store(db, read_only=True) as store:
        assert not store.con.execute(
            "SELECT count(*) FROM ingest_log WHERE message LIKE ?", [f"%{TOKEN[:10]}%"]
        ).fetchall()[0][0]
    assert TOKEN.encode() not in db.read_bytes()


def test_killed_run_converges_to_an_uninterrupted_run(server, tmp_path):
    clean, killed = tmp_path / "clean.duckdb", tmp_path / "killed.duckdb"
    shu(server, "ingest", "github", "--backfill", "--db", str(clean))
    total = len(server.requests)
    server.clear_requests()
    slow = server.fail("slow", delay=0.05, times=None)
    proc = shu(
        server,
        "ingest",
        "github",
        "--backfill",
        "--db",
        str(killed),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 900  # only a guard against a run that never gets there
    while len(server.requests) < total // 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    assert total // 2 <= len(server.requests) < total
    slow.times = 0
    with open_store(killed, read_only=True) as store:
        done = store.con.execute("SELECT count(*) FROM ingest_log").fetchall()[0][0]
    assert 0 < done < 12  # some steps committed, not all
    shu(server, "ingest", "github", "--backfill", "--db", str(killed))
    assert snapshot(killed) == snapshot(clean)


def test_git_and_docs_commands_are_idempotent(shared_dir, tmp_path, server):
    clone = tmp_path / "clone"
    clone.mkdir()
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "A",
        "GIT_AUTHOR_EMAIL": "a@example.com",
        "GIT_COMMITTER_NAME": "A",
        "GIT_COMMITTER_EMAIL": "a@example.com",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }
    for args in (
        ["init", "-q", "-b", "main"],
        ["commit", "-q", "--allow-empty", "-m", "one"],
        ["tag", "v0.1.0"],
        ["commit", "-q", "--allow-empty", "-m", "rocm: two"],
        ["tag", "-a", "v0.2.0", "-m", "second"],
    ):
        subprocess.run(["git", "-C", str(clone), *args], env=env, check=True)
    db = str(tmp_path / "shu.duckdb")
    first = shu(server, "ingest", "git", str(clone), "--repo", "acme/rocket", "--db", db)
    assert "2 commits read (2 new, 0 updated); 2 version tags (2 new, 0 updated)" in first
    again = shu(server, "ingest", "git", str(clone), "--repo", "acme/rocket", "--db", db)
    assert "2 commits read (0 new, 0 updated); 2 version tags (0 new, 0 updated)" in again
    seeds = [str(p) for p in sorted((shared_dir / "seeds").glob("00[1-4]*"))]
    docs = shu(server, "ingest", "docs", *seeds, "--db", db)
    assert "4 documents read: 4 new, 0 changed, 0 unchanged" in docs
    docs_again = shu(server, "ingest", "docs", *seeds, "--db", db)
    assert "4 documents read: 0 new, 0 changed, 4 unchanged; 0 passages written" in docs_again
