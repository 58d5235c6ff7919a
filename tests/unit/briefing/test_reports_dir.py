"""Where briefings go: the reports follow the store unless `reports_dir` or `--out` says
otherwise, so a trial store's briefings never land among the real ones."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from shu.briefing.compose import compose_briefing
from shu.settings import load_settings


def test_reports_dir_follows_the_store_unless_set(monkeypatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("SHU_REPORTS_DIR", "SHU_CONFIG", "SHU_DB"):
        monkeypatch.delenv(name, raising=False)
    s = load_settings()
    assert s.reports_dir_for(Path("data/shu.duckdb")) == Path("reports")
    assert s.reports_dir_for(tmp_path / "data" / "shu.duckdb") == Path("reports")  # the same file
    assert s.reports_dir_for("/srv/trial/shu.duckdb") == Path("/srv/trial/reports")
    assert s.reports_dir_for("other.duckdb") == Path("reports")  # beside it: the current folder
    monkeypatch.setenv("SHU_REPORTS_DIR", "/srv/briefings")
    assert load_settings().reports_dir_for("/srv/trial/shu.duckdb") == Path("/srv/briefings")
    monkeypatch.delenv("SHU_REPORTS_DIR")
    (tmp_path / "shu.toml").write_text('[shu]\nreports_dir = "notes"\n')
    # a relative path in a shu.toml is taken under the toml's folder (here the current one)
    assert load_settings().reports_dir_for("/srv/trial/shu.duckdb") == tmp_path / "notes"


def test_compose_writes_beside_another_store(filled, settings, day, tmp_path) -> None:
    unset = load_settings(repos=settings.repos, models_dir=settings.models_dir)
    assert "reports_dir" not in unset.model_fields_set
    result = compose_briefing(filled, day, unset)
    assert result.path == filled.path.parent / "reports" / f"{day}.md"
    out = tmp_path / "elsewhere"
    assert compose_briefing(filled, day, unset, reports_dir=out).path == out / f"{day}.md"


def test_shu_brief_with_another_db_writes_beside_it(filled, settings, day, tmp_path) -> None:
    db = filled.path
    filled.close()
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    env = {
        k: v for k, v in os.environ.items() if k not in ("SHU_REPORTS_DIR", "SHU_CONFIG", "SHU_DB")
    }
    env["SHU_REPOS"] = settings.model_dump_json(include={"repos"})[len('{"repos":') : -1]
    env["SHU_MODELS_DIR"] = str(settings.models_dir)
    env["SHU_DB"] = str(db)
    brief = [sys.executable, "-m", "shu", "brief", "--as-of", str(day)]
    proc = subprocess.run(brief, capture_output=True, text=True, env=env, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    assert (db.parent / "reports" / f"{day}.md").is_file()
    assert not (cwd / "reports").exists()
    out = tmp_path / "out"
    proc = subprocess.run(
        [*brief, "--out", str(out)], capture_output=True, text=True, env=env, cwd=cwd
    )
    assert proc.returncode == 0, proc.stderr
    assert (out / f"{day}.md").is_file()  # --out wins
