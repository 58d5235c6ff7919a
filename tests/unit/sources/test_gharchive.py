"""GH Archive ingestion on generated hourly files in the real event schema (no network)."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from datetime import date, datetime
from pathlib import Path

import pytest
from support.gharchive_files import generate_days, hour_file, repo_names, write_hour

from shu.errors import InputError
from shu.settings import load_settings
from shu.signals.gharchive_fold import fold_into_stars_daily
from shu.sources.gharchive import ingest_gharchive, resolve_paths

DAY = date(2026, 1, 5)
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    """Two full days of hourly files (2,400 events/day over 40 repositories) and their truth."""
    out = tmp_path_factory.mktemp("gha")
    paths, truth = generate_days(out / "hours", DAY, days=2, events_per_day=2400, n_repos=40)
    return out / "hours", paths, truth


def _counts(store) -> dict[str, dict]:
    con = store.con
    return {
        "stars": dict(
            ((r, d), n)
            for r, d, n in con.execute(
                "SELECT repo, day, stars_added FROM stars_added_daily"
            ).fetchall()
        ),
        "pushes": dict(
            ((r, d), n)
            for r, d, n in con.execute(
                "SELECT repo, day, pushes FROM activity_daily WHERE pushes > 0"
            ).fetchall()
        ),
        "tags": dict(
            ((r, d), n)
            for r, d, n in con.execute(
                "SELECT repo, day, tags_created FROM activity_daily WHERE tags_created > 0"
            ).fetchall()
        ),
        "releases": dict(
            ((r, d), n)
            for r, d, n in con.execute(
                "SELECT repo, day, releases_published FROM activity_daily "
                "WHERE releases_published > 0"
            ).fetchall()
        ),
    }


def test_generated_files_use_the_real_schema(archive) -> None:
    _, paths, truth = archive
    with gzip.open(paths[0], "rt", encoding="utf-8") as fh:
        events = [json.loads(line) for line in fh]
    assert {"id", "type", "actor", "repo", "payload", "public", "created_at"} <= set(events[0])
    assert set(events[0]["repo"]) == {"id", "name", "url"}
    assert any("org" in e for e in events) and any("org" not in e for e in events)
    assert len({e["type"] for e in events}) >= 10
    assert any(ord(ch) > 127 for e in events for ch in json.dumps(e, ensure_ascii=False))
    assert truth.events == 4800 and sum(truth.stars.values()) > 0


def test_counts_match_the_events_and_reruns_change_nothing(store, archive) -> None:
    hours, _, truth = archive
    settings = load_settings(aliases={})
    first = ingest_gharchive(store, [hours], settings)
    assert (first.files_loaded, first.files_skipped, first.failed) == (48, 0, {})
    assert first.events == truth.events
    expected = {
        "stars": dict(truth.stars),
        "pushes": dict(truth.pushes),
        "tags": dict(truth.tags),
        "releases": dict(truth.releases),
    }
    assert _counts(store) == expected
    assert {
        tuple(r) for r in store.con.execute("SELECT repo, tag FROM tags_created").fetchall()
    } == truth.tag_names
    assert {
        tuple(r)
        for r in store.con.execute(
            "SELECT repo, tag FROM releases WHERE source = 'gharchive'"
        ).fetchall()
    } == truth.release_tags
    for _ in range(2):  # the same files again, also by a glob: nothing is counted twice
        again = ingest_gharchive(store, [hours, str(hours / "*.json.gz")], settings)
        assert (again.files_loaded, again.files_skipped) == (0, 48)
    assert _counts(store) == expected
    logged = store.con.execute(
        "SELECT count(*), sum(rows_read) FROM ingest_log "
        "WHERE source = 'gharchive' AND status = 'ok'"
    ).fetchone()
    assert logged == (48, 4800)


def test_corrupt_files_are_named_and_the_rest_load(store, tmp_path) -> None:
    repos = repo_names(10)
    good = write_hour(
        hour_file(tmp_path, datetime(2026, 2, 1, 0)), datetime(2026, 2, 1, 0), 300, repos, seed=1
    )
    write_hour(
        hour_file(tmp_path, datetime(2026, 2, 1, 1)),
        datetime(2026, 2, 1, 1),
        300,
        repos,
        seed=2,
        truncate=True,
    )
    bad_json = hour_file(tmp_path, datetime(2026, 2, 1, 2))
    bad_json.write_bytes(
        gzip.compress(
            b'{"id":"1","type":"WatchEvent","repo":{"name":"a/b"'
            b',"created_at":"2026-02-01T02:00:00Z"}\n{"id": oops\n'
        )
    )
    settings = load_settings(aliases={}, gharchive_batch_files=8)
    result = ingest_gharchive(store, [tmp_path], settings)
    assert set(result.failed) == {"2026-02-01-1.json.gz", "2026-02-01-2.json.gz"}
    assert "GZIP" in result.failed["2026-02-01-1.json.gz"]
    assert "2026-02-01-2.json.gz" in result.line()
    assert result.files_loaded == 1 and result.events == good.events
    assert _counts(store)["stars"] == dict(good.stars)
    failed = store.con.execute(
        "SELECT target FROM ingest_log WHERE status = 'failed' ORDER BY target"
    ).fetchall()
    assert [r[0] for r in failed] == ["2026-02-01-1.json.gz", "2026-02-01-2.json.gz"]
    # A repaired file loads on the next run; the good one is not counted twice.
    fixed = write_hour(
        hour_file(tmp_path, datetime(2026, 2, 1, 1)), datetime(2026, 2, 1, 1), 300, repos, seed=2
    )
    bad_json.unlink()
    again = ingest_gharchive(store, [tmp_path], settings)
    assert (again.files_loaded, again.files_skipped, again.failed) == (1, 1, {})
    total = dict(good.stars)
    for key, n in fixed.stars.items():
        total[key] = total.get(key, 0) + n
    assert _counts(store)["stars"] == total


def test_api_releases_win_and_aliases_fold(store, tmp_path) -> None:
    repos = ["old/name", "other/repo"]
    truth = write_hour(
        hour_file(tmp_path, datetime(2026, 3, 1, 5)), datetime(2026, 3, 1, 5), 2000, repos, seed=3
    )
    tag = sorted(t for r, t in truth.release_tags if r == "other/repo")[0]
    store.con.execute(
        "INSERT INTO releases (repo, tag, name, source) VALUES "
        "('other/repo', ?, 'from the API', 'github')",
        [tag],
    )
    ingest_gharchive(store, [tmp_path], load_settings(aliases={"old/name": "new/name"}))
    assert store.con.execute(
        "SELECT name, source FROM releases WHERE repo = 'other/repo' AND tag = ?", [tag]
    ).fetchone() == ("from the API", "github")
    names = {r[0] for r in store.con.execute("SELECT repo FROM stars_added_daily").fetchall()}
    assert names == {"new/name", "other/repo"}
    body = store.con.execute(
        "SELECT name FROM releases WHERE source = 'gharchive' LIMIT 1"
    ).fetchone()[0]
    assert "—" in body  # untrusted text kept as given, unicode intact


def test_missing_input_is_named() -> None:
    with pytest.raises(InputError, match="nowhere/2026"):
        resolve_paths(["nowhere/2026-*.json.gz"])


def test_fold_uses_anchors_and_never_bridges_a_hole(store, archive, tmp_path) -> None:
    hours, _, truth = archive
    ingest_gharchive(store, [hours], load_settings(aliases={}))
    # A third day with 23 of 24 hours loaded is not a covered day.
    for h in range(23):
        when = datetime(2026, 1, 7, h)
        write_hour(hour_file(tmp_path, when), when, 10, repo_names(40), seed=h)
    ingest_gharchive(store, [tmp_path], load_settings(aliases={}))
    repo = max(truth.stars, key=lambda r: truth.stars[r])[0]
    d1, d2 = DAY, date(2026, 1, 6)
    store.con.execute(
        "INSERT INTO stars_daily (repo, day, stars, source) VALUES (?, ?, 50000, 'ranking')",
        [repo, d2],
    )
    assert fold_into_stars_daily(store) == {"removed": 0, "written": 1}
    rows = store.con.execute(
        "SELECT day, stars, source FROM stars_daily WHERE repo = ? ORDER BY day", [repo]
    ).fetchall()
    assert rows == [(d1, 50000 - truth.stars[(repo, d2)], "gharchive"), (d2, 50000, "ranking")]
    assert fold_into_stars_daily(store) == {"removed": 1, "written": 1}
    # The ranking/API value wins: an observed row for d1 replaces the derived one.
    store.con.execute(
        "UPDATE stars_daily SET stars = 49000, source = 'ranking' WHERE day = ?", [d1]
    )
    assert fold_into_stars_daily(store)["written"] == 0


def test_trending_view(store) -> None:
    con = store.con
    con.execute("""INSERT INTO stars_added_daily
        SELECT 'hot/repo', DATE '2026-03-31' - i::INTEGER, CASE WHEN i < 28 THEN 60 ELSE 10 END,
               'gharchive'
        FROM range(56) t(i)""")
    con.execute("""INSERT INTO stars_added_daily
        SELECT 'small/repo', DATE '2026-03-31' - i::INTEGER, CASE WHEN i < 28 THEN 9 ELSE 1 END,
               'gharchive'
        FROM range(56) t(i)""")
    con.execute("""INSERT INTO stars_added_daily
        SELECT 'big/flat', DATE '2026-03-31' - i::INTEGER, 5, 'gharchive' FROM range(56) t(i)""")
    con.execute(
        "INSERT INTO stars_daily (repo, day, stars, source) VALUES "
        "('big/flat', DATE '2026-03-01', 90000, 'ranking'), "
        "('small/repo', DATE '2026-03-01', 300, 'github')"
    )
    rows = con.execute(
        "SELECT repo, as_of, stars_28d, stars_prev_28d, acceleration_28d, "
        "size_source, rank FROM gharchive_trending"
    ).fetchall()
    assert rows == [("hot/repo", date(2026, 3, 31), 1680, 280, 50.0, "gharchive-lower-bound", 1)]


def test_cli_names_the_bad_file_and_loads_the_rest(tmp_path) -> None:
    """As for a folder of ranking files: the bad file on stderr in one line, the others loaded,
    exit status 3 (a partial load)."""
    when = datetime(2026, 4, 1, 3)
    write_hour(hour_file(tmp_path, when), when, 50, repo_names(5), seed=4)
    bad = hour_file(tmp_path, datetime(2026, 4, 1, 4))
    write_hour(bad, datetime(2026, 4, 1, 4), 50, repo_names(5), seed=5, truncate=True)
    env = {**os.environ, "COLUMNS": "200", "SHU_DB": str(tmp_path / "s.duckdb")}
    proc = subprocess.run(
        [sys.executable, "-m", "shu", "ingest", "gharchive", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 3, proc.stderr
    assert "1 files loaded" in proc.stdout
    assert proc.stderr.startswith("failed: 2026-04-01-4.json.gz: ")
    assert len(proc.stderr.splitlines()) == 1, proc.stderr


def test_small_batches_and_write_sets_give_the_same_counts(store, archive) -> None:
    hours, _, truth = archive
    settings = load_settings(aliases={}, gharchive_batch_files=3, gharchive_files_per_write=7)
    seen: list[tuple[int, int]] = []
    result = ingest_gharchive(store, [hours], settings, progress=lambda d, t: seen.append((d, t)))
    assert result.files_loaded == 48 and seen[-1] == (48, 48)
    assert _counts(store)["stars"] == dict(truth.stars)
    assert _counts(store)["tags"] == dict(truth.tags)


def test_fold_between_two_anchors_meets_both(store, tmp_path) -> None:
    _, truth = generate_days(
        tmp_path / "h", date(2026, 7, 1), days=3, events_per_day=720, n_repos=4
    )
    ingest_gharchive(store, [tmp_path / "h"], load_settings(aliases={}))
    repo = max(truth.stars, key=lambda r: truth.stars[r])[0]
    d1, d2, d3 = (date(2026, 7, n) for n in (1, 2, 3))
    # The archive saw fewer stars than the anchors say (capture < 100%): the fold distributes
    # the observed change over the day in between, in proportion to the stars it saw.
    store.con.execute(
        "INSERT INTO stars_daily (repo, day, stars, source) VALUES "
        "(?, ?, 10000, 'ranking'), (?, ?, 11000, 'github')",
        [repo, d1, repo, d3],
    )
    assert fold_into_stars_daily(store)["written"] == 1
    seen2, seen3 = truth.stars[(repo, d2)], truth.stars[(repo, d3)]
    expected = round(10000 + 1000 * seen2 / (seen2 + seen3))
    assert (
        store.con.execute(
            "SELECT stars FROM stars_daily WHERE repo = ? AND day = ?", [repo, d2]
        ).fetchone()[0]
        == expected
    )
