"""Every reader answers garbage with one ShuError line and leaves the data tables as they were.

Hypothesis feeds each reader random bytes, valid files cut short at a random byte and valid files
with random bytes overwritten: ranking files (daily CSV, long CSV, gzip CSV, Parquet, a
directory of daily files), GH Archive hours, history exports, documents (bytes that are not UTF-8
text, or not text at all) and git clones (a real clone with a file of its object store or refs
overwritten). Whatever the bytes, the reader either loads them (a file cut at a line end is still
a well-formed file) or raises a `ShuError` whose message is one line; when it refuses, no data
table changed (a 'failed' row in `ingest_log` is the one trace, as designed). The CLI prints
such an error as one line: `test_cli_prints_garbage_as_one_line`.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shu.errors import ShuError
from shu.settings import load_settings
from shu.store import Store, open_store

ROOT = Path(__file__).resolve().parents[3]
FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,
)
# Tables a refused load may write: its own 'failed' row, and nothing else.
BOOKKEEPING = {"ingest_log", "_shu_migrations"}


def data_tables(store: Store) -> dict[str, list[tuple]]:
    """Every data table's rows (sorted), bookkeeping left out."""
    names = [
        n
        for (n,) in store.con.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = 'main' AND table_type = 'BASE TABLE'"
        ).fetchall()
        if n not in BOOKKEEPING
    ]
    return {n: sorted(store.con.sql(f'SELECT * FROM "{n}"').fetchall(), key=repr) for n in names}


def refuses_cleanly(store: Store, load: Callable[[], object]) -> bool:
    """Run `load`; True when it refused with a one-line ShuError and changed no data table,
    False when it loaded. Any other exception fails the test."""
    before = data_tables(store)
    try:
        load()
    except ShuError as exc:
        message = str(exc)
        assert message and "\n" not in message, repr(message)
        assert data_tables(store) == before, f"refused ({message}) but data changed"
        return True
    return False


# ------------------------------------------------------------------------------ valid samples
def _csv_bytes(rows: Sequence[Sequence[object]], gz: bool = False) -> bytes:
    text = io.StringIO()
    csv.writer(text).writerows(rows)
    data = text.getvalue().encode()
    return gzip.compress(data, mtime=0) if gz else data


END = ("2026-01-01T00:00:00Z", "a description, with a comma")
DAILY = _csv_bytes(
    [
        [
            "rank",
            "item",
            "repo_name",
            "stars",
            "forks",
            "language",
            "repo_url",
            "username",
            "issues",
            "last_commit",
            "description",
        ],
        *[
            [i, "top", f"r{i}", 1000 - i, 10, "Python", f"https://github.com/o/r{i}", "o", 3, *END]
            for i in range(1, 6)
        ],
    ]
)
LONG = _csv_bytes(
    [["day", "repo", "stars", "forks"]]
    + [[f"2026-01-0{d}", f"o/r{i}", 100 * i + d, 5] for d in range(1, 6) for i in range(3)]
)


def _parquet() -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = io.BytesIO()
    pq.write_table(
        pa.table({"day": ["2026-01-01", "2026-01-02"], "repo": ["o/a", "o/a"], "stars": [1, 2]}),
        sink,
    )
    return sink.getvalue()


def _gharchive() -> bytes:
    events = [
        {
            "id": str(i),
            "type": kind,
            "actor": {"id": 1, "login": "u"},
            "repo": {"id": 7, "name": "o/r", "url": "https://api.github.com/repos/o/r"},
            "payload": {"action": "started"} if kind == "WatchEvent" else {"size": 1},
            "public": True,
            "created_at": f"2026-01-01T00:0{i}:00Z",
        }
        for i, kind in enumerate(["WatchEvent", "PushEvent", "WatchEvent"])
    ]
    return gzip.compress("".join(json.dumps(e) + "\n" for e in events).encode(), mtime=0)


