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
    "loss_verdict": "signals/story_reads.py",
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


def _module_name(path: Path, root: Path) -> str:
    """`root`/a/b.py -> 'pkg.a.b' (and a package's __init__.py -> 'pkg.a'), pkg being root's
    folder name."""
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _module_imports(path: Path, name: str, modules: set[str]) -> set[str]:
    """The package's modules that module `name` (at `path`) imports anywhere in its code (inside
    functions too: a lazy import puts off a cycle, it does not remove it). `from a import b` is
    module a.b when that is a module, else a; importing a.b runs package a first, so it imports
    a too; importing one's own enclosing package is not an edge (Python has run it before any
    module inside it)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    named: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            named |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: `from . import x`, `from ..a import b`
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            named |= {base} | {f"{base}.{a.name}" for a in node.names}
    found = set()
    for target in named:
        while target:
            if target in modules and not (name == target or name.startswith(target + ".")):
                found.add(target)
            target = target.rpartition(".")[0]
    return found


def import_cycles(root: Path) -> list[list[str]]:
    """Each group of the package's modules at `root` that import one another, directly or
    through others (the strongly connected components of more than one module, or one that
    imports itself), each sorted, the groups in order."""
    paths = {_module_name(p, root): p for p in root.rglob("*.py")}
    graph = {name: _module_imports(path, name, set(paths)) for name, path in paths.items()}
    reaches: dict[str, set[str]] = {}
    for start in graph:  # every module each module reaches (the package is small: plain DFS)
        seen: set[str] = set()
        todo = list(graph[start])
        while todo:
            here = todo.pop()
            if here not in seen:
                seen.add(here)
                todo.extend(graph[here])
        reaches[start] = seen
    groups = {
        tuple(sorted({m} | {o for o in reaches[m] if m in reaches[o]}))
        for m in graph
        if m in reaches[m]
    }
    return sorted(list(g) for g in groups)


def test_no_import_cycles_in_the_package():
    """What `scripts/test` runs before the tests: no module of src/shu imports, through any
    chain, a module that imports it back (checked from src/ alone)."""
    assert import_cycles(PACKAGE) == []


def test_the_cycle_check_finds_a_cycle_through_a_lazy_import(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "a.py": "from pkg.b import f\n",
        "b.py": "def f():\n    from .a import g\n",  # lazy, relative: still b -> a
        "c.py": "import pkg\nfrom pkg import a\n",  # c -> a, nothing back
        "sub/__init__.py": "",
        "sub/d.py": "from pkg import sub\nfrom ..c import x\n",  # its own package; d -> c
    }
    for name, text in files.items():
        (pkg / name).write_text(text, encoding="utf-8")
    assert import_cycles(pkg) == [["pkg.a", "pkg.b"]]
    (pkg / "a.py").write_text("import pkg.sub.d\n", encoding="utf-8")  # a -> d -> c -> a
    assert import_cycles(pkg) == [["pkg.a", "pkg.c", "pkg.sub.d"]]


BENCHMARKS = ROOT / "benchmarks"
SCORING = PACKAGE / "forecast" / "evaluation" / "scoring.py"
WALK_FORWARD = PACKAGE / "forecast" / "evaluation" / "walk_forward.py"
# Squared differences that are not a forecast's score, each with what it measures.
NOT_A_SCORE = {
    # the distance of a monotone curve from the one it starts from, minimised by a fit
    PACKAGE / "forecast" / "calibration" / "distribution.py",
}
# A Brier score in SQL: power(x - y, 2), averaged or not.
_SQUARED_SQL = re.compile(r"power\s*\([^,]*-[^,]*,\s*2\s*\)", re.IGNORECASE)


def _squared_difference(node: ast.AST) -> bool:
    """(a - b) ** 2, np.square(a - b) or np.power(a - b, 2)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        return (
            isinstance(node.left, ast.BinOp)
            and isinstance(node.left.op, ast.Sub)
            and isinstance(node.right, ast.Constant)
            and node.right.value == 2
        )
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.BinOp):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        return isinstance(node.args[0].op, ast.Sub) and name in ("square", "power")
    return False


def _mean_of(node: ast.AST, inner: ast.AST) -> bool:
    """Whether `node` averages over `inner`: np.mean(...), (...).mean(), sum(...) / len(...)."""
    if isinstance(node, ast.Call):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        name = name or (node.func.id if isinstance(node.func, ast.Name) else "")
        return name in ("mean", "average", "nanmean") and any(
            inner is n for a in node.args for n in ast.walk(a)
        )
    return False


