"""Briefing tables: one row per briefing written, and one per receipt it cites."""

from shu.schema.base import Table, col

BRIEFINGS = Table(
    name="briefings",
    description="Briefings written to reports/.",
    primary_key=("briefing_id",),
    group="briefing",
    columns=(
        col("briefing_id", "VARCHAR", "'YYYY-MM-DD' (or 'demo-YYYY-MM-DD')."),
        col("day", "DATE", "Day the briefing is for."),
        col("title", "VARCHAR", "Headline."),
        col("path", "VARCHAR", "Markdown file written."),
        col("content_hash", "VARCHAR", "SHA-256 of the markdown."),
        col("n_forecasts", "INTEGER", "Forecast cards in it.", "forecasts"),
        col("is_synthetic", "BOOLEAN", "True for `shu demo` briefings."),
        col("generated_at", "TIMESTAMP", "When it was written (UTC)."),
        col("data_as_of", "DATE", "Latest day of star data the briefing used."),
        col(
            "stale_repos",
            "VARCHAR[]",
            "Tracked repositories whose latest observation is older "
            "than the day before the briefing (marked stale in it).",
        ),
    ),
)

BRIEFING_RECEIPTS = Table(
    name="briefing_receipts",
    description="Every receipt a briefing cites: a stored passage or a stored row and value. "
    "Each resolves to the store (see `shu.receipts.resolve`).",
    primary_key=("briefing_id", "receipt_no"),
    group="briefing",
    columns=(
        col("briefing_id", "VARCHAR", "Briefing that cites it."),
        col("receipt_no", "INTEGER", "Number shown as [Rn] in the briefing."),
        col("kind", "VARCHAR", "'passage' (a document passage) or 'row' (a table row)."),
        col("table_name", "VARCHAR", "Table the row is in ('passages' for documents)."),
        col("row_key", "VARCHAR", "JSON object: the row's primary-key values."),
        col(
            "column_name",
            "VARCHAR",
            "Column holding the value; 'features.NAME' reads a key of a JSON column.",
        ),
        col("value", "VARCHAR", "The value as cited (text)."),
        col("as_of", "DATE", "Day the value is as of (documents: their stated date)."),
        col("label", "VARCHAR", "What it backs, e.g. 'pytorch/pytorch velocity_28d'."),
    ),
)

TABLES = (BRIEFINGS, BRIEFING_RECEIPTS)
