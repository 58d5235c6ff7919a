"""`shu ingest git` on a clone made here: commits (with stats, mainline, topics), version
tags, idempotence, and clear errors."""

from __future__ import annotations

import hashlib
import os
import subprocess
from datetime import datetime
from pathlib import Path

import pytest

from shu.errors import InputError
from shu.settings import get_settings
from shu.sources.git import ingest_git


def git(
    repo: Path, *args: str, when: str = "2026-01-05T10:00:00+00:00", email: str = "Dev@Example.com"
) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": when,
        "GIT_COMMITTER_DATE": when,
        "GIT_AUTHOR_NAME": "Dev",
        "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": "Dev",
        "GIT_COMMITTER_EMAIL": email,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_SYSTEM": os.devnull,
    }
    done = subprocess.run(
        ["git", "-C", str(repo), *args], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """main: 3 commits + a merged side branch (2 commits); tags: v1.0.0 (lightweight),
    v1.1.0-rc1 (annotated), nightly (not a version)."""
    repo = tmp_path_factory.mktemp("clone") / "rocket"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("rocket\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "Initial commit\n\nlong body", when="2026-01-01T00:00:00Z")
    (repo / "src").mkdir()
    (repo / "src" / "kernel.py").write_text("a = 1\nb = 2\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "Add kernel", when="2026-01-02T00:00:00Z")
    git(repo, "tag", "v1.0.0")
    git(repo, "checkout", "-q", "-b", "side")
    (repo / "hip").mkdir()
    (repo / "hip" / "ops.cpp").write_text("int x;\n")
    git(repo, "add", ".")
    git(
        repo,
        "commit",
        "-q",
        "-m",
        "Port ops",
        when="2026-01-03T00:00:00Z",
        email="dependabot[bot]@users.noreply.github.com",
    )
    (repo / "src" / "kernel.py").write_text("a = 1\n")
    git(repo, "commit", "-qam", "Trim kernel", when="2026-01-04T00:00:00Z")
    git(repo, "checkout", "-q", "main")
    (repo / "NOTES.txt").write_text("notes\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "Add notes", when="2026-01-03T12:00:00Z")
    git(
        repo,
        "merge",
        "-q",
        "--no-ff",
        "side",
        "-m",
        "Merge branch 'side'",
        when="2026-01-05T00:00:00Z",
    )
    git(
        repo,
        "tag",
        "-a",
        "v1.1.0-rc1",
        "-m",
        "Release candidate\n\nFixes things.",
        when="2026-01-06T00:00:00Z",
    )
    git(repo, "tag", "nightly")
    return repo


def test_commits_and_tags_loaded(store, clone):
    result = ingest_git(store, clone, "acme/rocket", settings=get_settings())
    assert (result.commits_read, result.tags_read) == (6, 2)
    assert (result.commits.inserted, result.releases.inserted) == (6, 2)
    rows = {
        r[0]: r[1:]
        for r in store.con.execute(
            "SELECT subject, parents, is_mainline, files_changed, insertions, deletions, "
            "touches_rocm, author_is_bot, author_id, committed_at, source FROM commits "
            "ORDER BY committed_at"
        ).fetchall()
    }
    dev = hashlib.sha1(b"dev@example.com").hexdigest()[:12]
    assert rows["Initial commit"] == (
        0,
        True,
        1,
        1,
        0,
        False,
        False,
        dev,
        datetime(2026, 1, 1),
        "git",
    )
    assert rows["Add kernel"][:5] == (1, True, 1, 2, 0)
    assert rows["Port ops"][1:7] == (False, 1, 1, 0, True, True)  # hip/ path, bot author
    assert rows["Trim kernel"][1:5] == (False, 1, 0, 1)
    # the merge's stats are against its first parent: everything the side branch brought
    assert rows["Merge branch 'side'"][:7] == (2, True, 2, 1, 1, True, False)
    topics = store.con.execute("SELECT topics FROM commits WHERE subject = 'Port ops'").fetchall()[
        0
    ][0]
    assert topics == ["rocm-adoption"]
    tags = store.con.execute(
        "SELECT tag, name, published_at, is_prerelease, body, source FROM releases ORDER BY tag"
    ).fetchall()
    assert tags == [
        ("v1.0.0", "v1.0.0", datetime(2026, 1, 2), False, None, "git"),
        (
            "v1.1.0-rc1",
            "v1.1.0-rc1",
            datetime(2026, 1, 6),
            True,
            "Release candidate\n\nFixes things.",
            "git",
        ),
    ]
    assert store.con.execute("SELECT repo, default_branch FROM repos").fetchall() == [
        ("acme/rocket", "main")
    ]
    emails = store.con.execute(
        "SELECT count(*) FROM commits WHERE author_id LIKE '%@%'"
    ).fetchall()[0][0]
    assert emails == 0


def test_reingest_is_idempotent_and_api_releases_win(store, clone):
    ingest_git(store, clone, "acme/rocket", settings=get_settings())
    store.con.execute(
        "UPDATE releases SET source = 'github', body = 'from the API' WHERE tag = 'v1.0.0'"
    )
    again = ingest_git(store, clone, "acme/rocket", settings=get_settings())
    assert again.commits.inserted == again.commits.updated == 0
    assert again.releases.inserted == again.releases.updated == 0
    assert store.con.execute("SELECT body FROM releases WHERE tag = 'v1.0.0'").fetchall() == [
        ("from the API",)
    ]
    logs = store.con.execute(
        "SELECT source, status, rows_inserted FROM ingest_log ORDER BY started_at"
    ).fetchall()
    assert logs == [("git", "ok", 8), ("git", "ok", 0)]  # 6 commits + 2 tags


def test_git_rows_replace_thinner_api_rows(store, clone):
    sha = git(clone, "rev-parse", "HEAD")
    store.con.execute(
        "INSERT INTO commits (repo, sha, subject, source) VALUES "
        "('acme/rocket', ?, 'Merge branch ''side''', 'github')",
        [sha],
    )
    result = ingest_git(store, clone, "acme/rocket", settings=get_settings())
    assert (result.commits.inserted, result.commits.updated) == (5, 1)
    assert store.con.execute(
        "SELECT files_changed, source FROM commits WHERE sha = ?", [sha]
    ).fetchall() == [(2, "git")]


def test_errors_name_the_path(store, tmp_path):
    with pytest.raises(InputError, match="no such directory"):
        ingest_git(store, tmp_path / "missing", "acme/rocket", settings=get_settings())
    with pytest.raises(InputError, match="not a git repository"):
        ingest_git(store, tmp_path, "acme/rocket", settings=get_settings())
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q")
    with pytest.raises(InputError, match="has no commits"):
        ingest_git(store, empty, "acme/rocket", settings=get_settings())
    with pytest.raises(InputError, match="expected 'owner/name'"):
        ingest_git(store, empty, "rocket", settings=get_settings())
    assert store.con.execute("SELECT count(*) FROM commits").fetchall() == [(0,)]
