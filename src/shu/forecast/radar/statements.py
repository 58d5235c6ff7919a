"""The breakout radar's drivers in plain words, each with the numbers it quotes and the stored
rows behind them (`Citation`s that become receipts).

Drivers come from the model (the features that moved a forecast's log-odds most, stored with it
at issue) and are worded from the raw values behind them, never with feature names: each feature
belongs to one statement (`features.words.RADAR_STATEMENTS`, part of the one driver
vocabulary); the first `MAX_DRIVERS` statements that the data can back are kept, in the order of
the model's drivers, each saying whether it points towards a breakout or against one, and
whether the statement, read on its own, speaks for a breakout (`Driver.reads`: a pace that fell
does not, even where the model counts it towards one because a typical repository's fell more).
The numbers are stored `star_signals` rows on the origin (or a few days before it), or read-only
queries over them.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

import numpy as np
import pandas as pd

from shu.forecast.features.words import RADAR_STATEMENTS, reads_up
from shu.receipts import Citation
from shu.store import Store

MAX_DRIVERS = 3


@dataclass
class Driver:
    """One reason in words, whether it points towards a breakout, and the rows it quotes."""

    text: str
    towards: bool
    citations: list[Citation] = field(default_factory=list)
    # the statement read on its own: True speaks for a breakout, False against, None neither
    reads: bool | None = None
    # the statement kind (`features.words.RADAR_STATEMENTS`'s values)
    kind: str = ""
    # the model feature behind it (one kind words several: "bar" the pace, the bar, or the two)
    feature: str = ""

    @property
    def store_fact(self) -> bool:
        """Whether the statement only restates what the store holds (`STORE_FACTS`)."""
        return self.kind in STORE_FACTS

    @property
    def store_wide(self) -> bool:
        """Whether the statement is about the whole store or the repository's peers, not the
        repository itself (`STORE_WIDE`)."""
        return self.kind in STORE_WIDE


FIRST_DAY_SQL = "SELECT min(day) FROM star_signals WHERE repo = ?"
# The busiest day among the 28 up to the origin: the largest daily gain of the facts layer
# (`star_days.gain`), as the model's `max_day_share_28d` reads it (params: repo, origin, origin).
BUSIEST_DAY_SQL = (
    "SELECT max(gain) FROM star_days WHERE repo = ? AND day > ?::DATE - 28 AND day <= ?::DATE"
)
# ... and its day (the latest of them on a tie).
BUSIEST_DAY_ON_SQL = (
    "SELECT arg_max(day, (gain, day)) FROM star_days WHERE repo = ? AND day > ?::DATE - 28 "
    "AND day <= ?::DATE AND gain IS NOT NULL"
)
MARKET_SQL = (
    "SELECT median(velocity_28d_z) FROM star_signals WHERE day = ?::DATE "
    "AND velocity_28d IS NOT NULL"
)
PHASES = {
    "emerging": "gaining at least 0.5% of its stars a day and not slowing",
    "expansion": "its 28-day pace grew by at least a tenth of itself in 28 days",
    "maturation": "still growing, no longer fast",
    "decline": "gaining under 0.01% of its stars a day",
}


def float_or_none(v: Any) -> float | None:
    """A stored number as a float (None for NULL/NaN)."""
    return None if v is None or (isinstance(v, float) and np.isnan(v)) else float(v)


def as_date(v: Any) -> date:
    """A stored day (date, timestamp or text) as a date."""
    return pd.Timestamp(v).date()


def signal_citation(repo: str, day: date, column: str, value: float) -> Citation:
    """The citation of one `star_signals` value."""
    return Citation(
        "row",
        "star_signals",
        {"repo": repo, "day": day},
        column,
        value,
        day,
        f"{repo} {column} on {day}",
    )


def _pct(value: float, against: float) -> str:
    """How `value` compares with `against` in %, from the two as the statement shows them (one
    decimal), so a reader redoing it from them gets the same figure."""
    shown = round(against, 1)
    ratio = round(value, 1) / shown if shown > 0 else value / against
    return f"{abs(ratio - 1) * 100:.0f}% {'above' if ratio >= 1 else 'below'}"


def drivers_in_words(store: Store, row: dict[str, Any], limit: int = MAX_DRIVERS) -> list[Driver]:
    """The model's drivers of one stored forecast as statements with numbers (see the module
    docstring); `row` holds the forecast (drivers, threshold, origin, resolves_on) and the
    stored values the statements quote (a statement that needs more asks `store`)."""
    stored = json.loads(row["drivers"] or "[]")
    out: list[Driver] = []
    said: set[str] = set()
    for d in stored:
        kind = RADAR_STATEMENTS.get(d["feature"])
        if kind is None or kind in said:
            continue
        driver = _statement(store, kind, row, d["sign"] == "+", d["feature"])
        if driver is not None:
            said.add(kind)
            out.append(driver)
        if len(out) >= limit:
            break
    return out


class _Facts:
    """The values one radar row quotes, each with the citation of the stored row behind it."""

    def __init__(self, store: Store, row: dict[str, Any]) -> None:
        self.store, self.row = store, row
        self.repo, self.origin = row["repo"], as_date(row["origin"])
        self.v7, self.v28 = float_or_none(row["velocity_7d"]), float_or_none(row["velocity_28d"])
        self.v90, self.bar = float_or_none(row["velocity_90d"]), float(row["threshold"])

    def signal(self, column: str, value: Any, day: date | None = None) -> Citation:
        return signal_citation(self.repo, day or self.origin, column, value)

    def bar_cite(self) -> Citation:
        return Citation(
            "row",
            "forecasts",
            {"forecast_id": self.row["forecast_id"]},
            "threshold",
            self.bar,
            self.origin,
            f"{self.repo} breakout bar",
        )

    def query(
        self, sql: str, params: list[Any], value: Any, label: str, table: str = "star_signals"
    ) -> Citation:
        return Citation("query", table, {}, "", value, self.origin, label, sql=sql, params=params)


def _week(f: _Facts) -> tuple[str, list[Citation]] | None:
    if f.v7 is None or f.v28 is None:
        return None
    cites = [f.signal("velocity_7d", f.v7), f.signal("velocity_28d", f.v28)]
    if f.v28 > 0:
        return (
            f"the last 7 days ran {_pct(f.v7, f.v28)} the 28-day pace ({f.v7:,.1f} "
            f"against {f.v28:,.1f} stars/day)",
            cites,
        )
    return f"the last 7 days gained {f.v7:,.1f} stars/day, the last 28 days {f.v28:,.1f}", cites


def _days3(f: _Facts) -> tuple[str, list[Citation]] | None:
    now, before = float_or_none(f.row["stars"]), float_or_none(f.row["stars_3"])
    if now is None or before is None:
        return None
    gained = int(now) - int(before)
    return (
        f"the last 3 days brought {gained:,} stars ({gained / 3:,.1f} a day) against a "
        f"breakout bar of {f.bar:,.1f} stars/day",
        [
            f.signal("stars", int(now)),
            f.signal("stars", int(before), f.origin - timedelta(days=3)),
            f.bar_cite(),
        ],
    )


def _bar(f: _Facts) -> tuple[str, list[Citation]] | None:
    if f.v28 is None:
        return None
    return (
        f"a breakout needs 28 days at {f.bar:,.1f} stars/day or more by "
        f"{as_date(f.row['resolves_on'])}; the last 28 days ran at {f.v28:,.1f}",
        [f.bar_cite(), f.signal("velocity_28d", f.v28)],
    )


def _quarter(f: _Facts) -> tuple[str, list[Citation]] | None:
    if f.v28 is None or f.v90 is None or f.v90 <= 0:
        return None
    return (
        f"the 28-day pace is {_pct(f.v28, f.v90)} the 90-day pace ({f.v28:,.1f} against "
        f"{f.v90:,.1f} stars/day)",
        [f.signal("velocity_28d", f.v28), f.signal("velocity_90d", f.v90)],
    )


def _year(f: _Facts) -> tuple[str, list[Citation]] | None:
    z = float_or_none(f.row["velocity_28d_z"])
    if z is None:
        return None
    return (
        f"the 28-day pace sits {abs(z):.1f} standard deviations "
        f"{'above' if z >= 0 else 'below'} its own past year",
        [f.signal("velocity_28d_z", z)],
    )


def _size(f: _Facts) -> tuple[str, list[Citation]] | None:
    stars = float_or_none(f.row["stars"])
    if stars is None:
        return None
    return f"{int(stars):,} stars in all", [f.signal("stars", int(stars))]


def _weeks(f: _Facts) -> tuple[str, list[Citation]] | None:
    before = float_or_none(f.row["velocity_7d_lag7"])
    if before is None or f.v7 is None:
        return None
    return (
        f"{f.v7:,.1f} stars/day this week after {before:,.1f} the week before",
        [
            f.signal("velocity_7d", f.v7),
            f.signal("velocity_7d", before, f.origin - timedelta(days=7)),
        ],
    )


def _age(f: _Facts) -> tuple[str, list[Citation]] | None:
    first = f.row["first_day"]
    if first is None or pd.isna(first):
        return None
    first = as_date(first)
    days = (f.origin - first).days
    if days >= 1095:
        return None  # the model caps history at three years: nothing to say
    return (
        f"in the store's star data for {days:,} days (since {first})",
        [f.query(FIRST_DAY_SQL, [f.repo], first, f"{f.repo} first day with star data")],
    )


def _accel(f: _Facts) -> tuple[str, list[Citation]] | None:
    a28 = float_or_none(f.row["acceleration_28d"])
    if a28 is None:
        return None
    return (
        f"the 28-day pace {'rose' if a28 >= 0 else 'fell'} by {abs(a28):,.1f} stars/day "
        "over the last 28 days",
        [f.signal("acceleration_28d", a28)],
    )


def _spike(f: _Facts) -> tuple[str, list[Citation]] | None:
    if f.v28 is None or f.v28 <= 0:
        return None
    params = [f.repo, f.origin, f.origin]
    found = f.store.con.execute(BUSIEST_DAY_SQL, params).fetchone()
    busiest = float_or_none(found[0] if found else None)
    if busiest is None:
        return None
    return (
        f"the busiest of the last 28 days brought {busiest:,.0f} stars, "
        f"{100 * busiest / (28 * f.v28):.0f}% of the {28 * f.v28:,.0f} they gained",
        [
            f.query(BUSIEST_DAY_SQL, params, busiest, f"{f.repo} busiest day's stars", "star_days"),
            f.signal("velocity_28d", f.v28),
        ],
    )


def _phase(f: _Facts) -> tuple[str, list[Citation]] | None:
    phase = f.row["lifecycle_phase"]
    if phase not in PHASES:
        return None
    return (
        f"its star curve is in the '{phase}' phase ({PHASES[phase]})",
        [f.signal("lifecycle_phase", phase)],
    )


def _market(f: _Facts) -> tuple[str, list[Citation]] | None:
    z = float_or_none(f.row["market_velocity_z"])
    if z is None:
        return None
    return (
        f"across the store, the median repository's 28-day pace sits {abs(z):.1f} "
        f"standard deviations {'above' if z >= 0 else 'below'} its own past year",
        [f.query(MARKET_SQL, [f.origin], z, "median velocity_28d_z of the store")],
    )


def _category(f: _Facts) -> tuple[str, list[Citation]] | None:
    share, category = float_or_none(f.row["accelerating_share"]), f.row["category"]
    if share is None:
        return None
    group = "untracked repositories" if category == "untracked" else f"its '{category}' peers"
    return (
        f"{100 * share:.0f}% of {group} are accelerating",
        [
            Citation(
                "row",
                "category_signals",
                {"category": category, "day": f.origin},
                "accelerating_share",
                share,
                f.origin,
                f"{category} accelerating share",
            )
        ],
    )


# Statement kind -> its wording (None when the data behind it is missing).
_WORDING = {
    "week": _week,
    "days3": _days3,
    "bar": _bar,
    "quarter": _quarter,
    "year": _year,
    "size": _size,
    "weeks": _weeks,
    "age": _age,
    "accel": _accel,
    "spike": _spike,
    "phase": _phase,
    "market": _market,
    "category": _category,
}


def _ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b <= 0 else a / b


def _log_ratio(a: float | None, b: float | None) -> float | None:
    r = _ratio(a, b)
    return None if r is None else (math.log(r) if r > 0 else -math.inf)


def _minus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def _stars_3d(f: _Facts) -> float | None:
    now, before = float_or_none(f.row["stars"]), float_or_none(f.row["stars_3"])
    return None if now is None or before is None else (now - before) / 3


# Statement kind -> whether it, read on its own, speaks for a breakout: the one definition
# (`features.words.reads_up`) read on the value of the feature the statement's numbers stand for
# (None: neither, or the data is missing); kinds absent here are background (size, age, the market,
# the category).
_READS = {
    "week": lambda f: reads_up("rel_velocity_7d", _ratio(f.v7, f.v28)),
    "days3": lambda f: reads_up("log_velocity_3d_vs_bar", _log_ratio(_stars_3d(f), f.bar)),
    "bar": lambda f: reads_up("log_velocity_28d_vs_bar", _log_ratio(f.v28, f.bar)),
    "quarter": lambda f: reads_up("rel_velocity_28d_vs_90d", _ratio(f.v28, f.v90)),
    "year": lambda f: reads_up("velocity_28d_z", float_or_none(f.row["velocity_28d_z"])),
    "weeks": lambda f: reads_up(
        "rel_acceleration_7d", _minus(f.v7, float_or_none(f.row["velocity_7d_lag7"]))
    ),
    "accel": lambda f: reads_up("rel_acceleration_28d", float_or_none(f.row["acceleration_28d"])),
    "phase": lambda f: reads_up(f"phase_{f.row['lifecycle_phase']}", 1.0),
}


# Statement kinds that only restate what the store holds about a repository (how long it has been
# in the store's star data, its stars in all): background for the model; the briefing words them
# as what they are where one is what lifts a chance most (the JSON flags them).
STORE_FACTS = frozenset({"age", "size"})
# Statement kinds about the whole store (its median repository's pace) or the repository's peers
# (how many of them accelerate): the same for every repository on the radar, so no reason for
# this one; the briefing says so where one is what lifts a chance most (the JSON flags them).
STORE_WIDE = frozenset({"market", "category"})


def strongest_for(drivers: list[Driver]) -> Driver | None:
    """The driver that lifts the chance of a breakout most: the first of the repository's own
    that the model counts towards one (drivers come ordered by how much they move the chance,
    either way), whatever it reads like on its own; a store-wide one (the same for every row)
    only when no own one does; None when every driver lowers the chance."""
    towards = [d for d in drivers if d.towards]
    return next((d for d in towards if not d.store_wide), towards[0] if towards else None)


def _statement(
    store: Store, kind: str, row: dict[str, Any], towards: bool, feature: str = ""
) -> Driver | None:
    """The statement `kind` for `row`, or None when the data behind it is missing."""
    facts = _Facts(store, row)
    worded = _WORDING[kind](facts)
    if worded is None:
        return None
    reads = _READS[kind](facts) if kind in _READS else None
    return Driver(worded[0], towards, worded[1], reads, kind, feature)
