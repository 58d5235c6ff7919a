"""The `shu` command line: a thin typer layer over the library.

Each command group lives in its own module and registers itself on `app` (or `ingest_app`);
this module holds the shared options, the output helpers and the one-line error handling.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click
import typer
from rich.console import Console
from rich.markup import escape

from shu.errors import ShuError

app = typer.Typer(
    name="shu",
    help="Signals, calibrated forecasts, a GPU probe and a daily briefing with receipts.\n\n"
    "Example: shu ingest ranking ../shared/data/stars/stars_daily.parquet && shu tables",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)
ingest_app = typer.Typer(
    help="Load data into the store (ranking files, GitHub, git clones, documents, probe JSON).\n\n"
    "Example: shu ingest ranking ../shared/data/stars/raw-sample/",
    no_args_is_help=True,
)
app.add_typer(ingest_app, name="ingest")


@app.callback()
def _global_options(
    quiet: bool = typer.Option(
        False,
        "--quiet",
        "-q",
        help="No progress bars (also SHU_QUIET=1;"
        " they are off anyway in CI logs and when stderr is not a "
        "terminal).",
    ),
) -> None:
    """Options every command shares (before the command name: `shu --quiet signals`)."""
    from shu.progress import set_quiet

    set_quiet(quiet)


console = Console()
err_console = Console(stderr=True)

# Exit status of a run that finished but could not load some repositories or files (each is
# named on stderr and has a 'failed' row in ingest_log); 1 is a run refused or stopped outright.
PARTIAL_EXIT = 3

DbOption = typer.Option(
    None,
    "--db",
    envvar="SHU_DB",
    help="DuckDB store path [default: data/shu.duckdb].",
    show_default=False,
)


def db_path(db: Path | None) -> Path:
    """The store path: --db / SHU_DB, else the configured default."""
    if db is not None:
        return db
    from shu.settings import get_settings

    return get_settings().db


def main() -> None:
    """Console-script entry point: runs the app, printing ShuErrors as one line (exit 1)."""
    _register_commands()
    try:
        status = app(standalone_mode=False)  # a command's typer.Exit(n) comes back as n
        sys.stdout.flush()  # here, so that a closed pipe is caught below, not at exit
        if isinstance(status, int) and status:
            sys.exit(status)
    except BrokenPipeError:
        # The reader went away (`shu sql ... --csv | head`) after click's own EPIPE handling
        # (exit 1, nothing printed) could see it: stop the same way, writing nothing more.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    except ShuError as exc:
        err_console.print(
            f"[bold red]error:[/] {escape(str(exc))}", highlight=False, markup=True, soft_wrap=True
        )
        sys.exit(1)
    except (click.exceptions.Exit, typer.Exit) as exc:
        sys.exit(exc.exit_code)
    except (click.exceptions.Abort, typer.Abort):
        err_console.print("aborted")
        sys.exit(130)
    except (click.ClickException, typer.TyperException) as exc:
        # usage errors (typer >= 0.2x raises its own click copy's exceptions)
        exc.show()  # type: ignore[union-attr]
        sys.exit(getattr(exc, "exit_code", 2))


def _register_commands() -> None:
    """Import every command module in this package (each registers its commands)."""
    import importlib
    import pkgutil

    import shu.cli as pkg

    for mod in pkgutil.iter_modules(pkg.__path__):
        importlib.import_module(f"shu.cli.{mod.name}")
