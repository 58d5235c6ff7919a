"""A forecast card's chart: the quantity its question asks about, with the question's threshold.

`fan_chart` draws, for a repository and its card's question,

- for a question about the 28-day star velocity (`star_velocity_up`, `star_velocity_level`,
  `star_breakout`) or for no question: the velocity's history, then its interval forecasts as a
  fan (median, central 50/80/95% intervals from `forecast.records.interval_forecasts`) when any are
  stored, and the question's threshold as a dashed line to its day;
- for a question about the 28-day star acceleration (`star_accel_reach`, `star_accel_fall`):
  the acceleration's history and the level it asks it to reach (or fall to) on any day up to
  its horizon, from the day it was asked (the fan is of the velocity, so it is not drawn);
- for a question about the stars gained (`star_gain`): the star count and the count the
  question asks for (the count on the day it was asked plus the stars asked).

Gaps in the history are drawn and named (`charts.shade_gaps`), the legend kept off the data
(`chart_layout.place_legends`). Other questions (commits, releases) get the velocity chart,
whose title says it does not draw their quantity. `cards_figure` draws the same for every star
card as small multiples, one panel each, for the body's Forecasts section.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import matplotlib.dates as mdates
import pandas as pd
from matplotlib.figure import Figure

from shu.briefing.chart_layout import GUIDE, finish, new_figure, save
from shu.briefing.charts import STAR_SIGNALS_SOURCE, broken_at_gaps, pace_gaps, shade_gaps
from shu.briefing.text import pct
from shu.forecast.records import interval_forecasts
from shu.signals.reads import signal_frame
from shu.store import Store


@dataclass(frozen=True)
class Quantity:
    """What a card's chart draws: a `star_signals` column, its axis label and its name."""

    column: str
    axis: str
    words: str
    fan: bool  # the interval forecasts are of this quantity


VELOCITY = Quantity("velocity_28d", "velocity 28d (stars/day)", "28-day star velocity", True)
ACCELERATION = Quantity(
    "acceleration_28d", "acceleration 28d (stars/day)", "28-day star acceleration", False
)
STARS = Quantity("stars", "stars", "star count", False)
# The quantity each question template asks about (others: the velocity, their own not drawn).
QUESTION_QUANTITY = {
    "star_velocity_up": VELOCITY,
    "star_velocity_level": VELOCITY,
    "star_breakout": VELOCITY,
    "star_accel_reach": ACCELERATION,
    "star_accel_fall": ACCELERATION,
    "star_gain": STARS,
}


def _threshold(question: dict[str, Any], hist: pd.DataFrame) -> tuple[float, str] | None:
    """The level the question's line is drawn at and its legend label; None where the stars
    on the day it was asked are unknown (a `star_gain` question)."""
    x, end, p = question["threshold"], question["resolves_on"], pct(question["probability"])
    template = question["template"]
    if template == "star_accel_reach":
        return x, f"asked: reaches {x:+,.2f} on any day to {end} ({p} yes)"
    if template == "star_accel_fall":
        return x, f"asked: falls to {x:+,.2f} on any day to {end} ({p} yes)"
    if template == "star_gain":
        asked_on = hist.loc[hist["day"] <= pd.Timestamp(question["origin"]), "value"].dropna()
        if not len(asked_on):
            return None
        level = float(asked_on.iloc[-1]) + x
        return level, f"asked: {x:,.0f} more stars by {end}, {level:,.0f} ({p} yes)"
    side = "at least" if template == "star_breakout" else "above"
    return x, f"asked: {side} {x:,.2f} on {end} ({p} yes)"


def _draw_fan(ax: Any, fan: pd.DataFrame, hist: pd.DataFrame) -> None:
    """The interval forecasts `fan` on `ax`, anchored at the last observed value."""
    origin = pd.Timestamp(fan["origin"].iloc[0])
    start = hist.loc[hist["day"] <= origin, "value"].dropna()
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
    ax.axvline(origin, color="grey", linewidth=0.6, linestyle=":", gid=GUIDE)


