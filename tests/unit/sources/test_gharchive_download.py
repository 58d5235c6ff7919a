"""`--from/--to` downloads against a local HTTP server with failures, rate limits and resumes."""

from __future__ import annotations

import threading
from datetime import date, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
from support.gharchive_files import hour_file, repo_names, write_hour

from shu.errors import SourceError
from shu.settings import load_settings
from shu.sources.gharchive_download import download_range

DAY = date(2026, 5, 1)


class _Archive(BaseHTTPRequestHandler):
    files: ClassVar[dict[str, bytes]] = {}
    script: ClassVar[dict[str, list[str]]] = {}  # name -> behaviours of successive requests
    log: ClassVar[list[tuple[str, str | None]]] = []

    def do_GET(self) -> None:
        name = self.path.rsplit("/", 1)[-1]
        self.log.append((name, self.headers.get("Range")))
        todo = self.script.get(name, [])
        action = todo.pop(0) if todo else "ok"
        data = self.files.get(name)
        if data is None:
            return self._send(404, b"Not Found")
        if action == "500":
            return self._send(500, b"oops")
        if action == "429":
            self.send_response(429)
            self.send_header("Retry-After", "7")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        start = 0
        rng = self.headers.get("Range")
        if rng and action != "ignore-range":
            start = int(rng.split("=")[1].rstrip("-"))
        body = data[start:]
        self.send_response(206 if start else 200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[: len(body) // 2] if action == "cut" else body)
        return None

    def _send(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:  # keep test output quiet
        pass


@pytest.fixture
def server(tmp_path: Path):
    src = tmp_path / "src"
    src.mkdir()
    for h in range(23):  # hour 23 is "not published yet"
        when = datetime(2026, 5, 1, h)
        size = 6000 if h == 4 else 20  # hour 4 is cut mid-body: big enough to arrive in parts
        write_hour(hour_file(src, when), when, size, repo_names(5), seed=h)
    _Archive.files = {p.name: p.read_bytes() for p in src.iterdir()}
    _Archive.script = {
        "2026-05-01-3.json.gz": ["500", "500"],
        "2026-05-01-4.json.gz": ["cut"],
        "2026-05-01-5.json.gz": ["429"],
    }
    _Archive.log = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Archive)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()
    httpd.server_close()


def test_download_retries_resumes_and_skips_finished_files(server, tmp_path) -> None:
    slept: list[float] = []
    settings = load_settings(
        gharchive_url=server, gharchive_dir=str(tmp_path / "dl"), github_retries=3
    )
    got = download_range(settings, DAY, DAY, sleep=slept.append, jitter=lambda: 0.0)
    assert got.downloaded == 23 and got.missing == ["2026-05-01-23.json.gz"]
    assert got.retries == 3  # two 5xx and one truncated body
    assert 7.0 in slept  # the Retry-After wait
    for path in got.paths:
        assert path.read_bytes() == _Archive.files[path.name]
    assert not list((tmp_path / "dl").glob("*.part"))
    # The truncated body was resumed from where it stopped, with a Range request.
    ranges = [r for name, r in _Archive.log if name == "2026-05-01-4.json.gz"]
    assert ranges[0] is None and ranges[1] and ranges[1].startswith("bytes=")
    _Archive.log.clear()
    again = download_range(settings, DAY, DAY, sleep=slept.append)
    assert (again.downloaded, again.already_there) == (0, 23)
    assert [name for name, _ in _Archive.log] == ["2026-05-01-23.json.gz"]


def test_download_gives_up_in_one_line_and_resumes_later(server, tmp_path) -> None:
    _Archive.script["2026-05-01-0.json.gz"] = ["500"] * 5
    settings = load_settings(
        gharchive_url=server, gharchive_dir=str(tmp_path / "dl"), github_retries=1
    )
    with pytest.raises(SourceError, match=r"2026-05-01-0\.json\.gz failed after 2 attempts"):
        download_range(settings, DAY, DAY, sleep=lambda s: None)
    assert not (tmp_path / "dl" / "2026-05-01-0.json.gz").exists()
    _Archive.script.clear()  # the archive recovers
    got = download_range(settings, DAY, DAY, sleep=lambda s: None)
    assert got.downloaded == 23


def test_rate_limit_beyond_the_allowed_wait_stops(server, tmp_path) -> None:
    settings = load_settings(
        gharchive_url=server, gharchive_dir=str(tmp_path / "dl"), github_max_wait_s=5
    )
    with pytest.raises(SourceError, match="rate limit.*retry in 7s"):
        download_range(settings, DAY, DAY, sleep=lambda s: None)
