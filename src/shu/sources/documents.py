"""The document corpus: markdown, HTML and text files into `documents` and `passages`.

One file is one document, identified by a hash of its resolved path. Its title comes from front
matter (`title:`),
else the first heading (markdown `#`, HTML `<title>`/`<h1>`), else the first short line; its date
from front matter (`date:`), else a date stated near the top (a line such as "Generated: Wednesday,
August 27, 2025" or "2025-08-27"), else none. The content hash is the SHA-256 of the text: a file
whose hash is unchanged is skipped, a changed one replaces its document, passages and claims
(hardware/compiler claims, when the caller injects their extractor:
`shu.evidence.document_claims.ingest_with_claims`, in the same transaction). Passages are
paragraphs merged up to ~1,200 characters (long paragraphs split at sentence ends), ready for
retrieval. All text is untrusted and stored as text only.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar

import pandas as pd

from shu.errors import InputError
from shu.progress import track
from shu.store import Store, utcnow

SOURCE = "docs"
FORMATS = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".html": "html",
    ".htm": "html",
    ".txt": "text",
    ".text": "text",
}
PASSAGE_CHARS = 1200
HEADER_LINES = 15
FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*(?:\n|\Z)", re.DOTALL)
MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
DATE_PATTERNS = (
    (re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b"), "ymd"),
    (re.compile(rf"\b{MONTH}\s+(\d{{1,2}}),?\s+(\d{{4}})\b", re.IGNORECASE), "mdy"),
    (re.compile(rf"\b(\d{{1,2}})\s+{MONTH}\s+(\d{{4}})\b", re.IGNORECASE), "dmy"),
)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
BYLINE = re.compile(r"^(by|posted by|written by)\s", re.IGNORECASE)


@dataclass
class DocumentsResult:
    """What `ingest_documents` read and changed."""

    read: int = 0
    added: int = 0
    changed: int = 0
    unchanged: int = 0
    passages: int = 0
    claims: int = 0


@dataclass
class Document:
    """A parsed file, ready to store."""

    doc_id: str
    location: str
    title: str
    published_on: date | None
    content_hash: str
    format: str
    text: str


def ingest_documents(
    store: Store,
    paths: list[Path | str],
    extract_claims: Callable[[Store, list[str]], int] | None = None,
    root: Path | None = None,
) -> DocumentsResult:
    """Load each file (directories: every markdown/HTML/text file inside, recursively).

    A document is keyed by its location (`parse_document`): its absolute path, or with `root`
    its path relative to `root` for the files under it, so a store built from one checkout of a
    project and composed from another holds each document once.

    `extract_claims(store, doc_ids)` runs in the same transaction and returns the number of
    claims it wrote (`shu.evidence.document_claims.ingest_with_claims` passes the claim
    extractor: the evidence layer sits above the sources, so it is injected, not imported).

    Raises InputError naming the path for a missing path, an unsupported file named explicitly,
    or a file that is not UTF-8 text (or holds binary content); nothing is written then.
    """
    files = _collect([Path(p) for p in paths])
    documents = [parse_document(f, root) for f in track(files, "documents", unit="files")]
    result = DocumentsResult(read=len(documents))
    target = ", ".join(str(p) for p in paths)[:500]
    with store.load(SOURCE, target) as load:
        load.rows_read = len(documents)
        stored = dict(
            store.con.execute(
                "SELECT doc_id, content_hash FROM documents WHERE doc_id IN (SELECT unnest(?))",
                [[d.doc_id for d in documents]],
            ).fetchall()
        )
        fresh = [d for d in documents if stored.get(d.doc_id) != d.content_hash]
        result.unchanged = len(documents) - len(fresh)
        result.changed = sum(1 for d in fresh if d.doc_id in stored)
        result.added = len(fresh) - result.changed
        if fresh:
            now = utcnow()
            frame = pd.DataFrame([{**vars(d), "ingested_at": now} for d in fresh])
            frame["published_on"] = pd.array(frame["published_on"], dtype="object")
            load.add(store.upsert("documents", frame))
            ids = [d.doc_id for d in fresh]
            store.con.execute("DELETE FROM passages WHERE doc_id IN (SELECT unnest(?))", [ids])
            passages = pd.DataFrame(
                [
                    {"doc_id": d.doc_id, "passage_no": n, "text": text}
                    for d in fresh
                    for n, text in enumerate(split_passages(d.text))
                ]
            )
            if not passages.empty:
                load.add(store.upsert("passages", passages))
            result.passages = len(passages)
        if extract_claims is not None:
            result.claims = extract_claims(store, [d.doc_id for d in documents])
        load.message = (
            f"{result.added} new, {result.changed} changed, "
            f"{result.unchanged} unchanged documents; {result.claims} claims "
            "extracted"
        )
    return result


def parse_document(path: Path, root: Path | None = None) -> Document:
    """Read one file into a Document (title, date, plain text, content hash), located by its
    absolute path, or by its path relative to `root` when it lies under it."""
    fmt = FORMATS.get(path.suffix.lower(), "text")
    try:
        raw = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start})") from exc
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from exc
    if "\x00" in raw:  # git's and grep's test: text never holds a NUL byte
        raise InputError(
            f"{path}: binary content, not a text document (a NUL byte at character "
            f"{raw.index(chr(0))})"
        )
    raw = raw.replace("\r\n", "\n").replace("\r", "\n")
    meta, body = _front_matter(raw)
    title = meta.get("title")
    if fmt == "html":
        parsed = _HtmlText()
        parsed.feed(body)
        text = parsed.text()
        title = title or parsed.title or parsed.h1
    else:
        text = body.strip()
    title = title or _first_heading(text) or _first_short_line(text) or path.stem
    published = _date_from(meta.get("date", "")) or _stated_date(text)
    location = str(path.resolve())
    if root is not None and path.resolve().is_relative_to(root.resolve()):
        location = path.resolve().relative_to(root.resolve()).as_posix()
    return Document(
        doc_id=hashlib.sha256(location.encode("utf-8")).hexdigest()[:16],
        location=location,
        title=" ".join(title.split())[:300],
        published_on=published,
        content_hash=hashlib.sha256(raw.encode("utf-8")).hexdigest(),
        format=fmt,
        text=text,
    )


def split_passages(text: str, limit: int = PASSAGE_CHARS) -> list[str]:
    """Paragraphs merged up to `limit` characters; longer paragraphs split at sentence ends;
    markdown tables kept whole (or cut between rows, header repeated)."""
    pieces: list[str] = []
    for paragraph in _segments(text, limit):
        if paragraph.startswith("|") or len(paragraph) <= limit:
            pieces.append(paragraph)
            continue
        current = ""
        for sentence in SENTENCE_END.split(paragraph):
            while len(sentence) > limit:  # a "sentence" without breaks: cut hard
                if current:
                    pieces.append(current)
                    current = ""
                pieces.append(sentence[:limit])
                sentence = sentence[limit:]
            if current and len(current) + 1 + len(sentence) > limit:
                pieces.append(current)
                current = sentence
            else:
                current = f"{current} {sentence}".strip()
        if current:
            pieces.append(current)
    passages: list[str] = []
    for piece in pieces:
        if passages and len(passages[-1]) + 2 + len(piece) <= limit:
            passages[-1] = f"{passages[-1]}\n\n{piece}"
        else:
            passages.append(piece)
    return passages


def _segments(text: str, limit: int) -> list[str]:
    """Paragraphs, with markdown tables (runs of '|' lines) as segments of their own: a table
    is never sentence-split, and one longer than `limit` is cut between rows, its header and
    separator repeated on each part so every row keeps its column names."""
    out: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text):
        block: list[str] = []
        is_table = False
        for line in [*paragraph.strip().split("\n"), None]:
            row = line is not None and line.lstrip().startswith("|")
            if line is not None and (not block or row == is_table):
                block.append(line.strip() if row else line)
                is_table = row
                continue
            if block:
                out += _table_parts(block, limit) if is_table else ["\n".join(block).strip()]
            block, is_table = (
                ([line.strip() if row else line], row) if line is not None else ([], False)
            )
    return [p for p in out if p]


def _table_parts(rows: list[str], limit: int) -> list[str]:
    head = rows[:2] if len(rows) > 1 and re.fullmatch(r"[|:\-\s]+", rows[1]) else rows[:1]
    parts, current = [], list(head)
    for row in rows[len(head) :]:
        if len(current) > len(head) and len("\n".join([*current, row])) > limit:
            parts.append("\n".join(current))
            current = list(head)
        current.append(row[:limit])
    if len(current) > len(head) or not parts:
        parts.append("\n".join(current))
    return parts


def _collect(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files += sorted(
                p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in FORMATS
            )
        elif path.is_file():
            if path.suffix and path.suffix.lower() not in FORMATS:
                raise InputError(
                    f"{path}: unsupported document type {path.suffix!r} "
                    f"(expected one of {', '.join(sorted(FORMATS))})"
                )
            files.append(path)
        else:
            raise InputError(f"{path}: no such file or directory")
    unique = list(dict.fromkeys(p.resolve() for p in files))
    if not unique:
        raise InputError(f"no markdown, HTML or text files in {', '.join(map(str, paths))}")
    return unique


def _front_matter(raw: str) -> tuple[dict[str, str], str]:
    match = FRONT_MATTER.match(raw)
    if not match:
        return {}, raw
    meta = {}
    for line in match.group(1).splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() and not key.startswith((" ", "\t")):
            meta[key.strip().lower()] = value.strip().strip("\"'")
    return meta, raw[match.end() :]


def _first_heading(text: str) -> str | None:
    for line in text.splitlines():
        match = MD_HEADING.match(line)
        if match:
            return match.group(1).strip()
    return None


def _first_short_line(text: str) -> str | None:
    """The first line when it is short and not a byline, else the first sentence (cut)."""
    lines = [line.strip() for line in text.splitlines()[:HEADER_LINES] if line.strip()]
    for line in lines[:2]:
        if len(line) <= 120 and not BYLINE.match(line):
            return line
    paragraph = next((line for line in lines if not BYLINE.match(line)), "")
    sentence = SENTENCE_END.split(paragraph, 1)[0]
    return sentence if len(sentence) <= 120 else sentence[:117].rsplit(" ", 1)[0] + "…"


def _stated_date(text: str) -> date | None:
    """A date stated in the first lines (a header such as 'Generated: ...' or a dateline)."""
    for line in text.splitlines()[:HEADER_LINES]:
        found = _date_from(line)
        if found:
            return found
    return None


def _date_from(text: str) -> date | None:
    for pattern, order in DATE_PATTERNS:
        match = pattern.search(text)
        if not match:
            continue
        groups = match.groups()
        try:
            if order == "ymd":
                return date(int(groups[0]), int(groups[1]), int(groups[2]))
            if order == "mdy":
                return date(int(groups[2]), _month(groups[0]), int(groups[1]))
            return date(int(groups[2]), _month(groups[1]), int(groups[0]))
        except ValueError:
            continue
    return None


def _month(name: str) -> int:
    prefix = name.lower().rstrip(".")[:3]
    return next(i for i, m in enumerate(MONTHS, start=1) if m.startswith(prefix))


class _HtmlText(HTMLParser):
    """Visible text of an HTML page with block breaks, table rows as '| a | b |' lines;
    remembers <title> and the first <h1>."""

    BLOCKS: ClassVar[set[str]] = {
        "p",
        "div",
        "br",
        "li",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "section",
        "article",
        "header",
        "footer",
        "blockquote",
        "pre",
        "table",
        "ul",
        "ol",
    }

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title: str | None = None
        self.h1: str | None = None
        self._skip = 0
        self._in: str | None = None
        self._buffer = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "noscript", "template"):
            self._skip += 1
        elif tag in ("title", "h1") and self._in is None:
            self._in, self._buffer = tag, ""
        if tag in self.BLOCKS:
            self.parts.append("\n\n")
        elif tag == "tr":  # table rows become markdown-style '| a | b |' lines
            self.parts.append("\n")
        elif tag in ("td", "th"):
            self.parts.append(" | ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "noscript", "template"):
            self._skip = max(0, self._skip - 1)
        elif tag == self._in:
            value = " ".join(self._buffer.split()) or None
            if tag == "title":
                self.title = self.title or value
            else:
                self.h1 = self.h1 or value
            self._in = None
        if tag in self.BLOCKS:
            self.parts.append("\n\n")
        elif tag == "tr":
            self.parts.append(" |\n")

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        if self._in:
            self._buffer += data
        if self._in != "title":
            self.parts.append(data)

    def text(self) -> str:
        joined = "".join(self.parts)
        lines = [" ".join(line.split()) for line in joined.splitlines()]
        text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
        return re.sub(r"(?m)^(\|.*\|)\n\n(?=\|)", r"\1\n", text)  # rows of one table