COMMITS = _csv_bytes(
    [
        [
            "sha",
            "author_time",
            "commit_time",
            "author_id",
            "parents",
            "files_changed",
            "insertions",
            "deletions",
            "subject",
            "touches_rocm",
        ],
        *[
            [
                f"{i:040x}",
                "2024-01-01T10:00:00Z",
                "2024-01-02T10:00:00Z",
                "abc",
                1,
                2,
                10,
                1,
                f"Change {i}",
                0,
            ]
            for i in range(4)
        ],
    ],
    gz=True,
)
TAGS = _csv_bytes(
    [["tag", "tag_time", "annotated", "message"], ["v1.0", "2024-01-03T00:00:00Z", "1", "one"]]
)
DOCUMENT = (
    b"# Notes\n\nOn the H100, compiled softmax is about 2.5x faster than eager.\n\n"
    b"| kernel | speedup |\n|---|---|\n| softmax | 2.5x |\n"
)


def garbage(valid: bytes) -> st.SearchStrategy[bytes]:
    """Random bytes, `valid` cut short at a random byte, or `valid` with bytes overwritten."""

    @st.composite
    def overwritten(draw: st.DrawFn) -> bytes:
        data = bytearray(valid)
        for _ in range(draw(st.integers(1, 8))):
            at = draw(st.integers(0, len(data) - 1))
            chunk = draw(st.binary(min_size=1, max_size=16))
            data[at : at + len(chunk)] = chunk
        return bytes(data)

    return st.one_of(
        st.binary(max_size=3000),
        st.integers(0, len(valid) - 1).map(lambda n: valid[:n]),
        overwritten(),
    )


@pytest.fixture
def fuzz_store(tmp_path: Path):
    store = open_store(tmp_path / "fuzz.duckdb")
    yield store
    store.close()


def _folder(tmp_path: Path) -> Path:
    return Path(tempfile.mkdtemp(dir=tmp_path))


SETTINGS = load_settings(aliases={})


# ------------------------------------------------------------------------------ the readers
@pytest.mark.parametrize(
    ("name", "valid"),
    [
        ("github-ranking-2026-01-01.csv", DAILY),
        ("long.csv", LONG),
        ("long.csv.gz", gzip.compress(LONG, mtime=0)),
        ("long.parquet", _parquet()),
    ],
)
def test_ranking_file(fuzz_store, tmp_path, name, valid) -> None:
    from shu.sources.ranking import import_ranking

    @FUZZ
    @given(data=garbage(valid))
    def check(data: bytes) -> None:
        path = _folder(tmp_path) / name
        path.write_bytes(data)
        refuses_cleanly(fuzz_store, lambda: import_ranking(fuzz_store, path, SETTINGS))

    check()


def test_ranking_directory(fuzz_store, tmp_path) -> None:
    """One garbage daily file among good ones is left out whole (the others load); a folder of
    garbage alone is refused."""
    from shu.sources.ranking import import_ranking

    @FUZZ
    @given(data=garbage(DAILY))
    def check(data: bytes) -> None:
        folder = _folder(tmp_path)
        (folder / "github-ranking-2026-01-02.csv").write_bytes(data)
        refuses_cleanly(fuzz_store, lambda: import_ranking(fuzz_store, folder, SETTINGS))

    check()


def test_gharchive_hour(fuzz_store, tmp_path) -> None:
    from shu.sources.gharchive import ingest_gharchive

    @FUZZ
    @given(data=garbage(_gharchive()))
    def check(data: bytes) -> None:
        path = _folder(tmp_path) / "2026-01-01-0.json.gz"
        path.write_bytes(data)
        before = data_tables(fuzz_store)
        try:
            summary = ingest_gharchive(fuzz_store, [path], SETTINGS)
        except ShuError as exc:
            assert "\n" not in str(exc)
            assert data_tables(fuzz_store) == before
            return
        if summary.failed:  # named with a one-line reason, nothing of it written
            assert all("\n" not in why for why in summary.failed.values())
            assert data_tables(fuzz_store) == before

    check()


