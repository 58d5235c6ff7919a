"""The `shu` command line: a thin typer layer over the library.

Each command group lives in its own module and registers itself on `app` (or `ingest_app`);
this module holds the shared options, the output helpers and the one-line error handling.

One grammar for every command, each option defined once here: `--as-of DATE` for the day a
command works on (the older `--day` and `--origin` still work, hidden, on every command that has
`--as-of`), `--from DATE` / `--to DATE` for ranges (`--since`, hidden, wherever `--from` is),
`--json` a switch that prints JSON to standard output (on every command that prints a table),
`--out PATH` a folder where a command writes several files and a file where it writes one,
`--limit N` the rows a long table shows, `-h` as `--help`, `shu --version`; repositories are
`owner/name`, checked before anything is sent anywhere and matched case-insensitively against
the store. A day before any data is an error that says so. On a terminal tables fit the window;
piped, they keep every name and number whole (numbers rounded for display; `--csv` / `--json`
carry full precision); a long one shows its first rows, the count and where the rest is.
"""

from __future__ import annotations

import functools
import math
import os
import re
import sys
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import typer
from rich.console import Console
from rich.markup import escape

from shu import __version__
from shu.errors import InputError, ShuError

if TYPE_CHECKING:
    import duckdb

    from shu.settings import Settings

HELP = {"help_option_names": ["-h", "--help"]}

app = typer.Typer(
    name="shu",
    help="Signals, calibrated forecasts, a GPU probe and a daily briefing with receipts.\n\n"
    "Example: shu ingest ranking data/stars/stars_daily.parquet && shu tables",
    no_args_is_help=True,
    context_settings=HELP,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)
ingest_app = typer.Typer(
    help="Load data into the store (ranking files, GitHub, git clones, documents, probe JSON).\n\n"
    "Example: shu ingest ranking data/ranking/",
    no_args_is_help=True,
    context_settings=HELP,
)
app.add_typer(ingest_app, name="ingest")


def _print_version(value: bool) -> None:
    if value:
        print(f"shu {__version__}")
        raise typer.Exit()


