"""A small local HTTP server that speaks the parts of the GitHub REST API shu reads.

HTTP, paging, ETags, rate-limit headers, renames and fault injection live here; the records it
serves and their JSON shapes live in `shu.testing.github_records` (re-exported here).

Tests run the real `GitHubClient` against it, and `shu demo` serves its generated sample through
it, so no code path is faked. It listens on 127.0.0.1 only.

Data (in memory, mutable while serving)::

    from datetime import date, datetime
    from shu.testing.github_server import (
        CommitRecord, GitHubAPIServer, ReleaseRecord, RepoRecord)

    repo = RepoRecord(
        full_name="acme/rocket", repo_id=101, default_branch="main",
        created_at=datetime(2024, 1, 1),            # naive datetimes are UTC
        forks=10, open_issues=3, watchers=7, description="…", language="Python",
        star_counts=[(date(2024, 1, 1), 0), (date(2024, 3, 1), 120)],  # cumulative, by day
        commits=[CommitRecord(sha="a" * 40, authored_at=…, committed_at=…,
                              author_name="Ada", author_email="ada@example.com",
                              message="Add rocket\\n\\nbody", parents=[])],
        releases=[ReleaseRecord(tag="v1.0.0", published_at=…, name="1.0", body="notes")])
    with GitHubAPIServer([repo]) as server:   # started on a free port
        client = GitHubClient(server.url)
        ...
        server.requests                        # every request, Authorization redacted
        server.fail("server_error", match="/commits", times=2)   # fault injection
        server.rename("acme/rocket", "acme/rocket-ng")           # 301 for the old name
        server.add_commits("acme/rocket", [...]); server.set_stars("acme/rocket", day, n)

Endpoints (GitHub's documented JSON shapes; names are case-insensitive; every one also under
`/repositories/{id}`):

- `GET /repos/{o}/{r}`: id, full_name, default_branch, stargazers_count, forks_count,
  open_issues_count, subscribers_count, watchers_count, description, language, created_at, …
- `GET /repos/{o}/{r}/stargazers/history?per_page&page`: weekly rows `{week, total, days[7]}`
  (`week` = epoch seconds of the Sunday 00:00 UTC that starts it, `days` Sunday first),
  newest week first, `per_page` at most 30. Stars still held, grouped by the day given: the
  daily gains of the running maximum of `star_counts`; stars present on the first listed day
  are spread evenly from `created_at` up to it.
- `GET /repos/{o}/{r}/stargazers?per_page&page` with `Accept: application/vnd.github.star+json`:
  `{starred_at, user}` oldest first (plain `[user]` otherwise); pages beyond 400 answer 422.
  404 when `stargazers_available` is False (the 2026 access restriction).
- `GET /repos/{o}/{r}/commits?sha&since&until&per_page&page`: newest committer date first,
  `per_page` at most 100.
- `GET /repos/{o}/{r}/releases?per_page&page`: newest first, drafts included (as for a token
  with push access).

Every 200 carries a weak `ETag` over body and Link; a matching `If-None-Match` gets `304` (which,
as on GitHub with a token, does not spend the rate budget). Listings carry `Link` headers
(first/prev/next/last). Every response carries `x-ratelimit-limit/remaining/used/reset/resource`.

Run `python -m shu.testing.github_server --port 8765` to serve the small synthetic dataset, its
series ending today (`--end DATE` for another day), so `shu daily` against it needs no `--as-of`.

Faults (`server.fail(kind, match=substring of path?query, times=N or None for always)`):
`rate_limit` (403 with x-ratelimit-remaining 0 and a reset `reset_in` seconds ahead; status=429
and/or `retry_after` seconds also possible), `server_error` (status, default 502), `accepted`
(202 with an empty body), `malformed_json` (200 with invalid JSON), `truncated` (Content-Length
larger than the body sent, then the connection closes), `slow` (sleeps `delay` seconds first),
`status` (any status with a GitHub-style error body), `not_found`, `secondary_limit` (403 "You
have exceeded a secondary rate limit" with no rate-limit or retry-after headers at all),
`link_loop` (the real answer, but its `Link` header always offers a next page: the same URL for
`status=0`, else `page=N+1` serving the same items, endlessly).
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from shu.testing.github_records import (
    CommitRecord,
    ReleaseRecord,
    RepoRecord,
    commit_json,
    daily_added,
    history_weeks,
    parse_iso,
    release_json,
    repo_json,
    stargazers,
)

__all__ = [
    "CommitRecord",
    "Fault",
    "GitHubAPIServer",
    "RecordedRequest",
    "ReleaseRecord",
    "RepoRecord",
    "main",
]

HISTORY_MAX_PER_PAGE = 30
LIST_MAX_PER_PAGE = 100
STARGAZERS_MAX_PAGE = 400
RATE_LIMIT = 5000


@dataclass
class RecordedRequest:
    """A request as the server saw it (the Authorization value is never kept)."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    status: int = 0

    @property
    def conditional(self) -> bool:
        return "if-none-match" in self.headers or "if-modified-since" in self.headers


