"""Analyst commands: `shu tables`, `shu sql` (read-only) and `shu docs` (data dictionary)."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import duckdb
import typer
from rich.table import Table as RichTable

from shu.cli import DbOption, app, console, db_path, err_console
from shu.errors import InputError
from shu.snapshot import open_for_reading


@app.command()
def tables(db: Path = DbOption) -> None:
    """List the store's tables and views with row counts.

    Example: shu tables --db data/shu.duckdb
    """
    store, note = open_for_reading(db_path(db))
    if note:
        err_console.print(note, highlight=False, markup=False)
    with store:
        out = RichTable("table", "kind", "rows")
        for name, kind, rows in store.tables():
            out.add_row(name, kind, f"{rows:,}")
        console.print(out)


@app.command()
def sql(
    query: str = typer.Argument(..., help="SQL to run (read-only)."),
    as_csv: bool = typer.Option(False, "--csv", help="Print CSV."),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON array of objects."),
    limit: int = typer.Option(1000, help="Most rows shown in the table view (not CSV/JSON)."),
    db: Path = DbOption,
) -> None:
    """Run a read-only SQL query against the store and print the result.

    Example: shu sql "select repo, max(stars) from stars_daily group by repo order by 2 desc
    limit 5"
    """
    store, note = open_for_reading(db_path(db))
    if note:
        err_console.print(note, highlight=False, markup=False)
    with store:
        try:
            cur = store.con.execute(query)
        except duckdb.Error as exc:
            first = str(exc).splitlines()[0]
            raise InputError(f"query failed: {first}") from exc
        if cur.description is None:
            return
        names = [d[0] for d in cur.description]
        rows = cur.fetchall()
    if as_csv:
        w = csv.writer(sys.stdout)
        w.writerow(names)
        w.writerows(rows)
    elif as_json:
        print(json.dumps([dict(zip(names, r, strict=True)) for r in rows], default=str, indent=1))
    else:
        out = RichTable(*names)
        for r in rows[:limit]:
            out.add_row(*("" if v is None else str(v) for v in r))
        console.print(out)
        if len(rows) > limit:
            console.print(f"({len(rows) - limit:,} more rows; use --csv or --limit)")


@app.command()
def docs(
    out: Path = typer.Option(Path("docs/data-dictionary.md"), help="File to write."),
) -> None:
    """Render the data dictionary (every table and column) from the schema declarations.

    Example: shu docs --out docs/data-dictionary.md
    """
    from shu.datadict import render_data_dictionary

    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_data_dictionary(), encoding="utf-8")
    console.print(f"wrote {out}")
