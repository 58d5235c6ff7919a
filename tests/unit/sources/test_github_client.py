"""The real GitHub client against the local GitHub API server: paging, ETags, rate limits,
retries, 202, renames, bad bodies, timeouts, and the token never leaking."""

from __future__ import annotations

import logging
import time

import pytest
import requests

from shu.errors import GitHubError, RateLimited, SourceError
from shu.sources.github import ACCEPT_STAR, GitHubClient, MemoryValidatorCache


def test_headers_paging_and_link(server, sleeps, make_client, token):
    client = make_client(server, sleeps, token=token)
    pages = list(client.pages("/repos/ollama/ollama/commits", {"per_page": 40}))
    assert [len(p.data) for p in pages] == [40, 40, 40, 30]
    shas = [c["sha"] for p in pages for c in p.data]
    assert len(set(shas)) == 150
    assert client.stats.requests == 4
    first = server.requests[0]
    assert first.headers["authorization"] == "<redacted>"  # sent, never recorded
    assert first.headers["x-github-api-version"] == "2026-03-10"
    assert first.headers["user-agent"].startswith("shu/")
    assert first.headers["accept"] == "application/vnd.github+json"
    assert "page=4" in server.requests[-1].path


def test_etag_304_and_cache(server, sleeps, make_client):
    client = make_client(server, sleeps)
    first = client.get("/repos/pytorch/pytorch")
    assert first.status == 200 and first.data["stargazers_count"] > 0
    again = client.get("/repos/pytorch/pytorch")
    assert again.not_modified and again.data is None
    assert server.requests[-1].headers["if-none-match"] == first.headers["ETag"]
    assert client.stats.not_modified == 1
    unconditional = client.get("/repos/pytorch/pytorch", conditional=False)
    assert unconditional.status == 200 and not server.requests[-1].conditional
    server.set_stars(
        "pytorch/pytorch", max(d for d, _ in server.repo("pytorch/pytorch").star_counts), 1
    )
    changed = client.get("/repos/pytorch/pytorch")
    assert changed.status == 200 and changed.data["stargazers_count"] == 1


def test_rate_limit_waits_for_reset_then_succeeds(server, sleeps, make_client):
    client = make_client(server, sleeps)
    server.fail("rate_limit", match="/repos/ollama/ollama", reset_in=120)
    response = client.get("/repos/ollama/ollama")
    assert response.status == 200
    assert len(sleeps) == 1 and 100 <= sleeps[0] <= 125
    assert client.stats.rate_limit_waits == 1
    assert server.count("/repos/ollama/ollama") == 2


def test_rate_limit_retry_after_429(server, sleeps, make_client):
    client = make_client(server, sleeps)
    server.fail("rate_limit", match="/releases", status=429, retry_after=7, reset_in=3000)
    assert client.get("/repos/ollama/ollama/releases").status == 200
    assert sleeps == [7.0]


def test_rate_limit_gives_up_and_says_when(server, sleeps, make_client):
    client = make_client(server, sleeps, max_wait_s=600)
    server.fail("rate_limit", match="/repos", reset_in=3600, times=None)
    with pytest.raises(RateLimited) as caught:
        client.get("/repos/ollama/ollama")
    assert sleeps == []  # the wait is longer than allowed: stop at once
    assert caught.value.retry_at == pytest.approx(time.time() + 3601, abs=5)
    message = str(caught.value)
    assert "retry after 20" in message and "github_max_wait_s=600" in message
    assert "\n" not in message
    assert isinstance(caught.value, SourceError)


def test_a_rate_limit_stop_names_the_missing_token_only_when_none_was_sent(
    server, sleeps, make_client
):
    server.fail("rate_limit", match="/repos", reset_in=3600, times=None)
    for token, named in ((None, True), ("ghp_test", False)):
        client = make_client(server, sleeps, max_wait_s=600, token=token)
        with pytest.raises(RateLimited) as caught:
            client.get("/repos/ollama/ollama")
        message = str(caught.value)
        assert ("GITHUB_TOKEN" in message) is named and "\n" not in message
        assert "ghp_test" not in message


def test_rate_limit_total_wait_is_bounded(server, sleeps, make_client):
    client = make_client(server, sleeps, max_wait_s=100)
    server.fail("rate_limit", match="/repos", retry_after=40, times=None)
    with pytest.raises(RateLimited):
        client.get("/repos/ollama/ollama")
    assert sleeps == [40.0, 40.0]  # a third 40 s wait would pass the 100 s budget


def test_exhausted_budget_waits_before_sending(server, sleeps, make_client):
    client = make_client(server, sleeps)
    client.get("/repos/ollama/ollama")
    server.rate_remaining, server.rate_reset = 0, int(time.time()) + 300  # budget now empty
    client.get("/repos/ollama/ollama", conditional=False)
    before = len(server.requests)
    server.rate_remaining = 100
    client.get("/repos/pytorch/pytorch")
    assert len(sleeps) == 1 and 290 < sleeps[0] < 310  # waited for the reset first
    assert len(server.requests) == before + 1


def test_5xx_retried_with_exponential_backoff(server, sleeps, make_client):
    client = make_client(server, sleeps, backoff_s=1.0)
    server.fail("server_error", match="/commits", times=3, status=503)
    response = client.get("/repos/ollama/ollama/commits")
    assert response.status == 200 and len(response.data) == 30
    assert sleeps == [0.75, 1.5, 3.0]  # 1, 2, 4 s scaled by the (fixed) jitter factor
    assert client.stats.retries == 3


def test_5xx_gives_up_with_one_line(server, sleeps, make_client):
    client = make_client(server, sleeps, retries=2)
    server.fail("server_error", match="/commits", times=None)
    with pytest.raises(GitHubError) as caught:
        client.get("/repos/ollama/ollama/commits")
    assert str(caught.value) == (
        f"GitHub GET {server.url}/repos/ollama/ollama/commits failed after 3 attempts: HTTP 502"
    )


def test_202_retried_until_ready_or_reported(server, sleeps, make_client):
    client = make_client(server, sleeps)
    server.fail("accepted", match="/stargazers/history", times=2)
    ready = client.get("/repos/ollama/ollama/stargazers/history")
    assert ready.status == 200 and len(ready.data) == 30
    server.fail("accepted", match="/stargazers/history", times=None)
    pending = client.get("/repos/ollama/ollama/stargazers/history", conditional=False)
    assert pending.not_ready and pending.data is None


def test_301_rename_is_followed_and_recorded(server, sleeps, make_client, token):
    client = make_client(server, sleeps, token=token)
    server.rename("ollama/ollama", "ollama-labs/ollama")
    response = client.get("/repos/ollama/ollama/releases", {"per_page": 2})
    assert response.status == 200 and len(response.data) == 2
    assert response.url.startswith(f"{server.url}/repositories/658928958/releases")
    assert client.redirects == [
        (f"{server.url}/repos/ollama/ollama/releases?per_page=2", response.url)
    ]
    assert server.requests[-1].headers["authorization"] == "<redacted>"


def test_redirect_off_host_is_refused(sleeps, token):
    class OffHost(requests.Session):
        def get(self, url, **kwargs):
            response = requests.Response()
            response.status_code = 301
            response.headers["Location"] = "https://evil.example/steal"
            response._content = b""
            return response

    client = GitHubClient("http://127.0.0.1:9", token=token, session=OffHost(), sleep=sleeps)
    with pytest.raises(GitHubError, match="redirected off the API host"):
        client.get("/repos/a/b")


def test_malformed_json_retried_then_fails(server, sleeps, make_client):
    client = make_client(server, sleeps, retries=1)
    server.fail("malformed_json", match="/commits", times=1)
    assert len(client.get("/repos/ollama/ollama/commits").data) == 30
    server.fail("malformed_json", match="/commits", times=None)
    with pytest.raises(GitHubError, match="malformed JSON"):
        client.get("/repos/ollama/ollama/commits", conditional=False)


def test_truncated_body_retried(server, sleeps, make_client):
    client = make_client(server, sleeps, retries=1)
    server.fail("truncated", match="/stargazers/history", times=1)
    assert len(client.get("/repos/ollama/ollama/stargazers/history").data) == 30
    server.fail("truncated", match="/stargazers/history", times=None)
    with pytest.raises(GitHubError, match="truncated response body"):
        client.get("/repos/ollama/ollama/stargazers/history", conditional=False)


