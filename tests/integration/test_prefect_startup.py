"""When the ephemeral Prefect server does not start in time, `shu daily` and `shu demo` say so in
one line (what to set, or to run a server) and exit 1: no Prefect traceback. A start-up timeout
of 1 s is never enough for the server to answer."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize("command", [["daily"], ["demo", "--out", "demo"]])
def test_a_server_that_does_not_start_in_time_is_one_line(tmp_path: Path, command) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SHU_", "PREFECT_")) and k != "GITHUB_TOKEN"
    }
    env |= {
        "PREFECT_HOME": str(tmp_path / "prefect"),
        "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "1",
        "SHU_GITHUB_API_URL": "https://api.github.invalid",
    }
    run = subprocess.run(
        [sys.executable, "-m", "shu", *command],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=900,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr, run.stderr
    assert run.stderr.splitlines() == [
        "error: the ephemeral Prefect server did not answer within 1 s "
        "(PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS=1): on a busy machine set it higher "
        "(shu's default is 180), or run `prefect server start` and set "
        "PREFECT_API_URL=http://127.0.0.1:4200/api"
    ], run.stderr
