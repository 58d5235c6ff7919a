"""The star, commit and release question templates: threshold rules and exact resolution rules.

Every rule is SQL over the store, using the definitions of `star_signals` / `commit_signals`
(28-day velocity and acceleration, NULL across gaps longer than 7 days). The same SQL labels the
backtest's historical questions and resolves issued forecasts, so the two can never disagree.
A question whose data is missing at resolution resolves `void`: counted and reported, never a
hit or a miss. The templates' records (wording, kind, eligibility, features) are in `registry`.

Templates (t = origin, H = horizon in days):
- star_accel_reach: acceleration_28d >= X on any day in (t, t+H]. void when any day of
  (t, t+H] has no defined acceleration, even if X was reached on another day: voiding must not
  depend on the outcome, or a data gap would keep the early 'yes' and drop every 'no' and bias
  the track record. Otherwise yes when some day reaches X, else no. X: `ACCEL_RULE`.
- star_accel_fall: the mirror image, acceleration_28d <= X on any day in (t, t+H], voided the
  same way. X: `ACCEL_FALL_RULE`.
- star_velocity_level: velocity_28d(t+H) > L; void when either velocity is NULL. L:
  `LEVEL_RULE`.
- star_velocity_up: velocity_28d(t+H) > velocity_28d(t) (X = velocity_28d(t)); void when either
  is NULL.
- star_gain: stars(t+H) - stars(t) >= N; void when either count is NULL. N: `GAIN_RULE`.
- release_within: a release or version tag is published in (t, t+H]; void when the store has no
  release of the repository published on or before t (release history not loaded).
- commit_velocity_up: commit_velocity_28d(t+H) > commit_velocity_28d(t); void when either is
  NULL or flagged as a gap.
- star_breakout: a breakout, velocity_28d(t+H) >= X with X = `BREAKOUT_RULE`: the 28 days
  ending at t+H ran at least twice the pace of the 28 and the 90 days before t (the 90-day term
  keeps a recovery from a dip, stars removed and then the usual pace again, from counting), and
  at least 10 stars/day. void when velocity_28d(t) or velocity_28d(t+H) is NULL (either window
  spans a gap); the question is asked of every repository with a velocity_28d on t, whatever
  the source (the radar).
- star_velocity_interval: a predictive distribution of velocity_28d(t+H) (`models.interval`);
  X = velocity_28d(t) for reference. void when either velocity is NULL; otherwise the observed
  value is stored and the answer is yes when it lies in the issued 80% interval
  [lower_80, upper_80] (the questions table carries those bounds; `live.resolve` records all
  three intervals in `interval_resolutions`).

Threshold features (`*_features`) put the question's threshold relative to the current state,
so one model serves any X.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

# Round levels (stars/day) that acceleration thresholds are drawn from.
_POS = (
    0.1,
    0.2,
    0.5,
    1,
    1.5,
    2,
    3,
    5,
    10,
    15,
    20,
    30,
    50,
    100,
    150,
    200,
    300,
    500,
    1000,
    2000,
    5000,
)
ACCEL_LADDER = tuple(sorted({0.0, *_POS, *(-x for x in _POS)}))
_LADDER_SQL = "[" + ", ".join(f"{x}::DOUBLE" for x in ACCEL_LADDER) + "]"
# Round star counts (10, 20, 50, 100, ...) that gain thresholds are drawn from.
GAIN_LADDER = tuple(sorted(m * 10**e for m in (1, 2, 5) for e in range(1, 8)))
_GAIN_SQL = "[" + ", ".join(f"{x}::DOUBLE" for x in GAIN_LADDER) + "]"
# Round velocity levels (stars/day) for star_velocity_level.
VELOCITY_LEVELS = tuple(sorted(m * 10.0**e for m in (1, 2, 5) for e in range(-1, 5)))
_VELOCITY_SQL = "[" + ", ".join(f"{x}::DOUBLE" for x in VELOCITY_LEVELS) + "]"

# The state on the origin most star templates need (their eligibility).
HAS_STATE = "acceleration_28d IS NOT NULL AND velocity_28d IS NOT NULL"

# ---------------------------------------------------------------- threshold rules
ACCEL_RULE = (
    "0 when the acceleration on t is negative (does it turn positive?); otherwise the round "
    "ladder level nearest to a rise of one 91-day standard deviation of the acceleration (at "
    "least two ladder steps above today's value, never the next step)"
)
ACCEL_FALL_RULE = (
    "0 when the acceleration on t is positive (does it turn negative?); otherwise the round "
    "ladder level nearest to a fall of one standard deviation (at least two steps below)"
)
LEVEL_RULE = (
    "the round level (1-2-5 series, stars/day) nearest to the velocity on t in log terms, other "
    "than the nearest one above it when that is within 10% (so it is never the next step above "
    "today)"
)
GAIN_RULE = "the next round number at or above the current pace (velocity_28d x H, at least 10)"
BREAKOUT_MULTIPLE = 2.0  # the bar: this many times the faster of today's 28- and 90-day pace
BREAKOUT_MIN = 10.0  # and at least this many stars/day
BREAKOUT_RULE = (
    "max(2 x max(velocity_28d(t), velocity_90d(t), 1), 10) stars/day; the 90-day term is left "
    "out where velocity_90d(t) is NULL (history shorter than 90 days, or a gap of more than 7 "
    "days in the window)"
)


def accel_threshold_sql(up: bool) -> Callable[[str, str], str]:
    """The threshold rule of star_accel_reach (`up`) or star_accel_fall, as SQL."""

    def rule(state: str, horizon_days: str) -> str:
        a, sd = f"{state}.acceleration_28d", f"coalesce({state}.accel_sd_91d, 0.0)"
        op, pick, target = (
            (">", "list_min", f"{a} + {sd}") if up else ("<", "list_max", f"{a} - {sd}")
        )
        # candidate levels: strictly beyond the next ladder step from today's value
        beyond = (
            f"list_filter({_LADDER_SQL}, lambda x: x {op} {pick}(list_filter("
            f"{_LADDER_SQL}, lambda y: y {op} {a})))"
        )
        nearest = (
            f"list_sort({beyond}, 'ASC')[list_position(list_transform({beyond}, "
            f"lambda x: abs(x - ({target}))), list_min(list_transform({beyond}, "
            f"lambda x: abs(x - ({target})))))]"
        )
        sign_question = f"{a} < 0" if up else f"{a} > 0"
        return f"CASE WHEN {a} IS NULL THEN NULL WHEN {sign_question} THEN 0.0 ELSE {nearest} END"

    return rule


def level_threshold_sql(state: str, horizon_days: str) -> str:
    """The threshold rule of star_velocity_level (`LEVEL_RULE`), as SQL."""
    v = f"{state}.velocity_28d"
    score = f"abs(ln(x / greatest({v}, 0.01)))"
    allowed = f"list_filter({_VELOCITY_SQL}, lambda x: NOT (x > {v} AND x <= {v} * 1.1))"
    return (
        f"CASE WHEN {v} IS NULL OR {v} <= 0 THEN NULL ELSE "
        f"{allowed}[list_position(list_transform({allowed}, lambda x: {score}), "
        f"list_min(list_transform({allowed}, lambda x: {score})))] END"
    )


def breakout_threshold_sql(state: str, horizon_days: str) -> str:
    """The breakout bar (`BREAKOUT_RULE`), as SQL."""
    v28, v90 = f"{state}.velocity_28d", f"{state}.velocity_90d"
    return (
        f"CASE WHEN {v28} IS NULL THEN NULL ELSE greatest({BREAKOUT_MULTIPLE} * greatest({v28}, "
        f"coalesce({v90}, {v28}), 1.0), {BREAKOUT_MIN}) END"
    )


def velocity_threshold_sql(state: str, horizon_days: str) -> str:
    """Today's 28-day star velocity (star_velocity_up; star_velocity_interval's reference)."""
    return f"{state}.velocity_28d"


def gain_threshold_sql(state: str, horizon_days: str) -> str:
    """The threshold rule of star_gain (`GAIN_RULE`), as SQL."""
    pace = f"greatest({state}.velocity_28d * {horizon_days}, 10.0)"
    return (
        f"CASE WHEN {state}.velocity_28d IS NULL THEN NULL ELSE "
        f"list_min(list_filter({_GAIN_SQL}, lambda n: n >= {pace})) END"
    )


def no_threshold_sql(state: str, horizon_days: str) -> str:
    """A question without a threshold (release_within): X = 1."""
    return "1.0"


def commit_velocity_threshold_sql(state: str, horizon_days: str) -> str:
    """Today's 28-day commit velocity (commit_velocity_up)."""
    return f"{state}.commit_velocity_28d"


