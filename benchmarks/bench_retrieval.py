"""Passage retrieval on bm25s against the hand-written numpy Okapi BM25 it replaced.

`shu.evidence.retrieval.PassageIndex` scores with bm25s (Lucene BM25, k1 = 1.5, b = 0.75) over
shu's own tokens. This script keeps the numpy implementation it replaced as the reference and
runs both on the same corpora and queries:

- the passages of the retrieval tests (tests/unit/evidence/test_retrieval.py) with their queries;
- docs/notes/*.md, ingested by shu's document ingestion into a temporary store, and the seed
  documents in ../shared/seeds when present, with the questions the briefing asks (each
  repository and topic term in the templates of `briefing.compose._context_answers`) and
  free-form ones.

For every query it compares the top-k passages (same passages, same order), their scores and
coverage, and the extractive answer (sentences, citations, weak flag); it prints the counts, the
largest relative score difference and both implementations' times, and exits 1 on a mismatch.

    PYTHONPATH=src .venv/bin/python benchmarks/bench_retrieval.py [--k 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from shu.evidence.retrieval import K1, B, PassageIndex, ScoredPassage, tokenize
from shu.sources.documents import ingest_documents
from shu.store import open_store

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT.parent / "shared" / "seeds"
REPOS = ("pytorch", "tensorflow", "ollama", "platform", "runtime", "llama.cpp", "vllm")
TERMS = (
    "ROCm",
    "TPU",
    "XLA",
    "GGUF",
    "quantization",
    "torch.compile",
    "CUDA",
    "MI300",
    "Triton",
    "inductor",
)
QUANTITIES = ("star acceleration", "star velocity", "commit velocity", "release")
FREE = (
    "What is ROCm?",
    "gguf",
    "hyperscaler procurement budgets",
    "ROCm hyperscaler procurement budgets",
    "What is ROCm platform?",
    "ROCm TPU GGUF",
    "how fast is compiled softmax on H100",
    "AMD Instinct support for PyTorch",
    "local inference of quantized models",
    "stars per day as a signal of adoption",
    "JAX on Google TPUs",
    "kernel fusion speedup",
    "bandwidth of a copy kernel",
)


class ReferenceIndex(PassageIndex):
    """The numpy Okapi BM25 that `PassageIndex` used before bm25s (verbatim scoring)."""

    def __init__(self, rows: list[tuple]) -> None:
        self._rows = rows
        docs = [Counter(tokenize(r[2] + " " + (r[3] or ""))) for r in rows]
        self._lengths = np.array([sum(d.values()) for d in docs], dtype=float)
        self._avg_length = float(self._lengths.mean()) if rows else 0.0
        self._postings: dict[str, list[tuple[int, int]]] = {}
        for i, counts in enumerate(docs):
            for term, tf in counts.items():
                self._postings.setdefault(term, []).append((i, tf))

    def idf(self, term: str) -> float:
        n = len(self._postings.get(term, ()))
        return math.log(1.0 + (len(self._rows) - n + 0.5) / (n + 0.5))

    def search(self, query: str, k: int = 5) -> list[ScoredPassage]:
        terms = list(dict.fromkeys(tokenize(query)))
        if not terms or not self._rows:
            return []
        scores = np.zeros(len(self._rows))
        matched = np.zeros(len(self._rows))
        norm = K1 * (1 - B + B * self._lengths / self._avg_length)
        for term in terms:
            idf = self.idf(term)
            for i, tf in self._postings.get(term, ()):
                scores[i] += idf * tf * (K1 + 1) / (tf + norm[i])
                matched[i] += 1
        hits = np.flatnonzero(scores > 0)
        order = hits[np.lexsort((hits, -scores[hits]))][:k]
        out = []
        for i in order:
            doc_id, passage_no, text, title, location, published_on = self._rows[i]
            out.append(
                ScoredPassage(
                    doc_id,
                    int(passage_no),
                    text,
                    float(scores[i]),
                    float(matched[i] / len(terms)),
                    title,
                    location,
                    published_on,
                )
            )
        return out


def retrieval_test_corpus() -> list[tuple]:
    """The retrieval tests' passages, as `PassageIndex.from_store` would read them."""
    path = ROOT / "tests" / "unit" / "evidence" / "test_retrieval.py"
    spec = importlib.util.spec_from_file_location("test_retrieval", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    titles = {"d1": "ROCm notes", "d2": "TPU notes", "d3": "Ollama notes"}
    return [(d, n, text, titles[d], None, None) for d, n, text in module.PASSAGES]


def stored_corpus(paths: list[Path], tmp: Path) -> list[tuple]:
    """Documents ingested by shu (parse, split into passages) into a fresh store, read back."""
    with open_store(tmp / f"{len(list(tmp.iterdir()))}.duckdb") as store:
        ingest_documents(store, list[Path | str](paths))
        return PassageIndex.from_store(store)._rows


def queries() -> list[str]:
    out = list(FREE)
    for repo in REPOS:
        out += [repo, f"{repo} users", f"{repo} release attention stars"]
        for term in TERMS:
            out += [
                f"{term} {repo}",
                f"{term} {repo} performance support adoption",
                f"{term} {repo} release new",
            ]
    out += [f"{term} means platform software" for term in TERMS]
    out += [f"{q} measure" for q in QUANTITIES]
    return list(dict.fromkeys(out))


def compare(name: str, rows: list[tuple], qs: list[str], k: int) -> dict:
    t0 = time.perf_counter()
    new = PassageIndex(rows)
    t1 = time.perf_counter()
    ref = ReferenceIndex(rows)
    t2 = time.perf_counter()
    found: dict[str, Any] = {
        "corpus": name,
        "passages": len(rows),
        "queries": len(qs),
        "same_top_k": 0,
        "same_answer": 0,
        "max_rel_score_diff": 0.0,
        "mismatches": [],
    }
    new_s = ref_s = 0.0
    for q in qs:
        t = time.perf_counter()
        a, a_answer = new.search(q, k), new.answer(q)
        new_s += time.perf_counter() - t
        t = time.perf_counter()
        b, b_answer = ref.search(q, k), ref.answer(q)
        ref_s += time.perf_counter() - t
        keys_a = [(h.doc_id, h.passage_no, h.coverage) for h in a]
        keys_b = [(h.doc_id, h.passage_no, h.coverage) for h in b]
        if keys_a == keys_b:
            found["same_top_k"] += 1
            for x, y in zip(a, b, strict=True):
                found["max_rel_score_diff"] = max(
                    found["max_rel_score_diff"], abs(x.score - y.score) / y.score
                )
        else:
            found["mismatches"].append(q)
        if (
            a_answer.sentences,
            a_answer.is_weak,
            [(c.doc_id, c.passage_no) for c in a_answer.citations],
        ) == (
            b_answer.sentences,
            b_answer.is_weak,
            [(c.doc_id, c.passage_no) for c in b_answer.citations],
        ):
            found["same_answer"] += 1
        elif q not in found["mismatches"]:
            found["mismatches"].append(q)
    found["index_ms"] = ((t1 - t0) * 1000, (t2 - t1) * 1000)
    found["query_ms"] = (new_s * 1000 / len(qs), ref_s * 1000 / len(qs))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=5, help="passages compared per query")
    args = parser.parse_args()
    t0 = time.perf_counter()
    import bm25s  # noqa: F401  (imported once here, so index times below leave it out)

    print(f"import bm25s: {(time.perf_counter() - t0) * 1000:.0f} ms")
    notes = sorted((ROOT / "docs" / "notes").glob("*.md"))
    seeds = sorted(SEEDS.glob("*.txt")) if SEEDS.is_dir() else []
    with tempfile.TemporaryDirectory(prefix="shu-retrieval-") as tmp:
        corpora = [
            ("retrieval tests", retrieval_test_corpus(), [*FREE[:6], "rocm"]),
            ("docs/notes", stored_corpus(notes, Path(tmp)), queries()),
        ]
        if seeds:
            corpora.append(("notes + seeds", stored_corpus(notes + seeds, Path(tmp)), queries()))
        else:
            print(f"(no {SEEDS}: the seed documents are left out)")
        results = [compare(name, rows, qs, args.k) for name, rows, qs in corpora]
    table = pd.DataFrame(
        [
            {
                "corpus": r["corpus"],
                "passages": r["passages"],
                "queries": r["queries"],
                f"same top-{args.k}": r["same_top_k"],
                "same answer": r["same_answer"],
                "max rel. score diff": f"{r['max_rel_score_diff']:.1e}",
                "index ms bm25s/numpy": "{:.1f} / {:.1f}".format(*r["index_ms"]),
                "query ms bm25s/numpy": "{:.2f} / {:.2f}".format(*r["query_ms"]),
            }
            for r in results
        ]
    )
    print(table.to_string(index=False))
    bad = [(r["corpus"], q) for r in results for q in r["mismatches"]]
    for corpus, q in bad[:10]:
        print(f"MISMATCH [{corpus}] {q!r}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
