"""The bounds between the one predictive distribution F of the 28-day star velocity V on t+H
(`distribution`) and the star questions not read from it: the stars gained by the horizon
(`star_gain`) and the acceleration reaching or falling to a level on some day of (t, t+H]
(`star_accel_reach` / `star_accel_fall`). Those keep their own models, but an answer that
contradicts F is moved to the bound at issue time and the move is recorded in the forecast's
`calibration` state (key `bound`), as the regime guard records its own.

From the definitions of `star_signals` (s(d) the star count on day d):
V(d) = (s(d) - s(d-28)) / 28 and acceleration A(d) = V(d) - V(d-28). Write D(k) =
s(t) - s(t-k) (known on the origin t) and r >= 0 for the most stars the repository may lose,
net, over a stretch of days after t (`removal_allowance`; 0 where stars only grow).

- star_gain, s(t+H) - s(t) >= N. For H <= 28 it is a function of V:
  s(t+H) - s(t) = 28 V(t+H) - D(28-H), so P(gain >= N) = P_F(V >= (N + D(28-H)) / 28) exactly;
  N and D are whole stars, so on V's 1/28 lattice that is V > (N + D(28-H) - 1) / 28
  (`gain_velocity`). The answer is an anchor of F at that threshold (`anchor_thresholds`) and
  is read back from F there. For H > 28, s(t+H) - s(t) = 28 V(t+H) + (s(t+H-28) - s(t)),
  the second term the net gain of (t, t+H-28], >= -r: P(gain >= N) >= P_F(V >= (N + r) / 28).
- star_accel_reach, A(d) >= X on some day of (t, t+H]. The day t+H is one of them, so
  P(reach) >= P(A(t+H) >= X) = P(V(t+H) >= X + V(t+H-28)). For H <= 28, V(t+H-28) is known on
  the origin: P(reach) >= P_F(V >= X + V(t+H-28)). For H > 28 it is not, and nothing bounds it
  from above (a burst of stars on (t, t+H-28] raises it without touching V(t+H)): no bound.
- star_accel_fall, A(d) <= X on some day: P(fall) >= P(V(t+H) <= X + V(t+H-28)). For H <= 28:
  P(fall) >= P_F(V <= X + V(t+H-28)). For H > 28, V(t+H-28) is bounded below:
  28 V(t+H-28) = s(t+H-28) - s(t+H-56) >= D(56-H) - r when H < 56 (the stretch (t+H-56, t]
  is known, the rest loses at most r) and >= -r when H >= 56, so
  P(fall) >= P_F(V <= X + (D(56-H) - r) / 28), resp. P_F(V <= X - r / 28).

Enforced: an answer below its lower bound is raised to it; a star_gain answer at H <= 28 is
F's. Read with `distribution.cdf` from the stored distribution (for "V >= y" as P(V > y), the
lower of the two where F steps at y, so the bound never claims more than F says; the "="
bound's velocity is already the lattice value below, so it reads P(V > velocity) exactly).

r, the removal allowance: the repository's largest fall of its star count below its running
peak over the `REMOVAL_DAYS` days up to the origin. Where stars can be removed (an episode of
removals), the bounds for H > 28 weaken by r / 28 stars/day in V's threshold (the gain bound's
threshold rises, the fall bound's falls); the H <= 28 relations use counts already observed and
hold whatever was removed before t.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

import duckdb
import numpy as np
import pandas as pd

from shu.forecast.calibration.distribution import C_EDGE, cdf

WINDOW = 28  # days of the velocity window (velocity_28d)
REMOVAL_DAYS = 365  # history read for the removal allowance
BOUNDED = ("star_gain", "star_accel_reach", "star_accel_fall")
# what the origin knows for a bound: the columns of `origin_values`, the arguments of `rule`
KNOWN = ("stars_gained", "velocity_then", "removal_allowance")

MOVED = 1e-9  # an answer held to its bound "moved" when it changed by more (not float noise)

Relation = Literal["=", ">="]
Side = Literal["above", "below"]


@dataclass(frozen=True)
class Bound:
    """What F says about one question: its answer `relation` P_F(V >= velocity) (side "above")
    or P_F(V <= velocity) (side "below"); for relation "=" (star_gain at H <= 28) the event is
    V > velocity (`gain_velocity`, on V's lattice)."""

    relation: Relation
    side: Side
    velocity: float  # stars/day, the threshold of V on t+H
    removal_allowance: float = 0.0  # r that entered the threshold (stars)


def lag_days(template: str, horizon_days: int) -> int | None:
    """How many days before the origin the bound of `template` at `horizon_days` reads the star
    count and velocity (D(k) and V(t-k)); None when it reads none."""
    if template in ("star_gain", "star_accel_reach"):
        return WINDOW - horizon_days if horizon_days <= WINDOW else None
    if template == "star_accel_fall":
        if horizon_days <= WINDOW:
            return WINDOW - horizon_days
        return 2 * WINDOW - horizon_days if horizon_days < 2 * WINDOW else None
    return None


def rule(
    template: str,
    horizon_days: int,
    threshold: float,
    stars_gained: float | None,
    velocity_then: float | None,
    removal_allowance: float | None,
) -> Bound | None:
    """The bound of one question (module docstring): `stars_gained` = D(k) and `velocity_then`
    = V(t-k) at k = `lag_days`, `removal_allowance` = r. None when the template has no bound
    at this horizon or a value it needs is missing."""
    h, x = horizon_days, float(threshold)
    d, v, r = _finite(stars_gained), _finite(velocity_then), _finite(removal_allowance)
    r = None if r is None else max(r, 0.0)
    if template == "star_gain":
        if h <= WINDOW:
            return None if d is None else Bound("=", "above", gain_velocity(x, d))
        return None if r is None else Bound(">=", "above", (x + r) / WINDOW, r)
    if template == "star_accel_reach":
        return Bound(">=", "above", x + v) if h <= WINDOW and v is not None else None
    if template == "star_accel_fall":
        if h <= WINDOW:
            return None if v is None else Bound(">=", "below", x + v)
        if r is None:
            return None
        if h < 2 * WINDOW:
            return None if d is None else Bound(">=", "below", x + (d - r) / WINDOW, r)
        return Bound(">=", "below", x - r / WINDOW, r)
    return None


def has_bound(template: str, horizon_days: int) -> bool:
    """Whether questions of `template` at `horizon_days` have a bound (given the values)."""
    return rule(template, horizon_days, 1.0, 0.0, 0.0, 0.0) is not None


def gain_velocity(threshold: float, stars_gained: float) -> float:
    """The velocity threshold of star_gain at H <= 28: s(t+H) - s(t) >= N is
    V(t+H) >= (N + D(28-H)) / 28, and with whole stars (N rounded up, D to the nearest) the
    same as V(t+H) > (N + D - 1) / 28, a value on V's lattice: the event F is read at."""
    n = math.ceil(float(threshold) - 1e-9)
    return (n + round(float(stars_gained)) - 1) / WINDOW


def _finite(value: float | None) -> float | None:
    return None if value is None or not np.isfinite(value) else float(value)


def probability(
    bound: Bound,
    levels: np.ndarray,
    quantiles: np.ndarray,
    anchor_x: np.ndarray,
    anchor_cdf: np.ndarray,
) -> float:
    """P_F of the bound's event from one stored distribution."""
    c = cdf(
        np.asarray(levels, dtype=float),
        np.asarray(quantiles, dtype=float),
        np.asarray(anchor_x if anchor_x is not None else [], dtype=float),
        np.asarray(anchor_cdf if anchor_cdf is not None else [], dtype=float),
        bound.velocity,
    )
    return 1.0 - c if bound.side == "above" else c


def enforce(bound: Bound, answer: float, p_bound: float) -> float:
    """The answer that does not contradict F: F's own for "=" (kept inside (C_EDGE, 1 - C_EDGE),
    as the answers F is anchored on), else at least the bound."""
    if bound.relation == "=":
        return float(np.clip(p_bound, C_EDGE, 1.0 - C_EDGE))
    return float(max(answer, p_bound)) if np.isfinite(answer) else float(p_bound)


def origin_values(
    con: duckdb.DuckDBPyConnection, repos: list[str], origin: date, lag: int | None
) -> pd.DataFrame:
    """Per repository, what the origin knows for the bounds: `stars_gained` D(lag) and
    `velocity_then` V(t-lag) (NULL without `lag` or a row that day), and `removal_allowance` r
    (largest fall below the running peak of the star count over the `REMOVAL_DAYS` days up to
    the origin), from `star_signals`."""
    return con.execute(
        f"""
        WITH asked AS (SELECT DISTINCT unnest(?::VARCHAR[]) AS repo),
        peak AS (
          SELECT s.repo, s.stars,
                 max(s.stars) OVER (PARTITION BY s.repo ORDER BY s.day
                                    ROWS UNBOUNDED PRECEDING) AS peak
          FROM star_signals s JOIN asked USING (repo)
          WHERE s.day > ?::DATE - {REMOVAL_DAYS} AND s.day <= ?::DATE AND s.stars IS NOT NULL),
        fall AS (SELECT repo, max(peak - stars)::DOUBLE AS removal_allowance
                 FROM peak GROUP BY repo)
        SELECT a.repo,
               (s0.stars - s1.stars)::DOUBLE AS stars_gained,
               s1.velocity_28d AS velocity_then,
               f.removal_allowance
        FROM asked a
        LEFT JOIN star_signals s0 ON s0.repo = a.repo AND s0.day = ?::DATE
        LEFT JOIN star_signals s1 ON s1.repo = a.repo AND ?::INTEGER IS NOT NULL
             AND s1.day = ?::DATE - coalesce(?::INTEGER, 0)
        LEFT JOIN fall f ON f.repo = a.repo
        """,
        [repos, origin, origin, origin, lag, origin, lag],
    ).df()


def known_at(con: duckdb.DuckDBPyConnection, rows: pd.DataFrame, lag: int | None) -> pd.DataFrame:
    """`origin_values` (the columns `KNOWN`) of each of `rows` (repo, origin), each read as of
    its own origin; aligned with `rows` (its index), NaN where the store has no value."""
    days = pd.Series([pd.Timestamp(o).date() for o in rows["origin"]], index=rows.index)
    parts = [
        origin_values(con, sorted(set(rows["repo"][days == day])), day, lag).assign(day=day)
        for day in sorted(set(days))
    ]
    asked = pd.DataFrame({"repo": rows["repo"].to_numpy(), "day": days.to_numpy()})
    if not parts:
        return pd.DataFrame(columns=list(KNOWN), index=rows.index, dtype=float)
    table = pd.concat(parts, ignore_index=True)
    merged = asked.merge(table, how="left", on=["repo", "day"])
    return pd.DataFrame(
        merged[list(KNOWN)].to_numpy(dtype=float), columns=list(KNOWN), index=rows.index
    )


def gain_thresholds(
    con: duckdb.DuckDBPyConnection, horizon_days: int, rows: pd.DataFrame
) -> np.ndarray:
    """The velocity threshold (`gain_velocity`) at which each star_gain question of `rows`
    (repo, origin, threshold) at `horizon_days` <= 28 is an anchor of F, from D(28-H) as of its
    origin; NaN where that is unknown or the horizon is beyond 28 days."""
    out = np.full(len(rows), np.nan)
    lag = lag_days("star_gain", horizon_days)
    if lag is None or rows.empty:
        return out
    d = known_at(con, rows, lag)["stars_gained"].to_numpy(dtype=float)
    for j, (x, dj) in enumerate(zip(rows["threshold"].to_numpy(dtype=float), d, strict=True)):
        if np.isfinite(x) and np.isfinite(dj):
            out[j] = gain_velocity(x, dj)
    return out


def bound_answers(
    con: duckdb.DuckDBPyConnection,
    template: str,
    horizon_days: int,
    rows: pd.DataFrame,
    answers: np.ndarray,
    distributions: Mapping[tuple[str, date], Mapping[str, Any]],
    known: pd.DataFrame | None = None,
) -> tuple[np.ndarray, list[dict[str, Any] | None]]:
    """The answers of one template x horizon's questions (`rows`: repo, origin, threshold)
    held to their bounds against the distribution of the same (repository, origin) in
    `distributions` (rows of `forecast_distributions`, by (repo, origin day)); with, per
    question, the record of what was checked (None where no bound applies or no distribution
    exists): the bound's relation, side and velocity, the values it read (as of the origin),
    P_F, the model's answer and whether it moved (by more than `MOVED`). `known`: what
    `known_at` reads for `rows` at this template's lag, where the caller has it already."""
    out = np.asarray(answers, dtype=float).copy()
    notes: list[dict[str, Any] | None] = [None] * len(rows)
    if template not in BOUNDED or rows.empty:
        return out, notes
    if not has_bound(template, horizon_days):
        return out, notes
    lag = lag_days(template, horizon_days)
    days = [pd.Timestamp(o).date() for o in rows["origin"]]
    if not any((r, d) in distributions for r, d in zip(rows["repo"], days, strict=True)):
        return out, notes
    known = known_at(con, rows, lag) if known is None else known
    columns = {k: known[k].to_numpy(dtype=float) for k in KNOWN}
    for j, (repo, day, x) in enumerate(zip(rows["repo"], days, rows["threshold"], strict=True)):
        dist = distributions.get((repo, day))
        if dist is None:
            continue
        values = {k: _finite(columns[k][j]) for k in KNOWN}
        bound = rule(template, horizon_days, float(x), *(values[k] for k in KNOWN))
        if bound is None:
            continue
        p_b = probability(
            bound,
            dist["levels"],
            dist["quantiles"],
            dist["anchor_thresholds"],
            dist["anchor_cdf"],
        )
        raw = float(out[j])
        out[j] = enforce(bound, raw, p_b)
        notes[j] = {
            "relation": bound.relation,
            "side": bound.side,
            "velocity": bound.velocity,
            "lag_days": lag,
            **values,
            "distribution_id": dist.get("distribution_id"),
            "p_distribution": p_b,
            "model": raw,
            "moved": bool(abs(out[j] - raw) > MOVED),
        }
    return out, notes
