"""Downloads GH Archive hourly files for a date range, with the GitHub client's retry rules.

`download_range(settings, start, end)` fetches `{gharchive_url}/YYYY-MM-DD-H.json.gz` for every
hour of [start, end] into `settings.gharchive_dir` (base URL injectable: `SHU_GHARCHIVE_URL`, so
tests use a local server). Like `shu.sources.github.GitHubClient`:

- 5xx, connection errors, timeouts and truncated bodies are retried `github_retries` times with
  exponential backoff and jitter (capped at 60 s), then reported in one line;
- 403/429 with `Retry-After` (or 429 alone) wait, as long as the total wait stays within
  `github_max_wait_s`; beyond that it stops and says when to retry;
- resume: a finished file is never fetched again; a partial download (`.part`) continues with a
  `Range` request (a server that ignores it sends the whole file, which replaces the part); a
  file is kept only when its size matches `Content-Length`;
- 404 means the hour is not published (yet): reported, not an error.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path

import requests

from shu.errors import SourceError
from shu.settings import Settings
from shu.sources.github import MAX_BACKOFF_S, SECONDARY_LIMIT_WAIT_S, USER_AGENT

CHUNK = 1 << 16
RATE_LIMITED = -1  # _try waited out a rate limit; ask again without counting an attempt


@dataclass
class DownloadSummary:
    """What `download_range` did; `paths` are every file of the range present on disk."""

    paths: list[Path] = field(default_factory=list)
    downloaded: int = 0
    already_there: int = 0
    missing: list[str] = field(default_factory=list)
    retries: int = 0
    bytes: int = 0

    def line(self) -> str:
        text = (
            f"{self.downloaded} hourly files downloaded ({self.bytes / 1e6:,.1f} MB), "
            f"{self.already_there} already there, {self.retries} retries"
        )
        if self.missing:
            text += f"; not published: {', '.join(self.missing[:5])}"
            text += f" and {len(self.missing) - 5} more" if len(self.missing) > 5 else ""
        return text


class _Transient(Exception):
    """A failure worth retrying."""


def hours(start: date, end: date) -> list[datetime]:
    """Every hour from start 00:00 to end 23:00 UTC (naive)."""
    if end < start:
        raise SourceError(f"--to {end} is before --from {start}")
    first = datetime(start.year, start.month, start.day)
    return [first + timedelta(hours=h) for h in range(((end - start).days + 1) * 24)]


def file_name(hour: datetime) -> str:
    """GH Archive's file name for an hour (hour not zero-padded)."""
    return f"{hour:%Y-%m-%d}-{hour.hour}.json.gz"


def download_range(
    settings: Settings,
    start: date,
    end: date,
    dest: Path | None = None,
    *,
    session: requests.Session | None = None,
    sleep: Callable[[float], None] = time.sleep,
    jitter: Callable[[], float] = random.random,
    backoff_s: float = 1.0,
    progress: Callable[[int, int], None] | None = None,
) -> DownloadSummary:
    """Fetch every hourly file of [start, end] that is not on disk yet; see the module docstring.

    Raises SourceError in one line when a file keeps failing or a rate limit outlasts
    `github_max_wait_s` (files finished before stay on disk, so a re-run resumes).
    """
    dest = Path(dest or settings.gharchive_dir)
    dest.mkdir(parents=True, exist_ok=True)
    fetcher = _Fetcher(settings, session or requests.Session(), sleep, jitter, backoff_s)
    summary = DownloadSummary()
    todo = hours(start, end)
    for i, hour in enumerate(todo, start=1):
        name = file_name(hour)
        path = dest / name
        if path.exists():
            summary.already_there += 1
            summary.paths.append(path)
        elif fetcher.fetch(f"{settings.gharchive_url.rstrip('/')}/{name}", path):
            summary.downloaded += 1
            summary.bytes += path.stat().st_size
            summary.paths.append(path)
        else:
            summary.missing.append(name)
        if progress:
            progress(i, len(todo))
    summary.retries = fetcher.retries
    return summary


