"""Benchmark: what `shu ingest github` costs in requests for the three default repositories.

Target: the daily incremental run costs <= 15 requests when nothing changed (304s
included). Serves the real histories in ../shared/data through the local GitHub API server
(commits and tags of ollama/ollama, pytorch/ao for pytorch, tensorflow/tfjs for tensorflow;
each one's real daily star counts as star history), then runs, each in a fresh client:
a full backfill, the same backfill again, a daily run, and a daily run after one new commit,
one new release and a new day of stars. Prints requests, 304s and seconds for each.

    python benchmarks/bench_github_requests.py [--shared ../shared] [--max-commits 1000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

from shu.settings import load_settings
from shu.sources.github_ingest import client_for, ingest_github
from shu.store import open_store
from shu.testing.datasets import default_repos_from_history
from shu.testing.github_server import CommitRecord, GitHubAPIServer, ReleaseRecord

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--max-commits", type=int, default=1000)
    args = parser.parse_args()
    repos = default_repos_from_history(args.shared, max_commits=args.max_commits)
    day = max(r.star_counts[-1][0] for r in repos) + timedelta(days=1)
    with (
        GitHubAPIServer(repos) as server,
        tempfile.TemporaryDirectory() as tmp,
        open_store(Path(tmp) / "bench.duckdb") as store,
    ):
        settings = load_settings(github_api_url=server.url)

        def run(label: str, today: date, backfill: bool) -> None:
            t0 = time.perf_counter()
            summary = ingest_github(
                store, settings, backfill=backfill, today=today, client=client_for(store, settings)
            )
            seconds = time.perf_counter() - t0
            changed = {t: r.inserted + r.updated for t, r in summary.rows.items()}
            print(
                f"{label:<34} requests={summary.requests:>4}  304s={summary.not_modified:>3}"
                f"  {seconds:6.2f}s  rows changed={changed}"
            )

        run("backfill (empty store)", day, backfill=True)
        run("backfill again (nothing changed)", day, backfill=True)
        run("daily, next day, nothing changed", day + timedelta(days=1), backfill=False)
        newest = max(c.committed_at for c in server.repo("ollama/ollama").commits)
        server.add_commits(
            "ollama/ollama",
            [
                CommitRecord(
                    sha="e" * 40,
                    authored_at=newest,
                    committed_at=newest + timedelta(hours=1),
                    author_name="Dev",
                    author_email="dev@example.com",
                    message="new",
                    parents=[],
                )
            ],
        )
        server.add_release(
            "ollama/ollama", ReleaseRecord(tag="v99.0.0", published_at=newest + timedelta(hours=2))
        )
        last_day, last_stars = server.repo("ollama/ollama").star_counts[-1]
        server.set_stars("ollama/ollama", last_day + timedelta(days=1), last_stars + 80)
        run("daily, ollama changed", day + timedelta(days=2), backfill=False)


if __name__ == "__main__":
    main()
