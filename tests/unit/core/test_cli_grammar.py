"""One grammar for every `shu` command, read from every command's `--help` (the typer app
walked, sub-commands included): `-h`; `--as-of DATE`, `--from DATE`, `--to DATE` for days, with
the older `--day` / `--origin` (for `--as-of`) and `--since` (for `--from`) hidden and working on
every command that has the option they stand for; `--out PATH`; `--json` a switch on every
command that prints a table; one metavar per option name and none a bare type (`<str>`); every
positional argument described; `shu --version`; help examples that parse and work in a user's
own project; repository names checked as owner/name and matched case-insensitively; a day
before any data refused in one line; and tables that keep names and numbers whole down a pipe,
showing their first rows with the count and where the rest is.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import shlex
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
import typer.core
import typer.main

from shu import __version__
from shu.cli import TABLE_ROWS, _register_commands, app, display

ROOT = Path(__file__).resolve().parents[3]
OLD_NAMES = {"--day": "--as-of", "--origin": "--as-of", "--since": "--from"}
DATE_OPTIONS = {"--as-of", "--from", "--to"}


def commands() -> list[tuple[list[str], Any]]:
    """(path, command) of every `shu` command, sub-commands included (typer's own click: its
    groups are commands with `commands`)."""
    _register_commands()
    out: list[tuple[list[str], Any]] = []

    def walk(cmd: Any, path: list[str]) -> None:
        for name, sub in getattr(cmd, "commands", {}).items():
            out.append(([*path, name], sub))
            walk(sub, [*path, name])

    walk(typer.main.get_command(app), [])
    return out


def options(cmd: Any) -> list[Any]:
    return [p for p in cmd.params if isinstance(p, typer.core.TyperOption)]


def option_names(cmd: Any) -> set[str]:
    return {name for p in options(cmd) for name in p.opts}


def shown(cmd: Any, path: list[str], option: Any) -> str:
    """How `--help` shows `option`: its names and metavar, e.g. '--from DATE'."""
    import typer._click.core as click_core

    record = option.get_help_record(click_core.Context(cmd, info_name=" ".join(path)))
    return record[0] if record else ""


def rendered_help(path: list[str], cmd: Any) -> str:
    import typer._click.core as click_core

    group = typer.main.get_command(app)
    with click_core.Context(group, info_name="shu") as parent:
        ctx = click_core.Context(cmd, info_name=" ".join(path), parent=parent)
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


def test_the_walk_sees_every_command_and_its_options() -> None:
    """The checks below read what this walk finds: every command, the sub-commands of
    `ingest` and `signals`, and their options (a walk that found none would check nothing)."""
    found = {" ".join(path): cmd for path, cmd in commands()}
    assert {"probe", "forecast", "ingest github", "signals show", "tables"} <= set(found)
    assert {"--as-of", "--day", "--origin", "--json", "--limit"} <= option_names(found["forecast"])


@pytest.mark.parametrize("args", [["-h"], ["ingest", "-h"], ["signals", "-h"], ["radar", "-h"]])
def test_dash_h_is_help(args: list[str]) -> None:
    run = shu(*args)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("Usage: ") and "-h, --help" in run.stdout


def test_every_option_follows_the_grammar() -> None:
    """Dates are `--as-of DATE`, `--from DATE`, `--to DATE` and nothing else shows DATE; the
    older names are hidden and sit beside the option they stand for on every command that has
    it; `--out PATH`; `--json` a switch; each option name has one metavar everywhere, and no
    metavar is a bare type such as `<str>`."""
    wrong = []
    metavars: dict[str, set[str]] = defaultdict(set)
    for path, cmd in commands():
        where = f"shu {' '.join(path)}"
        names = option_names(cmd)
        for old, new in OLD_NAMES.items():
            if (old in names) != (new in names):
                wrong.append(f"{where}: {old} and {new} go together (hidden {old})")
        for p in options(cmd):
            opts = set(p.opts)
            if opts & set(OLD_NAMES):
                if not p.hidden:
                    wrong.append(f"{where} {sorted(opts)} is visible")
                continue
            if p.hidden:
                continue
            if "--json" in opts and not p.is_flag:
                wrong.append(f"{where} --json takes a value")
            if p.is_flag:
                continue
            text = shown(cmd, path, p)
            metavar = text.split(" ")[-1]
            if metavar.startswith("<") or not re.fullmatch(r"[A-Z][A-Z/_]*", metavar):
                wrong.append(f"{where}: {text!r} shows no metavar of its own")
            if (metavar == "DATE") != bool(opts & DATE_OPTIONS):
                wrong.append(f"{where}: {text!r} (DATE is for --as-of, --from and --to)")
            if "--out" in opts and metavar != "PATH":
                wrong.append(f"{where}: {text!r} (--out PATH)")
            for name in opts:
                if name.startswith("--"):
                    metavars[name].add(metavar)
    wrong += [f"{name} shows as {sorted(m)}" for name, m in metavars.items() if len(m) > 1]
    assert not wrong, wrong


def _prints_a_table(callback: Any) -> bool:
    """Whether `callback` (or a function of its module that it calls) builds a table."""
    fn = inspect.unwrap(callback)
    module = sys.modules[fn.__module__]
    called = [
        getattr(module, n)
        for n in fn.__code__.co_names
        if inspect.isfunction(getattr(module, n, None))
    ]
    return any(
        "RichTable(" in source or "format_table(" in source
        for source in (inspect.getsource(f) for f in [fn, *called])
    )


def test_every_command_that_prints_a_table_has_json() -> None:
    tables = [
        (path, cmd) for path, cmd in commands() if cmd.callback and _prints_a_table(cmd.callback)
    ]
    assert len(tables) >= 10  # tables, sql, forecast, radar, compare, signals show, …
    missing = [" ".join(path) for path, cmd in tables if "--json" not in option_names(cmd)]
    assert not missing, f"print a table without --json: {missing}"


def test_every_positional_argument_is_described() -> None:
    bare = [
        f"shu {' '.join(path)} {p.name}"
        for path, cmd in commands()
        for p in cmd.params
        if isinstance(p, typer.core.TyperArgument) and (p.hidden or not p.help)
    ]
    assert not bare, bare
    usage = shu("export", "-h").stdout
    assert "[PATH]" in usage and "The folder, as --out PATH names it" in usage


def test_version() -> None:
    run = shu("--version")
    assert run.returncode == 0, run.stderr
    assert run.stdout == f"shu {__version__}\n"


def _examples(text: str) -> list[str]:
    return [line.strip()[len("Example: ") :] for line in text.splitlines() if "Example:" in line]


def test_help_examples_stand_alone_and_parse() -> None:
    """Each example on its own line (none run together), no path into ../shared, and the
    command line parses: the options exist and take the values given."""
    problems = []
    import typer._click.exceptions as click_exceptions

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
                target: Any = group  # a group, then the command it names
                rest = [*ctx._protected_args, *ctx.args]  # the command and what follows it
                while hasattr(target, "commands") and rest:  # down to the command named
                    name, target, rest = target.resolve_command(ctx, rest)
                    ctx = target.make_context(name, rest, parent=ctx)
                    rest = [*ctx._protected_args, *ctx.args]
                if rest:
                    problems.append(f"shu {' '.join(path)}: {example!r}: {rest} left unread")
            except click_exceptions.UsageError as exc:
                problems.append(f"shu {' '.join(path)}: {example!r}: {exc.format_message()}")
    assert not problems, "\n".join(problems)


def test_old_date_names_still_work_hidden(tmp_path) -> None:
    run = shu("radar", "-h")
    assert "--as-of" in run.stdout and "--day" not in run.stdout
    both = shu("brief", "--as-of", "2026-01-01", "--day", "2026-01-02", "--db", str(tmp_path / "x"))
    assert both.returncode == 1 and "give one (--as-of)" in both.stderr


def _with_old_names() -> list[tuple[list[str], str, str]]:
    """(command line, old name, option) for every command and older name it takes."""
    out = []
    for path, cmd in commands():
        names = option_names(cmd)
        for old, new in OLD_NAMES.items():
            if old in names:
                repos = ["pytorch/pytorch"] if path == ["compare"] else []
                out.append(([*path, *repos], old, new))
    return out


def test_every_command_with_a_date_takes_the_old_names() -> None:
    """`--day` on radar and resolve as on brief, `--since` on backtest as on compare."""
    found = {(" ".join(path), old) for path, old, _ in _with_old_names()}
    assert {("radar", "--day"), ("resolve", "--day"), ("backtest", "--since")} <= found


@pytest.mark.parametrize(("line", "old", "new"), _with_old_names())
def test_an_old_name_is_read_as_the_option_it_stands_for(tmp_path, line, old, new) -> None:
    """Given beside the option with another day, the old name's day reached the check: both are
    named and the user is asked for one (before any store is opened or anything is sent)."""
    run = shu(*line, new, "2026-01-01", old, "2026-01-02", "--db", str(tmp_path / "x.duckdb"))
    assert run.returncode == 1, run.stdout
    assert run.stderr.splitlines() == [
        f"error: {new} 2026-01-01 and {old} 2026-01-02: give one ({new})"
    ]
    assert not (tmp_path / "x.duckdb").exists()


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
    run = shu("radar", "--tracked", "--db", str(stored))
    assert run.returncode == 0, run.stderr
    assert "run `shu forecast`" in run.stdout and "shu train" not in run.stdout


def test_the_radar_like_the_briefing_leaves_the_tracked_repositories_out(stored) -> None:
    """Plain `shu radar` ranks what the briefing's "Breaking out" ranks: on a store holding only
    the tracked pytorch/pytorch it says there is no untracked repository to scan and how to load
    some; the old `--untracked` (now the default) still runs, and says the same."""
    for args in ([], ["--untracked"]):
        run = shu("radar", *args, "--db", str(stored))
        assert run.returncode == 0, run.stderr
        said = " ".join(run.stdout.split())
        assert "no repository besides the tracked ones" in said, said
        assert "nothing for the radar to scan" in said and "ranking_files" in said
    assert "--untracked" not in shu("radar", "-h").stdout


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


def _table(text: str, title: str) -> tuple[list[str], list[list[str]]]:
    """The header and rows of the table titled `title` in a command's (piped) output."""
    lines = text.splitlines()
    lines = lines[[line.strip() for line in lines].index(title) :]
    header = next(line for line in lines if line.startswith("┃"))
    rows = []
    for line in lines[lines.index(header) + 2 :]:
        if not line.startswith("│"):
            break
        rows.append([cell.strip() for cell in line.strip("│").split("│")])
    return [cell.strip() for cell in header.strip("┃").split("┃")], rows


