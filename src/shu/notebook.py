"""The notebook API: read the store from Python as pandas DataFrames, and export its tables.

    import shu
    con = shu.connect()                     # read-only DuckDB connection (the snapshot while a
                                            # run holds the store)
    shu.star_signals("pytorch/pytorch")     # star signals of one repository, by day
    shu.forecasts(repo="ollama/ollama")     # issued forecasts with their resolution, if any
    shu.track_record()                      # resolved forecasts, scored
    shu.radar(top=10)                       # the breakout radar, as `shu radar --json` lists it

Every helper takes `con=` (a connection from `connect`) or `db=` (a store path; default the
configured one) and opens nothing for writing. Without `con=` a helper uses the connection
`connect` gives for that store: one per store in a process, opened on first use, so
`con = shu.connect(); shu.star_signals(...)` share it (DuckDB allows no second, differently set
connection to a file one process has open). `export_tables` writes every analyst table to
Parquet or CSV (`shu export`).
"""

from __future__ import annotations

import warnings
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from shu.errors import InputError
from shu.snapshot import open_for_reading

if TYPE_CHECKING:
    import pandas as pd

EXPORT_FORMATS = ("parquet", "csv")


# The open connection of each store this process reads (by resolved path): `connect` and every
# helper called without `con=` share it.
_OPEN: dict[Path, duckdb.DuckDBPyConnection] = {}


def connect(db: Path | str | None = None) -> duckdb.DuckDBPyConnection:
    """The read-only connection to the store at `db` (default: settings.db), confined to the
    store like `shu sql` (`shu.analyst`: no file, URL, other database or setting is reachable
    through it; export with `export_tables` or `.df()`).

    One per store in a process: while it is open, `connect` (and each helper without `con=`)
    returns the same connection; once closed, the next call opens a new one. When a running flow
    holds the store for writing, the connection reads its latest snapshot instead and a warning
    says how old that snapshot is. Writes through it fail (read-only).
    """
    from shu.analyst import open_analyst

    path = _store_path(db)
    held = _OPEN.get(path)
    if held is not None and _is_open(held):
        return held
    store, note = open_analyst(path)
    if note:
        warnings.warn(note, stacklevel=2)
    _OPEN[path] = store.con
    return store.con


def _store_path(db: Path | str | None) -> Path:
    from shu.settings import get_settings

    return Path(db if db is not None else get_settings().db).resolve()


def _is_open(con: duckdb.DuckDBPyConnection) -> bool:
    try:
        con.execute("SELECT 1")
    except duckdb.ConnectionException:
        return False
    return True


def _con(con: duckdb.DuckDBPyConnection | None, db: Path | str | None) -> duckdb.DuckDBPyConnection:
    return con if con is not None else connect(db)


def _repo(name: str) -> str:
    from shu.settings import get_settings

    return get_settings().canonical(name)


def star_signals(
    repo: str,
    since: date | str | None = None,
    *,
    con: duckdb.DuckDBPyConnection | None = None,
    db: Path | str | None = None,
) -> pd.DataFrame:
    """`star_signals` of `repo` (old names folded), one row per day from `since`, oldest first."""
    c = _con(con, db)
    df = c.execute(
        "SELECT * FROM star_signals WHERE repo = ? AND day >= coalesce(?::DATE, "
        "DATE '0001-01-01') ORDER BY day",
        [_repo(repo), since],
    ).df()
    if (
        df.empty
        and not c.execute(
            "SELECT count(*) FROM star_signals WHERE repo = ?", [_repo(repo)]
        ).fetchall()[0][0]
    ):
        raise InputError(f"no star signals for {repo!r}: check the name, or run `shu signals`")
    return df


def forecasts(
    repo: str | None = None,
    *,
    con: duckdb.DuckDBPyConnection | None = None,
    db: Path | str | None = None,
) -> pd.DataFrame:
    """Issued forecasts (newest origin first) with their resolution columns (NULL until their
    horizon passes): outcome, observed_value, resolved_at."""
    return (
        _con(con, db)
        .execute(
            "SELECT f.forecast_id, f.repo, f.template, f.origin, f.horizon_days, f.resolves_on, "
            "f.threshold, f.question, f.probability, f.confidence, f.model_version, f.issued_at, "
            "r.outcome, r.observed_value, r.resolved_at FROM forecasts f "
            "LEFT JOIN forecast_resolutions r USING (forecast_id) "
            "WHERE ? IS NULL OR f.repo = ? ORDER BY f.origin DESC, f.repo, f.template, "
            "f.horizon_days, f.threshold",
            [repo and _repo(repo)] * 2,
        )
        .df()
    )


OUTCOME_SQL = "CAST(r.outcome = 'yes' AS INTEGER)"  # a resolution's outcome as 0/1


def track_record(
    *, con: duckdb.DuckDBPyConnection | None = None, db: Path | str | None = None
) -> pd.DataFrame:
    """Resolved (non-void) forecasts, one row each: probability, outcome (1 = yes), whether it
    came true as predicted, and its Brier score (p - outcome)^2; newest resolution first."""
    from shu.forecast.evaluation.scoring import squared_error_sql

    return (
        _con(con, db)
        .execute(
            "SELECT f.forecast_id, f.repo, f.template, f.horizon_days, f.origin, f.resolves_on, "
            f"f.probability, f.confidence, {OUTCOME_SQL} AS outcome, "
            "((f.probability >= 0.5) = (r.outcome = 'yes')) AS right_as_predicted, "
            f"{squared_error_sql('f.probability', OUTCOME_SQL)} AS brier, "
            "r.observed_value, r.resolved_at FROM forecasts f "
            "JOIN forecast_resolutions r USING (forecast_id) WHERE r.outcome IN ('yes', 'no') "
            "ORDER BY r.resolved_at DESC, f.forecast_id"
        )
        .df()
    )


def radar(
    *,
    db: Path | str | None = None,
    day: date | None = None,
    top: int = 20,
    tracked: bool = False,
    filtered: bool = True,
) -> list[dict[str, Any]]:
    """The breakout radar (`shu.operations.radar`) as `shu radar --json` lists it: the `top`
    repositories of the newest breakout forecasts on or before `day`, each in the one JSON shape
    of an entry with its receipts: the untracked ones, as the briefing shows them (`tracked`:
    the tracked ones too, as `--tracked`); `filtered` keeps those the radar's keywords match
    (False: every repository, as `--all`)."""
    from shu.operations.radar import radar_view
    from shu.settings import get_settings

    settings = get_settings()
    store, note = open_for_reading(Path(db) if db else settings.db)
    if note:
        warnings.warn(note, stacklevel=2)
    try:
        return radar_view(store, settings, day, top, tracked, filtered).as_json()
    finally:
        store.close()


def analyst_tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The tables and views analysts can rely on (internal ones left out: `_`-prefixed, and
    shu's bookkeeping, `shu.schema.INTERNAL_TABLES`)."""
    from shu.schema import INTERNAL_TABLES

    return [
        r[0]
        for r in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' AND "
            "table_name NOT LIKE '\\_%' ESCAPE '\\' ORDER BY table_name"
        ).fetchall()
        if r[0] not in INTERNAL_TABLES
    ]


def export_tables(
    out: Path | str,
    fmt: str = "parquet",
    *,
    tables: list[str] | None = None,
    db: Path | str | None = None,
) -> list[tuple[str, int, Path]]:
    """Write every analyst table (or `tables`) to `out/<table>.<fmt>`; returns (table, rows,
    path) per file. Each file is written to a temporary name and renamed, so a failed export
    never leaves a half-written file under the final name."""
    if fmt not in EXPORT_FORMATS:
        raise InputError(f"--format {fmt!r}: choose {' or '.join(EXPORT_FORMATS)}")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: exists and is not a folder")
    # shu writes these files itself (names it chose, tables it checked), so this connection is
    # read-only but not confined; the analyst's own `connect()` cannot COPY anywhere.
    path = _store_path(db)
    held = _OPEN.get(path)
    if held is not None and _is_open(held):
        raise InputError(
            f"export_tables: this process reads {path} through shu.connect(), which cannot "
            "write files; close that connection first (con.close()) or run `shu export`"
        )
    store, note = open_for_reading(path)
    if note:
        warnings.warn(note, stacklevel=2)
    con = store.con
    try:
        known = analyst_tables(con)
        unknown = sorted(set(tables or []) - set(known))
        if unknown:
            raise InputError(
                f"no table {', '.join(unknown)} in the store (have: {', '.join(known)})"
            )
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for name in tables or known:
            path = out / f"{name}.{fmt}"
            partial = path.with_name(path.name + ".partial")
            options = (
                "FORMAT parquet, COMPRESSION zstd"
                if fmt == "parquet"
                else "FORMAT csv, HEADER true"
            )
            con.execute(f"COPY (SELECT * FROM \"{name}\") TO '{_sql_path(partial)}' ({options})")
            partial.replace(path)
            rows = con.execute(f'SELECT count(*) FROM "{name}"').fetchall()[0][0]
            written.append((name, int(rows), path))
        return written
    finally:
        con.close()


def _sql_path(path: Path) -> str:
    return str(path).replace("'", "''")
