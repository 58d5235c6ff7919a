"""`shu brief`, `shu daily`, `shu serve`, `shu demo`: thin commands over the briefing and flows."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import typer

from shu.cli import (
    PARTIAL_EXIT,
    DayAlias,
    DbOption,
    OriginAlias,
    app,
    as_of_day,
    as_of_option,
    console,
    db_path,
    err_console,
    out_option,
    refuse_future,
    require_data,
)


@app.command()
def brief(
    as_of: str | None = as_of_option(
        "Day to brief (YYYY-MM-DD) [default: the latest day with star signals]."
    ),
    old_day: str | None = DayAlias,
    old_origin: str | None = OriginAlias,
    out: Path = out_option(
        "Folder for the markdown, HTML page, JSON and charts [default: reports/ for the "
        "default store, reports/ beside any other; settings.reports_dir when set]."
    ),
    open_page: bool = typer.Option(
        False,
        "--open",
        help="Open the HTML briefing in the default web browser (BROWSER env var) when written.",
    ),
    db: Path = DbOption,
) -> None:
    """Write the briefing (markdown, a self-contained HTML page and the index of pages) from
    what the store holds now (no ingestion, no new forecasts).

    \b
    Example: shu brief
    Example: shu brief --as-of 2026-02-28 --out reports/ --open
    """
    from shu.briefing.compose import compose_briefing
    from shu.settings import get_settings
    from shu.snapshot import open_for_writing

    when = as_of_day(as_of, old_day, old_origin)
    settings = get_settings()
    with open_for_writing(db_path(db)) as store:
        require_data(store.con, when)
        result = compose_briefing(store, when, settings, reports_dir=out)
    page = result.path.with_suffix(".html")
    console.print(
        f"wrote {result.path} and {page.name}: {result.title} ({result.n_forecasts} "
        f"forecast cards, {result.n_receipts} receipts)",
        highlight=False,
    )
    if open_page:
        import webbrowser

        if not webbrowser.open(page.resolve().as_uri()):
            err_console.print(f"no web browser available; open {page} yourself")
    if result.stale_repos:
        console.print(f"stale data marked for: {', '.join(result.stale_repos)}", highlight=False)


VerboseOption = typer.Option(
    False,
    "--verbose",
    "-v",
    help="Also show Prefect's and Dask's "
    "INFO lines (server start, each flow and task run, the cluster).",
)


@app.command()
def daily(
    as_of: str | None = as_of_option("Day to run for (YYYY-MM-DD) [default: today, UTC]."),
    old_day: str | None = DayAlias,
    old_origin: str | None = OriginAlias,
    backfill: bool = typer.Option(False, "--backfill", help="Fetch whole GitHub histories."),
    verbose: bool = VerboseOption,
    db: Path = DbOption,
) -> None:
    """Run the daily flow (ingest, signals, resolve, forecast, probe when due, briefing) once.

    Prints one line per stage, and per source for the ingest, as each finishes (problems on
    stderr), and shu's warnings; with --verbose also Prefect's own lines. Runs on an ephemeral
    Prefect server unless PREFECT_API_URL points at one (then the run shows in its UI). When a
    source is unreachable, or some repositories failed, it says so, briefs from the store and
    exits with status 3; so does a run whose store still holds no data (its briefing says so
    and names the commands that load data).

    \b
    Example: shu daily
    Example: shu daily --as-of 2026-02-28 --verbose
    """
    from shu.settings import get_settings
    from shu.store import load_hint

    when = as_of_day(as_of, old_day, old_origin)
    get_settings()  # a configuration mistake is one line here, not a failed flow run
    note = _data_age(db_path(db), when)
    if note:  # the first line: how old the data is, before anything runs
        console.print(f"data: {note}", highlight=False, markup=False, soft_wrap=True)
    from shu.flows.prefect_env import prefect_start_errors, quiet_console, start_server_early

    if not verbose:
        quiet_console()
    with prefect_start_errors():
        prefect = start_server_early()  # starts while the flow's modules are imported
        from shu.flows.daily import STAGES, daily_flow

        prefect.wait()
    with _printed(STAGES), prefect_start_errors():
        result = daily_flow(as_of=when, db=str(db_path(db)), backfill=backfill)
    no_data = result.get("briefing", {}).get("counts", {}).get("no_data", False)
    if no_data:
        err_console.print(
            f"no data: nothing to brief yet; {load_hint()}",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    if no_data or not result.get("ingest", {}).get("ok", True):  # briefed, but from what?
        raise typer.Exit(PARTIAL_EXIT)


def _data_age(db: Path, day: date | None) -> str | None:
    """How old the store's data is when it ends before yesterday (None: fresh, or no store
    yet); InputError when `day` is in the future (after today and the last day of data)."""
    from shu.errors import StoreError
    from shu.snapshot import open_for_reading
    from shu.store import last_data_day, stale_data_note, utcnow

    if not Path(db).exists():
        refuse_future(None, day, "--as-of")
        return None
    try:
        store, _ = open_for_reading(db)
    except StoreError:  # held by a writer with no snapshot yet: the flow waits for it
        return None
    with store:
        refuse_future(store.con, day, "--as-of")
        return stale_data_note(last_data_day(store.con), utcnow().date())


class _StageLines(logging.Handler):
    """Prints each stage's lines: stdout when it went well, stderr (WARNING) when not."""

    def emit(self, record: logging.LogRecord) -> None:
        ok = record.levelno < logging.WARNING
        (console if ok else err_console).print(
            record.getMessage(), highlight=False, markup=False, soft_wrap=True
        )