def test_a_long_table_shows_its_first_rows_the_count_and_where_the_rest_is(stored) -> None:
    query = "select range AS n from range(50)"
    run = shu("sql", query, "--db", str(stored))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert sum(line.startswith("│") for line in lines) == TABLE_ROWS
    assert lines[-1] == (
        f"first {TABLE_ROWS} of 50 rows; every row: --csv, --json, --out PATH or --limit 0"
    )
    every = shu("sql", query, "--limit", "0", "--db", str(stored))
    assert sum(line.startswith("│") for line in every.stdout.splitlines()) == 50
    assert "first" not in every.stdout
    assert len(json.loads(shu("sql", query, "--json", "--db", str(stored)).stdout)) == 50


def test_forecast_prints_a_summary_and_each_kind_of_value_in_its_own_column(stored) -> None:
    """The yes/no questions with a probability and its band; the intervals with a median and
    an 80% range in stars/day (no 0.80 │ high for an interval); the first rows of each, and a
    query the user can run for every row; --json on another store carries them all."""
    copy = stored.with_name("copy.duckdb")
    copy.write_bytes(stored.read_bytes())
    # --as-of: every question of the day, whatever today is (without it, only those resolving
    # after today, and the fixture's data end in 2024)
    run = shu("forecast", "--as-of", "2024-06-28", "--limit", "3", "--db", str(stored))
    assert run.returncode == 0, run.stderr
    summary = re.match(
        r"(\d+) new forecasts as of 2024-06-28: (\d+) yes/no questions and (\d+) velocity "
        r"intervals, on 1 repository\n",
        run.stdout,
    )
    assert summary, run.stdout
    total, n_questions, n_intervals = (int(g) for g in summary.groups())
    assert total == n_questions + n_intervals and n_questions > 3 and n_intervals == 3
    header, rows = _table(run.stdout, "yes/no questions")
    assert header == ["repo", "question", "p", "confidence"] and len(rows) == 3
    assert all(0 <= float(r[2]) <= 1 and r[3] in {"low", "medium", "high"} for r in rows)
    assert f"first 3 of {n_questions} rows" in run.stdout
    header, rows = _table(run.stdout, "intervals")
    assert header == ["repo", "question", "median", "80% range", "unit"] and len(rows) == 3
    for r in rows:
        low, high = (float(x) for x in r[3].split(" – "))
        assert low <= float(r[2]) <= high and r[4] == "stars/day"
        assert r[1].startswith("What will the 28-day star velocity")
    pointer = re.search(r"every row: --limit 0, or `shu sql \"(.+)\" --csv`", run.stdout)
    assert pointer, run.stdout
    every = shu("sql", pointer.group(1), "--csv", "--db", str(stored))
    assert len(every.stdout.splitlines()) == 1 + total
    again = shu(
        "forecast", "--as-of", "2024-06-28", "--db", str(stored)
    )  # a re-run: which day is stored, and the query
    assert again.returncode == 0, again.stderr
    said = " ".join(again.stdout.split())
    assert said.startswith(
        f"0 new forecasts: the {total} forecasts as of 2024-06-28 (on 1 repository) are "
        "already in the store; to see them: shu sql"
    ), said
    listed = shu("sql", said.split('shu sql "')[1].rstrip('"'), "--csv", "--db", str(stored))
    assert len(listed.stdout.splitlines()) == 1 + total
    issued = json.loads(
        shu("forecast", "--as-of", "2024-06-28", "--json", "--db", str(copy)).stdout
    )
    assert len(issued) == total
    intervals = [f for f in issued if "interval" in f]
    assert len(intervals) == n_intervals and all(
        f["interval"]["lower_80"] <= f["interval"]["median"] <= f["interval"]["upper_80"]
        for f in intervals
    )


