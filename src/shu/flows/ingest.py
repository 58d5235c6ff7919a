"""Fan-out of the daily ingestion: one mapped Prefect task per repository and per GH Archive batch.

- GitHub, default runner: `github_repo_task.map(repos)`, one task per tracked repository (its
  own retries and state; one repository's failure is reported, the others still load, unless
  it stops the whole run: GitHub unreachable, the rate limit, rejected credentials, after
  which the others fail with it untried, `_RUN_STOPPED`). Each
  task fetches and writes (`ingest_github`), on the flow's thread pool in the flow's process, one
  writer at a time (`_WRITER`): DuckDB has a single writing process.
- GitHub, `SHU_TASK_RUNNER=dask`: `github_ingest_flow` reads each repository's snapshot from
  the store, maps `fetch_task` (`shu.sources.github_ingest.fetch_repo`: no store) over the Dask
  cluster, and writes each result as it comes back (`write_fetch`, same transactions and
  `ingest_log` rows as a sequential run). The token is never a task parameter or result: a
  worker's settings read GITHUB_TOKEN from the worker's own environment.
- Ranking files: the day's daily ranking CSV(s) (`settings.ranking_files`), fresh counts of the
  untracked repositories for the breakout radar; without them or GH Archive hours the stage
  says so in one line and the radar forecasts from the newest counts the store has.
- GH Archive: `gharchive_ingest_flow` maps `aggregate_task` over batches of hourly files on the
  task runner chosen by `settings.task_runner`: threads, or with `SHU_TASK_RUNNER=dask` a Dask
  cluster (a temporary `LocalCluster` of `dask_workers` processes, or the scheduler at
  `dask_address`). Workers only read files and return small Arrow aggregates; the flow alone
  writes them to DuckDB (one transaction per file set), then folds stars into `stars_daily`.

`ingest(...)` is the daily ingest, the one path the daily flow, `shu demo` and the tests take:
GitHub, the configured documents, ranking files and GH Archive hours, returning the 'ingest'
stage report with one line per source. Inside a flow each repository is a mapped task (on the
settings' task runner); called outside one (the demo's backfill and replayed days) the same
functions run one after another in this process, without a Prefect server.
"""

from __future__ import annotations

import os
import re
import socket
import threading
import time
from datetime import date
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger, task, unmapped
from prefect.cache_policies import NO_CACHE
from prefect.futures import as_completed
from prefect.task_runners import ThreadPoolTaskRunner

from shu.errors import ConfigError, InputError, SourceError
from shu.flows.stages import StageReport, settings_from
from shu.settings import Settings
from shu.snapshot import open_for_writing
from shu.sources.gharchive import Aggregate, aggregate_files

IO_RETRIES: dict[str, Any] = {"retries": 2, "retry_delay_seconds": [2, 10]}
_WRITER = threading.Lock()
# A repository's ingest raises only what stops the whole run (GitHub unreachable, the rate limit,
# rejected credentials, the store: `github_ingest._fatal`); the run's other repositories then
# fail with the same line without being tried, instead of each waiting out its own retries
# (~13 s a repository on a refused connection). Per (store, day) of a run, cleared when it starts.
_RUN_STOPPED: dict[tuple[str, date], str] = {}
# A request path naming one repository, in a failure's one line
_REPO_PATH = re.compile(r"/repos/[^\s:;,)]+")


def runner_for(settings: Settings) -> Any:
    """The Prefect task runner `settings.task_runner` names ('threads' or 'dask')."""
    if settings.task_runner != "dask":
        return ThreadPoolTaskRunner()
    try:
        from prefect_dask import DaskTaskRunner
    except ImportError as exc:
        raise ConfigError(
            "SHU_TASK_RUNNER=dask needs prefect-dask: pip install 'shu[dask]'"
        ) from exc
    if settings.dask_address:
        return DaskTaskRunner(address=settings.dask_address)
    return DaskTaskRunner(
        cluster_class="distributed.LocalCluster",
        cluster_kwargs={
            "n_workers": settings.dask_workers,
            "threads_per_worker": 1,
            "processes": True,
            "dashboard_address": None,
        },
    )


