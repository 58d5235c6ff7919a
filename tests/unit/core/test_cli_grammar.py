"""One grammar for every `shu` command: `-h`, `--as-of DATE` (older names hidden but working),
`--from/--to`, `--json` a switch, help examples that parse and work in a user's own project,
repository names checked as owner/name and matched case-insensitively, a day before any data
refused in one line, and tables that keep names and numbers whole down a pipe.

(`shu probe` and `python -m shu.probe` follow the same grammar in their own branch; the checks
over every command leave `probe` out until it lands.)
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import click
import pytest
import typer.main

from shu.cli import _register_commands, app, display

ROOT = Path(__file__).resolve().parents[3]
NOT_YET = {"probe"}  # its grammar is applied on its own branch
OLD_DATE_NAMES = {"--day", "--origin", "--since"}


def commands() -> list[tuple[list[str], click.Command]]:
    """(path, command) of every `shu` command, sub-commands included."""
    _register_commands()
    out: list[tuple[list[str], click.Command]] = []

    def walk(cmd: click.Command, path: list[str]) -> None:
        for name, sub in getattr(cmd, "commands", {}).items():
            out.append(([*path, name], sub))
            if isinstance(sub, click.Group):
                walk(sub, [*path, name])

    walk(typer.main.get_command(app), [])
    return out


def rendered_help(path: list[str], cmd: click.Command) -> str:
    group = typer.main.get_command(app)
    with click.Context(group, info_name="shu") as parent:
        ctx = click.Context(cmd, info_name=" ".join(path), parent=parent)
        return cmd.get_help(ctx)


def shu(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "shu", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "80", **(env or {})},
        cwd=ROOT,
        timeout=300,
    )


@pytest.mark.parametrize("args", [["-h"], ["ingest", "-h"], ["signals", "-h"], ["radar", "-h"]])
def test_dash_h_is_help(args: list[str]) -> None:
    run = shu(*args)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("Usage: ") and "-h, --help" in run.stdout


def test_every_option_follows_the_grammar() -> None:
    """No visible --day/--origin/--since (they are hidden aliases of --as-of/--from); --json
    is a switch; a date option is --as-of, --from or --to."""
    wrong = []
    for path, cmd in commands():
        if path[0] in NOT_YET:
            continue
        for p in cmd.params:
            if not isinstance(p, click.Option):
                continue
            names = set(p.opts)
            if names & OLD_DATE_NAMES and not p.hidden:
                wrong.append(f"shu {' '.join(path)} {sorted(names)} is visible")
            if "--json" in names and not p.is_flag:
                wrong.append(f"shu {' '.join(path)} --json takes a value")
            if (p.metavar or "") == "DATE" and not names & {"--as-of", "--from", "--to"}:
                wrong.append(f"shu {' '.join(path)} {sorted(names)} is a date option")
    assert not wrong, wrong


def _examples(text: str) -> list[str]:
    return [line.strip()[len("Example: ") :] for line in text.splitlines() if "Example:" in line]


def test_help_examples_stand_alone_and_parse() -> None:
    """Each example on its own line (none run together), no path into ../shared, and the
    command line parses: the options exist and take the values given."""
    problems = []
    group = typer.main.get_command(app)
    for path, cmd in commands():
        text = rendered_help(path, cmd)
        for line in text.splitlines():
            if "Example:" in line and not line.strip().startswith("Example: "):
                problems.append(f"shu {' '.join(path)}: an example inside a line: {line!r}")
            if line.count("Example:") > 1:
                problems.append(f"shu {' '.join(path)}: examples run together: {line!r}")
        for example in _examples(text):
            if "shared/" in example:
                problems.append(f"shu {' '.join(path)}: {example!r} points into ../shared")
            words = shlex.split(example.split(" && ")[0].split(" | ")[0])
            while words and re.match(r"^[A-Z_]+=", words[0]):  # VAR=value shu …
                words.pop(0)
            if words[:1] != ["shu"]:
                problems.append(f"shu {' '.join(path)}: {example!r} does not run shu")
                continue
            try:
                ctx = group.make_context("shu", words[1:], resilient_parsing=False)
                target: click.Command = group
                rest = words[1:]
                while isinstance(target, click.Group):
                    name, target, rest = target.resolve_command(ctx, rest)
                    ctx = target.make_context(name, rest, parent=ctx)
                    rest = ctx.args
            except click.UsageError as exc:
                problems.append(f"shu {' '.join(path)}: {example!r}: {exc.format_message()}")
    assert not problems, "\n".join(problems)


def test_old_date_names_still_work_hidden(tmp_path) -> None:
    run = shu("radar", "-h")
    assert "--as-of" in run.stdout and "--day" not in run.stdout
    both = shu("brief", "--as-of", "2026-01-01", "--day", "2026-01-02", "--db", str(tmp_path / "x"))
    assert both.returncode == 1 and "give one (--as-of)" in both.stderr


@pytest.fixture
def stored(tmp_path: Path) -> Path:
    """A store with pytorch/pytorch's stars from 2024-01-01 and its signals."""
    db = tmp_path / "s.duckdb"
    rows = "\n".join(
        f"2024-{m:02d}-{d:02d},pytorch/pytorch,{1000 + 31 * m + d}"
        for m in range(1, 7)
        for d in range(1, 29)
    )
    csv = tmp_path / "long.csv"
    csv.write_text("day,repo,stars\n" + rows + "\n", encoding="utf-8")
    for args in (["ingest", "ranking", str(csv)], ["signals"]):
        run = shu(*args, "--db", str(db))
        assert run.returncode == 0, run.stderr
    return db


