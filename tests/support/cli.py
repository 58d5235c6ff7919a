"""`shu` as a user runs it: a child process of this interpreter (`python -m shu`), its output
captured, a store named by SHU_DB, wide columns so tables do not wrap."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def shu(
    *args: str, db: Path, cwd: Path = ROOT, **env_vars: str
) -> subprocess.CompletedProcess[str]:
    """Run `shu ARGS` on the store `db` from `cwd` (the checkout by default), extra environment
    variables added; five minutes at most."""
    env = {**os.environ, "COLUMNS": "200", "SHU_DB": str(db), **env_vars}
    return subprocess.run(
        [sys.executable, "-m", "shu", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=300,
    )
