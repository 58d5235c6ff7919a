"""GH Archive hourly files -> per-day stars, activity, tags and releases for every repository.

Two halves, so the parsing can run anywhere and the store keeps one writer:

- `aggregate_files(paths)` (a worker's job; no store): one DuckDB `read_json` scan over a batch
  of hourly `.json.gz` files, reading only the columns needed (explicit `columns=`: `type`,
  `repo.name`, `created_at` and the few payload fields), aggregated in SQL per file, repository
  and UTC day into Arrow tables: stars given (`WatchEvent`), pushes (`PushEvent`), tags created
  (`CreateEvent` with ref_type 'tag') and releases published (`ReleaseEvent` with action
  'published'; title and notes kept as untrusted text). When a batch fails, its files are read
  one by one so a truncated or corrupt file is reported by name and the others still count.
- `write_aggregates(store, agg)` (the single writer): folds old names through the alias map
  and adds everything to `stars_added_daily`, `activity_daily`, `tags_created` and `releases`
  (existing GitHub-API releases win) in ONE transaction together with one `ingest_log` row per
  file; files that failed get their own 'failed' row.

`ingest_gharchive` (the command's path) runs both in one process over files, directories or
globs in batches of `settings.gharchive_batch_files` (a batch is one scan; only its small
aggregate is kept; one write per set of `gharchive_files_per_write` files), skipping files
already loaded (`ingest_log`, keyed on the file name, so the same hour is never counted twice),
so any number of re-runs gives the same counts. Its scans run on the store's own connection
into temp tables, which the writer reads directly.

Speed: the scan itself costs somewhat more CPU than a bare `read_json` count of WatchEvents
(the payload fields and the per-file/repository/day aggregate of every event are the extra
work), so the command's fixed costs are kept small: the scans run on the store's own connection
into temp tables the writer reads (no connection or Arrow round trip per batch), one statement
writes a file set's `ingest_log` rows, pyarrow is imported only where worker results are built,
and a batch is a day's 24 files (each scan has a fixed cost). Figures and their history:
`benchmarks/README.md`, "GH Archive ingest".

Why one module of ~420 lines: the scan, the per-batch aggregates and their one-transaction
write share the temp tables of one connection; split, they would pass them around by name.
"""

from __future__ import annotations

import glob
import os
import socket
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from shu.errors import InputError
from shu.settings import Settings
from shu.store import Load, Store

if TYPE_CHECKING:  # pyarrow is imported where worker results are built, not by the CLI path
    import pyarrow as pa

SOURCE = "gharchive"
FILE_GLOB = "*.json.gz"
RELEASE = (
    "STRUCT(tag_name VARCHAR, name VARCHAR, body VARCHAR, published_at TIMESTAMP, "
    "prerelease BOOLEAN, html_url VARCHAR)"
)
EVENT_COLUMNS = {
    "type": "VARCHAR",
    "repo": "STRUCT(name VARCHAR)",
    "created_at": "TIMESTAMP",
    "payload": f"STRUCT(action VARCHAR, ref VARCHAR, ref_type VARCHAR, release {RELEASE})",
}
_SCAN = """
SELECT filename, repo.name AS repo, CAST(created_at AS DATE) AS day, count(*) AS events,
  count(*) FILTER (WHERE type = 'WatchEvent') AS stars,
  count(*) FILTER (WHERE type = 'PushEvent') AS pushes,
  list({'tag': payload.ref, 'created_at': created_at})
    FILTER (WHERE type = 'CreateEvent' AND payload.ref_type = 'tag') AS tags,
  list(payload.release) FILTER (WHERE type = 'ReleaseEvent' AND payload.action = 'published')
    AS releases
FROM read_json($files, columns = $columns, format = 'newline_delimited', filename = true)
GROUP BY ALL
"""


@dataclass
class Aggregate:
    """What one batch of files holds, aggregated (small: one row per repository and day)."""

    events_by_file: dict[str, int] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    activity: pa.Table | None = None  # repo, day, stars, pushes, tags, releases
    tags: pa.Table | None = None  # repo, tag, created_at
    releases: pa.Table | None = None  # repo, tag, name, body, published_at, prerelease, url
    workers: set[str] = field(default_factory=set)  # host:pid of the processes that read them

    @property
    def events(self) -> int:
        return sum(self.events_by_file.values())