# ---------------------------------------------------------------------------- GitHub, per repo
def github_repo(
    db: Path, settings: Settings, as_of: date, backfill: bool, repo: str
) -> dict[str, Any]:
    """Ingest one repository from GitHub (holding the single-writer lock); never raises
    SourceError: returns {repo, ok, requests, not_modified, changed, error}."""
    from shu.sources.github_ingest import ingest_github

    with _WRITER:
        stopped = _RUN_STOPPED.get((str(db), as_of))
        if stopped is not None:
            return {"repo": repo, "ok": False, "error": stopped}
        store = open_for_writing(db)
        try:
            summary = ingest_github(store, settings, repos=[repo], backfill=backfill, today=as_of)
        except SourceError as exc:
            _RUN_STOPPED[(str(db), as_of)] = str(exc).splitlines()[0]
            return {"repo": repo, "ok": False, "error": _RUN_STOPPED[(str(db), as_of)]}
        finally:
            store.close()
    return _outcome(repo, summary)


def github_repos(
    db: Path, settings: Settings, as_of: date, backfill: bool, repos: list[str]
) -> list[dict[str, Any]]:
    """`github_repo` for each of `repos` in turn on one open store (outside a flow: the demo's
    backfill and replayed days); the same result per repository."""
    from shu.sources.github_ingest import ingest_github

    results = []
    with _WRITER:
        store = open_for_writing(db)
        try:
            stopped: str | None = None  # as `_RUN_STOPPED`
            for repo in repos:
                if stopped is not None:
                    results.append({"repo": repo, "ok": False, "error": stopped})
                    continue
                try:
                    summary = ingest_github(
                        store, settings, repos=[repo], backfill=backfill, today=as_of
                    )
                except SourceError as exc:
                    stopped = str(exc).splitlines()[0]
                    results.append({"repo": repo, "ok": False, "error": stopped})
                    continue
                results.append(_outcome(repo, summary))
        finally:
            store.close()
    return results


def _outcome(repo: str, summary: Any, error: str | None = None) -> dict[str, Any]:
    """{repo, ok, requests, not_modified, changed, error} of one repository's ingest."""
    if error is None and summary.failed:  # a failing response: that step rolled back, logged
        error = "; ".join(summary.failed.values())
    if error is not None:
        return {"repo": repo, "ok": False, "error": error}
    return {
        "repo": repo,
        "ok": True,
        "requests": summary.requests,
        "not_modified": summary.not_modified,
        "changed": summary.changed,
    }


def documents(db: Path, settings: Settings) -> str:
    """(Re-)ingest the configured documents; one line."""
    from shu.evidence.document_claims import ingest_with_claims

    with _WRITER:
        store = open_for_writing(db)
        try:
            docs = ingest_with_claims(store, list(settings.document_paths))
        finally:
            store.close()
    return f"documents: {docs.added} new, {docs.changed} changed, {docs.unchanged} unchanged"


github_repo_task = task(
    name="github-repo",
    cache_policy=NO_CACHE,
    task_run_name="github {repo}",
    **IO_RETRIES,
)(github_repo)
documents_task = task(name="documents", cache_policy=NO_CACHE)(documents)


# ---------------------------------------------------------------------------- GitHub on Dask
def fetch(
    snapshot: Any, overrides: dict[str, Any] | None, as_of: date, backfill: bool
) -> dict[str, Any]:
    """One repository's GitHub fetch where the task runs (a Dask worker): settings and the token
    from the worker's environment, no store; returns {worker: 'host:pid', fetch: RepoFetch}."""
    from shu.sources.github_ingest import fetch_repo

    fetched = fetch_repo(snapshot, settings_from(overrides), backfill, as_of)
    return {"worker": f"{socket.gethostname()}:{os.getpid()}", "fetch": fetched}


fetch_task = task(
    name="github-fetch",
    cache_policy=NO_CACHE,
    task_run_name="github fetch {snapshot.repo}",
    **IO_RETRIES,
)(fetch)


