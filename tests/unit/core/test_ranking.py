"""The ranking importer on the real raw sample, the real long table, and hand-made bad files."""

from __future__ import annotations

import gzip
import shutil
from datetime import date
from pathlib import Path

import pytest

from shu.errors import InputError
from shu.settings import get_settings, load_settings
from shu.sources import ranking
from shu.sources.ranking import RAW_COLUMNS, import_ranking
from shu.store import open_store

HEADER = ",".join(RAW_COLUMNS)


def _daily(tmp_path: Path, day: str, *rows: str) -> Path:
    path = tmp_path / f"github-ranking-{day}.csv"
    path.write_text(HEADER + "\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def _row(
    owner: str,
    name: str,
    stars: str,
    forks: str = "10",
    issues: str = "3",
    item: str = "top-100-stars",
    desc: str = "plain",
) -> str:
    return (
        f"1,{item},{name},{stars},{forks},Python,https://github.com/{owner}/{name},{owner},"
        f"{issues},2024-01-01T00:00:00Z,{desc}"
    )


def _snapshot(store) -> list[tuple]:
    return store.con.execute("SELECT * FROM stars_daily ORDER BY repo, day").fetchall()


def test_raw_sample_dedupes_lists_and_folds_the_ollama_rename(store, shared_dir):
    load = import_ranking(store, shared_dir / "data/stars/raw-sample", settings=get_settings())
    assert load.rows_read == 27000
    assert load.rows_rejected == 0
    distinct = store.con.execute("SELECT count(*) FROM stars_daily").fetchone()[0]
    assert load.rows_inserted == distinct < load.rows_read
    assert "merged" in load.message
    ollama = store.con.execute(
        "SELECT day::VARCHAR, stars FROM stars_daily WHERE repo = 'ollama/ollama' ORDER BY day"
    ).fetchall()
    assert ollama[:2] == [("2024-01-23", 32304), ("2024-01-24", 32457)]
    assert (
        store.con.execute(
            "SELECT count(*) FROM stars_daily WHERE repo ILIKE 'jmorganca/%'"
        ).fetchone()[0]
        == 0
    )
    again = import_ranking(store, shared_dir / "data/stars/raw-sample", settings=get_settings())
    assert (again.rows_inserted, again.rows_updated) == (0, 0)


def test_files_staged_in_small_batches_load_what_one_batch_loads(
    store, shared_dir, tmp_path, monkeypatch
):
    """Streaming the daily files (a batch of BATCH_ROWS rows at a time) changes nothing: the
    counts, the renamed spellings folded and the newest description of each repository are
    those of the whole directory staged at once."""
    sample = shared_dir / "data/stars/raw-sample"
    whole = import_ranking(store, sample, settings=get_settings())
    monkeypatch.setattr(ranking, "BATCH_ROWS", 1000)  # each file (3,000 rows): its own batch
    with open_store(tmp_path / "batched.duckdb") as batched:
        streamed = import_ranking(batched, sample, settings=get_settings())
        assert (streamed.rows_read, streamed.rows_inserted) == (
            whole.rows_read,
            whole.rows_inserted,
        )
        assert _snapshot(batched) == _snapshot(store)
        about = "SELECT repo, description, language, described_on FROM repos ORDER BY repo"
        assert batched.con.execute(about).fetchall() == store.con.execute(about).fetchall()
        long = tmp_path / "long.csv"
        long.write_text(
            "day,repo,stars\n" + "".join(f"2024-01-{d:02d},a/b,{d}\n" for d in range(1, 29)),
            encoding="utf-8",
        )
        monkeypatch.setattr(ranking, "BATCH_ROWS", 5)
        assert import_ranking(batched, long, settings=get_settings()).rows_inserted == 28


