"""What the local GitHub API serves: repository records, and the JSON GitHub gives for them.

`RepoRecord` (with its `CommitRecord`s and `ReleaseRecord`s) is one repository as the stand-in
knows it; `shu.testing.datasets` builds them and `shu.testing.github_server` serves them. The
functions here turn a record into GitHub's documented JSON shapes (repository, commit, release,
weekly star history, stargazers); paging, ETags, rate limits and faults are the server's.
"""

from __future__ import annotations

import bisect
import hashlib
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from itertools import pairwise
from typing import Any


@dataclass
class CommitRecord:
    """One commit on the default branch."""

    sha: str
    authored_at: datetime
    committed_at: datetime
    author_name: str
    author_email: str
    message: str
    parents: list[str] = field(default_factory=list)
    author_login: str | None = None


@dataclass
class ReleaseRecord:
    """One release (drafts have no published_at on GitHub; here they keep the given one)."""

    tag: str
    published_at: datetime
    name: str | None = None
    body: str = ""
    prerelease: bool = False
    draft: bool = False


@dataclass
class RepoRecord:
    """Everything the server knows about one repository."""

    full_name: str
    repo_id: int
    created_at: datetime
    star_counts: list[tuple[date, int]]
    default_branch: str = "main"
    forks: int = 0
    open_issues: int = 0
    watchers: int = 0
    description: str | None = None
    language: str | None = None
    archived: bool = False
    commits: list[CommitRecord] = field(default_factory=list)
    releases: list[ReleaseRecord] = field(default_factory=list)
    stargazer_history_available: bool = True
    stargazers_available: bool = True

    @property
    def stars(self) -> int:
        return self.star_counts[-1][1] if self.star_counts else 0


def repo_json(repo: RepoRecord, base_url: str) -> dict[str, Any]:
    """`GET /repos/{o}/{r}` for `repo`, as served from `base_url`."""
    owner, name = repo.full_name.split("/")
    return {
        "id": repo.repo_id,
        "node_id": f"R_{repo.repo_id}",
        "name": name,
        "full_name": repo.full_name,
        "owner": {"login": owner, "type": "Organization"},
        "private": False,
        "html_url": f"https://github.com/{repo.full_name}",
        "description": repo.description,
        "fork": False,
        "url": f"{base_url}/repos/{repo.full_name}",
        "created_at": iso(repo.created_at),
        "updated_at": iso(repo.created_at),
        "pushed_at": iso(max((c.committed_at for c in repo.commits), default=repo.created_at)),
        "language": repo.language,
        "archived": repo.archived,
        "disabled": False,
        "default_branch": repo.default_branch,
        "stargazers_count": repo.stars,
        "watchers_count": repo.stars,
        "subscribers_count": repo.watchers,
        "forks_count": repo.forks,
        "forks": repo.forks,
        "open_issues_count": repo.open_issues,
        "open_issues": repo.open_issues,
        "watchers": repo.stars,
    }


def commit_json(repo: RepoRecord, c: CommitRecord, base_url: str) -> dict[str, Any]:
    """One item of `GET /repos/{o}/{r}/commits`."""
    person = (
        {"login": c.author_login, "id": int(c.sha[:7], 16), "type": "User"}
        if c.author_login
        else None
    )
    return {
        "sha": c.sha,
        "node_id": f"C_{c.sha[:12]}",
        "commit": {
            "author": {"name": c.author_name, "email": c.author_email, "date": iso(c.authored_at)},
            "committer": {
                "name": c.author_name,
                "email": c.author_email,
                "date": iso(c.committed_at),
            },
            "message": c.message,
            "comment_count": 0,
            "tree": {"sha": hashlib.sha1(c.sha.encode()).hexdigest()},
        },
        "url": f"{base_url}/repos/{repo.full_name}/commits/{c.sha}",
        "html_url": f"https://github.com/{repo.full_name}/commit/{c.sha}",
        "author": person,
        "committer": person,
        "parents": [{"sha": p} for p in c.parents],
    }


