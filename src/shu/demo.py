"""`shu demo`: the whole chain offline, on the clearly labelled synthetic sample of
`shu.testing.demo_sample`, through the same code paths as a real day.

`run_demo(out)` serves the sample's repositories through the local GitHub API stand-in, loads
them with the real client, replays past days so forecasts resolve, then runs the Prefect daily
flow once; `train_demo_model` trains the templates a briefing headlines on what the store holds
and records a walk-forward backtest in the model card.

The demo is meant to take under a minute on two cores, so the work that does not depend on what
comes before it runs beside it: the ephemeral Prefect server starts on a thread at the outset
(`shu.flows.prefect_env.start_server_early`), and the backtest runs in a process of its own on a
copy of the store as trained (`backtest_elsewhere`) while the past days are replayed.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shu.settings import Settings
from shu.store import utcnow
from shu.testing.demo_sample import OWNER, SEED, DemoSample, as_of, synthetic_sample
from shu.testing.github_server import GitHubAPIServer

if TYPE_CHECKING:
    from shu.forecast.models.train import TrainResult

REPLAY_DAYS = 35
REPLAY_STEP = 14
# The demo trains the templates and horizons a briefing headlines (training all of them is what
# `shu train` does; here it would cost most of the demo's minute), and one ROCm template for
# the ROCm adoption cards (`rocm_share_reach` has too few "yes" in the sample's stable shares).
DEMO_TEMPLATES = (
    "star_accel_reach",
    "star_accel_fall",
    "star_velocity_up",
    "release_within",
    "star_velocity_interval",
    "rocm_release_mention",
    "star_breakout",
)
DEMO_HORIZONS = (7, 30)
# The walk-forward backtest recorded in the demo's model card, so the briefing's skill gate
# (`forecast.skill`) judges the sample's models as it judges real ones: the card templates at
# 30 days over the 300 days before training.
DEMO_BACKTEST_TEMPLATES = ("star_accel_reach", "star_velocity_up", "star_velocity_interval")
DEMO_BACKTEST_DAYS = 300
# Questions the demo declares (`[[questions]]` in a user's shu.toml): each gets its card whatever
# its probability or skill, as a user's would.
DEMO_QUESTIONS = (
    {
        "repo": f"{OWNER}/tensorforge",
        "template": "star_accel_reach",
        "threshold": 2.0,
        "horizon": 30,
    },
    {
        "repo": f"{OWNER}/servelite",
        "template": "rocm_release_mention",
        "threshold": 1.0,
        "horizon": 30,
    },
)


def run_demo(out: Path, seed: int = SEED, say: Callable[[str], None] = print) -> Path:
    """Generate the sample, serve it locally, run the real chain, and return the briefing path.

    1. A fresh demo store under `out`; the repositories served by the local GitHub API server as
       they stood REPLAY_DAYS ago; a backfill through the real client; the untracked
       repositories' counts to that day from a ranking file; signals; the synthetic probe result
       ingested; the forecaster trained on that history only (its backtest runs meanwhile, in a
       process of its own, and goes into the model card before the daily flow).
    2. Replay: every REPLAY_STEP days the server shows the next days, their ranking counts are
       loaded and the same stages run (ingest, signals, resolve, forecast), so forecasts issued
       during the replay resolve and the briefing has a track record that no model saw in
       advance.
    3. Today: the server shows everything, the counts up to yesterday are loaded, today's
       daily ranking file is written where `ranking_files` points, and the Prefect daily flow
       runs once (loading that file); its briefing says on its first line that the data is
       synthetic.
    """
    from shu.flows import ingest, stages
    from shu.flows.daily import daily_flow
    from shu.flows.prefect_env import start_server_early
    from shu.flows.stages import settings_from
    from shu.forecast.evaluation.model_card import write_model_card
    from shu.forecast.models.artifact import model_path

    t0 = time.perf_counter()
    prefect = start_server_early()  # answering by the time the daily flow runs

    def elapsed() -> str:
        return f"[{time.perf_counter() - t0:5.1f} s]"

    today = utcnow().date()
    out.mkdir(parents=True, exist_ok=True)
    db = out / "demo.duckdb"
    for old in (
        db,
        db.with_name(db.name + ".wal"),
        out / "snapshot",
        out / "models",
        out / "ranking",
    ):
        if old.is_dir():
            shutil.rmtree(old)
        elif old.exists():
            old.unlink()
    sample = synthetic_sample(today, seed)
    sample.write_notes(out / "notes")
    probe_json = out / "probe-synthetic.json"
    probe_json.write_text(json.dumps(sample.probe, indent=1), encoding="utf-8")
    start = today - timedelta(days=REPLAY_DAYS)
    config = write_demo_config(out, db, sample)
    say(f"{elapsed()} store {db.resolve()}")
    with GitHubAPIServer([as_of(r, start) for r in sample.repos]) as server:
        # the settings the tools read from that file, plus the local server (gone after the demo)
        overrides = {**read_config_file(config), "github_api_url": server.url}
        settings = settings_from(overrides)
        say(
            f"{elapsed()} serving {len(sample.repos)} synthetic repositories at {server.url}, "
            f"as of {start}"
        )
        backfill = ingest.ingest(db, settings, start, backfill=True)
        say(f"{elapsed()} backfill: {backfill.notes[0]}")
        prefect.check()  # a server that could not start stops the demo now, not at its end
        loaded = _load_untracked(db, settings, sample, out, date.min, start)
        say(f"{elapsed()} untracked repositories (ranking file): {loaded}")
        stages.signals(db, settings)
        trained, line = train_demo_forecaster(db, settings, probe_json)
        say(f"{elapsed()} {line}")
        backtested = backtest_elsewhere(db, out / "backtest.duckdb", trained.trained_through)
        for step in range(0, REPLAY_DAYS, REPLAY_STEP):
            day = start + timedelta(days=step)
            for repo in sample.repos:
                server.add_repo(as_of(repo, day))
            ingest.ingest(db, settings, day)
            _load_untracked(db, settings, sample, out, start + timedelta(days=1), day)
            stages.signals(db, settings)
            resolved = stages.resolve(db, day)
            issued = stages.forecast(db, settings, day)
            say(f"{elapsed()} replay {day}: resolved {resolved.message}; {issued.message}")
        for repo in sample.repos:
            server.add_repo(repo)
        _load_untracked(
            db, settings, sample, out, day + timedelta(days=1), today - timedelta(days=1)
        )
        sample.write_daily_ranking(out / "ranking", today)  # the daily flow loads it
        write_model_card(Path(settings.models_dir), trained, model_path(settings), backtested())
        say(f"{elapsed()} model card with the walk-forward backtest of the card templates")
        prefect.wait()
        result = daily_flow(
            as_of=today, db=str(db), reports_dir=str(out), synthetic=True, overrides=overrides
        )
    for stage in result.values():
        say(f"{stage['stage']}: {stage['message']}")
    say(f"store: {db.resolve()}")
    say(f"its settings: {config.resolve()} (SHU_CONFIG={config.resolve()} shu radar)")
    say(f"{elapsed()} done")
    return Path(result["briefing"]["counts"]["path"])


def demo_settings(out: Path, db: Path, sample: DemoSample) -> dict[str, Any]:
    """The settings the demo runs with, as `write_demo_config` writes them (absolute paths, so
    the file reads the same from any folder)."""
    out = out.resolve()
    return {
        "db": str(db.resolve()),
        "reports_dir": str(out),
        "models_dir": str(out / "models"),
        "document_paths": [str(out / "notes")],
        "ranking_files": [str(out / "ranking" / "github-ranking-{day}.csv")],
        # the sample's untracked repositories are named radar-NN: list them all
        "radar_keywords": [],
        "aliases": {},
        "repos": [r.model_dump() for r in sample.tracked],
        "questions": list(DEMO_QUESTIONS),
    }


def write_demo_config(out: Path, db: Path, sample: DemoSample) -> Path:
    """Write the demo's settings (`demo_settings`) to `out/shu.toml`, where `SHU_CONFIG` points
    the tools at them (`SHU_CONFIG=out/shu.toml shu radar` lists what the demo's
    briefing radar lists); returns its path."""
    path = out / "shu.toml"
    head = (
        "# The settings `shu demo` ran with. Point the tools at them, e.g.\n"
        f"#   SHU_CONFIG={path.resolve()} shu radar\n"
    )
    path.write_text(head + toml_text(demo_settings(out, db, sample)), encoding="utf-8")
    return path


def read_config_file(path: Path) -> dict[str, Any]:
    """The settings a shu.toml written by `write_demo_config` holds."""
    import tomllib

    return tomllib.loads(path.read_text(encoding="utf-8"))


def toml_text(settings: dict[str, Any]) -> str:
    """`settings` (strings, numbers, booleans, lists of them, string tables, lists of tables)
    as TOML: plain keys first, then each list of tables as `[[key]]` sections."""
    tables = {
        k: v
        for k, v in settings.items()
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v)
    }
    lines = [f"{k} = {_toml_value(v)}" for k, v in settings.items() if k not in tables]
    for key, rows in tables.items():
        for row in rows:
            lines += ["", f"[[{key}]]", *(f"{k} = {_toml_value(v)}" for k, v in row.items())]
    return "\n".join(lines) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return (
            "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"
        )
    raise TypeError(f"no TOML form for {type(value).__name__}: {value!r}")


def _load_untracked(
    db: Path, settings: Settings, sample: DemoSample, out: Path, first: date, last: date
) -> str:
    """Load the untracked repositories' counts of days first..last (a long ranking file)."""
    from shu.snapshot import open_for_writing
    from shu.sources.ranking import import_ranking

    path = sample.write_ranking(out / "ranking" / f"history-{last}.csv", first, last)
    store = open_for_writing(db)
    try:
        load = import_ranking(store, path, settings)
    finally:
        store.close()
    return f"{load.rows_inserted:,} counts of {len(sample.untracked)} repositories"


