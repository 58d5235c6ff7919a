"""Every command that runs reads and checks the settings first, whatever names the store.

A misspelt key, invalid TOML, a SHU_CONFIG naming no file or a declared question that cannot be
issued (a horizon no template is asked at, a misspelt template) stops each command of `shu --help`
with one line and exit 1, with `--db` given (and with SHU_DB set, in a real `shu` process), and
`-h` still answers with such a file in place.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer

from shu import settings
from shu.cli import _register_commands, app, main

MISTAKES = {
    "misspelt key": (
        "[shu]\nrepoz = []\n",
        "unknown setting 'repoz' (did you mean 'repos'?)",
    ),
    "invalid TOML": ("[shu\nrepos = [\n", "invalid TOML"),
    "no such file": (None, "no such file"),
    "unsupported horizon": (
        '[[questions]]\nrepo = "pytorch/pytorch"\ntemplate = "star_gain"\nthreshold = 100\n'
        "horizon = 31\n",
        "questions[0]: pytorch/pytorch: horizon 31 days: star_gain is asked at 7, 30, 90 days only",
    ),
    "misspelt template": (
        '[[questions]]\nrepo = "pytorch/pytorch"\ntemplate = "star_gian"\nthreshold = 100\n'
        "horizon = 30\n",
        "questions[0]: pytorch/pytorch: unknown template 'star_gian'; choose from star_accel_reach",
    ),
}


def _commands() -> list[tuple[list[str], Any]]:
    """(words, click command) of every command that runs something: each leaf, and a group
    whose own callback runs (`shu signals` refreshes)."""
    _register_commands()
    found: list[tuple[list[str], Any]] = []

    def walk(command: Any, words: list[str]) -> None:
        subs = getattr(command, "commands", None)
        if subs is None or (words and command.callback is not None):
            found.append((words, command))
        for name, sub in (subs or {}).items():
            walk(sub, [*words, name])

    walk(typer.main.get_command(app), [])
    return found


COMMANDS = _commands()


def _args(command: Any, words: list[str], placeholder: Path, db: Path) -> list[str]:
    """Arguments that get `command` past its own parsing: each required parameter filled."""
    values = {"query": "select 1", "repo": "a/b", "repos": "a/b", "start": "2024-01-01"}
    values["end"] = "2024-02-01"
    args = list(words)
    for param in command.params:
        if not param.required:
            continue
        value = values.get(param.name, str(placeholder))
        args += [value] if param.param_type_name == "argument" else [param.opts[0], value]
    if any(p.name == "db" for p in command.params):
        args += ["--db", str(db)]
    return args


def _config(tmp_path: Path, mistake: str) -> Path:
    text, _ = MISTAKES[mistake]
    path = tmp_path / "shu.toml"
    if text is not None:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("mistake", MISTAKES)
@pytest.mark.parametrize("words", [w for w, _ in COMMANDS], ids=" ".join)
def test_every_command_stops_on_a_settings_mistake(
    words, mistake, tmp_path, monkeypatch, capsys
) -> None:
    command = dict((tuple(w), c) for w, c in COMMANDS)[tuple(words)]
    placeholder = tmp_path / "input.csv"
    placeholder.write_text("day,repo,stars\n2024-01-01,a/b,1\n", encoding="utf-8")
    db = tmp_path / "s.duckdb"
    monkeypatch.setenv("SHU_CONFIG", str(_config(tmp_path, mistake)))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["shu", *_args(command, words, placeholder, db)])
    settings._cached.cache_clear()
    try:
        with pytest.raises(SystemExit) as stopped:
            main()
    finally:
        settings._cached.cache_clear()
    err = capsys.readouterr().err.strip()
    assert stopped.value.code == 1, err
    assert err.count("\n") == 0 and err.startswith("error: "), err
    assert MISTAKES[mistake][1] in err, err
    assert not db.exists(), "the command ran before the settings were checked"


def test_help_answers_with_a_broken_config(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("SHU_CONFIG", str(_config(tmp_path, "misspelt key")))
    monkeypatch.setattr(sys, "argv", ["shu", "tables", "-h"])
    settings._cached.cache_clear()
    main()  # returns: help is not an error (a mistake exits 1, as above)
    assert "tables [OPTIONS]" in capsys.readouterr().out


@pytest.mark.parametrize("command", [["tables"], ["sql", "select 1"], ["export", "--out", "x"]])
def test_a_real_process_with_shu_db_stops_on_a_misspelt_key(command, tmp_path) -> None:
    """The issue's own case: SHU_DB set, as the README's offline recipe does."""
    env = {
        **os.environ,
        "SHU_DB": str(tmp_path / "s.duckdb"),
        "SHU_CONFIG": str(_config(tmp_path, "misspelt key")),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "shu", *command],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.strip().endswith("unknown setting 'repoz' (did you mean 'repos'?)")
    assert proc.stderr.count("\n") == 1 and proc.stdout == ""
