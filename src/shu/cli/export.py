"""`shu export`: every analyst table to Parquet or CSV files (thin over shu.notebook)."""

from __future__ import annotations

from pathlib import Path

import typer

from shu.cli import DbOption, app, console, db_path


@app.command()
def export(
    path: Path = typer.Argument(..., help="Folder to write <table>.parquet / <table>.csv into."),
    fmt: str = typer.Option("parquet", "--format", help="parquet or csv."),
    table: list[str] = typer.Option(None, "--table", help="Only this table (repeatable)."),
    db: Path = DbOption,
) -> None:
    """Write every analyst table (stars_daily, star_signals, forecasts, …) to files, read-only.

    Example: shu export exports/ --format parquet
    """
    from shu.notebook import export_tables

    written = export_tables(path, fmt, tables=table or None, db=db_path(db))
    for _name, rows, out in written:
        console.print(f"{out}: {rows:,} rows", highlight=False)
    console.print(f"exported {len(written)} tables to {path}")
