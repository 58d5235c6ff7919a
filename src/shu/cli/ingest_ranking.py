"""`shu ingest ranking`: daily star counts from ranking files into `stars_daily`."""

from __future__ import annotations

from pathlib import Path

import typer

from shu.cli import PARTIAL_EXIT, DbOption, console, db_path, err_console, ingest_app


@ingest_app.command("ranking")
def ingest_ranking(
    path: Path = typer.Argument(
        ...,
        help="Directory of github-ranking-YYYY-MM-DD.csv files, "
        "one such file, or a long Parquet/CSV table (day, repo, stars"
        "[, forks, open_issues]).",
    ),
    db: Path = DbOption,
) -> None:
    """Load daily star counts into stars_daily (idempotent; a bad file alone changes nothing).

    In a directory, a malformed file is left out whole and named on stderr and in ingest_log
    while the other files load; the exit status is then 3.

    \b
    Example: shu ingest ranking data/stars/stars_daily.parquet
    Example: shu ingest ranking data/ranking/github-ranking-2026-02-28.csv
    """
    from shu.settings import get_settings
    from shu.snapshot import open_for_writing
    from shu.sources.ranking import import_ranking

    with open_for_writing(db_path(db)) as store:
        load = import_ranking(store, path, get_settings())
    console.print(
        f"{path}: read {load.rows_read:,}, inserted {load.rows_inserted:,}, updated "
        f"{load.rows_updated:,}, rejected {load.rows_rejected:,}"
        + (f"; {load.message}" if load.message else ""),
        highlight=False,
    )
    for bad, reason in load.failed_files.items():
        err_console.print(
            f"failed: {bad.name}: {reason}", highlight=False, markup=False, soft_wrap=True
        )
    if load.failed_files:
        raise typer.Exit(PARTIAL_EXIT)
