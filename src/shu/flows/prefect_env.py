"""The environment shu runs Prefect in: its analytics off, and a console that shows shu's lines.

Prefect reads its settings from the environment when it is imported, and the processes it starts
(the ephemeral API server, Dask workers) inherit the environment, so both are set as environment
defaults before Prefect is imported; a PREFECT_*, DASK_* or DO_NOT_TRACK variable the user set
wins.

- `analytics_off` (run when `shu.flows` is imported): Prefect's server sends a telemetry
  heartbeat and its SDK usage events unless told not to. Offline, the heartbeat printed two
  tracebacks on every `shu daily` (`sqlite3.OperationalError: database is locked` from the
  ephemeral server's SQLite, and `Failed to send telemetry` from each Dask worker's server).
  Off (PREFECT_SERVER_ANALYTICS_ENABLED=false, DO_NOT_TRACK=1) unless the shu setting
  `prefect_analytics` (SHU_PREFECT_ANALYTICS=1 or shu.toml) turns them on.
- `quiet_console` (`shu daily` and `shu demo` unless `--verbose`): Prefect's console handler
  shows warnings and errors only (PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL=WARNING: no server
  start/stop lines, no line per flow and task run), and Dask's cluster lifecycle lines are left
  out (DASK_LOGGING__DISTRIBUTED=error). Prefect's API log (the UI of a Prefect server) still
  receives every INFO line; the stages' own one-line reports are printed by the command.
"""

from __future__ import annotations

import os

ANALYTICS_OFF = {"PREFECT_SERVER_ANALYTICS_ENABLED": "false", "DO_NOT_TRACK": "1"}
QUIET_CONSOLE = {
    "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL": "WARNING",
    "DASK_LOGGING__DISTRIBUTED": "error",
}


def analytics_off() -> None:
    """Turn Prefect's analytics off in this process and those it starts, unless the shu
    setting `prefect_analytics` is on (a setting that cannot be read counts as off)."""
    from shu.errors import ShuError
    from shu.settings import load_settings

    try:
        wanted = load_settings().prefect_analytics
    except ShuError:  # the command reports a bad configuration itself, in one line
        wanted = False
    if not wanted:
        for name, value in ANALYTICS_OFF.items():
            os.environ.setdefault(name, value)


def quiet_console() -> None:
    """Leave Prefect's and Dask's INFO lines out of the console (call before Prefect is
    imported; `--verbose` skips it)."""
    for name, value in QUIET_CONSOLE.items():
        os.environ.setdefault(name, value)
