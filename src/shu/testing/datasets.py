"""Repositories for the local GitHub API server: a small synthetic set, or real histories.

- `small_dataset()` needs no files: the three default repositories with a few months of
  deterministic stars, 150 commits (one mentions ROCm) and a handful of releases plus a draft.
- `default_repos_from_history(shared)` serves the three default repositories from real data:
  ollama/ollama's own history; pytorch/pytorch and tensorflow/tensorflow were too large to
  extract, so their commits and tags come from real sibling repositories (pytorch/ao,
  tensorflow/tfjs) while their stars are their own real daily counts.
- `repo_from_history(...)` reads the shared git-history tables (`<owner>__<name>.commits.csv.gz`,
  `.tags.csv.gz`, see ../shared/data/history/README.md) and a daily star-count Parquet
  (`day, repo, stars, forks, open_issues`) into a `RepoRecord`. Histories hold hashed author ids,
  not e-mails, so the served e-mail is `<author_id>@users.noreply.github.com`.
"""

from __future__ import annotations

import csv
import gzip
import re
from datetime import date, datetime, timedelta
from pathlib import Path

import duckdb

from shu.repos import SYNTHETIC_MARK
from shu.testing.github_records import CommitRecord, ReleaseRecord, RepoRecord

VERSION_TAG = re.compile(r"^(?:[\w.-]*?[-_/])?v?\d+\.\d+")
PRERELEASE = re.compile(r"rc|alpha|beta|dev|pre", re.IGNORECASE)
DEFAULT_IDS = {
    "pytorch/pytorch": 65600975,
    "tensorflow/tensorflow": 45717250,
    "ollama/ollama": 658928958,
}
# served name, history served, star series (old names first), creation time
DEFAULTS_FROM_HISTORY = (
    ("pytorch/pytorch", "pytorch/ao", ("pytorch/pytorch",), datetime(2016, 8, 13)),
    ("tensorflow/tensorflow", "tensorflow/tfjs", ("tensorflow/tensorflow",), datetime(2015, 11, 7)),
    (
        "ollama/ollama",
        "ollama/ollama",
        ("jmorganca/ollama", "ollama/ollama"),
        datetime(2023, 6, 26),
    ),
)


def small_dataset(end: date = date(2026, 2, 28), days: int = 120) -> list[RepoRecord]:
    """The three default repositories with small, deterministic, self-contained data."""
    repos = []
    for n, (name, base, per_day) in enumerate(
        (
            ("pytorch/pytorch", 90_000, 27),
            ("tensorflow/tensorflow", 190_000, 16),
            ("ollama/ollama", 150_000, 78),
        )
    ):
        start = end - timedelta(days=days - 1)
        counts = [
            (start + timedelta(days=i), base + per_day * i + (i * 7919 + n) % 11)
            for i in range(days)
        ]
        commits = []
        for i in range(150):
            at = datetime(start.year, start.month, start.day, 9) + timedelta(hours=19 * i + n)
            subject = f"{name.split('/')[1]}: change {i}" + (" for ROCm gfx90a" if i == 7 else "")
            commits.append(
                CommitRecord(
                    sha=f"{n:02x}{i:038x}",
                    authored_at=at - timedelta(hours=2),
                    committed_at=at,
                    author_name="dependabot[bot]" if i % 25 == 0 else f"Dev {i % 9}",
                    author_email=f"dev{i % 9}@example.com",
                    message=f"{subject}\n\nDetails {i}.",
                    parents=[f"{n:02x}{i - 1:038x}"] if i else [],
                    author_login=f"dev{i % 9}",
                )
            )
        releases = [
            ReleaseRecord(
                tag=f"v{n + 1}.{k}.0",
                name=f"Release {n + 1}.{k}",
                body=f"Notes for {k}",
                published_at=datetime(start.year, start.month, start.day) + timedelta(days=9 * k),
                prerelease=k == 5,
            )
            for k in range(1, 7)
        ]
        releases.append(
            ReleaseRecord(
                tag=f"v{n + 1}.9.0",
                name="unpublished",
                draft=True,
                published_at=datetime(end.year, end.month, end.day),
            )
        )
        repos.append(
            RepoRecord(
                full_name=name,
                repo_id=DEFAULT_IDS[name],
                created_at=datetime(2023, 6, 1),
                star_counts=counts,
                default_branch="main",
                forks=base // 4,
                open_issues=5_000 + n,
                watchers=1_000 + n,
                description=f"{name} {SYNTHETIC_MARK}",
                language="Python",
                commits=commits,
                releases=releases,
            )
        )
    return repos


