"""BM25 retrieval over stored passages: ranking, weak-context detection, extractive answers."""

from __future__ import annotations

import itertools
import math
from datetime import date

import pandas as pd
import pytest

from shu.evidence.retrieval import PassageIndex, tokenize

PASSAGES = [
    (
        "d1",
        0,
        "ROCm is AMD's open software platform for GPU computing. It runs PyTorch on "
        "Instinct accelerators.",
    ),
    ("d1", 1, "HIP lets developers port CUDA kernels to AMD hardware with few changes."),
    ("d2", 0, "TPU support in the XLA compiler lets JAX and TensorFlow target Google TPUs."),
    ("d3", 0, "Ollama packages quantized models as GGUF files for local inference."),
]


@pytest.fixture
def index(store) -> PassageIndex:
    docs = pd.DataFrame(
        {
            "doc_id": ["d1", "d2", "d3"],
            "location": ["n/rocm.md", "n/tpu.md", "n/ollama.md"],
            "title": ["ROCm notes", "TPU notes", "Ollama notes"],
            "published_on": [date(2026, 1, 5), None, date(2025, 6, 1)],
            "content_hash": ["h1", "h2", "h3"],
            "format": ["markdown"] * 3,
            "text": ["", "", ""],
        }
    )
    store.upsert("documents", docs)
    store.upsert("passages", pd.DataFrame(PASSAGES, columns=["doc_id", "passage_no", "text"]))
    return PassageIndex.from_store(store)


def test_tokenize_drops_stopwords_and_folds_plurals() -> None:
    assert tokenize("What are the kernels of ROCm's HIP?") == ["kernel", "rocm", "hip"]


def test_search_ranks_the_matching_passage_first_with_its_document(index) -> None:
    hits = index.search("What is ROCm?")
    assert (hits[0].doc_id, hits[0].passage_no) == ("d1", 0)
    assert hits[0].title == "ROCm notes"
    assert hits[0].published_on == date(2026, 1, 5)
    assert hits[0].coverage == 1.0
    assert all(a.score >= b.score for a, b in itertools.pairwise(hits))


def test_bm25_score_matches_the_formula(index) -> None:
    hit = index.search("gguf")[0]
    n_docs, df, tf = 4, 1, 1
    idf = math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
    lengths = [
        len(tokenize(t + " " + title))
        for (_, _, t), title in zip(
            PASSAGES, ["ROCm notes", "ROCm notes", "TPU notes", "Ollama notes"], strict=True
        )
    ]
    norm = 1.5 * (1 - 0.75 + 0.75 * lengths[3] / (sum(lengths) / 4))
    assert hit.score == pytest.approx(idf * tf * 2.5 / (tf + norm))


def test_unrelated_query_is_weak_and_never_invents(index) -> None:
    answer = index.answer("hyperscaler procurement budgets")
    assert answer.is_weak
    assert answer.sentences == ()


def test_partially_covered_query_is_weak(index) -> None:
    answer = index.answer("ROCm hyperscaler procurement budgets")
    assert answer.is_weak
    assert answer.sentences  # still quotes what it found, flagged as limited


def test_answer_quotes_sentences_and_cites_their_passages(index) -> None:
    answer = index.answer("What is ROCm platform?")
    assert not answer.is_weak
    assert answer.sentences[0] == ("ROCm is AMD's open software platform for GPU computing.")
    assert (answer.citations[0].doc_id, answer.citations[0].passage_no) == ("d1", 0)
    for sentence in answer.sentences:
        assert any(sentence in c.text for c in answer.citations)


def test_empty_corpus(store) -> None:
    index = PassageIndex.from_store(store)
    assert len(index) == 0
    assert index.search("rocm") == []
    assert index.answer("rocm").is_weak


def test_documents_dated_after_the_day_are_left_out(index, store) -> None:
    later = PassageIndex.from_store(store, as_of=date(2025, 12, 31))
    assert {h.doc_id for h in later.search("ROCm TPU GGUF", k=10)} == {"d2", "d3"}
    assert len(later) == 2
