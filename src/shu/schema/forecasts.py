"""Forecast tables: issued forecasts (append-only) and their resolutions."""

from shu.schema.base import Table, col

FORECASTS = Table(
    name="forecasts",
    description="Horizon-bound forecasts. Append-only: never edited after issue.",
    primary_key=("forecast_id",),
    group="forecasts",
    columns=(
        col(
            "forecast_id",
            "VARCHAR",
            "Deterministic id: hash of (repo, template, threshold, "
            "horizon, origin, model_version).",
        ),
        col("repo", "VARCHAR", "Repository the question is about."),
        col("template", "VARCHAR", "Question template (star_accel_reach, star_velocity_up, …)."),
        col("origin", "DATE", "Day t the forecast is issued as of; features see data <= t."),
        col("horizon_days", "INTEGER", "H: the question resolves on origin + H.", "days"),
        col("resolves_on", "DATE", "origin + horizon_days."),
        col("threshold", "DOUBLE", "X or N in the question (unit depends on the template)."),
        col("question", "VARCHAR", "The question in one sentence, with its resolution rule."),
        col("probability", "DOUBLE", "Calibrated probability the answer is yes.", "fraction"),
        col("confidence", "VARCHAR", "Band of max(p, 1-p): low < 0.65 <= medium < 0.80 <= high."),
        col("model_version", "VARCHAR", "Model that issued it."),
        col("features", "VARCHAR", "JSON: the features it saw (name -> value)."),
        col("drivers", "VARCHAR", "JSON list: top drivers (feature, value, sign, contribution)."),
        col(
            "receipts",
            "VARCHAR",
            "JSON list: data rows behind its numbers (table, key, value, as_of).",
        ),
        col("issued_at", "TIMESTAMP", "Wall-clock time of issue (UTC)."),
        col(
            "calibration",
            "VARCHAR",
            "JSON: the calibration state it was issued with: its "
            "`forecast_calibration` row (origin, model_version, template, horizon_days, band), "
            "the guard's distance, shrink or widen and base rate, the online levels; for "
            "star_gain and the path questions, `bound`: the bound against the predictive "
            "distribution their answer was held to (`forecast.calibration.bounds`: P_F, the "
            "model's answer, whether it moved) (NULL for forecasts issued before it was "
            "recorded).",
        ),
        col(
            "base_rate",
            "DOUBLE",
            "Climatology the forecast is read against: share of yes among "
            "the resolved questions of its template, horizon and threshold bucket known in the "
            "year before its model was trained, (yes + 1) / (n + 2); NULL for interval "
            "forecasts and models saved without it.",
            "fraction",
        ),
        col("base_rate_n", "INTEGER", "Resolved questions behind base_rate."),
        col(
            "distribution_id",
            "VARCHAR",
            "The predictive distribution in `forecast_distributions` the forecast was read "
            "from (questions about the 28-day velocity on resolves_on, star_gain at horizons "
            "of at most 28 days, and intervals); NULL for other templates and forecasts "
            "issued before distributions were stored.",
        ),
    ),
)

FORECAST_RESOLUTIONS = Table(
    name="forecast_resolutions",
    description="One resolution per forecast, written once its horizon has passed.",
    primary_key=("forecast_id",),
    group="forecasts",
    columns=(
        col("forecast_id", "VARCHAR", "Forecast resolved."),
        col("outcome", "VARCHAR", "'yes', 'no' or 'void' (data missing: never a hit or a miss)."),
        col("observed_value", "DOUBLE", "The value the rule compared with the threshold."),
        col("detail", "VARCHAR", "How it resolved (e.g. first day reached, or why void)."),
        col("resolved_at", "TIMESTAMP", "When it was resolved (UTC)."),
    ),
)

TABLES = (FORECASTS, FORECAST_RESOLUTIONS)
