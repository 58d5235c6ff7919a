"""The package data in pyproject.toml matches the package: every file under src/shu that is not
Python is listed (a wheel without it would fail at run time, e.g. a missing SQL file or
template), and every pattern listed matches a file (no stale entries). The wheel carries the
shipped model, so a pip-installed (non-editable) shu finds it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SRC = ROOT / "src"


def _package_data() -> dict[str, list[str]]:
    with (ROOT / "pyproject.toml").open("rb") as f:
        return tomllib.load(f)["tool"]["setuptools"]["package-data"]


def _listed() -> dict[str, set[Path]]:
    """Pattern ('package: glob') -> the files it matches."""
    out = {}
    for package, patterns in _package_data().items():
        folder = SRC / package.replace(".", "/")
        for pattern in patterns:
            out[f"{package}: {pattern}"] = {p for p in folder.glob(pattern) if p.is_file()}
    return out


def _data_files() -> set[Path]:
    """Every file under src/shu that setuptools does not ship as a module (links followed)."""
    found = set()
    for folder, dirs, files in os.walk(SRC / "shu", followlinks=True):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        found |= {Path(folder) / f for f in files if not f.endswith((".py", ".pyc"))}
    return found


def test_every_data_file_is_listed() -> None:
    listed = set().union(*_listed().values())
    missing = sorted(str(p.relative_to(SRC)) for p in _data_files() - listed)
    assert not missing, f"files under src/shu missing from package-data in pyproject: {missing}"


def test_every_listed_pattern_matches_a_file() -> None:
    stale = [pattern for pattern, files in _listed().items() if not files]
    assert not stale, f"package-data patterns in pyproject that match no file: {stale}"


def test_the_package_says_it_is_typed_and_ships_its_sql_and_templates() -> None:
    names = {str(p.relative_to(SRC / "shu")) for p in set().union(*_listed().values())}
    assert "py.typed" in names
    assert any(n.startswith("signals/sql/") for n in names)
    assert any(n.startswith("briefing/templates/") for n in names)


def test_the_wheel_ships_the_model(tmp_path: Path) -> None:
    """Built from a copy of the checkout (pip, setuptools, no network): the model and its card
    are inside at `shu/models/`, where `shu.settings.shipped_models_dir` of an installed shu
    looks, byte for byte the files in `models/`."""
    pytest.importorskip("setuptools", reason="building the wheel needs setuptools in the venv")
    tree = tmp_path / "tree"
    tree.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, tree / name)
    shutil.copytree(ROOT / "models", tree / "models")
    shutil.copytree(
        ROOT / "src", tree / "src", symlinks=True, ignore=shutil.ignore_patterns("__pycache__")
    )
    assert (tree / "src" / "shu" / "models").is_symlink()
    pip = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
    built = subprocess.run(
        [*pip, "-w", str(tmp_path / "dist"), str(tree)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = (tmp_path / "dist").glob("shu-*.whl")
    with zipfile.ZipFile(wheel) as z:
        for name in ("forecaster.skops", "forecaster.json", "forecaster.md"):
            assert z.read(f"shu/models/{name}") == (ROOT / "models" / name).read_bytes(), name
