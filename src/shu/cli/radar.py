"""`shu radar`: the repositories most likely to break out, over every repository in the store."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table as RichTable

from shu.cli import DbOption, app, as_of_option, console, db_path, parse_day, require_data
from shu.errors import InputError
from shu.store import open_store


@app.command()
def radar(
    as_of: str | None = as_of_option(
        "The newest forecasts issued on or before this day (YYYY-MM-DD) [default: the newest]."
    ),
    top: int = typer.Option(20, "--top", help="How many repositories to list."),
    untracked: bool = typer.Option(
        False, "--untracked", help="Leave out the tracked repositories (as the briefing does)."
    ),
    as_json: bool = typer.Option(
        False,
        "--json",
        help="Print a JSON list: each repository "
        "with its probability, velocities, bar, drivers and receipts.",
    ),
    db: Path = DbOption,
) -> None:
    """Repositories by probability of a star breakout (the 28-day velocity 30 days on at least
    twice the 28- and 90-day pace today and at least 10 stars/day), with velocity now, the
    drivers in words and the stored rows behind each number. Reads the `star_breakout`
    forecasts that `shu forecast` / `shu daily` issued for every repository.

    \b
    Example: shu radar --top 10
    Example: shu radar --as-of 2026-02-28 --json
    """
    from shu.forecast.radar.entries import radar as radar_entries
    from shu.forecast.radar.entries import why_empty
    from shu.settings import get_settings

    if top < 1:
        raise InputError(f"--top {top}: list at least 1 repository")
    day = parse_day(as_of)
    settings = get_settings()
    exclude = [r.repo for r in settings.repos] if untracked else []
    with open_store(db_path(db), read_only=True) as store:
        require_data(store.con, day)
        entries = radar_entries(store, day, top, exclude=exclude)
        why = None if entries else why_empty(store, day, settings.models_dir, exclude)
    if as_json:
        print(json.dumps([e.as_json() for e in entries]))
        return
    if why is not None:
        when = f" on or before {day}" if day else ""
        console.print(
            f"no star_breakout forecast issued{when}: {why}", highlight=False, markup=False
        )
        return
    table = RichTable(
        "#",
        "repository",
        "velocity 28d",
        "P(breakout)",
        "bar",
        "why",
        title=f"Breakout radar, forecasts of {entries[0].origin} "
        f"(resolving {entries[0].resolves_on})",
        show_lines=True,
    )
    receipts: list = []

    def mark(citations: list) -> str:
        """Receipt numbers of `citations`, numbered in the order first shown."""
        for c in citations:
            if c not in receipts:
                receipts.append(c)
        return "[" + ", ".join(str(receipts.index(c) + 1) for c in citations) + "]"

    for i, e in enumerate(entries, start=1):
        velocity = (
            "—"
            if e.velocity_28d is None
            else f"{e.velocity_28d:,.1f} {mark([e.velocity_citation])}"
        )
        why = (
            "\n".join(
                f"{'+' if d.towards else '-'} {d.text} {mark(d.citations)}" for d in e.drivers
            )
            or "—"
        )
        table.add_row(
            str(i),
            e.repo,
            velocity,
            f"{100 * e.probability:.1f}% {mark([e.probability_citation])}",
            f"{e.bar:,.1f}",
            why,
        )
    console.print(table, highlight=False)
    console.print("receipts:", highlight=False)
    for n, c in enumerate(receipts, start=1):
        where = (
            f"{c.sql.strip()} {c.params}"
            if c.kind == "query"
            else f"{c.table} {json.dumps({k: str(v) for k, v in c.key.items()})} {c.column}"
        )
        console.print(f"  [{n}] {where} = {c.value}", highlight=False, markup=False)
