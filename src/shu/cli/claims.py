"""`shu claims`: configured and document claims checked against the probe runs, as a table or
JSON (one object per claim and verdict)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table as RichTable

from shu.cli import DbOption, app, console, db_path, json_option, print_json

VERDICT_ORDER = {"contradicted": 0, "supported": 1, "untestable here": 2}


@app.command()
def claims(
    as_json: bool = json_option(
        "Print a JSON list: one object per claim and verdict (claim, verdict, source, device, "
        "metric, claimed, measured, run_id, …)."
    ),
    verdict: str | None = typer.Option(
        None,
        metavar="VERDICT",
        help="Only this verdict: supported, contradicted or 'untestable here'.",
    ),
    db: Path = DbOption,
) -> None:
    """Check hardware/compiler claims (shu.toml's list and those read from ingested documents)
    against the probe runs of the same device class, backend and workload.

    Example: shu claims --json --db data/shu.duckdb
    """
    from shu.errors import InputError
    from shu.evidence.claims import evaluate_claims
    from shu.settings import get_settings
    from shu.store import open_store

    if verdict is not None and verdict not in VERDICT_ORDER:
        raise InputError(f"--verdict {verdict!r}: expected one of {', '.join(VERDICT_ORDER)}")
    with open_store(db_path(db), read_only=True) as store:
        checks = evaluate_claims(store, get_settings())
    checks = [c for c in checks if verdict is None or c.verdict == verdict]
    if as_json:
        print_json([c.as_json() for c in checks])
        return
    out = RichTable("claim", "source", "claimed", "run", "verdict", "evidence", show_lines=True)
    colour = {"supported": "green", "contradicted": "red"}
    for c in sorted(checks, key=lambda c: VERDICT_ORDER.get(c.verdict, 3)):
        shown = f"[{colour[c.verdict]}]{c.verdict}[/]" if c.verdict in colour else c.verdict
        shown += escape(c.verdict_words.removeprefix(c.verdict))  # the number and the fusion
        source = c.spec.source if c.spec else "shu.toml"
        claimed = c.spec.describe() if c.spec else ""
        run = c.device_name or c.backend
        out.add_row(
            escape(c.claim), escape(source), escape(claimed), escape(run), shown, escape(c.evidence)
        )
    console.print(out)
    counts = {v: sum(c.verdict == v for c in checks) for v in VERDICT_ORDER}
    console.print(", ".join(f"{n} {v}" for v, n in counts.items()), highlight=False)
