"""The ROCm ecosystem index: how many repositories do ROCm work, how much of their work it is,
and who started lately, over every repository with commit history in the store.

`rocm_index_repos` holds one row per repository and day while the repository's history covers
the 90 days ending on that day (computed by `shu signals`, `shu.signals.rocm_index`); the view
`rocm_index` adds those rows up per day. A repository counts only while its own history runs:
from 89 days after its first counted commit to its newest commit (a copy that ends is not a
repository that stopped). Counted commits and the ROCm flag are those of `commit_signals`.
AMD's own ROCm repositories are counted, and also left out in the `third_party_*` columns: most of
their commits are ROCm work, so as their histories start and end they would move the shares by
more than the rest of the ecosystem does.
"""

from shu.schema.base import Field, Table
from shu.schema.fields import SHARED_FIELDS

FIELDS = SHARED_FIELDS.extend(
    Field("commits_90d", "BIGINT", "Counted commits in the window.", "commits"),
    Field(
        "rocm_commits_90d",
        "BIGINT",
        "Counted commits in the window flagged touches_rocm.",
        "commits",
    ),
    Field(
        "nonbot_commits_90d",
        "BIGINT",
        "Counted commits in the window whose author is not flagged author_is_bot (unknown "
        "counts as not a bot).",
        "commits",
    ),
    Field(
        "nonbot_rocm_commits_90d",
        "BIGINT",
        "Of those, the ones flagged touches_rocm.",
        "commits",
    ),
    Field(
        "rocm_releases_365d",
        "BIGINT",
        "Releases or version tags published day-364 .. day whose name or notes match the "
        "ROCm pattern (settings.ROCM_PATTERN, case-insensitive).",
        "releases",
    ),
    Field(
        "first_rocm_day",
        "DATE",
        "Day of the repository's first counted commit flagged touches_rocm, when it is on "
        "or before the day (NULL before it lands).",
    ),
    Field(
        "first_rocm_sha",
        "VARCHAR",
        "That commit's sha (the earliest committed on its day); NULL while first_rocm_day is.",
    ),
    Field(
        "first_time_adopter",
        "BOOLEAN",
        "True once its first ROCm commit has landed on a day its history covered the 90 "
        "days before (it was watched without ROCm work, so the commit is an adoption, not "
        "a project born with ROCm).",
    ),
    Field(
        "amd_own",
        "BOOLEAN",
        "The repository is one of AMD's own ROCm repositories (its owner is AMD's ROCm "
        "organisation, shu.signals.rocm_index.AMD_OWNERS): its ROCm work is the vendor's, "
        "not adoption.",
    ),
    Field(
        "repos_rocm_90d",
        "INTEGER",
        "Of those, repositories with at least one counted commit flagged touches_rocm in "
        "the window.",
        "repos",
    ),
    Field(
        "repos_ever_rocm",
        "INTEGER",
        "Of those, repositories with a counted ROCm commit on or before the day.",
        "repos",
    ),
    Field(
        "rocm_share_90d",
        "DOUBLE",
        "rocm_commits_90d / commits_90d (NULL when there are none).",
        "fraction",
    ),
    Field(
        "nonbot_rocm_share_90d",
        "DOUBLE",
        "nonbot_rocm_commits_90d / nonbot_commits_90d (NULL when there are none).",
        "fraction",
    ),
    Field(
        "repos_rocm_release_365d",
        "INTEGER",
        "Repositories with a release mentioning ROCm in day-364 .. day.",
        "repos",
    ),
    Field(
        "adopters_90d",
        "INTEGER",
        "First-time adopters (rocm_index_repos.first_time_adopter) whose first ROCm "
        "commit landed in the window.",
        "repos",
    ),
    Field(
        "adopters_365d",
        "INTEGER",
        "First-time adopters whose first ROCm commit landed in day-364 .. day.",
        "repos",
    ),
    Field(
        "amd_repos",
        "INTEGER",
        "Of the repositories counted, AMD's own ROCm repositories (rocm_index_repos.amd_own).",
        "repos",
    ),
    Field(
        "third_party_repos_rocm_90d",
        "INTEGER",
        "Repositories with ROCm commits in the window, AMD's own left out.",
        "repos",
    ),
    Field(
        "third_party_commits_90d",
        "BIGINT",
        "Counted commits in the window, AMD's own repositories left out.",
        "commits",
    ),
    Field(
        "third_party_rocm_commits_90d",
        "BIGINT",
        "Of those, flagged touches_rocm.",
        "commits",
    ),
    Field(
        "third_party_rocm_share_90d",
        "DOUBLE",
        "third_party_rocm_commits_90d / third_party_commits_90d (NULL when there are none): "
        "the share of ROCm work in the software around ROCm, which the vendor's own "
        "repositories (mostly ROCm work) do not sway as they enter and leave the count.",
        "fraction",
    ),
)

