"""The daily flow: ingest -> signals -> resolve -> forecast -> probe (when due) -> briefing.

A thin Prefect `@flow` over `@task`-wrapped stages from `shu.flows.stages`; ingestion fans out
as mapped tasks (one per repository, one per GH Archive batch: `shu.flows.ingest`). Only the I/O
stages (ingest, snapshot) retry. Each stage is idempotent, so a re-run the same day converges and
changes no forecast. Settings come from the environment / shu.toml plus `overrides` (non-secret
settings only: the GitHub token is never a flow parameter, so it never reaches Prefect's
database). Run it with `shu daily`; `shu serve` runs it on `settings.schedule_cron`. Each stage's
report goes to the `shu.stages` logger as the stage finishes, one record per line (a source, a
step; WARNING for a problem: what `shu daily` prints) and, all together at the end, to the flow
run's log.
"""

from __future__ import annotations

import logging
from datetime import date
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger, task
from prefect.cache_policies import NO_CACHE

from shu.flows import ingest, stages
from shu.flows.stages import settings_from
from shu.store import utcnow

IO_RETRIES: dict[str, Any] = {"retries": 2, "retry_delay_seconds": [2, 10]}
# Each stage's one-line report as it finishes (INFO; WARNING when it failed): `shu daily` prints
# these as the run goes; elsewhere they reach the root logger like any library's log.
STAGES = logging.getLogger("shu.stages")

signals_task = task(name="signals", cache_policy=NO_CACHE)(stages.signals)
resolve_task = task(name="resolve", cache_policy=NO_CACHE)(stages.resolve)
forecast_task = task(name="forecast", cache_policy=NO_CACHE)(stages.forecast)
probe_task = task(name="probe", cache_policy=NO_CACHE)(stages.probe)
briefing_task = task(name="briefing", cache_policy=NO_CACHE)(stages.briefing)
snapshot_task = task(name="snapshot", cache_policy=NO_CACHE, **IO_RETRIES)(stages.snapshot)


@flow(name="shu-daily", log_prints=True)
def daily_flow(
    as_of: date | None = None,
    db: str | None = None,
    reports_dir: str | None = None,
    synthetic: bool = False,
    backfill: bool = False,
    overrides: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The whole daily chain for `as_of` (default today, UTC); returns each stage's report."""
    logger = get_run_logger()
    settings = settings_from(overrides)
    as_of = as_of or utcnow().date()
    path = Path(db) if db else settings.db
    reports: list[stages.StageReport] = []

    def finished(report: stages.StageReport) -> stages.StageReport:
        reports.append(report)
        for line, problem in report.lines():
            STAGES.log(logging.WARNING if problem else logging.INFO, "%s", line)
        return report

    # ---------------------------------------------------------------- inputs
    ingested = finished(ingest.ingest(path, settings, as_of, backfill, overrides))  # fanned out
    notices = list(ingested.problems)  # each source that failed, one notice each
    finished(signals_task(path, settings))
    # ---------------------------------------------------------------- forecasts
    finished(resolve_task(path, as_of))
    forecasted = finished(forecast_task(path, settings, as_of))
    if not forecasted.ok:
        notices.append(forecasted.message)
    probed = finished(probe_task(path, settings, as_of))
    if not probed.ok:
        notices.append(probed.message)
    # ---------------------------------------------------------------- outputs
    finished(
        briefing_task(
            path,
            settings,
            as_of,
            reports_dir=Path(reports_dir) if reports_dir else None,
            synthetic=synthetic,
            notices=notices,
        )
    )
    finished(snapshot_task(path))
    for report in reports:  # the run's log in Prefect (its UI), all stages together
        for line, _ in report.lines():
            logger.info("%s", line)
    return {r.stage: r.as_dict() for r in reports}
