"""Prefect's environment under shu: analytics off unless the setting says so, a quiet console."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from shu.flows import prefect_env

NAMES = [*prefect_env.ANALYTICS_OFF, *prefect_env.QUIET_CONSOLE]


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    for name in [*NAMES, "SHU_PREFECT_ANALYTICS", "SHU_CONFIG"]:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no shu.toml around
    return monkeypatch


def test_analytics_are_off_by_default(clean_env):
    prefect_env.analytics_off()
    assert os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] == "false"
    assert os.environ["DO_NOT_TRACK"] == "1"


def test_the_setting_turns_them_on(clean_env):
    clean_env.setenv("SHU_PREFECT_ANALYTICS", "1")
    prefect_env.analytics_off()
    assert not {"PREFECT_SERVER_ANALYTICS_ENABLED", "DO_NOT_TRACK"} & set(os.environ)


def test_the_users_own_prefect_variables_win(clean_env):
    clean_env.setenv("PREFECT_SERVER_ANALYTICS_ENABLED", "true")
    clean_env.setenv("PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL", "DEBUG")
    prefect_env.analytics_off()
    prefect_env.quiet_console()
    assert os.environ["PREFECT_SERVER_ANALYTICS_ENABLED"] == "true"
    assert os.environ["PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL"] == "DEBUG"
    assert os.environ["DASK_LOGGING__DISTRIBUTED"] == "error"


def test_prefect_imported_after_shu_flows_has_analytics_off(clean_env):
    """What Prefect itself reads, in a fresh process that imports a flow the way `shu` does."""
    code = (
        "import shu.flows.daily, prefect.settings as s; "
        "print(s.get_current_settings().server.analytics_enabled)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
