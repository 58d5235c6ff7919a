"""Briefing charts (matplotlib figures drawn by Agg, PNG next to the markdown).

Each chart is a `*_figure` function returning the matplotlib `Figure` (what a test inspects)
and a `*_chart` function writing it as a PNG; the layout they share (legends off the data, the
ending) is `chart_layout`, a card's chart of its question `fan_chart`.

- `stories_chart`: per tracked repository, the stars gained each day and the 28-day pace over
  the last 90 days, the days its story names (`shu.signals.stories`) shaded, the store-wide
  event days it sets aside shaded apart, and every single day of those or of any other spike
  or removal marked (▼), so a day as wide as a bar still shows.
- `pace_gaps` / `shade_gaps` / `broken_at_gaps`: the days a chart cannot draw the 28-day pace
  and the unobserved days behind them, drawn as thin grey bands along the bottom of the axes
  and named in the legend (every velocity chart uses them), and a line broken at them rather
  than bridging them.
- `reliability_chart`: observed frequency against forecast probability in equal-count bins,
  with the diagonal; the bins' size in the legend.
- `rocm_chart`: a ROCm card's chart: the repository's 90-day ROCm share of mainline commits over
  the last year, its releases whose notes mention ROCm, and the card's forecast (the share it
  asks about, or the window a ROCm release is asked for) with its probability.
- `index_chart`: the ROCm ecosystem index over time (repositories counted and those with ROCm
  work in the trailing 90 days, first-time adoptions; below, the share of commits touching ROCm).
- `watch_chart`: the calibration watch's reliability chart (per confidence band, mean confidence
  against how often forecasts came true; per velocity band, 80% interval coverage).
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from shu.briefing.chart_layout import GUIDE, finish, new_figure, save
from shu.briefing.story_words import kind_words
from shu.briefing.text import day_text, days_text, pct
from shu.forecast.features import rocm
from shu.settings_tables import ROCM_PATTERN
from shu.signals.reads import pace_series, undefined_pace
from shu.signals.stories import REMOVAL_MIN, Episode, Story, daily_gains, spike_day
from shu.signals.story_reads import stored_counts
from shu.store import Store

HISTORY_DAYS = 180
# The source line of a chart of the star_signals table.
STAR_SIGNALS_SOURCE = "Source: shu store, table star_signals (daily GitHub star counts)"


def slug(text: str) -> str:
    """`text` as part of a chart's file name."""
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "x"


@dataclass(frozen=True)
class Gap:
    """Days a chart cannot draw the 28-day pace, and the unobserved days behind them."""

    first: date
    last: date
    missing: tuple[date, date] | None  # the days without star counts that leave it undefined

    def label(self) -> str:
        if self.missing is None:
            return f"28-day pace undefined {days_text(self.first, self.last)}"
        return (
            f"no star counts {days_text(*self.missing)}: 28-day pace undefined to "
            f"{day_text(self.last)}"
        )


def pace_gaps(store: Store, repos: list[str], since: date, until: date) -> list[Gap]:
    """The runs of days in [since, until] on which the 28-day velocity of any of `repos` is
    undefined, each with the unobserved days that explain it (`signals.reads.undefined_pace`)."""
    return [Gap(*run) for run in undefined_pace(store.con, repos, since, until)]


# A gap is drawn as a thin band along the bottom of the axes (fractions of its height), not
# over the whole plot: a few days without counts leave the 28-day pace undefined for four
# weeks, and a band that tall greyed half of a 180-day chart.
GAP_BAND = 0.035  # the days the pace is undefined
MISSING_BAND = 0.07  # the days without star counts behind them
GAP = "gap"  # the gid of a gap's band


def shade_gaps(ax: Any, gaps: list[Gap]) -> None:
    """Draw each gap on `ax` as a thin grey band along the bottom (darker and taller over the
    days without counts), named in the legend; the lines break there (`broken_at_gaps`)."""
    for i, gap in enumerate(gaps):
        ax.axvspan(
            gap.first,
            gap.last + timedelta(days=1),
            ymax=GAP_BAND,
            color="grey",
            alpha=0.35,
            linewidth=0,
            label=gap.label() if i < 3 else None,
            gid=GAP,
        )
        if gap.missing is not None:
            ax.axvspan(
                gap.missing[0],
                gap.missing[1] + timedelta(days=1),
                ymax=MISSING_BAND,
                color="dimgrey",
                alpha=0.6,
                linewidth=0,
                gid=GAP,
            )