class _Fetcher:
    """One file at a time, with retries, rate-limit waits and resume."""

    def __init__(
        self,
        settings: Settings,
        session: requests.Session,
        sleep: Callable[[float], None],
        jitter: Callable[[], float],
        backoff_s: float,
    ) -> None:
        self.session = session
        self.sleep = sleep
        self.jitter = jitter
        self.backoff_s = backoff_s
        self.max_retries = settings.github_retries
        self.max_wait_s = settings.github_max_wait_s
        self.timeout_s = settings.github_timeout_s
        self.retries = 0
        self.waited_s = 0.0

    def fetch(self, url: str, path: Path) -> bool:
        """Download `url` to `path`; False when it is not published (404)."""
        part = path.with_name(path.name + ".part")
        attempt = 0
        while True:
            try:
                status = self._try(url, part)
            except _Transient as exc:
                attempt = self._backoff(url, attempt, str(exc))
                continue
            if status == RATE_LIMITED:
                continue
            if status == 404:
                part.unlink(missing_ok=True)
                return False
            part.replace(path)
            return True

    def _try(self, url: str, part: Path) -> int:
        have = part.stat().st_size if part.exists() else 0
        headers = {"User-Agent": USER_AGENT}
        if have:
            headers["Range"] = f"bytes={have}-"
        try:
            resp = self.session.get(url, headers=headers, timeout=self.timeout_s, stream=True)
        except requests.Timeout as exc:
            raise _Transient(f"timed out after {self.timeout_s:g}s") from exc
        except requests.RequestException as exc:
            raise _Transient(f"connection error ({type(exc).__name__})") from exc
        with resp:
            status = resp.status_code
            if status == 404:
                return 404
            if status in (403, 429):
                self._rate_limited(url, resp)
                return RATE_LIMITED
            if status == 416 and have:  # the part is already whole
                return 200
            if status >= 500:
                raise _Transient(f"HTTP {status}")
            if status not in (200, 206):
                raise SourceError(f"GH Archive GET {url}: HTTP {status}")
            mode = "ab" if status == 206 else "wb"
            expected = resp.headers.get("Content-Length")
            written = 0
            try:
                with part.open(mode) as fh:
                    for chunk in resp.iter_content(CHUNK):
                        fh.write(chunk)
                        written += len(chunk)
            except requests.RequestException as exc:
                raise _Transient("truncated response body") from exc
            if expected is not None and written != int(expected):
                raise _Transient(f"truncated response body ({written} of {expected} bytes)")
            return status

    def _rate_limited(self, url: str, resp: requests.Response) -> None:
        retry_after = resp.headers.get("Retry-After")
        if retry_after is None and resp.status_code == 403:
            raise SourceError(f"GH Archive GET {url}: HTTP 403 (forbidden)")
        try:
            wait = max(float(retry_after), 0.0) if retry_after else SECONDARY_LIMIT_WAIT_S
        except ValueError:
            wait = SECONDARY_LIMIT_WAIT_S
        if self.waited_s + wait > self.max_wait_s:
            raise SourceError(
                f"GH Archive rate limit on {url}: retry in {wait:.0f}s (exceeds "
                f"github_max_wait_s={self.max_wait_s:g}s); a re-run resumes"
            )
        self.waited_s += wait
        self.sleep(wait)

    def _backoff(self, url: str, attempt: int, reason: str) -> int:
        if attempt >= self.max_retries:
            raise SourceError(
                f"GH Archive GET {url} failed after {attempt + 1} attempts: "
                f"{reason}; a re-run resumes"
            )
        self.retries += 1
        self.sleep(min(MAX_BACKOFF_S, self.backoff_s * 2**attempt) * (0.5 + 0.5 * self.jitter()))
        return attempt + 1
