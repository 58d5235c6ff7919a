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
from shu.receipts import Citation, ReceiptBook
from shu.store import open_store


@app.command()
def radar(
    as_of: str | None = as_of_option(
        "The newest forecasts issued on or before this day that resolve after it (YYYY-MM-DD) "
        "[default: the newest, whatever their day]."
    ),
    old_day: str | None = DayAlias,
    old_origin: str | None = OriginAlias,
    top: int = typer.Option(20, "--top", metavar="N", help="How many repositories to list."),
    tracked: bool = typer.Option(
        False, "--tracked", help="Include the tracked repositories (setting `repos`) too."
    ),
    old_untracked: bool = typer.Option(False, "--untracked", hidden=True),  # now the default
    show_all: bool = typer.Option(
        False,
        "--all",
        help="Every repository, not only those whose name or description carries one of the "
        "radar's keywords (radar_keywords).",
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
    forecasts that `shu forecast` / `shu daily` issued for every repository. It shows what the
    briefing's "Breaking out" shows: the repositories outside the tracked list whose name or
    description carries one of the radar's keywords (setting `radar_keywords`), saying how many
    it left out; `--tracked` adds the tracked repositories, `--all` drops the keyword filter.

    \b
    Example: shu radar --top 10
    Example: shu radar --all --tracked --top 10
    Example: shu radar --as-of 2026-02-28 --json
    """
    from shu.operations.radar import radar_view
    from shu.settings import get_settings

    if top < 1:
        raise InputError(f"--top {top}: list at least 1 repository")
    day = as_of_day(as_of, old_day, old_origin)
    settings = get_settings()
    with open_store(db_path(db), read_only=True) as store:
        require_data(store.con, day)
        view = radar_view(store, settings, day, top, tracked=tracked, filtered=not show_all)
    entries = view.entries
    left_out = view.left_out()
    if left_out:
        left_out += "; --all shows them"
    if as_json:
        print(json.dumps(view.as_json()))
        if left_out:
            typer.echo(left_out, err=True)
        return
    if view.why_empty is not None:
        when = f" on {day}" if day else ""
        console.print(
            f"no star_breakout forecast to show{when}: {view.why_empty}",
            highlight=False,
            markup=False,
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
    book = ReceiptBook()

    def mark(citations: list[Citation]) -> str:
        """Receipt numbers of `citations` in the receipt book (numbered as first shown)."""
        return "[" + ", ".join(str(book.cite(c)) for c in citations) + "]"

    for i, e in enumerate(entries, start=1):
        velocity = (
            "—"
            if e.velocity_28d is None or e.velocity_citation is None
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
    for n, r in enumerate(book.receipts, start=1):
        key = dict(r.key)
        where = (
            f"{str(key['sql']).strip()} {list(key['params'])}"
            if r.kind == "query"
            else f"{r.table} {r.key_json} {r.column}"
        )
        console.print(f"  [{n}] {where} = {r.value}", highlight=False, markup=False)
    if left_out:
        console.print(left_out, highlight=False, markup=False)
