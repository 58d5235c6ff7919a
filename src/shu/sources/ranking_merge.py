"""Merges staged ranking rows into `stars_daily`: names folded, one row per repository and day,
only what changed written.

Input: the staged rows (`_rank_raw`: repo, day, stars, forks, open_issues; a view over the file
or a temp table) and `_rank_seen` (per spelling in the file: its last valid day and valid rows;
built by `shu.sources.ranking`), inside the load's transaction.

Set-based, a fixed number of statements whatever the size (the figures on the 7.2M-row ranking
history: `benchmarks/README.md`, "Ranking import"):

1. `fold_names`: the spelling map (`_rank_names`: spelling in the file -> current spelling;
   configured aliases, then case variants: the latest day's spelling wins, ties to the highest
   spelling) is built over the distinct names (a few thousand), and rows stored under a name
   that now folds are renamed first. The stored side is read once (`_rank_stored`, one row per
   stored name).
2. `write_rows`: one aggregation over the staged rows gives one row per (current name, day);
   repeats (a repository in several lists, or under an old name) collapse to the highest of
   each count (max stars, max forks, max open issues: deterministic, so re-runs converge).
   - Into an empty `stars_daily` that aggregation is the write itself (no staging table), a
     CREATE TABLE AS that replaces the empty table with the declared columns and key.
   - Otherwise a per-repository fingerprint of the aggregated rows (rows, and the sum of a
     64-bit hash of day and counts, summed exactly) is compared with the same fingerprint of
     the stored 'ranking' rows (one scan, a few thousand groups): a repository whose
     fingerprints agree already holds exactly these rows, so only the others go through the
     keyed upsert (`Store.upsert`, its comparison scoped to them). Re-loading the same file
     then writes nothing and never joins the millions of rows (the full join measured well
     above the fingerprints' CPU). Two different row sets agree only if
     their hash sums collide (about 2^-64 per repository that changed).

`stars_daily` has no key index (`key_indexed=False` in its declaration): in the measurements
the ART index's build and persistence at COMMIT took as long as the whole bare load. The key
stays unique by construction: the aggregation groups on it, and the upsert inserts only keys
not stored (`Store.duplicate_keys` checks it in the tests and the fault harness).

Choices the measurements made (their figures: `benchmarks/README.md`, "Ranking import"): no key
index (built after the fill or kept during it, it cost a large share of the bare load); `max`
of each count for repeats (deterministic, and no dearer than the old `arg_max`, which was not;
an `arg_max` keyed on every count to make it deterministic cost twice as much); CREATE TABLE
AS into an empty table rather than an INSERT into the declared one; Parquet integers
aggregated before they are cast; a LEFT JOIN to the few renamed spellings rather than an inner
join to all of them.
"""

from __future__ import annotations

import duckdb

from shu.repos import record_alias, rename_repo
from shu.schema import TABLES_BY_NAME
from shu.settings import Settings
from shu.store import Store, UpsertResult

SOURCE = "ranking"
VALUE_COLUMNS = ("stars", "forks", "open_issues")


def fold_names(store: Store, settings: Settings) -> None:
    """Build `_rank_names` (raw spelling -> current spelling) for the names in `_rank_seen`, and
    move rows stored under a name that now folds (alias or case variant) to its current one."""
    aliases = {k.lower(): v for k, v in settings.aliases.items()}
    con = store.con
    con.execute("CREATE OR REPLACE TEMP TABLE _rank_alias (alias VARCHAR, repo VARCHAR)")
    if aliases:
        con.executemany("INSERT INTO _rank_alias VALUES (?, ?)", list(aliases.items()))
    con.execute("""
        CREATE OR REPLACE TEMP TABLE _rank_named AS
        SELECT s.raw, coalesce(a.repo, s.raw) AS repo, s.last_day
        FROM _rank_seen s LEFT JOIN _rank_alias a ON lower(s.raw) = a.alias
        WHERE s.rows_valid > 0""")
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _rank_stored AS "
        "SELECT repo, max(day) AS last_day FROM stars_daily GROUP BY repo"
    )
    # Latest spelling per case-insensitive name, across the new rows and the stored ones.
    con.execute("""
        CREATE OR REPLACE TEMP TABLE _rank_case AS
        SELECT lower(repo) AS key, arg_max(repo, (last_day, repo)) AS repo FROM (
            SELECT repo, last_day FROM _rank_named
            UNION ALL
            SELECT repo, last_day FROM _rank_stored
            WHERE lower(repo) IN (SELECT lower(repo) FROM _rank_named))
        GROUP BY 1""")
    con.execute("""
        CREATE OR REPLACE TEMP TABLE _rank_names AS
        SELECT n.raw, c.repo FROM _rank_named n JOIN _rank_case c ON lower(n.repo) = c.key""")
    stale = con.execute("""
        SELECT s.repo, c.repo FROM _rank_stored s
        JOIN _rank_case c ON lower(s.repo) = c.key WHERE s.repo <> c.repo
        UNION
        SELECT s.repo, a.repo FROM _rank_stored s
        JOIN _rank_alias a ON lower(s.repo) = a.alias WHERE s.repo <> a.repo""").fetchall()
    for old, new in sorted(stale):
        rename_repo(
            store, old, new, source="ranking-case" if old.lower() == new.lower() else "config"
        )
    for alias, repo in settings.aliases.items():
        record_alias(store, alias, repo, "config")
    for table in ("_rank_alias", "_rank_named", "_rank_stored", "_rank_case"):
        con.execute(f"DROP TABLE {table}")