@dataclass
class GharchiveSummary:
    """What `ingest_gharchive` did."""

    files_loaded: int = 0
    files_skipped: int = 0
    failed: dict[str, str] = field(default_factory=dict)
    events: int = 0
    rows: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    def add(self, agg: Aggregate, rows: dict[str, int]) -> None:
        """Count one written file set."""
        for table, n in rows.items():
            self.rows[table] = self.rows.get(table, 0) + n
        self.files_loaded += len(agg.events_by_file)
        self.failed.update(agg.failed)
        self.events += agg.events

    def line(self, failures: bool = True) -> str:
        """One line: files loaded, skipped and failed, events and rate; then each failed file
        and why, unless `failures` is False (the caller names them itself)."""
        rate = f" ({self.events / self.seconds:,.0f} events/s)" if self.seconds else ""
        text = (
            f"{self.files_loaded} files loaded, {self.files_skipped} already loaded, "
            f"{len(self.failed)} failed; {self.events:,} events in {self.seconds:.1f}s{rate}"
        )
        if not failures:
            return text
        return text + "".join(f"; {name}: {why}" for name, why in self.failed.items())


# ---------------------------------------------------------------------------- inputs
def resolve_paths(specs: Iterable[str | Path]) -> list[Path]:
    """Files, directories (their `*.json.gz`) or globs -> existing files, sorted, no repeats."""
    found: dict[str, Path] = {}
    for spec in specs:
        path = Path(spec)
        if path.is_dir():
            matches = sorted(path.glob(FILE_GLOB))
        elif path.is_file():
            matches = [path]
        else:
            matches = [Path(p) for p in sorted(glob.glob(str(spec)))]
            if not matches:
                raise InputError(f"{spec}: no such file, directory or matching glob")
        for match in matches:
            found.setdefault(str(match.resolve()), match)
    return sorted(found.values(), key=lambda p: _hour_order(p.name))


def _hour_order(name: str) -> tuple:
    """Sort key putting YYYY-MM-DD-H files in time order (H is not zero-padded)."""
    stem = name.split(".")[0]
    head, _, hour = stem.rpartition("-")
    return (head, int(hour)) if hour.isdigit() else (stem, -1)


def file_key(path: Path | str) -> str:
    """The identity of an hourly file in `ingest_log`: its name (same hour, same key)."""
    return Path(path).name


def loaded_files(store: Store) -> set[str]:
    """Names of files already loaded successfully."""
    return {
        r[0]
        for r in store.con.execute(
            "SELECT target FROM ingest_log WHERE source = ? AND status = 'ok'", [SOURCE]
        ).fetchall()
    }


# ---------------------------------------------------------------------------- both sides
# Per file, repository and day of one scan (table {g}) -> the three aggregates, appended to
# the accumulators _gha_activity, _gha_tags and _gha_releases (schemas in SCHEMAS).
SCHEMAS = {
    "activity": "repo VARCHAR, day DATE, stars BIGINT, pushes BIGINT, tags BIGINT, releases BIGINT",
    "tags": "repo VARCHAR, tag VARCHAR, created_at TIMESTAMP",
    "releases": "repo VARCHAR, tag VARCHAR, name VARCHAR, body VARCHAR, "
    "published_at TIMESTAMP, prerelease BOOLEAN, url VARCHAR",
}
SCAN_SCHEMA = (
    "filename VARCHAR, repo VARCHAR, day DATE, events BIGINT, stars BIGINT, "
    "pushes BIGINT, tags STRUCT(tag VARCHAR, created_at TIMESTAMP)[], "
    f"releases {RELEASE}[]"
)
_DERIVED = {
    "activity": "SELECT * FROM (SELECT g.repo, g.day, sum(g.stars)::BIGINT AS stars, "
    "sum(g.pushes)::BIGINT AS pushes, coalesce(sum(len(g.tags)), 0)::BIGINT AS tags, "
    "coalesce(sum(len(g.releases)), 0)::BIGINT AS releases FROM {g} g "
    "WHERE g.repo IS NOT NULL AND g.day IS NOT NULL GROUP BY g.repo, g.day) "
    "WHERE stars + pushes + tags + releases > 0",
    "tags": "SELECT repo, t.tag AS tag, t.created_at AS created_at FROM "
    "(SELECT repo, unnest(tags) AS t FROM {g} WHERE len(tags) > 0) "
    "WHERE t.tag IS NOT NULL",
    "releases": "SELECT repo, r.tag_name AS tag, r.name AS name, r.body AS body, "
    "r.published_at AS published_at, r.prerelease AS prerelease, r.html_url AS url "
    "FROM (SELECT repo, unnest(releases) AS r FROM {g} WHERE len(releases) > 0) "
    "WHERE r.tag_name IS NOT NULL",
}