# ---------------------------------------------------------------- threshold features
def accel_features(df: pd.DataFrame, x: np.ndarray, horizon_days: int) -> pd.DataFrame:
    """star_accel_reach / _fall: the gap from today's acceleration to X, relative to the
    velocity and to the acceleration's 91-day spread, and X as a signed log."""
    out = pd.DataFrame(index=df.index)
    scale = np.maximum(np.abs(df["velocity_28d"].to_numpy(dtype="float64")), 0.5)
    gap = x - df["acceleration_28d"].to_numpy(dtype="float64")
    spread = df["accel_sd_91d"].to_numpy(dtype="float64")
    out["gap_rel_velocity"] = gap / scale
    out["gap_rel_sd"] = gap / (np.nan_to_num(spread, nan=0.0) + 0.05 * scale)
    out["slog_threshold"] = np.sign(x) * np.log1p(np.abs(x))
    return out


def level_features(df: pd.DataFrame, x: np.ndarray, horizon_days: int) -> pd.DataFrame:
    """star_velocity_level: ln(level / today's velocity)."""
    out = pd.DataFrame(index=df.index)
    velocity = np.maximum(df["velocity_28d"].to_numpy(dtype="float64"), 0.01)
    out["log_level_vs_velocity"] = np.log(np.maximum(x, 0.01) / velocity)
    return out