def default_repos_from_history(shared: Path, max_commits: int | None = None) -> list[RepoRecord]:
    """The three default repositories served from ../shared/data (see the module docstring)."""
    history = shared / "data" / "history"
    stars = shared / "data" / "stars" / "stars_daily.parquet"
    return [
        repo_from_history(
            history,
            source,
            stars,
            serve_as=name,
            star_repos=star_names,
            repo_id=DEFAULT_IDS[name],
            created_at=created,
            max_commits=max_commits,
        )
        for name, source, star_names, created in DEFAULTS_FROM_HISTORY
    ]


def repo_from_history(
    history_dir: Path,
    history_repo: str,
    stars_parquet: Path,
    *,
    serve_as: str | None = None,
    star_repos: tuple[str, ...] = (),
    repo_id: int = 1,
    created_at: datetime | None = None,
    max_commits: int | None = None,
    default_branch: str = "main",
) -> RepoRecord:
    """A `RepoRecord` from the shared history tables of `history_repo` and daily star counts.

    Args:
        history_dir: ../shared/data/history.
        history_repo: whose commits and tags to serve, e.g. 'ollama/ollama'.
        stars_parquet: ../shared/data/stars/stars_daily.parquet.
        serve_as: the name to serve it under (default `history_repo`).
        star_repos: names whose daily counts make the star series (default: `serve_as`);
            several names (e.g. an old and a new spelling) are merged, later days win.
        max_commits: keep only the newest N commits (the files are newest first).
    """
    name = serve_as or history_repo
    prefix = history_dir / history_repo.replace("/", "__")
    commits = []
    with gzip.open(f"{prefix}.commits.csv.gz", "rt", encoding="utf-8", newline="") as fh:
        for i, row in enumerate(csv.DictReader(fh)):
            if max_commits is not None and i >= max_commits:
                break
            bot = row["author_is_bot"] == "1"
            commits.append(
                CommitRecord(
                    sha=row["sha"],
                    authored_at=_utc(row["author_time"]),
                    committed_at=_utc(row["commit_time"]),
                    author_name="automation[bot]" if bot else f"dev-{row['author_id']}",
                    author_email=f"{row['author_id']}@users.noreply.github.com",
                    message=row["subject"],
                    parents=[f"{p:040x}" for p in range(int(row["parents"]))],
                )
            )
    releases = []
    with gzip.open(f"{prefix}.tags.csv.gz", "rt", encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            if VERSION_TAG.search(row["tag"]):
                releases.append(
                    ReleaseRecord(
                        tag=row["tag"],
                        name=row["tag"],
                        body=row["message"],
                        published_at=_utc(row["tag_time"]),
                        prerelease=bool(PRERELEASE.search(row["tag"])),
                    )
                )
    names = list(star_repos or (name,))
    rows = duckdb.execute(
        "SELECT day, max_by(stars, day) AS stars, max_by(forks, day), max_by(open_issues, day) "
        "FROM read_parquet(?) WHERE repo IN (SELECT unnest(?)) GROUP BY day ORDER BY day",
        [str(stars_parquet), names],
    ).fetchall()
    if not rows:
        raise ValueError(f"{stars_parquet}: no star counts for {names}")
    first_day = datetime(rows[0][0].year, rows[0][0].month, rows[0][0].day)
    first_commit = min((c.committed_at for c in commits), default=first_day)
    return RepoRecord(
        full_name=name,
        repo_id=repo_id,
        created_at=created_at or min(first_commit, first_day),
        star_counts=[(r[0], int(r[1])) for r in rows],
        default_branch=default_branch,
        forks=int(rows[-1][2] or 0),
        open_issues=int(rows[-1][3] or 0),
        watchers=0,
        description=f"{name} (served from real history of {history_repo})",
        language="Python",
        commits=commits,
        releases=releases,
    )


def _utc(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ")
