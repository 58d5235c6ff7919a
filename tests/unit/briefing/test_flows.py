"""The flows' wiring without running them: schedule, entry points, no token as a parameter."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from shu.errors import ConfigError
from shu.settings import load_settings

ROOT = Path(__file__).resolve().parents[3]


def test_serve_builds_the_daily_deployment_on_the_configured_cron() -> None:
    from shu.flows.deploy import deployments

    built = {d.name: d for d in deployments(load_settings(schedule_cron="15 7 * * *"))}
    assert set(built) == {"shu-daily", "shu-probe", "shu-backtest"}
    schedules = built["shu-daily"].schedules
    assert [s.schedule.cron for s in schedules] == ["15 7 * * *"]
    assert not built["shu-probe"].schedules


def test_default_schedule_is_six_utc() -> None:
    assert load_settings().schedule_cron == "0 6 * * *"


@pytest.mark.parametrize("name", ["daily", "backtest", "probe", "deploy"])
def test_top_level_entry_points_import(name: str) -> None:
    spec = importlib.util.spec_from_file_location(f"flows_{name}", ROOT / "flows" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.__all__


def test_the_token_is_never_a_flow_parameter() -> None:
    from shu.flows.stages import settings_from

    with pytest.raises(ConfigError, match="token"):
        settings_from({"github_token": "ghp_secret"})
    assert settings_from({"reports_dir": "x"}).reports_dir == Path("x")
