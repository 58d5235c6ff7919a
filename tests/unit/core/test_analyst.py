"""Analyst access is confined to the store: no file, URL, database or setting is reachable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from shu.analyst import connect_analyst, export_result, open_analyst, run_query
from shu.errors import InputError
from shu.store import open_store

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "store" / "shu.duckdb"
    with open_store(path) as store:
        store.con.execute(
            "INSERT INTO stars_daily (repo, day, stars, source) VALUES "
            "('a/b', DATE '2024-01-01', 5, 't'), ('a/b', DATE '2024-01-02', 7, 't')"
        )
    return path


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret.csv"
    path.write_text("token\nhunter2\n", encoding="utf-8")
    pq.write_table(pa.table({"token": ["hunter2"]}), tmp_path / "secret.parquet")
    return path


def _refused(db: Path, query: str) -> str:
    store, _ = open_analyst(db)
    with store, pytest.raises(InputError) as err:
        run_query(store.con, query)
    message = str(err.value)
    assert "\n" not in message
    assert "hunter2" not in message
    return message


@pytest.mark.parametrize(
    "template",
    [
        "select * from read_csv('{csv}', header=false)",
        "select * from '{csv}'",
        "select * from read_text('{csv}')",
        "select * from read_blob('{csv}')",
        "select * from read_parquet('{parquet}')",
        "select * from glob('{dir}/*')",
        "select * from sniff_csv('{csv}')",
        "select * from read_csv('https://example.com/x.csv')",
    ],
)
def test_reading_files_is_refused(db, secret, template):
    query = template.format(csv=secret, parquet=secret.with_suffix(".parquet"), dir=secret.parent)
    assert "refused" in _refused(db, query)


@pytest.mark.parametrize(
    "template",
    [
        "copy (select 42) to '{out}'",
        "copy stars_daily to '{out}' (format parquet)",
        "export database '{dir}'",
    ],
)
def test_writing_files_is_refused(db, tmp_path, template):
    out = tmp_path / "out.csv"
    assert "refused" in _refused(db, template.format(out=out, dir=tmp_path / "exported"))
    assert not out.exists() and not (tmp_path / "exported").exists()


@pytest.mark.parametrize(
    "query, says",
    [
        ("attach '{other}' as other", "refused"),
        ("install httpfs", "refused: INSTALL statements are not allowed"),
        ("force install httpfs", "refused: FORCE INSTALL statements are not allowed"),
        ("-- a comment first\n  load httpfs", "refused: LOAD statements are not allowed"),
        ("load '{other}'", "refused: LOAD statements are not allowed"),
        ("set enable_external_access = true", "SET statements are not allowed"),
        ("reset enable_external_access", "refused: RESET statements are not allowed"),
        ("truncate stars_daily", "refused: TRUNCATE statements are not allowed"),
        ("with x as (select 1) insert into stars_daily select * from x", "INSERT statements"),
        ("pragma enable_external_access = true", "refused"),
        ("pragma threads = 1", "refused"),
        ("select 1; copy (select 1) to '{other}'", "one statement per query, got 2"),
        ("select 1; select 2", "one statement per query, got 2"),
        ("delete from stars_daily", "DELETE statements are not allowed"),
        (
            "insert into stars_daily (repo, day, stars, source) "
            "values ('x/y', current_date, 1, 't')",
            "INSERT statements are not allowed",
        ),
        ("create temp table t as select 1", "CREATE statements are not allowed"),
        ("drop table stars_daily", "DROP statements are not allowed"),
        ("update stars_daily set stars = 0", "UPDATE statements are not allowed"),
        ("create secret s (type s3, key_id 'k', secret 's')", "CREATE statements are not allowed"),
    ],
)
def test_other_escapes_and_writes_are_refused(db, tmp_path, query, says):
    other = tmp_path / "other.duckdb"
    assert says in _refused(db, query.format(other=other))
    assert not other.exists()


def test_environment_is_not_readable(db, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "hunter2")
    for query in ("select getenv('GITHUB_TOKEN')", "select * from duckdb_secrets()"):
        store, _ = open_analyst(db)
        with store:
            try:
                result = run_query(store.con, query)
            except InputError as exc:
                assert "hunter2" not in str(exc)
                continue
        assert "hunter2" not in repr(result.rows())


def test_store_unchanged_and_reads_still_work(db):
    for query in ("delete from stars_daily", "update stars_daily set stars = 0"):
        _refused(db, query)
    store, note = open_analyst(db)
    with store:
        assert note is None
        assert run_query(store.con, "select sum(stars) from stars_daily").rows() == [(12,)]
        assert run_query(store.con, "pragma table_info('stars_daily')").table.num_rows > 3
        assert run_query(store.con, "describe stars_daily") is not None
        assert run_query(
            store.con, "with s as (from stars_daily) select count(*) from s"
        ).rows() == [(2,)]
        with pytest.raises(InputError) as bad:
            run_query(store.con, "select nope from stars_daily")
        assert str(bad.value).startswith("query failed:")


def test_connect_analyst_is_confined_and_locked(db, secret):
    con = connect_analyst(db)
    try:
        assert con.execute("select current_setting('enable_external_access')").fetchone() == (
            False,
        )
        with pytest.raises(Exception, match="disabled by configuration"):
            con.read_csv(str(secret))
        with pytest.raises(Exception, match="locked"):
            con.execute("SET enable_external_access = true")
    finally:
        con.close()


def test_exports_go_through_shu(db, tmp_path):
    store, _ = open_analyst(db)
    with store:
        result = run_query(store.con, "select repo, stars from stars_daily order by day")
    export_result(result, "csv", tmp_path / "x.csv")
    export_result(result, "json", tmp_path / "x.json")
    export_result(result, "parquet", tmp_path / "x.parquet")
    assert (tmp_path / "x.csv").read_text().splitlines() == ["repo,stars", "a/b,5", "a/b,7"]
    assert json.loads((tmp_path / "x.json").read_text()) == [
        {"repo": "a/b", "stars": 5},
        {"repo": "a/b", "stars": 7},
    ]
    assert pq.read_table(tmp_path / "x.parquet").to_pylist()[1] == {"repo": "a/b", "stars": 7}
    with pytest.raises(InputError, match="does not exist"):
        export_result(result, "csv", tmp_path / "missing" / "x.csv")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def _shu(db: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "SHU_DB": str(db), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "shu", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )


def test_cli_refuses_in_one_line_and_exports(db, tmp_path):
    hosts = Path("/etc/passwd")
    leak = _shu(db, "sql", f"select * from read_csv('{hosts}', header=false)")
    assert leak.returncode == 1 and "Traceback" not in leak.stderr
    assert leak.stderr.strip().count("\n") == 0 and "refused" in leak.stderr
    assert "root:" not in leak.stdout + leak.stderr
    made = tmp_path / "x.csv"
    copy = _shu(db, "sql", f"copy (select 42) to '{made}'")
    assert copy.returncode == 1 and not made.exists()
    out = tmp_path / "top.parquet"
    ok = _shu(
        db,
        "sql",
        "select repo, max(stars) as stars from stars_daily group by repo",
        "--parquet",
        str(out),
    )
    assert ok.returncode == 0, ok.stderr
    assert pq.read_table(out).to_pylist() == [{"repo": "a/b", "stars": 7}]
