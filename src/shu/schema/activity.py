"""Activity tables: commits, releases, and the document corpus with its passages."""

from shu.schema.base import Table, col

COMMITS = Table(
    name="commits",
    description="Commits reachable from the default branch (GitHub API or a local clone).",
    primary_key=("repo", "sha"),
    group="activity",
    columns=(
        col("repo", "VARCHAR", "Current 'owner/name'."),
        col("sha", "VARCHAR", "Commit SHA-1."),
        col("authored_at", "TIMESTAMP", "Author time (UTC)."),
        col("committed_at", "TIMESTAMP", "Committer time (UTC): when it landed."),
        col(
            "author_id",
            "VARCHAR",
            "First 12 hex of SHA-1 of the lower-cased author e-mail; never the e-mail itself.",
        ),
        col("subject", "VARCHAR", "First line of the message (untrusted text)."),
        col("parents", "INTEGER", "Number of parents (2+ = merge)."),
        col(
            "is_mainline",
            "BOOLEAN",
            "On the first-parent chain of the default branch (NULL when unknown).",
        ),
        col("author_is_bot", "BOOLEAN", "Author looks like an automation account."),
        col("files_changed", "INTEGER", "Paths changed (NULL when not cheap to get).", "files"),
        col("insertions", "INTEGER", "Lines added.", "lines"),
        col("deletions", "INTEGER", "Lines deleted.", "lines"),
        col("touches_rocm", "BOOLEAN", "Subject or paths match the rocm-adoption topic pattern."),
        col("topics", "VARCHAR[]", "Every configured topic whose pattern matches."),
        col("source", "VARCHAR", "'github' or 'git'."),
    ),
)

RELEASES = Table(
    name="releases",
    description="Published releases (drafts excluded) and version tags.",
    primary_key=("repo", "tag"),
    group="activity",
    columns=(
        col("repo", "VARCHAR", "Current 'owner/name'."),
        col("tag", "VARCHAR", "Tag name, e.g. v2.3.0."),
        col("name", "VARCHAR", "Release title (untrusted text)."),
        col("published_at", "TIMESTAMP", "When it was published (UTC); tag time for git tags."),
        col("is_prerelease", "BOOLEAN", "Pre-release (rc, beta, …)."),
        col("body", "VARCHAR", "Release notes, markdown (untrusted text)."),
        col("url", "VARCHAR", "Release page URL, when known."),
        col("source", "VARCHAR", "'github' (releases API) or 'git' (tag from a clone)."),
    ),
)

DOCUMENTS = Table(
    name="documents",
    description="The document corpus that briefings cite (one file = one document).",
    primary_key=("doc_id",),
    group="activity",
    columns=(
        col("doc_id", "VARCHAR", "Stable id: hash of the document's location."),
        col("location", "VARCHAR", "Path or URL it was read from."),
        col("title", "VARCHAR", "Front-matter title or first heading (untrusted text)."),
        col("published_on", "DATE", "Date the document states, when it states one."),
        col("content_hash", "VARCHAR", "SHA-256 of the text; unchanged files are skipped."),
        col("format", "VARCHAR", "'markdown', 'html' or 'text'."),
        col("text", "VARCHAR", "Plain text (untrusted)."),
        col("ingested_at", "TIMESTAMP", "When this version was stored (UTC)."),
    ),
)

PASSAGES = Table(
    name="passages",
    description="Documents split into passages for retrieval; receipts cite these.",
    primary_key=("doc_id", "passage_no"),
    group="activity",
    columns=(
        col("doc_id", "VARCHAR", "Document id."),
        col("passage_no", "INTEGER", "0-based position within the document."),
        col("text", "VARCHAR", "Passage text (untrusted)."),
    ),
)

TABLES = (COMMITS, RELEASES, DOCUMENTS, PASSAGES)