@flow(name="shu-github", log_prints=True)
def github_ingest_flow(
    db: str,
    repos: list[str],
    as_of: date,
    backfill: bool = False,
    overrides: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Tracked repositories from GitHub: fetches mapped over the task runner, one writer (this
    flow, as results come back). Run it with `run_github_flow`."""
    snapshots = _snapshots(Path(db), settings_from(overrides), repos)
    futures = fetch_task.map(snapshots, unmapped(overrides), unmapped(as_of), unmapped(backfill))
    results, workers = [], set()
    for future in as_completed(futures):
        done = future.result()
        workers.add(done["worker"])
        results.append(_write_fetch(Path(db), done["fetch"]))
    order = {s.repo: i for i, s in enumerate(snapshots)}
    results.sort(key=lambda r: order.get(r["repo"], len(order)))
    return {"results": results, "workers": sorted(workers)}


def _snapshots(db: Path, settings: Settings, repos: list[str]) -> list[Any]:
    """Each repository's read-only snapshot (aliases folded), read by the flow."""
    from shu.sources.github_ingest import current_name, read_snapshot

    with _WRITER:
        store = open_for_writing(db)
        try:
            return [read_snapshot(store, current_name(store, settings, r)) for r in repos]
        finally:
            store.close()


def _write_fetch(db: Path, fetched: Any) -> dict[str, Any]:
    """The single writer: one repository's fetch into the store; the same result dict as
    `github_repo`."""
    from shu.sources.github_ingest import IngestSummary, write_fetch

    summary = IngestSummary()
    with _WRITER:
        store = open_for_writing(db)
        try:
            write_fetch(store, fetched, summary)
        except SourceError as exc:
            return _outcome(fetched.requested, summary, str(exc).splitlines()[0])
        finally:
            store.close()
    return _outcome(fetched.requested, summary)


def run_github_flow(
    db: Path | str,
    repos: list[str],
    as_of: date,
    backfill: bool = False,
    overrides: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """`github_ingest_flow` on the task runner the settings name (threads or Dask)."""
    runner = runner_for(settings_from(overrides))
    return github_ingest_flow.with_options(task_runner=runner)(
        db=str(db), repos=list(repos), as_of=as_of, backfill=backfill, overrides=overrides
    )


# ---------------------------------------------------------------------------- GH Archive
# Wraps the library function itself (pickled by reference to Dask workers; touches no store).
aggregate_task = task(name="gharchive-aggregate", cache_policy=NO_CACHE)(aggregate_files)


@flow(name="shu-gharchive", log_prints=True)
def gharchive_ingest_flow(
    db: str, paths: list[str], overrides: dict[str, Any] | None = None, fold: bool = True
) -> dict[str, Any]:
    """GH Archive files -> store: batches mapped over the task runner, one writer (this flow).

    Run it with `run_gharchive_flow` so the task runner follows the settings.
    """
    from shu.sources.gharchive import GharchiveSummary, batches, combine, pending

    settings = settings_from(overrides)
    t0 = time.perf_counter()
    store = open_for_writing(Path(db))
    try:
        todo, skipped = pending(store, paths)
    finally:
        store.close()
    summary = GharchiveSummary(files_skipped=skipped)
    n_batches, workers = 0, set()
    for file_set in batches(todo, settings.gharchive_files_per_write):
        parts = batches(file_set, settings.gharchive_batch_files)
        futures = aggregate_task.map(
            [[str(p) for p in b] for b in parts], unmapped(settings.gharchive_memory_limit)
        )
        agg = combine(f.result() for f in futures)
        summary.add(agg, _write(Path(db), agg, settings))
        n_batches += len(parts)
        workers |= agg.workers
    folded = _fold(Path(db)) if fold and summary.files_loaded else None
    summary.seconds = time.perf_counter() - t0
    get_run_logger().info("GH Archive: %s", summary.line())
    return {
        "ok": not summary.failed,
        "message": "GH Archive: " + summary.line(),
        "batches": n_batches,
        "workers": sorted(workers),
        "rows": summary.rows,
        "folded": folded,
    }


# The writer's steps are module-level functions holding the lock, so the flow's own code
# references no lock and pickles (by reference) to Dask workers.
def _write(db: Path, agg: Aggregate, settings: Settings) -> dict[str, int]:
    """The single writer: one file set's aggregates into the store, in one transaction."""
    from shu.sources.gharchive import write_aggregates

    with _WRITER:
        store = open_for_writing(db)
        try:
            return write_aggregates(store, agg, settings)
        finally:
            store.close()


def _fold(db: Path) -> dict[str, int]:
    """Re-derive `stars_daily` rows with source 'gharchive' (see shu.signals.gharchive_fold)."""
    from shu.signals.gharchive_fold import fold_into_stars_daily

    with _WRITER:
        store = open_for_writing(db)
        try:
            return fold_into_stars_daily(store)
        finally:
            store.close()


def run_gharchive_flow(
    db: Path | str, paths: list[str], overrides: dict[str, Any] | None = None, fold: bool = True
) -> dict[str, Any]:
    """`gharchive_ingest_flow` on the task runner the settings name (threads or Dask)."""
    runner = runner_for(settings_from(overrides))
    return gharchive_ingest_flow.with_options(task_runner=runner)(
        db=str(db), paths=[str(p) for p in paths], overrides=overrides, fold=fold
    )


# ---------------------------------------------------------------------------- ranking files
NO_UNTRACKED_SOURCE = (
    "no daily ranking file or GH Archive hours configured (ranking_files, "
    "gharchive_paths): untracked repositories keep the counts the store has, "
    "and the radar forecasts from the newest of them"
)


def ranking(db: Path, settings: Settings, as_of: date) -> tuple[bool, str]:
    """Load the day's ranking files (`settings.ranking_files`, '{day}' = YYYY-MM-DD) into
    `stars_daily`; (all found and loaded, one line). A missing file is named, not fatal."""
    from shu.sources.ranking import import_ranking

    ok, notes = True, []
    for pattern in settings.ranking_files:
        path = Path(pattern.replace("{day}", as_of.isoformat()))
        if not path.exists():
            ok = False
            notes.append(f"ranking: no file for {as_of} at {path}")
            continue
        with _WRITER:
            store = open_for_writing(db)
            try:
                load = import_ranking(store, path, settings)
            except InputError as exc:  # malformed: nothing of it was written
                ok = False
                notes.append(f"ranking: {str(exc).splitlines()[0]}")
                continue
            finally:
                store.close()
        notes.append(
            f"ranking: {load.rows_inserted:,} new and {load.rows_updated:,} updated "
            f"counts from {path}"
        )
    return ok, "; ".join(notes)


ranking_task = task(name="ranking", cache_policy=NO_CACHE)(ranking)


# ---------------------------------------------------------------------------- the stage
def ingest(
    db: Path,
    settings: Settings,
    as_of: date,
    backfill: bool = False,
    overrides: dict[str, Any] | None = None,
) -> StageReport:
    """The daily ingest stage: each source loaded, one line each; a source that fails (GitHub
    unreachable, a repository that keeps failing, a missing ranking file) is a problem line and
    the others still load."""
    from prefect.context import FlowRunContext

    in_flow = FlowRunContext.get() is not None
    repos = [r.repo for r in settings.repos]
    _RUN_STOPPED.pop((str(db), as_of), None)
    if settings.task_runner == "dask" and repos:
        results = run_github_flow(db, repos, as_of, backfill, overrides)["results"]
    elif in_flow:
        results = [
            f.result()
            for f in github_repo_task.map(
                unmapped(db), unmapped(settings), unmapped(as_of), unmapped(backfill), repos
            )
        ]
    else:
        results = github_repos(db, settings, as_of, backfill, repos)
    _RUN_STOPPED.pop((str(db), as_of), None)
    notes, problems = [], []
    good = [r for r in results if r["ok"]]
    failed = [r for r in results if not r["ok"]]
    if good:
        notes.append(
            f"GitHub: {sum(r['requests'] for r in good)} requests "
            f"({sum(r['not_modified'] for r in good)} not modified), "
            f"{sum(r['changed'] for r in good)} rows changed"
        )
    if failed:
        problems.append(_github_failed(failed, len(results)))
        notes.append(problems[-1])
    if settings.document_paths:
        notes.append((documents_task if in_flow else documents)(db, settings))
    if settings.ranking_files:
        loaded, message = (ranking_task if in_flow else ranking)(db, settings, as_of)
        notes.append(message)
        if not loaded:
            problems.append(message)
    if settings.gharchive_paths:
        gha = run_gharchive_flow(db, list(settings.gharchive_paths), overrides)
        notes.append(gha["message"])
        if not gha["ok"]:
            problems.append(gha["message"])
    if not settings.ranking_files and not settings.gharchive_paths:
        notes.append(NO_UNTRACKED_SOURCE)
    return StageReport.of(
        "ingest",
        notes,
        problems,
        counts={"github_repos": len(results), "github_failed": len(failed)},
    )


def _github_failed(failed: list[dict[str, Any]], tried: int) -> str:
    """One line for the repositories GitHub did not answer for: all of them (unreachable, with
    the first reason) or some (each named)."""
    if len(failed) == tried:
        # which repository's request failed first varies with the threads: its path is left
        # out, so the same outage reads the same in every run's briefing
        reason = _REPO_PATH.sub("/repos/OWNER/NAME", failed[0]["error"])
        return (
            f"GitHub unreachable, none of the {tried} tracked repositories updated "
            f"({reason}); the briefing uses the store as it is"
        )
    return f"GitHub failed for {len(failed)} of {tried} repositories: " + "; ".join(
        f"{r['repo']} ({r['error']})" for r in failed
    )
