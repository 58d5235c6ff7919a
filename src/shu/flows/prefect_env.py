"""The environment shu runs Prefect in: its analytics off, a start-up timeout for a busy machine,
a console that shows shu's lines, and one line when the ephemeral server does not start.

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
- `startup_timeout` (with `analytics_off`): without PREFECT_API_URL, each `shu daily` / `shu
  demo` starts an ephemeral Prefect API server (a uvicorn process with a SQLite database) and
  waits PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS for it to answer. Prefect's 20 s is
  too short on a 2-core machine busy with other work; shu waits STARTUP_TIMEOUT_S unless the
  user set the variable.
- `prefect_start_errors`: when the server still does not answer in time, the command says so in
  one line (what to set, or to run a server of one's own) instead of Prefect's traceback.
- `start_server_early`: starts the ephemeral server on a thread while the caller does other
  work (the demo's first minute), so the flow later finds it answering.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator

ANALYTICS_OFF = {"PREFECT_SERVER_ANALYTICS_ENABLED": "false", "DO_NOT_TRACK": "1"}
STARTUP_TIMEOUT = "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS"
STARTUP_TIMEOUT_S = 180
STARTUP_FAILED = "Timed out while attempting to connect to ephemeral Prefect API server"
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


def startup_timeout() -> None:
    """Give the ephemeral Prefect server STARTUP_TIMEOUT_S to start, unless the user set
    PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS (call before Prefect is imported)."""
    os.environ.setdefault(STARTUP_TIMEOUT, str(STARTUP_TIMEOUT_S))


@contextlib.contextmanager
def prefect_start_errors() -> Iterator[None]:
    """Turn Prefect's 'timed out ... ephemeral Prefect API server' into one ShuError line."""
    from shu.errors import ShuError

    try:
        yield
    except RuntimeError as exc:
        if STARTUP_FAILED not in str(exc):
            raise
        waited = os.environ.get(STARTUP_TIMEOUT, str(STARTUP_TIMEOUT_S))
        raise ShuError(
            f"the ephemeral Prefect server did not answer within {waited} s ({STARTUP_TIMEOUT}"
            f"={waited}): on a busy machine set it higher (shu's default is "
            f"{STARTUP_TIMEOUT_S}), or run `prefect server start` and set "
            "PREFECT_API_URL=http://127.0.0.1:4200/api"
        ) from None


class EarlyStart:
    """An ephemeral Prefect server being started on a thread (`start_server_early`)."""

    def __init__(self, thread: threading.Thread | None, failure: list[BaseException]) -> None:
        self._thread = thread
        self._failure = failure

    def check(self) -> None:
        """Raise now what starting the server raised, if it has failed already."""
        if self._failure:
            raise self._failure[0]

    def wait(self) -> None:
        """Block until the server answers; raise what starting it raised."""
        if self._thread is not None:
            self._thread.join()
        self.check()


def start_server_early() -> EarlyStart:
    """Start the ephemeral Prefect server on a thread now (nothing to do when PREFECT_API_URL
    names a server). Call `wait()` before running a flow (the flow must not find it half
    started), `check()` between steps to stop early when it could not start."""
    if os.environ.get("PREFECT_API_URL"):
        return EarlyStart(None, [])
    from prefect.server.api.server import SubprocessASGIServer

    failure: list[BaseException] = []

    def start() -> None:
        try:
            SubprocessASGIServer().start()
        except BaseException as exc:  # handed to the caller's thread by wait() / check()
            failure.append(exc)

    thread = threading.Thread(target=start, name="prefect-server-start", daemon=True)
    thread.start()
    return EarlyStart(thread, failure)
