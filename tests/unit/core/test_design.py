"""docs/design.md matches the code: every module its layer table names exists, every module of the
package is in some layer, and no import in src/shu reaches a lower layer; the README links only
inside the repository."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "src" / "shu"
DESIGN = ROOT / "docs" / "design.md"


def _layers() -> dict[str, int]:
    """Top-level module or package of shu -> its layer's rank (0 = foundation); 'apart' = -1."""
    text = DESIGN.read_text(encoding="utf-8")
    table = text[text.index("| layer | modules |") :].split("\n\n")[0]
    ranks: dict[str, int] = {}
    rows = [line for line in table.splitlines()[2:] if line.startswith("|")]
    for rank, line in enumerate(rows):
        layer, modules = (cell.strip() for cell in line.strip("|").split("|")[:2])
        for name in re.findall(r"`([a-z_]+)`", modules):
            ranks[name] = -1 if layer == "apart" else rank
    return ranks


def _top_level_names() -> set[str]:
    names = {p.stem for p in PACKAGE.glob("*.py") if p.stem not in ("__init__", "__main__")}
    names |= {
        p.name
        for p in PACKAGE.iterdir()
        if p.is_dir() and p.name != "__pycache__" and any(p.glob("*.py"))
    }
    return names


def _imports(path: Path) -> set[str]:
    """Top-level shu names a module imports (absolute `shu.X` imports)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            parts = node.module.split(".")
            if parts[0] != "shu":
                continue
            out |= {parts[1]} if len(parts) > 1 else {a.name for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {
                a.name.split(".")[1]
                for a in node.names
                if a.name.startswith("shu.") and a.name.count(".") >= 1
            }
    return out


def test_every_module_the_design_names_exists_and_every_module_is_named():
    ranks = _layers()
    existing = _top_level_names()
    assert set(ranks) - existing == set(), "design.md names modules that do not exist"
    assert existing - set(ranks) == set(), "modules missing from design.md's layer table"


def test_no_import_reaches_a_lower_layer():
    ranks = _layers()
    top = max(ranks.values())  # the entry points
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        me = rel.parts[0] if len(rel.parts) > 1 else rel.stem
        if me not in ranks:
            continue
        for other in _imports(path) - {me}:
            if other not in ranks:
                continue
            if ranks[me] == -1:
                wrong.append(f"{rel} imports {other} (the probe imports only torch)")
            elif ranks[other] == -1 and ranks[me] != top:
                wrong.append(f"{rel} ({me}) imports the probe (only entry points may)")
            elif ranks[other] > ranks[me]:
                wrong.append(f"{rel} ({me}) imports {other}, a higher layer")
    assert wrong == []


def test_readme_links_only_inside_the_repository():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)]+)\)", readme)
    assert "docs/design.md" in targets
    outside = [t for t in targets if t.startswith("../") or "/shared/" in t]
    assert outside == []
