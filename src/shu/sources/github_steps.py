"""The four steps of one repository's GitHub load (repository, star history, commits, releases)
and what a load records (`IngestSummary`); `shu.sources.github_ingest` runs them per repository.

`RepoSteps` holds what the steps share (the client, the journal of stored rows and ETags, the
repository's name after a rename, its star count and default branch); each step reads GitHub,
checks what came back (a malformed answer is a GitHubError naming the URL) and upserts its rows
in the load `RepoSteps.run` opens for it. A step GitHub cannot answer yet (a 202) raises
`StepSkipped`: rolled back and noted, retried by the next run.
"""

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pandas as pd
from requests.utils import parse_header_links

from shu.errors import GitHubError
from shu.settings import Settings
from shu.sources.authors import author_id, looks_like_bot
from shu.sources.github import (
    ACCEPT_STAR,
    GitHubClient,
    Response,
)
from shu.sources.github_journal import ScratchStore
from shu.sources.topic_match import TopicMatcher
from shu.store import Load, UpsertResult, utcnow

SOURCE = "github"
HISTORY_SOURCE = "github-star-history"
STARGAZERS_SOURCE = "github-stargazers"
DERIVED_SOURCES = (HISTORY_SOURCE, STARGAZERS_SOURCE)
HISTORY_PER_PAGE = 30
HISTORY_MAX_PAGES = 100
LIST_PER_PAGE = 100
STARGAZER_PAGE_CAP = 400
# "repository": `GET /repos/{o}/{r}`, the repository's metadata and today's counts (not
# "snapshot", which elsewhere means the read-only copy of the store, `shu.snapshot`)
STEPS = ("repository", "star history", "commits", "releases")


@dataclass
class IngestSummary:
    """What one `ingest_github` call did and cost."""

    repos: list[str] = field(default_factory=list)
    requests: int = 0
    not_modified: int = 0
    retries: int = 0
    rate_limit_waits: int = 0
    rate_remaining: int | None = None
    rate_limit: int | None = None
    rate_reset: float | None = None
    rows: dict[str, UpsertResult] = field(
        default_factory=lambda: {
            table: UpsertResult() for table in ("repos", "stars_daily", "commits", "releases")
        }
    )
    renamed: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)

    def add(self, table: str, result: UpsertResult) -> None:
        self.rows.setdefault(table, UpsertResult())
        self.rows[table] += result

    @property
    def changed(self) -> int:
        """Rows inserted or updated over every table."""
        return sum(r.inserted + r.updated for r in self.rows.values())


