"""Charts that compare: several repositories on one metric, and a repository's forecast fan.

- `compare_frame` / `compare_chart`: stars, 28-day velocity or 28-day acceleration of several
  repositories over time (one line each), the data behind `shu compare` and the briefing's
  per-category charts.
- `fan_chart`: a repository's 28-day velocity history followed by its interval forecasts
  (median, central 50/80/95% intervals from `forecast_intervals`) when any are stored, and the
  threshold of a question about that velocity.

Every chart carries a title saying what it draws, the unit, dates on the x axis and its data
source; a log axis where the series differ tenfold, and the gaps in the data as named bands.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

import duckdb
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

from shu.briefing.charts import Gap, pace_gaps, shade_gaps
from shu.errors import InputError
from shu.store import Store


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
SOURCE = "Source: shu store, table star_signals (daily GitHub star counts)"
# Questions about the 28-day velocity on the horizon day, whose threshold a fan chart can draw.
VELOCITY_QUESTIONS = ("star_velocity_up", "star_velocity_level")


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
    known = {
        r[0]
        for r in con.execute(
            "SELECT DISTINCT repo FROM star_signals WHERE list_contains(?, repo)", [repos]
        ).fetchall()
    }
    missing = [r for r in repos if r not in known]
    if missing:
        raise InputError(
            f"no star signals for {', '.join(missing)}: check the names, or load "
            "and compute them (`shu ingest …`, `shu signals`)"
        )
    return con.execute(
        f"SELECT repo, day, {m.column} AS value FROM star_signals WHERE list_contains(?, repo) "
        "AND day >= coalesce(?::DATE, DATE '0001-01-01') "
        "AND day <= coalesce(?::DATE, DATE '9999-12-31') ORDER BY list_position(?, repo), day",
        [repos, since, until, repos],
    ).df()


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
    """One line per repository of `frame` (from `compare_frame`) as a PNG at `path`; a log
    axis with `log`, or by default when the levels differ tenfold (`needs_log`); `gaps` drawn
    as named grey bands; the x axis over `span` (first, last day) when given."""
    m = metric(metric_name)
    if log is None:
        log = needs_log(frame)
    fig, ax = plt.subplots(figsize=(9, 4.8), dpi=100)
    drawn = 0
    for i, (repo, g) in enumerate(frame.groupby("repo", sort=False)):
        if g["value"].notna().any():
            days, values = _broken_at_gaps(g)
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
    if log:
        if m.column == "stars":
            ax.set_yscale("log")
        else:  # velocities and accelerations can be negative
            ax.set_yscale("symlog", linthresh=1.0)
    if m.column != "stars":
        ax.axhline(0, color="grey", linewidth=0.5)
    shade_gaps(ax, gaps or [])
    if span is not None:  # dates: matplotlib converts them
        ax.set_xlim(span[0], span[1] + timedelta(days=1))  # type: ignore[arg-type]
    days = frame["day"].dropna()
    shown = f"{days.min().date()} to {days.max().date()}" if len(days) else "no data"
    scale = ", log scale" if log else ""
    ax.set_title((title or f"{m.label} ({m.unit}), {shown}") + scale, fontsize=10)
    ax.set_ylabel(f"{m.label} ({m.unit})" + (", log scale" if log else ""))
    ax.set_xlabel("day (UTC)")
    if drawn:
        ax.legend(fontsize=8, loc="best")
    else:
        ax.text(0.5, 0.5, "no values in this window", ha="center", transform=ax.transAxes)
    fig.text(0.01, 0.01, SOURCE, fontsize=7, color="grey")
    fig.autofmt_xdate()
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path)
    plt.close(fig)
    return path


def _broken_at_gaps(g: pd.DataFrame, max_gap_days: int = 7) -> tuple[pd.Series, pd.Series]:
    """The series with a NaN after every gap longer than `max_gap_days`, so the line breaks
    there instead of drawing a straight segment over days that were never observed."""
    g = g.sort_values("day")
    gaps = g[g["day"].diff() > pd.Timedelta(days=max_gap_days)]
    breaks = pd.DataFrame({"day": gaps["day"] - pd.Timedelta(days=1), "value": float("nan")})
    both = pd.concat([g[["day", "value"]], breaks]).sort_values("day", kind="stable")
    return both["day"], both["value"]


def interval_forecasts(con: duckdb.DuckDBPyConnection, repo: str, as_of: date) -> pd.DataFrame:
    """The latest origin's interval forecasts of `repo` issued up to `as_of` (one row per
    horizon: resolves_on, median, lower/upper 50/80/95), or an empty frame when none are stored
    (or the store has no `forecast_intervals` table)."""
    has = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_schema = "
        "'main' AND table_name = 'forecast_intervals'"
    ).fetchall()[0][0]
    if not has:
        return pd.DataFrame()
    return con.execute(
        """
        WITH f AS (SELECT * FROM forecasts WHERE repo = ? AND origin <= ?
                   AND forecast_id IN (SELECT forecast_id FROM forecast_intervals))
        SELECT f.origin, f.horizon_days, f.resolves_on, i.unit, i.median, i.lower_50,
               i.upper_50, i.lower_80, i.upper_80, i.lower_95, i.upper_95
        FROM f JOIN forecast_intervals i USING (forecast_id)
        WHERE f.origin = (SELECT max(origin) FROM f) ORDER BY f.horizon_days""",
        [repo, as_of],
    ).df()


def fan_chart(
    store: Store,
    repo: str,
    as_of: date,
    path: Path,
    history_days: int = 180,
    question: dict | None = None,
) -> tuple[Path, bool, str]:
    """28-day velocity of `repo` for `history_days` to `as_of`, then its forecast fan; gaps in
    the history drawn and named; with `question` (a forecast about the 28-day velocity on its
    horizon day: `star_velocity_up` / `star_velocity_level`) its threshold drawn as a dashed
    line to that day, labelled with the answer.

    Returns the path, whether a fan (interval forecasts) was drawn, and the chart's title (what
    it draws)."""
    con = store.con
    since = as_of - timedelta(days=history_days)
    hist = con.execute(
        "SELECT day, velocity_28d FROM star_signals WHERE repo = ? AND day > ? "
        "AND day <= ? ORDER BY day",
        [repo, since, as_of],
    ).df()
    fan = interval_forecasts(con, repo, as_of)
    fig, ax = plt.subplots(figsize=(9, 3.6), dpi=100)
    if len(hist):
        days, values = _broken_at_gaps(hist.rename(columns={"velocity_28d": "value"}), 1)
        ax.plot(days, values, color="C0", label="observed")
    shade_gaps(ax, pace_gaps(store, [repo], since, as_of))
    drawn = ["28-day star velocity"]
    if not fan.empty:
        origin = pd.Timestamp(fan["origin"].iloc[0])
        start = hist.loc[hist["day"] <= origin, "velocity_28d"].dropna()
        x = [origin, *list(pd.to_datetime(fan["resolves_on"]))]
        anchor = float(start.iloc[-1]) if len(start) else float(fan["median"].iloc[0])

        def series(col: str) -> list[float]:
            return [anchor, *fan[col].astype(float).tolist()]

        for level, alpha in ((95, 0.15), (80, 0.25), (50, 0.4)):
            ax.fill_between(
                x,
                series(f"lower_{level}"),
                series(f"upper_{level}"),
                color="C1",
                alpha=alpha,
                linewidth=0,
                label=f"{level}% interval",
            )
        ax.plot(
            x,
            series("median"),
            color="C1",
            linestyle="--",
            marker="o",
            markersize=3,
            label="forecast median",
        )
        ax.axvline(origin, color="grey", linewidth=0.6, linestyle=":")
        drawn.append("its forecast fan")
    if question is not None and question.get("template") in VELOCITY_QUESTIONS:
        ax.hlines(
            question["threshold"],
            pd.Timestamp(question["origin"]),
            pd.Timestamp(question["resolves_on"]),
            colors="C3",
            linestyles="dashed",
            label=f"asked: above {question['threshold']:,.2f} on {question['resolves_on']} "
            f"({100 * question['probability']:.0f}% yes)",
        )
        drawn.append("the threshold asked (dashed)")
    ax.axhline(0, color="grey", linewidth=0.5)
    what = drawn[0] + (" with " + " and ".join(drawn[1:]) if len(drawn) > 1 else "")
    if fan.empty:
        what += " (no interval forecast stored)"
    title = f"{repo}: {what}, to {as_of}"
    ax.set_title(title, fontsize=10)
    ax.set_ylabel("velocity 28d (stars/day)")
    ax.set_xlabel("day (UTC)")
    ax.legend(fontsize=7, loc="upper left")
    fig.text(
        0.01,
        0.01,
        SOURCE + (" and forecast_intervals" if not fan.empty else ""),
        fontsize=7,
        color="grey",
    )
    fig.autofmt_xdate()
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(path)
    plt.close(fig)
    return path, not fan.empty, title
