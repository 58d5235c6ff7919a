"""Lifecycle phase of a repository on a day, from the size and sign of its star velocity and
acceleration (28-day windows). The same rule runs in SQL (`sql_lifecycle_phase`, the column
`lifecycle_phase` of `sql/star_signals.sql` and `sql/star_signal_rows.sql`) with these
thresholds, and in Python here for the reference and the tests.

A phase must agree with the path of the 28-day pace (`signals.pace_path`): `path_conflict`
names where it does not ('decline' while the pace is at its 91-day high, 'emerging' or
'expansion' at its 91-day low), and the briefing then names no phase, only the growth rate and
the path.

Rules, first match wins (g = velocity_28d / stars, the daily growth rate):
- NULL         velocity_28d or acceleration_28d undefined, or no stars;
- 'decline'    g < 0.01 %/day (under ~3.7 % a year: growth has stalled or stars are being lost);
- 'emerging'   g >= 0.5 %/day (doubling in under ~5 months) and acceleration_28d >= 0;
- 'expansion'  acceleration_28d >= 10 % of velocity_28d (velocity still rising clearly);
- 'maturation' otherwise (growing, but flat or slowing down).
"""

from __future__ import annotations

import math

# Thresholds as exact fractions 1/N so both implementations compare integers (star deltas over
# 28 days are integers): no disagreement at a boundary from floating-point rounding.
DECLINE_GROWTH_PER = 10_000  # decline below 1/10000 of stars per day (0.01 %)
EMERGING_GROWTH_PER = 200  # emerging from 1/200 of stars per day (0.5 %)
EXPANSION_ACCELERATION_PER = 10  # expansion from acceleration_28d >= velocity_28d / 10

PHASES = ("emerging", "expansion", "maturation", "decline")
# The rules above in the words a briefing cites beside a phase.
LIFECYCLE_RULE = (
    "decline: velocity under 0.01% of stars a day; emerging: at least 0.5% a day "
    "and not decelerating; expansion: acceleration at least 10% of velocity; "
    "else maturation"
)


def sql_lifecycle_phase(stars: str, gained: str, speedup: str) -> str:
    """The rule as a SQL expression over integer columns: `stars`, `gained` (stars(t) -
    stars(t-28)) and `speedup` (gained minus the same 28 days earlier), the changes NULL when
    undefined."""
    return (
        f"CASE WHEN {gained} IS NULL OR {speedup} IS NULL OR {stars} <= 0 THEN NULL "
        f"WHEN {gained} * {DECLINE_GROWTH_PER} < 28 * {stars} THEN 'decline' "
        f"WHEN {gained} * {EMERGING_GROWTH_PER} >= 28 * {stars} AND {speedup} >= 0 "
        "THEN 'emerging' "
        f"WHEN {speedup} * {EXPANSION_ACCELERATION_PER} >= {gained} THEN 'expansion' "
        "ELSE 'maturation' END"
    )


def lifecycle_phase(
    stars: float | None, velocity_28d: float | None, acceleration_28d: float | None
) -> str | None:
    """The phase the rules above give (None when undefined)."""
    if stars is None or velocity_28d is None or acceleration_28d is None:
        return None
    values = (stars, velocity_28d, acceleration_28d)
    if any(isinstance(v, float) and math.isnan(v) for v in values) or stars <= 0:
        return None
    gained = round(velocity_28d * 28)  # stars gained over t-28 .. t
    speedup = round(acceleration_28d * 28)  # gained minus gained over t-56 .. t-28
    if gained * DECLINE_GROWTH_PER < 28 * stars:
        return "decline"
    if gained * EMERGING_GROWTH_PER >= 28 * stars and speedup >= 0:
        return "emerging"
    if speedup * EXPANSION_ACCELERATION_PER >= gained:
        return "expansion"
    return "maturation"


def path_conflict(phase: str | None, at_high: bool, at_low: bool) -> str | None:
    """Where `phase` contradicts the 28-day pace's 91-day path: "high" for a decline while the
    pace is at its 91-day high, "low" for emerging or expansion at its 91-day low; None when
    they agree (or there is no phase)."""
    if phase == "decline" and at_high:
        return "high"
    if phase in ("emerging", "expansion") and at_low:
        return "low"
    return None
