"""Read-only snapshots of the store, so analysts can read while a flow writes.

DuckDB allows one writing process and no reader beside it. The daily flow therefore ends every
run by refreshing a copy of the store at `<store dir>/snapshot/<store name>`: it checkpoints (the
WAL is folded into the file), copies the file to a temporary name and renames it into place
(atomic on POSIX, so a reader sees the old copy or the new one, never half of one). Readers use
`open_for_reading`: the live store when it is free, else the snapshot, with a note saying how old
it is. Writers use `open_for_writing`, which waits (bounded) for readers of the live store to
finish instead of failing at once.
"""

from __future__ import annotations

import os
import shutil
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from shu.errors import StoreError
from shu.store import Store, open_store

LOCKED = "being written by another process"


def snapshot_path(db: Path | str) -> Path:
    """Where the snapshot of the store at `db` lives."""
    db = Path(db)
    return db.parent / "snapshot" / db.name


def refresh_snapshot(store: Store) -> Path:
    """Copy the (writable, open) store to its snapshot path atomically; returns the path."""
    target = snapshot_path(store.path)
    target.parent.mkdir(parents=True, exist_ok=True)
    store.con.execute("CHECKPOINT")
    partial = target.with_name(target.name + ".partial")
    shutil.copyfile(store.path, partial)
    os.replace(partial, target)
    return target


def open_for_reading(
    db: Path | str, config: dict[str, Any] | None = None
) -> tuple[Store, str | None]:
    """The live store read-only, or its snapshot when a writer holds the store.

    `config` is extra DuckDB configuration for the connection (e.g. `shu.analyst`'s
    confinement). Returns the store and a one-line note when the snapshot is used (None
    otherwise).
    """
    try:
        return Store(db, read_only=True, config=config), None
    except StoreError as exc:
        snap = snapshot_path(db)
        if LOCKED not in str(exc) or not snap.exists():
            raise
    taken = datetime.fromtimestamp(snap.stat().st_mtime, UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (
        Store(snap, read_only=True, config=config),
        f"{db} is being written by a running flow; reading its snapshot of {taken}",
    )


def open_for_writing(db: Path | str, wait_s: float = 60.0) -> Store:
    """The store for writing, waiting up to `wait_s` seconds while readers hold it."""
    deadline = time.monotonic() + wait_s
    delay = 0.2
    while True:
        try:
            return open_store(db)
        except StoreError as exc:
            if LOCKED not in str(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 5.0)
