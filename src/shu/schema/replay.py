"""Replay runs: which past days `shu replay` re-ran, with which models, and what it wrote."""

from shu.schema.base import Field, Table
from shu.schema.fields import SHARED_FIELDS

FIELDS = SHARED_FIELDS.extend(
    Field("day_from", "DATE", "First replayed day."),
    Field("day_to", "DATE", "Last replayed day."),
    Field(
        "refit_days",
        "DATE[]",
        "Days the model was refitted, each on outcomes known the day before.",
    ),
    Field("model_versions", "VARCHAR[]", "Model versions issued under (prefix 'replay-')."),
    Field("forecasts_issued", "BIGINT", "Forecast rows the run added."),
    Field("resolutions_written", "BIGINT", "Resolution rows the run added (any forecast)."),
)

REPLAY_RUNS = Table(
    name="replay_runs",
    description="One row per `shu replay` run. Forecasts it issued carry a model_version "
    "starting 'replay-' (their resolutions join on forecast_id).",
    primary_key=("run_id",),
    group="forecasts",
    columns=FIELDS.hold(
        "run_id",
        "day_from",
        "day_to",
        "refit_days",
        "model_versions",
        "forecasts_issued",
        "resolutions_written",
        "wall_s",
        "started_at",
        "finished_at",
        described={"run_id": "Random id of the run."},
    ),
)

TABLES = (REPLAY_RUNS,)
