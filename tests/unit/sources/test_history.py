"""`shu ingest history`: small generated exports into a real store, plus the shared exports."""

from __future__ import annotations

import csv
import gzip
import re
from pathlib import Path

import pytest

from shu.errors import InputError
from shu.settings import Settings
from shu.settings_tables import ROCM_PATTERN
from shu.sources.history import find_exports, ingest_history
from shu.sources.topic_match import TopicMatcher

COMMIT_COLS = [
    "sha",
    "author_time",
    "commit_time",
    "author_id",
    "parents",
    "files_changed",
    "insertions",
    "deletions",
    "subject",
    "touches_rocm",
    "first_parent",
    "author_is_bot",
]


def _write(path: Path, header: list[str], rows: list[list]) -> Path:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    return path


def _export(tmp_path: Path) -> Path:
    d = tmp_path / "hist"
    d.mkdir()
    _write(
        d / "acme__lib.commits.csv.gz",
        COMMIT_COLS,
        [
            [
                "a" * 40,
                "2024-01-01T10:00:00Z",
                "2024-01-02T10:00:00Z",
                "abc",
                1,
                2,
                10,
                1,
                "Add HIP backend (#12)",
                1,
                1,
                0,
            ],
            [
                "b" * 40,
                "2024-01-03T10:00:00Z",
                "2024-01-03T11:00:00Z",
                "abd",
                1,
                1,
                1,
                1,
                "Fix docs",
                1,
                1,
                0,
            ],  # the export matched a path (e.g. rocm/...): kept as a flag
            [
                "c" * 40,
                "2024-01-04T10:00:00Z",
                "2024-01-04T11:00:00Z",
                "abe",
                2,
                3,
                3,
                0,
                "Merge branch 'x'",
                0,
                0,
                1,
            ],
        ],
    )
    _write(
        d / "acme__lib.tags.csv.gz",
        ["tag", "sha", "tag_time", "commit_time", "annotated", "message"],
        [
            ["v1.0.0", "a" * 40, "2024-01-05T00:00:00Z", "2024-01-02T10:00:00Z", 1, "First"],
            ["ciflow/trunk/1", "a" * 40, "2024-01-05T00:00:00Z", "2024-01-02T10:00:00Z", 0, ""],
        ],
    )
    _write(
        d / "acme__lib.release_notes.csv.gz",
        ["version", "heading_line", "body", "source_path"],
        [
            ["1.0.0", "## lib 1.0.0 for ROCm 6.0", "Adds MI300 support", "CHANGELOG.md"],
            ["0.9", "## lib 0.9", "old", "CHANGELOG.md"],
        ],
    )
    return d


def test_loads_commits_tags_and_notes_idempotently(store, tmp_path):
    d = _export(tmp_path)
    first = ingest_history(store, [d], Settings())
    assert [(r.repo, r.commits.inserted, r.releases.inserted) for r in first] == [
        ("acme/lib", 3, 1)
    ]
    assert (first[0].notes_matched, first[0].notes_unmatched) == (1, 1)
    rows = store.con.execute(
        "SELECT sha, touches_rocm, is_mainline, parents, author_is_bot, "
        "source FROM commits ORDER BY sha"
    ).fetchall()
    assert rows == [
        ("a" * 40, True, True, 1, False, "history"),
        ("b" * 40, True, True, 1, False, "history"),
        ("c" * 40, False, False, 2, True, "history"),
    ]
    body = store.con.execute("SELECT body FROM releases WHERE tag = 'v1.0.0'").fetchone()[0]
    assert body.startswith("First") and "MI300" in body
    again = ingest_history(store, [d], Settings())
    assert (
        again[0].commits.inserted,
        again[0].commits.updated,
        again[0].releases.inserted,
        again[0].releases.updated,
    ) == (0, 0, 0, 0)
    assert store.con.execute("SELECT count(*) FROM repos WHERE repo = 'acme/lib'").fetchone() == (
        1,
    )


