"""Deployments: `shu serve` serves the daily flow on settings.schedule_cron (default 06:00 UTC).

`flow.serve`-style serving: one long-lived process registers the deployments with the Prefect
API (PREFECT_API_URL, e.g. a `prefect server start` instance whose UI shows the runs) and runs
each scheduled run in a subprocess. The probe and backtest flows are served without a schedule,
to be triggered from the UI or `prefect deployment run`.
"""

from __future__ import annotations

from prefect import serve

from shu.flows.backtest import backtest_flow
from shu.flows.daily import daily_flow
from shu.flows.probe import probe_flow
from shu.settings import Settings


def deployments(settings: Settings) -> list:
    """The deployments shu serves: daily on the cron schedule, probe and backtest on demand."""
    return [
        daily_flow.to_deployment(
            name="shu-daily",
            cron=settings.schedule_cron,
            description="ingest -> signals -> resolve -> forecast -> probe -> briefing",
        ),
        probe_flow.to_deployment(name="shu-probe", parameters={"force": False}),
        backtest_flow.to_deployment(name="shu-backtest"),
    ]


def serve_all(settings: Settings) -> None:
    """Serve the deployments until interrupted (the schedule keeps running after Ctrl-C)."""
    serve(*deployments(settings), pause_on_shutdown=False)
