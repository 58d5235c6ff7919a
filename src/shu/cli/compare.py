"""`shu compare`: several repositories on one chart (PNG) plus the table behind it."""

from __future__ import annotations

import numbers
from datetime import datetime
from pathlib import Path

import typer
from rich.table import Table as RichTable

from shu.cli import DbOption, app, console, db_path, err_console
from shu.errors import InputError


@app.command()
def compare(
    repos: list[str] = typer.Argument(..., help="Repositories 'owner/name' (one or more)."),
    since: str = typer.Option(None, "--since", help="First day (YYYY-MM-DD) [default: all]."),
    metric: str = typer.Option(
        "velocity", "--metric", help="stars, velocity (28-day, stars/day) or acceleration (28-day)."
    ),
    log: bool = typer.Option(
        False, "--log", help="Logarithmic y axis (symmetric log for velocity/acceleration)."
    ),
    out: Path = typer.Option(
        None,
        "--out",
        help="PNG to write [default: REPORTS/compare-METRIC.png]; the data goes beside it as .csv.",
    ),
    db: Path = DbOption,
) -> None:
    """Compare repositories on one chart (PNG) and print the table behind it (read-only).

    Example: shu compare pytorch/pytorch tensorflow/tensorflow --metric velocity --since
    2024-01-01
    """
    from shu.briefing.compare import compare_chart, compare_frame, summary_table
    from shu.briefing.compare import metric as get_metric
    from shu.settings import get_settings
    from shu.snapshot import open_for_reading

    settings = get_settings()
    get_metric(metric)
    names = list(dict.fromkeys(settings.canonical(r) for r in repos))
    try:
        start = datetime.strptime(since, "%Y-%m-%d").date() if since else None
    except ValueError as exc:
        raise InputError(f"--since {since!r}: expected YYYY-MM-DD") from exc
    store, note = open_for_reading(db_path(db))
    if note:
        err_console.print(note, highlight=False, markup=False)
    with store:
        frame = compare_frame(store.con, names, metric, since=start)
    path = out or Path(settings.reports_dir) / f"compare-{metric}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    compare_chart(frame, metric, path, log=log)
    data = path.with_suffix(".csv")
    frame.assign(day=frame["day"].dt.date).to_csv(data, index=False)
    summary = summary_table(frame)
    table = RichTable(*summary.columns, title=f"{metric} ({', '.join(names)})")
    for row in summary.itertuples(index=False):
        table.add_row(*(_cell(v) for v in row))
    console.print(table)
    for name in sorted(set(names) - set(summary["repo"])):
        err_console.print(
            f"{name}: no {metric} value in this window (a window spanning a gap "
            "of more than 7 days in the star data is undefined)",
            highlight=False,
        )
    console.print(f"wrote {path} and {data} ({len(frame):,} rows)", highlight=False)


def _cell(value: object) -> str:
    if isinstance(value, numbers.Integral):
        return f"{value:,}"
    if isinstance(value, numbers.Real):
        return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"
    return str(value)