@contextlib.contextmanager
def _printed(logger: logging.Logger) -> Iterator[None]:
    """Print `logger`'s records on the console (and only there) while the block runs."""
    handler, propagate = _StageLines(logging.INFO), logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


@app.command()
def serve() -> None:
    """Serve the daily flow on settings.schedule_cron (default 06:00 UTC) until interrupted.

    Needs a Prefect API (PREFECT_API_URL, e.g. from `prefect server start`) to keep schedules;
    open its UI to see runs.

    Example: PREFECT_API_URL=http://127.0.0.1:4200/api shu serve
    """
    from shu.flows.deploy import serve_all
    from shu.settings import get_settings

    settings = get_settings()
    console.print(f"serving shu-daily on cron {settings.schedule_cron!r} (UTC); Ctrl-C stops")
    serve_all(settings)


@app.command()
def demo(
    out: Path = out_option(
        "Folder for the demo store, notes, model and briefing [default: reports/demo].",
        Path("reports/demo"),
    ),
    seed: int = typer.Option(None, "--seed", metavar="N", help="Seed of the synthetic sample."),
    verbose: bool = VerboseOption,
) -> None:
    """Run the whole chain offline on a clearly labelled SYNTHETIC sample and write a briefing.

    Generates six synthetic repositories (stars, commits, releases), notes and a probe result,
    serves them through a local GitHub API server on 127.0.0.1, and runs the real client and the
    daily flow on them.

    Example: shu demo --out reports/demo
    """
    if not verbose:
        from shu.flows.prefect_env import quiet_console

        quiet_console()
    from shu.demo import SEED, run_demo
    from shu.flows.prefect_env import prefect_start_errors

    console.print("shu demo: SYNTHETIC data, generated here; it describes no real project.")
    t0 = time.perf_counter()
    with prefect_start_errors():
        result = run_demo(
            out,
            seed if seed is not None else SEED,
            say=lambda line: console.print(line, highlight=False, markup=False),
        )
    console.print(
        f"done in {time.perf_counter() - t0:.1f} s (Prefect start-up included); the briefing:",
        highlight=False,
    )
    for what, path in (("markdown", result), ("HTML", result.with_suffix(".html"))):
        # whole paths, one line each, never wrapped: a terminal click or a pipe gets them whole
        console.print(f"{what}: {path.resolve()}", highlight=False, markup=False, soft_wrap=True)
