"""`shu ingest docs`: titles, dates, passages, content hashes, idempotence and errors."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from shu.errors import InputError
from shu.sources.documents import ingest_documents, parse_document, split_passages


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_markdown_front_matter_heading_and_dates(tmp_path):
    front = parse_document(
        write(
            tmp_path / "a.md",
            '---\nlayout: post\ntitle: "ROCm 7 lands"\n'
            "date: 2026-03-04\n---\n\n# Other heading\n\nBody text.\n",
        )
    )
    assert (front.title, front.published_on, front.format) == (
        "ROCm 7 lands",
        date(2026, 3, 4),
        "markdown",
    )
    assert front.text.startswith("# Other heading") and "layout" not in front.text
    heading = parse_document(
        write(
            tmp_path / "b.md",
            "Intro line\n\n## Real Title ##\n\n"
            "**Generated:** Wednesday, August 27, 2025 at 12:02\n",
        )
    )
    assert (heading.title, heading.published_on) == ("Real Title", date(2025, 8, 27))
    undated = parse_document(
        write(
            tmp_path / "c.txt",
            "by AMD\n\nPyTorch 2.0 is out. It has 3 features, " + "and more " * 20 + "\n",
        )
    )
    assert undated.title == "PyTorch 2.0 is out." and undated.published_on is None
    european = parse_document(write(tmp_path / "d.txt", "Notes\nPosted 3 March 2026\n"))
    assert european.published_on == date(2026, 3, 3)


def test_html_text_title_and_scripts(tmp_path):
    doc = parse_document(
        write(
            tmp_path / "p.html",
            (
                "<html><head><title>Page &amp; Title</title><script>var x = 1;</script>"
                "<style>p {}</style></head><body><h1>Heading</h1><p>First para.</p>"
                "<p>Second <b>bold</b> para.</p></body></html>"
            ),
        )
    )
    assert doc.title == "Page & Title" and doc.format == "html"
    assert doc.text == "Heading\n\nFirst para.\n\nSecond bold para."
    assert "var x" not in doc.text and "p {}" not in doc.text


def test_passages_respect_the_limit():
    paragraphs = ["Short one.", "x" * 50, ("A sentence here. " * 120).strip()]
    passages = split_passages("\n\n".join(paragraphs), limit=300)
    assert all(len(p) <= 300 for p in passages)
    assert passages[0] == "Short one.\n\n" + "x" * 50
    joined = " ".join(passages[1:])
    assert joined.count("A sentence here.") == 120
    assert split_passages("y" * 700, limit=300) == ["y" * 300, "y" * 300, "y" * 100]


def test_documents_keyed_under_a_root_are_stored_once_from_any_checkout(
    store, tmp_path, monkeypatch
):
    """With `root`, a document is keyed by its path under it: the same project ingested from two
    checkouts is one row per document (not two), and the briefing links it from either."""
    from shu.briefing.text import document_target

    for checkout in ("one", "two"):
        notes = tmp_path / checkout / "docs" / "notes"
        notes.mkdir(parents=True)
        write(notes / "a.md", "# A\n\nThe same note.")
        result = ingest_documents(store, [notes], root=tmp_path / checkout)
        assert result.read == 1
    rows = store.con.execute("SELECT location FROM documents").fetchall()
    assert rows == [("docs/notes/a.md",)]
    # outside the root, or without one: the absolute path, as before
    outside = write(tmp_path / "b.md", "# B")
    assert parse_document(outside, tmp_path / "one").location == str(outside.resolve())
    # a relative location is read from the current directory (the project's root)
    monkeypatch.chdir(tmp_path / "two")
    reports = tmp_path / "two" / "docs" / "examples"
    reports.mkdir()
    assert document_target("docs/notes/a.md", reports) == "../notes/a.md"
    assert document_target("docs/notes/missing.md", reports) is None


def test_ingest_is_idempotent_and_replaces_changed_files(store, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    write(docs / "one.md", "# One\n\n" + "\n\n".join(f"Paragraph {i}. " * 40 for i in range(6)))
    write(docs / "two.txt", "Two\n\nshort")
    (docs / "image.png").write_bytes(b"\x89PNG")  # not a document: ignored in directories
    first = ingest_documents(store, [docs])
    assert (first.read, first.added, first.changed, first.unchanged) == (2, 2, 0, 0)
    passages = store.con.execute("SELECT count(*) FROM passages").fetchall()[0][0]
    assert passages == first.passages > 2
    again = ingest_documents(store, [docs / "one.md", docs / "two.txt"])
    assert (again.added, again.changed, again.unchanged, again.passages) == (0, 0, 2, 0)
    write(docs / "two.txt", "Two, revised\n\nnew text")
    changed = ingest_documents(store, [docs])
    assert (changed.added, changed.changed, changed.unchanged) == (0, 1, 1)
    rows = store.con.execute(
        "SELECT d.title, p.text FROM documents d JOIN passages p "
        "USING (doc_id) WHERE d.location LIKE '%two.txt'"
    ).fetchall()
    assert rows == [("Two, revised", "Two, revised\n\nnew text")]
    assert store.con.execute("SELECT count(*) FROM documents").fetchall() == [(2,)]


def test_bad_inputs_name_the_file(store, tmp_path):
    with pytest.raises(InputError, match="no such file"):
        ingest_documents(store, [tmp_path / "missing.md"])
    with pytest.raises(InputError, match="unsupported document type '.pdf'"):
        ingest_documents(store, [write(tmp_path / "x.pdf", "%PDF")])
    binary = tmp_path / "latin.txt"
    binary.write_bytes("café".encode("latin-1"))
    with pytest.raises(InputError, match="latin.txt: not UTF-8"):
        ingest_documents(store, [binary])
    assert store.con.execute("SELECT count(*) FROM documents").fetchall() == [(0,)]


def test_seed_documents(store, shared_dir):
    seeds = sorted((shared_dir / "seeds").glob("00[1-4]*"))
    assert len(seeds) == 4
    first = ingest_documents(store, seeds)
    assert (first.added, first.unchanged) == (4, 0)
    titles = dict(
        store.con.execute(
            "SELECT regexp_extract(location, '00[1-4]'), title FROM documents"
        ).fetchall()
    )
    assert titles["004"] == "AMD's Journey to Openness and Performance"
    assert titles["002"] == "Technical Deep Dive"
    assert titles["003"].startswith("Research Query: PyTorch nightly breakage")
    dated = store.con.execute(
        "SELECT published_on FROM documents WHERE location LIKE '%003_%'"
    ).fetchall()
    assert dated == [(date(2025, 8, 27),)]
    assert store.con.execute(
        "SELECT count(*) FROM passages WHERE length(text) > 1200"
    ).fetchall() == [(0,)]
    again = ingest_documents(store, seeds)
    assert (again.added, again.changed, again.unchanged) == (0, 0, 4)
