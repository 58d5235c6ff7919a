"""Progress bars: drawn with rate and ETA on a real terminal (a pty), silent otherwise."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

import pytest

BAR_SCRIPT = """
import time
from shu.progress import track
for _ in track(range(4), "fitting", unit="models"):
    time.sleep(0.15)
print("done")
"""


def _run_in_pty(args: list[str], env: dict[str, str]) -> str:
    """Run `args` with stdout/stderr on a pseudo-terminal; return everything it wrote."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(args, stdin=follower, stdout=follower, stderr=follower, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks).decode("utf-8", "replace")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "SHU_QUIET")}
    env.update({"TERM": "xterm", "COLUMNS": "160"})
    env.update(extra)
    return env


def test_bar_on_a_terminal_shows_rate_and_eta():
    out = _run_in_pty([sys.executable, "-c", BAR_SCRIPT], _env())
    assert "fitting" in out and "models/s" in out and "ETA" in out
    assert "done" in out


@pytest.mark.parametrize("extra", [{"CI": "true"}, {"SHU_QUIET": "1"}, {"TERM": "dumb"}])
def test_silent_in_ci_quiet_or_dumb_terminal(extra):
    out = _run_in_pty([sys.executable, "-c", BAR_SCRIPT], _env(**extra))
    assert "done" in out and "fitting" not in out


def test_silent_when_stderr_is_not_a_terminal():
    proc = subprocess.run(
        [sys.executable, "-c", BAR_SCRIPT], capture_output=True, text=True, env=_env(), check=True
    )
    assert proc.stderr == "" and proc.stdout.strip() == "done"


def test_quiet_flag_of_the_cli(tmp_path):
    csv = tmp_path / "long.csv"
    csv.write_text("day,repo,stars\n2024-01-01,a/b,5\n", encoding="utf-8")
    args = [
        sys.executable,
        "-m",
        "shu",
        "--quiet",
        "ingest",
        "ranking",
        str(csv),
        "--db",
        str(tmp_path / "s.duckdb"),
    ]
    out = _run_in_pty(args, _env())
    assert "inserted 1" in out and "ranking long.csv" not in out