def release_json(repo: RepoRecord, r: ReleaseRecord) -> dict[str, Any]:
    """One item of `GET /repos/{o}/{r}/releases`."""
    return {
        "id": int(hashlib.sha1(f"{repo.full_name}@{r.tag}".encode()).hexdigest()[:8], 16),
        "tag_name": r.tag,
        "name": r.name if r.name is not None else r.tag,
        "body": r.body,
        "draft": r.draft,
        "prerelease": r.prerelease,
        "created_at": iso(r.published_at),
        "published_at": None if r.draft else iso(r.published_at),
        "html_url": f"https://github.com/{repo.full_name}/releases/tag/{r.tag}",
        "assets": [],
    }


def daily_added(repo: RepoRecord) -> tuple[list[date], list[int]]:
    """(days, stars added each day): the daily gains of the running maximum of `star_counts`;
    stars present on the first listed day are spread evenly from `created_at` up to it."""
    days: list[date] = []
    added: list[int] = []
    counts = sorted(repo.star_counts)
    if counts:
        first_day, first_count = counts[0]
        start = min(repo.created_at.date(), first_day)
        span = (first_day - start).days
        for i in range(span):  # stars already there on the first day, spread evenly
            days.append(start + timedelta(days=i))
            added.append(first_count * (i + 1) // span - first_count * i // span)
        days.append(first_day)
        added.append(0 if span else first_count)
        running_max = first_count
        for (d0, c0), (d1, c1) in pairwise(counts):
            gap = (d1 - d0).days
            for i in range(1, gap + 1):
                level = max(running_max, c0 + (c1 - c0) * i // gap)
                days.append(d0 + timedelta(days=i))
                added.append(level - running_max)
                running_max = level
    return days, added


def history_weeks(days: list[date], added: list[int]) -> list[dict[str, Any]]:
    """`GET /repos/{o}/{r}/stargazers/history` rows `{week, total, days[7]}`, newest first
    (weeks start on Sunday 00:00 UTC; empty weeks appear as zero rows)."""
    weeks: dict[date, list[int]] = {}
    for day, n in zip(days, added, strict=True):
        sunday = day - timedelta(days=(day.weekday() + 1) % 7)
        weeks.setdefault(sunday, [0] * 7)[(day.weekday() + 1) % 7] += n
    if days:
        sunday = days[0] - timedelta(days=(days[0].weekday() + 1) % 7)
        while sunday <= days[-1]:
            weeks.setdefault(sunday, [0] * 7)
            sunday += timedelta(days=7)
    return [
        {
            "week": int(datetime(w.year, w.month, w.day, tzinfo=UTC).timestamp()),
            "total": sum(v),
            "days": v,
        }
        for w, v in sorted(weeks.items(), reverse=True)
    ]


def stargazers(
    days: list[date], added: list[int], first: int, stop: int, star_json: bool
) -> tuple[int, list[dict[str, Any]]]:
    """(total stars, stargazers number `first` .. `stop - 1`, oldest first): `{starred_at,
    user}` with `star_json`, plain users otherwise; each day's stars spread over the day."""
    cumulative = [0]
    for n in added:
        cumulative.append(cumulative[-1] + n)
    total = cumulative[-1]
    items = []
    for index in range(first, min(stop, total)):
        d = bisect.bisect_right(cumulative, index) - 1
        within, count = index - cumulative[d], added[d]
        at = datetime(days[d].year, days[d].month, days[d].day) + timedelta(
            seconds=int((within + 0.5) * 86400 / count)
        )
        user = {"login": f"stargazer{index + 1}", "id": 10_000_000 + index, "type": "User"}
        items.append({"starred_at": iso(at), "user": user} if star_json else user)
    return total, items


def iso(moment: datetime) -> str:
    """GitHub's timestamp form (UTC, `Z`); naive datetimes are UTC."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_iso(text: str) -> datetime:
    """A naive UTC datetime from an ISO 8601 timestamp (`Z` or an offset)."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment
