"""`shu daily` as a new user first runs it: no data, no internet (a GitHub host that does not
resolve). No retries, one line per source that could not be read, a run and a briefing that say
there is no data and name the commands that load some, exit status 3. (How long it takes is
measured by benchmarks/console_lines.py --empty, not here.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from shu.store import LOAD_COMMANDS, open_store


def test_offline_daily_on_an_empty_store(tmp_path: Path) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SHU_", "PREFECT_")) and k != "GITHUB_TOKEN"
    }
    env |= {
        "PREFECT_HOME": str(tmp_path / "prefect"),
        "SHU_GITHUB_API_URL": "https://api.github.invalid",  # never resolves
        "COLUMNS": "80",
    }
    run = subprocess.run(
        [sys.executable, "-m", "shu", "daily"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=600,
    )
    out, err = run.stdout.splitlines(), run.stderr.splitlines()
    shown = run.stdout + run.stderr
    assert run.returncode == 3, shown
    assert "Traceback" not in shown and "retrying" not in shown, shown
    assert len(out) + len(err) <= 12, shown
    # one line for GitHub (on stderr), naming the host that did not resolve
    github = [line for line in err if line.startswith("ingest: GitHub")]
    assert len(github) == 1 and "host name api.github.invalid not resolved" in github[0], err
    assert "probe: not run: the store holds no star counts or commits yet" in run.stdout
    assert err[-1].startswith("no data: nothing to brief yet; load some with `shu ingest github")
    for command, _ in LOAD_COMMANDS:
        assert f"`{command}`" in err[-1]
    (page,) = (tmp_path / "reports").glob("????-??-??.md")
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# No data yet: nothing to brief")
    assert "host name api.github.invalid not resolved" in text  # the notice, whole
    assert "…" not in text
    with open_store(tmp_path / "data" / "shu.duckdb", read_only=True) as store:
        assert store.con.execute("SELECT count(*) FROM probe_runs").fetchall()[0][0] == 0
        assert store.con.execute("SELECT count(*) FROM briefings").fetchall()[0][0] == 1
