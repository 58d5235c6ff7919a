"""The CLI as a user runs it: a real `shu` process, real store file, one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shu.datadict import render_data_dictionary
from shu.settings_doc import render_settings_page

ROOT = Path(__file__).resolve().parents[3]


def shu(*args: str, db: Path | None = None, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "200"}
    if db is not None:
        env["SHU_DB"] = str(db)
    proc = subprocess.run(
        [sys.executable, "-m", "shu", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture
def loaded(tmp_path: Path) -> Path:
    db = tmp_path / "s.duckdb"
    csv = tmp_path / "long.csv"
    csv.write_text("day,repo,stars\n2024-01-01,a/b,5\n2024-01-02,a/b,7\n", encoding="utf-8")
    out = shu("ingest", "ranking", str(csv), db=db)
    assert "inserted 2" in out.stdout
    return db


def test_tables_lists_counts(loaded):
    out = shu("tables", db=loaded).stdout
    assert "stars_daily" in out and "ingest_log" in out


def test_sql_table_csv_json(loaded):
    assert "7" in shu("sql", "select max(stars) from stars_daily", db=loaded).stdout
    assert shu(
        "sql", "select repo, stars from stars_daily order by day", "--csv", db=loaded
    ).stdout.splitlines() == ["repo,stars", "a/b,5", "a/b,7"]
    rows = json.loads(
        shu("sql", "select stars from stars_daily order by day", "--json", db=loaded).stdout
    )
    assert rows == [{"stars": 5}, {"stars": 7}]


@pytest.mark.parametrize("how", [["--csv"], ["--limit", "0"]])
def test_a_pipe_that_closes_early_is_no_failure(loaded, how):
    """`shu sql ... --csv | head`, or a long table (rich's console) into `head`: when the reader
    stops early, shu stops quietly with status 0 whichever way it printed (nothing on stderr:
    no traceback, no 'Exception ignored' at exit), as when the output fits the pipe."""
    proc = subprocess.run(
        [
            "bash",
            "-c",
            f'set -o pipefail; "{sys.executable}" -m shu sql "select range AS n from '
            f'range(200000)" {" ".join(how)} | head -3; echo "status ${{PIPESTATUS[0]}}" >&2',
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "SHU_DB": str(loaded)},
        cwd=ROOT,
        timeout=300,
    )
    assert len(proc.stdout.splitlines()) == 3
    assert proc.stderr.strip() == "status 0", proc.stderr


def test_sql_out_writes_the_format_its_suffix_names(loaded, tmp_path):
    import pyarrow.parquet as pq

    query = "select repo, stars from stars_daily order by day"
    for name in ("r.csv", "r.json", "r.parquet"):
        proc = shu("sql", query, "--out", str(tmp_path / name), db=loaded)
        assert proc.stdout == "" and f"wrote 2 rows to {tmp_path / name}" in proc.stderr
    assert (tmp_path / "r.csv").read_text().splitlines() == ["repo,stars", "a/b,5", "a/b,7"]
    assert json.loads((tmp_path / "r.json").read_text())[1] == {"repo": "a/b", "stars": 7}
    assert pq.read_table(tmp_path / "r.parquet").to_pylist()[0] == {"repo": "a/b", "stars": 5}
    unknown = shu("sql", query, "--out", str(tmp_path / "r.xlsx"), db=loaded, check=False)
    assert unknown.returncode == 1 and "cannot tell the format from the suffix" in unknown.stderr
    assert not (tmp_path / "r.xlsx").exists() and "Traceback" not in unknown.stderr


def test_sql_output_options_resolve_to_one_format_and_place():
    from shu.cli.analyst import output_target
    from shu.errors import InputError

    assert output_target(False, False, None, None) is None  # the table view
    assert output_target(True, False, None, None) == ("csv", "-")
    assert output_target(False, True, None, None) == ("json", "-")
    assert output_target(False, False, "a/b.PARQUET", None) == ("parquet", "a/b.PARQUET")
    assert output_target(False, True, "-", None) == ("json", "-")
    assert output_target(False, False, None, "x.bin") == ("parquet", "x.bin")
    for args, message in [
        ((True, True, None, None), "choose one format"),
        ((True, False, "x.json", None), "the suffix says json"),
        ((False, False, "x.csv", "y.parquet"), "give it alone"),
        ((False, False, "x", None), "cannot tell the format"),
    ]:
        with pytest.raises(InputError, match=message):
            output_target(*args)


def test_sql_is_read_only_and_errors_are_one_line(loaded):
    proc = shu("sql", "delete from stars_daily", db=loaded, check=False)
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "DELETE statements are not allowed" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert (
        shu("sql", "select count(*) from stars_daily", "--csv", db=loaded).stdout.split()[1] == "2"
    )
    bad = shu("sql", "select nope from stars_daily", db=loaded, check=False)
    assert bad.returncode == 1 and "query failed" in bad.stderr and "Traceback" not in bad.stderr


def test_bad_input_is_one_line(tmp_path):
    proc = shu(
        "ingest", "ranking", str(tmp_path / "missing.csv"), db=tmp_path / "x.duckdb", check=False
    )
    assert proc.returncode == 1
    assert "missing.csv: no such file or directory" in proc.stderr
    assert "Traceback" not in proc.stderr
    absent = shu("tables", db=tmp_path / "never.duckdb", check=False)
    assert absent.returncode == 1 and "no store at" in absent.stderr


def test_every_command_has_help_with_an_example():
    import typer.main

    from shu.cli import _register_commands, app

    _register_commands()
    group = typer.main.get_command(app)
    missing = []

    def walk(cmd, path):
        for name, sub in getattr(cmd, "commands", {}).items():
            if getattr(sub, "commands", None):
                walk(sub, [*path, name])
            if "Example:" not in (sub.help or ""):
                missing.append(" ".join([*path, name]))

    walk(group, [])
    assert not missing, f"commands without an Example: {missing}"


def test_data_dictionary_is_fresh():
    committed = (ROOT / "docs/data-dictionary.md").read_text(encoding="utf-8")
    assert committed == render_data_dictionary(), "run `shu docs` and commit docs/"


def test_settings_page_is_fresh_and_names_every_setting():
    """docs/settings.md is rendered from the settings declarations: every setting and every
    key of its tables is on it with its own description, and the committed page is current."""
    from shu.settings import PATH_RULE, Settings, Topic

    committed = (ROOT / "docs/settings.md").read_text(encoding="utf-8")
    assert committed == render_settings_page(), "run `shu docs` and commit docs/"
    for name, info in [*Settings.model_fields.items(), *Topic.model_fields.items()]:
        row = next(x for x in committed.splitlines() if x.startswith(f"| `{name}` |"))
        assert (info.description or "").replace("|", "\\|") in row, name
    assert PATH_RULE in committed and "`local-model apps`" in committed
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(docs/settings.md)" in readme