def breakout_features(df: pd.DataFrame, x: np.ndarray, horizon_days: int) -> pd.DataFrame:
    """star_breakout: the bar against the 7-, 3- and 28-day paces, the 28-day pace against the
    90-day one, and the bar itself."""
    out = pd.DataFrame(index=df.index)
    bar = np.maximum(x, 1.0)
    for window in ("7d", "3d", "28d"):
        pace = np.maximum(df[f"velocity_{window}"].to_numpy(dtype="float64"), 0.1)
        out[f"log_velocity_{window}_vs_bar"] = np.log(pace / bar)
    long_pace = np.maximum(np.abs(df["velocity_90d"].to_numpy(dtype="float64")), 0.5)
    out["rel_velocity_28d_vs_90d"] = df["velocity_28d"].to_numpy(dtype="float64") / long_pace
    out["log_bar"] = np.log(bar)
    return out


def gain_features(df: pd.DataFrame, x: np.ndarray, horizon_days: int) -> pd.DataFrame:
    """star_gain: ln(gain asked / what today's pace would bring in H days)."""
    out = pd.DataFrame(index=df.index)
    pace = np.maximum(df["velocity_28d"].to_numpy(dtype="float64"), 0.1) * horizon_days
    out["log_gain_vs_pace"] = np.log(x / pace)
    return out


