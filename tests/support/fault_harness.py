"""The fault harness: GitHub API faults, SIGKILLs of real `shu` processes, and two writers at
once, each checked against a clean run; `benchmarks/fault_harness.py` prints its one table.

Every case runs the real code on a real store file:

- **api** cases run `ingest_github` (backfill) with the real client against the local GitHub API
  server (`shu.testing.github_server`) with one fault injected, then again with the fault
  cleared. The case *survived* when the faulty run finished with the clean run's rows; it was
  *refused* when the run (or one repository of it) stopped with a one-line error and the re-run
  then converged to the clean run's rows. Anything else (a traceback, a multi-line error, rows
  lost or duplicated after the re-run) is a failure.
- **kill** cases start a real `shu` subprocess (`shu ingest ranking`, `shu ingest github`,
  `shu signals --full`, `shu daily`), SIGKILL it at a random point after it took the store's
  write lock (within a clean run's duration),
  check the store still opens and holds no row a clean run would not, run the command again and
  compare with a clean run. While the process runs, a reader in this process keeps opening the
  store as analysts do (`shu.analyst.open_analyst`: the live file when free, else its snapshot)
  and running a query; the longest such read is the *reader wait*.
- **writers** starts two `shu ingest ranking` processes on one store at the same moment; both
  must finish (one waits for the other's lock) or be refused in one line, and the store must
  end with both loads' rows.

Rows are compared as multisets of whole rows (wall-clock bookkeeping columns excluded): *lost*
= rows of the clean run missing after the re-run, *duplicated* = rows beyond the clean run's
(the same row twice, or an extra or altered one), plus any key held twice in a table whose key
is unique by construction rather than indexed (stars_daily).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from shu.errors import ShuError
from shu.settings import Settings, get_settings, load_settings
from shu.snapshot import refresh_snapshot
from shu.store import open_store
from shu.testing.datasets import small_dataset
from shu.testing.github_server import GitHubAPIServer, ReleaseRecord

DAY = date(2026, 3, 2)
INGEST_TABLES = {
    "stars_daily": "SELECT * FROM stars_daily",
    "commits": "SELECT * FROM commits",
    "releases": "SELECT * FROM releases",
    "repos": "SELECT * EXCLUDE (updated_at) FROM repos",
}
SIGNAL_TABLES = {
    "star_signals": "SELECT * FROM star_signals",
    "commit_signals": "SELECT * FROM commit_signals",
}
FIVE_MB = 5 * 1024 * 1024
TIMEOUT_S = 1.5  # the client's read timeout in API cases (a slow fault sleeps past it)


@dataclass
class CaseResult:
    """The outcome of one case."""

    group: str
    name: str
    outcome: str  # "survived", "refused" or "FAILED"
    detail: str = ""
    lost: int = 0
    duplicated: int = 0
    reader_wait_s: float | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.outcome in ("survived", "refused")


# ---------------------------------------------------------------------------------- rows
def table_rows(db: Path, tables: dict[str, str]) -> dict[str, Counter]:
    """Every row of `tables` in the store at `db`, as multisets."""
    with open_store(db, read_only=True) as store:
        return {
            name: Counter(
                tuple(_hashable(v) for v in row) for row in store.con.execute(sql).fetchall()
            )
            for name, sql in tables.items()
        }


def duplicate_keys(db: Path) -> int:
    """Rows beyond one per key in the store's tables whose key is unique by construction
    rather than indexed (`key_indexed=False`, e.g. stars_daily): 0 unless a writer broke it."""
    from shu.schema import ALL_TABLES

    with open_store(db, read_only=True) as store:
        return sum(
            store.duplicate_keys(t.name) for t in ALL_TABLES if not t.key_indexed and not t.view_sql
        )


def _hashable(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    return value


def compare(clean: dict[str, Counter], got: dict[str, Counter]) -> tuple[int, int]:
    """(rows lost, rows duplicated) of `got` against `clean`."""
    lost = sum(sum((clean[t] - got.get(t, Counter())).values()) for t in clean)
    extra = sum(sum((got.get(t, Counter()) - clean[t]).values()) for t in clean)
    return lost, extra


def one_line(text: str) -> bool:
    """A refusal a user can read: one non-empty line, no traceback."""
    text = text.strip()
    return bool(text) and "\n" not in text and "Traceback" not in text


# ---------------------------------------------------------------------------------- api cases
@dataclass
class ApiCase:
    """A fault (or awkward data) injected into the local API before an ingest."""

    name: str
    inject: Callable[[GitHubAPIServer], Any]
    setup: Callable[[GitHubAPIServer], Any] | None = None
    renames: dict[str, str] = field(default_factory=dict)
    fast: bool = False


def _rename(server: GitHubAPIServer) -> None:
    server.rename("tensorflow/tensorflow", "tensorflow/tensorflow-ng")


def _big_release(server: GitHubAPIServer) -> None:
    server.add_release(
        "pytorch/pytorch",
        ReleaseRecord(
            tag="v9.9.9",
            name="huge",
            published_at=datetime(2026, 2, 1),
            body=("Release notes line with ROCm and CUDA. " * (FIVE_MB // 38 + 1))[:FIVE_MB],
        ),
    )


API_CASES = [
    ApiCase(
        "5xx burst (502 x3 on a commits page)",
        lambda s: s.fail("server_error", match="/commits?per_page=100&sha=main&page=2", times=3),
        fast=True,
    ),
    ApiCase(
        "503 that never ends for one repository",
        lambda s: s.fail(
            "server_error", status=503, match="/repos/ollama/ollama/releases", times=None
        ),
    ),
    ApiCase(
        "403 rate limit with x-ratelimit-reset",
        lambda s: s.fail("rate_limit", match="/repos/tensorflow/tensorflow/commits", reset_in=30),
    ),
    ApiCase(
        "429 with Retry-After",
        lambda s: s.fail("rate_limit", status=429, retry_after=5, match="/releases", times=2),
    ),
    ApiCase(
        "403 with Retry-After",
        lambda s: s.fail("rate_limit", retry_after=3, match="/stargazers/history", times=2),
    ),
    ApiCase(
        "rate limit past github_max_wait_s",
        lambda s: s.fail(
            "rate_limit", reset_in=7200, match="/repos/ollama/ollama/commits", times=None
        ),
    ),
    ApiCase(
        "secondary limit, no headers",
        lambda s: s.fail("secondary_limit", match="/repos/pytorch/pytorch/releases", times=2),
        fast=True,
    ),
    ApiCase(
        "202 for statistics, then ready",
        lambda s: s.fail("accepted", match="/stargazers/history", times=2),
    ),
    ApiCase(
        "202 for statistics, never ready",
        lambda s: s.fail("accepted", match="/repos/ollama/ollama/stargazers/history", times=None),
    ),
    ApiCase(
        "301 rename",
        _rename,
        renames={"tensorflow/tensorflow": "tensorflow/tensorflow-ng"},
        fast=True,
    ),
    ApiCase(
        "malformed JSON once",
        lambda s: s.fail("malformed_json", match="/history?page=3&per_page=30", times=1),
    ),
    ApiCase(
        "malformed JSON always, one repository",
        lambda s: s.fail(
            "malformed_json", match="/repos/tensorflow/tensorflow/releases", times=None
        ),
        fast=True,
    ),
    ApiCase("truncated bodies", lambda s: s.fail("truncated", match="/commits", times=2)),
    ApiCase(
        "slow responses past the timeout",
        lambda s: s.fail("slow", delay=TIMEOUT_S + 0.5, match="/releases", times=2),
    ),
    ApiCase(
        "endless Link loop (page N+1 forever)",
        lambda s: s.fail("link_loop", match="/repos/pytorch/pytorch/releases", times=None),
        fast=True,
    ),
    ApiCase(
        "Link pointing at itself",
        lambda s: s.fail("link_loop", status=0, match="/repos/ollama/ollama/commits", times=None),
    ),
    ApiCase("5 MB release body", lambda s: None, setup=_big_release),
]


class _NoSleep(list):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def _settings(server: GitHubAPIServer, db: Path) -> Settings:
    return load_settings(
        db=db,
        github_api_url=server.url,
        github_retries=3,
        github_max_wait_s=900,
        github_timeout_s=TIMEOUT_S,
    )


def _ingest(server: GitHubAPIServer, db: Path) -> tuple[str, str]:
    """One backfill into `db`: ("ok" | "refused" | "crashed", message)."""
    from shu.sources.github_ingest import client_for, ingest_github

    settings = _settings(server, db)
    with open_store(db) as store:
        client = client_for(store, settings, sleep=_NoSleep(), jitter=lambda: 0.5)
        try:
            summary = ingest_github(store, settings, backfill=True, today=DAY, client=client)
        except ShuError as exc:
            return "refused", str(exc)
        except Exception as exc:  # a crash is what the harness exists to find
            return "crashed", f"{type(exc).__name__}: {exc}"
    if summary.failed:
        return "refused", "; ".join(f"{k}: {v}" for k, v in summary.failed.items())
    deferred = [n for n in summary.notes if "retry on the next run" in n]
    if deferred:  # a step GitHub could not answer yet: rolled back, said in one line
        return "refused", deferred[0]
    return "ok", ""


def _renamed(rows: dict[str, Counter], renames: dict[str, str]) -> dict[str, Counter]:
    out = {}
    for table, counter in rows.items():
        if table == "repos":
            continue  # a rename rewrites the repository row itself (renamed_from)
        out[table] = Counter(
            {tuple(_rename_in(v, renames) for v in row): n for row, n in counter.items()}
        )
    return out


def _rename_in(value: Any, renames: dict[str, str]) -> Any:
    """`value` as the renamed repository would have it (its name, its html_url)."""
    if not isinstance(value, str):
        return value
    for old, new in renames.items():
        value = new if value == old else value.replace(f"/{old}/", f"/{new}/")
    return value


def run_api_case(case: ApiCase, workdir: Path) -> CaseResult:
    """Clean run and faulty run (then a re-run) of one API case in `workdir`."""
    t0 = time.perf_counter()
    workdir.mkdir(parents=True, exist_ok=True)
    with GitHubAPIServer(small_dataset()) as server:
        if case.setup:
            case.setup(server)
        clean_db, faulty_db = workdir / "clean.duckdb", workdir / "faulty.duckdb"
        status, message = _ingest(server, clean_db)
        if status != "ok":
            return CaseResult("api", case.name, "FAILED", f"clean run: {message}")
        clean = table_rows(clean_db, INGEST_TABLES)
        case.inject(server)
        if case.renames:
            clean = _renamed(clean, case.renames)
        status, message = _ingest(server, faulty_db)
        first = compare(clean, _pick(table_rows(faulty_db, INGEST_TABLES), clean))
        server.clear_faults()
        rerun, rerun_message = _ingest(server, faulty_db)
        lost, dup = compare(clean, _pick(table_rows(faulty_db, INGEST_TABLES), clean))
    result = CaseResult(
        "api", case.name, "FAILED", message, lost, dup, seconds=time.perf_counter() - t0
    )
    if rerun != "ok":
        result.detail = f"re-run: {rerun_message}"
    elif lost or dup:
        result.detail = f"re-run differs from a clean run: {lost} lost, {dup} extra"
    elif status == "ok" and first == (0, 0):
        result.outcome = "survived"
    elif status == "refused" and one_line(message):
        result.outcome = "refused"
    elif status == "ok":
        result.detail = f"finished but differed from a clean run: {first}"
    return result


def _pick(rows: dict[str, Counter], like: dict[str, Counter]) -> dict[str, Counter]:
    return {t: rows[t] for t in like}


# ---------------------------------------------------------------------------------- readers
class Reader:
    """A thread that reads the store as an analyst would, as fast as it can, recording the
    longest single read (open + query + close) and any read that failed."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.worst = 0.0
        self.reads = 0
        self.writer_seen = threading.Event()  # a read fell back to the snapshot: a writer held
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="harness-reader")

    def _run(self) -> None:
        from shu.analyst import open_analyst, run_query

        while not self._stop.is_set():
            t0 = time.perf_counter()
            try:
                store, note = open_analyst(self.db)
                if note is not None:
                    self.writer_seen.set()
                with store:
                    run_query(store.con, "SELECT count(*) FROM stars_daily")
            except ShuError as exc:
                self.errors.append(str(exc))
            self.worst = max(self.worst, time.perf_counter() - t0)
            self.reads += 1
            self._stop.wait(0.05)

    def __enter__(self) -> Reader:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=30)


