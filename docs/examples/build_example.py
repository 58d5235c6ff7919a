"""Rebuild the example briefing in docs/examples/ from the real data in ../shared.

What it loads (into a scratch store, default /tmp/shu-example/shu.duckdb):
- the daily ranking snapshots (`shu ingest ranking ../shared/data/stars/stars_daily.parquet`),
  and the descriptions of the newest raw daily file (raw-sample/github-ranking-2026-02-28.csv),
  which the radar's topic filter reads;
- the git histories of the tracked repositories that have one (keras-team/keras, ollama/ollama,
  mudler/LocalAI): their commit and tag tables are served by the local GitHub API server and
  read by the real GitHub client (stargazer endpoints off, so star counts stay the ranking's);
- all 22 history exports through `shu ingest history` (commits and tags of repositories
  already read through the API are kept as read), so the ROCm templates train on every history;
- the project's own notes in docs/notes/ and the vendor-blog-style pages written for this
  example in docs/examples/corpus/ (their hardware and compiler claims are checked against the
  probe runs) as the document corpus (never ../shared/seeds), each keyed by its path under the
  project's root (`docs/notes/…`), so a store built from one checkout and composed from another
  holds every document once;
then refreshes signals, ingests the probe run committed under docs/ when there is one, replays
the days from --replay-from to the day before --day (`shu replay` of REPLAY_TEMPLATES at 30
days: forecasts issued and resolved day by day on the data as it was, models refitted monthly on
outcomes known before) and the breakout radar over every repository on weekly origins, trains
the forecaster through --day into data/example-models/ (git-ignored; the model-card receipts name
that project path), issues its forecasts, runs the breakout radar on --day itself (as `shu daily`
does; the example model's star_breakout forecaster, else the shipped one) and writes the
briefing for the last day of star data (2026-02-28) into docs/examples/; its track record is
the replay's.

Usage: .venv/bin/python docs/examples/build_example.py [--store PATH] [--day 2026-02-28]
       [--replay-from 2025-08-28] [--backtest BACKTEST.json] [--retrain] [--replay-only]
       [--out DIR] [--compose-only]

It ends by printing what the note measures (`benchmarks/note_metrics.py`: body and card words,
jargon, At a glance sentences, links, receipts, the velocity cards against their interval).

A replay already recorded in the store's `replay_runs` for the same days is not run again, so
the build can stop after the replays (`--replay-only`, the long part) and go on later.
"""

from __future__ import annotations

