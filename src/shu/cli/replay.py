"""`shu replay`: the daily forecast stages for past days, on the data as it was then."""

from __future__ import annotations

from pathlib import Path

import typer

from shu.cli import (
    DbOption,
    SinceAlias,
    app,
    console,
    db_path,
    from_day,
    from_option,
    parse_day,
    required,
    to_option,
)
from shu.store import open_store


@app.command()
def replay(
    start: str | None = from_option("First day to replay (YYYY-MM-DD; required)."),
    end: str | None = to_option("Last day to replay (YYYY-MM-DD; required)."),
    old_since: str | None = SinceAlias,
    template: str | None = typer.Option(
        None,
        metavar="NAMES",
        help="Template(s), comma-separated [default: all with enough history].",
    ),
    horizon: str | None = typer.Option(
        None, metavar="DAYS", help="Horizon(s) in days, comma-separated [default: 7,30,90]."
    ),
    every: int = typer.Option(
        1,
        "--every",
        metavar="N",
        help="Issue forecasts every N days from --from "
        "(resolution still runs daily), e.g. 7 for the breakout radar.",
    ),
    brief: bool = typer.Option(
        False,
        "--brief",
        help="Then write the briefing of --to (its "
        "track record is the replay's, labelled as replayed).",
    ),
    db: Path = DbOption,
) -> None:
    """Issue and resolve forecasts for each past day as they would have been (model refitted
    monthly on outcomes known the day before; features and resolutions read only data up to
    each day). Replayed forecasts have a model_version starting 'replay-'.

    \b
    Example: shu replay --from 2025-09-01 --to 2026-02-28 --brief
    Example: shu replay --from 2025-09-04 --to 2026-01-29 --template star_breakout --every 7
    """
    from shu.cli.forecast import _csv, _horizons
    from shu.forecast.live.replay import replay as run_replay
    from shu.forecast.questions.registry import HORIZONS, TEMPLATES
    from shu.forecast.questions.registry import template as get_template
    from shu.settings import get_settings

    d1 = required(from_day(start, old_since), "--from")
    d2 = required(parse_day(end, "--to"), "--to")
    templates = _csv(template) or tuple(TEMPLATES)
    for name in templates:
        get_template(name)
    settings = get_settings()
    with open_store(db_path(db)) as store:
        result = run_replay(
            store,
            d1,
            d2,
            settings,
            templates,
            _horizons(horizon) or HORIZONS,
            log=lambda m: console.print(m, highlight=False),
            every_days=every,
        )
        if brief:
            from shu.briefing.compose import compose_briefing

            written = compose_briefing(store, d2, settings)
            console.print(f"wrote {written.path}", highlight=False)
    console.print(
        f"run {result.run_id}: {result.issued:,} forecasts issued, "
        + ", ".join(f"{k} {v:,}" for k, v in result.resolved.items())
        + f"; refits on {', '.join(map(str, result.refit_days)) or 'none'}; "
        f"{result.wall_s:.0f} s",
        highlight=False,
    )
