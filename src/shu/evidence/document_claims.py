"""The `claims` table: extracting documents' claims into the store, and reading them back.

`refresh_claims(store, doc_ids)` re-reads the stored passages of the given documents and
replaces their claims (delete + insert in the caller's transaction), for each document whose
`claim_extractions` row is missing, from another content hash or from older rules; so
re-ingesting is idempotent and a rules upgrade re-reads old documents. `document_claims(store)`
returns the stored claims with their document's title and location, for verdicts and receipts.
`ingest_with_claims(store, paths)` loads documents with their claims in one transaction (what
`shu ingest docs` and the daily flow run).
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

import pandas as pd

from shu.evidence.extract import EXTRACTOR_VERSION, extract_claims
from shu.schema import TABLES_BY_NAME
from shu.sources.documents import DocumentsResult, ingest_documents
from shu.store import Store, utcnow


def ingest_with_claims(store: Store, paths: list, root: Path | None = None) -> DocumentsResult:
    """`ingest_documents` with each new or changed document's claims extracted in the same
    transaction (located relative to `root` when given: `ingest_documents`)."""
    return ingest_documents(store, paths, extract_claims=refresh_claims, root=root)


def refresh_claims(store: Store, doc_ids: list[str], force: bool = False) -> int:
    """Re-extract the claims of `doc_ids` that need it (all of them with `force`); the number
    of claims written."""
    if not doc_ids:
        return 0
    stale = [
        row[0]
        for row in store.con.execute(
            "SELECT d.doc_id FROM documents d LEFT JOIN claim_extractions e USING (doc_id) "
            "WHERE d.doc_id IN (SELECT unnest(?)) AND (? OR e.doc_id IS NULL OR "
            "e.extractor_version IS DISTINCT FROM ? OR e.content_hash IS DISTINCT FROM "
            "d.content_hash) ORDER BY d.doc_id",
            [doc_ids, force, EXTRACTOR_VERSION],
        ).fetchall()
    ]
    if not stale:
        return 0
    passages = store.con.execute(
        "SELECT doc_id, passage_no, text FROM passages WHERE doc_id IN (SELECT unnest(?)) "
        "ORDER BY doc_id, passage_no",
        [stale],
    ).fetchall()
    now = utcnow()
    rows: list[dict[str, Any]] = []
    counts = dict.fromkeys(stale, 0)
    for doc_id, passage_no, text in passages:
        for n, claim in enumerate(extract_claims(text)):
            rows.append(
                {
                    "claim_id": f"{doc_id}:{passage_no}:{n}",
                    "doc_id": doc_id,
                    "passage_no": passage_no,
                    "claim_no": n,
                    **asdict(claim),
                    "extractor_version": EXTRACTOR_VERSION,
                    "extracted_at": now,
                }
            )
            counts[doc_id] += 1
    hashes = dict(
        store.con.execute(
            "SELECT doc_id, content_hash FROM documents WHERE doc_id IN (SELECT unnest(?))", [stale]
        ).fetchall()
    )
    with store.transaction():
        store.con.execute("DELETE FROM claims WHERE doc_id IN (SELECT unnest(?))", [stale])
        if rows:
            frame = pd.DataFrame(rows, columns=TABLES_BY_NAME["claims"].column_names)
            store.upsert("claims", frame)
        store.upsert(
            "claim_extractions",
            pd.DataFrame(
                [
                    {
                        "doc_id": d,
                        "content_hash": hashes[d],
                        "extractor_version": EXTRACTOR_VERSION,
                        "n_claims": counts[d],
                        "extracted_at": now,
                    }
                    for d in stale
                ]
            ),
        )
    return len(rows)


def document_claims(store: Store) -> list[dict[str, Any]]:
    """Every stored claim with its document's title, location and date, in document order
    (none from a store opened read-only that predates the `claims` table)."""
    if not store.con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'claims' AND schema_name = 'main'"
    ).fetchall()[0][0]:
        return []
    cur = store.con.execute(
        "SELECT c.*, d.title, d.location, d.published_on FROM claims c JOIN documents d "
        "USING (doc_id) ORDER BY d.location, c.passage_no, c.claim_no"
    )
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