def test_quoted_commas_emoji_and_missing_fields(store, tmp_path):
    path = _daily(
        tmp_path,
        "2024-02-01",
        _row("a", "x", "100", desc='"commas, ""quotes"" and 😎 emoji"'),
        _row("b", "y", "50", forks="", issues=""),
        _row("c", "z", ""),
        _row("a", "x", "100", item="Python"),
    )
    load = import_ranking(store, path, settings=get_settings())
    assert (load.rows_read, load.rows_inserted, load.rows_rejected) == (4, 2, 1)
    assert "1 rows without a star count" in load.message
    assert _snapshot(store) == [
        ("a/x", *_d("2024-02-01"), 100, 10, 3, None, None, "ranking"),
        ("b/y", *_d("2024-02-01"), 50, None, None, None, None, "ranking"),
    ]


def _d(s: str) -> tuple:
    from datetime import date

    return (date.fromisoformat(s),)


def test_case_variants_fold_into_the_latest_spelling_across_loads(store, tmp_path):
    import_ranking(
        store, _daily(tmp_path, "2024-02-01", _row("Old", "Repo", "1")), settings=get_settings()
    )
    import_ranking(
        store, _daily(tmp_path, "2024-02-02", _row("old", "repo", "2")), settings=get_settings()
    )
    assert store.con.execute("SELECT DISTINCT repo FROM stars_daily").fetchall() == [("old/repo",)]
    assert store.con.execute("SELECT count(*) FROM stars_daily").fetchone()[0] == 2


def test_configured_alias_folds_rows_stored_earlier(store, tmp_path):
    import_ranking(
        store, _daily(tmp_path, "2024-02-01", _row("old", "name", "1")), load_settings(aliases={})
    )
    import_ranking(
        store,
        _daily(tmp_path, "2024-02-02", _row("new", "name", "2")),
        load_settings(aliases={"old/name": "new/name"}),
    )
    assert store.con.execute("SELECT repo, count(*) FROM stars_daily GROUP BY 1").fetchall() == [
        ("new/name", 2)
    ]


@pytest.mark.parametrize(
    "content, message",
    [
        ("rank,item,name\n1,x,y\n", "line 1: unexpected columns"),
        (HEADER + "\n" + _row("a", "x", "12k") + "\n", "line 2: stars '12k' is not a whole number"),
        (
            HEADER + "\n" + _row("a", "x", "5") + "\n" + _row("b", "y", "7")[:40] + "\n",
            "line 3: expected 11 fields, got",
        ),
        (
            HEADER
            + "\n"
            + _row("a", "x", "5")
            + "\n"
            + "1,top,q,5,6,Py,https://github.com/q/q,q,1,"
            '2024-01-01,"unterminated',
            "line 3",
        ),
        ("", "empty file"),
    ],
)
def test_corrupt_daily_file_names_file_and_line_and_changes_nothing(
    store, tmp_path, content, message
):
    import_ranking(
        store, _daily(tmp_path, "2024-01-31", _row("keep", "me", "1")), settings=get_settings()
    )
    before = _snapshot(store)
    bad = tmp_path / "bad"
    bad.mkdir()
    path = bad / "github-ranking-2024-02-01.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as err:
        import_ranking(store, path, settings=get_settings())
    assert str(path) in str(err.value) and message in str(err.value)
    assert "\n" not in str(err.value)
    assert _snapshot(store) == before
    assert (
        store.con.execute(
            "SELECT status FROM ingest_log ORDER BY started_at DESC LIMIT 1"
        ).fetchone()[0]
        == "failed"
    )


