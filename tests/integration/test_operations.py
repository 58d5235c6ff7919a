"""Each operation (`shu.operations`) gives one result whichever entry point runs it: the
backtest through `shu backtest --json` and through the Prefect `backtest_flow`, ROCm templates
included (each template down its family's path); today's forecasts through `shu forecast
--json` and through the daily flow's forecast task, with the shipped model."""

from __future__ import annotations

import json
from datetime import date

from support.cli import shu
from support.forecast_data import history_store

from shu.store import Store

ROCM = ["rocm_release_mention", "rocm_share_reach"]


def _without_timings(report: dict) -> dict:
    """The report less what a run measures of itself (runtime, memory)."""
    out = {k: v for k, v in report.items() if k not in ("runtime_s", "peak_rss_mib")}
    if "rocm_config" in out:
        out["rocm_config"] = {k: v for k, v in out["rocm_config"].items() if k != "runtime_s"}
    return out


def test_rocm_backtest_is_one_report_through_the_cli_and_the_flow(tmp_path, prefect_harness):
    from shu.flows.backtest import backtest_flow

    db = tmp_path / "history.duckdb"
    history_store(db)
    args = ["--from", "2021-01-01", "--to", "2023-06-01", "--horizon", "30"]
    cli = shu("backtest", *args, "--template", ",".join(ROCM), "--json", db=db)
    assert cli.returncode == 0, cli.stderr
    printed = json.loads(cli.stdout)
    flowed = backtest_flow(
        date(2021, 1, 1), date(2023, 6, 1), db=str(db), templates=ROCM, horizons=[30]
    )
    as_printed = json.loads(json.dumps(flowed, default=str))  # tuples become lists
    assert _without_timings(as_printed) == _without_timings(printed)
    slices = printed["slices"]
    assert set(slices) == {"rocm_release_mention/30", "rocm_share_reach/30"}
    assert slices["rocm_release_mention/30"]["status"] == "scored"
    assert slices["rocm_release_mention/30"]["n"] > 1000
    # too few 'yes' in this history to score: said so, as the ROCm path does
    assert slices["rocm_share_reach/30"]["status"].startswith("too few resolved questions")
    assert printed["config"] is None and printed["rocm_config"]["templates"] == ROCM


# What differs between two issues of one forecast on two stores: when it was written.
_ISSUE_TIME = ("issued_at",)


def _forecasts(db) -> list[dict]:
    with Store(db, read_only=True) as store:
        cur = store.con.execute(
            f"SELECT * EXCLUDE ({', '.join(_ISSUE_TIME)}) FROM forecasts ORDER BY forecast_id"
        )
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def test_forecast_is_one_result_through_the_cli_and_the_flow(
    synthetic_store, tmp_path, prefect_harness
):
    """The same store forecast by `shu forecast --as-of DAY` and by the daily flow's forecast
    task (the Prefect task the flow runs, in a flow) writes the same forecasts."""
    import shutil

    from prefect import flow

    from shu.flows.daily import forecast_task
    from shu.flows.stages import settings_from

    day = synthetic_store.con.execute("SELECT max(day) FROM star_signals").fetchall()[0][0]
    synthetic_store.close()
    by_cli, by_flow = tmp_path / "cli.duckdb", tmp_path / "flow.duckdb"
    shutil.copy(synthetic_store.path, by_cli)
    shutil.copy(synthetic_store.path, by_flow)

    cli = shu("forecast", "--as-of", str(day), "--json", db=by_cli)
    assert cli.returncode == 0, cli.stderr
    printed = json.loads(cli.stdout)

    @flow(name="forecast-only")
    def forecast_only() -> dict:
        return forecast_task(by_flow, settings_from(None), day).as_dict()

    report = forecast_only()
    assert report["counts"]["issued"] == len(printed) > 0
    written = _forecasts(by_cli)
    assert written == _forecasts(by_flow)
    assert {f["forecast_id"] for f in written} == {f["forecast_id"] for f in printed}
