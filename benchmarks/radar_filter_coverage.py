"""How many repositories of the star data the radar's default topic filter keeps, judged on
names alone and on names plus the descriptions the ranking files carry, and how many it leaves out
that a match on the owner's name would keep (imported with the
ranking importer into a scratch store, so the figure is what `shu` itself would see).

Run: ./.venv/bin/python benchmarks/radar_filter_coverage.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import duckdb

from shu.forecast.radar.topics import matches, radar_keywords
from shu.settings import get_settings
from shu.sources.ranking import import_ranking
from shu.store import open_store

STARS = Path("../shared/data/stars")


def main() -> None:
    """Print the counts kept by names alone and by names with descriptions."""
    parquet, raw = STARS / "stars_daily.parquet", STARS / "raw-sample"
    if not parquet.exists() or not raw.exists():
        print(f"skipped: {parquet} or {raw} is absent")
        return
    names = [
        r[0]
        for r in duckdb.connect()
        .execute(f"SELECT DISTINCT repo FROM read_parquet('{parquet}') ORDER BY 1")
        .fetchall()
    ]
    with tempfile.TemporaryDirectory() as tmp, open_store(Path(tmp) / "s.duckdb") as store:
        import_ranking(store, raw, settings=get_settings())
        described = {
            repo.lower(): text
            for repo, text in store.con.execute(
                "SELECT repo, description FROM repos WHERE description IS NOT NULL"
            ).fetchall()
        }
    keywords = radar_keywords(get_settings())
    by_name = sum(matches(keywords, repo) for repo in names)
    with_text = sum(matches(keywords, repo, described.get(repo.lower())) for repo in names)
    n_described = sum(repo.lower() in described for repo in names)
    print(f"repositories in {parquet.name}: {len(names):,}")
    print(f"with a description from {raw}/ (all files): {n_described:,}")
    print(f"default filter keeps by name alone: {by_name:,}")
    print(f"default filter keeps by name and description: {with_text:,}")
    owner_only = sum(
        not matches(keywords, repo, described.get(repo.lower()))
        and matches(keywords, repo.split("/")[0])
        for repo in names
    )
    print(f"left out though their owner's name carries a keyword: {owner_only:,}")
    for repo in ("langgenius/dify", "open-webui/open-webui", "comfyanonymous/ComfyUI"):
        print(f"  {repo}: {matches(keywords, repo, described.get(repo.lower()))}")


if __name__ == "__main__":
    main()