import argparse
import os
import time
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from shu.settings import Settings
    from shu.store import Store

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"
# each in its category of the default field watchlist (training frameworks, local-model apps)
TRACKED = [
    "pytorch/pytorch",
    "tensorflow/tensorflow",
    "keras-team/keras",
    "ollama/ollama",
    "mudler/LocalAI",
]
# What the replay issues daily (the cards' templates at 30 days: the star questions the headline
# picks from most often, the interval that leads each card, and the ROCm questions); refitting
# every template at every horizon monthly would take hours on a shared 2-core machine.
REPLAY_TEMPLATES = (
    "star_accel_reach",
    "star_velocity_up",
    "star_velocity_interval",
    "rocm_share_reach",
    "rocm_release_mention",
)
# The breakout radar is replayed on weekly origins (its features over every repository in the
# store cost seconds an origin), up to the last origin whose 30 days end by --day, so the
# briefing's track record scores it; then the radar runs on --day itself (`issue_radar`), as
# `shu daily` does, so "Breaking out" shows the day's radar.
RADAR_EVERY_DAYS = 7
RADAR_HORIZON_DAYS = 30  # the radar's horizon, as the briefing's "Breaking out" reads it
WITH_HISTORY = {"keras-team/keras": "master", "ollama/ollama": "main", "mudler/LocalAI": "master"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=Path("/tmp/shu-example/shu.duckdb"))
    parser.add_argument("--day", type=date.fromisoformat, default=date(2026, 2, 28))
    parser.add_argument(
        "--backtest",
        type=Path,
        default=ROOT / "docs" / "forecast" / "backtest.json",
        help="`shu backtest --out` JSON for the model card "
        "(its per-band hit rates back 'Why this confidence level').",
    )
    parser.add_argument(
        "--retrain",
        action="store_true",
        help="Train again even when a model exists (e.g. to put a new backtest in its card).",
    )
    parser.add_argument(
        "--replay-only",
        action="store_true",
        help="Stop after the replays "
        "(a later run on the same store skips them and trains, issues and "
        "writes the briefing).",
    )
    parser.add_argument(
        "--replay-from",
        type=date.fromisoformat,
        default=None,
        help="First replayed day [default: --day minus 184 days].",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=ROOT / "docs" / "examples",
        help="Folder the briefing is written to [default: docs/examples]; "
        "another folder composes it from the same store without touching the "
        "committed example.",
    )
    parser.add_argument(
        "--compose-only",
        action="store_true",
        help="Only compose the "
        "briefing from a store already built, trained and issued (no ingest, "
        "replay, training or issuing).",
    )
    args = parser.parse_args()
    os.chdir(ROOT)

    from shu.evidence.document_claims import ingest_with_claims
    from shu.settings import TrackedRepo, load_settings
    from shu.snapshot import open_for_writing
    from shu.sources.github_ingest import ingest_github
    from shu.sources.ranking import import_ranking
    from shu.testing.datasets import repo_from_history
    from shu.testing.github_server import GitHubAPIServer

    args.store.parent.mkdir(parents=True, exist_ok=True)
    settings = load_settings(
        db=args.store,
        reports_dir=args.out,
        models_dir=Path("data") / "example-models",  # under ROOT (the cwd): no machine path
        repos=[TrackedRepo(repo=r) for r in TRACKED],
    )
    with open_for_writing(args.store) as store:
        if args.compose_only:
            compose(store, settings, args.day)
            return
        if not store.con.execute("SELECT count(*) FROM stars_daily").fetchall()[0][0]:
            print(import_ranking(store, SHARED / "stars" / "stars_daily.parquet", settings).message)
        # The newest daily file's descriptions, so the radar's topic filter reads what each
        # repository is (a re-run changes nothing). Descriptions only: 9 of its 3,449 star
        # counts differ from the long table's for that day (repeats resolved differently),
        # which stay as stored.
        print(
            import_ranking(
                store,
                SHARED / "stars" / "raw-sample" / "github-ranking-2026-02-28.csv",
                settings,
                descriptions_only=True,
            ).message
        )
        served = []
        for i, (repo, branch) in enumerate(WITH_HISTORY.items()):
            record = repo_from_history(
                SHARED / "history",
                repo,
                SHARED / "stars" / "stars_daily.parquet",
                repo_id=1000 + i,
                default_branch=branch,
            )
            record.stargazer_history_available = False
            record.stargazers_available = False
            served.append(record)
        with GitHubAPIServer(served) as server:
            local = settings.model_copy(update={"github_api_url": server.url})
            summary = ingest_github(
                store, local, repos=list(WITH_HISTORY), backfill=True, today=args.day
            )
            print(f"histories: {summary.requests} requests, {summary.changed} rows changed")
        from shu.sources.history import ingest_history

        loaded = ingest_history(store, [SHARED / "history"], settings)
        print(
            f"history exports: {sum(r.commits.inserted for r in loaded):,} commits, "
            f"{sum(r.releases.inserted for r in loaded):,} version tags new"
        )
        docs = ingest_with_claims(  # keyed by their paths under ROOT: one row per document,
            store,  # whichever checkout built the store and whichever composes from it
            sorted((ROOT / "docs" / "notes").glob("*.md"))
            + sorted((ROOT / "docs" / "examples" / "corpus").glob("*.md")),
            root=ROOT,
        )
        print(
            f"notes and corpus: {docs.added} new, {docs.changed} changed, "
            f"{docs.unchanged} unchanged"
        )

        from shu.signals import refresh_signals

        print("signals:", refresh_signals(store, full=True, settings=settings))

        from shu.probe_ingest import ingest_probe_file

        for probe_json in sorted((ROOT / "docs" / "probe").glob("*.json")):
            print("probe:", ingest_probe_file(store, probe_json).message)

        from shu.forecast.live.replay import replay

        store.con.execute("SET memory_limit = '8GB'")
        start = args.replay_from or args.day - timedelta(days=184)
        runs = [
            (start, args.day - timedelta(days=1), REPLAY_TEMPLATES, 1),
            (start, args.day - timedelta(days=30), ("star_breakout",), RADAR_EVERY_DAYS),
        ]
        for first, last, templates, every in runs:
            if store.con.execute(
                "SELECT count(*) FROM replay_runs WHERE day_from = ? AND day_to = ?", [first, last]
            ).fetchall()[0][0]:
                print(
                    f"replay {first}..{last} of {', '.join(templates)}: already in this "
                    "store (replay_runs), not run again"
                )
                continue
            t0 = time.perf_counter()
            replay(store, first, last, settings, templates, (30,), every_days=every)
            print(
                f"replay {first}..{last} of {', '.join(templates)}, every {every} day(s): "
                f"{time.perf_counter() - t0:.0f} s"
            )
        if args.replay_only:
            return
        train_and_issue(store, settings, args.day, args.backtest, args.retrain)
        issue_radar(store, settings, args.day)
        compose(store, settings, args.day)