def broken_at_gaps(g: pd.DataFrame, max_gap_days: int = 7) -> tuple[pd.Series, pd.Series]:
    """The series with a NaN after every gap longer than `max_gap_days`, so the line breaks
    there instead of drawing a straight segment over days that were never observed."""
    g = g.sort_values("day")
    gaps = g[g["day"].diff() > pd.Timedelta(days=max_gap_days)]
    breaks = pd.DataFrame({"day": gaps["day"] - pd.Timedelta(days=1), "value": float("nan")})
    both = pd.concat([g[["day", "value"]], breaks]).sort_values("day", kind="stable")
    return both["day"], both["value"]


STORY_DAYS = 90
EPISODE_COLOURS = {"burst": "C1", "removal": "C3", "small": "C1"}


def _episode_word(e: Episode) -> str:
    """'removal', or 'spike' for one day of unusual gains and 'burst' for two days or more."""
    if e.kind == "removal":
        return "removal"
    return "spike" if e.days == 1 else "burst"


def _single_days(gains: dict[date, float], shaded: set[date]) -> list[tuple[date, str]]:
    """The days of `gains` no shading covers that are spikes or removals on their own (the
    stories' definitions, `spike_day` and `REMOVAL_MIN`, against the chart's median day)."""
    if not gains:
        return []
    ordinary = max(float(pd.Series(list(gains.values())).median()), 0.0)
    out = []
    for d, g in sorted(gains.items()):
        if d in shaded:
            continue
        if spike_day(g, ordinary):
            out.append((d, "spike"))
        elif g < 0 and -g >= max(0.5 * ordinary, REMOVAL_MIN):
            out.append((d, "removal"))
    return out


def _shade_days(ax: Any, first: date, last: date, colour: str, label: str) -> None:
    """Shade the days `first`..`last` on `ax`; a single day also gets a marker at the top, so
    it shows beside bars as wide as itself."""
    ax.axvspan(
        first - timedelta(hours=12),
        last + timedelta(hours=12),
        color=colour,
        alpha=0.25,
        linewidth=0,
        label=label,
    )
    if first == last:
        ax.plot(
            [first],
            [0.97],
            linestyle="none",
            marker="v",
            markersize=5,
            color=colour,
            transform=ax.get_xaxis_transform(),
        )


