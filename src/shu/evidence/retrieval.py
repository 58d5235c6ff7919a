"""Offline retrieval over the `passages` table: BM25 with bm25s, and extractive answers.

Nothing is downloaded: tokens are lower-cased word pieces with a short English stop list and a
light plural fold (shu's own `tokenize`, the same for passages and queries), scored by bm25s
(Lucene's BM25: k1 = 1.5, b = 0.75, non-negative idf; scores reported with Okapi's (k1 + 1)
factor). bm25s replaced a hand-written numpy Okapi BM25 after it ranked the same: on the
retrieval tests' passages and on docs/notes (and ../shared/seeds) for 258 queries built from the
briefing's questions, the top-5 passages, their coverage and the extractive answers were
identical and scores agreed to 3e-16 (`benchmarks/bench_retrieval.py` keeps the numpy version
as its reference and prints the comparison). A result is *weak* when no passage covers at least
half of the query's content terms; the briefing then says "Limited corpus context" instead of
pretending. `answer()` picks whole sentences from the best passages, so every answer is a
quotation with a (doc_id, passage_no) citation, never generated text.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from datetime import date

import numpy as np

from shu.store import Store

K1 = 1.5
B = 0.75
WEAK_COVERAGE = 0.5

_TOKEN = re.compile(r"[a-z0-9]+(?:[.+][a-z0-9]+)*")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[])")
_STOP_TEXT = (
    "a an and are as at be been but by can could did do does for from had has have how i if in "
    "into is it its it's may might more most no not of on or our so such than that the their "
    "them then there these they this those to was we were what when where which while who why "
    "will with would you your"
)
STOPWORDS = frozenset(_STOP_TEXT.split(" "))


def tokenize(text: str) -> list[str]:
    """Lower-cased content tokens with a light plural fold ('kernels' -> 'kernel')."""
    out = []
    for tok in _TOKEN.findall(text.lower()):
        if tok in STOPWORDS or len(tok) < 2:
            continue
        if len(tok) > 4 and tok.endswith("s") and not tok.endswith("ss"):
            tok = tok[:-1]
        out.append(tok)
    return out


@dataclass(frozen=True)
class ScoredPassage:
    """A passage and how well it matched a query."""

    doc_id: str
    passage_no: int
    text: str
    score: float
    coverage: float
    title: str | None
    location: str | None
    published_on: date | None


@dataclass(frozen=True)
class Answer:
    """An extractive answer: sentences quoted from passages, with their citations."""

    sentences: tuple[str, ...]
    citations: tuple[ScoredPassage, ...]
    is_weak: bool


class PassageIndex:
    """BM25 index over every stored passage (built once per briefing; the corpus is small)."""

    def __init__(self, rows: list[tuple]) -> None:
        self._rows = rows
        docs = [tokenize(r[2] + " " + (r[3] or "")) for r in rows]
        self._df = Counter(term for doc in docs for term in set(doc))
        self._bm25 = None
        if self._df:  # bm25s over our tokens, with a vocabulary in a fixed order
            import bm25s

            vocab = {term: i for i, term in enumerate(sorted(self._df))}
            self._bm25 = bm25s.BM25(k1=K1, b=B, method="lucene", dtype="float64")
            self._bm25.index(
                ([[vocab[t] for t in doc] for doc in docs], vocab), show_progress=False
            )

    @classmethod
    def from_store(cls, store: Store, as_of: date | None = None) -> PassageIndex:
        """Index the stored passages (with title, location, date); documents dated after
        `as_of` are left out, undated ones kept."""
        rows = store.con.execute(
            "SELECT p.doc_id, p.passage_no, p.text, d.title, d.location, d.published_on "
            "FROM passages p JOIN documents d USING (doc_id) "
            "WHERE ? IS NULL OR d.published_on IS NULL OR d.published_on <= ? "
            "ORDER BY p.doc_id, p.passage_no",
            [as_of, as_of],
        ).fetchall()
        return cls(rows)

    def __len__(self) -> int:
        return len(self._rows)

    def idf(self, term: str) -> float:
        """Lucene's BM25 idf: log(1 + (N - n + 0.5) / (n + 0.5)), never negative."""
        n = self._df.get(term, 0)
        return math.log(1.0 + (len(self._rows) - n + 0.5) / (n + 0.5))

    def search(self, query: str, k: int = 5) -> list[ScoredPassage]:
        """The `k` best passages for `query`, best first (only passages sharing a term; ties in
        stored order)."""
        terms = [t for t in dict.fromkeys(tokenize(query)) if t in self._df]
        if not terms or self._bm25 is None:
            return []
        # One term at a time: a passage's score is the sum, its coverage the terms it has.
        # bm25s leaves out Okapi's constant (k1 + 1) factor; it is put back so that scores are
        # the textbook ones (rankings are the same either way).
        per_term = np.array([self._bm25.get_scores([t]) for t in terms]) * (K1 + 1)
        scores = per_term.sum(axis=0)
        matched = (per_term > 0).sum(axis=0)
        n_terms = len(dict.fromkeys(tokenize(query)))
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
                    float(matched[i] / n_terms),
                    title,
                    location,
                    published_on,
                )
            )
        return out

    def answer(self, query: str, k: int = 3, max_sentences: int = 2) -> Answer:
        """Sentences quoted from the best passages for `query`, and whether retrieval was weak.

        Sentences are ranked by the query terms they contain (weighted by idf); ties keep the
        passage order. Weak means no passage covered half the query's content terms.
        """
        hits = self.search(query, k=k)
        is_weak = not hits or max(h.coverage for h in hits) < WEAK_COVERAGE
        terms = set(tokenize(query))
        candidates: list[tuple[float, int, str, ScoredPassage]] = []
        for rank, hit in enumerate(hits):
            for sentence in split_sentences(hit.text):
                shared = terms & set(tokenize(sentence))
                if shared:
                    weight = sum(self.idf(t) for t in shared)
                    candidates.append((-weight, rank, sentence, hit))
        candidates.sort(key=lambda c: (c[0], c[1]))
        chosen, seen = [], set()
        for candidate in candidates:
            if candidate[2] not in seen:
                seen.add(candidate[2])
                chosen.append(candidate)
            if len(chosen) == max_sentences:
                break
        citations = tuple(dict.fromkeys(c[3] for c in chosen))
        return Answer(tuple(c[2] for c in chosen), citations, is_weak)


_HEADING = re.compile(r"^\s{0,3}#{1,6}\s.*$", re.MULTILINE)


def split_sentences(text: str) -> list[str]:
    """Sentences of a passage (markdown heading lines dropped, whitespace collapsed); long
    run-ons are cut at 400 characters."""
    flat = " ".join(_HEADING.sub(" ", text).split())
    return [s if len(s) <= 400 else s[:399].rstrip() + "…" for s in _SENTENCE.split(flat) if s]
