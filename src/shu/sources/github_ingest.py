"""What shu loads from GitHub, per tracked repository, each step one transactional load.

For each repository (`ingest_github`), in order, each step in its own `store.load(...)` (one
transaction with its `ingest_log` row and the ETags it received, so a run killed halfway leaves
whole steps only, no ETag outlives the rows it vouches for, and a re-run converges):

1. repository: `GET /repos/{o}/{r}` -> `repos` (metadata; a 301 rename is followed, the new name
   recorded in `repos.renamed_from` and `repo_aliases`, and stored rows moved to it) and today's
   `stars_daily` row (source 'github': stars, forks, open issues, watchers; on a 304 the last
   snapshot is carried to today);
2. star history: `GET /stargazers/history` (weekly rows, day counts) -> `stars_daily.stars_added`
   per day, and `stars` for days no observed count covers, reconciled with the current
   `stargazers_count`: stars(d) = stargazers_count - stars added after d (stars still held).
   Days only the history covers get source 'github-star-history'. Where the endpoint is absent
   it falls back to the classic `/stargazers` listing (`application/vnd.github.star+json`,
   source 'github-stargazers') when the token has access. A 202 ("not ready") rolls the step
   back and notes it; the next run retries;
3. commits: a 1-commit probe of the default branch (conditional: 304 = nothing new), then every
   commit since the newest stored one (`since`) -> `commits` (new SHAs only, so richer rows from
   a local clone are never overwritten); a first run without backfill reads
   `github_commit_lookback_days`, a backfill the whole history;
4. releases: newest first, drafts excluded -> `releases` (source 'github').

Each repository is fetched then written: `fetch_repo` runs the steps on an in-memory copy of
the repository's stored rows and ETags (`shu.sources.github_journal`), needing no store, so it
can run in another process (the Dask fan-out in `shu.flows.ingest`); `write_fetch` replays each
step's writes on the store in that step's transaction. `ingest_github` does both, in turn.

Without `backfill` each listing reads its first page only (conditionally) unless nothing is
stored yet, so a daily run with nothing new costs 4 requests per repository, all 304.

This module runs the repositories (fetch, write, which failures stop the run); the four steps
themselves are `shu.sources.github_steps.RepoSteps`, one class whose methods share the client,
the journal of stored rows and ETags, and the counters.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any

import duckdb

from shu.errors import GitHubError, RateLimited, StoreError
from shu.settings import Settings
from shu.sources.github import (
    GitHubClient,
    RequestStats,
    StoreValidatorCache,
)
from shu.sources.github_journal import LoadRecord, RepoSnapshot, ScratchStore, read_snapshot, replay
from shu.sources.github_steps import STEPS, IngestSummary, RepoSteps
from shu.store import Store, utcnow


def client_for(store: Store, settings: Settings, **overrides: Any) -> GitHubClient:
    """A client configured from settings whose ETags persist in the store's `http_cache`."""
    overrides.setdefault("cache", StoreValidatorCache(store))
    return GitHubClient.from_settings(settings, **overrides)


def ingest_github(
    store: Store,
    settings: Settings,
    repos: Iterable[str] | None = None,
    backfill: bool = False,
    client: GitHubClient | None = None,
    progress: Callable[[str, str], None] | None = None,
    today: date | None = None,
) -> IngestSummary:
    """Load snapshot, star history, commits and releases of `repos` (default: the tracked ones).

    Args:
        store: an open, writable store.
        settings: settings (default: the process-wide ones).
        repos: 'owner/name' list; old names are folded through aliases.
        backfill: fetch full histories (every star-history page, every commit, every release).
        client: a GitHubClient (default: `client_for(store, settings)`; its
            `StoreValidatorCache` serves each fetch from that repository's snapshot).
        progress: called with (repo, step) after each step is fetched, for progress bars.
        today: the snapshot day (default: today, UTC).

    Each repository is `fetch_repo` (on a snapshot of its stored rows) then `write_fetch`: the
    code path the Dask fan-out (`shu.flows.ingest`) splits between workers and the flow.

    One bad repository never sinks the others: when a repository's response is malformed or
    keeps failing, its failed step is rolled back (and logged 'failed' in `ingest_log`), the
    reason is kept in `summary.failed` and the next repository is loaded.

    Raises GitHubError (a SourceError) with a one-line message when GitHub is unreachable or
    rejects the credentials, RateLimited when the rate limit outlasts `github_max_wait_s`. Steps
    already finished stay committed; the failed step is rolled back.
    """
    client = client or client_for(store, settings)
    today = today or utcnow().date()
    summary = IngestSummary()
    names = list(repos) if repos is not None else [r.repo for r in settings.repos]
    for requested in names:
        snapshot = read_snapshot(store, current_name(store, settings, requested))
        write_fetch(
            store, fetch_repo(snapshot, settings, backfill, today, client, progress), summary
        )
    return summary


