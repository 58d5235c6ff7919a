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
row, and the other files load. Everything happens in the load's one transaction.

Daily files also carry each repository's description and language: `shu.sources.ranking_about`
writes the newest of them into `repos` (its module says which source wins). A long table has
none.

This module reads and stages; `shu.sources.ranking_merge` folds, deduplicates and writes. A
Parquet long table is never copied: `_rank_raw` is a view over the file, read twice (a scan of
names and rejects, then the one aggregation that writes), which measured cheaper than
materialising its 7.2M rows; the values are checked row by row only when a column's type does
not already guarantee a date / a whole number. CSV files are parsed in Python (line-exact
errors) and spooled in batches of about BATCH_ROWS rows to Parquet files in a temporary folder,
which `_rank_raw` (and the descriptions' staging) are views over as for a Parquet table: a
directory of thousands of daily files never sits in memory whole (staged in temporary tables
instead, 7.2M rows peaked at 3.5 GB whatever DuckDB's memory limit; benchmarks/README.md).
Where the time of the 7.2M-row import went and what was chosen: `shu.sources.ranking_merge`
and `benchmarks/README.md` ("Ranking import").
"""

from __future__ import annotations

import contextlib
import csv
import io
import re
import tempfile
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from shu.errors import InputError
from shu.progress import progress
from shu.settings import Settings
from shu.sources import ranking_about
from shu.sources.ranking_merge import fold_names, write_rows
from shu.store import Load, Store, UpsertResult

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq

RAW_COLUMNS = [
    "rank",
    "item",
    "repo_name",
    "stars",
    "forks",
    "language",
    "repo_url",
    "username",
    "issues",
    "last_commit",
    "description",
]
LONG_REQUIRED = {"day", "repo", "stars"}
LONG_OPTIONAL = ("forks", "open_issues")
RAW_NAME = re.compile(r"github-ranking-(\d{4}-\d{2}-\d{2})\.csv$")
REPO_URL = re.compile(r"^https?://github\.com/([\w.-]+)/([\w.-]+?)/?$")
SOURCE = "ranking"
IMPORT_MEMORY_LIMIT = "2GB"
# CSV rows parsed in Python before they are spooled to Parquet (the load's Python memory holds
# one batch).
BATCH_ROWS = 200_000
COUNT_COLUMNS = ("repo", "day", "stars", "forks", "open_issues")
# Parquet column types whose every value casts to BIGINT / DATE: no row-by-row check needed.
WHOLE_TYPES = {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER"}
DAY_TYPES = {"DATE", "TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS"}


def import_ranking(
    store: Store,
    path: Path | str,
    settings: Settings,
    *,
    descriptions_only: bool = False,
) -> Load:
    """Load `path` (directory, daily CSV, or long Parquet/CSV) into `stars_daily`, and the daily
    files' descriptions and languages into `repos`. `descriptions_only`: write those alone,
    leaving the stored star counts as they are (for daily files over days whose counts came
    from another source, such as a long table that deduplicated repeats differently).

    Returns the finished `Load` (rows read / inserted / updated / rejected, and a message with
    rejection reasons). Raises InputError naming the file (and line) when input is malformed;
    nothing is written then.
    """
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path}: no such file or directory")
    # Peak memory of the 7.2M-row load stays under 2 GiB (bench_ranking prints it).
    with (
        tempfile.TemporaryDirectory(prefix="shu-ranking-") as spool,
        store.bulk(IMPORT_MEMORY_LIMIT),
        store.load(SOURCE, str(path)) as load,
        progress(f"ranking {path.name}", total=4) as bar,
    ):
        rejects: Counter[str] = Counter()
        lazy: Path | None = None
        about = RAW_NAME.search(path.name) is not None or path.is_dir()
        if descriptions_only and not about:
            raise InputError(
                f"{path}: descriptions come only from daily github-ranking-YYYY-MM-DD.csv "
                "files (or a directory of them); a long table has none"
            )
        _drop_staged(store)
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if RAW_NAME.search(p.name))
            if not files:
                raise InputError(f"{path}: no github-ranking-YYYY-MM-DD.csv files in directory")
            # One malformed file never sinks the others: it is left out whole and logged.
            _stage_raw_files(store, files, rejects, Path(spool), load.failed_files)
            if len(load.failed_files) == len(files):
                raise InputError(
                    f"{path}: every file is malformed; first: "
                    f"{next(iter(load.failed_files.values()))}"
                )
            for bad, reason in load.failed_files.items():
                store.log_failure(SOURCE, str(bad), reason)
        elif RAW_NAME.search(path.name):
            _stage_raw_files(store, [path], rejects, Path(spool))
        elif path.suffix == ".parquet":
            _stage_long_parquet(store, path)
            lazy = path  # read while it is scanned and written: its errors come later
        elif path.name.endswith((".csv", ".csv.gz")):
            _stage_long_csv(store, path, rejects, Path(spool))
        else:
            raise InputError(f"{path}: expected a directory, a .parquet file or a .csv file")
        bar.advance(note="staged")
        with _parquet_errors(lazy):
            load.rows_read, valid = _scan_names(store, rejects)
            bar.advance(note=f"read {load.rows_read:,} rows")
            fold_names(store, settings)
            bar.advance(note="folded names; writing")
            described = ranking_about.write(store, settings) if about else 0
            if descriptions_only:
                result, merged = UpsertResult(), "descriptions only: star counts left as stored"
                store.con.execute("DROP TABLE _rank_names")
            else:
                result, merged = write_rows(store, valid)
        load.add(result)
        bar.advance(note="written")
        load.rows_rejected = sum(rejects.values())
        notes = [f"rejected {n} {why}" for why, n in rejects.items()]
        if load.failed_files:
            notes.append(f"{len(load.failed_files)} malformed file(s) left out (see ingest_log)")
        if merged:
            notes.append(merged)
        if described:
            notes.append(f"descriptions of {described} repositories written to repos")
        load.message = "; ".join(notes)
        store.con.execute("DROP TABLE _rank_seen")
        _drop_staged(store)
    return load


# ------------------------------------------------------------------------------- staging
def _drop_staged(store: Store) -> None:
    ranking_about.drop(store)
    for (kind,) in store.con.execute(
        "SELECT table_type FROM information_schema.tables WHERE table_name = '_rank_raw'"
    ).fetchall():
        store.con.execute(f"DROP {'VIEW' if 'VIEW' in kind else 'TABLE'} _rank_raw")


def _view_raw(store: Store, parquet: Path) -> None:
    """`_rank_raw` as a view over the CSV rows spooled to `parquet`."""
    literal = "'" + str(parquet).replace("'", "''") + "'"  # a view cannot take a parameter
    store.con.execute(f"CREATE TEMP VIEW _rank_raw AS SELECT * FROM read_parquet({literal})")


def _counts_table(columns: dict[str, list]) -> pa.Table:
    """A batch of parsed rows' counts (`COUNT_COLUMNS`) as an Arrow table."""
    import pyarrow as pa

    return pa.table(
        {
            "repo": pa.array(columns["repo"], pa.string()),
            "day": pa.array(columns["day"], pa.date32()),
            **{c: pa.array(columns[c], pa.int64()) for c in COUNT_COLUMNS[2:]},
        }
    )


def _stage_long_parquet(store: Store, path: Path) -> None:
    """`_rank_raw` as a view over the file (typed), after checking its columns and, where their
    types do not guarantee it, that every day is a date and every star count a whole number."""
    try:
        types = {
            d[0]: str(d[1])
            for d in store.con.execute(
                "SELECT * FROM read_parquet(?) LIMIT 0", [str(path)]
            ).description
        }
    except Exception as exc:  # duckdb raises several error types for unreadable files
        raise InputError(f"{path}: not a readable Parquet file ({_first_line(exc)})") from exc
    missing = LONG_REQUIRED - set(types)
    if missing:
        raise InputError(
            f"{path}: missing column(s) {sorted(missing)}; a long table needs "
            f"{sorted(LONG_REQUIRED)} (+ optional {list(LONG_OPTIONAL)})"
        )
    if types["stars"] not in WHOLE_TYPES or types["day"] not in DAY_TYPES:
        with _parquet_errors(path):
            bad = store.con.execute(
                "SELECT row_number, day, stars FROM (SELECT row_number() OVER () AS row_number, "
                "* FROM read_parquet(?)) WHERE (stars IS NOT NULL AND TRY_CAST(stars AS BIGINT) "
                "IS NULL) OR (day IS NOT NULL AND TRY_CAST(day AS DATE) IS NULL) LIMIT 1",
                [str(path)],
            ).fetchone()
        if bad:
            raise InputError(
                f"{path}: row {bad[0]}: day {bad[1]!r} / stars {bad[2]!r} is not a "
                "date / a whole number"
            )
    # Columns already of a fitting type are read as they are (an INTEGER count stays INTEGER
    # until the aggregate has run: casting every value first measured a sizeable share of the
    # load's CPU; benchmarks/README.md, "Ranking import").
    exprs = [
        "repo" if types["repo"] == "VARCHAR" else "CAST(repo AS VARCHAR) AS repo",
        "day" if types["day"] == "DATE" else "CAST(day AS DATE) AS day",
        "stars" if types["stars"] in WHOLE_TYPES else "CAST(stars AS BIGINT) AS stars",
    ]
    exprs += [
        c
        if types.get(c) in WHOLE_TYPES
        else f"TRY_CAST({c} AS BIGINT) AS {c}"
        if c in types
        else f"NULL::BIGINT AS {c}"
        for c in LONG_OPTIONAL
    ]
    literal = "'" + str(path).replace("'", "''") + "'"  # a view cannot take a parameter
    store.con.execute(
        f"CREATE TEMP VIEW _rank_raw AS SELECT {', '.join(exprs)} FROM read_parquet({literal})"
    )


@contextlib.contextmanager
def _parquet_errors(path: Path | None) -> Iterator[None]:
    """A Parquet file whose footer reads but whose pages do not fails while it is scanned: name
    the file (`path` None: the rows were read already, nothing to translate)."""
    import duckdb

    about_the_store = (
        duckdb.CatalogException,
        duckdb.ConstraintException,
        duckdb.TransactionException,
        duckdb.OutOfMemoryException,
        duckdb.InterruptException,
    )
    try:
        yield
    except duckdb.Error as exc:  # a corrupt page or footer raises any of several error types
        if path is None or isinstance(exc, about_the_store):
            raise
        raise InputError(f"{path}: not a readable Parquet file ({_first_line(exc)})") from exc


# ------------------------------------------------------------------------------- readers
def _stage_raw_files(
    store: Store,
    files: list[Path],
    rejects: Counter[str],
    spool: Path,
    failed: dict[Path, str] | None = None,
) -> None:
    """Stage the daily files' counts (`_rank_raw`) and their (repo, day, ord, description,
    language) rows in the order read (`ranking_about`), spooled to Parquet files in `spool` a
    batch of about BATCH_ROWS rows at a time. A malformed file raises InputError, or, when
    `failed` is given, is left out whole (none of its rows) and its one-line reason recorded
    there."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    counts_file, about_file = spool / "counts.parquet", spool / "about.parquet"
    about_schema = pa.schema(
        [
            ("repo", pa.string()),
            ("day", pa.date32()),
            ("ord", pa.int64()),
            ("description", pa.string()),
            ("language", pa.string()),
        ]
    )
    staged = 0  # rows spooled so far: the next batch's first `ord`
    batch = _empty_batch()
    with (
        pq.ParquetWriter(counts_file, _counts_table(_empty_batch()).schema) as counts,
        pq.ParquetWriter(about_file, about_schema) as about,
    ):
        for i, f in enumerate(files):
            own: Counter[str] = Counter()
            try:
                rows = _read_raw_file(f, own)
            except InputError as exc:
                if failed is None:
                    raise
                failed[f] = str(exc)
                rows = {}  # left out whole, its rejects with it
            else:
                rejects.update(own)
            for name, values in rows.items():
                batch[name] += values
            if len(batch["repo"]) < BATCH_ROWS and i < len(files) - 1:
                continue
            n = len(batch["repo"])
            counts.write_table(_counts_table(batch))
            about.write_table(
                pa.table(
                    {
                        "repo": pa.array(batch["repo"], pa.string()),
                        "day": pa.array(batch["day"], pa.date32()),
                        "ord": pa.array(range(staged, staged + n), pa.int64()),
                        "description": pa.array(batch["description"], pa.string()),
                        "language": pa.array(batch["language"], pa.string()),
                    },
                    schema=about_schema,
                )
            )
            staged += n
            batch = _empty_batch()
    _view_raw(store, counts_file)
    ranking_about.stage(store, about_file)


def _empty_batch(about: bool = True) -> dict[str, list]:
    """Columns of parsed CSV rows: the counts and, for daily files, description and language."""
    return {c: [] for c in (*COUNT_COLUMNS, *(("description", "language") if about else ()))}


def _read_raw_file(f: Path, rejects: Counter[str]) -> dict[str, list]:
    day = date.fromisoformat(RAW_NAME.search(f.name).group(1))  # type: ignore[union-attr]
    out = _empty_batch()
    reader = csv.reader(_open_text(f), strict=True)
    with _read_errors(f, lambda: reader.line_num):
        header = next(reader, None)
        if header is None:
            raise InputError(f"{f}: empty file (no header)")
        if [h.strip().lower() for h in header] != RAW_COLUMNS:
            raise InputError(
                f"{f}: line 1: unexpected columns {header}; expected " + ",".join(RAW_COLUMNS)
            )
        for row in reader:
            line = reader.line_num
            if not row:
                continue
            if len(row) != len(RAW_COLUMNS):
                raise InputError(
                    f"{f}: line {line}: expected {len(RAW_COLUMNS)} fields, got "
                    f"{len(row)} (truncated or malformed row)"
                )
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
            out["description"].append(rec["description"].strip())
            out["language"].append(rec["language"].strip())
    return out


def _stage_long_csv(store: Store, path: Path, rejects: Counter[str], spool: Path) -> None:
    """Stage a long CSV table's rows as `_rank_raw`, spooled to a Parquet file in `spool` a
    batch of BATCH_ROWS rows at a time."""
    import pyarrow.parquet as pq

    counts_file = spool / "counts.parquet"
    writer = pq.ParquetWriter(counts_file, _counts_table(_empty_batch(about=False)).schema)
    try:
        _spool_long_csv(path, rejects, writer)
    finally:
        writer.close()
    _view_raw(store, counts_file)


def _spool_long_csv(path: Path, rejects: Counter[str], writer: pq.ParquetWriter) -> None:
    """Parse a long CSV table, writing its rows to `writer` a batch at a time."""
    reader = csv.DictReader(_open_text(path), strict=True)
    out = _empty_batch(about=False)
    with _read_errors(path, lambda: reader.line_num):
        cols = set(reader.fieldnames or [])
        missing = LONG_REQUIRED - cols
        if missing:
            raise InputError(
                f"{path}: line 1: missing column(s) {sorted(missing)}; expected ranking "
                f"columns ({','.join(RAW_COLUMNS)}) or a long table "
                f"({', '.join(sorted(LONG_REQUIRED))}[, forks, open_issues])"
            )
        for rec in reader:
            line = reader.line_num
            if None in rec or any(rec.get(c) is None for c in LONG_REQUIRED):
                raise InputError(
                    f"{path}: line {line}: wrong number of fields (truncated or malformed row)"
                )
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
            if len(out["repo"]) >= BATCH_ROWS:
                writer.write_table(_counts_table(out))
                out = _empty_batch(about=False)
    writer.write_table(_counts_table(out))


@contextlib.contextmanager
def _read_errors(path: Path, line: Callable[[], int]) -> Iterator[None]:
    """Turn what reading a CSV (maybe gzip) file can raise into one InputError naming the file
    and the line reached: a malformed or truncated CSV, bytes that are not UTF-8, a broken or
    cut-short gzip stream."""
    try:
        yield
    except csv.Error as exc:
        raise InputError(f"{path}: line {line()}: {exc} (truncated file?)") from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: line {line() + 1}: not UTF-8 text ({exc.reason})") from exc
    except (OSError, EOFError, zlib.error) as exc:  # gzip.BadGzipFile is an OSError
        raise InputError(
            f"{path}: line {line()}: not a readable gzip file ({_first_line(exc)})"
        ) from exc


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
        raise InputError(
            f"{path}: line {line}: {field} {text[:40]!r} is not a whole number"
        ) from None
    if value < 0:
        raise InputError(f"{path}: line {line}: {field} {value} is negative")
    return value


def _first_line(exc: Exception) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


# ------------------------------------------------------------------------------- rejects
# (reason, condition over the staged columns, each prefixed by {r}: '' or a table alias)
REJECT_RULES = (
    ("rows without a repository", "{r}repo IS NULL OR {r}repo = ''"),
    ("rows without a day", "{r}day IS NULL"),
    ("rows without a star count", "{r}stars IS NULL"),
    ("rows with a negative count", "{r}stars < 0 OR {r}forks < 0 OR {r}open_issues < 0"),
)


def _invalid(r: str = "") -> str:
    """SQL true for a staged row that breaks any rule (columns prefixed by `r`)."""
    return " OR ".join(f"coalesce({cond.format(r=r)}, false)" for _, cond in REJECT_RULES)


def _scan_names(store: Store, rejects: Counter[str]) -> tuple[int, str]:
    """One scan of the staged rows: `_rank_seen` (per spelling: last valid day, valid rows) and
    the invalid rows counted by their first failing rule into `rejects`. Returns (rows read,
    the SQL condition over `_rank_raw` r that keeps the valid rows)."""
    exclusive: list[str] = []
    earlier = "false"
    for _, cond in REJECT_RULES:
        cond = cond.format(r="")
        exclusive.append(
            f"count(*) FILTER (WHERE coalesce({cond}, false) "
            f"AND NOT ({earlier})) AS r{len(exclusive)}"
        )
        earlier = f"{earlier} OR coalesce({cond}, false)"
    store.con.execute(f"""
        CREATE OR REPLACE TEMP TABLE _rank_seen AS
        SELECT repo AS raw, max(day) FILTER (WHERE NOT ({_invalid()})) AS last_day,
               count(*) FILTER (WHERE NOT ({_invalid()})) AS rows_valid, count(*) AS rows_read,
               {", ".join(exclusive)}
        FROM _rank_raw GROUP BY repo""")
    sums = ", ".join(f"coalesce(sum(r{i}), 0)" for i in range(len(REJECT_RULES)))
    read, *counts = store.con.execute(
        f"SELECT coalesce(sum(rows_read), 0), {sums} FROM _rank_seen"
    ).fetchall()[0]
    for (why, _), n in zip(REJECT_RULES, counts, strict=True):
        if n:
            rejects[why] += int(n)
    return int(read), (f"NOT ({_invalid('r.')})" if any(counts) else "true")
