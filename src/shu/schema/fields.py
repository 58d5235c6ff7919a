"""The field registry's shared part (PUDL's FIELD_METADATA is the model): every column name
that tables of several schema modules hold, declared once with its type, unit and meaning, and
the declared exceptions to "one name, one meaning".

A module's own fields sit in its `FIELDS` (`SHARED_FIELDS.extend(...)`); a table names the fields
it holds (`FIELDS.hold(...)`), in its own words only where `described=` says so. Add a field here
when a second module's table holds it; `shu.schema.ALL_FIELDS` is the union, and a test fails
when a name is declared with two types or units, or a column has no field.
"""

from shu.schema.base import Field, FieldSet

# Column names that keep two meanings (a module declares its own field of that name), and why.
HOMONYMS: dict[str, str] = {
    "category": "`repos`, `category_signals` and `peer_signals` hold a repository's configured "
    "peer category; `probe_results` holds a kernel's category (memory-bound fusion, …) under the "
    "key the probe's JSON gives it (`shu.probe` runs apart and its JSON is a published format). "
    "Renaming it is a migration of the probe tables and a key mapping in `probe_ingest`.",
    "value": "`briefing_receipts.value` is the value as cited (text, any unit); `claims.value` "
    "the number a document claims (DOUBLE, in `claims.unit`). Both are the tables' subject; "
    "the evidence and briefing layers read them by these names.",
}

# Columns that hold a field under a meaning of their own (same type and unit) that the naming
# convention (docs/design.md, "Names") would name otherwise, and why they keep their name.
MEANING_EXCEPTIONS: dict[tuple[str, str], str] = {
    ("market_regime", "day"): "the forecast origin the regime is computed for (an `origin`): "
    "the table is one row per day, read like the daily signal tables; renaming its public key "
    "is a migration left for later.",
    ("briefings", "day"): "the day the briefing is about (its `as_of`): the briefing layer "
    "names its own fields.",
    ("briefings", "data_as_of"): "the last day of star data the briefing used (a "
    "`data_through`): the briefing layer names its own fields.",
    ("gharchive_trending", "as_of"): "the last day with GH Archive data (a `data_through`): "
    "a view's public column, renamed with the view when its readers move.",
}

SHARED_FIELDS = FieldSet(
    (
        Field("repo", "VARCHAR", "Repository 'owner/name' (its current name: aliases folded)."),
        Field(
            "category",
            "VARCHAR",
            "Configured peer category (its `field` one unless set: training frameworks, …).",
        ),
        Field("created_at", "TIMESTAMP", "When it was created (UTC)."),
        Field("source", "VARCHAR", "Where the row came from."),
        Field("day", "DATE", "Day the row's values are as of (UTC)."),
        Field("stars", "BIGINT", "Stargazer count.", "stars"),
        Field("stars_added", "BIGINT", "Stars given on the day.", "stars"),
        Field("target", "VARCHAR", "What the run or load wrote to."),
        Field("started_at", "TIMESTAMP", "When it started (UTC)."),
        Field("finished_at", "TIMESTAMP", "When it finished (UTC)."),
        Field("url", "VARCHAR", "URL."),
        Field("tag", "VARCHAR", "Release tag name, e.g. v2.3.0."),
        Field("published_at", "TIMESTAMP", "When the release was published (UTC)."),
        Field("is_prerelease", "BOOLEAN", "Pre-release (rc, beta, …)."),
        Field("doc_id", "VARCHAR", "Document id (`documents`)."),
        Field("title", "VARCHAR", "Title (untrusted text)."),
        Field("content_hash", "VARCHAR", "SHA-256 of the content read."),
        Field("ingested_at", "TIMESTAMP", "When it was stored (UTC)."),
        Field("passage_no", "INTEGER", "0-based position of the passage within the document."),
        Field(
            "velocity_28d",
            "DOUBLE",
            "28-day star velocity: (stars(t) - stars(t-28)) / 28.",
            "stars/day",
        ),
        Field(
            "acceleration_28d",
            "DOUBLE",
            "28-day star acceleration: velocity_28d(t) - velocity_28d(t-28).",
            "stars/day",
        ),
        Field("run_id", "VARCHAR", "Id of the run the row belongs to."),
        Field("repos", "INTEGER", "Repositories counted.", "repos"),
        Field("forecast_id", "VARCHAR", "The forecast in `forecasts`."),
        Field("template", "VARCHAR", "Question template (star_accel_reach, star_velocity_up, …)."),
        Field(
            "origin",
            "DATE",
            "Day t a forecast is issued as of (its issue date); features see data <= t.",
        ),
        Field("horizon_days", "INTEGER", "Horizon H: the forecast is about origin + H.", "days"),
        Field("model_version", "VARCHAR", "Model that issued the forecast."),
        Field("issued_at", "TIMESTAMP", "Wall-clock time of issue (UTC)."),
        Field(
            "distribution_id", "VARCHAR", "The predictive distribution in `forecast_distributions`."
        ),
        Field("observed_value", "DOUBLE", "The value observed when the forecast resolved."),
        Field("detail", "VARCHAR", "What happened, in detail."),
        Field("resolved_at", "TIMESTAMP", "When it was resolved (UTC)."),
        Field("quantity", "VARCHAR", "What the values measure."),
        Field("unit", "VARCHAR", "Unit of the row's values."),
        Field("levels", "DOUBLE[]", "Probability levels.", "fraction"),
        Field("backend", "VARCHAR", "Compute backend: 'cuda', 'rocm', 'cpu' or 'mps'."),
        Field("wall_s", "DOUBLE", "Wall time of the run.", "s"),
        Field("dtype", "VARCHAR", "Data type of the kernel inputs."),
        Field("tolerance", "DOUBLE", "Largest relative error accepted.", "ratio"),
        Field("as_of", "DATE", "Day the value is as of."),
    ),
    homonyms=HOMONYMS,
)
