"""`shu compare`: several repositories on one chart (PNG) plus the table behind it."""

from __future__ import annotations

import numbers
from pathlib import Path

import typer
from rich.table import Table as RichTable

from shu.cli import (
    DbOption,
    SinceAlias,
    app,
    console,
    db_path,
    err_console,
    from_day,
    from_option,
    json_option,
    out_option,
    parse_day,
    print_json,
    repo_name,
    stored_name,
    to_option,
)
from shu.errors import InputError


@app.command()
def compare(
    repos: list[str] = typer.Argument(..., help="Repositories 'owner/name' (one or more)."),
    start: str | None = from_option("First day (YYYY-MM-DD) [default: all]."),
    end: str | None = to_option("Last day (YYYY-MM-DD) [default: the newest]."),
    old_since: str | None = SinceAlias,
    metric: str = typer.Option(
        "velocity",
        "--metric",
        metavar="METRIC",
        help="stars, velocity (28-day, stars/day) or acceleration (28-day).",
    ),
    log: bool = typer.Option(
        False,
        "--log",
        help="Logarithmic y axis (no zero: days at or below 0 left out, counted in the title).",
    ),
    out: Path = out_option(
        "Folder for the chart (compare-METRIC.png) and the data behind it "
        "(compare-METRIC.csv) [default: the store's reports folder, settings.reports_dir]."
    ),
    as_json: bool = json_option(
        "Print the table as a JSON list (one object per repository) instead; the chart and "
        "its data are written as without it."
    ),
    db: Path = DbOption,
) -> None:
    """Compare repositories on one chart (PNG) and print the table behind it (read-only).

    \b
    Example: shu compare pytorch/pytorch tensorflow/tensorflow --metric velocity --from 2024-01-01
    Example: shu compare pytorch/pytorch ollama/ollama --metric stars --log --out reports/
    """
    from shu.briefing.compare import compare_chart, compare_frame, summary_table
    from shu.briefing.compare import metric as get_metric
    from shu.settings import get_settings
    from shu.snapshot import open_for_reading

    settings = get_settings()
    get_metric(metric)
    asked = [repo_name(r) for r in repos]
    first = from_day(start, old_since)
    last = parse_day(end, "--to")
    if first and last and last < first:
        raise InputError(f"--from {first} --to {last}: the range ends before it starts")
    if out is not None and out.suffix.lower() == ".png":
        raise InputError(
            f"--out {out}: --out is the folder to write into (the chart is "
            f"FOLDER/compare-{metric}.png, its data FOLDER/compare-{metric}.csv)"
        )
    store, note = open_for_reading(db_path(db))
    if note:
        err_console.print(note, highlight=False, markup=False)
    with store:
        names = list(dict.fromkeys(stored_name(store.con, r) for r in asked))
        frame = compare_frame(store.con, names, metric, since=first, until=last)
    folder = out or settings.reports_dir_for(db_path(db))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"compare-{metric}.png"
    compare_chart(frame, metric, path, log=log)
    data = path.with_suffix(".csv")
    frame.assign(day=frame["day"].dt.date).to_csv(data, index=False)
    summary = summary_table(frame)
    if as_json:
        print_json(summary.to_dict(orient="records"))
    else:
        table = RichTable(
            *(c.replace("_", " ") for c in summary.columns), title=f"{metric} ({', '.join(names)})"
        )
        for row in summary.itertuples(index=False):
            table.add_row(*(_cell(v) for v in row))
        console.print(table, highlight=False)
    for name in sorted(set(names) - set(summary["repo"])):
        err_console.print(
            f"{name}: no {metric} value in this window (a window spanning a gap "
            "of more than 7 days in the star data is undefined)",
            highlight=False,
        )
    (err_console if as_json else console).print(
        f"wrote {path} and {data} ({len(frame):,} rows)", highlight=False
    )


def _cell(value: object) -> str:
    if isinstance(value, numbers.Integral):
        return f"{value:,}"
    if isinstance(value, numbers.Real):
        return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"
    return str(value)
