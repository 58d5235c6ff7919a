"""Core tables: repositories, daily star counts, ingestion bookkeeping."""

from shu.schema.base import Table, col

REPOS = Table(
    name="repos",
    description="Every repository shu has seen, under its current 'owner/name'.",
    primary_key=("repo",),
    columns=(
        col("repo", "VARCHAR", "Current GitHub 'owner/name'."),
        col("repo_id", "BIGINT", "GitHub's numeric repository id (stable across renames)."),
        col(
            "category",
            "VARCHAR",
            "Configured peer category (platform, inference-runtime, …); NULL when not tracked.",
        ),
        col("is_tracked", "BOOLEAN", "True when the repository is in the tracked list."),
        col("default_branch", "VARCHAR", "Default branch name."),
        col("description", "VARCHAR", "Repository description as published (untrusted text)."),
        col("language", "VARCHAR", "Primary language reported by the source."),
        col("created_at", "TIMESTAMP", "When the repository was created (UTC)."),
        col("archived", "BOOLEAN", "Whether the repository is archived."),
        col("renamed_from", "VARCHAR", "Previous name when a rename/transfer was followed."),
        col("updated_at", "TIMESTAMP", "When shu last wrote this row (UTC)."),
        col(
            "described_on",
            "DATE",
            "Day of the ranking file the description and language were taken from; NULL when "
            "they came from the GitHub API, whose record a ranking file never overwrites.",
        ),
    ),
)

REPO_ALIASES = Table(
    name="repo_aliases",
    description="Old repository names folded into current ones (configured or seen as a 301).",
    primary_key=("alias",),
    columns=(
        col("alias", "VARCHAR", "Old 'owner/name'."),
        col("repo", "VARCHAR", "Current 'owner/name' it maps to."),
        col("origin", "VARCHAR", "'config' or 'github-301'."),
        col("recorded_at", "TIMESTAMP", "When the alias was recorded (UTC)."),
    ),
)

STARS_DAILY = Table(
    name="stars_daily",
    description="One observed count per repository and day (snapshot ~04:00 UTC for rankings). "
    "Absence means not observed, never zero.",
    primary_key=("repo", "day"),
    # Not indexed: building and persisting the ART index of its 7.2M-row ranking history took
    # longer than the rest of the import; every writer upserts on (repo, day).
    key_indexed=False,
    columns=(
        col("repo", "VARCHAR", "Current 'owner/name' (aliases folded)."),
        col("day", "DATE", "Day of the observation (UTC)."),
        col("stars", "BIGINT", "Stargazer count on that day (net of unstars).", "stars"),
        col("forks", "BIGINT", "Fork count on that day.", "forks"),
        col("open_issues", "BIGINT", "Open issues + PRs on that day.", "issues"),
        col("watchers", "BIGINT", "Subscribers/watchers on that day (GitHub only).", "users"),
        col(
            "stars_added",
            "BIGINT",
            "Stars given that day that are still held (stargazer history only).",
            "stars",
        ),
        col(
            "source",
            "VARCHAR",
            "Where the row came from: 'ranking', 'github', "
            "'github-star-history', 'github-stargazers', 'gharchive' (derived from ranking/API "
            "counts and GH Archive stars given, which miss unstars and part of the stars: "
            "docs/gharchive-at-scale.md).",
        ),
    ),
)

INGEST_LOG = Table(
    name="ingest_log",
    description="One row per load: what was read and what changed.",
    primary_key=("load_id",),
    columns=(
        col("load_id", "VARCHAR", "Unique id of the load (uuid4)."),
        col("source", "VARCHAR", "Source kind: ranking, github, git, docs, probe, …"),
        col("target", "VARCHAR", "What was loaded (path, repo or endpoint)."),
        col("rows_read", "BIGINT", "Rows read from the source.", "rows"),
        col("rows_inserted", "BIGINT", "Rows newly inserted.", "rows"),
        col("rows_updated", "BIGINT", "Existing rows whose values changed.", "rows"),
        col("rows_rejected", "BIGINT", "Rows refused (reasons in `message`).", "rows"),
        col("started_at", "TIMESTAMP", "Start (UTC)."),
        col("finished_at", "TIMESTAMP", "End (UTC)."),
        col("status", "VARCHAR", "'ok', 'failed' or 'partial'."),
        col("message", "VARCHAR", "Summary or error (never contains secrets)."),
    ),
)

HTTP_CACHE = Table(
    name="http_cache",
    description="Validators of GitHub responses so reruns send conditional requests (304 = free).",
    primary_key=("url",),
    columns=(
        col("url", "VARCHAR", "Request URL without credentials."),
        col("etag", "VARCHAR", "ETag of the last 200 response."),
        col("last_modified", "VARCHAR", "Last-Modified of the last 200 response."),
        col("fetched_at", "TIMESTAMP", "When it was last fetched (UTC)."),
    ),
)

TABLES = (REPOS, REPO_ALIASES, STARS_DAILY, INGEST_LOG, HTTP_CACHE)