ROCM_INDEX_REPOS = Table(
    name="rocm_index_repos",
    description="Per repository and day, for every day whose 90-day window (day-89 .. day) its "
    "commit history covers (from 89 days after its first counted commit to its newest commit): "
    "counted commits and those flagged touches_rocm in the window, all and by non-bot authors, "
    "releases mentioning ROCm in the trailing year, and its first ROCm commit once it has "
    "landed. Counted commits as in commit_signals (the mainline of the default branch; every "
    "non-merge commit where no row says), on their committed_at day (UTC), except that a commit "
    "copied into several repositories (mirrored or vendored: the same sha, or the same author, "
    "author time and subject) counts once, in the repository where it landed first. Always "
    "recomputed in full by `shu signals`.",
    primary_key=("repo", "day"),
    group="signals",
    columns=FIELDS.hold(
        "repo",
        "day",
        "commits_90d",
        "rocm_commits_90d",
        "nonbot_commits_90d",
        "nonbot_rocm_commits_90d",
        "rocm_releases_365d",
        "first_rocm_day",
        "first_rocm_sha",
        "first_time_adopter",
        "amd_own",
        described={
            "day": "Day the values are as of (UTC); the window is day-89 .. day.",
        },
    ),
)

_INDEX_SQL = """
SELECT day,
       count(*)::INTEGER AS repos,
       count(*) FILTER (WHERE rocm_commits_90d > 0)::INTEGER AS repos_rocm_90d,
       count(*) FILTER (WHERE first_rocm_day IS NOT NULL)::INTEGER AS repos_ever_rocm,
       sum(commits_90d)::BIGINT AS commits_90d,
       sum(rocm_commits_90d)::BIGINT AS rocm_commits_90d,
       (sum(rocm_commits_90d) / nullif(sum(commits_90d), 0))::DOUBLE AS rocm_share_90d,
       sum(nonbot_commits_90d)::BIGINT AS nonbot_commits_90d,
       sum(nonbot_rocm_commits_90d)::BIGINT AS nonbot_rocm_commits_90d,
       (sum(nonbot_rocm_commits_90d) / nullif(sum(nonbot_commits_90d), 0))::DOUBLE
         AS nonbot_rocm_share_90d,
       count(*) FILTER (WHERE rocm_releases_365d > 0)::INTEGER AS repos_rocm_release_365d,
       count(*) FILTER (WHERE first_time_adopter AND first_rocm_day > day - 90)::INTEGER
         AS adopters_90d,
       count(*) FILTER (WHERE first_time_adopter AND first_rocm_day > day - 365)::INTEGER
         AS adopters_365d,
       count(*) FILTER (WHERE amd_own)::INTEGER AS amd_repos,
       count(*) FILTER (WHERE NOT amd_own AND rocm_commits_90d > 0)::INTEGER
         AS third_party_repos_rocm_90d,
       coalesce(sum(commits_90d) FILTER (WHERE NOT amd_own), 0)::BIGINT AS third_party_commits_90d,
       coalesce(sum(rocm_commits_90d) FILTER (WHERE NOT amd_own), 0)::BIGINT
         AS third_party_rocm_commits_90d,
       (sum(rocm_commits_90d) FILTER (WHERE NOT amd_own)
         / nullif(sum(commits_90d) FILTER (WHERE NOT amd_own), 0))::DOUBLE
         AS third_party_rocm_share_90d
FROM rocm_index_repos
GROUP BY day
"""

ROCM_INDEX = Table(
    name="rocm_index",
    description="The ROCm ecosystem index, per day: over the repositories whose commit history "
    "covers the 90 days ending on the day (the rows of rocm_index_repos that day), how many did "
    "ROCm work in those 90 days, the share of their counted commits (and of their non-bot "
    "commits) that touch ROCm, and how many adopted ROCm for the first time lately. A "
    "repository enters 89 days after its first counted commit and leaves after its newest "
    "commit, so a copy that ends is not counted as a repository that stopped.",
    primary_key=("day",),
    group="signals",
    view_sql=_INDEX_SQL,
    columns=FIELDS.hold(
        "day",
        "repos",
        "repos_rocm_90d",
        "repos_ever_rocm",
        "commits_90d",
        "rocm_commits_90d",
        "rocm_share_90d",
        "nonbot_commits_90d",
        "nonbot_rocm_commits_90d",
        "nonbot_rocm_share_90d",
        "repos_rocm_release_365d",
        "adopters_90d",
        "adopters_365d",
        "amd_repos",
        "third_party_repos_rocm_90d",
        "third_party_commits_90d",
        "third_party_rocm_commits_90d",
        "third_party_rocm_share_90d",
        described={
            "day": "Day the values are as of (UTC); the window is day-89 .. day.",
            "repos": "Repositories whose history covers the window.",
            "commits_90d": "Their counted commits in the window.",
            "rocm_commits_90d": "Of those, flagged touches_rocm.",
            "nonbot_commits_90d": "Their counted non-bot commits.",
            "nonbot_rocm_commits_90d": "Of those, flagged touches_rocm.",
        },
    ),
)

TABLES = (ROCM_INDEX_REPOS, ROCM_INDEX)
