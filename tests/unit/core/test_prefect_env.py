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


def test_the_server_gets_a_start_up_timeout_for_a_busy_machine(clean_env):
    clean_env.delenv(prefect_env.STARTUP_TIMEOUT, raising=False)
    prefect_env.startup_timeout()
    assert os.environ[prefect_env.STARTUP_TIMEOUT] == str(prefect_env.STARTUP_TIMEOUT_S)
    assert prefect_env.STARTUP_TIMEOUT_S > 20  # Prefect's own default, too short under load
    clean_env.setenv(prefect_env.STARTUP_TIMEOUT, "45")
    prefect_env.startup_timeout()
    assert os.environ[prefect_env.STARTUP_TIMEOUT] == "45"  # the user's own value wins


def test_a_server_that_does_not_start_is_one_line(clean_env):
    from shu.errors import ShuError

    clean_env.setenv(prefect_env.STARTUP_TIMEOUT, "7")
    with pytest.raises(ShuError) as caught, prefect_env.prefect_start_errors():
        raise RuntimeError(prefect_env.STARTUP_FAILED + ". stdout: ... stderr: ...")
    message = str(caught.value)
    assert "\n" not in message and "did not answer within 7 s" in message
    assert "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS" in message
    assert "PREFECT_API_URL" in message
    with pytest.raises(RuntimeError, match="something else"), prefect_env.prefect_start_errors():
        raise RuntimeError("something else")  # other errors pass through unchanged