def stories_figure(store: Store, stories: list[Story], as_of: date) -> Figure:
    """One panel per repository: stars gained each day (bars) and the 28-day pace (line) over
    the last STORY_DAYS days, with the days its story names shaded (a single day marked too),
    the store-wide event days it sets aside, any other single-day spike or removal, and any gap
    drawn."""
    n = max(len(stories), 1)
    fig = new_figure(9, 1.55 * n + 0.8)
    axes = fig.subplots(n, 1, squeeze=False)
    start = as_of - timedelta(days=STORY_DAYS)
    for ax, story in zip(axes[:, 0], stories, strict=False):
        counts = stored_counts(store, story.repo, start - timedelta(days=10), as_of)
        gains = daily_gains(counts, start, as_of)
        days = sorted(gains)
        ax.bar(
            days,
            [gains[d] for d in days],
            width=0.9,
            color="C0",
            alpha=0.45,
            linewidth=0,
            label="stars gained that day",
        )
        pace = pace_series(store.con, story.repo, start, as_of)
        ax.plot(
            [d for d, _ in pace],
            [v for _, v in pace],
            color="C0",
            linewidth=1.6,
            label="28-day pace",
        )
        shaded: set[date] = set()
        for e in story.episodes + story.named_small:
            _shade_days(
                ax,
                e.first,
                e.last,
                EPISODE_COLOURS[e.kind],
                f"{_episode_word(e)} {days_text(e.first, e.last)}",
            )
            shaded |= {e.first + timedelta(days=k) for k in range(e.days)}
        for e in story.store_wide:
            word = "spike" if e.kind != "removal" else "loss"
            _shade_days(
                ax, e.first, e.last, "C4", f"store-wide {word} {days_text(e.first, e.last)}"
            )
            shaded |= {e.first + timedelta(days=k) for k in range(e.days)}
        singles = _single_days(gains, shaded)
        for kind in ("spike", "removal"):
            mine = [d for d, k in singles if k == kind]
            if mine:
                ax.plot(
                    mine,
                    [0.97] * len(mine),
                    linestyle="none",
                    marker="v",
                    markersize=5,
                    color=EPISODE_COLOURS["burst" if kind == "spike" else "removal"],
                    transform=ax.get_xaxis_transform(),
                    label=f"single-day {kind}{'s' if len(mine) > 1 else ''}",
                )
        if story.week_leaving:  # a steady pace's far-off oldest week, which its story names
            first, last = story.oldest_week
            pace_word = "faster" if story.week_leaving == "up" else "slower"
            ax.axvspan(
                first - timedelta(hours=12),
                last + timedelta(hours=12),
                color="C2",
                alpha=0.2,
                linewidth=0,
                label=f"{pace_word} week {days_text(first, last)}",
            )
        ax.axvline(
            as_of - timedelta(days=27.5), color="grey", linestyle=":", linewidth=0.8, gid=GUIDE
        )
        shade_gaps(ax, pace_gaps(store, [story.repo], start, as_of))
        ax.axhline(0, color="grey", linewidth=0.5, gid=GUIDE)
        ax.set_xlim(start, as_of + timedelta(days=1))
        # a long story wraps inside the figure rather than running off its right edge
        title = textwrap.fill(f"{story.repo}: {kind_words(story)}", 110)
        ax.set_title(title, fontsize=9, loc="left")
        ax.set_ylabel("stars/day", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6)
    if not stories:
        axes[0, 0].text(
            0.5, 0.5, "no tracked repository", ha="center", transform=axes[0, 0].transAxes
        )
    fig.suptitle(
        f"Stars gained per day (bars) and the 28-day pace (line), {STORY_DAYS} days to {as_of}\n"
        "dotted: the start of the 28-day window; shaded: the days each story names; "
        "▼: a single day",
        fontsize=9,
    )
    return finish(
        fig,
        "Source: shu store, tables stars_daily and star_signals",
        rect=(0, 0.02, 1, 1),  # tight_layout leaves room for the suptitle itself
        y=0.005,
    )


def stories_chart(store: Store, stories: list[Story], as_of: date, path: Path) -> Path:
    """`stories_figure` as a PNG at `path`."""
    return save(stories_figure(store, stories, as_of), path)


