"""The test tree runs any folder at a time: no test module imports from `conftest`, and no two test
modules share a file name.

The folders under tests/ are not packages, so pytest imports every conftest.py as the module
`conftest` (the last one loaded wins) and every test file by its bare name. A `from conftest import`
works when its folder runs alone and fails at import beside another folder; two `test_x.py` in
different folders collide the same way. Helpers live in `tests/support/` (`import support.x`)."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[2]


def _python_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if "__pycache__" not in p.parts)


def _conftest_imports(path: Path) -> list[int]:
    """Line numbers where `path` imports the module `conftest` (either import form)."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        if "conftest" in names:
            lines.append(node.lineno)
    return lines


def test_the_scan_sees_the_test_tree() -> None:
    files = _python_files()
    assert TESTS / "unit" / "core" / "test_test_layout.py" in files
    assert any(p.name == "conftest.py" for p in files)


def test_no_module_imports_from_conftest() -> None:
    found = [
        f"{path.relative_to(TESTS)}:{line}"
        for path in _python_files()
        for line in _conftest_imports(path)
    ]
    assert not found, "import from `conftest` (move the helper into tests/support/): " + ", ".join(
        found
    )


def test_the_check_catches_both_import_forms(tmp_path: Path) -> None:
    sample = tmp_path / "test_sample.py"
    sample.write_text("import os\nfrom conftest import START\nimport conftest, sys\n")
    assert _conftest_imports(sample) == [2, 3]


def test_test_module_names_are_unique() -> None:
    by_name: dict[str, list[str]] = defaultdict(list)
    for path in _python_files():
        if path.name.startswith("test_"):
            by_name[path.name].append(str(path.relative_to(TESTS)))
    clashes = {name: paths for name, paths in by_name.items() if len(paths) > 1}
    assert not clashes, f"test modules sharing a name (rename one): {clashes}"
