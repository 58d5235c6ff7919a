"""The store: migrations on a fresh and a re-opened file, upserts, transactions, ingest log."""

from __future__ import annotations

from datetime import date, datetime

import duckdb
import pandas as pd
import pytest
from support.signal_data import insert_commits, synthetic_commits

from shu.errors import StoreError
from shu.schema import ALL_TABLES
from shu.settings import get_settings
from shu.signals import refresh_signals
from shu.store import MIGRATIONS, open_store

# commit_signals as stores created before migration 7 hold it (the schema as of migration 6).
_COMMIT_SIGNALS_BEFORE_7 = """
CREATE TABLE commit_signals (
  repo VARCHAR NOT NULL, day DATE NOT NULL, commits BIGINT, commits_day BIGINT,
  velocity_7d DOUBLE, velocity_28d DOUBLE, acceleration_7d DOUBLE, acceleration_28d DOUBLE,
  velocity_7d_z DOUBLE, velocity_28d_z DOUBLE, rocm_commits_28d BIGINT, rocm_share_28d DOUBLE,
  gap BOOLEAN, PRIMARY KEY (repo, day))
"""


def _rows(stars: list[int]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "repo": "a/b",
            "day": [date(2024, 1, d + 1) for d in range(len(stars))],
            "stars": stars,
            "source": "test",
        }
    )


def test_fresh_store_has_every_declared_table_and_column(store):
    for table in ALL_TABLES:
        cols = [
            r[0]
            for r in store.con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                "ORDER BY ordinal_position",
                [table.name],
            ).fetchall()
        ]
        assert cols == table.column_names, table.name
    versions = [v for v, _, _ in store.migrations()]
    assert versions == [m[0] for m in MIGRATIONS]


def test_reopen_applies_nothing_and_keeps_data(store_path):
    with open_store(store_path) as s:
        s.upsert("stars_daily", _rows([1, 2]))
        first = s.migrations()
    with open_store(store_path) as s:
        assert s.migrate() == []
        assert s.migrations() == first
        assert s.con.execute("SELECT count(*) FROM stars_daily").fetchone()[0] == 2


def test_missing_declared_column_is_added_and_recorded(store_path):
    with open_store(store_path) as s:
        s.con.execute("ALTER TABLE stars_daily DROP COLUMN watchers")
    with open_store(store_path) as s:
        assert "watchers" in [
            d[0] for d in s.con.execute("SELECT * FROM stars_daily LIMIT 0").description
        ]
        assert any("stars_daily.watchers" in name for _, name, _ in s.migrations())


def test_store_before_commit_velocity_names_migrates_keeping_every_value(store_path):
    with open_store(store_path) as s:
        insert_commits(s, synthetic_commits())
        refresh_signals(s, settings=get_settings())
        computed = s.con.execute("SELECT * FROM commit_signals ORDER BY repo, day").df()
        s.con.execute("DROP TABLE commit_signals")
        s.con.execute(_COMMIT_SIGNALS_BEFORE_7)
        s.con.register("computed", computed)
        s.con.execute("INSERT INTO commit_signals SELECT * FROM computed")  # by position
        s.con.execute("DELETE FROM _shu_migrations WHERE version >= 7")
    with open_store(store_path) as s:
        assert 7 in [v for v, _, _ in s.migrations()]
        migrated = s.con.execute("SELECT * FROM commit_signals ORDER BY repo, day").df()
        assert "velocity_28d" not in migrated.columns
        pd.testing.assert_frame_equal(migrated, computed)
        again = refresh_signals(s, settings=get_settings())["commit_signals"]
        assert again["rows"] == len(computed)
        recomputed = s.con.execute("SELECT * FROM commit_signals ORDER BY repo, day").df()
        pd.testing.assert_frame_equal(recomputed, computed)