@app.callback()
def _global_options(
    version: bool = typer.Option(
        False,
        "--version",
        is_eager=True,
        callback=_print_version,
        help="Print shu's version and exit.",
    ),
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


# Piped (not a terminal), a table is as wide as its content: names and numbers stay whole.
PIPE_WIDTH = 100_000
console = Console(width=None if sys.stdout.isatty() else PIPE_WIDTH)
err_console = Console(stderr=True, width=None if sys.stderr.isatty() else PIPE_WIDTH)

# Exit status of a run that finished but could not load some repositories or files (each is
# named on stderr and has a 'failed' row in ingest_log); 1 is a run refused or stopped outright.
PARTIAL_EXIT = 3

DbOption = typer.Option(
    None,
    "--db",
    metavar="PATH",
    envvar="SHU_DB",
    help="DuckDB store path [default: data/shu.duckdb].",
    show_default=False,
)


def checked_settings() -> Settings:
    """The process-wide settings, read and checked: shu.toml / SHU_CONFIG / SHU_* (ConfigError
    naming the mistake) and the declared questions, one that cannot be issued stopping every
    command as a typo does (`check_declared_questions`, the check `shu forecast` runs too)."""
    from shu.settings import get_settings, source_of

    settings = get_settings()
    if settings.questions:  # only then the forecaster's templates are imported
        from shu.forecast.questions.registry import check_declared_questions

        check_declared_questions(settings.questions, source_of("questions"))
    return settings


def db_path(db: Path | None) -> Path:
    """The store path: --db / SHU_DB, else the configured default (the settings are checked
    either way: a mistake in them stops the command)."""
    settings = checked_settings()  # even when --db / SHU_DB names the store
    return db if db is not None else settings.db


# ---------------------------------------------------------------------------- the grammar
REPO_NAME = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


def as_of_option(help_text: str) -> Any:
    """`--as-of DATE`: the day a command works on (with `DayAlias` and `OriginAlias` beside it)."""
    return typer.Option(None, "--as-of", metavar="DATE", help=help_text, show_default=False)


def from_option(help_text: str) -> Any:
    """`--from DATE`: the first day of a range (with `SinceAlias` beside it)."""
    return typer.Option(None, "--from", metavar="DATE", help=help_text, show_default=False)


def to_option(help_text: str) -> Any:
    """`--to DATE`: the last day of a range."""
    return typer.Option(None, "--to", metavar="DATE", help=help_text, show_default=False)


def out_option(help_text: str, default: Path | None = None) -> Any:
    """`--out PATH`: the folder a command writes its files into, or the one file it writes."""
    return typer.Option(default, "--out", metavar="PATH", help=help_text, show_default=False)


def json_option(help_text: str) -> Any:
    """`--json`: a switch printing the command's result as JSON on standard output."""
    return typer.Option(False, "--json", help=help_text)


# Older spellings, hidden but working on every command that has the option they stand for:
# `--day` and `--origin` for `--as-of`, `--since` for `--from`.
DayAlias = typer.Option(None, "--day", hidden=True)
OriginAlias = typer.Option(None, "--origin", hidden=True)
SinceAlias = typer.Option(None, "--since", hidden=True)

# Rows a table shows before it says how many more there are and where to get them all.
TABLE_ROWS = 20
LimitOption = typer.Option(
    TABLE_ROWS,
    "--limit",
    metavar="N",
    help="Rows the table shows (0: every row); --json prints them all.",
)


def parse_day(value: str | None, option: str = "--as-of") -> date | None:
    """A YYYY-MM-DD option value as a date (None when not given)."""
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise InputError(f"{option} {value!r}: expected a date as YYYY-MM-DD") from None


def required(day: date | None, option: str) -> date:
    """The day of an option that must be given (`--from`, `--to` of a range)."""
    if day is None:
        raise InputError(f"{option}: a date (YYYY-MM-DD) is required")
    return day


def one_day(option: str, value: str | None, older: dict[str, str | None]) -> date | None:
    """The day `option` names, or one of its older spellings (`older`: name -> value); not two
    different days."""
    given = {name: v for name, v in [(option, value), *older.items()] if v is not None}
    if len(set(given.values())) > 1:
        both = " and ".join(f"{name} {v}" for name, v in given.items())
        raise InputError(f"{both}: give one ({option})")
    name, text = next(iter(given.items()), (option, None))
    return parse_day(text, name)


def as_of_day(as_of: str | None, day: str | None, origin: str | None) -> date | None:
    """The day of `--as-of` (or `--day` / `--origin`, hidden)."""
    return one_day("--as-of", as_of, {"--day": day, "--origin": origin})


def from_day(start: str | None, since: str | None) -> date | None:
    """The day of `--from` (or `--since`, hidden)."""
    return one_day("--from", start, {"--since": since})


def print_json(value: object) -> None:
    """`value` as JSON on standard output: dates and other values as their text, a float that
    is not a number (NaN, infinity) as null."""
    import json

    def plain(v: object) -> object:
        if isinstance(v, float) and not math.isfinite(v):
            return None
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, list | tuple):
            return [plain(x) for x in v]
        return v

    print(json.dumps(plain(value), indent=1, default=str, allow_nan=False))


def print_rows(table: Any, rows: list[list[str]], limit: int, rest: str) -> None:
    """`table` with the first `limit` of `rows` (every row when `limit` is 0), then, when some
    were left out, how many and where to get them all (`rest`)."""
    shown = rows if limit <= 0 else rows[:limit]
    for row in shown:
        table.add_row(*row)
    console.print(table, highlight=False)
    if len(shown) < len(rows):
        console.print(
            f"first {len(shown):,} of {len(rows):,} rows; {rest}",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )


def repo_name(text: str, option: str = "repository") -> str:
    """`text` checked as 'owner/name' (a one-line error otherwise, before anything is sent)."""
    name = text.strip()
    if not REPO_NAME.match(name):
        raise InputError(f"{option} {text!r}: expected owner/name, e.g. pytorch/pytorch")
    return name


def stored_name(con: duckdb.DuckDBPyConnection, name: str) -> str:
    """The spelling the store uses for repository `name` (GitHub names are case-insensitive):
    aliases folded, then matched case-insensitively; `name` itself when the store has none."""
    from shu.settings import get_settings

    settings = get_settings()
    lowered = {k.lower(): v for k, v in settings.aliases.items()}
    name = lowered.get(name.lower(), name)
    tracked = {r.repo.lower(): r.repo for r in settings.repos}
    row = con.execute(
        "SELECT repo FROM (SELECT DISTINCT repo FROM stars_daily UNION SELECT repo FROM repos) "
        "WHERE lower(repo) = lower(?) ORDER BY repo = ? DESC LIMIT 1",
        [name, name],
    ).fetchone()
    return row[0] if row else tracked.get(name.lower(), name)


