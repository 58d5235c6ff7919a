"""The README's offline recipe, as a user types it, in a folder of their own (no shu.toml, not
the checkout): the GitHub stand-in (`python -m shu.testing.github_server`, its series ending
today), `SHU_DB` naming a store of its own (the README's path, which git ignores in a checkout),
`shu ingest github --backfill`, `shu daily` with no day given. The daily run issues today's
forecasts with the shipped model and its briefing, beside that store, has forecast cards.

(The probe is due on a store that never had one; a probe result is ingested first so the test
does not spend the half minute the real one takes. The flow runs against the session's Prefect
server, `prefect_api_url`, instead of starting an ephemeral one.)
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from shu.testing.demo_sample import synthetic_sample

ROOT = Path(__file__).resolve().parents[2]


def recipe_store() -> str:
    """The store the README's offline recipe names (`export SHU_DB=...`)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    recipe = readme.split("### Trying it offline", 1)[1].split("\n## ", 1)[0]
    found = re.search(r"^export SHU_DB=(\S+)", recipe, re.M)
    assert found, "the offline recipe names no store"
    return found.group(1)


def test_the_recipe_writes_only_where_git_ignores_it() -> None:
    """Run in a checkout, the recipe's store and its briefings (reports/ beside the store) stay
    out of `git status`."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: nothing here for git to ignore")
    store = Path(recipe_store())
    assert not store.is_absolute()
    written = [store, store.with_suffix(".duckdb.wal"), store.parent / "reports" / "2026-01-01.md"]
    ignored = subprocess.run(
        ["git", "check-ignore", "--no-index", *map(str, written)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert ignored.stdout.split() == [str(p) for p in written], ignored.stderr


def test_the_offline_recipe_gives_a_briefing_with_forecasts(
    tmp_path: Path, prefect_api_url: str
) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SHU_", "PREFECT_")) and k != "GITHUB_TOKEN"
    }
    env |= {
        "PREFECT_HOME": str(tmp_path / "prefect"),
        "PREFECT_API_URL": prefect_api_url,
        "COLUMNS": "120",
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "shu.testing.github_server", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    try:
        first = server.stdout.readline() if server.stdout else ""
        today = datetime.now(UTC).date()
        assert f"series ending {today}" in first, first
        url = re.search(r"http://127\.0\.0\.1:\d+", first)
        assert url is not None, first
        env["SHU_GITHUB_API_URL"] = url.group(0)
        env["SHU_DB"] = recipe_store()  # a store of its own, as the README says

        def shu(*args: str) -> subprocess.CompletedProcess:
            return subprocess.run(
                [sys.executable, "-m", "shu", *args],
                capture_output=True,
                text=True,
                env=env,
                cwd=tmp_path,
                timeout=900,
            )

        backfill = shu("ingest", "github", "--backfill")
        assert backfill.returncode == 0, backfill.stderr
        probe = tmp_path / "probe.json"
        probe.write_text(json.dumps(synthetic_sample(today).probe), encoding="utf-8")
        assert shu("ingest", "probe", str(probe)).returncode == 0
        daily = shu("daily")
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert daily.returncode == 0, daily.stdout + daily.stderr
    issued = re.search(r"^forecast: (\d+) new forecasts", daily.stdout, re.M)
    assert issued and int(issued.group(1)) > 0, daily.stdout
    cards = re.search(r"^briefing: wrote (\S+) \((\d+) forecast cards", daily.stdout, re.M)
    assert cards and int(cards.group(2)) > 0, daily.stdout
    # the briefing follows the store: beside it, not in the working directory's reports/
    page = tmp_path / cards.group(1)
    assert page == tmp_path / Path(recipe_store()).parent / "reports" / f"{today}.md"
    assert not (tmp_path / "reports").exists()
    text = page.read_text(encoding="utf-8")
    # the stand-in's generated repositories are briefed as what they are
    assert "**SYNTHETIC DATA**" in text
    # only tracked repositories: the radar says there is nothing to scan and how to get some
    radar = text.split("## Breaking out", 1)[1].split("\n## ", 1)[0]
    assert "nothing for the radar to scan" in radar and "`ranking_files`" in radar
    assert "breakout forecaster" not in radar
