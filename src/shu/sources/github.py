"""A GitHub REST client that is polite, resumable and never leaks its token.

What it does for every GET:
- builds the URL from a base (`settings.github_api_url` / `SHU_GITHUB_API_URL`; GitHub
  Enterprise is `https://HOST/api/v3`) and sends `Authorization: Bearer <GITHUB_TOKEN>` when a
  token is given, a `User-Agent`, `Accept` and `X-GitHub-Api-Version`;
- sends `If-None-Match` / `If-Modified-Since` from a validator cache (the store's `http_cache`
  table in production) and reports `304 Not Modified` as "unchanged"; 200 responses refresh the
  cache (inside the caller's transaction, so a rolled-back load forgets its validators too);
- on 403/429 rate limiting waits `retry-after` seconds, or until `x-ratelimit-reset` when
  `x-ratelimit-remaining` is 0, or 60 s doubling for a secondary limit, as long as the total
  wait stays within `max_wait_s`; beyond that it raises `RateLimited` saying when to retry;
- retries 5xx, connection errors, timeouts, truncated bodies and malformed JSON with exponential
  backoff and jitter (`retries` extra attempts), then raises `GitHubError` in one line; a host
  name that does not resolve (offline, or a mistyped URL) is not retried: `GitHubError` at once;
- retries `202 Accepted` (statistics still being computed) the same way and, if still not
  ready, returns the 202 so the caller can skip and try on the next run;
- follows 301/302/307/308 (repository renames and transfers) on the same host only and records
  each redirect in `redirects`;
- parses `Link` headers for paging and keeps request, 304 and rate-limit counters in `stats`.

Sleeping, the clock, jitter and the HTTP session are injected, so tests run the real client
against a local server (`shu.testing.github_server`) without waiting.

Why one module of ~500 lines: it is one class whose retry, validator-cache, rate-limit and
redirect rules all act on the same request loop.
"""

from __future__ import annotations

import json
import logging
import random
import socket
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol
from urllib.parse import urlencode, urljoin, urlsplit

import pandas as pd
import requests
from requests.utils import parse_header_links

from shu.errors import GitHubError, RateLimited
from shu.store import Store, utcnow

log = logging.getLogger("shu.github")

API_VERSION = "2026-03-10"
USER_AGENT = "shu/0.1 (+https://github.com/shu-forecasts; ML-framework briefing)"
ACCEPT_JSON = "application/vnd.github+json"
ACCEPT_STAR = "application/vnd.github.star+json"
SECONDARY_LIMIT_WAIT_S = 60.0
MAX_BACKOFF_S = 60.0
MAX_REDIRECTS = 5
MAX_PAGES = 20_000  # 2 million items at 100 a page: beyond any listing shu reads
# what a rate-limit stop adds when no token was sent (the unauthenticated limit is why)
NO_TOKEN_HINT = (
    "; no GITHUB_TOKEN is set: GitHub allows 60 requests an hour without one, 5,000 with one "
    "(a backfill of large histories needs one: README, 'What the backfill costs')"
)


class ValidatorCache(Protocol):
    """Where ETag / Last-Modified validators live between runs."""

    def get(self, url: str) -> tuple[str | None, str | None] | None: ...

    def put(self, url: str, etag: str | None, last_modified: str | None) -> None: ...


class MemoryValidatorCache:
    """Validators kept in a dict (one process only)."""

    def __init__(self) -> None:
        self.entries: dict[str, tuple[str | None, str | None]] = {}

    def get(self, url: str) -> tuple[str | None, str | None] | None:
        return self.entries.get(url)

    def put(self, url: str, etag: str | None, last_modified: str | None) -> None:
        self.entries[url] = (etag, last_modified)


class StoreValidatorCache:
    """Validators in the store's `http_cache` table (written in the caller's transaction)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def get(self, url: str) -> tuple[str | None, str | None] | None:
        rows = self.store.con.execute(
            "SELECT etag, last_modified FROM http_cache WHERE url = ?", [url]
        ).fetchall()
        return (rows[0][0], rows[0][1]) if rows else None

    def put(self, url: str, etag: str | None, last_modified: str | None) -> None:
        self.store.upsert(
            "http_cache",
            pd.DataFrame(
                {
                    "url": [url],
                    "etag": [etag],
                    "last_modified": [last_modified],
                    "fetched_at": [utcnow()],
                }
            ),
        )


@dataclass
class Response:
    """One final response (after retries and redirects); `url` never carries credentials."""

    url: str
    status: int
    data: Any
    headers: Mapping[str, str]

    @property
    def not_modified(self) -> bool:
        return self.status == 304

    @property
    def not_ready(self) -> bool:
        """202: GitHub is still computing the answer; try again later."""
        return self.status == 202

    @property
    def next_url(self) -> str | None:
        """The `rel="next"` page from the Link header, if any."""
        for link in parse_header_links(self.headers.get("Link", "") or ""):
            if link.get("rel") == "next":
                return link.get("url")
        return None


@dataclass
class RequestStats:
    """Counters over the client's life: what it cost and what budget is left."""

    requests: int = 0
    not_modified: int = 0
    retries: int = 0
    rate_limit_waits: int = 0
    waited_s: float = 0.0
    rate_limit: int | None = None
    rate_remaining: int | None = None
    rate_reset: float | None = None
    by_status: dict[int, int] = field(default_factory=dict)