def _brier_shapes(path: Path, every_square: bool) -> list[str]:
    """Where a module computes a Brier score by hand: a power(x - y, 2) in its SQL text, a mean
    of a squared difference, or (with `every_square`) any squared difference."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    squares = [n for n in ast.walk(tree) if _squared_difference(n)]
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and _SQUARED_SQL.search(node.value)
        ):
            found.append(f"{path.name}:{node.lineno}: a squared difference in SQL")
        if any(_mean_of(node, s) for s in squares):
            found.append(f"{path.name}:{getattr(node, 'lineno', 0)}: a mean squared difference")
    if every_square:
        found += [f"{path.name}:{getattr(n, 'lineno', 0)}: a squared difference" for n in squares]
    return found


def test_the_brier_score_is_computed_by_scoring_only():
    """No module but `scoring` writes a Brier score out again, under any name: every squared
    difference in src/shu (and SQL's power(x - y, 2)) is scoring's or named in NOT_A_SCORE;
    benchmarks compute no mean squared difference of their own."""
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path != SCORING:
            wrong += _brier_shapes(path, every_square=path not in NOT_A_SCORE)
    for path in sorted(BENCHMARKS.glob("*.py")):
        wrong += _brier_shapes(path, every_square=False)
    assert wrong == []


def _calls(tree: ast.AST, name: str) -> list[int]:
    """Lines calling `name` (a plain name or an attribute)."""
    return [
        n.lineno
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and (
            (isinstance(n.func, ast.Name) and n.func.id == name)
            or (isinstance(n.func, ast.Attribute) and n.func.attr == name)
        )
    ]


def test_one_ece_and_one_walk_forward():
    """ECE's binned |mean p - observed| is computed in `scoring` only (no other function both
    bins by count and takes an absolute difference), and the walk forward's split is chosen by
    `walk_forward.refit_blocks` only (besides `shu train`'s single fit on a day): no other
    module, benchmarks included, calls `fit_calibration_split` in a loop of its own."""
    allowed_split = {WALK_FORWARD, PACKAGE / "forecast" / "models" / "train.py"}
    wrong = []
    for path in sorted([*PACKAGE.rglob("*.py"), *BENCHMARKS.glob("*.py")]):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if path not in allowed_split and _calls(tree, "fit_calibration_split"):
            wrong.append(f"{path.name}: fit_calibration_split outside the walk forward")
        if path == SCORING:
            continue
        for fn in ast.walk(tree):
            if (
                isinstance(fn, ast.FunctionDef)
                and (_calls(fn, "equal_count_bins") or _calls(fn, "bincount"))
                and _calls(fn, "abs")
            ):
                wrong.append(f"{path.name}:{fn.lineno}: {fn.name} bins and takes |p - o|")
    assert wrong == []


MAX_MODULE_LINES = 600


def test_no_module_is_over_600_lines():
    """No module of src/shu is past 600 lines: one that is computes two things, or something
    that belongs in a layer below."""
    long = {
        str(path.relative_to(PACKAGE)): n
        for path in sorted(PACKAGE.rglob("*.py"))
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


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


# The tables a briefing module may not hand to a query by name: the raw star, commit and history
# tables and the per-repository signal tables, which `signals/reads.py` reads by named functions.
_READ_BELOW = re.compile(
    r"(stars_daily|star_signals|peer_signals|release_context|commit_\w+|commits|history_\w+)"
)
# An argument that is the store or a connection to it (`store`, `ctx.store`, `store.con`, `con`).
_STORE_ARGUMENT = re.compile(r"(^|_)(store|con)$")
# SQL text (upper-case keywords, as every query here writes them; prose says "from") ending where
# a table name goes, so that the next part of an f-string names the table.
_TABLE_GOES_HERE = re.compile(r"\b(FROM|JOIN)\s+\"?$")


def _store_argument(node: ast.expr) -> bool:
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")
    return bool(_STORE_ARGUMENT.search(name))


def _tables_handed_over(tree: ast.AST) -> list[str]:
    """Where a module hands a query a table by name: a call given the store (or a connection)
    and a string naming one of `_READ_BELOW`, or an f-string whose SQL takes its table from an
    interpolated value."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            args = [*node.args, *(k.value for k in node.keywords)]
            names = [
                a.value
                for a in args
                if isinstance(a, ast.Constant)
                and isinstance(a.value, str)
                and _READ_BELOW.fullmatch(a.value)
            ]
            if names and any(_store_argument(a) for a in args):
                found += [f"{node.lineno}: {n} handed to a query" for n in names]
        elif isinstance(node, ast.JoinedStr):
            for part, after in zip(node.values, node.values[1:], strict=False):
                if (
                    isinstance(part, ast.Constant)
                    and isinstance(after, ast.FormattedValue)
                    and _TABLE_GOES_HERE.search(str(part.value))
                ):
                    found.append(f"{node.lineno}: a table interpolated into SQL")
    return found


def test_the_briefing_reads_the_facts_layer_not_the_raw_tables():
    """The briefing reads the facts layer (`star_days`, `market_days`) and the signals' read
    functions (`signals/reads.py`, `story_reads.py`, `rocm_facts.py`); no briefing module
    executes SQL over the star, commit or history tables itself, nor reads a signal table by
    handing its name (or an interpolated one) to a query."""
    reading: dict[str, set[str]] = {}
    for path in sorted((PACKAGE / "briefing").rglob("*.py")):
        text = path.read_text("utf-8")
        tables = {m.group(2).lower() for m in _COMPUTED_FROM.finditer(text)}
        tables |= set(_tables_handed_over(ast.parse(text)))
        if tables:
            reading[str(path.relative_to(PACKAGE))] = tables
    assert reading == {}


def test_the_reading_check_sees_a_table_handed_over_by_name():
    """The shapes the check above looks for are found where they are written: a signal table's
    name handed with the store, an f-string choosing the table (a receipt naming the table it
    cites, with no store, is not a read)."""
    handed = ast.parse(
        'row = latest_row(ctx.store, "star_signals", repo, day)\n'
        "store.con.execute(f'SELECT * FROM \"{table}\" WHERE repo = ?', [repo])\n"
        'ctx.book.row("star_signals", key, "stars", 1, day, "stars")\n'
    )
    assert _tables_handed_over(handed) == [
        "1: star_signals handed to a query",
        "2: a table interpolated into SQL",
    ]


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


# Names the briefing's generic wording helpers went by before they were collected in text.py.
_OLD_HELPER_NAMES = {"_join", "_lower", "_span", "_ci", "_signal"}


def test_the_briefing_has_one_words_module():
    """The wording helpers every section may need (joiners, number, percentage and date formats,
    links, receipt ranges, the citation of a stored signal) are `text.py`'s: no other briefing
    module defines one of them again, under its name, as a private twin (`_and_list`) or under
    a name such a helper had before it moved there, nor writes a GitHub address itself."""
    text = PACKAGE / "briefing" / "text.py"
    helpers = {
        n.name
        for n in ast.parse(text.read_text(encoding="utf-8")).body
        if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")
    }
    again = helpers | {f"_{h}" for h in helpers} | _OLD_HELPER_NAMES
    wrong = []
    for path in sorted((PACKAGE / "briefing").rglob("*.py")):
        if path == text:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name in again:
                wrong.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: def {node.name}")
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and "https://github.com" in node.value
            ):
                wrong.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: a GitHub address")
    assert wrong == []