def test_repository_names_are_checked_and_matched_case_insensitively(stored, tmp_path) -> None:
    from shu.testing.datasets import small_dataset
    from shu.testing.github_server import GitHubAPIServer

    shown = shu("signals", "show", "PyTorch/PyTorch", "--db", str(stored))
    assert shown.returncode == 0, shown.stderr
    assert "pytorch/pytorch" in shown.stdout
    with GitHubAPIServer(small_dataset()) as server:
        bad = shu(
            "ingest",
            "github",
            "--repo",
            "not a repo",
            "--db",
            str(tmp_path / "g.duckdb"),
            env={"SHU_GITHUB_API_URL": server.url},
        )
        assert server.requests == []  # refused before anything was sent
    assert bad.returncode == 1
    assert bad.stderr.splitlines() == [
        "error: --repo 'not a repo': expected owner/name, e.g. pytorch/pytorch"
    ]
    bad = shu("signals", "show", "pytorch", "--db", str(stored))
    assert bad.returncode == 1 and "expected owner/name" in bad.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["radar", "--as-of", "2019-01-01"],
        ["forecast", "--as-of", "2019-01-01"],
        ["brief", "--as-of", "2019-01-01"],
        ["resolve", "--as-of", "2019-01-01"],
    ],
)
def test_a_day_before_any_data_says_so(stored, args) -> None:
    run = shu(*args, "--db", str(stored))
    assert run.returncode == 1, run.stdout
    assert run.stderr.splitlines() == [
        "error: --as-of 2019-01-01: before any data (the store's star counts and commits start "
        "on 2024-01-01)"
    ]


def test_an_empty_store_names_the_commands_that_load_data(tmp_path) -> None:
    run = shu("radar", "--db", str(tmp_path / "empty.duckdb"))
    empty = shu("tables", "--db", str(tmp_path / "empty.duckdb"))  # creates nothing, says so
    assert run.returncode == 1 and empty.returncode == 1
    assert "load data first" in empty.stderr


def test_the_radar_says_what_to_run_when_the_model_has_it(stored) -> None:
    """The shipped model has the radar: no forecast yet means `shu forecast`, not `shu train`."""
    run = shu("radar", "--db", str(stored))
    assert run.returncode == 0, run.stderr
    assert "run `shu forecast`" in run.stdout and "shu train" not in run.stdout


def test_piped_tables_keep_names_and_numbers_whole(stored) -> None:
    long_name = "x1xhlol/system-prompts-and-models-of-ai-tools"
    query = (
        f"select '{long_name}' AS repo, 492.89285714285717::DOUBLE AS velocity, "
        "0.000123456::DOUBLE AS tiny"
    )
    run = shu("sql", query, "--db", str(stored))  # stdout is a pipe here, COLUMNS=80
    assert run.returncode == 0, run.stderr
    assert long_name in run.stdout and "…" not in run.stdout
    assert "492.89" in run.stdout and "492.8928" not in run.stdout
    assert "0.000123" in run.stdout
    exact = shu("sql", query, "--json", "--db", str(stored))
    assert json.loads(exact.stdout) == [
        {"repo": long_name, "velocity": 492.89285714285717, "tiny": 0.000123456}
    ]
    assert "492.89285714285717" in shu("sql", query, "--csv", "--db", str(stored)).stdout


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (492.89285714285717, "492.89"),
        (3.0, "3"),
        (-1234567.891, "-1234567.89"),
        (0.000123456, "0.000123"),
        (12, "12"),
        (None, ""),
        ("pytorch/pytorch", "pytorch/pytorch"),
        (float("nan"), "nan"),
    ],
)
def test_display_rounds_fractions_only(value, shown) -> None:
    assert display(value) == shown
