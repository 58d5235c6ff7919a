"""Forecast question templates: wording, informative thresholds, and exact resolution rules.

Every rule is SQL over the store, using the definitions of `star_signals` / `commit_signals`
(28-day velocity and acceleration, NULL across gaps longer than 7 days). The same SQL labels the
backtest's historical questions and resolves issued forecasts, so the two can never disagree.
A question whose data is missing at resolution resolves `void`: counted and reported, never a
hit or a miss.

Templates (t = origin, H = horizon in days):
- star_accel_reach: acceleration_28d >= X on any day in (t, t+H]. void when any day of
  (t, t+H] has no defined acceleration, even if X was reached on another day: voiding must not
  depend on the outcome, or a data gap would keep the early 'yes' and drop every 'no' and bias
  the track record. Otherwise yes when some day reaches X, else no. X: 0 when the acceleration
  on t is negative (does it turn positive?); otherwise the round ladder level nearest to a rise
  of one 91-day standard deviation of the acceleration (at least two ladder steps above today's
  value, never the next step).
- star_accel_fall: the mirror image, acceleration_28d <= X on any day in (t, t+H], voided the
  same way. X: 0 when the acceleration on t is positive (does it turn negative?); otherwise the
  round ladder level nearest to a fall of one standard deviation (at least two steps below).
- star_velocity_level: velocity_28d(t+H) > L; void when either velocity is NULL. L: the round
  level (1-2-5 series, stars/day) nearest to the velocity on t in log terms, other than the
  nearest one above it when that is within 10% (so it is never the next step above today).
- star_velocity_up: velocity_28d(t+H) > velocity_28d(t) (X = velocity_28d(t)); void when either
  is NULL.
- star_gain: stars(t+H) - stars(t) >= N; void when either count is NULL. N is the next round
  number at or above the current pace (velocity_28d x H, at least 10).
- release_within: a release or version tag is published in (t, t+H]; void when the store has no
  release of the repository published on or before t (release history not loaded).
- commit_velocity_up: commit velocity_28d(t+H) > commit velocity_28d(t); void when either is
  NULL or flagged as a gap.
- star_breakout: a breakout, velocity_28d(t+H) >= X with the bar X = max(2 x max(velocity_28d(t),
  velocity_90d(t), 1), 10) stars/day: the 28 days ending at t+H ran at least twice the pace of
  the 28 and the 90 days before t (the 90-day term keeps a recovery from a dip, stars removed
  and then the usual pace again, from counting), and at least 10 stars/day. The 90-day term is
  left out where velocity_90d(t) is NULL (history shorter than 90 days, or a gap of more than 7
  days in the window). void when velocity_28d(t) or velocity_28d(t+H) is NULL (either window
  spans a gap); the question is asked of every repository with a velocity_28d on t, whatever
  the source (the radar).
- star_velocity_interval: a predictive distribution of velocity_28d(t+H) (see `interval`);
  X = velocity_28d(t) for reference. void when either velocity is NULL; otherwise the observed
  value is stored and the answer is yes when it lies in the issued 80% interval
  [lower_80, upper_80] (the questions table carries those bounds; `interval` records all three
  intervals in `interval_resolutions`).
- rocm_share_reach, rocm_release_mention, rocm_first_commit: ROCm adoption, from commits and
  releases; wording, rules and features in `forecast/questions/rocm.py`, registered at the
  end of this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

import duckdb
import pandas as pd

from shu.errors import InputError

HORIZONS = (7, 30, 90)

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


@dataclass(frozen=True)
class Template:
    """A question template: name, wording, the threshold's unit, and the table it reads."""

    name: str
    wording: str
    unit: str
    reads: str

    def question(self, repo: str, origin: date, horizon_days: int, threshold: float) -> str:
        """The question in one sentence, with its resolution rule."""
        end = origin + timedelta(days=horizon_days)
        return self.wording.format(repo=repo, origin=origin, end=end, h=horizon_days, x=threshold)


TEMPLATES: dict[str, Template] = {
    t.name: t
    for t in (
        Template(
            "star_accel_reach",
            "Will the 28-day star acceleration of {repo} reach >= {x:+.2f} stars/day on any "
            "day in ({origin}, {end}]?",
            "stars/day",
            "star_signals",
        ),
        Template(
            "star_accel_fall",
            "Will the 28-day star acceleration of {repo} fall to <= {x:+.2f} stars/day on any "
            "day in ({origin}, {end}]?",
            "stars/day",
            "star_signals",
        ),
        Template(
            "star_velocity_up",
            "Will the 28-day star velocity of {repo} on {end} be above its value on {origin} "
            "({x:.2f} stars/day)?",
            "stars/day",
            "star_signals",
        ),
        Template(
            "star_velocity_level",
            "Will the 28-day star velocity of {repo} on {end} be above {x:g} stars/day?",
            "stars/day",
            "star_signals",
        ),
        Template(
            "star_gain",
            "Will {repo} gain >= {x:,.0f} stars in ({origin}, {end}]?",
            "stars",
            "star_signals",
        ),
        Template(
            "release_within",
            "Will {repo} publish a release or version tag in ({origin}, {end}]?",
            "releases",
            "releases",
        ),
        Template(
            "commit_velocity_up",
            "Will the 28-day commit velocity of {repo} on {end} be above its value on {origin} "
            "({x:.2f} commits/day)?",
            "commits/day",
            "commit_signals",
        ),
        Template(
            "star_breakout",
            "Will {repo} break out: a 28-day star velocity on {end} of >= {x:.1f} stars/day "
            "(at least twice its 28- and 90-day pace on {origin}, and at least 10 stars/day)?",
            "stars/day",
            "star_signals",
        ),
        Template(
            "star_velocity_interval",
            "What will the 28-day star velocity of {repo} be on {end} (it was {x:.2f} "
            "stars/day on {origin})?",
            "stars/day",
            "star_signals",
        ),
    )
}


