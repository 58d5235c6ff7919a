"""Analyst commands: `shu tables`, `shu sql` (read-only, confined to the store; exports) and
`shu docs` (data dictionary)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table as RichTable

from shu.cli import (
    DbOption,
    LimitOption,
    app,
    console,
    db_path,
    display,
    err_console,
    json_option,
    out_option,
    print_json,
    print_rows,
)
from shu.errors import InputError

# shu.analyst (pyarrow) and shu.store (duckdb) are imported inside the commands: every `shu`
# invocation imports this module to register them, and most never need those.


@app.command()
def tables(
    as_json: bool = json_option("Print a JSON list: each table's name, kind and row count."),
    db: Path = DbOption,
) -> None:
    """List the store's tables and views with row counts (read-only, confined to the store).

    \b
    Example: shu tables --db data/shu.duckdb
    Example: shu tables --json
    """
    from shu.analyst import open_analyst
    from shu.store import list_tables

    store, note = open_analyst(db_path(db))
    if note:
        err_console.print(note, highlight=False, markup=False)
    with store:
        listed = list_tables(store.con)
    if as_json:
        print_json([{"table": name, "kind": kind, "rows": rows} for name, kind, rows in listed])
        return
    out = RichTable("table", "kind", "rows")
    for name, kind, rows in listed:
        out.add_row(name, kind, f"{rows:,}")
    console.print(out, highlight=False)


SUFFIX_FORMATS = {".csv": "csv", ".json": "json", ".parquet": "parquet"}


@app.command()
def sql(
    query: str = typer.Argument(..., help="One read-only SQL statement over the store's tables."),
    as_csv: bool = typer.Option(
        False, "--csv", help="CSV on standard output (with --out: CSV into the file)."
    ),
    as_json: bool = json_option(
        "A JSON array of objects on standard output (with --out: into the file)."
    ),
    out: str = typer.Option(
        None,
        "--out",
        "-o",
        metavar="PATH",
        help="Write the result to "
        "PATH, in the format its suffix names (.csv, .json, .parquet) "
        "unless --csv/--json says; '-' is standard output.",
    ),
    parquet: str = typer.Option(
        None,
        "--parquet",
        metavar="PATH",
        help="Same as --out PATH, in Parquet whatever the suffix.",
    ),
    limit: int = LimitOption,
    db: Path = DbOption,
) -> None:
    """Run one read-only SQL statement against the store and print or export the result.

    The query sees only the store's tables: reading or writing files (read_csv, COPY ... TO),
    ATTACH, INSTALL/LOAD and SET are refused. Without an option the result prints as a table
    (fractions rounded for reading); --csv and --json print it to standard output with every
    digit, for pipes; --out PATH writes a file.

    \b
    Example: shu sql "select repo, max(stars) from stars_daily group by 1 order by 2 desc"
    Example: shu sql "select * from star_signals where repo = 'ollama/ollama'" --csv | head
    Example: shu sql "select * from forecasts" --json | jq '.[0]'
    Example: shu sql "select * from star_signals" --out signals.parquet
    Example: shu sql "select * from star_signals" --out signals.txt --csv
    """
    from shu.analyst import export_result, open_analyst, run_query

    target = output_target(as_csv, as_json, out, parquet)
    store, note = open_analyst(db_path(db))
    if note:
        err_console.print(note, highlight=False, markup=False)
    with store:
        result = run_query(store.con, query)
    if result is None:
        return
    if target is not None:
        fmt, path = target
        export_result(result, fmt, path)
        if path != "-":
            err_console.print(
                f"wrote {result.table.num_rows:,} rows to {path}", highlight=False, markup=False
            )
        return
    print_rows(
        RichTable(*result.names),
        [[display(v) for v in r] for r in result.rows()],
        limit,
        "every row: --csv, --json, --out PATH or --limit 0",
    )


def output_target(
    as_csv: bool, as_json: bool, out: str | None, parquet: str | None
) -> tuple[str, str] | None:
    """(format, path or '-') that `shu sql`'s options ask for; None for the table view."""
    if as_csv and as_json:
        raise InputError("--csv and --json: choose one format")
    flag = "csv" if as_csv else "json" if as_json else None
    if parquet is not None:
        if out is not None or flag is not None:
            raise InputError("--parquet PATH is --out PATH in Parquet: give it alone")
        out, flag = parquet, "parquet"
    if out is None:
        return None if flag is None else (flag, "-")
    if out == "-":
        return flag or "csv", "-"
    named = SUFFIX_FORMATS.get(Path(out).suffix.lower())
    if flag and named and flag != named:
        raise InputError(f"--{flag} with --out {out}: the suffix says {named}")
    fmt = flag or named
    if not fmt:
        raise InputError(
            f"--out {out}: cannot tell the format from the suffix; use .csv, "
            ".json or .parquet, or add --csv or --json"
        )
    return fmt, out


@app.command()
def docs(
    out: Path = out_option(
        "File to write the data dictionary to, the settings page (settings.md) beside it "
        "[default: docs/data-dictionary.md].",
        Path("docs/data-dictionary.md"),
    ),
) -> None:
    """Render the data dictionary (every table and column) from the schema declarations, and
    the settings page (every shu.toml setting) from the settings declarations.

    Example: shu docs --out docs/data-dictionary.md
    """
    from shu.datadict import render_data_dictionary
    from shu.settings_doc import render_settings_page

    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_data_dictionary(), encoding="utf-8")
    settings_page = out.parent / "settings.md"
    settings_page.write_text(render_settings_page(), encoding="utf-8")
    console.print(f"wrote {out} and {settings_page}")