# ---------------------------------------------------------------- persistence baselines
# How a past example p of the same repository counts as "the event happened" for today's
# question t (the persistence baseline replays the repository's past changes against today's
# threshold; templates without one count p's own answer).
REACH_EVENT = "(p.observed_value - p.acceleration_28d) >= (t.threshold - t.acceleration_28d)"
FALL_EVENT = "(p.observed_value - p.acceleration_28d) <= (t.threshold - t.acceleration_28d)"
GAIN_EVENT = "p.observed_value >= t.threshold"
LEVEL_EVENT = (
    "p.observed_value / greatest(p.velocity_28d, 0.01) > "
    "t.threshold / greatest(t.velocity_28d, 0.01)"
)

# ---------------------------------------------------------------- resolution
_AT_HORIZON = """
SELECT q.qid,
  CASE WHEN s0.{col} IS NULL OR s1.{col} IS NULL {gap} THEN 'void'
       WHEN s1.{col} > q.threshold THEN 'yes' ELSE 'no' END AS outcome,
  s1.{col} AS observed_value,
  CASE WHEN s0.{col} IS NULL {gap0} THEN 'no value on the origin'
       WHEN s1.{col} IS NULL {gap1} THEN 'no value on the resolution day'
       ELSE '{label} on ' || (q.origin + q.horizon_days) || ' = ' || round(s1.{col}, 3) END
    AS detail
FROM {{q}} q
LEFT JOIN {table} s0 ON s0.repo = q.repo AND s0.day = q.origin
LEFT JOIN {table} s1 ON s1.repo = q.repo AND s1.day = q.origin + q.horizon_days
"""

# First passage of acceleration_28d past the threshold (op '>=' reach, '<=' fall).
_FIRST_PASSAGE = """
WITH days AS (
  SELECT qid, repo, threshold, horizon_days,
         unnest(generate_series(origin + 1, origin + horizon_days, INTERVAL 1 DAY))::DATE AS day
  FROM {{q}}),
w AS (
  SELECT d.qid, any_value(d.threshold) AS threshold, any_value(d.horizon_days) AS horizon_days,
         count(s.acceleration_28d) AS defined_days, {agg}(s.acceleration_28d) AS extreme_accel,
         min(d.day) FILTER (WHERE s.acceleration_28d {op} d.threshold) AS first_reached
  FROM days d LEFT JOIN star_signals s ON s.repo = d.repo AND s.day = d.day
  GROUP BY d.qid)
SELECT q.qid,
  CASE WHEN w.defined_days < w.horizon_days THEN 'void'
       WHEN w.first_reached IS NOT NULL THEN 'yes' ELSE 'no' END AS outcome,
  w.extreme_accel AS observed_value,
  CASE WHEN w.defined_days < w.horizon_days THEN 'acceleration_28d undefined on '
            || (w.horizon_days - w.defined_days) || ' of ' || w.horizon_days || ' days'
            || coalesce(' (reached on ' || w.first_reached || ')', '')
       WHEN w.first_reached IS NOT NULL THEN 'first reached on ' || w.first_reached
       ELSE '{word} acceleration_28d ' || round(w.extreme_accel, 3) END AS detail
FROM {{q}} q JOIN w USING (qid)
"""

VELOCITY_UP_SQL = _AT_HORIZON.format(
    col="velocity_28d", table="star_signals", label="velocity_28d", gap="", gap0="", gap1=""
)

VELOCITY_LEVEL_SQL = _AT_HORIZON.format(
    col="velocity_28d", table="star_signals", label="velocity_28d", gap="", gap0="", gap1=""
)

COMMIT_VELOCITY_UP_SQL = _AT_HORIZON.format(
    col="commit_velocity_28d",
    table="commit_signals",
    label="commit velocity_28d",
    gap="OR coalesce(s0.gap, FALSE) OR coalesce(s1.gap, FALSE)",
    gap0="OR coalesce(s0.gap, FALSE)",
    gap1="OR coalesce(s1.gap, FALSE)",
)