# ---------------------------------------------------------------------------------- kill cases
@dataclass
class Workload:
    """Inputs shared by the subprocess cases: a ranking directory, a served API, a config."""

    root: Path
    server: GitHubAPIServer
    ranking_dirs: list[Path]
    env: dict[str, str]


def make_ranking_dir(path: Path, start: date, days: int, repos: int, seed: int) -> Path:
    """`days` daily github-ranking CSV files with `repos` rows each (deterministic)."""
    path.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    header = (
        "rank,item,repo_name,stars,forks,language,repo_url,username,issues,last_commit,description"
    )
    base = [rng.randint(1_000, 200_000) for _ in range(repos)]
    for d in range(days):
        day = start + timedelta(days=d)
        lines = [header]
        for i in range(repos):
            stars = base[i] + d * (i % 17 + 1)
            lines.append(
                f"{i + 1},top,name{i},{stars},{stars // 5},Python,"
                f"https://github.com/org{i % 40}/name{i},org{i % 40},{i % 300},"
                f"{day}T00:00:00Z,repo {i}"
            )
        (path / f"github-ranking-{day}.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@contextmanager
def workload(root: Path, ranking_days: int = 60, ranking_repos: int = 300) -> Iterator[Workload]:
    """The served API and generated ranking files the subprocess cases use."""
    root.mkdir(parents=True, exist_ok=True)
    dirs = [
        make_ranking_dir(root / "ranking-a", date(2025, 11, 1), ranking_days, ranking_repos, 1),
        make_ranking_dir(
            root / "ranking-b",
            date(2025, 11, 1) + timedelta(ranking_days),
            ranking_days,
            ranking_repos,
            2,
        ),
    ]
    with GitHubAPIServer(small_dataset()) as server:
        config = root / "shu.toml"
        config.write_text(
            f'[shu]\ngithub_api_url = "{server.url}"\ngithub_retries = 2\n'
            f'reports_dir = "{root / "reports"}"\nmodels_dir = "{root / "models"}"'
            "\nprobe_max_age_days = 3650\n",
            encoding="utf-8",
        )
        env = {
            **os.environ,
            "SHU_CONFIG": str(config),
            "COLUMNS": "200",
            "PREFECT_HOME": str(root / "prefect"),
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "PYTHONUNBUFFERED": "1",
        }
        env.pop("SHU_DB", None)
        env.pop("GITHUB_TOKEN", None)
        yield Workload(root, server, dirs, env)


def _shu(*args: str) -> list[str]:
    return [sys.executable, "-c", "from shu.cli import main; main()", *args]


def _prepare(db: Path, how: str, work: Workload) -> None:
    """The store a command starts from: empty; with ranking rows (for signals); or
    "corrected": ranked, its signals computed, then the history of a few repositories corrected
    (a full refresh rewrites those only)."""
    with open_store(db) as store:
        if how in ("ranked", "corrected"):
            from shu.sources.ranking import import_ranking

            import_ranking(store, work.ranking_dirs[0], load_settings(db=db))
        if how == "corrected":
            from shu.signals import refresh_signals

            refresh_signals(store, full=True, settings=get_settings())
            store.con.execute(
                "UPDATE stars_daily SET stars = stars + 5 WHERE repo IN (SELECT "
                "DISTINCT repo FROM stars_daily ORDER BY repo LIMIT 12) AND day "
                "> (SELECT min(day) + 3 FROM stars_daily)"
            )
        elif how == "daily":
            from shu.probe_ingest import store_probe_document
            from shu.testing.demo_sample import synthetic_sample

            store_probe_document(store, synthetic_sample(DAY, seed=11).probe, "harness")
        refresh_snapshot(store)


@dataclass
class KillCommand:
    """A `shu` command to SIGKILL, what it starts from, and which tables to compare."""

    name: str
    args: Callable[[Workload], list[str]]
    start: str  # "empty", "ranked", "corrected" or "daily" (see _prepare)
    tables: dict[str, str]
    ok_codes: tuple[int, ...] = (0,)
    fast: bool = False
    atomic: bool = False  # a kill leaves each table as it was or as a clean run leaves it


KILL_COMMANDS = [
    KillCommand(
        "shu ingest ranking",
        lambda w: ["ingest", "ranking", str(w.ranking_dirs[0])],
        "empty",
        {"stars_daily": "SELECT * FROM stars_daily"},
        fast=True,
    ),
    KillCommand(
        "shu ingest github", lambda w: ["ingest", "github", "--backfill"], "empty", INGEST_TABLES
    ),
    KillCommand(
        "shu signals --full", lambda w: ["signals", "--full"], "ranked", SIGNAL_TABLES, atomic=True
    ),
    KillCommand(
        "shu signals --full after a corrected history",
        lambda w: ["signals", "--full"],
        "corrected",
        SIGNAL_TABLES,
        atomic=True,
    ),
    KillCommand(
        "shu daily",
        lambda w: ["daily", "--as-of", str(DAY), "--backfill"],
        "daily",
        {**INGEST_TABLES, **SIGNAL_TABLES},
        ok_codes=(0,),
    ),
]


def _run(
    cmd: list[str], env: dict[str, str], db: Path, timeout: float = 600
) -> tuple[int, str, float]:
    t0 = time.perf_counter()
    proc = subprocess.run(
        [*cmd, "--db", str(db)], env=env, capture_output=True, text=True, timeout=timeout
    )
    return proc.returncode, proc.stderr, time.perf_counter() - t0


def run_kill_cases(
    command: KillCommand, work: Workload, kills: int, rng: random.Random
) -> list[CaseResult]:
    """A clean run of `command`, then `kills` runs SIGKILLed at random points, each re-run."""
    base = work.root / command.name.replace(" ", "_").replace("-", "")
    base.mkdir(parents=True, exist_ok=True)
    clean_db = base / "clean.duckdb"
    _prepare(clean_db, command.start, work)
    cmd = _shu(*command.args(work))
    code, err, duration = _run(cmd, work.env, clean_db)
    if code not in command.ok_codes:
        return [
            CaseResult(
                "kill",
                command.name,
                "FAILED",
                f"clean run exit {code}: {err.strip().splitlines()[-1:] or ''}",
            )
        ]
    clean = table_rows(clean_db, command.tables)
    results = []
    for k in range(kills):
        results.append(
            _kill_once(
                command,
                work,
                cmd,
                base / f"killed{k}" / "shu.duckdb",
                rng.uniform(0.0, 0.9),
                duration,
                clean,
            )
        )
    return results


def _kill_once(
    command: KillCommand,
    work: Workload,
    cmd: list[str],
    db: Path,
    fraction: float,
    duration: float,
    clean: dict[str, Counter],
) -> CaseResult:
    """Start `cmd`; once the reader sees it hold the store, SIGKILL it `fraction` of the way
    through the rest of a clean run's duration; check the store, run it again, compare."""
    t0 = time.perf_counter()
    db.parent.mkdir(parents=True, exist_ok=True)
    _prepare(db, command.start, work)
    before = table_rows(db, command.tables)
    with Reader(db) as reader:
        start = time.perf_counter()
        proc = subprocess.Popen(
            [*cmd, "--db", str(db)],
            env=work.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        while (
            proc.poll() is None
            and not reader.writer_seen.wait(0.01)
            and time.perf_counter() - start < duration
        ):
            pass
        seen = time.perf_counter() - start
        at = seen + fraction * max(duration - seen, 0.05)
        name = f"{command.name}, SIGKILL at {at:.1f}s"
        try:
            proc.wait(timeout=at - seen)
            finished = True
        except subprocess.TimeoutExpired:
            children = _descendants(proc.pid)  # before the kill: then they are orphaned
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
            finished = False
            _kill_all(children)
    try:
        after_kill = table_rows(db, command.tables)
    except Exception as exc:  # the store must open after a kill
        return CaseResult(
            "kill",
            name,
            "FAILED",
            f"store unreadable after the kill: {exc}",
            seconds=time.perf_counter() - t0,
        )
    if command.atomic:  # each table as the command found it, or as the clean run left it
        stray = sum(
            max(1, compare({t: clean[t]}, after_kill)[1])
            for t in clean
            if after_kill[t] not in (before[t], clean[t])
        )
    else:  # rows no clean run has: a half-written load
        _, stray = compare(clean, after_kill)
    with Reader(db) as rerun_reader:
        code, err, _ = _run(cmd, work.env, db)
    lost, dup = compare(clean, table_rows(db, command.tables))
    dup += duplicate_keys(db)
    when = (
        " (finished first)"
        if finished
        else " (after it took the write lock)"
        if reader.writer_seen.is_set()
        else " (before it took the write lock)"
    )
    result = CaseResult(
        "kill",
        name + when,
        "FAILED",
        lost=lost,
        duplicated=dup + stray,
        reader_wait_s=max(reader.worst, rerun_reader.worst),
        seconds=time.perf_counter() - t0,
    )
    reader.errors += rerun_reader.errors
    if code not in command.ok_codes:
        result.detail = f"re-run exit {code}: {err.strip().splitlines()[-1:]}"
    elif reader.errors:
        result.detail = f"reader failed: {reader.errors[0]}"
    elif lost or dup or stray:
        result.detail = f"{lost} lost, {dup} duplicated after the re-run, {stray} stray rows"
    else:
        result.outcome = "survived"
    return result


def _descendants(pid: int) -> list[int]:
    """Process ids started by `pid` (a `shu daily` starts a Prefect server), depth first."""
    try:
        out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    except FileNotFoundError:
        return []
    children = [int(c) for c in out.split() if c.isdigit()]
    return [d for c in children for d in (c, *_descendants(c))]


def _kill_all(pids: list[int]) -> None:
    """SIGKILL the processes this harness started and orphaned (by id; gone ones are skipped)."""
    for pid in pids:
        with suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def run_two_writers(work: Workload) -> CaseResult:
    """Two `shu ingest ranking` processes on one store at the same moment."""
    t0 = time.perf_counter()
    base = work.root / "two_writers"
    base.mkdir(parents=True, exist_ok=True)
    clean_db, db = base / "clean.duckdb", base / "shu.duckdb"
    _prepare(clean_db, "empty", work)
    for d in work.ranking_dirs:
        code, err, _ = _run(_shu("ingest", "ranking", str(d)), work.env, clean_db)
        if code:
            return CaseResult("writers", "two writers at once", "FAILED", f"clean run: {err}")
    tables = {"stars_daily": "SELECT * FROM stars_daily"}
    clean = table_rows(clean_db, tables)
    _prepare(db, "empty", work)
    with Reader(db) as reader:
        procs = [
            subprocess.Popen(
                _shu("ingest", "ranking", str(d), "--db", str(db)),
                env=work.env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            for d in work.ranking_dirs
        ]
        outcomes = [(p.wait(timeout=600), p.stderr.read() if p.stderr else "") for p in procs]
        refused = [(d, e) for d, (c, e) in zip(work.ranking_dirs, outcomes, strict=True) if c]
    for d, _ in refused:  # a refused writer runs again afterwards
        _run(_shu("ingest", "ranking", str(d)), work.env, db)
    lost, dup = compare(clean, table_rows(db, tables))
    dup += duplicate_keys(db)
    result = CaseResult(
        "writers",
        "two writers at once",
        "FAILED",
        lost=lost,
        duplicated=dup,
        reader_wait_s=reader.worst,
        seconds=time.perf_counter() - t0,
    )
    if any(not one_line(e) for _, e in refused):
        result.detail = f"a refused writer did not say why in one line: {refused}"
    elif reader.errors:
        result.detail = f"reader failed: {reader.errors[0]}"
    elif lost or dup:
        result.detail = f"{lost} lost, {dup} duplicated"
    else:
        result.outcome = "refused" if refused else "survived"
        result.detail = "; ".join(e.strip() for _, e in refused)
    return result


# ---------------------------------------------------------------------------------- harness
def run_harness(
    root: Path,
    *,
    fast: bool = False,
    kills: int = 2,
    seed: int = 12,
    include_daily: bool = True,
    progress: Callable[[CaseResult], None] | None = None,
) -> list[CaseResult]:
    """Run every case (or the fast subset) under `root`; returns one result per case."""
    rng = random.Random(seed)
    results: list[CaseResult] = []

    def done(result: CaseResult) -> None:
        results.append(result)
        if progress:
            progress(result)

    for i, case in enumerate(API_CASES):
        if fast and not case.fast:
            continue
        done(run_api_case(case, root / f"api{i:02d}"))
    with workload(
        root / "work", ranking_days=10 if fast else 60, ranking_repos=100 if fast else 300
    ) as work:
        for command in KILL_COMMANDS:
            if (fast and not command.fast) or (command.name == "shu daily" and not include_daily):
                continue
            for result in run_kill_cases(command, work, 1 if fast else kills, rng):
                done(result)
        done(run_two_writers(work))
    shutil.rmtree(root / "work", ignore_errors=True)
    return results


def summary_table(results: list[CaseResult]) -> str:
    """The harness's one table (markdown): per group and in total."""
    groups = {
        "api": "GitHub API faults",
        "kill": "SIGKILL mid-run, then re-run",
        "writers": "two writers at once",
    }
    header = (
        "| cases | tried | survived | refused (one line) | failed | rows lost | "
        "rows duplicated | worst reader wait |"
    )
    lines = [header, "|---|---:|---:|---:|---:|---:|---:|---:|"]

    def row(label: str, rs: list[CaseResult]) -> str:
        waits = [r.reader_wait_s for r in rs if r.reader_wait_s is not None]
        wait = f"{max(waits):.3f} s" if waits else "—"
        return (
            f"| {label} | {len(rs)} | {sum(r.outcome == 'survived' for r in rs)} | "
            f"{sum(r.outcome == 'refused' for r in rs)} | {sum(not r.ok for r in rs)} | "
            f"{sum(r.lost for r in rs)} | {sum(r.duplicated for r in rs)} | {wait} |"
        )

    for key, label in groups.items():
        members = [r for r in results if r.group == key]
        if members:
            lines.append(row(label, members))
    lines.append(row("**all**", results))
    return "\n".join(lines)