class _Transient(Exception):
    """A failure worth retrying (5xx, connection, timeout, truncated body, bad JSON)."""


class GitHubClient:
    """GET requests against the GitHub REST API; see the module docstring for the behaviour.

    Args:
        base_url: API root, e.g. https://api.github.com or http://127.0.0.1:PORT.
        token: a GitHub token or None; it is sent only to `base_url`'s host and never logged.
        session: the requests.Session to use (a fresh one by default).
        cache: validator cache (in-memory by default; `StoreValidatorCache` in production).
        sleep, clock, jitter: injected `time.sleep`, `time.time` and `random.random`.
        max_wait_s: most seconds the client may spend waiting on rate limits in total.
        timeout_s: per-request connect/read timeout.
        retries: extra attempts on 5xx, connection errors, timeouts, bad bodies and 202.
        backoff_s: first backoff delay; doubles per attempt (with jitter, capped at 60 s).
    """

    def __init__(
        self,
        base_url: str = "https://api.github.com",
        token: str | None = None,
        *,
        session: requests.Session | None = None,
        cache: ValidatorCache | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        jitter: Callable[[], float] = random.random,
        max_wait_s: float = 900.0,
        timeout_s: float = 30.0,
        retries: int = 4,
        backoff_s: float = 1.0,
        api_version: str = API_VERSION,
        user_agent: str = USER_AGENT,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._origin = _origin(self.base_url)
        self._token = token or None
        self.session = session or requests.Session()
        self.cache: ValidatorCache = cache if cache is not None else MemoryValidatorCache()
        self.sleep = sleep
        self.clock = clock
        self.jitter = jitter
        self.max_wait_s = max_wait_s
        self.timeout_s = timeout_s
        self.retries = retries
        self.backoff_s = backoff_s
        self.api_version = api_version
        self.user_agent = user_agent
        self.stats = RequestStats()
        self.redirects: list[tuple[str, str]] = []

    @classmethod
    def from_settings(cls, settings: Any, **overrides: Any) -> GitHubClient:
        """A client configured from `Settings` (URL, token, timeout, retries, max wait)."""
        token = settings.github_token.get_secret_value() if settings.github_token else None
        kwargs: dict[str, Any] = {
            "token": token,
            "max_wait_s": settings.github_max_wait_s,
            "timeout_s": settings.github_timeout_s,
            "retries": settings.github_retries,
        }
        kwargs.update(overrides)
        return cls(settings.github_api_url, **kwargs)

    def __repr__(self) -> str:
        return f"GitHubClient({self.base_url!r}, token={'set' if self._token else 'none'})"

    # ------------------------------------------------------------------ requests
    def url(self, path: str, params: Mapping[str, Any] | None = None) -> str:
        """Absolute URL of `path` (or an absolute URL) with `params` in a stable order."""
        url = path if path.startswith(("http://", "https://")) else self.base_url + path
        if params:
            query = urlencode(sorted((k, str(v)) for k, v in params.items() if v is not None))
            url += ("&" if "?" in url else "?") + query
        return url

    def seen(self, path: str, params: Mapping[str, Any] | None = None) -> bool:
        """True when validators for this URL are cached, i.e. a 200 for it was kept."""
        return self.cache.get(_display(self.url(path, params))) is not None

    def get(
        self,
        path: str,
        params: Mapping[str, Any] | None = None,
        *,
        accept: str = ACCEPT_JSON,
        conditional: bool = True,
        allow: tuple[int, ...] = (),
    ) -> Response:
        """GET `path` (relative to the base URL, or an absolute next-page URL).

        Returns the response for 2xx, 304 and any status in `allow` (e.g. 404 when absence is
        an answer). Raises RateLimited when the rate limit outlasts the allowed wait, and
        GitHubError for other failures, after retries. Messages never contain the token.
        """
        url = self.url(path, params)
        attempt = 0
        redirects = 0
        while True:
            self._respect_exhausted_budget(url)
            try:
                resp = self._send(url, accept, conditional)
            except _Transient as exc:
                attempt = self._backoff_or_raise(url, attempt, str(exc))
                continue
            status = resp.status_code
            if status in (301, 302, 307, 308) and redirects < MAX_REDIRECTS:
                url = self._follow(url, resp)
                redirects += 1
                continue
            if status in (403, 429):
                wait = self._rate_limit_wait(resp)
                if wait is not None:
                    self._wait_for_rate_limit(url, wait)
                    continue
            if status >= 500:
                attempt = self._backoff_or_raise(url, attempt, f"HTTP {status}")
                continue
            if status == 304:
                self.stats.not_modified += 1
                return Response(_display(url), 304, None, resp.headers)
            if status == 202:
                if attempt < self.retries:
                    attempt = self._backoff_or_raise(url, attempt, "202 not ready")
                    continue
                return Response(_display(url), 202, None, resp.headers)
            if status in allow:
                return Response(_display(url), status, _json_or_none(resp), resp.headers)
            if not 200 <= status < 300:
                raise GitHubError(
                    f"GitHub GET {_display(url)}: {_describe_failure(resp)}", status=status
                )
            try:
                data = json.loads(resp.content) if resp.content.strip() else None
            except ValueError:
                attempt = self._backoff_or_raise(url, attempt, "malformed JSON in the response")
                continue
            etag, modified = resp.headers.get("ETag"), resp.headers.get("Last-Modified")
            if etag or modified:
                self.cache.put(_display(url), etag, modified)
            return Response(_display(url), status, data, resp.headers)

    def pages(
        self,
        path: str,
        params: Mapping[str, Any] | None = None,
        *,
        accept: str = ACCEPT_JSON,
        conditional: bool = True,
        allow: tuple[int, ...] = (),
    ) -> Iterator[Response]:
        """Each page of a listing, following `Link: rel="next"`; stops after a 304/202 page.

        A `Link` header that leads back to a page already read, or to a page whose items repeat
        the previous page's, or past `MAX_PAGES`, raises GitHubError instead of looping."""
        response = self.get(path, params, accept=accept, conditional=conditional, allow=allow)
        yield response
        seen = {response.url}
        while response.status == 200 and response.next_url:
            previous = response
            target = response.next_url
            if _display(target) in seen or len(seen) >= MAX_PAGES:
                raise GitHubError(
                    f"GitHub GET {previous.url}: the Link header loops (next page "
                    f"{_display(target)} after {len(seen)} pages); stopped"
                )
            response = self.get(target, accept=accept, conditional=conditional, allow=allow)
            if response.status == 200 and response.data and response.data == previous.data:
                raise GitHubError(
                    f"GitHub GET {response.url}: the Link header loops (this page "
                    "repeats the previous one); stopped"
                )
            seen.add(response.url)
            yield response

    # ------------------------------------------------------------------ internals
    def _send(self, url: str, accept: str, conditional: bool) -> requests.Response:
        headers = {
            "Accept": accept,
            "User-Agent": self.user_agent,
            "X-GitHub-Api-Version": self.api_version,
        }
        if self._token and _origin(url) == self._origin:
            headers["Authorization"] = f"Bearer {self._token}"
        if conditional:
            validators = self.cache.get(_display(url))
            if validators:
                etag, modified = validators
                if etag:
                    headers["If-None-Match"] = etag
                if modified:
                    headers["If-Modified-Since"] = modified
        self.stats.requests += 1
        try:
            resp = self.session.get(
                url, headers=headers, timeout=self.timeout_s, allow_redirects=False
            )
        except requests.Timeout as exc:
            raise _Transient(f"timed out after {self.timeout_s:g}s") from exc
        except requests.RequestException as exc:
            if _unresolved(exc):  # offline or a wrong host: another try cannot help
                host = urlsplit(url).hostname or url
                raise GitHubError(
                    f"GitHub GET {_display(url)}: host name {host} not resolved (offline? "
                    "SHU_GITHUB_API_URL names the API); not retried"
                ) from None
            raise _Transient(_connection_reason(exc)) from exc
        self.stats.by_status[resp.status_code] = self.stats.by_status.get(resp.status_code, 0) + 1
        self._note_rate(resp.headers)
        log.debug("GET %s -> %s", _display(url), resp.status_code)
        return resp

    def _note_rate(self, headers: Mapping[str, str]) -> None:
        for attr, name in (
            ("rate_limit", "x-ratelimit-limit"),
            ("rate_remaining", "x-ratelimit-remaining"),
            ("rate_reset", "x-ratelimit-reset"),
        ):
            value = headers.get(name)
            if value is not None and value.strip().lstrip("-").isdigit():
                setattr(self.stats, attr, int(value) if attr != "rate_reset" else float(value))

    def _follow(self, url: str, resp: requests.Response) -> str:
        location = resp.headers.get("Location")
        if not location:
            raise GitHubError(
                f"GitHub GET {_display(url)}: HTTP {resp.status_code} without a Location header"
            )
        target = urljoin(url, location)
        if _origin(target) != self._origin:
            raise GitHubError(
                f"GitHub GET {_display(url)}: redirected off the API host to "
                f"{_display(target)}; not followed"
            )
        log.info("GitHub redirect %s -> %s", _display(url), _display(target))
        self.redirects.append((url, target))
        return target

    def _rate_limit_wait(self, resp: requests.Response) -> float | None:
        """Seconds to wait for a rate-limited 403/429, or None when it is not a rate limit."""
        retry_after = resp.headers.get("retry-after")
        if retry_after is not None:
            try:
                return max(float(retry_after), 0.0)
            except ValueError:
                return SECONDARY_LIMIT_WAIT_S
        if resp.headers.get("x-ratelimit-remaining") == "0":
            reset = resp.headers.get("x-ratelimit-reset")
            if reset and reset.isdigit():
                return max(float(reset) - self.clock(), 0.0) + 1.0
            return SECONDARY_LIMIT_WAIT_S
        body = (_json_or_none(resp) or {}) if resp.status_code in (403, 429) else {}
        message = str(body.get("message", "")).lower() if isinstance(body, dict) else ""
        if resp.status_code == 429 or "rate limit" in message:
            return SECONDARY_LIMIT_WAIT_S * 2 ** min(self.stats.rate_limit_waits, 4)
        return None

    def _wait_for_rate_limit(self, url: str, wait: float) -> None:
        if self.stats.waited_s + wait > self.max_wait_s:
            retry_at = self.clock() + wait
            hint = "" if self._token else NO_TOKEN_HINT
            raise RateLimited(
                f"GitHub rate limit reached on {_display(url)}: retry after "
                f"{_iso(retry_at)} (a {wait:.0f}s wait exceeds github_max_wait_s="
                f"{self.max_wait_s:g}s){hint}",
                retry_at=retry_at,
            )
        log.warning("GitHub rate limit on %s: waiting %.0fs", _display(url), wait)
        self.stats.rate_limit_waits += 1
        self.stats.waited_s += wait
        self.sleep(wait)
        self.stats.rate_remaining = None

    def _respect_exhausted_budget(self, url: str) -> None:
        """When the last response said 0 requests remain, wait for the reset before sending."""
        if self.stats.rate_remaining != 0 or self.stats.rate_reset is None:
            return
        wait = self.stats.rate_reset - self.clock() + 1.0
        if wait > 0:
            self._wait_for_rate_limit(url, wait)

    def _backoff_or_raise(self, url: str, attempt: int, reason: str) -> int:
        if attempt >= self.retries:
            raise GitHubError(
                f"GitHub GET {_display(url)} failed after {attempt + 1} "
                f"attempt{'s' if attempt else ''}: {reason}"
            )
        delay = min(MAX_BACKOFF_S, self.backoff_s * 2**attempt) * (0.5 + 0.5 * self.jitter())
        log.warning("GitHub GET %s: %s; retrying in %.1fs", _display(url), reason, delay)
        self.stats.retries += 1
        self.sleep(delay)
        return attempt + 1


def _origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port): where a URL points, whatever credentials it carries."""
    parts = urlsplit(url)
    return parts.scheme, (parts.hostname or "").lower(), parts.port


def _display(url: str) -> str:
    """The URL without any userinfo (credentials never appear in messages)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    query = f"?{parts.query}" if parts.query else ""
    return f"{parts.scheme}://{host}{parts.path}{query}"


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _json_or_none(resp: requests.Response) -> Any:
    try:
        return json.loads(resp.content) if resp.content else None
    except ValueError:
        return None