class RepoSteps:
    """The four steps for one repository (state shared between them: name, stars, branch)."""

    def __init__(
        self,
        store: ScratchStore,
        settings: Settings,
        client: GitHubClient,
        summary: IngestSummary,
        repo: str,
        backfill: bool,
        today: date,
    ) -> None:
        self.store, self.settings, self.client = store, settings, client
        self.summary, self.repo, self.backfill, self.today = summary, repo, backfill, today
        self.stars: int | None = None
        self.default_branch: str | None = None
        self.topics = TopicMatcher.from_topics(settings.topics)

    def run(self, step: str) -> bool:
        """Run one step in its own load; False when the repository cannot be continued."""
        method = {
            "repository": self.repository,
            "star history": self.star_history,
            "commits": self.commits,
            "releases": self.releases,
        }[step]
        try:
            with self.store.load(SOURCE, f"{self.repo} {step}") as load:
                result = method(load)
                if isinstance(result, str):
                    load.message = result
        except StepSkipped as skipped:  # rolled back (ETags included); the next run retries
            self.note(str(skipped))
            return True
        return result is not False

    def upsert(self, load: Load, table: str, rows: pd.DataFrame) -> UpsertResult:
        if rows.empty:
            return UpsertResult()
        result = self.store.upsert(table, rows)
        load.add(result)
        self.summary.add(table, result)
        return result

    def note(self, text: str) -> str:
        self.summary.notes.append(f"{self.repo}: {text}")
        return text

    # ---------------------------------------------------------------- 1. repository
    def repository(self, load: Load) -> bool | str:
        rows = self.store.con.execute(
            "SELECT r.default_branch, s.stars, s.forks, s.open_issues, s.watchers "
            "FROM repos r JOIN stars_daily s ON s.repo = r.repo AND s.source = ? "
            "WHERE r.repo = ? ORDER BY s.day DESC LIMIT 1",
            [SOURCE, self.repo],
        ).fetchall()
        stored = rows[0] if rows else None
        redirects_before = len(self.client.redirects)
        resp = self.client.get(
            f"/repos/{self.repo}", conditional=stored is not None, allow=(404, 451)
        )
        if resp.status in (404, 451):  # a failed load ('failed' in ingest_log), never 'ok'
            what = "not found on GitHub" if resp.status == 404 else "unavailable on GitHub"
            raise GitHubError(
                f"{what} (HTTP {resp.status}): check the name (owner/name)", status=resp.status
            )
        if resp.not_modified:
            assert stored is not None  # a 304 answers only the conditional request made above
            branch, stars, forks, issues, watchers = stored
        else:
            data = _expect(resp, dict, "a repository object")
            try:
                stars, forks = int(data["stargazers_count"]), int(data["forks_count"])
                issues = int(data["open_issues_count"])
                watchers = data.get("subscribers_count")
                branch, full_name = data["default_branch"], data["full_name"]
            except (KeyError, TypeError, ValueError) as exc:
                raise GitHubError(f"GitHub GET {resp.url}: repository object lacks {exc}") from exc
            renamed = len(self.client.redirects) > redirects_before
            if renamed or full_name.lower() != self.repo.lower():
                self.follow_rename(full_name)
            self.write_repo(load, data)
        self.stars, self.default_branch = int(stars), branch
        load.rows_read += 1
        self.upsert(
            load,
            "stars_daily",
            pd.DataFrame(
                {
                    "repo": [self.repo],
                    "day": [self.today],
                    "stars": [int(stars)],
                    "forks": [int(forks)],
                    "open_issues": [int(issues)],
                    "watchers": pd.array([watchers], dtype="Int64"),
                    "source": [SOURCE],
                }
            ),
        )
        return "unchanged (304)" if resp.not_modified else f"{stars} stars"

    def follow_rename(self, new: str) -> None:
        old = self.repo
        if new.lower() == old.lower():
            return
        self.store.rename(old, new, "github-301")
        self.summary.renamed[old] = new
        self.note(f"renamed on GitHub to {new}; now stored under the new name")
        self.repo = new

    def write_repo(self, load: Load, data: dict[str, Any]) -> None:
        category = self.settings.category_of(self.repo)
        renamed_from = next(
            (old for old, new in self.summary.renamed.items() if new == self.repo), None
        )
        if renamed_from is None:
            row = self.store.con.execute(
                "SELECT renamed_from FROM repos WHERE repo = ?", [self.repo]
            ).fetchall()
            renamed_from = row[0][0] if row else None
        values = {
            "repo": self.repo,
            "repo_id": int(data["id"]) if data.get("id") is not None else None,
            "category": category,
            "is_tracked": category is not None
            or bool(renamed_from and self.settings.category_of(renamed_from)),
            "default_branch": data.get("default_branch"),
            "description": data.get("description"),
            "language": data.get("language"),
            "created_at": _timestamp(data.get("created_at")),
            "archived": bool(data.get("archived", False)),
            "renamed_from": renamed_from,
            "described_on": None,  # the API's description: a ranking file never overwrites it
        }
        if values["category"] is None and renamed_from:
            values["category"] = self.settings.category_of(renamed_from)
        current = self.store.con.execute(
            f"SELECT {', '.join(values)} FROM repos WHERE repo = ?", [self.repo]
        ).fetchall()
        if current and tuple(current[0]) == tuple(values.values()):
            return  # unchanged: leave updated_at alone so a re-run changes nothing
        frame = pd.DataFrame([{**values, "updated_at": utcnow()}])
        frame["repo_id"] = frame["repo_id"].astype("Int64")
        self.upsert(load, "repos", frame)

    # ------------------------------------------------------------------ 2. star history
    def star_history(self, load: Load) -> bool | str:
        """Weekly rows, newest first. Pages are addressed as `?page=N` (the `Link` header says
        whether another follows), so each page's ETag is found again on the next run. A daily
        run reads page 1 only; a backfill goes on past 304 pages until the history is whole."""
        first_stored, created = self.store.con.execute(
            "SELECT min(s.day), any_value(r.created_at) FROM stars_daily s LEFT JOIN repos r "
            "USING (repo) WHERE s.repo = ? AND s.stars_added IS NOT NULL",
            [self.repo],
        ).fetchall()[0]
        have = first_stored is not None
        whole = have and created is not None and first_stored <= created.date()
        path = f"/repos/{self.repo}/stargazers/history"
        added: dict[date, int] = {}
        for page in range(1, HISTORY_MAX_PAGES + 1):
            params = {"per_page": HISTORY_PER_PAGE, **({"page": page} if page > 1 else {})}
            resp = self.client.get(path, params, conditional=have, allow=(403, 404))
            if resp.status in (403, 404):
                if page == 1:
                    return self.stargazers_fallback(load)
                break  # the listing ended early: keep the weeks read
            if resp.not_ready:
                raise StepSkipped("star history not ready yet (202); retry on the next run")
            if resp.not_modified:  # this page is stored already
                if page == 1 and (whole or not self.backfill):
                    break
                continue
            rows = _expect(resp, list, "weekly star-history rows")
            load.rows_read += len(rows)
            for week in rows:
                added.update(_week_days(week, resp.url))
            if not rows or not resp.next_url or (have and not self.backfill):
                break
        if not added:
            return "unchanged (304)"
        self.write_star_series(
            load, {d: n for d, n in added.items() if d <= self.today}, HISTORY_SOURCE, complete=True
        )
        return f"{len(added)} days of star history"

    def stargazers_fallback(self, load: Load) -> str:
        """Classic listing with star timestamps (needs admin/collaborator access since 2026).

        The listing is oldest first, so new stars are on the last pages: a first load reads
        every page (GitHub serves at most 400 pages, 40,000 stars); later runs read page 1 for
        the `Link rel="last"` page number and walk back from the last page until they reach a
        day already stored. Only whole days are written.
        """
        boundary = self.store.con.execute(
            "SELECT max(day) FROM stars_daily WHERE repo = ? AND source = ?",
            [self.repo, STARGAZERS_SOURCE],
        ).fetchall()[0][0]
        path, accept = f"/repos/{self.repo}/stargazers", ACCEPT_STAR
        first = self.client.get(
            path, {"per_page": LIST_PER_PAGE}, accept=accept, conditional=False, allow=(403, 404)
        )
        if first.status in (403, 404):
            return self.note(
                "no star history: /stargazers/history absent and the stargazer "
                "list is restricted for this token"
            )
        last_page = _last_page(first)
        capped = last_page > STARGAZER_PAGE_CAP
        incremental = boundary is not None and not self.backfill
        if incremental and capped:
            return self.note(
                "stargazer list capped by GitHub at 40,000 stars: nothing newer can be read from it"
            )
        if incremental:
            numbers = range(last_page, 1, -1)
        else:
            numbers = range(2, min(last_page, STARGAZER_PAGE_CAP) + 1)
        starred = self.starred_days(first, load)
        crossed = False  # an incremental walk reached a page that starts before `boundary`
        for number in numbers:
            resp = self.client.get(
                path,
                {"page": number, "per_page": LIST_PER_PAGE},
                accept=accept,
                conditional=False,
                allow=(422,),
            )
            if resp.status == 422:  # GitHub's page cap
                capped = True
                break
            page_days = self.starred_days(resp, load)
            starred += page_days
            if incremental and page_days and min(page_days) < boundary:
                crossed = True
                break
        if not starred:
            return "no stargazers"
        per_day: dict[date, int] = {}
        for day in starred:
            per_day[day] = per_day.get(day, 0) + 1
        # whole days only: after crossing, every day from `boundary` on was read in full
        first_day = boundary if crossed else min(per_day)
        last_day = (max(per_day) - timedelta(days=1)) if capped else self.today
        days = {first_day + timedelta(days=i): 0 for i in range((last_day - first_day).days + 1)}
        days.update({d: n for d, n in per_day.items() if first_day <= d <= last_day})
        self.write_star_series(load, days, STARGAZERS_SOURCE, complete=not capped)
        if capped:
            self.note(
                f"stargazer list capped by GitHub at 40,000 stars; days after {last_day} "
                "have no stars_added"
            )
        return f"{len(days)} days from the stargazer list"

    def starred_days(self, resp: Response, load: Load) -> list[date]:
        items = _expect(resp, list, "stargazers")
        load.rows_read += len(items)
        days = []
        for item in items:
            starred = _timestamp(item.get("starred_at") if isinstance(item, dict) else None)
            if starred is None:
                raise GitHubError(
                    f"GitHub GET {resp.url}: stargazer without starred_at "
                    "(was the star+json media type ignored?)"
                )
            days.append(starred.date())
        return days

    def write_star_series(
        self, load: Load, added: dict[date, int], source: str, complete: bool
    ) -> None:
        """Store stars added per day and, on days no observed count covers, the cumulative
        `stars`: stargazers_count minus the stars added after the day (a complete series), or
        the running sum (a listing GitHub capped). Observed rows keep their stars and source."""
        stored = self.store.con.execute(
            "SELECT day, stars, stars_added, source FROM stars_daily WHERE repo = ? ORDER BY day",
            [self.repo],
        ).fetchdf()
        stored["day"] = pd.to_datetime(stored["day"]).dt.date
        fetched = pd.DataFrame({"day": list(added), "fetched": list(added.values())})
        series = stored.merge(fetched, on="day", how="outer").sort_values("day")
        series["stars_added"] = series["fetched"].combine_first(series["stars_added"])
        series = series[series["stars_added"].notna()].reset_index(drop=True)
        series["stars_added"] = series["stars_added"].astype("int64")
        if complete and self.stars is not None:
            after = series["stars_added"][::-1].cumsum()[::-1] - series["stars_added"]
            cumulative = self.stars - after
        else:
            cumulative = series["stars_added"].cumsum()
        series["cumulative"] = cumulative.astype("int64")
        is_new = series["source"].isna()
        derived = series["source"].isin(DERIVED_SOURCES)
        new_rows = series[is_new].assign(source=source)
        self.upsert(
            load,
            "stars_daily",
            pd.DataFrame(
                {
                    "repo": self.repo,
                    "day": new_rows["day"],
                    "stars": new_rows["cumulative"],
                    "stars_added": new_rows["stars_added"],
                    "source": new_rows["source"],
                }
            ),
        )
        self.upsert(
            load,
            "stars_daily",
            pd.DataFrame(
                {
                    "repo": self.repo,
                    "day": series["day"][derived],
                    "stars": series["cumulative"][derived],
                    "stars_added": series["stars_added"][derived],
                }
            ),
        )
        observed = ~is_new & ~derived
        self.upsert(
            load,
            "stars_daily",
            pd.DataFrame(
                {
                    "repo": self.repo,
                    "day": series["day"][observed],
                    "stars_added": series["stars_added"][observed],
                }
            ),
        )

    # ------------------------------------------------------------------ 3. commits
    def commits(self, load: Load) -> bool | str:
        """New commits at the head (a 1-commit conditional probe, then `since` the newest
        stored); with --backfill also everything older than the oldest stored commit (`until`)
        unless the whole history was walked before or the oldest stored commit is a root."""
        newest, oldest, oldest_parents = self.store.con.execute(
            "SELECT max(committed_at), min(committed_at), arg_min(parents, committed_at) "
            "FROM commits WHERE repo = ?",
            [self.repo],
        ).fetchall()[0]
        path, branch = f"/repos/{self.repo}/commits", self.default_branch
        probe = self.client.get(
            path, {"sha": branch, "per_page": 1}, conditional=newest is not None, allow=(409,)
        )
        if probe.status == 409:
            return "empty repository"
        walks: list[dict[str, Any]] = []
        head = [] if probe.not_modified else _expect(probe, list, "commits")
        if head and not self.known_shas([c.get("sha") for c in head if isinstance(c, dict)]):
            params: dict[str, Any] = {"sha": branch, "per_page": LIST_PER_PAGE}
            if newest is not None:
                params["since"] = _iso(newest)
            elif not self.backfill:
                params["since"] = _iso(
                    datetime.combine(
                        self.today - timedelta(days=self.settings.github_commit_lookback_days),
                        datetime.min.time(),
                    )
                )
            walks.append(params)
        whole = self.client.seen(path, {"sha": branch, "per_page": LIST_PER_PAGE})
        if self.backfill and oldest is not None and oldest_parents != 0 and not whole:
            walks.append({"sha": branch, "per_page": LIST_PER_PAGE, "until": _iso(oldest)})
        rows = []
        for params in walks:
            for resp in self.client.pages(path, params):
                if resp.not_modified:
                    break
                items = _expect(resp, list, "commits")
                load.rows_read += len(items)
                rows += [self.commit_row(item, resp.url) for item in items]
        known = self.known_shas([r["sha"] for r in rows])
        fresh = pd.DataFrame([r for r in rows if r["sha"] not in known])
        if fresh.empty:
            return "unchanged (304)" if probe.not_modified and not walks else "no new commits"
        fresh = fresh.drop_duplicates("sha")
        for column in ("files_changed", "insertions", "deletions"):
            fresh[column] = pd.array([None] * len(fresh), dtype="Int32")
        fresh["is_mainline"] = pd.array([None] * len(fresh), dtype="boolean")
        result = self.upsert(load, "commits", fresh)
        return f"{result.inserted} new commits"

    def known_shas(self, shas: list[str | None]) -> set[str]:
        if not shas:
            return set()
        found = self.store.con.execute(
            "SELECT sha FROM commits WHERE repo = ? AND sha IN (SELECT unnest(?))",
            [self.repo, shas],
        ).fetchall()
        return {r[0] for r in found}

    def commit_row(self, item: Any, url: str) -> dict[str, Any]:
        try:
            commit = item["commit"]
            message = commit.get("message") or ""
            author, committer = commit.get("author") or {}, commit.get("committer") or {}
            login = (item.get("author") or {}).get("login")
            subject = message.split("\n", 1)[0].strip()
            topics = self.topics.match(subject)
            return {
                "repo": self.repo,
                "sha": _text(item["sha"], "sha"),
                "authored_at": _timestamp(author.get("date")),
                "committed_at": _timestamp(committer.get("date")),
                "author_id": author_id(author.get("email")),
                "subject": subject,
                "parents": len(item.get("parents") or []),
                "author_is_bot": looks_like_bot(author.get("name"), author.get("email"), login),
                "topics": topics,
                **self.topics.flags(topics),
                "source": SOURCE,
            }
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise GitHubError(f"GitHub GET {url}: malformed commit object ({exc})") from exc

    # ------------------------------------------------------------------ 4. releases
    def releases(self, load: Load) -> bool | str:
        have = (
            self.store.con.execute(
                "SELECT count(*) FROM releases WHERE repo = ? AND source = ?", [self.repo, SOURCE]
            ).fetchall()[0][0]
            > 0
        )
        rows = []
        for resp in self.client.pages(
            f"/repos/{self.repo}/releases", {"per_page": LIST_PER_PAGE}, conditional=have
        ):
            if resp.not_modified:
                break
            items = _expect(resp, list, "releases")
            load.rows_read += len(items)
            page = [self.release_row(item, resp.url) for item in items]
            rows += [r for r in page if r is not None]
            tags = [r["tag"] for r in rows]
            known = self.store.con.execute(
                "SELECT count(*) FROM releases WHERE repo = ? AND source = ? AND tag IN "
                "(SELECT unnest(?))",
                [self.repo, SOURCE, tags],
            ).fetchall()[0][0]
            if have and not self.backfill and known:
                break
        if not rows:
            return "unchanged (304)" if have else "no releases"
        frame = pd.DataFrame(rows).drop_duplicates("tag")
        result = self.upsert(load, "releases", frame)
        return f"{result.inserted} new, {result.updated} updated releases"

    def release_row(self, item: Any, url: str) -> dict[str, Any] | None:
        try:
            if item.get("draft"):
                return None
            return {
                "repo": self.repo,
                "tag": _text(item["tag_name"], "tag_name"),
                "name": item.get("name"),
                "published_at": _timestamp(item.get("published_at") or item["created_at"]),
                "is_prerelease": bool(item.get("prerelease")),
                "body": item.get("body"),
                "url": item.get("html_url"),
                "source": SOURCE,
            }
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise GitHubError(f"GitHub GET {url}: malformed release object ({exc})") from exc


