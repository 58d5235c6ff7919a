"""The store's numbered migrations: each changes a stored table in a way the additive
reconciliation of `shu.store` cannot (a rename, a recreated table), applied in order on open and
recorded in `_shu_migrations`. Ordered and append-only: an entry that has shipped is never
edited; a change is a new entry."""

from __future__ import annotations

from collections.abc import Callable

import duckdb

from shu.schema import ALL_TABLES, TABLES_BY_NAME


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> set[str]:
    """The columns table `table` has now (empty when it does not exist)."""
    return {
        r[0]
        for r in con.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = 'main' "
            "AND table_name = ?",
            [table],
        ).fetchall()
    }


def _m001_initial(con: duckdb.DuckDBPyConnection) -> None:
    for table in ALL_TABLES:
        con.execute(table.ddl())


def _m002_star_signals_velocity_90d(con: duckdb.DuckDBPyConnection) -> None:
    """star_signals gained velocity_90d (after velocity_28d): the table is derived, so it is
    recreated empty in the declared column order and the next `shu signals` rebuilds it in full
    (an added column would sit last, NULL on every stored day)."""
    con.execute("DROP TABLE IF EXISTS star_signals")
    con.execute(TABLES_BY_NAME["star_signals"].ddl())


def _m003_unindexed_keys(con: duckdb.DuckDBPyConnection) -> None:
    """Rebuild, without its PRIMARY KEY index, each table now declared `key_indexed=False`
    (stars_daily) that a store created earlier built with one. Its rows are copied as they are
    (they are unique: the index held them so)."""
    for table in ALL_TABLES:
        if (
            table.key_indexed
            or table.view_sql
            or not con.execute(
                "SELECT count(*) FROM duckdb_constraints() WHERE schema_name = 'main' AND "
                "table_name = ? AND constraint_type = 'PRIMARY KEY'",
                [table.name],
            ).fetchall()[0][0]
        ):
            continue
        old = f"_{table.name}_keyed"
        con.execute(f'ALTER TABLE "{table.name}" RENAME TO "{old}"')
        con.execute(table.ddl())
        con.execute(f'INSERT INTO "{table.name}" BY NAME SELECT * FROM "{old}"')
        con.execute(f'DROP TABLE "{old}"')


def _m004_probe_inductor(con: duckdb.DuckDBPyConnection) -> None:
    """probe_runs and probe_results gained what Inductor did (generated kernels, eager kernels,
    substitutions, the `inductor` record, the geomean without substitutions): each table that
    lacks them is rebuilt in the declared column order with its rows kept (the new columns NULL:
    runs before this did not record them)."""
    for name, column in (
        ("probe_runs", "geomean_speedup_without_substitutions"),
        ("probe_results", "inductor"),
    ):
        have = _columns(con, name)
        if not have or column in have:
            continue
        old = f"_{name}_before_inductor"
        con.execute(f'ALTER TABLE "{name}" RENAME TO "{old}"')
        con.execute(TABLES_BY_NAME[name].ddl())
        con.execute(f'INSERT INTO "{name}" BY NAME SELECT * FROM "{old}"')
        con.execute(f'DROP TABLE "{old}"')


def _m005_forecast_distributions(con: duckdb.DuckDBPyConnection) -> None:
    """The one predictive distribution per (repository, origin, horizon): the table
    `forecast_distributions` and `forecasts.distribution_id` naming the distribution a forecast
    was read from. Forecasts issued before keep their rows (distribution_id NULL) and stay
    readable as they were."""
    con.execute(TABLES_BY_NAME["forecast_distributions"].ddl())
    have = _columns(con, "forecasts")
    if have and "distribution_id" not in have:
        con.execute('ALTER TABLE "forecasts" ADD COLUMN "distribution_id" VARCHAR')


def _m006_repos_described_on(con: duckdb.DuckDBPyConnection) -> None:
    """repos.described_on: the day of the ranking file a repository's description came from
    (the ranking importer now stores descriptions). Rows stored before keep their values, the
    new column NULL: their descriptions came from the GitHub API."""
    have = _columns(con, "repos")
    if have and "described_on" not in have:
        con.execute('ALTER TABLE "repos" ADD COLUMN "described_on" DATE')


# commit_signals columns named like star_signals' (stars/day) before migration 7, and their
# names now (commits/day): one column name, one unit.
COMMIT_SIGNALS_RENAMED = {
    "velocity_7d": "commit_velocity_7d",
    "velocity_28d": "commit_velocity_28d",
    "acceleration_7d": "commit_acceleration_7d",
    "acceleration_28d": "commit_acceleration_28d",
    "velocity_7d_z": "commit_velocity_7d_z",
    "velocity_28d_z": "commit_velocity_28d_z",
}


def _m007_commit_velocity_names(con: duckdb.DuckDBPyConnection) -> None:
    """commit_signals' velocities, accelerations and z-scores are commits/day, star_signals' of
    the same names stars/day: the commit ones are renamed `commit_*` in place (values kept)."""
    have = _columns(con, "commit_signals")
    for old, new in COMMIT_SIGNALS_RENAMED.items():
        if old in have and new not in have:
            con.execute(f'ALTER TABLE commit_signals RENAME COLUMN "{old}" TO "{new}"')


def _m008_repo_aliases_source(con: duckdb.DuckDBPyConnection) -> None:
    """repo_aliases.origin ('config' or 'github-301') is how an alias became known, not a
    forecast's issue day (`forecasts.origin`): renamed `source` in place (values kept)."""
    have = _columns(con, "repo_aliases")
    if "origin" in have and "source" not in have:
        con.execute('ALTER TABLE repo_aliases RENAME COLUMN "origin" TO "source"')


def _m009_forecast_calibration_tail_factor(con: duckdb.DuckDBPyConnection) -> None:
    """forecast_calibration.tail_factor: the radar's online tail factor. Rows stored before keep
    their values, the new column NULL: the radar was issued through its model's fitted factor."""
    have = _columns(con, "forecast_calibration")
    if have and "tail_factor" not in have:
        con.execute('ALTER TABLE "forecast_calibration" ADD COLUMN "tail_factor" DOUBLE')


# Ordered, append-only. Never edit an entry that has shipped: add a new one.
MIGRATIONS: list[tuple[int, str, Callable[[duckdb.DuckDBPyConnection], None]]] = [
    (1, "initial schema: every declared table", _m001_initial),
    (
        2,
        "star_signals.velocity_90d: recreated, rebuilt in full by the next refresh",
        _m002_star_signals_velocity_90d,
    ),
    (3, "stars_daily: primary key unique by construction, no index", _m003_unindexed_keys),
    (4, "probe_runs, probe_results: what Inductor did, rows kept", _m004_probe_inductor),
    (
        5,
        "forecast_distributions and forecasts.distribution_id: one predictive distribution",
        _m005_forecast_distributions,
    ),
    (6, "repos.described_on: descriptions from ranking files, by day", _m006_repos_described_on),
    (
        7,
        "commit_signals: velocities, accelerations, z-scores renamed commit_* (commits/day)",
        _m007_commit_velocity_names,
    ),
    (
        8,
        "repo_aliases.origin renamed source (how the alias became known)",
        _m008_repo_aliases_source,
    ),
    (
        9,
        "forecast_calibration.tail_factor: the radar's online tail factor",
        _m009_forecast_calibration_tail_factor,
    ),
]