BREAKOUT_SQL = """
SELECT q.qid,
  CASE WHEN s0.velocity_28d IS NULL OR s1.velocity_28d IS NULL THEN 'void'
       WHEN s1.velocity_28d >= q.threshold THEN 'yes' ELSE 'no' END AS outcome,
  s1.velocity_28d AS observed_value,
  CASE WHEN s0.velocity_28d IS NULL THEN 'no value on the origin'
       WHEN s1.velocity_28d IS NULL THEN 'no value on the resolution day'
       ELSE 'velocity_28d on ' || (q.origin + q.horizon_days) || ' = '
            || round(s1.velocity_28d, 3) || ' against the bar ' || round(q.threshold, 3) END
    AS detail
FROM {q} q
LEFT JOIN star_signals s0 ON s0.repo = q.repo AND s0.day = q.origin
LEFT JOIN star_signals s1 ON s1.repo = q.repo AND s1.day = q.origin + q.horizon_days
"""

INTERVAL_SQL = """
SELECT q.qid,
  CASE WHEN s0.velocity_28d IS NULL OR s1.velocity_28d IS NULL THEN 'void'
       WHEN s1.velocity_28d BETWEEN q.lower_80 AND q.upper_80 THEN 'yes' ELSE 'no' END
    AS outcome,
  s1.velocity_28d AS observed_value,
  CASE WHEN s0.velocity_28d IS NULL THEN 'no value on the origin'
       WHEN s1.velocity_28d IS NULL THEN 'no value on the resolution day'
       ELSE 'velocity_28d on ' || (q.origin + q.horizon_days) || ' = '
            || round(s1.velocity_28d, 3) || coalesce(CASE WHEN s1.velocity_28d BETWEEN
            q.lower_80 AND q.upper_80 THEN ', inside' ELSE ', outside' END
            || ' the 80% interval [' || round(q.lower_80, 2) || ', ' || round(q.upper_80, 2)
            || ']', '') END AS detail
FROM {q} q
LEFT JOIN star_signals s0 ON s0.repo = q.repo AND s0.day = q.origin
LEFT JOIN star_signals s1 ON s1.repo = q.repo AND s1.day = q.origin + q.horizon_days
"""

GAIN_SQL = """
SELECT q.qid,
  CASE WHEN s0.stars IS NULL OR s1.stars IS NULL THEN 'void'
       WHEN s1.stars - s0.stars >= q.threshold THEN 'yes' ELSE 'no' END AS outcome,
  (s1.stars - s0.stars)::DOUBLE AS observed_value,
  CASE WHEN s0.stars IS NULL THEN 'no star count on the origin'
       WHEN s1.stars IS NULL THEN 'no star count on the resolution day'
       ELSE 'gained ' || (s1.stars - s0.stars) || ' stars' END AS detail
FROM {q} q
LEFT JOIN star_signals s0 ON s0.repo = q.repo AND s0.day = q.origin
LEFT JOIN star_signals s1 ON s1.repo = q.repo AND s1.day = q.origin + q.horizon_days
"""

REACH_SQL = _FIRST_PASSAGE.format(op=">=", agg="max", word="highest")
FALL_SQL = _FIRST_PASSAGE.format(op="<=", agg="min", word="lowest")
RELEASE_SQL = """
SELECT q.qid,
  CASE WHEN NOT EXISTS (SELECT 1 FROM releases r WHERE r.repo = q.repo
                        AND r.published_at < q.origin + 1) THEN 'void'
       WHEN count(r.tag) > 0 THEN 'yes' ELSE 'no' END AS outcome,
  count(r.tag)::DOUBLE AS observed_value,
  CASE WHEN NOT EXISTS (SELECT 1 FROM releases r WHERE r.repo = q.repo
                        AND r.published_at < q.origin + 1) THEN 'no release history loaded'
       WHEN count(r.tag) > 0 THEN 'first: ' || arg_min(r.tag, r.published_at)
       ELSE 'no release in the window' END AS detail
FROM {q} q
LEFT JOIN releases r ON r.repo = q.repo AND r.published_at >= q.origin + 1
     AND r.published_at < q.origin + q.horizon_days + 1
GROUP BY q.qid, q.repo, q.origin
"""
