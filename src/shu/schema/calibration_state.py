"""Calibration state tables: the store's regime on each forecast origin (`market_regime`) and
the state each day's forecasts were issued with (`forecast_calibration`: the regime guard, the
online conformal levels and the radar's online tail factor), written by
`shu.forecast.calibration.state_store`."""

from shu.schema.base import Field, Table
from shu.schema.fields import SHARED_FIELDS

_STATS = (
    (
        "share_falling_7d",
        "Of the repository-days in the 7 days to `day` with a star count "
        "observed that day and the day before, the share whose count fell.",
        "fraction",
    ),
    ("share_falling_28d", "The same over the 28 days to `day`.", "fraction"),
    (
        "share_v28_nonpos",
        "Share of repositories whose 28-day velocity on `day` is <= 0.",
        "fraction",
    ),
    (
        "mass_loss_days_28d",
        "Days of the 28 to `day` on which the share of repositories whose "
        "count fell was more than twice its median over the preceding year.",
        "days",
    ),
)

# market_regime's statistics in column order: each, its usual value, its robust z-score.
_REGIME_STATS = (
    *(name for name, _, _ in _STATS),
    *(f"usual_{name}" for name, _, _ in _STATS),
    *(f"{name}_z" for name, _, _ in _STATS),
)

FIELDS = SHARED_FIELDS.extend(
    *(Field(name, "DOUBLE", text, unit) for name, text, unit in _STATS),
    *(
        Field(f"usual_{name}", "DOUBLE", f"Median of {name} over the reference window.", unit)
        for name, _, unit in _STATS
    ),
    *(
        Field(
            f"{name}_z",
            "DOUBLE",
            f"(value - usual) / (interquartile range / 1.349) of "
            f"{name} over the reference window; NULL with under 180 reference days.",
            "sd",
        )
        for name, _, _ in _STATS
    ),
    Field(
        "distance",
        "DOUBLE",
        "How far outside its history the store is: max of "
        "share_falling_7d_z and share_falling_28d_z (NULL when it cannot say).",
        "sd",
    ),
    Field(
        "year_share_losing",
        "DOUBLE",
        "Median over the 365 days to `day` of the day's share of repositories whose count fell.",
        "fraction",
    ),
    Field(
        "loss_share_ratio_7d",
        "DOUBLE",
        "share_falling_7d / year_share_losing: how many times the year's usual share of "
        "repositories is losing stars in the week to `day` (a purge reads 1.5 or more).",
        "ratio",
    ),
    Field(
        "loss_share_ratio_28d",
        "DOUBLE",
        "share_falling_28d / year_share_losing (the removal features read it).",
        "ratio",
    ),
    Field(
        "n_repos",
        "INTEGER",
        "Most repositories with an observed day-to-day change on one "
        "day of the 28 (under 100: no cross-section, the values are NULL).",
    ),
    Field(
        "band",
        "VARCHAR",
        "Band of the 28-day velocity on the origin ('<1', '1-5', "
        "'5-20', '>=20' stars/day) for interval templates; 'all' for yes/no templates.",
    ),
    Field("regime_distance", "DOUBLE", "`market_regime.distance` on the origin.", "sd"),
    Field(
        "shrink",
        "DOUBLE",
        "Guard: factor on the log-odds of repositories losing stars, "
        "towards the base rate (1 = off; yes/no templates).",
    ),
    Field(
        "widen",
        "DOUBLE",
        "Guard: factor on the interval scores about their median (1 = off; interval templates).",
    ),
    Field(
        "resolved_through",
        "DATE",
        "The newest resolution day of a question the state has read (never after `origin`).",
    ),
    Field(
        "n_resolved",
        "INTEGER",
        "Resolved questions the state has read since it started (the radar's tail factor: "
        "those of its window).",
    ),
    Field("updated_on", "DATE", "Origin of the state's last update (updates come weekly)."),
    Field(
        "tail_factor",
        "DOUBLE",
        "The radar's online tail factor: the slope of its answers above the model's knee, "
        "fitted so that the top of the weekly origins resolved by then said what came true "
        "(`models.tail`; > 1: the top understated; yes/no templates with a tail map, else NULL).",
    ),
)

MARKET_REGIME = Table(
    name="market_regime",
    description="The cross-section of the whole store on a forecast origin: how many "
    "repositories are losing stars, against the store's own history (the median "
    "and robust z-score over the 730 days ending 28 days before). Written when "
    "forecasts are issued; the regime guard reads `distance` and `loss_share_ratio_7d`.",
    primary_key=("day",),
    group="forecasts",
    columns=FIELDS.hold(
        "day",
        *_REGIME_STATS,
        "distance",
        "year_share_losing",
        "loss_share_ratio_7d",
        "loss_share_ratio_28d",
        "n_repos",
        described={
            "day": "The origin the state is as of (only days on or before it are read).",
        },
    ),
)


FORECAST_CALIBRATION = Table(
    name="forecast_calibration",
    description="The calibration state the forecasts of one origin used, per template x "
    "horizon (and velocity band for interval templates): the regime guard, the "
    "online conformal levels and the radar's online tail factor, updated from the questions "
    "resolved by that origin. "
    "Each forecast's `calibration` column names its row.",
    primary_key=("origin", "model_version", "template", "horizon_days", "band"),
    group="forecasts",
    columns=FIELDS.hold(
        "origin",
        "model_version",
        "template",
        "horizon_days",
        "band",
        "regime_distance",
        "shrink",
        "widen",
        "levels",
        "resolved_through",
        "n_resolved",
        "updated_on",
        "tail_factor",
        described={
            "origin": "The origin whose forecasts used this state.",
            "model_version": "The model the forecasts came from.",
            "levels": "Online conformal levels issued for the nominal 0.025, 0.1, "
            "0.25, 0.5, 0.75, 0.9, 0.975 (interval templates; NULL for yes/no).",
        },
    ),
)

TABLES = (MARKET_REGIME, FORECAST_CALIBRATION)
