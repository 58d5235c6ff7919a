"""Repository identity: folding old names (configured aliases, case variants, GitHub renames)
into one current 'owner/name' across every table that has a `repo` column."""

from __future__ import annotations

from shu.schema import ALL_TABLES
from shu.store import Store, utcnow

# The description the offline GitHub stand-in and the demo give their generated repositories; a
# store holding one is briefed with the SYNTHETIC DATA banner.
SYNTHETIC_MARK = "(synthetic test data)"


def holds_synthetic(store: Store) -> bool:
    """Whether any repository in the store came from generated sample data (`SYNTHETIC_MARK`)."""
    row = store.con.execute(
        "SELECT 1 FROM repos WHERE ends_with(description, ?) LIMIT 1", [SYNTHETIC_MARK]
    ).fetchone()
    return row is not None


def record_alias(store: Store, alias: str, repo: str, source: str) -> None:
    """Remember that `alias` now means `repo` (idempotent); `source` says how it became known
    ('config' or 'github-301')."""
    if alias == repo:
        return
    store.con.execute(
        "INSERT INTO repo_aliases VALUES (?, ?, ?, ?) ON CONFLICT (alias) DO UPDATE SET "
        "repo = excluded.repo, source = excluded.source",
        [alias, repo, source, utcnow()],
    )


def rename_repo(store: Store, old: str, new: str, source: str) -> int:
    """Move every row stored under `old` to `new` (rows already under `new` win); returns rows
    moved. Runs in one transaction with the alias record."""
    moved = 0
    with store.transaction():
        for table in ALL_TABLES:
            if "repo" not in table.column_names or table.name == "repo_aliases" or table.view_sql:
                continue
            other_keys = [k for k in table.primary_key if k != "repo"]
            if table.primary_key and "repo" in table.primary_key and other_keys:
                match = " AND ".join(f'n."{k}" = o."{k}"' for k in other_keys)
                store.con.execute(
                    f'DELETE FROM "{table.name}" o WHERE o.repo = ? AND EXISTS '
                    f'(SELECT 1 FROM "{table.name}" n WHERE n.repo = ? AND {match})',
                    [old, new],
                )
            elif table.primary_key == ("repo",):
                exists = store.con.execute(
                    f'SELECT count(*) FROM "{table.name}" WHERE repo = ?', [new]
                ).fetchall()[0][0]
                if exists:
                    store.con.execute(f'DELETE FROM "{table.name}" WHERE repo = ?', [old])
                    continue
            moved += store.con.execute(
                f'UPDATE "{table.name}" SET repo = ? WHERE repo = ?', [new, old]
            ).fetchall()[0][0]
        record_alias(store, old, new, source)
    return moved
