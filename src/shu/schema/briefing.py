"""Briefing table: one row per briefing written."""

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
    ),
)

TABLES = (BRIEFINGS,)