@pytest.mark.parametrize(
    ("name", "valid"),
    [("o__r.commits.csv.gz", COMMITS), ("o__r.tags.csv", TAGS)],
)
def test_history_export(fuzz_store, tmp_path, name, valid) -> None:
    from shu.sources.history import ingest_history

    @FUZZ
    @given(data=garbage(valid))
    def check(data: bytes) -> None:
        folder = _folder(tmp_path)
        (folder / "o__r.commits.csv.gz").write_bytes(COMMITS)
        (folder / name).write_bytes(data)
        refuses_cleanly(fuzz_store, lambda: ingest_history(fuzz_store, [folder], SETTINGS))

    check()


def _not_text(data: bytes) -> bool:
    """Bytes that are not UTF-8, or hold a NUL byte (binary content, as git and grep tell)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return b"\x00" in data


@pytest.mark.parametrize("suffix", [".md", ".html", ".txt"])
def test_document(fuzz_store, tmp_path, suffix) -> None:
    """Documents: any bytes that are not UTF-8 text are refused and load nothing."""
    from shu.evidence.document_claims import ingest_with_claims

    @FUZZ
    @given(data=garbage(DOCUMENT).filter(_not_text))
    def check(data: bytes) -> None:
        path = _folder(tmp_path) / f"notes{suffix}"
        path.write_bytes(data)
        assert refuses_cleanly(fuzz_store, lambda: ingest_with_claims(fuzz_store, [path]))

    check()


def _git(repo: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "A",
        "GIT_AUTHOR_EMAIL": "a@example.com",
        "GIT_COMMITTER_NAME": "A",
        "GIT_COMMITTER_EMAIL": "a@example.com",
        "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    }
    subprocess.run(["git", "-C", str(repo), *args], env=env, check=True, capture_output=True)


def test_git_clone(fuzz_store, tmp_path) -> None:
    """A real clone with one file of its object store or refs overwritten by garbage."""
    from shu.sources.git import ingest_git

    template = tmp_path / "template"
    template.mkdir()
    _git(template, "init", "-q", "-b", "main")
    for i in range(3):
        (template / f"f{i}.py").write_text(f"x = {i}\n")
        _git(template, "add", ".")
        _git(template, "commit", "-q", "-m", f"Change {i}")
    _git(template, "tag", "v1.0.0")
    files = sorted(
        str(p.relative_to(template))
        for p in (template / ".git").rglob("*")
        if p.is_file() and ({"objects", "refs"} & set(p.parts) or p.name == "HEAD")
    )

    @FUZZ
    @given(which=st.sampled_from(files), data=st.binary(max_size=200))
    def check(which: str, data: bytes) -> None:
        import shutil

        clone = _folder(tmp_path) / "clone"
        shutil.copytree(template, clone)
        target = clone / which
        target.chmod(0o644)
        target.write_bytes(data)
        refuses_cleanly(fuzz_store, lambda: ingest_git(fuzz_store, clone, "o/r", SETTINGS))

    check()


# ------------------------------------------------------------------------------ the CLI
@pytest.mark.parametrize(
    ("command", "name"),
    [
        (["ingest", "ranking"], "stars.csv"),
        (["ingest", "ranking"], "stars.parquet"),
        (["ingest", "ranking"], "github-ranking-2026-01-01.csv"),
        (["ingest", "gharchive"], "2026-01-01-0.json.gz"),
        (["ingest", "history"], "o__r.commits.csv.gz"),
        (["ingest", "docs"], "notes.md"),
    ],
)
def test_cli_prints_garbage_as_one_line(tmp_path, command, name) -> None:
    """A binary file through the real `shu` command: one line on stderr, status 1, nothing
    on stdout but that the load was refused."""
    path = tmp_path / name
    path.write_bytes(bytes(range(256)) * 8)
    run = subprocess.run(
        [sys.executable, "-m", "shu", *command, str(path), "--db", str(tmp_path / "s.duckdb")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "COLUMNS": "300"},
        timeout=300,
    )
    assert run.returncode == 1, (run.stdout, run.stderr)
    assert len(run.stderr.splitlines()) == 1, run.stderr
    assert run.stderr.startswith("error: ") and name in run.stderr, run.stderr
    assert run.stdout == "", run.stdout
