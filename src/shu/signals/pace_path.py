"""The path of a repository's 28-day star pace over the 91 days to a day (t - 90 .. t): its
lowest and highest `star_signals.velocity_28d` with their days, what a label about the pace must
be true of.

- **Held steady**: the pace stayed within `STEADY_BAND` of today's over those days (every value
  between (1 - band) and (1 + band) times today's, the band at least `STEADY_FLOOR` stars/day),
  so "steady" / "holds its pace" says what a reader of the 90-day chart sees. A pace that is back
  near its level of 28 days ago after a swing (57 -> 106 -> 87 stars/day) did not.
  Otherwise the pace rose (today's at its 91-day high), fell (at its low) or swung (`shape`).
- **At its 91-day high / low**: today's pace within `EXTREME_SHARE` of the highest (lowest) of
  the 91 days: a lifecycle phase read against it must agree (`signals.lifecycle.agrees`).

`PATH_SQL` re-reads the lowest and highest from `star_signals`, so the briefing cites each as a
query receipt.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

PATH_DAYS = 91  # t - 90 .. t: "the last 90 days" of the 28-day pace, and its 91-day high/low
STEADY_BAND = 0.2  # "steady": within 20% of today's pace over the 91 days
STEADY_FLOOR = 1.0  # ... and at least 1 star/day either side
EXTREME_SHARE = 0.05  # at its 91-day high (low): within 5% of it

PATH_SQL = {
    "low": (
        "SELECT min(velocity_28d) FROM star_signals WHERE repo = ? AND day BETWEEN ? AND ? "
        "AND velocity_28d IS NOT NULL"
    ),
    "high": (
        "SELECT max(velocity_28d) FROM star_signals WHERE repo = ? AND day BETWEEN ? AND ? "
        "AND velocity_28d IS NOT NULL"
    ),
}


@dataclass(frozen=True)
class PacePath:
    """The 28-day pace over the `PATH_DAYS` days to `day`: today's, the lowest and highest."""

    repo: str
    day: date
    now: float
    low: float
    low_day: date
    high: float
    high_day: date

    @property
    def first(self) -> date:
        return self.day - timedelta(days=PATH_DAYS - 1)

    def params(self) -> list[Any]:
        """The parameters of `PATH_SQL`'s SELECTs."""
        return [self.repo, self.first, self.day]

    @property
    def band(self) -> float:
        """How far from today's pace "steady" allows, stars/day."""
        return max(STEADY_BAND * abs(self.now), STEADY_FLOOR)

    @property
    def held_steady(self) -> bool:
        return self.high <= self.now + self.band and self.low >= self.now - self.band

    @property
    def shape(self) -> str:
        """ "held" (within the band), else "rose" (today's at its 91-day high), "fell" (at its
        low) or "swung" (up and back, or down and back)."""
        if self.held_steady:
            return "held"
        if self.at_high:
            return "rose"
        return "fell" if self.at_low else "swung"

    @property
    def at_high(self) -> bool:
        return self.now >= self.high - EXTREME_SHARE * abs(self.high)

    @property
    def at_low(self) -> bool:
        return self.now <= self.low + EXTREME_SHARE * abs(self.low)


def pace_path(con: Any, repo: str, day: date) -> PacePath | None:
    """`repo`'s pace path to `day` from `star_signals` (None when today's 28-day pace is
    undefined or not stored)."""
    first = day - timedelta(days=PATH_DAYS - 1)
    rows = con.execute(
        "SELECT day, velocity_28d FROM star_signals WHERE repo = ? AND day BETWEEN ? AND ? "
        "AND velocity_28d IS NOT NULL ORDER BY day",
        [repo, first, day],
    ).fetchall()
    if not rows or rows[-1][0] != day:
        return None
    low = min(rows, key=lambda r: (r[1], r[0]))
    high = max(rows, key=lambda r: (r[1], r[0]))
    return PacePath(repo, day, float(rows[-1][1]), float(low[1]), low[0], float(high[1]), high[0])