def test_directory_with_one_bad_file_loads_the_others_and_logs_it(store, tmp_path):
    _daily(tmp_path, "2024-02-01", _row("a", "x", "1"))
    _daily(tmp_path, "2024-02-02", _row("a", "x", "2") + "\n" + _row("b", "y", "two"))
    _daily(tmp_path, "2024-02-03", _row("a", "x", "3"))
    load = import_ranking(store, tmp_path, settings=get_settings())
    bad = tmp_path / "github-ranking-2024-02-02.csv"
    assert list(load.failed_files) == [bad] and "line 3" in load.failed_files[bad]
    assert "1 malformed file(s) left out" in load.message
    # the bad file is left out whole (not even its good first row), the others load
    assert [r[1] for r in _snapshot(store)] == [date(2024, 2, 1), date(2024, 2, 3)]
    assert store.con.execute(
        "SELECT target, status FROM ingest_log ORDER BY status"
    ).fetchall() == [(str(bad), "failed"), (str(tmp_path), "ok")]
    assert (
        import_ranking(store, tmp_path, settings=get_settings()).rows_inserted == 0
    )  # a re-run changes nothing


def test_directory_of_only_bad_files_loads_nothing(store, tmp_path):
    _daily(tmp_path, "2024-02-02", _row("a", "x", "two"))
    with pytest.raises(
        InputError, match="every file is malformed; first: .*2024-02-02.csv: line 2"
    ):
        import_ranking(store, tmp_path, settings=get_settings())
    assert _snapshot(store) == []


def test_long_csv_and_gzip(store, tmp_path):
    path = tmp_path / "long.csv"
    path.write_text(
        "day,repo,stars,forks\n2024-01-01,a/b,5,1\n2024-01-02,a/b,7,\n", encoding="utf-8"
    )
    assert import_ranking(store, path, settings=get_settings()).rows_inserted == 2
    gz = tmp_path / "long.csv.gz"
    with path.open("rb") as src, gzip.open(gz, "wb") as dst:
        shutil.copyfileobj(src, dst)
    again = import_ranking(store, gz, settings=get_settings())
    assert (again.rows_inserted, again.rows_updated) == (0, 0)


def test_long_csv_wrong_columns_and_bad_day(store, tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("date,name,count\n2024-01-01,a/b,5\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"long.csv: line 1: missing column\(s\)"):
        import_ranking(store, path, settings=get_settings())
    path.write_text("day,repo,stars\nyesterday,a/b,5\n", encoding="utf-8")
    with pytest.raises(InputError, match="long.csv: line 2: day 'yesterday' is not a date"):
        import_ranking(store, path, settings=get_settings())


def test_parquet_wrong_columns_and_unreadable(store, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"day": ["2024-01-01"], "repo": ["a/b"]}), path)
    with pytest.raises(InputError, match=r"t.parquet: missing column\(s\) \['stars'\]"):
        import_ranking(store, path, settings=get_settings())
    path.write_bytes(b"PAR1 not really")
    with pytest.raises(InputError, match="not a readable Parquet file"):
        import_ranking(store, path, settings=get_settings())
    pq.write_table(pa.table({"day": ["2024-01-01"], "repo": ["a/b"], "stars": ["many"]}), path)
    with pytest.raises(InputError, match="row 1: .*not a date / a whole number"):
        import_ranking(store, path, settings=get_settings())


@pytest.mark.slow
def test_full_real_table(store, shared_dir):
    load = import_ranking(
        store, shared_dir / "data/stars/stars_daily.parquet", settings=get_settings()
    )
    assert (load.rows_read, load.rows_inserted, load.rows_rejected) == (7223950, 7223950, 0)
    counts = dict(
        store.con.execute(
            "SELECT repo, count(*) FROM stars_daily WHERE repo IN "
            "('pytorch/pytorch', 'tensorflow/tensorflow', 'ollama/ollama') GROUP BY 1"
        ).fetchall()
    )
    assert counts == {"pytorch/pytorch": 2324, "tensorflow/tensorflow": 2347, "ollama/ollama": 697}


