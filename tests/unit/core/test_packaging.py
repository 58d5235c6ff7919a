"""The wheel carries the shipped model, so a pip-installed (non-editable) shu finds it.

Builds the wheel from a copy of the checkout (pip, setuptools, no network) and checks that the
model and its card are inside at `shu/models/`, where `shu.settings.shipped_models_dir` of an
installed shu looks, byte for byte the files in `models/`.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def test_the_wheel_ships_the_model(tmp_path: Path) -> None:
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