@dataclass
class Fault:
    """An injected failure; `times` None means every matching request."""

    kind: str
    match: str = ""
    times: int | None = 1
    status: int | None = None
    retry_after: float | None = None
    reset_in: float | None = None
    delay: float = 0.0


class GitHubAPIServer:
    """The local GitHub API (see the module docstring). Use as a context manager or
    call start()/stop()."""

    def __init__(
        self,
        repos: Iterable[RepoRecord] = (),
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        rate_limit: int = RATE_LIMIT,
    ) -> None:
        self._lock = threading.RLock()
        self._repos: dict[str, RepoRecord] = {}
        self._renames: dict[str, str] = {}
        self._faults: list[Fault] = []
        self._history_cache: dict[str, tuple[list[date], list[int]]] = {}
        self.requests: list[RecordedRequest] = []
        self.rate_limit = rate_limit
        self.rate_remaining = rate_limit
        self.rate_reset = int(time.time()) + 3600
        for repo in repos:
            self.add_repo(repo)
        self._httpd = _QuietHTTPServer((host, port), _handler_for(self))
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle
    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> GitHubAPIServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.05,), daemon=True, name="github-api-server"
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> GitHubAPIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ data
    def add_repo(self, repo: RepoRecord) -> None:
        with self._lock:
            self._repos[repo.full_name.lower()] = repo
            self._history_cache.pop(repo.full_name.lower(), None)

    def repo(self, name: str) -> RepoRecord:
        return self._repos[name.lower()]

    def rename(self, old: str, new: str) -> None:
        """Rename/transfer `old` to `new`: the old name then answers 301 to /repositories/{id}."""
        with self._lock:
            repo = self._repos.pop(old.lower())
            repo.full_name = new
            self._repos[new.lower()] = repo
            self._renames[old.lower()] = new
            self._history_cache.pop(old.lower(), None)

    def add_commits(self, name: str, commits: Iterable[CommitRecord]) -> None:
        with self._lock:
            self.repo(name).commits.extend(commits)

    def add_release(self, name: str, release: ReleaseRecord) -> None:
        with self._lock:
            self.repo(name).releases.append(release)

    def set_stars(self, name: str, day: date, stars: int) -> None:
        """Record a cumulative star count for `day` (replacing one already there)."""
        with self._lock:
            repo = self.repo(name)
            counts = dict(repo.star_counts)
            counts[day] = stars
            repo.star_counts = sorted(counts.items())
            self._history_cache.pop(name.lower(), None)

    # ------------------------------------------------------------------ faults / records
    def fail(self, kind: str, *, match: str = "", times: int | None = 1, **options: Any) -> Fault:
        """Inject a fault (kinds in the module docstring) for requests whose path?query
        contains `match`; returns it (set `times = 0` to disarm)."""
        fault = Fault(kind=kind, match=match, times=times, **options)
        with self._lock:
            self._faults.append(fault)
        return fault

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def clear_requests(self) -> None:
        with self._lock:
            self.requests.clear()

    def count(self, match: str = "", status: int | None = None) -> int:
        """Requests whose path contains `match` (and answered `status`, when given)."""
        return sum(
            1 for r in self.requests if match in r.path and (status is None or r.status == status)
        )

    def _take_fault(self, target: str) -> Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.match in target and (fault.times is None or fault.times > 0):
                    if fault.times is not None:
                        fault.times -= 1
                    return fault
        return None

    # ------------------------------------------------------------------ routing
    def _resolve(self, parts: list[str]) -> tuple[RepoRecord | None, list[str], str | None]:
        """(repo, rest of the path, redirect target) for /repos/o/r/... or /repositories/id/..."""
        if len(parts) >= 3 and parts[0] == "repos":
            name = f"{parts[1]}/{parts[2]}".lower()
            if name in self._renames:
                repo = self._repos[self._renames[name].lower()]
                rest = "/".join(parts[3:])
                return None, [], f"/repositories/{repo.repo_id}" + (f"/{rest}" if rest else "")
            return self._repos.get(name), parts[3:], None
        if len(parts) >= 2 and parts[0] == "repositories" and parts[1].isdigit():
            by_id = next((r for r in self._repos.values() if r.repo_id == int(parts[1])), None)
            return by_id, parts[2:], None
        return None, [], None

    def respond(
        self, path: str, query: dict[str, str], headers: dict[str, str]
    ) -> tuple[int, dict[str, str], Any]:
        """(status, headers, JSON body or None) for a GET (without faults or ETags)."""
        parts = [p for p in path.split("/") if p]
        with self._lock:
            repo, rest, redirect = self._resolve(parts)
            if redirect:
                location = self.url + redirect + (f"?{urlencode(query)}" if query else "")
                return (
                    301,
                    {"Location": location},
                    {
                        "message": "Moved Permanently",
                        "url": location,
                        "documentation_url": "https://docs.github.com/rest/guides/best-practices-"
                        "for-using-the-rest-api#follow-redirects",
                    },
                )
            if repo is None:
                return _not_found()
            if not rest:
                return 200, {}, repo_json(repo, self.url)
            if rest == ["stargazers", "history"]:
                if not repo.stargazer_history_available:
                    return _not_found()
                return self._history(repo, path, query)
            if rest == ["stargazers"]:
                if not repo.stargazers_available:
                    return _not_found()
                star_json = "star+json" in headers.get("accept", "")
                return self._stargazers(repo, path, query, star_json)
            if rest == ["commits"]:
                return self._commits(repo, path, query)
            if rest == ["releases"]:
                items = sorted(repo.releases, key=lambda r: r.published_at, reverse=True)
                return self._page(
                    [release_json(repo, r) for r in items], path, query, LIST_MAX_PER_PAGE
                )
            return _not_found()

    def _daily_added(self, repo: RepoRecord) -> tuple[list[date], list[int]]:
        key = repo.full_name.lower()
        if key not in self._history_cache:
            self._history_cache[key] = daily_added(repo)
        return self._history_cache[key]

    def _history(
        self, repo: RepoRecord, path: str, query: dict[str, str]
    ) -> tuple[int, dict[str, str], Any]:
        return self._page(
            history_weeks(*self._daily_added(repo)), path, query, HISTORY_MAX_PER_PAGE
        )

    def _stargazers(
        self, repo: RepoRecord, path: str, query: dict[str, str], star_json: bool
    ) -> tuple[int, dict[str, str], Any]:
        page, per_page = _paging(query, LIST_MAX_PER_PAGE)
        if page > STARGAZERS_MAX_PAGE:
            return (
                422,
                {},
                {
                    "message": "In order to keep the API fast for everyone, pagination "
                    "is limited for this resource.",
                    "documentation_url": "",
                },
            )
        total, items = stargazers(
            *self._daily_added(repo), (page - 1) * per_page, page * per_page, star_json
        )
        last = max(1, -(-total // per_page))
        return 200, _link_header(self.url + path, query, page, last), items

    def _commits(
        self, repo: RepoRecord, path: str, query: dict[str, str]
    ) -> tuple[int, dict[str, str], Any]:
        branch = query.get("sha")
        if (
            branch
            and branch != repo.default_branch
            and not any(c.sha == branch for c in repo.commits)
        ):
            return 404, {}, {"message": "No commit found for SHA: " + branch}
        try:
            since = parse_iso(query["since"]) if "since" in query else None
            until = parse_iso(query["until"]) if "until" in query else None
        except ValueError:
            return 422, {}, {"message": "Invalid request: since/until must be ISO 8601"}
        items = [
            c
            for c in sorted(repo.commits, key=lambda c: c.committed_at, reverse=True)
            if (since is None or c.committed_at >= since)
            and (until is None or c.committed_at <= until)
        ]
        return self._page(
            [commit_json(repo, c, self.url) for c in items], path, query, LIST_MAX_PER_PAGE
        )

    def _page(
        self, items: list[Any], path: str, query: dict[str, str], max_per_page: int
    ) -> tuple[int, dict[str, str], Any]:
        page, per_page = _paging(query, max_per_page)
        last = max(1, -(-len(items) // per_page))
        chunk = items[(page - 1) * per_page : page * per_page]
        return 200, _link_header(self.url + path, query, page, last), chunk

    # ------------------------------------------------------------------ HTTP
    def rate_headers(self) -> dict[str, str]:
        return {
            "x-ratelimit-limit": str(self.rate_limit),
            "x-ratelimit-remaining": str(self.rate_remaining),
            "x-ratelimit-used": str(self.rate_limit - self.rate_remaining),
            "x-ratelimit-reset": str(self.rate_reset),
            "x-ratelimit-resource": "core",
        }


class _QuietHTTPServer(ThreadingHTTPServer):
    """Drops a client that went away (timed out, or its process was killed) without printing a
    traceback; any other handler error is still printed."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


def _handler_for(server: GitHubAPIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out at once (no 40 ms stalls)

        def log_message(self, format: str, *args: Any) -> None:  # silence stderr logging
            return

        def do_GET(self) -> None:
            split = urlsplit(self.path)
            query = dict(parse_qsl(split.query))
            headers = {
                k.lower(): ("<redacted>" if k.lower() == "authorization" else v)
                for k, v in self.headers.items()
            }
            record = RecordedRequest("GET", self.path, query, headers)
            with server._lock:
                server.requests.append(record)
            fault = server._take_fault(self.path)
            if fault and fault.kind == "slow":
                time.sleep(fault.delay)
                fault = None
            if fault and fault.kind != "link_loop":
                self._fault(record, fault)
                return
            status, extra, body = server.respond(
                split.path, {k: v for k, v in query.items() if not fault or k != "page"}, headers
            )
            if fault:  # link_loop: always another page
                page = 0 if fault.status == 0 else int(query.get("page", 1)) + 1
                target = (
                    server.url
                    + split.path
                    + "?"
                    + urlencode({**query, **({"page": page} if page else {})})
                )
                extra["Link"] = f'<{target}>; rel="next"'
            payload = json.dumps(body).encode() if body is not None else b""
            if status == 200:
                etag = (
                    'W/"' + hashlib.sha1(payload + extra.get("Link", "").encode()).hexdigest() + '"'
                )
                extra["ETag"] = etag
                sent = self.headers.get("If-None-Match", "")
                if etag in [t.strip() for t in sent.split(",")]:
                    self._send(record, 304, extra, b"")
                    return
            with server._lock:
                server.rate_remaining = max(0, server.rate_remaining - 1)
            self._send(record, status, extra, payload)

        def _fault(self, record: RecordedRequest, fault: Fault) -> None:
            if fault.kind == "rate_limit":
                extra = server.rate_headers()
                extra["x-ratelimit-remaining"] = "0"
                extra["x-ratelimit-used"] = str(server.rate_limit)
                extra["x-ratelimit-reset"] = str(int(time.time() + (fault.reset_in or 60)))
                if fault.retry_after is not None:
                    extra["retry-after"] = str(int(fault.retry_after))
                body = {
                    "message": "API rate limit exceeded for 127.0.0.1.",
                    "documentation_url": "https://docs.github.com/rest/overview/"
                    "rate-limits-for-the-rest-api",
                }
                self._send(
                    record, fault.status or 403, extra, json.dumps(body).encode(), rate=False
                )
            elif fault.kind == "server_error":
                self._send(record, fault.status or 502, {}, b'{"message": "Server Error"}')
            elif fault.kind == "accepted":
                self._send(record, 202, {}, b"{}")
            elif fault.kind == "malformed_json":
                self._send(record, 200, {}, b'[{"sha": "0123", "commit": {"author": ')
            elif fault.kind == "truncated":
                whole = b'[{"week": 0, "total": 0, "days": [0,0,0,0,0,0,0]}]' * 50
                record.status = 200
                self.send_response(200)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(whole)))
                self.end_headers()
                self.wfile.write(whole[: len(whole) // 2])
                self.wfile.flush()
                self.close_connection = True
            elif fault.kind == "secondary_limit":
                body = {
                    "message": "You have exceeded a secondary rate limit. Please wait a few "
                    "minutes before you try again.",
                    "documentation_url": "https://docs."
                    "github.com/rest/overview/rate-limits-for-the-rest-api",
                }
                self._send(record, 403, {}, json.dumps(body).encode(), rate=False)
            elif fault.kind == "not_found":
                status, _, body = _not_found()
                self._send(record, status, {}, json.dumps(body).encode())
            else:  # "status"
                body = {"message": f"injected HTTP {fault.status}"}
                self._send(record, fault.status or 500, {}, json.dumps(body).encode())

        def _send(
            self,
            record: RecordedRequest,
            status: int,
            extra: dict[str, str],
            payload: bytes,
            rate: bool = True,
        ) -> None:
            record.status = status
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(payload)))
                headers = {**(server.rate_headers() if rate else {}), **extra}
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                if payload:
                    self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
                self.close_connection = True

    return Handler


def _not_found() -> tuple[int, dict[str, str], Any]:
    return 404, {}, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}


def _paging(query: dict[str, str], max_per_page: int) -> tuple[int, int]:
    try:
        page = max(1, int(query.get("page", 1)))
        per_page = min(max_per_page, max(1, int(query.get("per_page", 30))))
    except ValueError:
        return 1, min(30, max_per_page)
    return page, per_page


def _link_header(base: str, query: dict[str, str], page: int, last: int) -> dict[str, str]:
    if last <= 1:
        return {}

    def link(n: int, rel: str) -> str:
        return f'<{base}?{urlencode({**query, "page": n})}>; rel="{rel}"'

    links = []
    if page > 1:
        links += [link(page - 1, "prev"), link(1, "first")]
    if page < last:
        links += [link(page + 1, "next"), link(last, "last")]
    return {"Link": ", ".join(links)} if links else {}


def main(argv: list[str] | None = None) -> None:
    """`python -m shu.testing.github_server [--port N] [--end DATE]`: serve the small synthetic
    dataset, its star counts ending on the day it is started (UTC) unless --end says another,
    until interrupted (for trying `SHU_GITHUB_API_URL=http://127.0.0.1:N shu daily` offline)."""
    import argparse
    from datetime import UTC, datetime

    from shu.testing.datasets import small_dataset

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--port", type=int, default=0, help="port (default: any free one)")
    parser.add_argument(
        "--end",
        type=date.fromisoformat,
        default=None,
        metavar="DATE",
        help="last day of the served series, YYYY-MM-DD (default: today, UTC)",
    )
    args = parser.parse_args(argv)
    end = args.end or datetime.now(UTC).date()
    with GitHubAPIServer(small_dataset(end=end), port=args.port) as server:
        print(
            f"serving the synthetic GitHub API at {server.url}, series ending {end} (Ctrl-C stops)",
            flush=True,
        )
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
