"""Ranking importer: daily star counts from EvanLi/Github-Ranking-style files into `stars_daily`.

Accepts
- a directory of daily ranking CSVs (`github-ranking-YYYY-MM-DD.csv`, columns
  rank,item,repo_name,stars,forks,language,repo_url,username,issues,last_commit,description),
- one such daily file,
- a long table (Parquet or CSV) with columns day, repo, stars and optionally forks, open_issues.

Repository names are folded into their current spelling: configured aliases (e.g.
jmorganca/ollama -> ollama/ollama) and case variants (GitHub names are case-insensitive; the
spelling of the latest day wins). A repository listed several times on one day (it sits in
several lists) is deduplicated. Rows without a repository or a star count are rejected and
counted by reason. A malformed file (wrong columns, a truncated line, a non-numeric count) given
alone stops the load with the file and line named, and the store is left as it was; in a
directory it is left out whole, named in `Load.failed_files` and in its own 'failed' `ingest_log`
row, and the other files load.
"""

from __future__ import annotations

import contextlib
import csv
import io
import re
from collections import Counter
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pyarrow as pa

from shu.errors import InputError
from shu.progress import progress
from shu.repos import record_alias, rename_repo
from shu.schema import TABLES_BY_NAME
from shu.settings import Settings, get_settings
from shu.store import Load, Store, UpsertResult

RAW_COLUMNS = ["rank", "item", "repo_name", "stars", "forks", "language", "repo_url",
               "username", "issues", "last_commit", "description"]
LONG_REQUIRED = {"day", "repo", "stars"}
LONG_OPTIONAL = ("forks", "open_issues")
RAW_NAME = re.compile(r"github-ranking-(\d{4}-\d{2}-\d{2})\.csv$")
REPO_URL = re.compile(r"^https?://github\.com/([\w.-]+)/([\w.-]+?)/?$")
SOURCE = "ranking"
IMPORT_MEMORY_LIMIT = "2GB"


def import_ranking(store: Store, path: Path | str, settings: Settings | None = None) -> Load:
    """Load `path` (directory, daily CSV, or long Parquet/CSV) into `stars_daily`.

    Returns the finished `Load` (rows read / inserted / updated / rejected, and a message with
    rejection reasons). Raises InputError naming the file (and line) when input is malformed;
    nothing is written then.
    """
    settings = settings or get_settings()
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    with (_bounded_memory(store), store.load(SOURCE, str(path)) as load,
          progress(f"ranking {path.name}", total=5) as bar):
        rejects: Counter[str] = Counter()
        store.con.execute("DROP TABLE IF EXISTS _rank_raw")
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if RAW_NAME.search(p.name))
            if not files:
                raise InputError(f"{path}: no github-ranking-YYYY-MM-DD.csv files in directory")
            # One malformed file never sinks the others: it is left out whole and logged.
            _stage_arrow(store, _read_raw_files(files, rejects, load.failed_files))
            if len(load.failed_files) == len(files):
                raise InputError(f"{path}: every file is malformed; first: "
                                 f"{next(iter(load.failed_files.values()))}")
            for bad, reason in load.failed_files.items():
                store.log_failure(SOURCE, str(bad), reason)
        elif RAW_NAME.search(path.name):
            _stage_arrow(store, _read_raw_files([path], rejects))
        elif path.suffix == ".parquet":
            _stage_long_parquet(store, path)
        elif path.name.endswith((".csv", ".csv.gz")):
            _stage_arrow(store, _read_long_csv(path, rejects))
        else:
            raise InputError(f"{path}: expected a directory, a .parquet file or a .csv file")
        load.rows_read = store.con.execute("SELECT count(*) FROM _rank_raw").fetchone()[0]
        bar.advance(note=f"read {load.rows_read:,} rows")
        _reject_invalid(store, rejects)
        bar.advance(note="checked rows")
        _fold_names(store, settings, path)
        bar.advance(note="folded names")
        merged = _dedupe(store)
        bar.advance(note="deduplicated; writing")
        if _stars_daily_is_empty(store):
            load.add(_first_load(store))
        else:  # One row per (repo, day) by construction (_dedupe groups on them).
            load.add(store.upsert("stars_daily", store.con.table("_rank_clean"),
                                  keys_unique=True))
        bar.advance(note="written")
        load.rows_rejected = sum(rejects.values())
        notes = [f"rejected {n} {why}" for why, n in rejects.items()]
        if load.failed_files:
            notes.append(f"{len(load.failed_files)} malformed file(s) left out (see ingest_log)")
        if merged:
            notes.append(merged)
        load.message = "; ".join(notes)
        store.con.execute("DROP TABLE IF EXISTS _rank_raw")
        store.con.execute("DROP TABLE IF EXISTS _rank_clean")
    return load