def test_first_load_keeps_the_declared_table_and_key_unique_without_an_index(store, tmp_path):
    from shu.store import open_store

    before = store.con.execute("DESCRIBE stars_daily").fetchall()
    import_ranking(
        store,
        _daily(tmp_path, "2024-02-01", _row("a", "x", "1"), _row("b", "y", "2")),
        settings=get_settings(),
    )
    assert store.con.execute("DESCRIBE stars_daily").fetchall() == before
    # Declared key_indexed=False: no index to build or persist; unique by construction.
    assert (
        store.con.execute(
            "SELECT count(*) FROM duckdb_constraints() WHERE table_name = 'stars_daily' AND "
            "constraint_type = 'PRIMARY KEY'"
        ).fetchone()[0]
        == 0
    )
    again = import_ranking(
        store,
        _daily(tmp_path, "2024-02-02", _row("a", "x", "3"), _row("b", "y", "2")),
        settings=get_settings(),
    )
    assert (again.rows_inserted, again.rows_updated) == (2, 0)
    overlap = tmp_path / "long.csv"
    overlap.write_text(
        "day,repo,stars,forks,open_issues\n2024-02-01,a/x,1,10,3\n"
        "2024-02-01,b/y,5,10,3\n2024-02-02,A/X,3,10,3\n2024-02-03,c/z,1,,\n",
        encoding="utf-8",
    )
    third = import_ranking(store, overlap, settings=get_settings())
    assert (third.rows_inserted, third.rows_updated) == (1, 1)  # c/z new; b/y's count changed
    assert store.duplicate_keys("stars_daily") == 0
    assert store.con.execute("SELECT count(*) FROM stars_daily").fetchone()[0] == 5
    store.close()
    reopened = open_store(store.path)  # migrations see the declared table: nothing to change
    assert not [m for m in reopened.migrations() if "stars_daily" in m[1] and m[0] > 1000]
    reopened.close()


def test_reload_writes_only_repositories_whose_rows_differ(store, tmp_path):
    path = tmp_path / "long.csv"
    path.write_text(
        "day,repo,stars,forks\n2024-01-01,a/b,5,1\n2024-01-02,a/b,7,1\n2024-01-01,c/d,9,\n",
        encoding="utf-8",
    )
    import_ranking(store, path, settings=get_settings())
    # Another source's row on a day the file has: the file's ranking count replaces it.
    store.upsert(
        "stars_daily",
        store.con.sql(
            "SELECT 'c/d' AS repo, DATE '2024-01-01' AS day, 8::BIGINT AS stars, 'github' AS source"
        ),
    )
    # Another source's row on a day the file lacks: left alone, and no reason to compare a/b.
    store.upsert(
        "stars_daily",
        store.con.sql(
            "SELECT 'a/b' AS repo, DATE '2024-01-03' AS day, 8::BIGINT AS stars, 'github' AS source"
        ),
    )
    again = import_ranking(store, path, settings=get_settings())
    assert (again.rows_inserted, again.rows_updated) == (0, 1)
    assert _snapshot(store)[-1][2:] == (9, None, None, None, None, "ranking")
    path.write_text(
        "day,repo,stars,forks\n2024-01-01,a/b,5,2\n2024-01-02,a/b,7,1\n2024-01-01,c/d,9,\n",
        encoding="utf-8",
    )
    changed = import_ranking(
        store, path, settings=get_settings()
    )  # one fork count changed: one row updated
    assert (changed.rows_inserted, changed.rows_updated) == (0, 1)
    assert (
        store.con.execute(
            "SELECT forks FROM stars_daily WHERE repo = 'a/b' AND day = '2024-01-01'"
        ).fetchone()[0]
        == 2
    )
    once_more = import_ranking(store, path, settings=get_settings())
    assert (once_more.rows_inserted, once_more.rows_updated) == (0, 0)