@dataclass
class RepoFetch:
    """What `fetch_repo` brought back for one repository: plain, picklable data (no token)."""

    requested: str  # the name fetched (aliases folded); `repo` differs after a rename
    repo: str
    journal: list[LoadRecord]
    summary: IngestSummary
    fatal: BaseException | None = None


def fetch_repo(
    snapshot: RepoSnapshot,
    settings: Settings,
    backfill: bool,
    today: date,
    client: GitHubClient | None = None,
    progress: Callable[[str, str], None] | None = None,
) -> RepoFetch:
    """Run one repository's four steps against a scratch copy of its `snapshot`; no store.

    The client defaults to one from `settings` (a worker's settings read GITHUB_TOKEN from its
    own environment). A given client's `StoreValidatorCache` is pointed at the scratch store for
    the fetch, so the ETags it keeps are journaled with the step that received them. A failure
    that must stop the whole run (see `_fatal`) ends the fetch and is returned in `fatal`.
    """
    scratch = ScratchStore(snapshot)
    client = client or client_for(scratch, settings)
    cache = client.cache
    if isinstance(cache, StoreValidatorCache):
        client.cache = StoreValidatorCache(scratch)
    before = RequestStats(**{k: v for k, v in vars(client.stats).items() if k != "by_status"})
    summary = IngestSummary()
    ingest = RepoSteps(scratch, settings, client, summary, snapshot.repo, backfill, today)
    fatal = None
    step = STEPS[0]
    try:
        for step in STEPS:
            if not ingest.run(step):
                break
            if progress:
                progress(ingest.repo, step)
        else:
            summary.repos.append(ingest.repo)
    except Exception as exc:
        if _fatal(exc, client):
            fatal = exc
        else:  # rolled back and logged 'failed' (in the journal); the others go on
            summary.failed[ingest.repo] = f"{step}: {_one_line(exc)}"
    finally:
        client.cache = cache
        stats = client.stats
        summary.requests = stats.requests - before.requests
        summary.not_modified = stats.not_modified - before.not_modified
        summary.retries = stats.retries - before.retries
        summary.rate_limit_waits = stats.rate_limit_waits - before.rate_limit_waits
        summary.rate_remaining, summary.rate_limit = stats.rate_remaining, stats.rate_limit
        summary.rate_reset = stats.rate_reset
        scratch.close()
    return RepoFetch(snapshot.repo, ingest.repo, scratch.journal, summary, fatal)


def write_fetch(store: Store, fetched: RepoFetch, summary: IngestSummary) -> None:
    """The single writer: apply a fetch's loads to `store` (each its own transaction and
    `ingest_log` row) and add its outcome to `summary`; then raise its fatal error, if any."""
    part = fetched.summary
    try:
        for record in fetched.journal:
            replay(store, record, summary.add)
    finally:
        summary.repos += part.repos
        summary.renamed.update(part.renamed)
        summary.notes += part.notes
        summary.failed.update(part.failed)
        summary.requests += part.requests
        summary.not_modified += part.not_modified
        summary.retries += part.retries
        summary.rate_limit_waits += part.rate_limit_waits
        if part.rate_remaining is not None:
            summary.rate_remaining, summary.rate_limit = part.rate_remaining, part.rate_limit
            summary.rate_reset = part.rate_reset
    if fetched.fatal is not None:
        raise fetched.fatal


def _fatal(exc: Exception, client: GitHubClient) -> bool:
    """Whether a repository's failure must stop the whole run rather than be isolated: the rate
    limit (it applies to every repository), rejected credentials (HTTP 401), GitHub never having
    answered at all (unreachable), or the store itself failing."""
    if isinstance(exc, RateLimited | StoreError | duckdb.IOException):
        return True
    if isinstance(exc, GitHubError) and exc.status == 401:
        return True
    return isinstance(exc, GitHubError) and not client.stats.by_status


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:500] if text else type(exc).__name__


def current_name(store: Store, settings: Settings, repo: str) -> str:
    """`repo` with settings' and the store's aliases folded (its name after renames)."""
    repo = settings.canonical(repo)
    row = store.con.execute(
        "SELECT repo FROM repo_aliases WHERE lower(alias) = lower(?)", [repo]
    ).fetchall()
    return row[0][0] if row else repo