def test_store_before_repo_aliases_source_migrates_keeping_its_aliases(store_path):
    with open_store(store_path) as s:
        s.con.execute("DROP TABLE repo_aliases")
        s.con.execute(  # as created before migration 8
            "CREATE TABLE repo_aliases (alias VARCHAR NOT NULL, repo VARCHAR, origin VARCHAR, "
            "recorded_at TIMESTAMP, PRIMARY KEY (alias))"
        )
        s.con.execute(
            "INSERT INTO repo_aliases VALUES ('old/name', 'new/name', 'github-301', "
            "TIMESTAMP '2026-01-02 03:04:05')"
        )
        s.con.execute("DELETE FROM _shu_migrations WHERE version >= 8")
    with open_store(store_path) as s:
        assert 8 in [v for v, _, _ in s.migrations()]
        assert s.con.execute("SELECT * FROM repo_aliases").fetchall() == [
            ("old/name", "new/name", "github-301", datetime(2026, 1, 2, 3, 4, 5))
        ]
        assert [d[0] for d in s.con.execute("SELECT * FROM repo_aliases").description] == [
            "alias",
            "repo",
            "source",
            "recorded_at",
        ]


def test_upsert_counts_inserts_updates_and_is_idempotent(store):
    assert (store.upsert("stars_daily", _rows([1, 2])).inserted, 2) == (2, 2)
    again = store.upsert("stars_daily", _rows([1, 2]))
    assert (again.inserted, again.updated) == (0, 0)
    changed = store.upsert("stars_daily", _rows([1, 5, 7]))
    assert (changed.inserted, changed.updated) == (1, 1)
    assert store.con.execute("SELECT list(stars ORDER BY day) FROM stars_daily").fetchone()[0] == [
        1,
        5,
        7,
    ]


def test_scoped_upsert_keeps_a_key_unique_without_an_index(store):
    """stars_daily's key has no index: the upsert inserts only keys not stored, so the key
    stays unique; `scope` narrows the comparison to the stored rows the input can match."""
    store.upsert("stars_daily", _rows([1, 2]))
    other = _rows([3]).assign(repo="c/d")
    store.upsert("stars_daily", other)
    again = store.upsert("stars_daily", _rows([1, 4, 6]), scope="repo = 'a/b'")
    assert (again.inserted, again.updated) == (1, 1)
    assert store.duplicate_keys("stars_daily") == 0
    assert store.con.execute(
        "SELECT repo, list(stars ORDER BY day) FROM stars_daily GROUP BY repo ORDER BY repo"
    ).fetchall() == [("a/b", [1, 4, 6]), ("c/d", [3])]
    store.con.execute(
        "INSERT INTO stars_daily (repo, day, stars) VALUES ('c/d', ?, 9)", [date(2024, 1, 1)]
    )  # what the check exists to catch
    assert store.duplicate_keys("stars_daily") == 1


def test_log_loads_writes_every_row_across_its_chunks(store):
    from shu.store import Load

    loads = [Load(source="test", target=f"file-{i}", rows_read=i) for i in range(1203)]
    store.log_loads(loads)
    assert store.con.execute("SELECT count(*), sum(rows_read) FROM ingest_log").fetchone() == (
        1203,
        sum(range(1203)),
    )


def test_upsert_refuses_duplicate_keys_and_unknown_columns(store):
    dup = pd.concat([_rows([1]), _rows([2])])
    with pytest.raises(StoreError, match="duplicate key"):
        store.upsert("stars_daily", dup)
    with pytest.raises(StoreError, match="must include the key"):
        store.upsert("stars_daily", _rows([1]).assign(bogus=1))
    assert store.con.execute("SELECT count(*) FROM stars_daily").fetchone()[0] == 0


def test_failed_load_rolls_back_data_and_logs_failure(store):
    store.upsert("stars_daily", _rows([1]))
    with pytest.raises(RuntimeError), store.load("test", "x") as load:
        load.add(store.upsert("stars_daily", _rows([9, 9, 9])))
        raise RuntimeError("boom")
    assert store.con.execute("SELECT list(stars) FROM stars_daily").fetchone()[0] == [1]
    status, message = store.con.execute("SELECT status, message FROM ingest_log").fetchone()
    assert (status, message) == ("failed", "boom")


def test_read_only_store_refuses_writes_and_missing_file(store_path, tmp_path):
    open_store(store_path).close()
    with open_store(store_path, read_only=True) as s, pytest.raises(duckdb.Error):
        s.con.execute("DELETE FROM stars_daily")
    with pytest.raises(StoreError, match="no store at"):
        open_store(tmp_path / "absent.duckdb", read_only=True)


def test_a_missing_store_is_named_by_its_absolute_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(StoreError, match=f"^no store at {tmp_path}/data/absent.duckdb: "):
        open_store("data/absent.duckdb", read_only=True)