@contextlib.contextmanager
def _bounded_memory(store: Store) -> Iterator[None]:
    """Cap DuckDB's memory during the import (it spills to disk beyond it): the full 7.2M-row
    table then loads in under 2 GiB of peak process memory (~1.85 GiB measured). A lower cap
    (1 GB) spills the primary-key index build and makes the load ~3x slower."""
    old = store.con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
    store.con.execute(f"SET memory_limit = '{IMPORT_MEMORY_LIMIT}'")
    store.con.execute("SET preserve_insertion_order = false")
    try:
        yield
    finally:
        store.con.execute(f"SET memory_limit = '{old}'")
        store.con.execute("SET preserve_insertion_order = true")


# ------------------------------------------------------------------------------- readers
def _stage_arrow(store: Store, table: pa.Table) -> None:
    store.con.register("_rank_arrow", table)
    store.con.execute("CREATE TEMP TABLE _rank_raw AS SELECT * FROM _rank_arrow")
    store.con.unregister("_rank_arrow")


def _stage_long_parquet(store: Store, path: Path) -> None:
    try:
        cols = {d[0] for d in store.con.execute(
            "SELECT * FROM read_parquet(?) LIMIT 0", [str(path)]).description}
    except Exception as exc:  # duckdb raises several error types for unreadable files
        raise InputError(f"{path}: not a readable Parquet file ({_first_line(exc)})") from exc
    missing = LONG_REQUIRED - cols
    if missing:
        raise InputError(f"{path}: missing column(s) {sorted(missing)}; a long table needs "
                         f"{sorted(LONG_REQUIRED)} (+ optional {list(LONG_OPTIONAL)})")
    opt = ", ".join(f"TRY_CAST({c} AS BIGINT) AS {c}" if c in cols else f"NULL::BIGINT AS {c}"
                    for c in LONG_OPTIONAL)
    bad = store.con.execute(
        "SELECT row_number, day, stars FROM (SELECT row_number() OVER () AS row_number, * FROM "
        "read_parquet(?)) WHERE (stars IS NOT NULL AND TRY_CAST(stars AS BIGINT) IS NULL) OR "
        "(day IS NOT NULL AND TRY_CAST(day AS DATE) IS NULL) LIMIT 1", [str(path)]).fetchone()
    if bad:
        raise InputError(f"{path}: row {bad[0]}: day {bad[1]!r} / stars {bad[2]!r} is not a "
                         "date / a whole number")
    store.con.execute(
        "CREATE TEMP TABLE _rank_raw AS SELECT CAST(repo AS VARCHAR) AS repo, "
        f"CAST(day AS DATE) AS day, CAST(stars AS BIGINT) AS stars, {opt} "
        "FROM read_parquet(?)", [str(path)])


def _read_raw_files(files: list[Path], rejects: Counter[str],
                    failed: dict[Path, str] | None = None) -> pa.Table:
    """Rows of the daily files. A malformed file raises InputError, or, when `failed` is given,
    is left out whole (none of its rows) and its one-line reason recorded there."""
    columns: dict[str, list] = {"repo": [], "day": [], "stars": [], "forks": [],
                                "open_issues": []}
    for f in files:
        own: Counter[str] = Counter()
        try:
            rows = _read_raw_file(f, own)
        except InputError as exc:
            if failed is None:
                raise
            failed[f] = str(exc)
            continue
        rejects.update(own)
        for name, values in rows.items():
            columns[name] += values
    return pa.table({"repo": pa.array(columns["repo"], pa.string()),
                     "day": pa.array(columns["day"], pa.date32()),
                     "stars": pa.array(columns["stars"], pa.int64()),
                     "forks": pa.array(columns["forks"], pa.int64()),
                     "open_issues": pa.array(columns["open_issues"], pa.int64())})


