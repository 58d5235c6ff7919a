"""The one registry of question templates: a record per template saying what it is.

Everything in shu that needs to know which template is which reads it here: the family (`star`:
questions about a repository's star, commit or release history, answered from the star features;
`rocm`: ROCm adoption, answered from commits and releases alone), the kind (`yes_no`: a
probability; `interval`: a predictive distribution), what it asks (`at_horizon`: a value on
t+H; `path`: a quantity reaching a level on some day of (t, t+H]; `event`: something happening
in (t, t+H]), its wording, the table whose coverage decides when it can be resolved, its
horizons, its threshold rule (in words, and as SQL or Python), which repositories are eligible
on an origin, its exact resolution SQL, the persistence baseline it is scored against, the
features it needs beyond its family's (`features.feature_names` adds them up, keeping only the
family features its record names where it names some), how it is fitted (a fixed estimator and
its penalty, rare events) and how it is read (the radar's templates are asked of every
repository and read from the top). The rules themselves live beside the templates they belong
to: `questions.star` (star, commit and release templates) and `questions.rocm` (ROCm adoption).

To add a template: write its rules in one of those modules (or a new one), add its record to
`_RECORDS` below and words for any new feature to `features.words`, then run
`shu backtest --template NAME` (docs/design.md says the rest).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING, Literal

import numpy as np
import pandas as pd

from shu.errors import ConfigError, InputError
from shu.forecast.questions import rocm, star

if TYPE_CHECKING:
    from shu.settings import DeclaredQuestion

HORIZONS = (7, 30, 90)

Family = Literal["star", "rocm"]
Kind = Literal["yes_no", "interval"]
Asks = Literal["at_horizon", "path", "event"]
# (alias of the row holding the origin's state, SQL of the horizon in days) -> SQL of the threshold
ThresholdSql = Callable[[str, str], str]
# (question rows, their thresholds, horizon in days) -> the threshold features, in order
ThresholdFeatures = Callable[[pd.DataFrame, np.ndarray, int], pd.DataFrame]
# rows of the ROCm features on origins -> the eligible ones with their threshold
PickRows = Callable[[pd.DataFrame], pd.DataFrame]

STAR_RECEIPTS = ("stars", "velocity_7d", "velocity_28d", "acceleration_7d", "acceleration_28d")
RADAR_RECEIPTS = ("stars", "velocity_7d", "velocity_28d", "velocity_90d")
ROCM_RECEIPTS = (
    "commits_90d",
    "rocm_commits_90d",
    "share_90d",
    "share_365d",
    "months_since_release",
)


@dataclass(frozen=True)
class Template:
    """What one question template is (see the module docstring)."""

    name: str
    family: Family
    kind: Kind
    asks: Asks
    wording: str  # the question, with {repo} {origin} {end} {h} {x}
    unit: str  # of the threshold
    reads: str  # the table whose newest loaded day bounds when a question can resolve
    words: str  # what it asks about, in words (headings never show template identifiers)
    threshold_rule: str  # how the threshold X is chosen, in words
    resolution_sql: str  # over a questions table `{q}` (qid, repo, origin, horizon_days, ...)
    receipts: tuple[str, ...]  # the columns on the origin each forecast cites
    threshold_features: tuple[str, ...] = ()  # inputs beyond the family's base features
    threshold_sql: ThresholdSql | None = None  # star family: the threshold as SQL
    eligible: str | None = None  # star family: SQL over the origin's state
    pick_rows: PickRows | None = None  # rocm family: eligibility and threshold in Python
    add_threshold_features: ThresholdFeatures | None = None
    buckets: tuple[str, tuple[float, ...]] | None = None  # climatology buckets: feature, edges
    persistence_event: str = "p.label = 1"  # SQL: past example p counts as the event for t
    horizons: tuple[int, ...] = HORIZONS
    estimator: str | None = None  # fitted with this estimator whatever the run asks for
    logistic_c: float = 1.0  # inverse strength of the logistic estimator's L2 penalty
    base_features: tuple[str, ...] | None = None  # model inputs of the family's (None: all)
    # star feature sets read beyond the base features (`features.star.FEATURE_SETS`: "engagement"
    # = forks and open issues, "pace" = the 28-day pace without its busiest days)
    feature_sets: tuple[str, ...] = ()
    rare_event: bool = False  # about 1% yes: boosting members keep every 'yes'
    ranked: bool = False  # the radar: asked of every repository, read from the top
    declared_threshold: bool = True  # a declared question's threshold is the user's
    once_per_repository: bool = False  # a repository can answer 'yes' once (a first event)
    # a yes/no question about velocity_28d(t+H) against its threshold: an anchor of the one
    # predictive distribution of that velocity, and read from it (`calibration.distribution`)
    reads_distribution: bool = False

    def question(self, repo: str, origin: date, horizon_days: int, threshold: float) -> str:
        """The question in one sentence, with its resolution rule."""
        end = origin + timedelta(days=horizon_days)
        return self.wording.format(repo=repo, origin=origin, end=end, h=horizon_days, x=threshold)


_ACCEL = ("gap_rel_velocity", "gap_rel_sd", "slog_threshold")
# What the velocity questions and the interval read beyond the base features: forks and open
# issues, the store's removals and the year-end holidays ahead (docs/forecast/method.md,
# "Forks, open issues and the pace without a burst" and "Removals, peers and the calendar", say
# what each set added; the pace, removals and peers sets did not add skill and no template
# reads them).
VELOCITY_FEATURE_SETS = ("engagement", "market_losses", "calendar")

_RECORDS = (
    Template(
        "star_accel_reach",
        "star",
        "yes_no",
        "path",
        "Will the 28-day star acceleration of {repo} reach >= {x:+.2f} stars/day on any "
        "day in ({origin}, {end}]?",
        "stars/day",
        "star_signals",
        "star acceleration",
        star.ACCEL_RULE,
        star.REACH_SQL,
        STAR_RECEIPTS,
        _ACCEL,
        threshold_sql=star.accel_threshold_sql(up=True),
        eligible=star.HAS_STATE,
        add_threshold_features=star.accel_features,
        buckets=("gap_rel_sd", (0.25, 0.5, 1.0, 2.0, 4.0)),
        persistence_event=star.REACH_EVENT,
    ),
    Template(
        "star_accel_fall",
        "star",
        "yes_no",
        "path",
        "Will the 28-day star acceleration of {repo} fall to <= {x:+.2f} stars/day on any "
        "day in ({origin}, {end}]?",
        "stars/day",
        "star_signals",
        "star acceleration",
        star.ACCEL_FALL_RULE,
        star.FALL_SQL,
        STAR_RECEIPTS,
        _ACCEL,
        threshold_sql=star.accel_threshold_sql(up=False),
        eligible=star.HAS_STATE,
        add_threshold_features=star.accel_features,
        buckets=("gap_rel_sd", (-4.0, -2.0, -1.0, -0.5, -0.25)),
        persistence_event=star.FALL_EVENT,
    ),
    Template(
        "star_velocity_up",
        "star",
        "yes_no",
        "at_horizon",
        "Will the 28-day star velocity of {repo} on {end} be above its value on {origin} "
        "({x:.2f} stars/day)?",
        "stars/day",
        "star_signals",
        "star velocity",
        "X = velocity_28d(t)",
        star.VELOCITY_UP_SQL,
        STAR_RECEIPTS,
        threshold_sql=star.velocity_threshold_sql,
        eligible=star.HAS_STATE,
        feature_sets=VELOCITY_FEATURE_SETS,
        reads_distribution=True,
    ),
    Template(
        "star_velocity_level",
        "star",
        "yes_no",
        "at_horizon",
        "Will the 28-day star velocity of {repo} on {end} be above {x:g} stars/day?",
        "stars/day",
        "star_signals",
        "star velocity level",
        star.LEVEL_RULE,
        star.VELOCITY_LEVEL_SQL,
        STAR_RECEIPTS,
        ("log_level_vs_velocity",),
        threshold_sql=star.level_threshold_sql,
        eligible="acceleration_28d IS NOT NULL AND velocity_28d > 0",
        add_threshold_features=star.level_features,
        buckets=("log_level_vs_velocity", (-0.5, -0.2, 0.0, 0.2, 0.5)),
        persistence_event=star.LEVEL_EVENT,
        feature_sets=VELOCITY_FEATURE_SETS,
        reads_distribution=True,
    ),
    Template(
        "star_gain",
        "star",
        "yes_no",
        "at_horizon",
        "Will {repo} gain >= {x:,.0f} stars in ({origin}, {end}]?",
        "stars",
        "star_signals",
        "star gain",
        star.GAIN_RULE,
        star.GAIN_SQL,
        STAR_RECEIPTS,
        ("log_gain_vs_pace",),
        threshold_sql=star.gain_threshold_sql,
        eligible=star.HAS_STATE,
        add_threshold_features=star.gain_features,
        buckets=("log_gain_vs_pace", (-1.0, -0.5, 0.0, 0.5, 1.0)),
        persistence_event=star.GAIN_EVENT,
    ),
    Template(
        "release_within",
        "star",
        "yes_no",
        "event",
        "Will {repo} publish a release or version tag in ({origin}, {end}]?",
        "releases",
        "releases",
        "release",
        "none (X = 1)",
        star.RELEASE_SQL,
        STAR_RECEIPTS,
        threshold_sql=star.no_threshold_sql,
        eligible="months_since_release IS NOT NULL",
    ),
    Template(
        "commit_velocity_up",
        "star",
        "yes_no",
        "at_horizon",
        "Will the 28-day commit velocity of {repo} on {end} be above its value on {origin} "
        "({x:.2f} commits/day)?",
        "commits/day",
        "commit_signals",
        "commit velocity",
        "X = commit velocity_28d(t)",
        star.COMMIT_VELOCITY_UP_SQL,
        STAR_RECEIPTS,
        threshold_sql=star.commit_velocity_threshold_sql,
        eligible="commit_velocity_28d IS NOT NULL",
    ),
    Template(
        "star_breakout",
        "star",
        "yes_no",
        "at_horizon",
        "Will {repo} break out: a 28-day star velocity on {end} of >= {x:.1f} stars/day "
        "(at least twice its 28- and 90-day pace on {origin}, and at least 10 stars/day)?",
        "stars/day",
        "star_signals",
        "breakout",
        star.BREAKOUT_RULE,
        star.BREAKOUT_SQL,
        RADAR_RECEIPTS,
        (
            "log_velocity_7d_vs_bar",
            "log_velocity_3d_vs_bar",
            "log_velocity_28d_vs_bar",
            "rel_velocity_28d_vs_90d",
            "log_bar",
        ),
        threshold_sql=star.breakout_threshold_sql,
        eligible="velocity_28d IS NOT NULL",
        add_threshold_features=star.breakout_features,
        rare_event=True,
        ranked=True,
        reads_distribution=True,
    ),
    Template(
        "star_velocity_interval",
        "star",
        "interval",
        "at_horizon",
        "What will the 28-day star velocity of {repo} be on {end} (it was {x:.2f} "
        "stars/day on {origin})?",
        "stars/day",
        "star_signals",
        "star velocity",
        "X = velocity_28d(t), for reference",
        star.INTERVAL_SQL,
        STAR_RECEIPTS,
        threshold_sql=star.velocity_threshold_sql,
        eligible=star.HAS_STATE,
        feature_sets=VELOCITY_FEATURE_SETS,
    ),
    Template(
        "rocm_share_reach",
        "rocm",
        "yes_no",
        "path",
        "Will the 90-day share of {repo}'s mainline commits that touch ROCm/HIP reach >= "
        "{x:.1%} on any day in ({origin}, {end}]?",
        "share of commits",
        "commits",
        "ROCm share",
        rocm.SHARE_RULE,
        rocm.SHARE_REACH_SQL,
        ROCM_RECEIPTS,
        rocm.SHARE_FEATURES,
        pick_rows=rocm.share_reach_rows,
        add_threshold_features=rocm.share_features,
        estimator=rocm.ESTIMATOR,
        logistic_c=rocm.SHARE_LOGISTIC_C,
        base_features=rocm.SHARE_BASE_FEATURES,
    ),
    Template(
        "rocm_release_mention",
        "rocm",
        "yes_no",
        "event",
        "Will {repo} publish a release or version tag whose notes mention ROCm in "
        "({origin}, {end}]?",
        "releases",
        "releases",
        "ROCm release notes",
        "none (X = 1)",
        rocm.RELEASE_MENTION_SQL,
        ROCM_RECEIPTS,
        pick_rows=rocm.release_mention_rows,
        estimator=rocm.ESTIMATOR,
        declared_threshold=False,
    ),
    Template(
        "rocm_first_commit",
        "rocm",
        "yes_no",
        "event",
        "Will {repo} land its first mainline commit touching ROCm/HIP in ({origin}, {end}]?",
        "commits",
        "commits",
        "first ROCm commit",
        "none (X = 1)",
        rocm.FIRST_COMMIT_SQL,
        ROCM_RECEIPTS,
        pick_rows=rocm.first_commit_rows,
        estimator=rocm.ESTIMATOR,
        declared_threshold=False,
        once_per_repository=True,
    ),
)

TEMPLATES: dict[str, Template] = {t.name: t for t in _RECORDS}
# Read from the records, for code that asks "which templates are ...".
INTERVAL_TEMPLATE = next(t.name for t in _RECORDS if t.kind == "interval")
ROCM_TEMPLATES = tuple(t.name for t in _RECORDS if t.family == "rocm")
RANKED_TEMPLATES = tuple(t.name for t in _RECORDS if t.ranked)
READS_DISTRIBUTION = tuple(t.name for t in _RECORDS if t.reads_distribution)


# The thresholds a declared question may name, by template (inclusive; templates not listed take
# any finite number, e.g. an acceleration, which can be negative).
DECLARED_BOUNDS: dict[str, tuple[float, float, str]] = {
    "rocm_share_reach": (0.0, 1.0, "a share of commits between 0 and 1"),
    "star_velocity_up": (0.0, math.inf, "stars/day, 0 or more"),
    "star_velocity_level": (0.0, math.inf, "stars/day, 0 or more"),
    "star_breakout": (0.0, math.inf, "stars/day, 0 or more"),
    "star_gain": (0.0, math.inf, "stars, 0 or more"),
    "commit_velocity_up": (0.0, math.inf, "commits/day, 0 or more"),
    "release_within": (0.0, math.inf, "releases, 0 or more"),
}


def declared_problem(name: str, horizon: int, threshold: float) -> str | None:
    """Why a declared question (`[[questions]]` in shu.toml) cannot be issued, in words: an
    unknown template (named as `template` names it) or one that is not a yes/no question, a
    horizon the template is not asked at, a threshold outside what its unit allows; None when it
    can be. The one check: every command runs it over the settings' questions
    (`check_declared_questions`) and so does the issue."""
    spec = TEMPLATES.get(name)
    yes_no = ", ".join(t for t, s in TEMPLATES.items() if s.kind == "yes_no")
    if spec is None:
        return f"unknown template {name!r}; choose from {yes_no}"
    if spec.kind != "yes_no":
        return f"template {name!r} is not a yes/no question; choose from {yes_no}"
    if horizon not in spec.horizons:
        days = ", ".join(str(h) for h in spec.horizons)
        return f"horizon {horizon} days: {name} is asked at {days} days only"
    low, high, unit = DECLARED_BOUNDS.get(name, (-math.inf, math.inf, "a number"))
    if not math.isfinite(threshold) or not low <= threshold <= high:
        return f"threshold {threshold:g}: {name} asks about {unit}"
    return None


def check_declared_questions(questions: Sequence[DeclaredQuestion], where: str) -> None:
    """ConfigError, one line starting with `where` (the shu.toml or variable that set them),
    for the first declared question that cannot be issued (`declared_problem`)."""
    for i, q in enumerate(questions):
        problem = declared_problem(q.template, q.horizon, q.threshold)
        if problem:
            raise ConfigError(f"{where}: questions[{i}]: {q.repo}: {problem}")


def template(name: str) -> Template:
    """The template called `name` (InputError naming the valid ones otherwise)."""
    try:
        return TEMPLATES[name]
    except KeyError:
        raise InputError(f"unknown template {name!r}; choose from {', '.join(TEMPLATES)}") from None


def threshold_sql(name: str, state: str, horizon_days: str = "horizon_days") -> str:
    """SQL expression for the informative threshold of star-family template `name`.

    `state` is the alias of a row holding the origin's signals (`acceleration_28d`,
    `velocity_28d`, `commit_velocity_28d`); the result is NULL when no question can be asked.
    """
    rule = template(name).threshold_sql
    if rule is None:
        raise InputError(f"template {name!r} has no SQL threshold rule (a ROCm template)")
    return rule(state, horizon_days)


def threshold_features(
    df: pd.DataFrame, name: str, threshold: pd.Series, horizon_days: int
) -> pd.DataFrame:
    """The threshold features of template `name` for question rows and their thresholds."""
    add = template(name).add_threshold_features
    if add is None:
        return pd.DataFrame(index=df.index)
    return add(df, threshold.astype("float64").to_numpy(), horizon_days)
