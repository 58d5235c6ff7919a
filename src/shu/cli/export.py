"""`shu export`: every analyst table to Parquet or CSV files (thin over shu.notebook)."""

from __future__ import annotations

from pathlib import Path

import typer

from shu.cli import DbOption, app, console, db_path, out_option


@app.command()
def export(
    out: Path = out_option("Folder to write <table>.parquet / <table>.csv into."),
    path: Path = typer.Argument(
        None, metavar="PATH", help="The folder, as --out PATH names it (an older spelling)."
    ),
    fmt: str = typer.Option("parquet", "--format", metavar="FORMAT", help="parquet or csv."),
    table: list[str] = typer.Option(
        None, "--table", metavar="TABLE", help="Only this table (repeatable)."
    ),
    db: Path = DbOption,
) -> None:
    """Write every analyst table (stars_daily, star_signals, forecasts, …) to files, read-only.

    Example: shu export --out exports/ --format parquet
    """
    from shu.errors import InputError
    from shu.notebook import export_tables

    if out is not None and path is not None and out != path:
        raise InputError(f"--out {out} and {path}: give the folder once, as --out PATH")
    folder = out or path
    if folder is None:
        raise InputError("--out PATH: where to write the tables, e.g. --out exports/")
    written = export_tables(folder, fmt, tables=table or None, db=db_path(db))
    for _name, rows, written_to in written:
        console.print(f"{written_to}: {rows:,} rows", highlight=False)
    console.print(f"exported {len(written)} tables to {folder}", highlight=False)
