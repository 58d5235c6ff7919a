"""Interval forecast tables: the predictive quantiles of `star_velocity_interval` forecasts and
whether each central interval held once resolved. Keyed by `forecasts.forecast_id`."""

from shu.schema.base import Table, col

FORECAST_INTERVALS = Table(
    name="forecast_intervals",
    description="Predictive distribution of an interval forecast (one row per forecast in "
    "`forecasts` whose template is star_velocity_interval). Append-only.",
    primary_key=("forecast_id",),
    group="forecasts",
    columns=(
        col("forecast_id", "VARCHAR", "The forecast in `forecasts`."),
        col("quantity", "VARCHAR", "What is forecast, e.g. 'velocity_28d on resolves_on'."),
        col("unit", "VARCHAR", "Unit of every value in this row (e.g. stars/day)."),
        col("median", "DOUBLE", "Predictive median (conformalised)."),
        col("lower_50", "DOUBLE", "Lower end of the central 50% interval (quantile 0.25)."),
        col("upper_50", "DOUBLE", "Upper end of the central 50% interval (quantile 0.75)."),
        col("lower_80", "DOUBLE", "Lower end of the central 80% interval (quantile 0.1)."),
        col("upper_80", "DOUBLE", "Upper end of the central 80% interval (quantile 0.9)."),
        col("lower_95", "DOUBLE", "Lower end of the central 95% interval (quantile 0.025)."),
        col("upper_95", "DOUBLE", "Upper end of the central 95% interval (quantile 0.975)."),
    ),
)

INTERVAL_RESOLUTIONS = Table(
    name="interval_resolutions",
    description="The observed value of a resolved interval forecast and whether each central "
    "interval held (void forecasts have no row). Written once, with the forecast's "
    "row in `forecast_resolutions`.",
    primary_key=("forecast_id",),
    group="forecasts",
    columns=(
        col("forecast_id", "VARCHAR", "The forecast in `forecasts`."),
        col(
            "observed_value",
            "DOUBLE",
            "The value observed on resolves_on (unit of the forecast's `forecast_intervals` row).",
        ),
        col("held_50", "BOOLEAN", "Observed value inside the central 50% interval."),
        col("held_80", "BOOLEAN", "Observed value inside the central 80% interval."),
        col("held_95", "BOOLEAN", "Observed value inside the central 95% interval."),
        col(
            "crps",
            "DOUBLE",
            "2 x mean pinball loss over the quantiles 0.025 .. 0.975 (unit of the forecast).",
        ),
        col("resolved_at", "TIMESTAMP", "When it was resolved (UTC)."),
    ),
)

TABLES = (FORECAST_INTERVALS, INTERVAL_RESOLUTIONS)