def require_data(
    con: duckdb.DuckDBPyConnection, as_of: date | None, option: str = "--as-of"
) -> None:
    """A one-line error when the store holds no data at all, none on or before `as_of`, or
    `as_of` is in the future: later than the store's last day of data and than today (UTC)."""
    from shu.store import NO_DATA, first_data_day, load_hint

    first = first_data_day(con)
    if first is None:
        raise InputError(f"{NO_DATA}: {load_hint()}")
    if as_of is not None and as_of < first:
        raise InputError(
            f"{option} {as_of}: before any data (the store's star counts and commits start on "
            f"{first})"
        )
    refuse_future(con, as_of, option)


def refuse_future(con: duckdb.DuckDBPyConnection | None, day: date | None, option: str) -> None:
    """A one-line error when `day` is later than today (UTC) and than the last day of data of
    the store on `con` (None: no store yet), naming that last day."""
    from shu.store import last_data_day, utcnow

    today = utcnow().date()
    if day is None or day <= today:
        return
    last = last_data_day(con) if con is not None else None
    if last is not None and day <= last:
        return
    ends = f"the store's data ends on {last}" if last else "the store holds no data yet"
    raise InputError(f"{option} {day}: in the future (today is {today}; {ends})")


def display(value: object) -> str:
    """A value as a table shows it: fractions rounded for reading (two decimals, or three
    significant digits below 1; --csv and --json carry full precision), NULL as empty."""
    if value is None:
        return ""
    if isinstance(value, Decimal):
        value = float(value)
    if isinstance(value, bool) or not isinstance(value, float):
        return str(value)
    if math.isnan(value) or math.isinf(value):
        return str(value)
    if value.is_integer() and abs(value) < 1e15:
        return f"{value:.0f}"
    return f"{value:.2f}" if abs(value) >= 1 else f"{value:.3g}"


def main() -> None:
    """Console-script entry point: runs the app, printing ShuErrors as one line (exit 1)."""
    _register_commands()
    command = typer.main.get_command(app)
    _settings_checked_first(command)
    try:
        status = command(standalone_mode=False)  # a command's typer.Exit(n) comes back as n
        sys.stdout.flush()  # here, so that a closed pipe is caught below, not at exit
        if isinstance(status, int) and status:
            sys.exit(status)
    except BrokenPipeError:
        # The reader went away (`shu radar | head -2`) after click's own EPIPE handling could
        # see it: the reader had what it asked for, so stop quietly with status 0.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
    except SystemExit:
        # click's own EPIPE handling exits 1, wrapping stdout: a closed pipe is no failure, in
        # every command alike (status 0 whether the reader left before or after click saw it)
        if type(sys.stdout).__name__ == "PacifyFlushWrapper":
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(0)
        raise
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


def _settings_checked_first(command: Any) -> None:
    """Make every command that runs read and check the settings (`checked_settings`) before it
    does anything else, whatever names the store: a mistake is one line and exit 1 from every
    command, `--db` or `SHU_DB` given or not. Help (`-h`) still answers: click shows it before
    any callback runs. A group's own callback (`shu signals` refreshing) checks them through
    `db_path`."""
    group = getattr(command, "commands", None)  # a group (typer's own copy of click's)
    if group is not None:
        for sub in group.values():
            _settings_checked_first(sub)
        return
    run = command.callback
    if run is None:
        return

    def checked(*args: Any, **kwargs: Any) -> Any:
        checked_settings()
        return run(*args, **kwargs)

    command.callback = functools.update_wrapper(checked, run)


def _register_commands() -> None:
    """Import every command module in this package (each registers its commands)."""
    import importlib
    import pkgutil

    import shu.cli as pkg

    for mod in pkgutil.iter_modules(pkg.__path__):
        importlib.import_module(f"shu.cli.{mod.name}")
    for group in app.registered_groups:  # sub-apps (ingest, signals) answer -h as well
        if group.typer_instance is not None:
            group.typer_instance.info.context_settings = {
                **HELP,
                **(group.typer_instance.info.context_settings or {}),
            }