def test_json_of_the_commands_that_gained_it_is_the_table_in_full(stored, tmp_path) -> None:
    """`--json` on tables, signals, signals show and compare prints JSON alone on stdout (what
    else a command says goes to stderr), the table's values at full precision."""
    listed = json.loads(shu("tables", "--json", "--db", str(stored)).stdout)
    assert {"table": "stars_daily", "kind": "table", "rows": 168} in listed
    refreshed = json.loads(shu("signals", "--json", "--db", str(stored)).stdout)
    assert refreshed["star_signals"]["to_day"] == "2024-06-28" and "seconds" in refreshed
    latest = json.loads(
        shu("signals", "show", "PyTorch/PyTorch", "--json", "--db", str(stored)).stdout
    )
    assert latest["repo"] == "pytorch/pytorch" and latest["day"] == "2024-06-28"
    assert latest["velocity_28d"] == pytest.approx(31 / 28)  # 1.107142…, not the table's +1.107
    run = shu(
        "compare", "pytorch/pytorch", "--json", "--out", str(tmp_path / "c"), "--db", str(stored)
    )
    assert run.returncode == 0, run.stderr
    [row] = json.loads(run.stdout)
    assert row["repo"] == "pytorch/pytorch" and row["to"] == "2024-06-28"
    assert set(row) == {"repo", "from", "value_then", "to", "value_now", "change", "peak"} | {
        "peak_on"
    }  # snake_case keys, no spaces
    assert "wrote" in run.stderr and (tmp_path / "c" / "compare-velocity.png").exists()