def test_parquet_with_typed_columns_counts_rejects_and_folds_case(store, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "t.parquet"
    pq.write_table(
        pa.table(
            {
                "day": pa.array(
                    [
                        date(2024, 1, 1),
                        date(2024, 1, 2),
                        date(2024, 1, 2),
                        None,
                        date(2024, 1, 3),
                        date(2024, 1, 3),
                    ],
                    pa.date32(),
                ),
                "repo": ["Own/Repo", "own/repo", "own/repo", "a/b", "a/b", None],
                "stars": pa.array([1, 2, 3, 4, None, 6], pa.int32()),
                "forks": pa.array([0, 5, 4, 0, 0, -1], pa.int32()),
            }
        ),
        path,
    )
    load = import_ranking(store, path, settings=get_settings())
    assert (load.rows_read, load.rows_inserted, load.rows_rejected) == (6, 2, 3)
    assert "rejected 1 rows without a day" in load.message
    assert "merged 1 repeated rows (1 repo-days with differing counts" in load.message
    assert _snapshot(store) == [
        ("own/repo", *_d("2024-01-01"), 1, 0, None, None, None, "ranking"),
        ("own/repo", *_d("2024-01-02"), 3, 5, None, None, None, "ranking"),
    ]
    assert (
        import_ranking(store, path, settings=get_settings()).rows_updated,
        store.duplicate_keys("stars_daily"),
    ) == (0, 0)


def test_a_store_made_with_the_key_index_loses_it_in_a_migration(store_path):
    import duckdb

    from shu.schema import TABLES_BY_NAME
    from shu.store import open_store

    decl = TABLES_BY_NAME["stars_daily"]
    keyed = decl.ddl().replace(
        '"source" VARCHAR', '"source" VARCHAR,\n  PRIMARY KEY ("repo", "day")'
    )
    con = duckdb.connect(str(store_path))  # what migration 1 made before key_indexed=False
    con.execute(
        "CREATE TABLE _shu_migrations (version INTEGER PRIMARY KEY, name VARCHAR NOT "
        "NULL, applied_at TIMESTAMP NOT NULL)"
    )
    con.execute("INSERT INTO _shu_migrations VALUES (1, 'initial schema', now())")
    con.execute(keyed)
    con.execute("INSERT INTO stars_daily (repo, day, stars) VALUES ('a/b', '2024-01-01', 5)")
    con.close()
    with open_store(store_path) as store:
        assert 3 in [m[0] for m in store.migrations()]
        assert (
            store.con.execute(
                "SELECT count(*) FROM duckdb_constraints() WHERE table_name = 'stars_daily' AND "
                "constraint_type = 'PRIMARY KEY'"
            ).fetchone()[0]
            == 0
        )
        assert store.con.execute("SELECT repo, stars FROM stars_daily").fetchall() == [("a/b", 5)]
        assert [
            r[0] for r in store.con.execute("DESCRIBE stars_daily").fetchall()
        ] == decl.column_names


def test_daily_flow_loads_the_days_ranking_file(store_path, tmp_path):
    """`ranking_files` with '{day}': the day's file loads, a missing or malformed one is named
    in one line and the others still load."""
    from shu.flows.ingest import ranking

    folder = tmp_path / "daily"
    folder.mkdir()
    _daily(folder, "2024-03-01", _row("a", "b", "50"), _row("c", "d", "70"))
    (folder / "broken-2024-03-01.csv").write_text(HEADER + "\n1,x,y\n", encoding="utf-8")
    settings = load_settings(
        repos=[],
        ranking_files=[str(folder / "github-ranking-{day}.csv"), str(folder / "broken-{day}.csv")],
    )
    ok, message = ranking(store_path, settings, date(2024, 3, 1))
    assert not ok and message.count("ranking: ") == 2 and "\n" not in message
    assert f"2 new and 0 updated counts from {folder}/github-ranking-2024-03-01.csv" in message
    assert "broken-2024-03-01.csv" in message
    ok, message = ranking(store_path, settings, date(2024, 3, 2))
    assert not ok and f"no file for 2024-03-02 at {folder}/github-ranking-2024-03-02.csv" in message
    from shu.store import open_store

    with open_store(store_path, read_only=True) as s:
        assert s.con.execute("SELECT count(*) FROM stars_daily").fetchone()[0] == 2


def _about(store, repo: str) -> tuple | None:
    row = store.con.execute(
        "SELECT description, language, described_on::VARCHAR, is_tracked FROM repos WHERE repo = ?",
        [repo],
    ).fetchone()
    return None if row is None else tuple(row)


def test_descriptions_with_commas_quotes_and_emoji_are_kept(store, tmp_path):
    tricky = 'LLM app platform, "agentic" workflows 🚀, RAG & more'
    quoted = '"' + tricky.replace('"', '""') + '"'
    _daily(
        tmp_path,
        "2024-01-02",
        _row("langgenius", "dify", "100", desc=quoted),
        _row("langgenius", "dify", "100", item="top-100-forks", desc=quoted),  # a second list
        _row("someone", "plain", "50", desc=""),
    )
    first = import_ranking(store, tmp_path, settings=get_settings())
    assert _about(store, "langgenius/dify") == (tricky, "Python", "2024-01-02", False)
    assert _about(store, "someone/plain") == (None, "Python", "2024-01-02", False)
    assert "descriptions of 2 repositories" in first.message
    before = store.con.execute("SELECT * FROM repos ORDER BY repo").fetchall()
    again = import_ranking(store, tmp_path, settings=get_settings())  # a re-run changes nothing
    assert "descriptions of" not in again.message
    assert store.con.execute("SELECT * FROM repos ORDER BY repo").fetchall() == before


def test_newest_description_wins_and_empty_never_erases(store, tmp_path):
    new, old = tmp_path / "new", tmp_path / "old"
    new.mkdir(), old.mkdir()
    _daily(new, "2024-01-05", _row("a", "x", "10", desc="newer words"))
    _daily(old, "2024-01-01", _row("a", "x", "9", desc="older words"))
    import_ranking(store, new, settings=get_settings())
    import_ranking(
        store, old, settings=get_settings()
    )  # an older file after a newer one changes nothing
    assert _about(store, "a/x")[:3] == ("newer words", "Python", "2024-01-05")
    _daily(new, "2024-01-06", _row("a", "x", "11", desc=""))
    import_ranking(
        store, new, settings=get_settings()
    )  # newest day, but empty: the stored description stays
    assert _about(store, "a/x")[:3] == ("newer words", "Python", "2024-01-06")


def test_the_github_api_description_is_never_overwritten(store, tmp_path):
    store.con.execute(
        "INSERT INTO repos (repo, repo_id, category, is_tracked, description, language) "
        "VALUES ('acme/tracked', 7, 'platform', true, 'from the API', 'C++')"
    )
    _daily(tmp_path, "2030-01-01", _row("acme", "tracked", "10", desc="ranking words"))
    import_ranking(store, tmp_path, settings=get_settings())
    assert _about(store, "acme/tracked") == ("from the API", "C++", None, True)


def test_descriptions_only_leaves_star_counts_and_needs_daily_files(store, tmp_path):
    _daily(tmp_path, "2024-01-02", _row("a", "x", "10", desc="about x"))
    load = import_ranking(store, tmp_path, descriptions_only=True, settings=get_settings())
    assert _snapshot(store) == [] and load.rows_inserted == 0
    assert _about(store, "a/x")[:3] == ("about x", "Python", "2024-01-02")
    long = tmp_path / "long.csv"
    long.write_text("day,repo,stars\n2024-01-02,a/x,10\n", encoding="utf-8")
    with pytest.raises(InputError, match="long table has none"):
        import_ranking(store, long, descriptions_only=True, settings=get_settings())


def test_raw_sample_descriptions_let_the_filter_keep_dify(store, shared_dir):
    from shu.forecast.radar.topics import matches, radar_keywords

    import_ranking(store, shared_dir / "data/stars/raw-sample", settings=get_settings())
    (text,) = store.con.execute(
        "SELECT description FROM repos WHERE repo = 'langgenius/dify'"
    ).fetchone()
    keys = radar_keywords(load_settings())
    assert not matches(keys, "langgenius/dify") and matches(keys, "langgenius/dify", text)