def reliability_figure(pairs: list[tuple[float, int]], title: str, bins: int = 10) -> Figure:
    """Reliability diagram of (probability, outcome) pairs in equal-count bins; the bins'
    size said once in the legend (equal-count bins differ by one at most, and a count printed
    at each point ran together where points sit close)."""
    fig = new_figure(5, 5)
    ax = fig.subplots()
    ax.plot([0, 1], [0, 1], color="grey", linestyle="dotted", label="perfect calibration")
    ordered = sorted(pairs)
    n = len(ordered)
    if n:
        k = min(bins, n)
        xs, ys, counts = [], [], []
        for b in range(k):
            chunk = ordered[b * n // k : (b + 1) * n // k]
            if chunk:
                xs.append(sum(p for p, _ in chunk) / len(chunk))
                ys.append(sum(y for _, y in chunk) / len(chunk))
                counts.append(len(chunk))
        size = f"{min(counts):,}" + (f"–{max(counts):,}" if max(counts) > min(counts) else "")
        ax.plot(
            xs,
            ys,
            marker="o",
            label=f"resolved forecasts (n = {n:,}),\n{len(xs)} bins of {size} each",
        )
    else:
        ax.text(0.5, 0.5, "no resolved forecasts yet", ha="center")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("forecast probability")
    ax.set_ylabel("observed frequency")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    return finish(
        fig,
        "Source: shu store, forecasts and forecast_resolutions",
        rect=(0, 0.03, 1, 1),
        dates=False,
    )


def reliability_chart(
    pairs: list[tuple[float, int]], path: Path, title: str, bins: int = 10
) -> Path:
    """`reliability_figure` as a PNG at `path`."""
    return save(reliability_figure(pairs, title, bins), path)


def rocm_chart(
    store: Store, forecast: dict[str, Any], as_of: date, path: Path, history_days: int = 365
) -> Path:
    """`rocm_figure` as a PNG at `path`."""
    return save(rocm_figure(store, forecast, as_of, history_days), path)


def rocm_figure(
    store: Store, forecast: dict[str, Any], as_of: date, history_days: int = 365
) -> Figure:
    """The ROCm card's chart for `forecast` (a ROCm template's question) up to `as_of`."""
    repo = forecast["repo"]
    start = as_of - timedelta(days=history_days)
    share = rocm.share_series(store.con, repo, start, as_of)
    releases = store.con.execute(
        "SELECT published_at::DATE FROM releases WHERE repo = ? AND published_at >= ? AND "
        "published_at < ? AND regexp_matches(coalesce(name, '') || chr(10) || "
        "coalesce(body, ''), ?) ORDER BY 1",
        [repo, start, as_of + timedelta(days=1), f"(?i)({ROCM_PATTERN})"],
    ).fetchall()
    fig = new_figure(9, 3.6)
    ax = fig.subplots()
    ax.plot(
        share["day"],
        100 * share["share_90d"],
        color="C3",
        label="ROCm share of mainline commits, 90 days (%)",
    )
    for i, (day,) in enumerate(releases):
        ax.axvline(
            day,
            color="C2",
            linewidth=0.8,
            alpha=0.7,
            label="release mentioning ROCm" if i == 0 else None,
        )
    p = forecast["probability"]
    if forecast["template"] == "rocm_share_reach":
        ax.hlines(
            100 * forecast["threshold"],
            forecast["origin"],
            forecast["resolves_on"],
            colors="C1",
            linestyles="dashed",
            label=f"asked: reaches {pct(forecast['threshold'], 1)} by "
            f"{forecast['resolves_on']} (p = {p:.2f})",
        )
    else:
        ax.axvspan(
            forecast["origin"],
            forecast["resolves_on"],
            color="C1",
            alpha=0.15,
            label=f"asked: {forecast['template'].replace('_', ' ')} by "
            f"{forecast['resolves_on']} (p = {p:.2f})",
        )
    ax.set_xlim(start, forecast["resolves_on"])  # type: ignore[arg-type]  # dates: matplotlib converts them
    ax.set_ylim(bottom=0)
    ax.set_ylabel("share of commits (%)")
    ax.set_title(f"{repo}: ROCm share of mainline commits to {as_of} and the forecast", fontsize=10)
    ax.legend(fontsize=7)
    return finish(
        fig, "Source: shu store, tables commits, releases and forecasts", rect=(0, 0.04, 1, 1)
    )


def watch_chart(watch: dict, path: Path) -> Path:
    """`watch_figure` as a PNG at `path`."""
    return save(watch_figure(watch), path)


def watch_figure(watch: dict) -> Figure:
    """Reliability chart of the watch: per confidence band, mean confidence against how often
    forecasts came true (with the 95% interval); per velocity band, 80% interval coverage."""
    fig = new_figure(9, 4.2)
    left, right = fig.subplots(1, 2)
    left.plot([0.5, 1], [0.5, 1], color="grey", linestyle="dotted", label="as sure as said")
    for b in watch["yes_no"]:
        if not b["n"]:
            continue
        left.errorbar(
            [b["mean_confidence"]],
            [b["observed"]],
            yerr=[[b["observed"] - b["ci_low"]], [b["ci_high"] - b["observed"]]],
            marker="o",
            capsize=3,
            label=f"{b['band']} (n = {b['n']:,})",
        )
    left.set_xlim(0.5, 1)
    left.set_ylim(0.3, 1)
    left.set_xlabel("mean confidence said")
    left.set_ylabel("came true as predicted")
    left.set_title("yes/no forecasts by confidence band", fontsize=9)
    left.legend(fontsize=7)
    shown = [b for b in watch["intervals"] if b["n"]]
    right.axhline(0.8, color="grey", linestyle="dotted", label="nominal 80%")
    for i, b in enumerate(shown):
        right.errorbar(
            [i],
            [b["observed"]],
            yerr=[[b["observed"] - b["ci_low"]], [b["ci_high"] - b["observed"]]],
            marker="s",
            capsize=3,
            color="tab:orange",
        )
    right.set_xticks(
        range(len(shown)), [f"{b['band']}\n(n = {b['n']:,})" for b in shown], fontsize=7
    )
    right.set_ylim(0.5, 1)
    right.set_xlabel("28-day velocity on the origin, stars/day")
    right.set_ylabel("80% interval held")
    right.set_title("interval forecasts by velocity band", fontsize=9)
    right.legend(fontsize=7)
    if not any(b["n"] for b in watch["yes_no"] + watch["intervals"]):
        fig.text(0.5, 0.5, "no forecast resolved in the window yet", ha="center")
    fig.suptitle(
        f"Calibration watch: forecasts resolved {watch['window'][0]} .. {watch['window'][1]}",
        fontsize=10,
    )
    return finish(
        fig,
        "Source: shu store, forecasts, forecast_resolutions and interval_resolutions",
        rect=(0, 0.03, 1, 0.95),
        dates=False,
    )


def index_chart(store: Store, day: date, path: Path) -> Path:
    """`index_figure` as a PNG at `path`."""
    return save(index_figure(store, day), path)


def index_figure(store: Store, day: date) -> Figure:
    """The index up to `day`: repositories counted and those with ROCm work in the trailing 90
    days, first-time adoptions marked; below, the share of commits touching ROCm."""
    rows = store.con.execute(
        "SELECT day, repos, repos_rocm_90d, rocm_share_90d, nonbot_rocm_share_90d, amd_repos, "
        "third_party_repos_rocm_90d, third_party_rocm_share_90d FROM rocm_index WHERE day <= ? "
        "ORDER BY day",
        [day],
    ).fetchall()
    firsts = store.con.execute(
        "SELECT first_rocm_day, count(DISTINCT repo) FROM rocm_index_repos WHERE day = "
        "first_rocm_day AND first_time_adopter AND day <= ? GROUP BY 1 ORDER BY 1",
        [day],
    ).fetchall()
    fig = new_figure(9, 5.5)
    top, bottom = fig.subplots(2, 1, sharex=True)
    days = [r[0] for r in rows]
    top.plot(days, [r[1] for r in rows], color="grey", label="repositories counted")
    top.plot(days, [r[2] for r in rows], color="C3", label="with ROCm commits in the last 90 days")
    if any(r[5] for r in rows):
        top.plot(
            days,
            [r[6] for r in rows],
            color="C0",
            linewidth=0.9,
            label="of those, not AMD's own",
        )
    if firsts:
        counts = {r[0]: r[2] for r in rows}
        top.scatter(
            [f for f, _ in firsts],
            [counts.get(f, 0) for f, _ in firsts],
            marker="^",
            color="C2",
            zorder=3,
            label="a repository's first ROCm commit",
            s=18,
        )
    top.set_ylabel("repositories")
    top.legend(fontsize=8)
    bottom.plot(days, [100 * (r[3] or 0) for r in rows], color="C3", label="all commits")
    if any(r[5] for r in rows):
        bottom.plot(
            days,
            [100 * (r[7] or 0) for r in rows],
            color="C0",
            label="AMD's own ROCm repositories left out",
        )
    bottom.plot(
        days,
        [100 * (r[4] or 0) for r in rows],
        color="C1",
        linewidth=0.8,
        label="commits by people (bots left out)",
    )
    bottom.set_ylabel("% of commits touching ROCm")
    bottom.legend(fontsize=8)
    top.set_title(f"ROCm work across the repositories with commit history, to {day}")
    return finish(fig, "Source: shu store, view rocm_index (90-day windows)", rect=(0, 0.03, 1, 1))
