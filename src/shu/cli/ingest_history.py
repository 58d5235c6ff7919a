"""`shu ingest history`: load git-derived history exports (commits, tags, release notes)."""

from __future__ import annotations

from pathlib import Path

import typer

from shu.cli import DbOption, console, db_path, ingest_app
from shu.store import open_store


@ingest_app.command("history")
def history(
    paths: list[Path] = typer.Argument(
        ...,
        help="Export directories or files named "
        "<owner>__<name>.{commits,tags,release_notes}.csv[.gz].",
    ),
    db: Path = DbOption,
) -> None:
    """Load commit/tag/release-note history exports into `commits` and `releases` (no network).

    One transaction per repository; a re-run changes nothing. Columns are described in
    docs/history-import.md.

    Example: shu ingest history data/history/
    """
    from shu.settings import get_settings
    from shu.sources.history import ingest_history

    with open_store(db_path(db)) as store:
        results = ingest_history(store, paths, get_settings())
    for r in results:
        console.print(
            f"{r.repo}: {r.commits_read:,} commits ({r.commits.inserted:,} new, "
            f"{r.commits.updated:,} updated); {r.version_tags:,} version tags "
            f"({r.releases.inserted:,} new, {r.releases.updated:,} updated); "
            f"{r.notes_matched} release-note sections attached, "
            f"{r.notes_unmatched} matched no tag",
            highlight=False,
        )