def _read_raw_file(f: Path, rejects: Counter[str]) -> dict[str, list]:
    day = date.fromisoformat(RAW_NAME.search(f.name).group(1))  # type: ignore[union-attr]
    out: dict[str, list] = {"repo": [], "day": [], "stars": [], "forks": [], "open_issues": []}
    reader = csv.reader(_open_text(f), strict=True)
    try:
        header = next(reader, None)
        if header is None:
            raise InputError(f"{f}: empty file (no header)")
        if [h.strip().lower() for h in header] != RAW_COLUMNS:
            raise InputError(f"{f}: line 1: unexpected columns {header}; expected "
                             + ",".join(RAW_COLUMNS))
        for row in reader:
            line = reader.line_num
            if not row:
                continue
            if len(row) != len(RAW_COLUMNS):
                raise InputError(f"{f}: line {line}: expected {len(RAW_COLUMNS)} fields, got "
                                 f"{len(row)} (truncated or malformed row)")
            rec = dict(zip(RAW_COLUMNS, row, strict=True))
            repo = _repo_from(rec)
            if repo is None:
                rejects["rows without a repository url or name"] += 1
                continue
            out["repo"].append(repo)
            out["day"].append(day)
            out["stars"].append(_count(rec["stars"], f, line, "stars"))
            out["forks"].append(_count(rec["forks"], f, line, "forks"))
            out["open_issues"].append(_count(rec["issues"], f, line, "issues"))
    except csv.Error as exc:
        raise InputError(f"{f}: line {reader.line_num}: {exc} (truncated file?)") from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"{f}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    return out


def _read_long_csv(path: Path, rejects: Counter[str]) -> pa.Table:
    reader = csv.DictReader(_open_text(path), strict=True)
    cols = set(reader.fieldnames or [])
    missing = LONG_REQUIRED - cols
    if missing:
        raise InputError(f"{path}: line 1: missing column(s) {sorted(missing)}; expected ranking "
                         f"columns ({','.join(RAW_COLUMNS)}) or a long table "
                         f"({', '.join(sorted(LONG_REQUIRED))}[, forks, open_issues])")
    out: dict[str, list] = {"repo": [], "day": [], "stars": [], "forks": [], "open_issues": []}
    try:
        for rec in reader:
            line = reader.line_num
            if None in rec or any(rec.get(c) is None for c in LONG_REQUIRED):
                raise InputError(f"{path}: line {line}: wrong number of fields (truncated or "
                                 "malformed row)")
            try:
                day = date.fromisoformat(rec["day"].strip()[:10])
            except ValueError as exc:
                raise InputError(f"{path}: line {line}: day {rec['day']!r} is not a date") from exc
            repo = rec["repo"].strip() or None
            if repo is None:
                rejects["rows without a repository"] += 1
                continue
            out["repo"].append(repo)
            out["day"].append(day)
            out["stars"].append(_count(rec["stars"], path, line, "stars"))
            for c in LONG_OPTIONAL:
                out[c].append(_count(rec.get(c) or "", path, line, c))
    except csv.Error as exc:
        raise InputError(f"{path}: line {reader.line_num}: {exc} (truncated file?)") from exc
    return pa.table({"repo": pa.array(out["repo"], pa.string()),
                     "day": pa.array(out["day"], pa.date32()),
                     **{c: pa.array(out[c], pa.int64()) for c in ("stars", *LONG_OPTIONAL)}})


