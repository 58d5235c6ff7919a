"""Several repositories compared on one metric: the data behind `shu compare`, and the chart.

- `compare_frame` / `compare_chart`: stars, 28-day velocity or 28-day acceleration of several
  repositories over time (one line each; the values read by `signals.reads.signal_frame`);
- `summary_table`: per repository, its first and last values, the change and the peak.

(A repository's forecast fan is `fan_chart.fan_chart`.) Every chart carries a title saying what
it draws, the unit, dates on the x axis and its data source; a log axis where the series differ
tenfold (a true log axis: no zero on it; the days at or below zero it cannot draw are left out
and the title says how many), and the gaps in the data as named bands.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

import duckdb
import pandas as pd
from matplotlib.figure import Figure

from shu.briefing.chart_layout import GUIDE, finish, log_axis, new_figure, save
from shu.briefing.charts import STAR_SIGNALS_SOURCE, Gap, broken_at_gaps, shade_gaps
from shu.errors import InputError
from shu.signals.reads import repos_with_signals, signal_frame


@dataclass(frozen=True)
class Metric:
    """A comparable quantity: its `star_signals` column, label and unit."""

    column: str
    label: str
    unit: str


METRICS = {
    "stars": Metric("stars", "Star count", "stars"),
    "velocity": Metric("velocity_28d", "28-day star velocity", "stars/day"),
    "acceleration": Metric(
        "acceleration_28d", "28-day star acceleration", "stars/day change over 28 days"
    ),
}


def metric(name: str) -> Metric:
    """The metric called `name` (stars, velocity or acceleration)."""
    if name not in METRICS:
        raise InputError(f"--metric {name!r}: choose from {', '.join(METRICS)}")
    return METRICS[name]


def compare_frame(
    con: duckdb.DuckDBPyConnection,
    repos: list[str],
    metric_name: str,
    since: date | None = None,
    until: date | None = None,
) -> pd.DataFrame:
    """Long frame (repo, day, value) of `metric_name` for `repos` from `since` to `until`, in
    the order of `repos` (so each repository keeps its colour across charts).

    Raises InputError naming the repositories that have no star signals at all."""
    m = metric(metric_name)
    known = repos_with_signals(con, repos)
    missing = [r for r in repos if r not in known]
    if missing:
        raise InputError(
            f"no star signals for {', '.join(missing)}: check the names, or load "
            "and compute them (`shu ingest …`, `shu signals`)"
        )
    return signal_frame(con, repos, m.column, since, until)


def summary_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per repository: first and last day with a value, those values, the change and the peak
    (snake_case columns, the keys of `shu compare --json`; its table shows them with spaces)."""
    rows = []
    for repo, g in frame.dropna(subset=["value"]).groupby("repo", sort=False):
        first, last = g.iloc[0], g.iloc[-1]
        peak = g.loc[g["value"].idxmax()]
        rows.append(
            {
                "repo": repo,
                "from": first["day"].date(),
                "value_then": first["value"],
                "to": last["day"].date(),
                "value_now": last["value"],
                "change": last["value"] - first["value"],
                "peak": peak["value"],
                "peak_on": peak["day"].date(),
            }
        )
    return pd.DataFrame(
        rows, columns=["repo", "from", "value_then", "to", "value_now", "change", "peak", "peak_on"]
    )


TENFOLD = 10.0  # series whose typical levels differ this much or more share a log axis


def needs_log(frame: pd.DataFrame) -> bool:
    """Whether the repositories' typical (median) levels in `frame` differ tenfold or more, so a
    linear axis would squash the smaller ones."""
    levels = [
        abs(float(v))
        for v in frame.dropna(subset=["value"]).groupby("repo", sort=False)["value"].median()
    ]
    levels = [v for v in levels if v > 0]
    return len(levels) > 1 and max(levels) >= TENFOLD * min(levels)


def compare_chart(
    frame: pd.DataFrame,
    metric_name: str,
    path: Path,
    *,
    log: bool | None = None,
    title: str | None = None,
    gaps: list[Gap] | None = None,
    span: tuple[date, date] | None = None,
) -> Path:
    """`compare_figure` as a PNG at `path`."""
    fig = compare_figure(frame, metric_name, log=log, title=title, gaps=gaps, span=span)
    return save(fig, path)


def compare_figure(
    frame: pd.DataFrame,
    metric_name: str,
    *,
    log: bool | None = None,
    title: str | None = None,
    gaps: list[Gap] | None = None,
    span: tuple[date, date] | None = None,
) -> Figure:
    """One line per repository of `frame` (from `compare_frame`); a log axis with `log`, or by
    default when the levels differ tenfold (`needs_log`), its days at or below zero left out
    and counted in the title; `gaps` drawn as named grey bands; the x axis over `span` (first,
    last day) when given."""
    m = metric(metric_name)
    if log is None:
        log = needs_log(frame)
    fig = new_figure(9, 4.8)
    ax = fig.subplots()
    left_out = log_axis(ax, frame["value"]) if log else 0
    drawn = 0
    for i, (repo, g) in enumerate(frame.groupby("repo", sort=False)):
        if log:
            g = g.assign(value=g["value"].where(g["value"] > 0))
        if g["value"].notna().any():
            days, values = broken_at_gaps(g)
            ax.plot(
                days,
                values,
                color=f"C{i % 10}",
                label=repo,
                linewidth=1.4,
                marker=".",
                markersize=2 if len(g) < 400 else 0,
            )
            drawn += 1
    if m.column != "stars" and not log:
        ax.axhline(0, color="grey", linewidth=0.5, gid=GUIDE)
    shade_gaps(ax, gaps or [])
    if span is not None:  # dates: matplotlib converts them
        ax.set_xlim(span[0], span[1] + timedelta(days=1))  # type: ignore[arg-type]
    days = frame["day"].dropna()
    shown = f"{days.min().date()} to {days.max().date()}" if len(days) else "no data"
    scale = ", log scale" if log else ""
    if left_out:
        scale += f" ({left_out} day{'s' if left_out > 1 else ''} at or below 0 not drawn)"
    ax.set_title((title or f"{m.label} ({m.unit}), {shown}") + scale, fontsize=10)
    ax.set_ylabel(f"{m.label} ({m.unit})" + (", log scale" if log else ""))
    ax.set_xlabel("day (UTC)")
    if drawn:
        ax.legend(fontsize=8)
    else:
        ax.text(0.5, 0.5, "no values in this window", ha="center", transform=ax.transAxes)
    return finish(fig, STAR_SIGNALS_SOURCE, rect=(0, 0.03, 1, 1))
