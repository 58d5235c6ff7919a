"""Interval forecast tables: the one predictive distribution of the 28-day star velocity per
(repository, origin, horizon) that the velocity questions and intervals are read from, the
predictive quantiles of `star_velocity_interval` forecasts and whether each central interval
held once resolved. Keyed by `forecasts.forecast_id` (distributions by their own id, which
`forecasts.distribution_id` names)."""

from shu.schema.base import Field, Table
from shu.schema.fields import SHARED_FIELDS

FIELDS = SHARED_FIELDS.extend(
    Field("median", "DOUBLE", "Predictive median (conformalised)."),
    Field("lower_50", "DOUBLE", "Lower end of the central 50% interval (quantile 0.25)."),
    Field("upper_50", "DOUBLE", "Upper end of the central 50% interval (quantile 0.75)."),
    Field("lower_80", "DOUBLE", "Lower end of the central 80% interval (quantile 0.1)."),
    Field("upper_80", "DOUBLE", "Upper end of the central 80% interval (quantile 0.9)."),
    Field("lower_95", "DOUBLE", "Lower end of the central 95% interval (quantile 0.025)."),
    Field("upper_95", "DOUBLE", "Upper end of the central 95% interval (quantile 0.975)."),
    Field("held_50", "BOOLEAN", "Observed value inside the central 50% interval."),
    Field("held_80", "BOOLEAN", "Observed value inside the central 80% interval."),
    Field("held_95", "BOOLEAN", "Observed value inside the central 95% interval."),
    Field(
        "crps",
        "DOUBLE",
        "2 x mean pinball loss over the quantiles 0.025 .. 0.975 (unit of the forecast).",
    ),
    Field(
        "quantiles",
        "DOUBLE[]",
        "The distribution's quantile at each of `levels` (velocity_28d on origin + H).",
        "stars/day",
    ),
    Field(
        "anchor_templates",
        "VARCHAR[]",
        "The yes/no questions it passes through: the velocity questions, and star_gain "
        "at horizons of at most 28 days.",
    ),
    Field(
        "anchor_thresholds",
        "DOUBLE[]",
        "Their thresholds on the velocity (the same order): a velocity question's own; "
        "star_gain's (N + D - 1) / 28, the velocity its question 'gain >= N' is on the "
        "1/28 lattice (D the stars gained over the 28 - H days up to the origin).",
        "stars/day",
    ),
    Field(
        "anchor_probability",
        "DOUBLE[]",
        "Each question's calibrated (and guarded) answer before the answers were made "
        "monotone in the threshold.",
        "fraction",
    ),
    Field(
        "anchor_cdf",
        "DOUBLE[]",
        "P(velocity <= threshold) of the distribution at each threshold; the question's "
        "issued probability is 1 minus it.",
        "fraction",
    ),
)

FORECAST_INTERVALS = Table(
    name="forecast_intervals",
    description="Predictive distribution of an interval forecast (one row per forecast in "
    "`forecasts` whose template is star_velocity_interval). Append-only.",
    primary_key=("forecast_id",),
    group="forecasts",
    columns=FIELDS.hold(
        "forecast_id",
        "quantity",
        "unit",
        "median",
        "lower_50",
        "upper_50",
        "lower_80",
        "upper_80",
        "lower_95",
        "upper_95",
        described={
            "quantity": "What is forecast, e.g. 'velocity_28d on resolves_on'.",
            "unit": "Unit of every value in this row (e.g. stars/day).",
        },
    ),
)

INTERVAL_RESOLUTIONS = Table(
    name="interval_resolutions",
    description="The observed value of a resolved interval forecast and whether each central "
    "interval held (void forecasts have no row). Written once, with the forecast's "
    "row in `forecast_resolutions`.",
    primary_key=("forecast_id",),
    group="forecasts",
    columns=FIELDS.hold(
        "forecast_id",
        "observed_value",
        "held_50",
        "held_80",
        "held_95",
        "crps",
        "resolved_at",
        described={
            "observed_value": (
                "The value observed on resolves_on (unit of the forecast's `forecast_intervals` "
                "row)."
            )
        },
    ),
)

FORECAST_DISTRIBUTIONS = Table(
    name="forecast_distributions",
    description="The predictive distribution of the 28-day star velocity on origin + horizon "
    "of one repository, which every forecast naming it in `forecasts.distribution_id` was read "
    "from: the interval model's distribution bent through the yes/no answers about the same "
    "velocity (docs/forecast/method.md). P(velocity <= x) runs linearly in x through the "
    "points (quantiles[i], levels[i]) and (anchor_thresholds[j], anchor_cdf[j]). Append-only.",
    primary_key=("distribution_id",),
    group="forecasts",
    columns=FIELDS.hold(
        "distribution_id",
        "repo",
        "origin",
        "horizon_days",
        "model_version",
        "velocity_28d",
        "levels",
        "quantiles",
        "anchor_templates",
        "anchor_thresholds",
        "anchor_probability",
        "anchor_cdf",
        "issued_at",
        described={
            "distribution_id": "16 hex of SHA-256 over repo, horizon, origin, model.",
            "origin": "Day t the distribution is issued as of.",
            "horizon_days": "H: the velocity on origin + H.",
            "velocity_28d": "The 28-day star velocity on the origin.",
            "levels": "Probability levels of `quantiles`.",
        },
    ),
)

TABLES = (FORECAST_INTERVALS, FORECAST_DISTRIBUTIONS, INTERVAL_RESOLUTIONS)