def template(name: str) -> Template:
    """The template called `name` (InputError naming the valid ones otherwise)."""
    try:
        return TEMPLATES[name]
    except KeyError:
        raise InputError(f"unknown template {name!r}; choose from {', '.join(TEMPLATES)}") from None


# ---------------------------------------------------------------- thresholds
def threshold_sql(name: str, state: str, horizon_days: str = "horizon_days") -> str:
    """SQL expression for the informative threshold of template `name`.

    `state` is the alias of a row holding the origin's signals (`acceleration_28d`,
    `velocity_28d`, `commit_velocity_28d`); the result is NULL when no question can be asked.
    """
    a, sd = f"{state}.acceleration_28d", f"coalesce({state}.accel_sd_91d, 0.0)"
    if name in ("star_accel_reach", "star_accel_fall"):
        up = name == "star_accel_reach"
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
    if name == "star_velocity_level":
        v = f"{state}.velocity_28d"
        score = f"abs(ln(x / greatest({v}, 0.01)))"
        allowed = f"list_filter({_VELOCITY_SQL}, lambda x: NOT (x > {v} AND x <= {v} * 1.1))"
        return (
            f"CASE WHEN {v} IS NULL OR {v} <= 0 THEN NULL ELSE "
            f"{allowed}[list_position(list_transform({allowed}, lambda x: {score}), "
            f"list_min(list_transform({allowed}, lambda x: {score})))] END"
        )
    if name == "star_breakout":
        v28, v90 = f"{state}.velocity_28d", f"{state}.velocity_90d"
        return (
            f"CASE WHEN {v28} IS NULL THEN NULL ELSE greatest(2.0 * greatest({v28}, "
            f"coalesce({v90}, {v28}), 1.0), 10.0) END"
        )
    if name in ("star_velocity_up", "star_velocity_interval"):
        return f"{state}.velocity_28d"
    if name == "star_gain":
        pace = f"greatest({state}.velocity_28d * {horizon_days}, 10.0)"
        return (
            f"CASE WHEN {state}.velocity_28d IS NULL THEN NULL ELSE "
            f"list_min(list_filter({_GAIN_SQL}, lambda n: n >= {pace})) END"
        )
    if name == "release_within":
        return "1.0"
    if name == "commit_velocity_up":
        return f"{state}.commit_velocity_28d"
    raise InputError(f"unknown template {name!r}")


# ---------------------------------------------------------------- resolution
def resolve_questions(con: duckdb.DuckDBPyConnection, name: str, questions: str) -> pd.DataFrame:
    """Resolve the questions of template `name` held in table/view `questions`.

    `questions` has columns (qid, repo, origin DATE, horizon_days INTEGER, threshold DOUBLE,
    lower_80 DOUBLE, upper_80 DOUBLE); the bounds are read by star_velocity_interval only.
    Returns qid, outcome ('yes'/'no'/'void'), observed_value, detail. Only call it for
    questions whose horizon has passed and whose data has been loaded (see `resolve.py`).
    """
    sql = _RESOLUTION_SQL.get(name)
    if sql is None:
        raise InputError(f"unknown template {name!r}")
    return con.execute(sql.format(q=questions)).df()


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

_RESOLUTION_SQL = {
    "star_velocity_up": _AT_HORIZON.format(
        col="velocity_28d", table="star_signals", label="velocity_28d", gap="", gap0="", gap1=""
    ),
    "star_velocity_level": _AT_HORIZON.format(
        col="velocity_28d", table="star_signals", label="velocity_28d", gap="", gap0="", gap1=""
    ),
    "commit_velocity_up": _AT_HORIZON.format(
        col="velocity_28d",
        table="commit_signals",
        label="commit velocity_28d",
        gap="OR coalesce(s0.gap, FALSE) OR coalesce(s1.gap, FALSE)",
        gap0="OR coalesce(s0.gap, FALSE)",
        gap1="OR coalesce(s1.gap, FALSE)",
    ),
    "star_breakout": """
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
""",
    "star_velocity_interval": """
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
""",
    "star_gain": """
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
""",
    "star_accel_reach": _FIRST_PASSAGE.format(op=">=", agg="max", word="highest"),
    "star_accel_fall": _FIRST_PASSAGE.format(op="<=", agg="min", word="lowest"),
    "release_within": """
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
""",
}


# ROCm adoption templates (forecast/questions/rocm.py) join the registry and the resolution rules.
from shu.forecast.questions import rocm as _rocm  # noqa: E402

TEMPLATES.update({spec[0]: Template(*spec) for spec in _rocm.TEMPLATE_SPECS})
_RESOLUTION_SQL.update(_rocm.RESOLUTION_SQL)