def test_timeout_retried(server, sleeps, make_client):
    client = make_client(server, sleeps, timeout_s=0.5, retries=1)
    server.fail("slow", match="/releases", delay=2.0, times=1)
    assert client.get("/repos/ollama/ollama/releases").status == 200
    assert client.stats.retries == 1
    server.fail("slow", match="/releases", delay=2.0, times=2)
    with pytest.raises(GitHubError, match="timed out after 0.5s"):
        client.get("/repos/ollama/ollama/releases", conditional=False)


def test_unreachable_is_a_one_line_source_error(sleeps):
    client = GitHubClient("http://127.0.0.1:9", sleep=sleeps, retries=2)
    with pytest.raises(SourceError) as caught:
        client.get("/repos/ollama/ollama")
    assert "connection refused" in str(caught.value) and "\n" not in str(caught.value)
    assert len(sleeps) == 2


def test_a_host_that_does_not_resolve_is_not_retried(sleeps, caplog):
    """Offline (or a mistyped host): one request, no backoff, no retry warnings, one line."""
    client = GitHubClient("https://api.github.invalid", sleep=sleeps, retries=4)
    with caplog.at_level(logging.WARNING, logger="shu.github"), pytest.raises(GitHubError) as e:
        client.get("/repos/ollama/ollama")
    caught = e
    message = str(caught.value)
    assert "host name api.github.invalid not resolved" in message and "\n" not in message
    assert sleeps == [] and client.stats.requests == 1 and client.stats.retries == 0
    assert not caplog.records


def test_404_allowed_or_raised(server, sleeps, make_client):
    client = make_client(server, sleeps)
    assert client.get("/repos/nobody/nothing", allow=(404,)).status == 404
    with pytest.raises(GitHubError, match="HTTP 404 Not Found"):
        client.get("/repos/nobody/nothing")


def test_star_json_listing(server, sleeps, make_client):
    client = make_client(server, sleeps)
    page = client.get("/repos/ollama/ollama/stargazers", {"per_page": 5}, accept=ACCEPT_STAR)
    assert set(page.data[0]) == {"starred_at", "user"}
    assert server.requests[-1].headers["accept"] == ACCEPT_STAR


def test_token_never_in_logs_or_errors(server, sleeps, caplog, make_client, token):
    caplog.set_level(logging.DEBUG)
    client = make_client(server, sleeps, token=token, retries=1, max_wait_s=1)
    client.get("/repos/ollama/ollama")
    server.fail("status", match="/commits", status=401, times=None)
    server.fail("server_error", match="/releases", times=None)
    server.fail("rate_limit", match="/stargazers", reset_in=3600, times=None)
    errors = []
    for path in (
        "/repos/ollama/ollama/commits",
        "/repos/ollama/ollama/releases",
        "/repos/ollama/ollama/stargazers/history",
    ):
        with pytest.raises(GitHubError) as caught:
            client.get(path)
        errors.append(caught.value)
    assert "check GITHUB_TOKEN" in str(errors[0])
    assert caplog.text and token not in caplog.text
    for error in errors:
        assert token not in str(error) and token not in repr(error.args)
    assert token not in repr(client)
    assert all(token not in str(r.headers) for r in server.requests)
    assert isinstance(client.cache, MemoryValidatorCache)
    assert token not in repr(client.cache.entries)


def test_credentials_in_the_base_url_never_reach_messages_or_cache(server, sleeps):
    secret_url = server.url.replace("http://", "http://user:hunter2secret@")
    client = GitHubClient(secret_url, sleep=sleeps, retries=0)
    response = client.get("/repos/ollama/ollama")
    assert "hunter2secret" not in response.url
    assert all("hunter2secret" not in url for url in client.cache.entries)
    server.fail("server_error", match="/commits", times=None)
    with pytest.raises(GitHubError) as caught:
        client.get("/repos/ollama/ollama/commits")
    assert "hunter2secret" not in str(caught.value)
