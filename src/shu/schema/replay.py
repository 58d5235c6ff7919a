"""Replay runs: which past days `shu replay` re-ran, with which models, and what it wrote."""

from shu.schema.base import Table, col

REPLAY_RUNS = Table(
    name="replay_runs",
    description="One row per `shu replay` run. Forecasts it issued carry a model_version "
    "starting 'replay-' (their resolutions join on forecast_id).",
    primary_key=("run_id",),
    group="forecasts",
    columns=(
        col("run_id", "VARCHAR", "Random id of the run."),
        col("day_from", "DATE", "First replayed day."),
        col("day_to", "DATE", "Last replayed day."),
        col(
            "refit_days",
            "DATE[]",
            "Days the model was refitted, each on outcomes known the day before.",
        ),
        col("model_versions", "VARCHAR[]", "Model versions issued under (prefix 'replay-')."),
        col("forecasts_issued", "BIGINT", "Forecast rows the run added."),
        col("resolutions_written", "BIGINT", "Resolution rows the run added (any forecast)."),
        col("wall_s", "DOUBLE", "Wall time of the run.", "s"),
        col("started_at", "TIMESTAMP", "When it started (UTC)."),
        col("finished_at", "TIMESTAMP", "When it finished (UTC)."),
    ),
)

TABLES = (REPLAY_RUNS,)
