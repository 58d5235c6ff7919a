"""Project tables: what a repository's project publishes (commits, releases) and the document
corpus with its passages."""

from shu.schema.base import Field, Table
from shu.schema.fields import SHARED_FIELDS

FIELDS = SHARED_FIELDS.extend(
    Field("sha", "VARCHAR", "Commit SHA-1."),
    Field("authored_at", "TIMESTAMP", "Author time (UTC)."),
    Field("committed_at", "TIMESTAMP", "Committer time (UTC): when it landed."),
    Field(
        "author_id",
        "VARCHAR",
        "First 12 hex of SHA-1 of the lower-cased author e-mail; never the e-mail itself.",
    ),
    Field("subject", "VARCHAR", "First line of the message (untrusted text)."),
    Field("parents", "INTEGER", "Number of parents (2+ = merge)."),
    Field(
        "is_mainline",
        "BOOLEAN",
        "On the first-parent chain of the default branch (NULL when unknown).",
    ),
    Field("author_is_bot", "BOOLEAN", "Author looks like an automation account."),
    Field("files_changed", "INTEGER", "Paths changed (NULL when not cheap to get).", "files"),
    Field("insertions", "INTEGER", "Lines added.", "lines"),
    Field("deletions", "INTEGER", "Lines deleted.", "lines"),
    Field("touches_rocm", "BOOLEAN", "Subject or paths match the rocm-adoption topic pattern."),
    Field("topics", "VARCHAR[]", "Every configured topic whose pattern matches."),
    Field("name", "VARCHAR", "Release title (untrusted text)."),
    Field("body", "VARCHAR", "Release notes, markdown (untrusted text)."),
    Field("location", "VARCHAR", "Path or URL it was read from."),
    Field("published_on", "DATE", "Date the document states, when it states one."),
    Field("format", "VARCHAR", "'markdown', 'html' or 'text'."),
    Field("text", "VARCHAR", "Plain text (untrusted)."),
)

COMMITS = Table(
    name="commits",
    description="Commits reachable from the default branch (GitHub API or a local clone).",
    primary_key=("repo", "sha"),
    group="project",
    columns=FIELDS.hold(
        "repo",
        "sha",
        "authored_at",
        "committed_at",
        "author_id",
        "subject",
        "parents",
        "is_mainline",
        "author_is_bot",
        "files_changed",
        "insertions",
        "deletions",
        "touches_rocm",
        "topics",
        "source",
        described={"source": "'github' or 'git'."},
    ),
)

RELEASES = Table(
    name="releases",
    description="Published releases (drafts excluded) and version tags.",
    primary_key=("repo", "tag"),
    group="project",
    columns=FIELDS.hold(
        "repo",
        "tag",
        "name",
        "published_at",
        "is_prerelease",
        "body",
        "url",
        "source",
        described={
            "tag": "Tag name, e.g. v2.3.0.",
            "published_at": "When it was published (UTC); tag time for git tags.",
            "url": "Release page URL, when known.",
            "source": "'github' (releases API) or 'git' (tag from a clone).",
        },
    ),
)

DOCUMENTS = Table(
    name="documents",
    description="The document corpus that briefings cite (one file = one document).",
    primary_key=("doc_id",),
    group="project",
    columns=FIELDS.hold(
        "doc_id",
        "location",
        "title",
        "published_on",
        "content_hash",
        "format",
        "text",
        "ingested_at",
        described={
            "doc_id": "Stable id: hash of the document's location.",
            "title": "Front-matter title or first heading (untrusted text).",
            "content_hash": "SHA-256 of the text; unchanged files are skipped.",
            "ingested_at": "When this version was stored (UTC).",
        },
    ),
)

PASSAGES = Table(
    name="passages",
    description="Documents split into passages for retrieval; receipts cite these.",
    primary_key=("doc_id", "passage_no"),
    group="project",
    columns=FIELDS.hold(
        "doc_id",
        "passage_no",
        "text",
        described={
            "text": "Passage text (untrusted).",
        },
    ),
)

TABLES = (COMMITS, RELEASES, DOCUMENTS, PASSAGES)