class StepSkipped(Exception):
    """A step that cannot finish now (e.g. GitHub still computing): roll it back, go on."""


def _last_page(resp: Response) -> int:
    """The page number of `Link: rel="last"` (1 when the listing has one page)."""
    for link in parse_header_links(resp.headers.get("Link", "") or ""):
        if link.get("rel") == "last":
            page = parse_qs(urlsplit(link.get("url", "")).query).get("page", ["1"])[0]
            return int(page) if page.isdigit() else 1
    return 1


def _expect(resp: Response, kind: type, what: str) -> Any:
    if not isinstance(resp.data, kind):
        got = type(resp.data).__name__
        raise GitHubError(f"GitHub GET {resp.url}: expected {what}, got {got}")
    return resp.data


def _week_days(week: Any, url: str) -> dict[date, int]:
    """Day -> stars added, from one {week, total, days[7]} row (week = Sunday, epoch or ISO)."""
    try:
        start = week["week"]
        if isinstance(start, int | float):
            first = datetime.fromtimestamp(start, UTC).date()
        else:
            first = date.fromisoformat(str(start)[:10])
        counts = [int(n) for n in week["days"]]
        if len(counts) != 7 or any(n < 0 for n in counts):
            raise ValueError("days must be 7 counts >= 0")
        if "total" in week and int(week["total"]) != sum(counts):
            raise ValueError(f"total {week['total']} != sum of days {sum(counts)}")
    except (KeyError, TypeError, ValueError, OverflowError, OSError) as exc:
        raise GitHubError(f"GitHub GET {url}: malformed star-history week ({exc})") from exc
    return {first + timedelta(days=i): n for i, n in enumerate(counts)}


def _text(value: Any, name: str) -> str:
    """A required, non-empty string field of a GitHub object (ValueError otherwise)."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{name} is {value!r}, not a non-empty string")
    return value


def _timestamp(text: Any) -> datetime | None:
    """A naive UTC datetime from GitHub's ISO 8601 text (None for None)."""
    if text is None:
        return None
    moment = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
