"""Forecast tables: issued forecasts (append-only) and their resolutions."""

from shu.schema.base import Field, Table
from shu.schema.fields import SHARED_FIELDS

FIELDS = SHARED_FIELDS.extend(
    Field("resolves_on", "DATE", "origin + horizon_days."),
    Field("threshold", "DOUBLE", "X or N in the question (unit depends on the template)."),
    Field("question", "VARCHAR", "The question in one sentence, with its resolution rule."),
    Field("probability", "DOUBLE", "Calibrated probability the answer is yes.", "fraction"),
    Field("confidence", "VARCHAR", "Band of max(p, 1-p): low < 0.65 <= medium < 0.80 <= high."),
    Field("features", "VARCHAR", "JSON: the features it saw (name -> value)."),
    Field("drivers", "VARCHAR", "JSON list: top drivers (feature, value, sign, contribution)."),
    Field(
        "receipts",
        "VARCHAR",
        "JSON list: data rows behind its numbers (table, key, value, as_of).",
    ),
    Field(
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
    Field(
        "base_rate",
        "DOUBLE",
        "Climatology the forecast is read against: share of yes among "
        "the resolved questions of its template, horizon and threshold bucket known in the "
        "year before its model was trained, (yes + 1) / (n + 2); NULL for interval "
        "forecasts and models saved without it.",
        "fraction",
    ),
    Field("base_rate_n", "INTEGER", "Resolved questions behind base_rate."),
    Field("outcome", "VARCHAR", "'yes', 'no' or 'void' (data missing: never a hit or a miss)."),
)

FORECASTS = Table(
    name="forecasts",
    description="Horizon-bound forecasts. Append-only: never edited after issue.",
    primary_key=("forecast_id",),
    group="forecasts",
    columns=FIELDS.hold(
        "forecast_id",
        "repo",
        "template",
        "origin",
        "horizon_days",
        "resolves_on",
        "threshold",
        "question",
        "probability",
        "confidence",
        "model_version",
        "features",
        "drivers",
        "receipts",
        "issued_at",
        "calibration",
        "base_rate",
        "base_rate_n",
        "distribution_id",
        described={
            "forecast_id": "Deterministic id: hash of (repo, template, threshold, "
            "horizon, origin, model_version).",
            "origin": "Day t the forecast is issued as of; features see data <= t.",
            "horizon_days": "H: the question resolves on origin + H.",
            "distribution_id": (
                "The predictive distribution in `forecast_distributions` the forecast was read "
                "from (questions about the 28-day velocity on resolves_on, star_gain at horizons "
                "of at most 28 days, and intervals); NULL for other templates and forecasts "
                "issued before distributions were stored."
            ),
        },
    ),
)

FORECAST_RESOLUTIONS = Table(
    name="forecast_resolutions",
    description="One resolution per forecast, written once its horizon has passed.",
    primary_key=("forecast_id",),
    group="forecasts",
    columns=FIELDS.hold(
        "forecast_id",
        "outcome",
        "observed_value",
        "detail",
        "resolved_at",
        described={
            "forecast_id": "Forecast resolved.",
            "observed_value": "The value the rule compared with the threshold.",
            "detail": "How it resolved (e.g. first day reached, or why void).",
        },
    ),
)

TABLES = (FORECASTS, FORECAST_RESOLUTIONS)