def write_rows(store: Store, valid: str) -> tuple[UpsertResult, str]:
    """Aggregate the staged rows that satisfy `valid` (SQL over `_rank_raw` as r) to one per
    (current name, day) and write what changed; returns the upsert's counts and a note on
    merged repeats ('' when there were none)."""
    con = store.con
    # Only the spellings that change are joined (a few dozen in the 7.2M-row history; the
    # others keep their name, and invalid rows are left out by `valid`).
    con.execute(
        "CREATE OR REPLACE TEMP TABLE _rank_renamed AS "
        "SELECT raw, repo FROM _rank_names WHERE raw <> repo"
    )
    renamed = con.execute("SELECT count(*) FROM _rank_renamed").fetchall()[0][0]
    name, join = (
        ("coalesce(n.repo, r.repo)", "LEFT JOIN _rank_renamed n ON r.repo = n.raw")
        if renamed
        else ("r.repo", "")
    )
    rows_in = con.execute("SELECT coalesce(sum(rows_valid), 0) FROM _rank_seen").fetchall()[0][0]

    def aggregated(where: str) -> str:
        return (
            f"SELECT {name} AS repo, r.day, "
            + ", ".join(f"max(r.{c})::BIGINT AS {c}" for c in VALUE_COLUMNS)
            + f", '{SOURCE}' AS source FROM _rank_raw r {join} WHERE {where} GROUP BY 1, 2"
        )

    if not con.execute("SELECT count(*) FROM (SELECT 1 FROM stars_daily LIMIT 1)").fetchall()[0][0]:
        groups = _fill_empty(con, aggregated(valid))
        result = UpsertResult(groups, 0)
    else:
        groups = _differing_repos(con, aggregated(valid))
        result = UpsertResult()
        if con.execute("SELECT count(*) FROM _rank_changed_repos").fetchall()[0][0]:
            scope = "repo IN (SELECT repo FROM _rank_changed_repos)"
            result = store.upsert(
                "stars_daily",
                con.sql(
                    aggregated(f"({valid}) AND {name} IN (SELECT repo FROM _rank_changed_repos)")
                ),
                keys_unique=True,
                scope=scope,
            )
        con.execute("DROP TABLE _rank_changed_repos")
    note = _repeats_note(con, rows_in - groups, name, join, valid)
    con.execute("DROP TABLE _rank_names")
    con.execute("DROP TABLE _rank_renamed")
    return result, note


def _fill_empty(con: duckdb.DuckDBPyConnection, aggregated: str) -> int:
    """Replace the empty `stars_daily` by the aggregated rows, made by CREATE TABLE AS (every
    declared column, in order, with its type; NOT NULL set on the key after): measured
    cheaper than an INSERT into the declared table, which writes through the table's
    constraint checks and local storage. Returns the rows written."""
    decl = TABLES_BY_NAME["stars_daily"]
    given = {"repo", "day", *VALUE_COLUMNS, "source"}
    columns = ", ".join(
        f'CAST({c.name if c.name in given else "NULL"} AS {c.type}) AS "{c.name}"'
        for c in decl.columns
    )
    con.execute("DROP TABLE stars_daily")
    con.execute(f"CREATE TABLE stars_daily AS SELECT {columns} FROM ({aggregated})")
    for c in decl.columns:
        if c.name in decl.primary_key or not c.nullable:
            con.execute(f'ALTER TABLE stars_daily ALTER COLUMN "{c.name}" SET NOT NULL')
    return int(con.execute("SELECT count(*) FROM stars_daily").fetchall()[0][0])


_FINGERPRINT = "count(*) AS n, sum(hash(day, stars, forks, open_issues)::HUGEINT) AS h"


def _differing_repos(con: duckdb.DuckDBPyConnection, aggregated: str) -> int:
    """`_rank_changed_repos`: repositories whose aggregated rows differ from their stored
    'ranking' rows by fingerprint (see the module). Returns the number of aggregated rows."""
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE _rank_new_fp AS SELECT repo, {_FINGERPRINT} "
        f"FROM ({aggregated}) GROUP BY repo"
    )
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE _rank_changed_repos AS
        SELECT f.repo FROM _rank_new_fp f LEFT JOIN (
            SELECT repo, {_FINGERPRINT} FROM stars_daily WHERE source = '{SOURCE}'
            AND repo IN (SELECT repo FROM _rank_new_fp) GROUP BY repo) s USING (repo)
        WHERE s.n IS DISTINCT FROM f.n OR s.h IS DISTINCT FROM f.h""")
    groups = con.execute("SELECT coalesce(sum(n), 0) FROM _rank_new_fp").fetchall()[0][0]
    con.execute("DROP TABLE _rank_new_fp")
    return int(groups)


def _repeats_note(
    con: duckdb.DuckDBPyConnection, repeated: int, name: str, join: str, valid: str
) -> str:
    """'merged N repeated rows (M repo-days with differing counts ...)', or '' when none."""
    if not repeated:
        return ""  # the common long table has no repeats: no second aggregation
    # A group's rows differ iff some column takes two values (NULL counting as a value).
    differs = " OR ".join(
        f"coalesce(min(r.{c}) <> max(r.{c}), false) OR count(r.{c}) NOT IN (0, count(*))"
        for c in VALUE_COLUMNS
    )
    differing = con.execute(f"""
        SELECT count(*) FROM (SELECT 1 FROM _rank_raw r {join} WHERE {valid}
        GROUP BY {name}, r.day HAVING count(*) > 1 AND ({differs}))""").fetchall()[0][0]
    return (
        f"merged {repeated} repeated rows ({differing} repo-days with differing counts: kept "
        "the highest of each count)"
    )
