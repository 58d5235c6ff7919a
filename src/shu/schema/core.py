"""Core tables: repositories, daily star counts, ingestion bookkeeping."""

from shu.schema.base import Field, Table
from shu.schema.fields import SHARED_FIELDS

FIELDS = SHARED_FIELDS.extend(
    Field("repo_id", "BIGINT", "GitHub's numeric repository id (stable across renames)."),
    Field("is_tracked", "BOOLEAN", "True when the repository is in the tracked list."),
    Field("default_branch", "VARCHAR", "Default branch name."),
    Field("description", "VARCHAR", "Repository description as published (untrusted text)."),
    Field("language", "VARCHAR", "Primary language reported by the source."),
    Field("archived", "BOOLEAN", "Whether the repository is archived."),
    Field("renamed_from", "VARCHAR", "Previous name when a rename/transfer was followed."),
    Field("updated_at", "TIMESTAMP", "When shu last wrote this row (UTC)."),
    Field(
        "described_on",
        "DATE",
        "Day of the ranking file the description and language were taken from; NULL when "
        "they came from the GitHub API, whose record a ranking file never overwrites.",
    ),
    Field("alias", "VARCHAR", "Old 'owner/name'."),
    Field("recorded_at", "TIMESTAMP", "When the alias was recorded (UTC)."),
    Field("forks", "BIGINT", "Fork count on that day.", "forks"),
    Field("open_issues", "BIGINT", "Open issues + PRs on that day.", "issues"),
    Field("watchers", "BIGINT", "Subscribers/watchers on that day (GitHub only).", "users"),
    Field("load_id", "VARCHAR", "Unique id of the load (uuid4)."),
    Field("rows_read", "BIGINT", "Rows read from the source.", "rows"),
    Field("rows_inserted", "BIGINT", "Rows newly inserted.", "rows"),
    Field("rows_updated", "BIGINT", "Existing rows whose values changed.", "rows"),
    Field("rows_rejected", "BIGINT", "Rows refused (reasons in `message`).", "rows"),
    Field("status", "VARCHAR", "'ok', 'failed' or 'partial'."),
    Field("message", "VARCHAR", "Summary or error (never contains secrets)."),
    Field("etag", "VARCHAR", "ETag of the last 200 response."),
    Field("last_modified", "VARCHAR", "Last-Modified of the last 200 response."),
    Field("fetched_at", "TIMESTAMP", "When it was last fetched (UTC)."),
)

REPOS = Table(
    name="repos",
    description="Every repository shu has seen, under its current 'owner/name'.",
    primary_key=("repo",),
    columns=FIELDS.hold(
        "repo",
        "repo_id",
        "category",
        "is_tracked",
        "default_branch",
        "description",
        "language",
        "created_at",
        "archived",
        "renamed_from",
        "updated_at",
        "described_on",
        described={
            "category": (
                "Configured peer category (its `field` one unless set: training frameworks, "
                "…); NULL when not tracked."
            ),
            "created_at": "When the repository was created (UTC).",
        },
    ),
)

REPO_ALIASES = Table(
    name="repo_aliases",
    description="Old repository names folded into current ones (configured or seen as a 301).",
    primary_key=("alias",),
    columns=FIELDS.hold(
        "alias",
        "repo",
        "source",
        "recorded_at",
        described={
            "repo": "Current 'owner/name' it maps to.",
            "source": "How the alias became known: 'config' or 'github-301'.",
        },
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
    columns=FIELDS.hold(
        "repo",
        "day",
        "stars",
        "forks",
        "open_issues",
        "watchers",
        "stars_added",
        "source",
        described={
            "day": "Day of the observation (UTC).",
            "stars": "Stargazer count on that day (net of unstars).",
            "stars_added": "Stars given that day that are still held (stargazer history only).",
            "source": "Where the row came from: 'ranking', 'github', "
            "'github-star-history', 'github-stargazers', 'gharchive' (derived from ranking/API "
            "counts and GH Archive stars given, which miss unstars and part of the stars: "
            "docs/gharchive-at-scale.md).",
        },
    ),
)

INGEST_LOG = Table(
    name="ingest_log",
    description="One row per load: what was read and what changed.",
    primary_key=("load_id",),
    columns=FIELDS.hold(
        "load_id",
        "source",
        "target",
        "rows_read",
        "rows_inserted",
        "rows_updated",
        "rows_rejected",
        "started_at",
        "finished_at",
        "status",
        "message",
        described={
            "source": "Source kind: ranking, github, git, docs, probe, …",
            "target": "What was loaded (path, repo or endpoint).",
        },
    ),
)

HTTP_CACHE = Table(
    name="http_cache",
    description="Validators of GitHub responses so reruns send conditional requests (304 = free).",
    primary_key=("url",),
    internal=True,
    columns=FIELDS.hold(
        "url",
        "etag",
        "last_modified",
        "fetched_at",
        described={"url": "Request URL without credentials."},
    ),
)

TABLES = (REPOS, REPO_ALIASES, STARS_DAILY, INGEST_LOG, HTTP_CACHE)