def _describe_failure(resp: requests.Response) -> str:
    body = _json_or_none(resp)
    message = body.get("message", "") if isinstance(body, dict) else ""
    message = " ".join(str(message).split())[:160]
    hint = " (check GITHUB_TOKEN)" if resp.status_code == 401 else ""
    return f"HTTP {resp.status_code}" + (f" {message}" if message else "") + hint


def _unresolved(exc: BaseException) -> bool:
    """Whether a request failed because the host name did not resolve (DNS), anywhere in the
    chain requests -> urllib3 -> socket."""
    seen: set[int] = set()
    todo: list[object] = [exc]
    while todo:
        e = todo.pop()
        if not isinstance(e, BaseException) or id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, socket.gaierror) or type(e).__name__ == "NameResolutionError":
            return True
        todo += [e.__cause__, e.__context__, getattr(e, "reason", None), *e.args]
    return False


def _connection_reason(exc: requests.RequestException) -> str:
    text = str(exc).lower()
    if "refused" in text:
        return "connection refused"
    if isinstance(exc, requests.exceptions.ChunkedEncodingError) or "incomplete" in text:
        return "truncated response body"
    if "name or service" in text or "nodename" in text or "resolve" in text:
        return "host name not resolved"
    return f"connection error ({type(exc).__name__})"
