"""Briefing tables: one row per briefing written, and one per receipt it cites."""

from shu.schema.base import Field, Table
from shu.schema.fields import SHARED_FIELDS

FIELDS = SHARED_FIELDS.extend(
    Field("briefing_id", "VARCHAR", "'YYYY-MM-DD' (or 'demo-YYYY-MM-DD')."),
    Field("path", "VARCHAR", "Markdown file written."),
    Field("n_forecasts", "INTEGER", "Forecast cards in it.", "forecasts"),
    Field("is_synthetic", "BOOLEAN", "True for `shu demo` briefings."),
    Field("generated_at", "TIMESTAMP", "When it was written (UTC)."),
    Field("data_as_of", "DATE", "Latest day of star data the briefing used."),
    Field(
        "stale_repos",
        "VARCHAR[]",
        "Tracked repositories whose latest observation is older "
        "than the day before the briefing (marked stale in it).",
    ),
    Field("receipt_no", "INTEGER", "Number shown as [Rn] in the briefing."),
    Field("kind", "VARCHAR", "'passage' (a document passage) or 'row' (a table row)."),
    Field("table_name", "VARCHAR", "Table the row is in ('passages' for documents)."),
    Field("row_key", "VARCHAR", "JSON object: the row's primary-key values."),
    Field(
        "column_name",
        "VARCHAR",
        "Column holding the value; 'features.NAME' reads a key of a JSON column.",
    ),
    Field("value", "VARCHAR", "The value as cited (text)."),
    Field("label", "VARCHAR", "What it backs, e.g. 'pytorch/pytorch velocity_28d'."),
)

BRIEFINGS = Table(
    name="briefings",
    description="Briefings written to reports/.",
    primary_key=("briefing_id",),
    group="briefing",
    columns=FIELDS.hold(
        "briefing_id",
        "day",
        "title",
        "path",
        "content_hash",
        "n_forecasts",
        "is_synthetic",
        "generated_at",
        "data_as_of",
        "stale_repos",
        described={
            "day": "Day the briefing is for.",
            "title": "Headline.",
            "content_hash": "SHA-256 of the markdown.",
        },
    ),
)

BRIEFING_RECEIPTS = Table(
    name="briefing_receipts",
    description="Every receipt a briefing cites: a stored passage or a stored row and value. "
    "Each resolves to the store (see `shu.receipts.resolve`).",
    primary_key=("briefing_id", "receipt_no"),
    group="briefing",
    columns=FIELDS.hold(
        "briefing_id",
        "receipt_no",
        "kind",
        "table_name",
        "row_key",
        "column_name",
        "value",
        "as_of",
        "label",
        described={
            "briefing_id": "Briefing that cites it.",
            "as_of": "Day the value is as of (documents: their stated date).",
        },
    ),
)

TABLES = (BRIEFINGS, BRIEFING_RECEIPTS)
