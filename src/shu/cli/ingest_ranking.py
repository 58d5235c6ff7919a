"""`shu ingest ranking`: daily star counts from ranking files into `stars_daily`."""

from __future__ import annotations

from pathlib import Path

import typer

from shu.cli import DbOption, console, db_path, ingest_app


@ingest_app.command("ranking")
def ingest_ranking(
    path: Path = typer.Argument(..., help="Directory of github-ranking-YYYY-MM-DD.csv files, "
                                "one such file, or a long Parquet/CSV table (day, repo, stars"
                                "[, forks, open_issues])."),
    db: Path = DbOption,
) -> None:
    """Load daily star counts into stars_daily (idempotent; bad files change nothing).

    Example: shu ingest ranking ../shared/data/stars/stars_daily.parquet
    """
    from shu.sources.ranking import import_ranking
    from shu.store import open_store

    with open_store(db_path(db)) as store:
        load = import_ranking(store, path)
    console.print(f"{path}: read {load.rows_read:,}, inserted {load.rows_inserted:,}, updated "
                  f"{load.rows_updated:,}, rejected {load.rows_rejected:,}"
                  + (f"; {load.message}" if load.message else ""), highlight=False)
