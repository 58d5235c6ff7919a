"""The README's runnable examples run as written, on a small real store built here.

A fenced `bash` or `python` block preceded by the line `<!-- runnable -->` is one example (the
README's Development section says so). Each runs in a folder of its own with `SHU_DB` naming a
store filled by the real `shu ingest ranking` and `shu signals`: python blocks in a fresh
interpreter, bash blocks line by line under `set -e` with `shu` from the virtualenv. It must exit
0 with nothing on stderr that reads as an error or a traceback.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
MARKER = "<!-- runnable -->"
FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.S | re.M)
TRACKED = ("pytorch/pytorch", "tensorflow/tensorflow", "ollama/ollama")


def runnable_blocks(text: str) -> list[tuple[int, str, str]]:
    """(line, language, code) of each fenced block right after a `<!-- runnable -->` line."""
    blocks = []
    for match in FENCE.finditer(text):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        if before.strip() == MARKER:
            blocks.append((text.count("\n", 0, match.start()) + 1, match[1], match[2]))
    return blocks


BLOCKS = runnable_blocks((ROOT / "README.md").read_text(encoding="utf-8"))


def test_the_readme_marks_its_analyst_and_notebook_examples() -> None:
    code = "\n".join(c for _, _, c in BLOCKS)
    assert {lang for _, lang, _ in BLOCKS} == {"bash", "python"}
    for example in ("shu.connect()", 'shu.star_signals("pytorch/pytorch")', "shu tables"):
        assert example in code
    assert "shu sql " in code


def test_a_marker_before_a_block_is_found_and_one_elsewhere_is_not() -> None:
    text = "<!-- runnable -->\n```bash\nshu tables\n```\n\ntext\n\n```bash\nshu sql x\n```\n"
    assert runnable_blocks(text) == [(2, "bash", "shu tables\n")]


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    """A real store: 120 days of star counts of the three tracked repositories, and signals."""
    folder = tmp_path_factory.mktemp("readme")
    csv = folder / "counts.csv"
    first = date.today() - timedelta(days=120)
    rows = ["day,repo,stars"]
    for i in range(120):
        for k, repo in enumerate(TRACKED):
            rows.append(
                f"{first + timedelta(days=i)},{repo},{1000 * (k + 1) + 7 * i + i * i // 50}"
            )
    csv.write_text("\n".join(rows) + "\n", encoding="utf-8")
    db = folder / "shu.duckdb"
    for args in (["ingest", "ranking", str(csv)], ["signals"]):
        proc = subprocess.run(
            [sys.executable, "-m", "shu", *args],
            capture_output=True,
            text=True,
            env={**os.environ, "SHU_DB": str(db)},
            cwd=folder,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr
    return db


@pytest.mark.parametrize(
    ("line", "language", "code"), BLOCKS, ids=[f"README:{b[0]}" for b in BLOCKS]
)
def test_readme_example_runs_as_written(line, language, code, store, tmp_path) -> None:
    env = {
        **os.environ,
        "SHU_DB": str(store),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "COLUMNS": "120",
    }
    env.pop("SHU_CONFIG", None)
    if language == "python":
        command = [sys.executable, "-c", code]
    else:
        tools = {ln.split()[0] for ln in code.splitlines() if ln.strip()}
        tools |= {m for m in re.findall(r"\|\s*(\w+)", code)}
        missing = sorted(t for t in tools if shutil.which(t, path=env["PATH"]) is None)
        if missing:
            pytest.skip(f"README:{line} uses {', '.join(missing)}, not installed here")
        command = ["bash", "-e", "-c", code]
    proc = subprocess.run(
        command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300
    )
    assert proc.returncode == 0, f"README:{line}: {proc.stderr}"
    assert "Traceback" not in proc.stderr and "error:" not in proc.stderr, proc.stderr
