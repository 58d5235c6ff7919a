"""`shu probe` (run the live probe here and store it) and `shu ingest probe FILE.json` (store a
run made on another host); `shu claims` lives in `shu.cli.claims`."""

from __future__ import annotations

from pathlib import Path

import typer

from shu.cli import (
    DbOption,
    app,
    console,
    db_path,
    err_console,
    ingest_app,
    json_option,
    out_option,
)
from shu.errors import InputError


@app.command()
def probe(
    device: str = typer.Option("auto", metavar="DEVICE", help="auto, cuda, cpu or mps."),
    suite: str = typer.Option(
        "quick", metavar="SUITE", help="quick (3 kernels) or full (6 kernels)."
    ),
    as_json: bool = json_option(
        "Print the result document as JSON to stdout (the table goes to stderr). The older "
        "form --json PATH writes it to PATH, as --out does."
    ),
    out: Path | None = out_option("Also write the result JSON to this file."),
    threads: int | None = typer.Option(
        None, metavar="N", help="Pin torch's CPU threads for the run."
    ),
    db: Path = DbOption,
    json_path: list[str] | None = typer.Argument(
        None,
        metavar="PATH",
        help="Only after --json, the older --json PATH: the file to write, as --out PATH.",
        show_default=False,
    ),
) -> None:
    """Time TorchInductor against eager on this machine's hardware and store the result.

    Needs torch (`pip install -e .[probe]`). On a GPU host without the store, run
    `python -m shu.probe --suite full --out run.json` and `shu ingest probe run.json` here.

    Example: shu probe --device cpu --suite quick --threads 1 --out run.json
    """
    import json

    try:
        from shu.probe.__main__ import format_table
        from shu.probe.runner import run_probe
    except ImportError as exc:
        raise InputError(
            f"shu probe needs torch ({exc}); install it with `pip install -e .[probe]`"
        ) from exc
    from shu.probe_ingest import store_probe_document
    from shu.store import open_store

    if json_path:  # the older `--json PATH`: the path arrives as an argument of its own
        if not as_json or len(json_path) > 1:
            raise InputError(f"unexpected argument(s) {' '.join(json_path)} (see shu probe --help)")
        if out is not None and out != Path(json_path[0]):
            raise InputError(f"--json {json_path[0]} and --out {out} name two different files")
        out, as_json = Path(json_path[0]), False
    try:
        doc = run_probe(
            device=device,
            suite=suite,
            threads=threads,
            progress=lambda m: err_console.print(m, highlight=False, markup=False),
        )
    except (RuntimeError, ValueError) as exc:
        raise InputError(str(exc).splitlines()[0]) from exc
    table_to = err_console if as_json else console
    table_to.print(format_table(doc), highlight=False, markup=False, soft_wrap=True)
    text = json.dumps(doc, indent=1, allow_nan=False)
    if out is not None:
        out.write_text(text + "\n", encoding="utf-8")
    with open_store(db_path(db)) as store:
        load = store_probe_document(store, doc, "shu probe")
    if as_json:
        print(text)
        err_console.print(load.message, highlight=False)
    else:
        console.print(load.message, highlight=False)


@ingest_app.command("probe")
def ingest_probe(
    paths: list[Path] = typer.Argument(
        ..., help="Probe JSON file(s) from `python -m shu.probe --out PATH`."
    ),
    db: Path = DbOption,
) -> None:
    """Store probe results produced on any host (idempotent by run_id).

    Example: shu ingest probe docs/probe/h200-full-cold.json
    """
    from shu.probe_ingest import ingest_probe_file
    from shu.store import open_store

    with open_store(db_path(db)) as store:
        for path in paths:
            load = ingest_probe_file(store, path)
            console.print(f"{path}: {load.message}", highlight=False)