def issue_radar(store: Store, settings: Settings, day: date) -> None:
    """Run the breakout radar on `day` itself, as `shu daily` does (`issue_forecasts` with the
    star_breakout forecaster at 30 days, its answers read from the same model's interval
    distributions), so the briefing shows the day's radar and not the last replayed origin's:
    the example model's star_breakout forecaster when it has one, else the shipped model's
    (models/). A re-run issues nothing new."""
    from shu.forecast.live.issue import issue_forecasts
    from shu.forecast.models.artifact import load_forecasters, model_path

    for models_dir in (settings.models_dir, ROOT / "models"):
        path = model_path(settings.model_copy(update={"models_dir": Path(models_dir)}))
        if not path.exists():
            continue
        version, forecasters = load_forecasters(path)
        radar = [
            fc
            for fc in forecasters
            if fc.template in ("star_breakout", "star_velocity_interval")
            and fc.horizon_days == RADAR_HORIZON_DAYS
        ]
        if any(fc.template == "star_breakout" for fc in radar):
            store.con.execute("SET memory_limit = '8GB'")
            # no tracked repository: the tracked ones have their forecasts (and intervals) from
            # the example model; the radar's answers are read from the interval model's
            # distributions, one per repository, as in `shu daily`
            issued = issue_forecasts(
                store,
                origin=day,
                settings=settings.model_copy(update={"repos": [], "questions": []}),
                forecasters=radar,
                model_version=version,
            )
            print(f"radar on {day} ({version}): {len(issued)} new forecasts")
            return
    print(f"radar on {day}: no star_breakout/{RADAR_HORIZON_DAYS} forecaster in any model")


def compose(store: Store, settings: Settings, day: date) -> None:
    """Write the briefing of `day` and print what the note measures (benchmarks/note_metrics.py)."""
    import subprocess
    import sys

    from shu.briefing.compose import compose_briefing

    result = compose_briefing(store, day, settings)
    shown = result.path.relative_to(ROOT) if result.path.is_relative_to(ROOT) else result.path
    print(
        f"wrote {shown}: {result.title} ({result.n_forecasts} cards, {result.n_receipts} receipts)"
    )
    subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "note_metrics.py"), str(result.path)],
        check=False,
    )


def train_and_issue(
    store: Store, settings: Settings, day: date, backtest_json: Path, retrain: bool
) -> None:
    """Train the forecaster on the store (with the backtest in its card when the file exists),
    resolve what has resolved, and issue the forecasts of `day`."""
    import json

    from shu.forecast.evaluation.model_card import write_model_card
    from shu.forecast.live.issue import issue_forecasts
    from shu.forecast.live.resolve import resolve_forecasts
    from shu.forecast.models.artifact import model_path, save_forecasters
    from shu.forecast.models.train import train_forecasters

    backtest = (
        json.loads(backtest_json.read_text(encoding="utf-8")) if backtest_json.exists() else None
    )
    if retrain or not model_path(settings).exists():
        store.con.execute("SET memory_limit = '8GB'")
        store.con.execute("SET preserve_insertion_order = false")
        result = train_forecasters(store)
        artifact = save_forecasters(model_path(settings), result.forecasters, result.version)
        write_model_card(settings.models_dir, result, artifact, backtest)
    print("resolved:", resolve_forecasts(store, as_of=day))
    print("issued:", len(issue_forecasts(store, origin=day, settings=settings)))


if __name__ == "__main__":
    main()
