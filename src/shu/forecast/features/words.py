"""The one driver vocabulary: every feature the models use, in an analyst's words.

A forecast's drivers are features (`models.forecaster.Forecaster.drivers`); readers never see a
feature's identifier. Two readers word them:
- cards: `statement(name, value, template)` turns a feature value (as the forecast stored it)
  back into what it measures, by the feature's definition (`features.star`, `features.rocm`, the
  templates' threshold features in `questions`): ratios become "% above/below", signed logs
  become the count they encode, z-scores become standard deviations from the past year's mean
  ("the last 7 days ran 30% above the 28-day pace"). `WORDS` covers every feature of every
  template (a test checks it); the ROCm templates' `history_years` and `months_since_release`
  read commit history and are worded by `ROCM_WORDS`.
  A card that knows more than the value (`StatementFacts`: which days a past week covers, the
  28-day pace then and now, the busiest day and its stars) passes it, and the words quote it.
- the breakout radar: `RADAR_STATEMENTS` groups the features into statements that quote the
  stored rows behind their numbers (`radar.statements`), one statement per group.
Both readers ask `reads_up` whether a statement, read on its own, says the pace is high or
rising: a reason the model counts one way that a reader would read the other way is left out
or said with how the model reads it (the radar's `Driver.reads`, a card's `Reason.reads`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from shu.forecast.questions.registry import ROCM_TEMPLATES

Words = Callable[[float], str]


def _count(v: float) -> float:
    """The count a signed log ln(1 + |x|) * sign(x) encodes."""
    return math.copysign(math.expm1(abs(v)), v)


def _pace_vs(v: float, what: str) -> str:
    """A pace relative to the 28-day pace (1 = the same) as '% above/below'."""
    if v < 0:
        return f"{what} lost stars, {abs(v):.0%} of the 28-day pace"
    if abs(v - 1) < 0.005:
        return f"{what} ran at the 28-day pace"
    return f"{what} ran {abs(v - 1):.0%} {'above' if v > 1 else 'below'} the 28-day pace"


def _sd(v: float, what: str) -> str:
    return (
        f"{what} is {abs(v):.1f} standard deviations {'above' if v >= 0 else 'below'} its "
        "mean of the past year"
    )


def _change(v: float, when: str) -> str:
    """(now - then) / max(|now|, |then|) as how the two paces compare."""
    if v >= 0:
        return f"{when} the 28-day pace was {1 - v:.0%} of today's"
    return f"today's 28-day pace is {1 + v:.0%} of what it was {when}"


def _vs_bar(v: float, what: str) -> str:
    """ln(pace / breakout bar) as how far the pace is from the bar."""
    ratio = math.exp(v)
    if ratio >= 1:
        return f"{what} already ran at {ratio:.1f} times the breakout bar"
    return f"{what} ran at {ratio:.0%} of the breakout bar"


def _flag(v: float, yes: str, no: str) -> str:
    return yes if v >= 0.5 else no


def _months(v: float) -> str:
    return (
        "its last release was a year or more ago"
        if v >= 12.1
        else f"its last release was {v:.1f} months ago"
    )


WORDS: dict[str, Words] = {
    "log_stars": lambda v: f"it has {math.expm1(v):,.0f} stars",
    "slog_velocity_28d": lambda v: (
        f"it gained {_count(v):,.1f} stars a day over the last 28 days"
        if v >= 0
        else f"it lost {-_count(v):,.1f} stars a day over the last 28 days"
    ),
    "rel_velocity_7d": lambda v: _pace_vs(v, "the last 7 days"),
    "rel_acceleration_7d": lambda v: (
        f"the 7-day pace {'rose' if v >= 0 else 'fell'} in a week "
        f"by {abs(v):.0%} of the 28-day pace"
    ),
    "rel_acceleration_28d": lambda v: (
        f"the 28-day pace {'rose' if v >= 0 else 'fell'} in 28 "
        f"days by {abs(v):.0%} of its current value"
    ),
    "velocity_7d_z": lambda v: _sd(v, "the 7-day pace"),
    "velocity_28d_z": lambda v: _sd(v, "the 28-day pace"),
    "rel_accel_sd_91d": lambda v: (
        f"its acceleration swung by {v:.0%} of the pace (one standard deviation) over 91 days"
    ),
    "rel_accel_max_91d": lambda v: (
        f"its highest acceleration in 91 days was {v:.0%} of today's pace"
    ),
    "rel_velocity_vs_max_91d": lambda v: f"the 28-day pace is {v:.0%} of its 91-day high",
    "velocity_change_91d": lambda v: _change(v, "91 days ago"),
    "velocity_change_364d": lambda v: _change(v, "a year ago"),
    "log_star_growth_364d": lambda v: f"its star count grew {math.expm1(v):.0%} in a year",
    "history_years": lambda v: f"its star history spans {v:.1f} years (counted up to 3)",
    "coverage_91d": lambda v: f"its 28-day pace is known on {v:.0%} of the last 91 days",
    "market_velocity_z": lambda v: _sd(v, "the median repository's 28-day pace"),
    "market_rel_acceleration": lambda v: (
        f"the median repository's pace {'rose' if v >= 0 else 'fell'} by {abs(v):.0%} in 28 days"
    ),
    "category_accelerating_share": lambda v: f"{v:.0%} of its category is accelerating",
    "category_rel_acceleration": lambda v: (
        f"its category's median pace "
        f"{'rose' if v >= 0 else 'fell'} by {abs(v):.0%} of "
        "the category's mean pace in 28 days"
    ),
    "phase_emerging": lambda v: _flag(
        v, "it is in its emerging phase", "it is not in its emerging phase"
    ),
    "phase_expansion": lambda v: _flag(
        v, "it is in its expansion phase", "it is not in its expansion phase"
    ),
    "phase_decline": lambda v: _flag(v, "it is in decline", "it is not in decline"),
    "months_since_release": _months,
    "releases_365d": lambda v: f"it published {v:.0f} releases in the last year",
    "release_interval_ratio": lambda v: (
        f"its last release was {v:.1f} times its usual interval between releases ago"
    ),
    "slog_commit_velocity_28d": lambda v: (
        f"it had {_count(v):,.1f} commits a day over the last 28 days"
    ),
    "rel_commit_acceleration_28d": lambda v: (
        f"its commit pace {'rose' if v >= 0 else 'fell'} by {abs(v):.0%} in 28 days"
    ),
    "rocm_share_28d": lambda v: f"{v:.1%} of its commits in the last 28 days touched ROCm",
    "rel_velocity_7d_lag7": lambda v: _pace_vs(v, "the week before last"),
    "rel_velocity_7d_lag14": lambda v: _pace_vs(v, "the week two weeks back"),
    "rel_velocity_7d_lag21": lambda v: _pace_vs(v, "the week three weeks back"),
    "rel_median_gain_28d": lambda v: (
        f"its median day of the last 28 brought {v:.0%} of the average day's stars"
    ),
    "max_day_share_28d": lambda v: f"its busiest day brought {v:.0%} of the 28 days' stars",
    "rel_velocity_3d": lambda v: _pace_vs(v, "the last 3 days"),
    "log_forks_per_star": lambda v: f"it has {math.exp(v):.2f} forks per star",
    "rel_fork_velocity_28d": lambda v: (
        f"it gained {v:.2f} forks a day per star a day over the last 28 days"
    ),
    "rel_fork_acceleration_7d": lambda v: (
        f"its fork pace of the last 7 days ran {'above' if v >= 0 else 'below'} its 28-day fork "
        f"pace by {abs(v):.2f} forks a day per star a day"
    ),
    "log_open_issues_per_star": lambda v: (
        f"it has {math.exp(v):.3f} open issues and pull requests per star"
    ),
    "open_issues_change_28d": lambda v: (
        f"its open issues and pull requests {'grew' if v >= 0 else 'fell'} "
        f"by {abs(math.expm1(v)):.0%} in 28 days"
    ),
    "open_issues_change_7d": lambda v: (
        f"its open issues and pull requests {'grew' if v >= 0 else 'fell'} "
        f"by {abs(math.expm1(v)):.0%} in 7 days"
    ),
    "rel_open_issue_velocity_28d": lambda v: (
        f"its open issues and pull requests changed by {v:+.2f} a day per star a day "
        "over the last 28 days"
    ),
    "rel_trim3_velocity_28d": lambda v: _pace_vs(
        v, "the last 28 days without their 3 busiest days"
    ),
    "rel_trim1_velocity_28d": lambda v: _pace_vs(v, "the last 28 days without their busiest day"),
    "rel_q75_gain_28d": lambda v: (
        f"one day in four of the last 28 brought at least {v:.0%} of the average day's stars"
    ),
    "market_loss_share_28d": lambda v: (
        f"on an average day of the last 28, {v:.1%} of the store's repositories lost stars"
    ),
    "market_loss_share_change_28d": lambda v: (
        f"the share of repositories losing stars on a day is {abs(v) * 100:.1f} points "
        f"{'higher' if v >= 0 else 'lower'} than in the 28 days before"
    ),
    "market_loss_share_ratio": lambda v: (
        f"{v:.1f} times the year's usual share of repositories lost stars on a day in the "
        "last 28 days"
    ),
    "holiday_days_ahead": lambda v: (
        "the next 28 days hold as many year-end holiday days as the last 28"
        if v == 0
        else f"the next 28 days hold {abs(v):.0f} {'more' if v > 0 else 'fewer'} year-end "
        "holiday days (24 Dec to 1 Jan) than the last 28"
    ),
    "loss_day_share_28d": lambda v: f"it lost stars on {v:.0%} of the last 28 days",
    "loss_day_share_91d": lambda v: f"it lost stars on {v:.0%} of the last 91 days",
    "log_peak_drop_91d": lambda v: (
        f"it is {-math.expm1(-v):.1%} below its highest count of the last 91 days"
    ),
    "rel_largest_loss_91d": lambda v: (
        "it lost no stars on any day of the last 91"
        if v >= 0
        else f"its largest one-day loss of the last 91 days was {abs(v):.1f} times its daily pace"
    ),
    "band_rel_acceleration": lambda v: (
        f"the median repository of its pace band {'sped up' if v >= 0 else 'slowed'} by "
        f"{abs(v):.0%} in 28 days"
    ),
    "band_accelerating_share": lambda v: f"{v:.0%} of the repositories of its pace band sped up",
    "gap_rel_velocity": lambda v: (
        f"the threshold is {abs(v):.0%} of today's pace "
        f"{'above' if v >= 0 else 'below'} today's acceleration"
    ),
    "gap_rel_sd": lambda v: (
        f"the threshold is {abs(v):.1f} typical 91-day swings "
        f"{'above' if v >= 0 else 'below'} today's acceleration"
    ),
    "slog_threshold": lambda v: f"the threshold asked is {_count(v):+,.2f} stars a day",
    "log_level_vs_velocity": lambda v: (
        f"the level asked is {math.exp(v):.2f} times today's 28-day pace"
    ),
    "log_gain_vs_pace": lambda v: (
        f"the gain asked is {math.exp(v):.2f} times what today's pace would bring"
    ),
    # the breakout bar of `star_breakout` (X stars/day over the 28 days ending on t + H)
    "log_velocity_7d_vs_bar": lambda v: _vs_bar(v, "the last 7 days"),
    "log_velocity_3d_vs_bar": lambda v: _vs_bar(v, "the last 3 days"),
    "log_velocity_28d_vs_bar": lambda v: _vs_bar(v, "the last 28 days"),
    "rel_velocity_28d_vs_90d": lambda v: f"the 28-day pace is {v:.0%} of the 90-day pace",
    "log_bar": lambda v: f"a breakout needs {math.exp(v):,.1f} stars a day over 28 days",
    # ROCm adoption (`features.rocm.FEATURES` and the rocm_share_reach threshold features)
    "share_28d": lambda v: f"{v:.1%} of its mainline commits in 28 days touched ROCm",
    "share_90d": lambda v: f"{v:.1%} of its mainline commits in 90 days touched ROCm",
    "share_365d": lambda v: f"{v:.1%} of its mainline commits in a year touched ROCm",
    "share_90d_change": lambda v: f"its 90-day ROCm share moved {100 * v:+.1f} points in 90 days",
    "log_rocm_commits_90d": lambda v: (
        f"it had {math.expm1(v):,.0f} ROCm-touching commits in 90 days"
    ),
    "log_rocm_commits_365d": lambda v: (
        f"it had {math.expm1(v):,.0f} ROCm-touching commits in a year"
    ),
    "log_commits_90d": lambda v: f"it had {math.expm1(v):,.0f} mainline commits in 90 days",
    "ever_rocm": lambda v: _flag(
        v, "it has had ROCm-touching commits", "it has never had a ROCm-touching commit"
    ),
    "years_since_rocm": lambda v: (
        "it has had no ROCm-touching commit in 5 years or more"
        if v >= 4.99
        else f"its last ROCm-touching commit was {v:.1f} years ago"
        if v >= 0.5
        else f"its last ROCm-touching commit was {365.25 * v:,.0f} days ago"
    ),
    "log_releases_365d": lambda v: f"it published {math.expm1(v):,.0f} releases in a year",
    "rocm_releases_365d_share": lambda v: f"{v:.0%} of its releases in a year mention ROCm",
    "threshold_gap": lambda v: (
        f"the share asked is {100 * v:.1f} points above today's 90-day share"
    ),
    "log_threshold_ratio": lambda v: (
        f"the share asked is {math.exp(v):.1f} times today's 90-day share"
    ),
    "reached_365d": lambda v: (
        f"its 90-day ROCm share was at the share asked or above on {v:.0%} of the last year's days"
    ),
    "log_max_365d_vs_threshold": lambda v: (
        f"its highest 90-day ROCm share of the last year was {math.exp(v):.1f} times the share "
        "asked"
    ),
    "log_mean_365d_vs_threshold": lambda v: (
        f"its 90-day ROCm share averaged {math.exp(v):.1f} times the share asked over the last year"
    ),
}
ROCM_WORDS: dict[str, Words] = {
    "history_years": lambda v: f"its commit history spans {v:.1f} years (counted up to 5)",
    "months_since_release": _months,
}


@dataclass(frozen=True)
class StatementFacts:
    """What a card knows beyond a feature's value, read from the stored rows behind it (each
    empty when unknown), so a statement can say which days and which numbers it means."""

    weeks: dict[int, str] = field(default_factory=dict)  # lag in days -> that week in words
    pace: tuple[float, float] | None = None  # the 28-day pace 28 days before, and today
    busiest: tuple[str, float] | None = None  # the busiest of the last 28 days, and its stars


def _week_of(lag: int) -> Callable[[float, StatementFacts], str | None]:
    return lambda v, x: _pace_vs(v, f"the week of {x.weeks[lag]}") if lag in x.weeks else None


def _pace_moved(v: float, x: StatementFacts) -> str | None:
    if x.pace is None:
        return None
    was, now = x.pace
    return (
        f"the 28-day pace {'rose' if v >= 0 else 'fell'} from {was:,.1f} to {now:,.1f} stars/day "
        f"in 28 days, by {abs(v):.0%} of its current value"
    )


def _busiest(v: float, x: StatementFacts) -> str | None:
    if x.busiest is None:
        return None
    day, stars = x.busiest
    return (
        f"its busiest of the last 28 days, {day}, brought {stars:,.0f} stars: {v:.0%} of the 28 "
        "days' stars"
    )


# Features whose words quote `StatementFacts` when a card has them (else `WORDS`).
WITH_FACTS: dict[str, Callable[[float, StatementFacts], str | None]] = {
    "rel_velocity_7d_lag7": _week_of(7),
    "rel_velocity_7d_lag14": _week_of(14),
    "rel_velocity_7d_lag21": _week_of(21),
    "rel_acceleration_28d": _pace_moved,
    "max_day_share_28d": _busiest,
}


def statement(
    name: str, value: float | None, template: str, facts: StatementFacts | None = None
) -> str | None:
    """The feature's value as a plain statement (None when the value is missing or the feature
    is not one shu knows, so an identifier never reaches the text); with `facts`, the days and
    numbers behind it where its words can quote them."""
    words = (ROCM_WORDS.get(name) if template in ROCM_TEMPLATES else None) or WORDS.get(name)
    if words is None or value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    quoted = WITH_FACTS[name](float(value), facts) if facts and name in WITH_FACTS else None
    text = quoted or words(float(value))
    return text[0].upper() + text[1:]


def _over(edge: float) -> Callable[[float], bool]:
    return lambda v: v > edge


# Feature -> whether its value, read on its own by a reader, says the star pace is high or rising
# (True) or low or falling (False); features absent here say neither (a size, a share of one day,
# a past week still in the window, the store or the category).
READS_UP: dict[str, Callable[[float], bool | None]] = {
    "rel_velocity_7d": _over(1.0),
    "rel_velocity_3d": _over(1.0),
    "rel_acceleration_7d": _over(0.0),
    "rel_acceleration_28d": _over(0.0),
    "velocity_7d_z": _over(0.0),
    "velocity_28d_z": _over(0.0),
    "velocity_change_91d": _over(0.0),
    "velocity_change_364d": _over(0.0),
    "rel_velocity_vs_max_91d": lambda v: True if v >= 0.995 else None,  # at its 91-day high
    "rel_velocity_28d_vs_90d": _over(1.0),
    "log_velocity_7d_vs_bar": _over(0.0),
    "log_velocity_3d_vs_bar": _over(0.0),
    "log_velocity_28d_vs_bar": _over(0.0),
    "phase_emerging": lambda v: True if v >= 0.5 else None,
    "phase_expansion": lambda v: True if v >= 0.5 else None,
    "phase_decline": lambda v: False if v >= 0.5 else None,
}


def reads_up(name: str, value: float | None) -> bool | None:
    """Whether the statement of feature `name` at `value`, read on its own, says the star pace
    is high or rising (True), low or falling (False), or neither (None, also when missing)."""
    reads = READS_UP.get(name)
    if reads is None or value is None or math.isnan(value):
        return None
    return reads(float(value))


# The radar's statements: feature -> the statement (quoting stored rows, `radar.statements`) that
# puts it in words there; features without one are not worded on the radar.
RADAR_STATEMENTS = {
    "rel_velocity_7d": "week",
    "log_velocity_7d_vs_bar": "week",
    "rel_acceleration_7d": "week",
    "velocity_7d_z": "week",
    "rel_velocity_3d": "days3",
    "log_velocity_3d_vs_bar": "days3",
    "log_velocity_28d_vs_bar": "bar",
    "log_bar": "bar",
    "slog_velocity_28d": "bar",
    "rel_acceleration_28d": "accel",
    "rel_accel_sd_91d": "accel",
    "rel_accel_max_91d": "accel",
    "max_day_share_28d": "spike",
    "rel_median_gain_28d": "spike",
    "phase_emerging": "phase",
    "phase_expansion": "phase",
    "phase_decline": "phase",
    "market_velocity_z": "market",
    "market_rel_acceleration": "market",
    "category_accelerating_share": "category",
    "category_rel_acceleration": "category",
    "rel_velocity_28d_vs_90d": "quarter",
    "velocity_change_91d": "quarter",
    "rel_velocity_vs_max_91d": "quarter",
    "velocity_28d_z": "year",
    "velocity_change_364d": "year",
    "log_star_growth_364d": "year",
    "log_stars": "size",
    "rel_velocity_7d_lag7": "weeks",
    "rel_velocity_7d_lag14": "weeks",
    "rel_velocity_7d_lag21": "weeks",
    "history_years": "age",
    "coverage_91d": "age",
}
