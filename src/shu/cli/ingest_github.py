"""`shu ingest github`, `shu ingest git` and `shu ingest docs`: thin commands over shu.sources."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table as RichTable

from shu.cli import (
    PARTIAL_EXIT,
    DbOption,
    console,
    db_path,
    err_console,
    ingest_app,
    json_option,
    print_json,
    repo_name,
)
from shu.snapshot import open_for_writing

if TYPE_CHECKING:
    from shu.sources.github_ingest import IngestSummary


@ingest_app.command("github")
def github(
    repo: list[str] = typer.Option(
        None,
        "--repo",
        metavar="OWNER/NAME",
        help="Repository (repeatable); default: every tracked repository.",
    ),
    backfill: bool = typer.Option(
        False,
        "--backfill",
        help="Fetch whole histories (every "
        "star-history page, commit and release), not just what is new.",
    ),
    as_json: bool = json_option(
        "Print a JSON object instead of the table: rows inserted and updated per table, the "
        "repositories, the requests and the rate budget (failures still on stderr)."
    ),
    db: Path = DbOption,
) -> None:
    """Load repository snapshots, star history, commits and releases from the GitHub API.

    Uses GITHUB_TOKEN when set and SHU_GITHUB_API_URL (default https://api.github.com); sends
    conditional requests, so a re-run with nothing new costs only 304s. A repository whose
    responses are malformed or keep failing is named on stderr and in ingest_log while the others
    load; the exit status is then 3.

    \b
    Example: shu ingest github --backfill
    Example: shu ingest github --repo ollama/ollama
    """
    from shu.settings import get_settings
    from shu.sources.github_ingest import STEPS, ingest_github

    settings = get_settings()
    tracked = {r.repo.lower(): r.repo for r in settings.repos}
    names = [tracked.get(n.lower(), n) for n in (repo_name(r, "--repo") for r in repo or [])]
    names = list(dict.fromkeys(names)) or list(tracked.values())
    from shu.progress import progress

    with (
        open_for_writing(db_path(db)) as store,
        progress("GitHub", total=len(names) * len(STEPS), unit="steps") as bar,
    ):
        summary = ingest_github(
            store,
            settings,
            repos=names,
            backfill=backfill,
            progress=lambda name, step: bar.advance(note=f"{name}: {step}"),
        )
    if as_json:
        print_json(
            {
                "tables": {
                    name: {"inserted": r.inserted, "updated": r.updated}
                    for name, r in sorted(summary.rows.items())
                },
                "repositories": summary.repos,
                "requests": summary.requests,
                "not_modified": summary.not_modified,
                "retries": summary.retries,
                "rate_remaining": summary.rate_remaining,
                "rate_limit": summary.rate_limit,
                "rate_reset": summary.rate_reset,
                "notes": summary.notes,
                "failed": summary.failed,
            }
        )
    else:
        _print_summary(summary)
    for name, reason in summary.failed.items():
        err_console.print(
            f"failed: {name}: {reason}", highlight=False, markup=False, soft_wrap=True
        )
    if summary.failed:
        raise typer.Exit(PARTIAL_EXIT)


def _print_summary(summary: IngestSummary) -> None:
    """What `shu ingest github` loaded, as a table and lines: rows per table, the repositories,
    the requests and the rate budget, GitHub's notes."""
    table = RichTable("table", "inserted", "updated", title="shu ingest github")
    for name, result in sorted(summary.rows.items()):
        table.add_row(name, f"{result.inserted:,}", f"{result.updated:,}")
    console.print(table)
    budget = "unknown"
    if summary.rate_remaining is not None:
        budget = f"{summary.rate_remaining:,}/{summary.rate_limit or 0:,}"
        if summary.rate_reset:
            reset = datetime.fromtimestamp(summary.rate_reset, UTC).strftime("%H:%M UTC")
            budget += f" (resets {reset})"
    console.print(f"repositories: {', '.join(summary.repos) or 'none'}")
    console.print(
        f"requests: {summary.requests} ({summary.not_modified} answered 304 "
        f"Not Modified; {summary.retries} retries)  rate budget left: {budget}"
    )
    for note in summary.notes:
        console.print(f"note: {note}", highlight=False)


@ingest_app.command("git")
def git(
    path: Path = typer.Argument(..., help="A local clone (working tree or bare)."),
    repo: str = typer.Option(
        ..., "--repo", metavar="OWNER/NAME", help="The repository it is a clone of."
    ),
    db: Path = DbOption,
) -> None:
    """Load commits and version tags from a local git clone (no network).

    Example: shu ingest git ~/src/pytorch --repo pytorch/pytorch
    """
    from shu.settings import get_settings
    from shu.sources.git import ingest_git

    name = repo_name(repo, "--repo")
    with open_for_writing(db_path(db)) as store:
        result = ingest_git(store, path, name, get_settings())
    console.print(
        f"{result.repo}: {result.commits_read:,} commits read "
        f"({result.commits.inserted:,} new, {result.commits.updated:,} updated); "
        f"{result.tags_read:,} version tags ({result.releases.inserted:,} new, "
        f"{result.releases.updated:,} updated)",
        highlight=False,
    )


@ingest_app.command("docs")
def docs(
    paths: list[Path] = typer.Argument(..., help="Files or directories (markdown, HTML, text)."),
    db: Path = DbOption,
) -> None:
    """Load documents into the corpus (one file = one document), split into passages.

    Unchanged files (same content hash) are skipped.

    Example: shu ingest docs docs/notes/
    """
    from shu.evidence.document_claims import ingest_with_claims

    with open_for_writing(db_path(db)) as store:
        result = ingest_with_claims(store, paths)
    console.print(
        f"{result.read} documents read: {result.added} new, {result.changed} changed, "
        f"{result.unchanged} unchanged; {result.passages} passages written; "
        f"{result.claims} claims extracted",
        highlight=False,
    )
