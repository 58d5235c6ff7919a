"""`shu radar`: the repositories most likely to break out, over every repository in the store."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table as RichTable

from shu.cli import (
    DayAlias,
    DbOption,
    OriginAlias,
    app,
    as_of_day,
    as_of_option,
    console,
    db_path,
    json_option,
    require_data,
)
from shu.errors import InputError
from shu.store import open_store


@app.command()
def radar(
    as_of: str | None = as_of_option(
        "The newest forecasts issued on or before this day (YYYY-MM-DD) [default: the newest]."
    ),
    old_day: str | None = DayAlias,
    old_origin: str | None = OriginAlias,
    top: int = typer.Option(20, "--top", metavar="N", help="How many repositories to list."),
    untracked: bool = typer.Option(
        False, "--untracked", help="Leave out the tracked repositories (as the briefing does)."
    ),
    show_all: bool = typer.Option(
        False,
        "--all",
        help="Every repository, not only those whose name or description carries one of the "
        "radar's keywords (radar_keywords), as the briefing shows.",
    ),
    as_json: bool = json_option(
        "Print a JSON list: each repository with its probability, velocities, bar, drivers "
        "and receipts."
    ),
    db: Path = DbOption,
) -> None:
    """Repositories by probability of a star breakout (the 28-day velocity 30 days on at least
    twice the 28- and 90-day pace today and at least 10 stars/day), with velocity now, the
    drivers in words and the stored rows behind each number. Reads the `star_breakout`
    forecasts that `shu forecast` / `shu daily` issued for every repository. Like the briefing,
    it keeps only repositories whose name or description carries one of the radar's keywords
    (setting `radar_keywords`) and says how many it left out; `--all` shows every one.

    \b
    Example: shu radar --top 10
    Example: shu radar --all --untracked --top 10
    Example: shu radar --as-of 2026-02-28 --json
    """
    from shu.forecast.radar.entries import radar as radar_entries
    from shu.forecast.radar.entries import radar_scope, why_empty
    from shu.forecast.radar.topics import radar_keywords
    from shu.settings import get_settings

    if top < 1:
        raise InputError(f"--top {top}: list at least 1 repository")
    day = as_of_day(as_of, old_day, old_origin)
    settings = get_settings()
    exclude = [r.repo for r in settings.repos] if untracked else []
    with open_store(db_path(db), read_only=True) as store:
        require_data(store.con, day)
        keywords = () if show_all else radar_keywords(settings)
        scope = radar_scope(store, keywords, day, top, exclude=exclude) if keywords else None
        only = scope.kept if scope else None
        entries = radar_entries(store, day, top, exclude=exclude, only=only)
        why = (
            None
            if entries or (scope and scope.n_forecast)
            else why_empty(store, day, settings.models_dir, exclude)
        )
    left_out = None
    if scope and scope.n_left_out:
        left_out = (
            f"left out {scope.n_left_out:,} of {scope.n_forecast:,} repositories whose name and "
            "description carry none of the radar's keywords (radar_keywords); --all shows them"
        )
    if as_json:
        print(json.dumps([e.as_json() for e in entries]))
        if left_out:
            typer.echo(left_out, err=True)
        return
    if why is not None:
        when = f" on or before {day}" if day else ""
        console.print(
            f"no star_breakout forecast issued{when}: {why}", highlight=False, markup=False
        )
        return
    if not entries:
        console.print(f"no repository kept: {left_out}", highlight=False, markup=False)
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
    if left_out:
        console.print(left_out, highlight=False, markup=False)
