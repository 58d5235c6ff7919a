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


def _forecast_stages() -> dict[str, int]:
    """Subpackage or module of shu.forecast -> its stage's rank in design.md's stage table."""
    text = DESIGN.read_text(encoding="utf-8")
    table = text[text.index("| stage | what lives there |") :].split("\n\n")[0]
    rows = [line for line in table.splitlines()[2:] if line.startswith("|")]
    ranks: dict[str, int] = {}
    for rank, line in enumerate(rows):
        stage = line.strip("|").split("|")[0]
        for name in re.findall(r"`([a-z_]+)/?`", stage):
            ranks[name] = rank
    return ranks


def test_forecast_stages_import_only_earlier_stages():
    ranks = _forecast_stages()
    forecast = PACKAGE / "forecast"
    names = {p.stem for p in forecast.glob("*.py") if p.stem != "__init__"}
    names |= {p.name for p in forecast.iterdir() if p.is_dir() and any(p.glob("*.py"))}
    assert names == set(ranks), "design.md's forecast stages and src/shu/forecast differ"
    wrong = []
    for path in sorted(forecast.rglob("*.py")):
        rel = path.relative_to(forecast)
        me = rel.parts[0].removesuffix(".py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("shu.forecast"):
                parts = node.module.split(".")
                for other in [parts[2]] if len(parts) > 2 else [a.name for a in node.names]:
                    if other in ranks and ranks[other] > ranks[me]:
                        wrong.append(f"forecast/{rel} ({me}) imports {other}, a later stage")
    assert wrong == []


# Each idea design.md names once ("One idea, one definition"): where it is defined.
DEFINED_ONCE = {
    "climatology": "forecast/base_rates.py",
    "climatology_counts": "forecast/base_rates.py",
    "climatology_rate": "forecast/base_rates.py",
    "calibration_block_rates": "forecast/base_rates.py",
    "fit_block_rate": "forecast/base_rates.py",
    "smoothed_rate": "forecast/base_rates.py",
    "CLIMATOLOGY_DAYS": "forecast/base_rates.py",
    "confidence_band": "forecast/confidence.py",
    "confidence_bands": "forecast/confidence.py",
    "band_sql": "forecast/confidence.py",
    "MEDIUM_FROM": "forecast/confidence.py",
    "HIGH_FROM": "forecast/confidence.py",
    "BAND_EDGES": "forecast/confidence.py",
    "ece": "forecast/evaluation/scoring.py",
    "equal_count_bins": "forecast/evaluation/scoring.py",
    "WORDS": "forecast/features/words.py",
    "RADAR_STATEMENTS": "forecast/features/words.py",
    "statement": "forecast/features/words.py",
    "Citation": "receipts.py",
    "Receipt": "receipts.py",
    "TEMPLATES": "forecast/questions/registry.py",
    "DAILY_GAIN_SQL": "signals/star_days.py",
    "refresh_star_days": "signals/star_days.py",
    "spike_day": "signals/stories.py",
    "detect": "signals/stories.py",
    "loss_verdict": "signals/stories.py",
    "and_list": "briefing/text.py",
}


def _definitions() -> dict[str, list[str]]:
    """Name -> the modules (relative to src/shu) that define it: functions and classes at any
    depth, and names assigned at module level."""
    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = str(path.relative_to(PACKAGE))
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {
            n.name
            for n in ast.walk(tree)
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        }
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            if isinstance(node, ast.AnnAssign):
                targets = [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
        for name in names:
            found.setdefault(name, []).append(rel)
    return found


def test_each_idea_has_exactly_one_definition():
    found = _definitions()
    wrong = {
        name: found.get(name, [])
        for name, module in DEFINED_ONCE.items()
        if found.get(name, []) != [module]
    }
    assert wrong == {}, "defined elsewhere too (or not where design.md says)"
    # nor re-implemented under another name
    suspects = [
        f"{rel}: {name}"
        for name, modules in found.items()
        for rel in modules
        if name not in DEFINED_ONCE
        and (
            "calibration_error" in name
            or "band_of" in name
            or "confidence_band" in name
            or "climatology" in name
            or name.endswith(("Cite", "Citation"))
        )
    ]
    assert suspects == []


def _smoothed_shares(tree: ast.AST) -> int:
    """How many expressions compute (x + 1) / (y + 2): a smoothed share of yes."""

    def adds(node: ast.AST, k: float) -> bool:
        return (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Add)
            and isinstance(node.right, ast.Constant)
            and node.right.value == k
        )

    return sum(
        1
        for n in ast.walk(tree)
        if isinstance(n, ast.BinOp)
        and isinstance(n.op, ast.Div)
        and adds(n.left, 1)
        and adds(n.right, 2)
    )


def test_band_edges_and_smoothed_rates_are_not_written_out_again():
    confidence = PACKAGE / "forecast" / "confidence.py"
    base_rates = PACKAGE / "forecast" / "base_rates.py"
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        rel = path.relative_to(PACKAGE)
        if path != confidence:
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and node.value == 0.65:
                    wrong.append(f"{rel}:{node.lineno}: the band edge 0.65")
                if isinstance(node, ast.Constant) and "THEN 'high'" in str(node.value):
                    wrong.append(f"{rel}:{node.lineno}: a confidence band in SQL")
        if path != base_rates and _smoothed_shares(tree):
            wrong.append(f"{rel}: a smoothed share (x + 1) / (y + 2)")
    assert wrong == []


# The daily star gain as SQL writes it: a count minus the one before (`stars - lag(stars)`, with
# or without an offset of 1), or the share of repositories whose count fell computed from one.
_DAILY_GAIN = re.compile(r"stars\s*-\s*lag\(\s*stars\s*(,\s*1\s*)?\)", re.IGNORECASE)
FACTS_LAYER = {"signals/star_days.py"}


def test_the_daily_gain_is_computed_only_in_the_facts_layer():
    """No module outside the facts layer re-implements the daily gain (design.md, "Facts
    layer"): it reads `star_days` instead. Checked by shape in Python and the SQL files."""
    wrong = [
        f"{path.relative_to(PACKAGE)}:{n}"
        for path in sorted([*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.sql")])
        if str(path.relative_to(PACKAGE)) not in FACTS_LAYER
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _DAILY_GAIN.search(line)
    ]
    assert wrong == []


# The tables the briefing words but must not compute from (design.md, "Facts layer").
_COMPUTED_FROM = re.compile(
    r"\b(FROM|JOIN)\s+(stars_daily|star_signals|commit_\w+|commits|history_\w+)\b",
    re.IGNORECASE,
)
# Briefing modules still reading those tables themselves, and which: each is to move below the
# briefing (issue 38); the list only shrinks, and the test fails when it is out of date.
STILL_READING = {
    "briefing/card/why.py": {"star_signals"},
    "briefing/charts.py": {"star_signals", "stars_daily"},
    "briefing/compare.py": {"star_signals"},
    "briefing/facts.py": {"commits", "star_signals", "stars_daily"},
    "briefing/sections/moved.py": {"star_signals"},
    "briefing/story_words.py": {"star_signals"},
}


def test_the_briefing_reads_the_facts_layer_not_the_raw_tables():
    """The stories, the calibration watch and the cards' busiest day read `star_days` /
    `market_days`; any other briefing module that computes from the star, commit or history
    tables is one of those still to move (`STILL_READING`)."""
    reading: dict[str, set[str]] = {}
    for path in sorted((PACKAGE / "briefing").rglob("*.py")):
        tables = {m.group(2).lower() for m in _COMPUTED_FROM.finditer(path.read_text("utf-8"))}
        if tables:
            reading[str(path.relative_to(PACKAGE))] = tables
    assert reading == STILL_READING


def test_no_briefing_module_is_over_600_lines():
    """The briefing words, lays out and draws; a module past 600 lines is computing something
    that belongs in a layer below, or two things."""
    long = {
        str(path.relative_to(PACKAGE)): n
        for path in sorted((PACKAGE / "briefing").rglob("*.py"))
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert long == {}


def test_the_briefing_joins_its_lists_in_one_place():
    """'a, b and c' is `text.and_list`; no other briefing module writes the joiner out again."""
    wrong = [
        f"{path.relative_to(PACKAGE)}:{n}"
        for path in sorted((PACKAGE / "briefing").rglob("*.py"))
        if path.name != "text.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r'\+ " and " \+', line)
    ]
    assert wrong == []