def test_the_briefing_writes_its_percentages_in_one_place():
    """A share as a percentage is `text.pct` (its digits, '—' for missing); no other briefing
    module writes `{100 * x:.1f}%` out again."""
    by_hand = re.compile(r"\{100 \* [^{}]+:\.\d?f\}%")
    wrong = [
        f"{path.relative_to(PACKAGE)}:{n}"
        for path in sorted((PACKAGE / "briefing").rglob("*.py"))
        if path.relative_to(PACKAGE) != Path("briefing/text.py")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if by_hand.search(line)
    ]
    assert wrong == []


# The packages that may read the process settings (`get_settings()`): the entry points, which
# pass them down; every module below takes the settings it needs as a parameter.
ENTRY_POINTS = ("flows", "cli", "demo", "analyst", "notebook", "probe_ingest", "testing")


def test_settings_are_passed_not_fetched_below_the_entry_points():
    """No module below the entry points calls `get_settings()` (nor `settings or
    get_settings()`): the settings are a parameter, not a hidden input (design.md, "Layers")."""
    wrong = [
        f"{rel}:{n}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if (rel := str(path.relative_to(PACKAGE))).split("/")[0].removesuffix(".py")
        not in ENTRY_POINTS
        and rel != "settings.py"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\bget_settings\(\)", line)
    ]
    assert wrong == []