def _create_accumulators(con: duckdb.DuckDBPyConnection) -> None:
    for name, schema in SCHEMAS.items():
        con.execute(f"CREATE OR REPLACE TEMP TABLE _gha_{name} ({schema})")


def _drop_accumulators(con: duckdb.DuckDBPyConnection) -> None:
    for name in SCHEMAS:
        con.execute(f"DROP TABLE IF EXISTS _gha_{name}")


def _aggregate_into(
    con: duckdb.DuckDBPyConnection, files: list[str], events: dict[str, int], failed: dict[str, str]
) -> None:
    """Scan `files` once (a failing scan is retried file by file, so a corrupt file is named
    and the others count) and append their aggregates to the accumulators; events per file go
    to `events`, unreadable files to `failed`. Runs outside any transaction of `con`."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE _gha_g ({SCAN_SCHEMA})")
    good = _scan(con, files, failed)
    by_file = dict(
        con.execute("SELECT filename, sum(events)::BIGINT FROM _gha_g GROUP BY ALL").fetchall()
    )
    events.update({file_key(f): int(by_file.get(f, 0)) for f in good})
    for name, sql in _DERIVED.items():
        con.execute(f"INSERT INTO _gha_{name} {sql.format(g='_gha_g')}")
    con.execute("DROP TABLE _gha_g")


def _scan(con: duckdb.DuckDBPyConnection, files: list[str], failed: dict[str, str]) -> list[str]:
    """Append the scan of `files` to _gha_g; returns the files read (the others in `failed`)."""
    try:
        con.execute(f"INSERT INTO _gha_g {_SCAN}", {"files": files, "columns": EVENT_COLUMNS})
        return files
    except duckdb.Error as exc:  # the statement wrote nothing: read the files one by one
        if len(files) == 1:
            failed[file_key(files[0])] = _reason(exc, files[0])
            return []
    return [f for one in files for f in _scan(con, [one], failed)]


# ---------------------------------------------------------------------------- worker side
def aggregate_files(
    paths: Sequence[Path | str], memory_limit: str = "2GB", threads: int | None = None
) -> Aggregate:
    """Aggregate a batch of hourly files (one scan) on a connection of its own (no store):
    a Dask worker's job; the aggregates come back as Arrow tables."""
    con = duckdb.connect()
    try:
        con.execute(f"SET memory_limit = '{memory_limit}'")
        con.execute("SET preserve_insertion_order = false")
        if threads:
            con.execute(f"SET threads = {int(threads)}")
        _create_accumulators(con)
        agg = Aggregate(workers={f"{socket.gethostname()}:{os.getpid()}"})
        _aggregate_into(con, [str(p) for p in paths], agg.events_by_file, agg.failed)
        for name in SCHEMAS:
            setattr(agg, name, con.table(f"_gha_{name}").to_arrow_table())
        return agg
    finally:
        con.close()


def _reason(exc: Exception, path: str) -> str:
    """The first line of a DuckDB error, without the path (the caller names the file)."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text.replace(path, file_key(path)).strip()[:300]


def combine(parts: Iterable[Aggregate]) -> Aggregate:
    """Concatenate several batches' aggregates (the writer re-aggregates by key)."""
    import pyarrow as pa

    out = Aggregate()
    tables: dict[str, list[pa.Table]] = {name: [] for name in SCHEMAS}
    for part in parts:
        out.events_by_file.update(part.events_by_file)
        out.failed.update(part.failed)
        out.workers |= part.workers
        for name, bucket in tables.items():
            table = getattr(part, name)
            if table is not None and table.num_rows:
                bucket.append(table)
    for name, bucket in tables.items():
        setattr(out, name, pa.concat_tables(bucket) if bucket else None)
    return out


