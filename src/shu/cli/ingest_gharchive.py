"""`shu ingest gharchive`: GH Archive hourly files into per-day tables for every repository."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

import typer

from shu.cli import (
    PARTIAL_EXIT,
    DbOption,
    SinceAlias,
    console,
    db_path,
    err_console,
    from_day,
    from_option,
    ingest_app,
    parse_day,
    to_option,
)
from shu.errors import InputError


@ingest_app.command("gharchive")
def ingest_gharchive(
    paths: list[str] = typer.Argument(
        None,
        help="Hourly YYYY-MM-DD-H.json.gz files, directories of them, or globs (quote the glob).",
    ),
    start: str | None = from_option(
        "First UTC day (YYYY-MM-DD) to download from GH Archive (SHU_GHARCHIVE_URL) before loading."
    ),
    end: str | None = to_option("Last UTC day to download [default: --from]."),
    old_since: str | None = SinceAlias,
    fold: bool = typer.Option(
        True,
        help="Fold stars into stars_daily (source 'gharchive') "
        "for repositories with an anchor count.",
    ),
    db: Path = DbOption,
) -> None:
    """Load GH Archive events: stars added, pushes, tags and releases per repository and day.

    Re-runs skip files already loaded; a truncated or corrupt file is named on stderr (and in
    ingest_log) while the rest load, and the exit status is then 3; when no file could be read it
    says why in one line.

    \b
    Example: shu ingest gharchive data/gharchive/ && shu sql "SELECT * FROM gharchive_trending"
    Example: shu ingest gharchive --from 2026-01-01 --to 2026-01-07
    """
    from shu.settings import get_settings
    from shu.signals.gharchive_fold import fold_into_stars_daily
    from shu.sources.gharchive import ingest_gharchive as run
    from shu.store import open_store

    settings = get_settings()
    specs: list[str | Path] = list(paths or [])
    first = from_day(start, old_since)
    if first is not None:
        from shu.sources.gharchive_download import download_range

        last = parse_day(end, "--to") or first
        with _bar("downloading hourly files") as advance:
            got = download_range(settings, first, last, progress=advance)
        console.print(f"download: {got.line()}", highlight=False)
        specs += got.paths
    elif end:
        raise InputError("--to needs --from")
    if not specs:
        raise InputError("give PATH... (files, directories or globs) or --from/--to")
    with open_store(db_path(db)) as store:
        with _bar("reading hourly files") as advance:
            summary = run(store, specs, settings, progress=advance)
        if summary.failed and not summary.files_loaded and not summary.files_skipped:
            name, why = next(iter(summary.failed.items()))
            more = f" (and {len(summary.failed) - 1} more files)" if len(summary.failed) > 1 else ""
            raise InputError(f"{name}: {why}; nothing loaded{more}")
        console.print(summary.line(failures=False), highlight=False)
        if summary.rows:
            console.print(
                "rows written: " + ", ".join(f"{k} {v:,}" for k, v in summary.rows.items()),
                highlight=False,
            )
        if fold and summary.files_loaded:
            folded = fold_into_stars_daily(store)
            console.print(
                f"stars_daily (source 'gharchive'): {folded['written']:,} rows "
                "derived from anchors",
                highlight=False,
            )
    for name, why in summary.failed.items():  # the others loaded; these are in ingest_log
        err_console.print(f"failed: {name}: {why}", highlight=False, markup=False, soft_wrap=True)
    if summary.failed:
        raise typer.Exit(PARTIAL_EXIT)


@contextlib.contextmanager
def _bar(what: str) -> Iterator[Callable[[int, int], None]]:
    """A transient progress bar (`shu.progress`: rate and ETA, silent under --quiet and in CI);
    yields `advance(done, total)`."""
    from shu.progress import progress

    with progress(what, unit="files") as bar:

        def advance(done: int, total: int) -> None:
            bar.total(total)
            bar.advance(done - bar.completed)

        yield advance