def train_demo_forecaster(
    db: Path,
    settings: Settings,
    probe_json: Path,
    templates: tuple[str, ...] = DEMO_TEMPLATES,
    horizons: tuple[int, ...] = DEMO_HORIZONS,
) -> tuple[TrainResult, str]:
    """Ingest the synthetic probe result and train the forecaster on what the store holds (the
    ROCm template with `rocm.ESTIMATOR`, as `shu train` does); save it where `settings` says.
    Returns the training result and one line about it (the model card is written by the
    caller, with the backtest)."""
    from shu.forecast.models.artifact import model_path, save_forecasters
    from shu.forecast.models.train import train_forecasters
    from shu.probe_ingest import ingest_probe_file
    from shu.snapshot import open_for_writing

    store = open_for_writing(db)
    try:
        probe = ingest_probe_file(store, probe_json).message
        result = train_forecasters(
            store, templates=templates, horizons=horizons, log=lambda _line: None
        )
    finally:
        store.close()
    save_forecasters(model_path(settings), result.forecasters, result.version)
    return result, (
        f"synthetic probe {probe}; model {result.version} trained through "
        f"{result.trained_through} ({len(result.forecasters)} template x horizon models, "
        f"{len(result.skipped)} skipped)"
    )


def demo_backtest(db: Path | str, last: date) -> dict[str, Any]:
    """The walk-forward backtest of the card templates at 30 days over the DEMO_BACKTEST_DAYS
    before `last` (the day the forecaster was trained through), read-only on the store at `db`."""
    from shu.forecast.evaluation.backtest import BacktestConfig, backtest_report
    from shu.store import open_store

    with open_store(db, read_only=True) as store:
        return backtest_report(
            store.con,
            BacktestConfig(
                start=last - timedelta(days=DEMO_BACKTEST_DAYS),
                end=last,
                templates=DEMO_BACKTEST_TEMPLATES,
                horizons=(30,),
            ),
            log=lambda _line: None,
        )


