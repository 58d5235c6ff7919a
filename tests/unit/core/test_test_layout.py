"""The test tree runs any folder at a time: no test module imports from `conftest` or from
another test module, and no two test modules share a file name.

The folders under tests/ are not packages, so pytest imports every conftest.py as the module
`conftest` (the last one loaded wins) and every test file by its bare name. A `from conftest import`
works when its folder runs alone and fails at import beside another folder; two `test_x.py` in
different folders collide the same way; importing a test module (`from tests.unit.x.test_y import`)
runs its tests' module code again under another name and breaks when the module moves. Helpers
live in `tests/support/` (`import support.x`)."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[2]


def _python_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if "__pycache__" not in p.parts)


def _test_module(name: str) -> bool:
    """Whether an imported module name is a conftest or a test module."""
    parts = name.split(".")
    return parts[0] in ("conftest", "tests") or parts[-1].startswith("test_")


def _forbidden_imports(path: Path) -> list[str]:
    """'line: module' for each import in `path` of a conftest or a test module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found += [f"{node.lineno}: {name}" for name in names if _test_module(name)]
    return found


def test_the_scan_sees_the_test_tree() -> None:
    files = _python_files()
    assert TESTS / "unit" / "core" / "test_test_layout.py" in files
    assert any(p.name == "conftest.py" for p in files)
    assert any(p.parent.name == "support" for p in files)


def test_no_module_imports_a_conftest_or_a_test_module() -> None:
    found = [
        f"{path.relative_to(TESTS)}:{where}"
        for path in _python_files()
        for where in _forbidden_imports(path)
    ]
    assert not found, "import of a conftest or test module (move it to tests/support/): " + (
        ", ".join(found)
    )


def test_the_check_catches_every_form(tmp_path: Path) -> None:
    sample = tmp_path / "test_sample.py"
    sample.write_text(
        "import os\nfrom conftest import START\nimport conftest, sys\n"
        "from tests.unit.forecast.test_cli import shu\nimport test_other\n"
        "from support.cli import shu\nfrom shu.forecast import testing\n"
    )
    assert _forbidden_imports(sample) == [
        "2: conftest",
        "3: conftest",
        "4: tests.unit.forecast.test_cli",
        "5: test_other",
    ]


def test_test_module_names_are_unique() -> None:
    by_name: dict[str, list[str]] = defaultdict(list)
    for path in _python_files():
        if path.name.startswith("test_"):
            by_name[path.name].append(str(path.relative_to(TESTS)))
    clashes = {name: paths for name, paths in by_name.items() if len(paths) > 1}
    assert not clashes, f"test modules sharing a name (rename one): {clashes}"