def _open_text(path: Path) -> io.TextIOBase:
    if path.name.endswith(".gz"):
        import gzip

        return io.TextIOWrapper(gzip.open(path), encoding="utf-8", newline="")
    return path.open(encoding="utf-8", newline="")


def _repo_from(rec: dict[str, str]) -> str | None:
    m = REPO_URL.match(rec["repo_url"].strip())
    if m:
        return f"{m.group(1)}/{m.group(2)}"
    if rec["username"].strip() and rec["repo_name"].strip():
        return f"{rec['username'].strip()}/{rec['repo_name'].strip()}"
    return None


def _count(text: str, path: Path, line: int, field: str) -> int | None:
    text = text.strip()
    if not text:
        return None
    try:
        value = int(text)
    except ValueError:
        raise InputError(f"{path}: line {line}: {field} {text[:40]!r} is not a whole "
                         "number") from None
    if value < 0:
        raise InputError(f"{path}: line {line}: {field} {value} is negative")
    return value


def _first_line(exc: Exception) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


# ------------------------------------------------------------------------------- writing
def _stars_daily_is_empty(store: Store) -> bool:
    # fetchall, not fetchone: a half-read result would block the `register` in upsert.
    return not store.con.execute("SELECT count(*) FROM (SELECT 1 FROM stars_daily LIMIT 1)"
                                 ).fetchall()[0][0]


def _first_load(store: Store) -> UpsertResult:
    """Fill the empty `stars_daily` in bulk: inserting millions of rows into a table with a
    primary key maintains its index row by row, which takes longer than everything else in the
    import; so the (empty) table is re-created from its declaration without the key clause,
    filled, and the key added back over the loaded rows (one bulk index build, which also
    re-checks uniqueness). Same transaction as the rest of the load: a failure leaves the
    store as it was. The result is the declared table, key and all."""
    decl = TABLES_BY_NAME["stars_daily"]
    keyless = re.sub(r",\s*PRIMARY KEY \([^)]*\)", "", decl.ddl())
    cols = ", ".join(f'"{c}"' for c in ("repo", "day", "stars", "forks", "open_issues",
                                        "source"))
    con = store.con
    con.execute("DROP TABLE stars_daily")
    con.execute(keyless)
    inserted = con.execute(f"INSERT INTO stars_daily ({cols}) SELECT {cols} FROM _rank_clean"
                           ).fetchone()[0]
    keys = ", ".join(f'"{k}"' for k in decl.primary_key)
    con.execute(f"ALTER TABLE stars_daily ADD PRIMARY KEY ({keys})")
    return UpsertResult(int(inserted), 0)


# ------------------------------------------------------------------------------- cleaning
REJECT_RULES = (("rows without a repository", "repo IS NULL OR repo = ''"),
                ("rows without a day", "day IS NULL"),
                ("rows without a star count", "stars IS NULL"),
                ("rows with a negative count", "stars < 0 OR forks < 0 OR open_issues < 0"))


def _reject_invalid(store: Store, rejects: Counter[str]) -> None:
    """Count invalid rows by their first failing rule in one scan; delete them only if any."""
    exclusive, earlier = [], "false"
    for _, cond in REJECT_RULES:
        exclusive.append(f"count(*) FILTER (WHERE coalesce({cond}, false) "
                         f"AND NOT coalesce({earlier}, false))")
        earlier = f"{earlier} OR ({cond})"
    counts = store.con.execute(f"SELECT {', '.join(exclusive)} FROM _rank_raw").fetchone()
    for (why, _), n in zip(REJECT_RULES, counts, strict=True):
        if n:
            rejects[why] += n
    if any(counts):
        store.con.execute(f"DELETE FROM _rank_raw WHERE coalesce({earlier}, false)")