def backtest_elsewhere(db: Path, copy: Path, last: date) -> Callable[[], dict[str, Any]]:
    """`demo_backtest` in a process of its own (`python -m shu.demo`), on a copy of the store as
    it is now (the main process writes the store meanwhile, and DuckDB lets no other process
    read a file being written): on two cores it runs beside the replayed days. Returns
    `result()`, which waits for it, removes the copy and returns the backtest's metrics."""
    import subprocess
    import sys

    for suffix in ("", ".wal"):
        src, dst = Path(f"{db}{suffix}"), Path(f"{copy}{suffix}")
        dst.unlink(missing_ok=True)
        if src.exists():
            shutil.copyfile(src, dst)
    answer = copy.with_suffix(".json")
    answer.unlink(missing_ok=True)
    proc = subprocess.Popen(
        [sys.executable, "-m", "shu.demo", str(copy), last.isoformat(), str(answer)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )

    def result() -> dict[str, Any]:
        try:
            _, err = proc.communicate()
            if proc.returncode != 0:
                last_line = (err.strip().splitlines() or ["no output"])[-1]
                raise RuntimeError(f"the demo's backtest failed: {last_line}")
            metrics: dict[str, Any] = json.loads(answer.read_text(encoding="utf-8"))
            return metrics
        finally:
            for path in (copy, Path(f"{copy}.wal"), answer):
                path.unlink(missing_ok=True)

    return result


def train_demo_model(
    db: Path,
    settings: Settings,
    probe_json: Path,
    templates: tuple[str, ...] = DEMO_TEMPLATES,
    horizons: tuple[int, ...] = DEMO_HORIZONS,
) -> str:
    """Train the forecaster (`train_demo_forecaster`) and write its model card with the
    walk-forward backtest of the card templates (`demo_backtest`), in this process."""
    from shu.forecast.evaluation.model_card import write_model_card
    from shu.forecast.models.artifact import model_path

    result, line = train_demo_forecaster(db, settings, probe_json, templates, horizons)
    backtest = demo_backtest(db, result.trained_through)
    write_model_card(Path(settings.models_dir), result, model_path(settings), backtest)
    return line


if __name__ == "__main__":  # `backtest_elsewhere`'s worker: STORE LAST_DAY ANSWER.json
    import sys

    _store, _last, _answer = sys.argv[1:4]
    _metrics = demo_backtest(Path(_store), date.fromisoformat(_last))
    Path(_answer).write_text(json.dumps(_metrics, default=str), encoding="utf-8")
