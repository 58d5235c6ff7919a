"""Analyst commands: `shu tables`, `shu sql` (read-only, confined to the store; exports) and
`shu docs` (data dictionary)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table as RichTable

from shu.cli import DbOption, app, console, db_path, err_console

# shu.analyst (pyarrow) and shu.store (duckdb) are imported inside the commands: every `shu`
# invocation imports this module to register them, and most never need those (issue 20).


@app.command()
def tables(db: Path = DbOption) -> None:
    """List the store's tables and views with row counts (read-only, confined to the store).

    Example: shu tables --db data/shu.duckdb
    """
    from shu.analyst import open_analyst
    from shu.store import list_tables

    store, note = open_analyst(db_path(db))
    if note:
        err_console.print(note, highlight=False, markup=False)
    with store:
        out = RichTable("table", "kind", "rows")
        for name, kind, rows in list_tables(store.con):
            out.add_row(name, kind, f"{rows:,}")
        console.print(out)


@app.command()
def sql(
    query: str = typer.Argument(..., help="One read-only SQL statement over the store's tables."),
    csv_out: str = typer.Option(None, "--csv", metavar="PATH", help="Write CSV to PATH ('-' "
                                "prints it)."),
    json_out: str = typer.Option(None, "--json", metavar="PATH", help="Write a JSON array of "
                                 "objects to PATH ('-' prints it)."),
    parquet_out: str = typer.Option(None, "--parquet", metavar="PATH",
                                    help="Write a Parquet file to PATH."),
    limit: int = typer.Option(1000, help="Most rows shown in the table view (not exports)."),
    db: Path = DbOption,
) -> None:
    """Run one read-only SQL statement against the store and print or export the result.

    The query sees only the store's tables: reading or writing files (read_csv, COPY ... TO),
    ATTACH, INSTALL/LOAD and SET are refused. Exports go through --csv/--json/--parquet PATH.

    Example: shu sql "select repo, max(stars) from stars_daily group by repo order by 2 desc
    limit 5" --csv top.csv
    """
    from shu.analyst import export_result, open_analyst, run_query

    exports = [(fmt, target) for fmt, target in
               (("csv", csv_out), ("json", json_out), ("parquet", parquet_out)) if target]
    store, note = open_analyst(db_path(db))
    if note:
        err_console.print(note, highlight=False, markup=False)
    with store:
        result = run_query(store.con, query)
    if result is None:
        return
    for fmt, target in exports:
        export_result(result, fmt, target)
        if target != "-":
            err_console.print(f"wrote {result.table.num_rows:,} rows to {target}",
                              highlight=False, markup=False)
    if exports:
        return
    out = RichTable(*result.names)
    rows = result.rows()
    for r in rows[:limit]:
        out.add_row(*("" if v is None else str(v) for v in r))
    console.print(out)
    if len(rows) > limit:
        console.print(f"({len(rows) - limit:,} more rows; use --csv PATH or --limit)")


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