def _fold_names(store: Store, settings: Settings, path: Path) -> None:
    """Map aliases and case variants to the current spelling, in rows already stored under an old
    name, and build `_rank_names` (spelling in the file -> current spelling) for the staged rows.

    The map is built over the distinct names (a few thousand), not the millions of rows: the rows
    take their current name in the same pass that deduplicates them (`_dedupe`)."""
    aliases = {k.lower(): v for k, v in settings.aliases.items()}
    con = store.con
    con.execute("CREATE OR REPLACE TEMP TABLE _rank_alias (alias VARCHAR, repo VARCHAR)")
    if aliases:
        con.executemany("INSERT INTO _rank_alias VALUES (?, ?)", list(aliases.items()))
    con.execute("""
        CREATE OR REPLACE TEMP TABLE _rank_seen AS
        SELECT s.raw, coalesce(a.repo, s.raw) AS repo, s.last_day FROM (
            SELECT repo AS raw, max(day) AS last_day FROM _rank_raw GROUP BY repo) s
        LEFT JOIN _rank_alias a ON lower(s.raw) = a.alias""")
    # Latest spelling per case-insensitive name, across the new rows and the stored ones.
    con.execute("""
        CREATE OR REPLACE TEMP TABLE _rank_case AS
        SELECT lower(repo) AS key, arg_max(repo, day) AS repo FROM (
            SELECT repo, last_day AS day FROM _rank_seen
            UNION ALL
            SELECT repo, max(day) FROM stars_daily
            WHERE lower(repo) IN (SELECT DISTINCT lower(repo) FROM _rank_seen) GROUP BY repo)
        GROUP BY 1""")
    con.execute("""
        CREATE OR REPLACE TEMP TABLE _rank_names AS
        SELECT s.raw, c.repo FROM _rank_seen s JOIN _rank_case c ON lower(s.repo) = c.key""")
    stale = con.execute("""
        SELECT DISTINCT s.repo, c.repo FROM (SELECT DISTINCT repo FROM stars_daily) s
        JOIN _rank_case c ON lower(s.repo) = c.key WHERE s.repo <> c.repo
        UNION
        SELECT DISTINCT s.repo, a.repo FROM (SELECT DISTINCT repo FROM stars_daily) s
        JOIN _rank_alias a ON lower(s.repo) = a.alias WHERE s.repo <> a.repo""").fetchall()
    for old, new in stale:
        rename_repo(store, old, new, origin="ranking-case" if old.lower() == new.lower()
                    else "config")
    for alias, repo in settings.aliases.items():
        record_alias(store, alias, repo, "config")
    for table in ("_rank_alias", "_rank_case", "_rank_seen"):
        con.execute(f"DROP TABLE {table}")


def _dedupe(store: Store) -> str:
    """One row per (current name, day), in one aggregation over the staged rows: repeats (a
    repository in several lists, or under an old name) collapse; when their counts differ (lists
    snapshotted minutes apart) the highest star count wins. Returns a note saying how many rows
    were merged, or '' when none were."""
    con = store.con
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE _rank_clean AS
        SELECT n.repo, r.day, max(r.stars) AS stars, arg_max(r.forks, r.stars) AS forks,
               arg_max(r.open_issues, r.stars) AS open_issues, '{SOURCE}' AS source
        FROM _rank_raw r JOIN _rank_names n ON r.repo = n.raw GROUP BY n.repo, r.day""")
    repeated = (con.execute("SELECT count(*) FROM _rank_raw").fetchone()[0]
                - con.execute("SELECT count(*) FROM _rank_clean").fetchone()[0])
    differing = 0
    if repeated:  # a second pass only when there are repeats (the common long table has none)
        # A group's rows differ iff some column takes two values (NULL counting as a value).
        differs = " OR ".join(
            f"coalesce(min({c}) <> max({c}), false) OR count({c}) NOT IN (0, count(*))"
            for c in ("stars", "forks", "open_issues"))
        differing = con.execute(f"""
            SELECT count(*) FROM (SELECT 1 FROM _rank_raw r JOIN _rank_names n ON r.repo = n.raw
            GROUP BY n.repo, r.day HAVING count(*) > 1 AND ({differs}))""").fetchone()[0]
    con.execute("DROP TABLE _rank_names")
    if not repeated:
        return ""
    return (f"merged {repeated} repeated rows ({differing} repo-days with differing counts: kept "
            "the highest star count)")