def test_bad_row_names_file_and_row_and_writes_nothing(store, tmp_path):
    d = _export(tmp_path)
    bad = tmp_path / "bad"
    bad.mkdir()
    _write(
        bad / "acme__lib.commits.csv",
        COMMIT_COLS,
        [["a" * 40, "2024-01-01T10:00:00Z", "yesterday", "abc", 1, 2, 10, 1, "x", 0, 1, 0]],
    )
    with pytest.raises(InputError, match=r"acme__lib\.commits\.csv: row 2: commit_time"):
        ingest_history(store, [bad], Settings())
    assert store.con.execute("SELECT count(*) FROM commits").fetchone() == (0,)
    with pytest.raises(InputError, match="no such file"):
        find_exports([tmp_path / "missing"])
    with pytest.raises(InputError, match="not a history export file"):
        find_exports([Path(__file__)])
    (d / "acme__lib.commits.csv.gz").unlink()
    with pytest.raises(InputError, match="no matching commits file"):
        find_exports([d])


def test_missing_column_is_named(store, tmp_path):
    d = tmp_path / "h"
    d.mkdir()
    _write(d / "x__y.commits.csv", COMMIT_COLS[:-4], [["a" * 40] + ["1"] * 7 + ["s"]])
    with pytest.raises(InputError, match="missing column.*touches_rocm"):
        ingest_history(store, [d], Settings())


def test_our_matcher_agrees_with_the_exports_flag(shared_dir):
    """On every shared export, a subject match of ours is flagged by the export (which also
    sees paths), and the pattern is the export's own."""
    exports = find_exports([shared_dir / "data" / "history"])
    documented = (shared_dir / "data" / "history" / "README.md").read_text()
    assert ROCM_PATTERN.replace("|", "\\|") in documented
    matcher = TopicMatcher.from_topics(Settings().topics)
    subject_hits = flagged = total = 0
    for files in exports.values():
        with gzip.open(files["commits"], "rt", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                ours = "rocm-adoption" in matcher.match(row["subject"])
                total += 1
                subject_hits += ours
                flagged += row["touches_rocm"] == "1"
                assert not ours or row["touches_rocm"] == "1", row["sha"]
    assert total > 150_000 and 0 < subject_hits <= flagged
    assert re.compile(ROCM_PATTERN, re.I).search("hip/kernel.cpp")


# The changelogs added with the 16 newer exports (README of ../shared/data/history).
NEW_CHANGELOGS = (
    "bitsandbytes-foundation/bitsandbytes",
    "facebookresearch/xformers",
    "abetlen/llama-cpp-python",
    "ROCm/composable_kernel",
    "OpenNMT/CTranslate2",
)


def test_new_changelogs_feed_the_rocm_release_question(store, shared_dir):
    """Each newer changelog is read; every section of it that mentions ROCm reaches a release
    the ROCm release question finds (resolved 'yes' over a day around that release), and only
    sections without a ROCm mention stay unmatched (they carry no date of their own)."""
    import pandas as pd

    from shu.forecast.questions.resolution import resolve_rows

    history = shared_dir / "data" / "history"
    files = [
        p
        for repo in NEW_CHANGELOGS
        for kind in ("commits", "tags", "release_notes")
        for p in [history / f"{repo.replace('/', '__')}.{kind}.csv.gz"]
    ]
    assert all(p.exists() for p in files), [str(p) for p in files if not p.exists()]
    results = {r.repo: r for r in ingest_history(store, files, Settings())}
    pattern = re.compile(ROCM_PATTERN, re.I)
    mentioned = 0
    for repo in NEW_CHANGELOGS:
        assert results[repo].notes_matched > 0, repo
        notes = history / f"{repo.replace('/', '__')}.release_notes.csv.gz"
        with gzip.open(notes, "rt", encoding="utf-8") as fh:
            sections = list(csv.DictReader(fh))
        for s in sections:
            if not pattern.search(s["heading_line"] + "\n" + s["body"]):
                continue
            mentioned += 1
            heading = s["heading_line"].strip()
            hits = store.con.execute(
                "SELECT published_at::DATE FROM releases WHERE repo = ? AND contains(body, ?)",
                [repo, heading],
            ).fetchall()
            assert hits, (repo, heading)  # attached to a version tag, so it has a date
            day = hits[0][0]
            q = pd.DataFrame(
                {
                    "repo": [repo],
                    "origin": [day - pd.Timedelta(days=1)],
                    "horizon_days": [1],
                    "threshold": [1.0],
                }
            )
            outcome = resolve_rows(store.con, q, "rocm_release_mention")
            assert outcome["outcome"].iloc[0] == "yes", (repo, heading, outcome["detail"].iloc[0])
    assert mentioned >= 5