# ---------------------------------------------------------------------------- writer side
def write_aggregates(store: Store, agg: Aggregate, settings: Settings) -> dict:
    """Add a combined aggregate (from workers) to the store: see `_write`."""
    con = store.con
    for name, schema in SCHEMAS.items():
        table = getattr(agg, name)
        if table is not None:
            con.register(f"_gha_{name}", table)
        else:
            con.execute(
                f"CREATE OR REPLACE TEMP VIEW _gha_{name} AS SELECT unnest(s) FROM "
                f"(SELECT NULL::STRUCT({schema}) AS s) WHERE false"
            )
    try:
        return _write(store, agg.events_by_file, agg.failed, settings)
    finally:
        for name in SCHEMAS:
            if getattr(agg, name) is not None:
                con.unregister(f"_gha_{name}")
            else:
                con.execute(f"DROP VIEW _gha_{name}")


def _write(
    store: Store, events_by_file: dict[str, int], failed: dict[str, str], settings: Settings
) -> dict[str, int]:
    """The aggregates in `_gha_activity`, `_gha_tags`, `_gha_releases` (tables or views of the
    store's connection) into the store in one transaction with one ingest_log row per file;
    files in `failed` get a 'failed' row each, in a transaction of their own (so the good
    files' data and log rows commit together). Returns rows written per table."""
    rows: dict[str, int] = {}
    if events_by_file:
        with store.transaction():
            _alias_map(store, settings)
            rows = _merge(store.con)
            store.log_loads(
                [
                    Load(source=SOURCE, target=name, rows_read=events, message=f"{events:,} events")
                    for name, events in events_by_file.items()
                ]
            )
    if failed:
        with store.transaction():
            store.log_loads(
                [
                    Load(source=SOURCE, target=name, status="failed", message=why)
                    for name, why in failed.items()
                ]
            )
    return rows


def _alias_map(store: Store, settings: Settings) -> None:
    """Temp table _gha_alias(alias, repo): stored aliases plus configured ones."""
    store.con.execute(
        "CREATE OR REPLACE TEMP TABLE _gha_alias AS SELECT alias, repo FROM repo_aliases"
    )
    for alias, repo in settings.aliases.items():
        store.con.execute(
            "INSERT INTO _gha_alias SELECT ?, ? WHERE ? NOT IN (SELECT alias FROM _gha_alias)",
            [alias, repo, alias],
        )


_FOLD = "coalesce(a.repo, x.repo)"


