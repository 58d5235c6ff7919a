"""The daily chain's stages as plain functions: each opens the store, does one thing, closes it.

Every stage is idempotent (a re-run the same day converges to the same store and issues no
second or changed forecast) and holds the DuckDB write lock only while it runs, so analysts'
readers get in between stages (and read the snapshot during one). The Prefect flows in
`shu.flows.daily` wrap these as tasks; nothing here imports Prefect. `settings_from` gives
every flow its settings (the GitHub token is never a flow parameter). The ingest stage fans out
over Prefect tasks, so it lives in `shu.flows.ingest` (one path for the daily flow, the demo and
the tests).

A store with no data yet (`shu.store.first_data_day` is None) gets a run that says so: nothing to
forecast, the probe left for a day with data (`shu probe` runs it alone), and a briefing that
says there is no data and names the commands that load some.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from shu.errors import ConfigError
from shu.settings import Settings, load_settings
from shu.snapshot import open_for_writing, refresh_snapshot
from shu.store import NO_DATA, first_data_day


def settings_from(overrides: dict[str, Any] | None) -> Settings:
    """Settings for a flow run: environment / shu.toml plus non-secret overrides."""
    overrides = dict(overrides or {})
    if {"github_token", "GITHUB_TOKEN"} & set(overrides):
        raise ConfigError("the GitHub token cannot be a flow parameter; set GITHUB_TOKEN")
    return load_settings(**overrides)


@dataclass
class StageReport:
    """What a stage did: one line (`message`), or several (`notes`, each a source or a step;
    `message` joins them), the lines that report a problem (`problems`, a subset of `notes`:
    an unreachable source, a failed repository), and counts for the flow's summary."""

    stage: str
    message: str
    ok: bool = True
    counts: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @classmethod
    def of(
        cls,
        stage: str,
        notes: list[str],
        problems: list[str],
        counts: dict[str, Any] | None = None,
    ) -> StageReport:
        """A report of several lines; ok when none of them is a problem."""
        return cls(stage, "; ".join(notes), not problems, counts or {}, notes, problems)

    def lines(self) -> list[tuple[str, bool]]:
        """(line, is a problem) for each line `shu daily` prints: 'stage: note'."""
        if not self.notes:
            return [(f"{self.stage}: {self.message}", not self.ok)]
        return [(f"{self.stage}: {n}", n in self.problems) for n in self.notes]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def signals(db: Path, settings: Settings) -> StageReport:
    """Refresh the signal tables incrementally (categories from settings)."""
    from shu.signals import refresh_signals

    store = open_for_writing(db)
    try:
        result = refresh_signals(store, full=False, settings=settings)
        rows = sum(v.get("rows", 0) for v in result.values() if isinstance(v, dict))
        return StageReport(
            "signals",
            f"{rows:,} signal rows written in {result['seconds']} s",
            counts={"rows": rows},
        )
    finally:
        store.close()


def resolve(db: Path, as_of: date) -> StageReport:
    """Resolve every forecast whose horizon has passed by `as_of`."""
    store = open_for_writing(db)
    try:
        if first_data_day(store.con) is None:
            return StageReport("resolve", f"nothing to resolve: {NO_DATA}")
        from shu.forecast.live.resolve import resolve_forecasts

        counts = resolve_forecasts(store, as_of=as_of)
        return StageReport(
            "resolve", ", ".join(f"{k} {v}" for k, v in counts.items()), counts=counts
        )
    finally:
        store.close()


def forecast(db: Path, settings: Settings, as_of: date) -> StageReport:
    """Issue the forecasts of `as_of` for the tracked repositories and the radar (existing ones
    are left alone), only questions that resolve after `as_of`: a radar whose repositories'
    counts end more than its horizon before it asks nothing about a day already past."""
    store = open_for_writing(db)
    try:
        if first_data_day(store.con) is None:
            return StageReport("forecast", f"nothing to forecast from: {NO_DATA}")
        from shu.forecast.models.artifact import model_path
        from shu.operations.forecast import issue

        if not model_path(settings).exists():
            return StageReport(
                "forecast",
                f"no trained model at {model_path(settings)} (run `shu train`, or unset "
                "models_dir for the shipped model); no forecast issued",
                ok=False,
            )
        issued = issue(store, settings, as_of, resolving_after=as_of)
        return StageReport(
            "forecast",
            f"{len(issued)} new forecasts (existing ones are never changed)",
            counts={"issued": len(issued)},
        )
    finally:
        store.close()


def probe(db: Path, settings: Settings, as_of: date) -> StageReport:
    """Run the probe locally when the latest run is older than settings.probe_max_age_days."""
    from shu.evidence.probe_runs import latest_probe_age_days

    store = open_for_writing(db)
    try:
        if first_data_day(store.con) is None:
            return StageReport("probe", f"not run: {NO_DATA} (`shu probe` runs it on its own)")
        age = latest_probe_age_days(store, as_of)
        if age is not None and age <= settings.probe_max_age_days:
            return StageReport("probe", f"latest probe run is {age} days old: reused")
        try:
            from shu.probe.runner import run_probe
        except ImportError:
            latest = "none stored" if age is None else f"the latest is {age} days old"
            return StageReport(
                "probe",
                f"probe due but torch is not installed here (pip install 'shu[probe]'); {latest}",
                ok=False,
            )
        from shu.probe_ingest import store_probe_document

        load = store_probe_document(store, run_probe(suite="quick"), "shu daily")
        return StageReport("probe", f"probe {load.message}")
    finally:
        store.close()


def briefing(
    db: Path,
    settings: Settings,
    as_of: date,
    *,
    reports_dir: Path | None = None,
    synthetic: bool = False,
    notices: list[str] | None = None,
) -> StageReport:
    """Compose and record the briefing for `as_of`."""
    from shu.briefing.compose import compose_briefing

    store = open_for_writing(db)
    try:
        result = compose_briefing(
            store, as_of, settings, reports_dir=reports_dir, synthetic=synthetic, notices=notices
        )
        counts = {
            "path": str(result.path),
            "title": result.title,
            "stale": result.stale_repos,
            "no_data": result.no_data,
        }
        if result.no_data:
            return StageReport(
                "briefing",
                f"wrote {result.path}: no data yet, the page says so and names the commands "
                "that load data",
                counts=counts,
            )
        return StageReport(
            "briefing",
            f"wrote {result.path} ({result.n_forecasts} forecast "
            f"cards, {result.n_receipts} receipts)",
            counts=counts,
        )
    finally:
        store.close()


def snapshot(db: Path) -> StageReport:
    """Refresh the analysts' read-only snapshot of the store."""
    store = open_for_writing(db)
    try:
        return StageReport("snapshot", f"snapshot at {refresh_snapshot(store)}")
    finally:
        store.close()