def _draw(
    ax: Any,
    store: Store,
    repo: str,
    as_of: date,
    history_days: int,
    question: dict | None,
) -> tuple[Quantity, bool, str]:
    """The card's quantity for `question` on `ax` (its history, fan and threshold asked): the
    quantity, whether a fan was drawn, and what the axes show in words."""
    template = question.get("template") if question is not None else None
    quantity = QUESTION_QUANTITY.get(template or "", VELOCITY)
    since = as_of - timedelta(days=history_days)
    hist = signal_frame(store.con, [repo], quantity.column, since + timedelta(days=1), as_of)
    fan = interval_forecasts(store.con, repo, as_of) if quantity.fan else pd.DataFrame()
    if len(hist):
        days, values = broken_at_gaps(hist, 1)
        ax.plot(days, values, color="C0", label="observed")
    shade_gaps(ax, pace_gaps(store, [repo], since, as_of))
    drawn = [quantity.words]
    if not fan.empty:
        _draw_fan(ax, fan, hist)
        drawn.append("its forecast fan")
    line = _threshold(question, hist) if template in QUESTION_QUANTITY and question else None
    if question is not None and line is not None:
        ax.hlines(
            line[0],
            pd.Timestamp(question["origin"]),
            pd.Timestamp(question["resolves_on"]),
            colors="C3",
            linestyles="dashed",
            label=line[1],
        )
        ax.set_xlim(right=pd.Timestamp(question["resolves_on"]) + pd.Timedelta(days=2))
        drawn.append("the threshold asked (dashed)")
    if quantity.column != "stars":
        ax.axhline(0, color="grey", linewidth=0.5, gid=GUIDE)
    what = drawn[0] + (" with " + " and ".join(drawn[1:]) if len(drawn) > 1 else "")
    if quantity.fan and fan.empty:
        what += " (no interval forecast stored)"
    if template is not None and template not in QUESTION_QUANTITY:
        what += " (the question's own quantity is not drawn)"
    return quantity, not fan.empty, what


def fan_figure(
    store: Store,
    repo: str,
    as_of: date,
    history_days: int = 180,
    question: dict | None = None,
) -> tuple[Figure, bool, str]:
    """The card's chart of `repo` to `as_of` for `question` (see the module docstring).

    Returns the figure, whether a fan (interval forecasts) was drawn, and its title."""
    fig = new_figure(9, 3.6)
    ax = fig.subplots()
    quantity, fanned, what = _draw(ax, store, repo, as_of, history_days, question)
    title = f"{repo}: {what}, to {as_of}"
    ax.set_title(title, fontsize=10)
    ax.set_ylabel(quantity.axis)
    ax.set_xlabel("day (UTC)")
    ax.legend(fontsize=7)
    finish(
        fig,
        STAR_SIGNALS_SOURCE + (" and forecast_intervals" if fanned else ""),
        rect=(0, 0.04, 1, 1),
    )
    return fig, fanned, title


GRID_COLUMNS = 3  # panels per row of the cards' small multiples


def cards_figure(
    store: Store, asked: list[tuple[str, dict | None]], as_of: date, history_days: int = 90
) -> tuple[Figure, str]:
    """The cards at a glance: one small panel per (repository, question) in `asked`, each its
    question's quantity with the threshold asked (dashed) and, for the velocity, its fan
    (`_draw`); the figure and its alt text, saying what each panel draws."""
    columns = min(GRID_COLUMNS, len(asked))
    rows = -(-len(asked) // columns)
    fig = new_figure(11, 2.9 * rows + 0.4)
    axes = fig.subplots(rows, columns, squeeze=False).ravel()
    said, fanned = [], False
    for ax, (repo, question) in zip(axes, asked, strict=False):
        quantity, fan, what = _draw(ax, store, repo, as_of, history_days, question)
        fanned |= fan
        ax.set_title(f"{repo}\n{quantity.words}", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.xaxis.set_major_locator(mdates.MonthLocator())  # short month names: none overprints
        ax.xaxis.set_major_formatter(mdates.DateFormatter("%b"))
        for c in ax.collections:  # each panel's own threshold, one key for all of them
            if c.get_label().startswith("asked:"):
                c.set_label("threshold asked")
        said.append(f"{repo}: {what}")
    for ax in axes[len(asked) :]:
        ax.set_visible(False)
    keys: dict[str, Any] = {}
    for ax in axes[: len(asked)]:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            keys.setdefault(label, handle)
    # one key below the panels, right of the source line, off every panel's data
    fig.legend(keys.values(), keys.keys(), loc="lower right", fontsize=7, ncols=len(keys))
    finish(
        fig,
        STAR_SIGNALS_SOURCE + (" and forecast_intervals" if fanned else ""),
        rect=(0, 0.09 / rows, 1, 1),
        dates=False,
    )
    alt = f"The cards' questions, one panel each, to {as_of}: " + "; ".join(said)
    return fig, alt


def fan_chart(
    store: Store,
    repo: str,
    as_of: date,
    path: Path,
    history_days: int = 180,
    question: dict | None = None,
) -> tuple[Path, bool, str]:
    """`fan_figure` as a PNG at `path`: the path, whether a fan was drawn, and the title."""
    fig, drawn, title = fan_figure(store, repo, as_of, history_days, question)
    return save(fig, path), drawn, title


def cards_chart(
    store: Store, asked: list[tuple[str, dict | None]], as_of: date, path: Path
) -> tuple[Path, str]:
    """`cards_figure` as a PNG at `path`: the path and its alt text."""
    fig, alt = cards_figure(store, asked, as_of)
    return save(fig, path), alt
