"""Progress bars for long commands: one shared helper, rich bars with a rate and an ETA.

Library code that loops over slow steps (imports, backfills, signals, training, backtests) wraps
the loop in `progress(...)` and calls `advance()`; it never checks where it runs. The bar is
drawn on stderr only when that is a terminal, and stays silent under `shu --quiet` (or
`SHU_QUIET=1`), in CI logs (`CI` set), under `TERM=dumb`, and inside Prefect flows (no TTY) —
so logs and captured output never fill with carriage returns.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

T = TypeVar("T")
_state = {"quiet": False}


def set_quiet(quiet: bool) -> None:
    """Silence (or re-enable) every progress bar of this process (`shu --quiet`)."""
    _state["quiet"] = quiet


def enabled() -> bool:
    """Whether bars are drawn: not quiet, stderr is a terminal, and not a CI log."""
    if _state["quiet"] or os.environ.get("SHU_QUIET", "").lower() in ("1", "true", "yes"):
        return False
    if os.environ.get("CI") or os.environ.get("TERM") == "dumb":
        return False
    return sys.stderr.isatty()


class Tracker:
    """Handle on one bar; every method is a no-op when bars are disabled."""

    def __init__(self, bar: Progress | None, task: TaskID | None) -> None:
        self._bar, self._task = bar, task
        self.completed: float = 0

    def advance(self, n: float = 1, note: str | None = None) -> None:
        """Count `n` more units done; `note` replaces the text after the description."""
        self.completed += n
        if self._bar is not None and self._task is not None:
            fields: dict[str, Any] = {"note": note} if note is not None else {}
            self._bar.update(self._task, advance=n, **fields)

    def total(self, total: float | None) -> None:
        """Set (or correct) the number of units once it is known."""
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, total=total)


@contextlib.contextmanager
def progress(
    description: str, total: float | None = None, unit: str = "steps"
) -> Iterator[Tracker]:
    """A bar for `total` units of `unit` (None: unknown; it then shows a pulse and the rate)."""
    if not enabled():
        yield Tracker(None, None)
        return
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[note]}"),
        console=Console(stderr=True),
        transient=True,
    )
    with bar:
        task = bar.add_task(description, total=total, note="", rate="")
        yield _RateTracker(bar, task, unit)


class _RateTracker(Tracker):
    """A Tracker that also shows the rate (units per second) since the bar started."""

    def __init__(self, bar: Progress, task: TaskID, unit: str) -> None:
        super().__init__(bar, task)
        self._unit = unit

    def advance(self, n: float = 1, note: str | None = None) -> None:
        super().advance(n, note)
        assert self._bar is not None and self._task is not None
        elapsed = self._bar.tasks[self._task].elapsed or 0.0
        if elapsed > 0:
            self._bar.update(self._task, rate=f"{self.completed / elapsed:,.1f} {self._unit}/s")


def track(
    items: Iterable[T], description: str, total: int | None = None, unit: str = "items"
) -> Iterator[T]:
    """Iterate `items` under a bar (total from len() when it has one)."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with progress(description, total, unit) as bar:
        for item in items:
            yield item
            bar.advance()