def _merge(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Additive upserts from the registered _gha_* tables into the store tables."""
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE _gha_day AS SELECT {_FOLD} AS repo, day, "
        "sum(stars)::BIGINT AS stars, sum(pushes)::BIGINT AS pushes, sum(tags)::BIGINT AS tags, "
        "sum(releases)::BIGINT AS releases FROM _gha_activity x "
        "LEFT JOIN _gha_alias a ON a.alias = x.repo GROUP BY ALL"
    )
    stars = con.execute(
        "INSERT INTO stars_added_daily BY NAME SELECT repo, day, stars AS stars_added, "
        f"'{SOURCE}' AS source FROM _gha_day WHERE stars > 0 "
        "ON CONFLICT (repo, day) DO UPDATE SET stars_added = stars_added + EXCLUDED.stars_added"
    ).fetchall()[0][0]
    activity = con.execute(
        "INSERT INTO activity_daily BY NAME SELECT repo, day, pushes, tags AS tags_created, "
        f"releases AS releases_published, '{SOURCE}' AS source FROM _gha_day "
        "WHERE pushes + tags + releases > 0 ON CONFLICT (repo, day) DO UPDATE SET "
        "pushes = pushes + EXCLUDED.pushes, tags_created = tags_created + EXCLUDED.tags_created, "
        "releases_published = releases_published + EXCLUDED.releases_published"
    ).fetchall()[0][0]
    tags = con.execute(
        f"INSERT INTO tags_created BY NAME SELECT {_FOLD} AS repo, tag, min(created_at) AS "
        f"created_at, '{SOURCE}' AS source FROM _gha_tags x LEFT JOIN _gha_alias a "
        "ON a.alias = x.repo GROUP BY ALL ON CONFLICT (repo, tag) DO UPDATE SET "
        "created_at = least(created_at, EXCLUDED.created_at)"
    ).fetchall()[0][0]
    releases = con.execute(
        f"INSERT INTO releases BY NAME SELECT {_FOLD} AS repo, tag, "
        "arg_max(name, published_at) AS name, max(published_at) AS published_at, "
        "arg_max(prerelease, published_at) AS is_prerelease, arg_max(body, published_at) AS body, "
        f"arg_max(url, published_at) AS url, '{SOURCE}' AS source FROM _gha_releases x "
        "LEFT JOIN _gha_alias a ON a.alias = x.repo GROUP BY ALL "
        "ON CONFLICT (repo, tag) DO NOTHING"
    ).fetchall()[0][0]
    con.execute("DROP TABLE _gha_day")
    return {
        "stars_added_daily": int(stars),
        "activity_daily": int(activity),
        "tags_created": int(tags),
        "releases": int(releases),
    }


# ---------------------------------------------------------------------------- both
def batches(paths: Sequence[Path], size: int) -> list[list[Path]]:
    """`paths` cut into consecutive batches of at most `size` files."""
    size = max(1, size)
    return [list(paths[i : i + size]) for i in range(0, len(paths), size)]


def pending(store: Store, specs: Iterable[str | Path]) -> tuple[list[Path], int]:
    """(files not loaded yet, one per file name; number already loaded) among `specs`."""
    done = loaded_files(store)
    paths = resolve_paths(specs)
    todo: dict[str, Path] = {}
    for path in paths:
        if file_key(path) not in done:
            todo.setdefault(file_key(path), path)
    return list(todo.values()), sum(file_key(p) in done for p in paths)


def ingest_gharchive(
    store: Store,
    specs: Iterable[str | Path],
    settings: Settings,
    progress: Callable[[int, int], None] | None = None,
) -> GharchiveSummary:
    """Load hourly GH Archive files (files, directories or globs) into the store; see the module.

    Files already loaded are skipped; a truncated or corrupt file is reported by name (in the
    summary and as a 'failed' `ingest_log` row) and the rest still load. Each set of up to
    `gharchive_files_per_write` files (a week of hours by default) is written in one
    transaction, so long backfills keep memory bounded and commit as they go.
    `progress(files_done, files_total)` is called after each batch.

    The scans run on the store's own connection (its temp tables hold the aggregates, which
    go to the store without an Arrow round trip or a connection per batch); inside a caller's
    transaction, where a failing scan would abort it, they run on connections of their own.
    """
    t0 = time.perf_counter()
    todo, skipped = pending(store, specs)
    summary = GharchiveSummary(files_skipped=skipped)
    done = 0
    with store.bulk(settings.gharchive_memory_limit):
        for file_set in batches(todo, settings.gharchive_files_per_write):
            if store.in_transaction:
                parts = []
                for batch in batches(file_set, settings.gharchive_batch_files):
                    parts.append(aggregate_files(batch, settings.gharchive_memory_limit))
                    done += len(batch)
                    if progress:
                        progress(done, len(todo))
                agg = combine(parts)
                summary.add(agg, write_aggregates(store, agg, settings))
                continue
            agg = Aggregate()
            _create_accumulators(store.con)
            try:
                for batch in batches(file_set, settings.gharchive_batch_files):
                    _aggregate_into(
                        store.con, [str(p) for p in batch], agg.events_by_file, agg.failed
                    )
                    done += len(batch)
                    if progress:
                        progress(done, len(todo))
                summary.add(agg, _write(store, agg.events_by_file, agg.failed, settings))
            finally:
                _drop_accumulators(store.con)
    summary.seconds = time.perf_counter() - t0
    return summary
