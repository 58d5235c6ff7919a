"""`shu signals`: refresh the signal tables (incrementally or in full) and show a repository's."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table as RichTable

from shu.cli import DbOption, app, console, db_path, json_option, print_json, repo_name, stored_name
from shu.errors import InputError
from shu.snapshot import open_for_writing
from shu.store import open_store

signals_app = typer.Typer(
    help="Refresh the signal tables (star/commit velocity, acceleration, peers, releases, and "
    "the daily facts: star gains and the share of repositories losing stars).\n\n"
    "Example: shu signals --full",
    invoke_without_command=True,
)
app.add_typer(signals_app, name="signals")


@signals_app.callback()
def refresh(
    ctx: typer.Context,
    full: bool = typer.Option(False, "--full", help="Recompute every day, not only new ones."),
    as_json: bool = json_option(
        "Print a JSON object instead of the table: per signal table its mode, rows written, "
        "seconds, last day and reason; 'seconds' in all."
    ),
    db: Path = DbOption,
) -> None:
    """Recompute the signals: only the days after the last computed one, or all with --full.

    Example: shu signals --full --db data/shu.duckdb
    """
    if ctx.invoked_subcommand is not None:
        return
    from shu.settings import get_settings
    from shu.signals import refresh_signals

    with open_for_writing(db_path(db)) as store:
        result = refresh_signals(store, full=full, settings=get_settings())
    if as_json:
        print_json(result)
        return
    out = RichTable("table", "mode", "rows written", "seconds", "through", "reason")
    for table, r in result.items():
        if isinstance(r, dict):
            out.add_row(
                table,
                r["mode"],
                f"{r['rows']:,}",
                f"{r['seconds']:.2f}",
                str(r.get("to_day") or ""),
                r.get("reason", ""),
            )
    console.print(out)
    console.print(f"signals refreshed in {result['seconds']:.2f} s")


@signals_app.command("show")
def show(
    repo: str = typer.Argument(..., help="Repository 'owner/name'."),
    as_json: bool = json_option(
        "Print a JSON object instead of the table: the repository's latest signals at full "
        "precision (commits, peers and releases as objects of their own)."
    ),
    db: Path = DbOption,
) -> None:
    """Print the latest signal values of one repository.

    \b
    Example: shu signals show pytorch/pytorch
    Example: shu signals show PyTorch/PyTorch --db data/shu.duckdb
    """
    from shu.signals import latest_signals

    asked = repo_name(repo)
    with open_store(db_path(db), read_only=True) as store:
        repo = stored_name(store.con, asked)
        values = latest_signals(store, repo)
    if not values:
        raise InputError(f"no signals for {repo}: check the name, or run `shu signals` first")
    if as_json:
        print_json(values)
        return
    out = RichTable("signal", "value", title=repo)
    for name, value in values.items():
        if isinstance(value, dict):
            for sub, sub_value in value.items():
                if sub != "repo":
                    out.add_row(f"{name}.{sub}", _fmt(sub_value))
        else:
            out.add_row(name, _fmt(value))
    console.print(out, highlight=False)


def _fmt(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, float):
        return f"{value:+.3f}"
    return str(value)
