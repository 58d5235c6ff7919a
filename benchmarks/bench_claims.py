"""Claim extraction on a 10 MB page: prints the wall time of `shu ingest docs` (parse, passages,
claims, store) and of extraction alone, for a realistic page (prose with a distractor sentence
every ~3 KB) and an adversarial one (every sentence holds a figure that is not a claim).

Run: PYTHONPATH=src .venv/bin/python benchmarks/bench_claims.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from shu.evidence.document_claims import ingest_with_claims
from shu.evidence.extract import extract_claims
from shu.sources.documents import split_passages
from shu.store import open_store

SIZE = 10_000_000
PROSE = "The compiler team wrote long notes about kernels, caches and schedules here. "
DISTRACTOR = (
    "The PyTorch 2.5 release on CUDA 12.4 ships 1,024 fixes across 8x H100 nodes, with "
    "92% of models compiling. "
)
CLAIM = "On the H100, compiled softmax is about 2.5x faster than eager.\n\n"


def page(block: str) -> str:
    unit = block + "\n\n" + CLAIM
    return unit * (SIZE // len(unit) + 1)


def main() -> None:
    cases = {
        "realistic": page(PROSE * 30 + DISTRACTOR + PROSE * 10),
        "adversarial": page(DISTRACTOR * 40),
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in cases.items():
            path = Path(tmp) / f"{name}.md"
            path.write_text(text, encoding="utf-8")
            start = time.perf_counter()
            passages = split_passages(text)
            found = [c for p in passages for c in extract_claims(p)]
            extract_s = time.perf_counter() - start
            wrong = sum((c.device, c.workload, c.value) != ("H100", "softmax", 2.5) for c in found)
            with open_store(Path(tmp) / f"{name}.duckdb") as store:
                start = time.perf_counter()
                result = ingest_with_claims(store, [path])
                ingest_s = time.perf_counter() - start
            print(
                f"{name}: {path.stat().st_size / 1e6:.1f} MB, {len(passages):,} passages; "
                f"extraction alone {extract_s:.1f} s; shu ingest docs {ingest_s:.1f} s; "
                f"{result.claims:,} claims stored (expected {text.count(CLAIM):,}, "
                f"{wrong} wrong)"
            )


if __name__ == "__main__":
    main()
