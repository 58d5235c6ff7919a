"""What the daily ranking files say about a repository besides its counts: its description and
primary language, written into `repos` so that the radar's topic filter can judge an untracked
repository by what it is (dify: 'LLM app development platform'), not by its name alone.

Precedence, per repository:
- the GitHub API's record wins: a row whose description the API wrote (`repo_id` set, or a
  description with no `described_on`) is never changed by a ranking file;
- otherwise the newest day wins: a file's description replaces the stored one only when its day
  is the stored `described_on` or later, so loading an older file after a newer one changes
  nothing;
- an empty description or language never erases a stored one (the newest non-empty is kept).
Within a load, a repository listed several times (several lists, several days, old spellings)
takes the values of its last listing of its newest day. Rows are written only where something
changes, so a re-run leaves `repos` as it was. The text is untrusted: it is stored as published
and rendered only through `shu.safe_markdown`.
"""

from __future__ import annotations

from pathlib import Path

from shu.settings import Settings
from shu.store import Store, utcnow

STAGED = "_rank_about"


def stage(store: Store, parquet: Path) -> None:
    """Stage the files' (repo, day, ord, description, language) rows, spooled to `parquet`
    (`ord`: their order read, files by day and lines in order), as a view over that file."""
    literal = "'" + str(parquet).replace("'", "''") + "'"  # a view cannot take a parameter
    store.con.execute(
        f"CREATE OR REPLACE TEMP VIEW {STAGED} AS SELECT * FROM read_parquet({literal})"
    )


def drop(store: Store) -> None:
    """Drop the staged rows (none staged: nothing to do)."""
    store.con.execute(f"DROP VIEW IF EXISTS {STAGED}")


def write(store: Store, settings: Settings) -> int:
    """Write the staged descriptions and languages into `repos` under each repository's current
    name (`_rank_names`, built by `ranking_merge.fold_names`), by the module's precedence.
    Returns the number of repositories written (inserted or changed)."""
    con = store.con
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE _rank_about_new AS
        SELECT n.repo, max(a.day) AS described_on,
               arg_max(a.description, a.ord) FILTER (WHERE trim(a.description) <> '')
                   AS description,
               arg_max(a.language, a.ord) FILTER (WHERE trim(a.language) <> '') AS language
        FROM {STAGED} a JOIN _rank_names n ON n.raw = a.repo
        GROUP BY n.repo
        HAVING description IS NOT NULL OR language IS NOT NULL""")
    rows = con.execute("""
        SELECT a.repo, coalesce(a.description, r.description), coalesce(a.language, r.language),
               a.described_on
        FROM _rank_about_new a LEFT JOIN repos r ON r.repo = a.repo
        WHERE r.repo IS NULL
           OR (r.repo_id IS NULL AND NOT (r.description IS NOT NULL AND r.described_on IS NULL)
               AND a.described_on >= coalesce(r.described_on, DATE '0001-01-01')
               AND (r.description IS DISTINCT FROM coalesce(a.description, r.description)
                    OR r.language IS DISTINCT FROM coalesce(a.language, r.language)
                    OR r.described_on IS DISTINCT FROM a.described_on))
        ORDER BY a.repo""").fetchall()
    con.execute("DROP TABLE _rank_about_new")
    if not rows:
        return 0
    import pandas as pd

    stored = {
        r[0]
        for r in con.execute(
            "SELECT repo FROM repos WHERE repo IN (SELECT unnest(?))", [[r[0] for r in rows]]
        ).fetchall()
    }
    now = utcnow()
    frame = pd.DataFrame(
        [
            {
                "repo": repo,
                "description": description,
                "language": language,
                "described_on": day,
                "updated_at": now,
            }
            for repo, description, language, day in rows
        ]
    )
    new = frame[~frame["repo"].isin(stored)].copy()
    if len(new):
        # A repository first seen here: tracked or not by the configuration.
        new["category"] = [settings.category_of(r) for r in new["repo"]]
        new["is_tracked"] = new["category"].notna()
        store.upsert("repos", new, keys_unique=True)
    changed = frame[frame["repo"].isin(stored)]
    if len(changed):
        store.upsert("repos", changed, keys_unique=True)
    return len(rows)
