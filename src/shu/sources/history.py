"""History exports: load git-derived commit / tag / release-note CSVs into `commits` and `releases`.

An export is a set of gzip (or plain) CSV files per repository `<owner>__<name>`:
`<prefix>.commits.csv[.gz]`, `<prefix>.tags.csv[.gz]` and, optionally,
`<prefix>.release_notes.csv[.gz]`, with the columns described in
`../shared/data/history/README.md` (the same derivation as `shu ingest git`: merges' stats
against the first parent, author e-mail hashed, `first_parent` = mainline). Any user with such
exports loads them with `shu ingest history DIR|FILES`.

Mapping:
- commits -> `commits` (source 'history'); `is_mainline` = first_parent, topics and
  `touches_rocm` from the one topic matcher (`sources.topic_match`) over the subject, as for clones
  and the API. The export has no paths, so its own `touches_rocm` column (the same pattern over
  subject and paths) adds the 'rocm-adoption' topic for path-only matches; a test checks that
  every subject match of ours is flagged by the export.
- tags whose name matches `settings.version_tag_pattern` -> `releases` (published_at = tag
  time, body = the annotated message); release-note sections are appended to the body of every
  version tag whose version (`X.Y[.Z]`) appears in the section heading. Sections that match no
  tag are counted, not loaded (they carry no date).
Rows already loaded from a clone ('git') or the API ('github') are richer and are kept. One
repository, one transaction; a re-run changes nothing. A malformed file raises InputError naming
the file (and row) before anything of that repository is written.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from shu.errors import InputError
from shu.settings import Settings
from shu.sources.git import PRERELEASE, ensure_repo_row, without_richer_rows
from shu.sources.topic_match import TopicMatcher
from shu.store import Store, UpsertResult

SOURCE = "history"
KINDS = ("commits", "tags", "release_notes")
FILE_NAME = re.compile(
    r"^(?P<owner>[\w.-]+?)__(?P<name>[\w.-]+)\."
    r"(?P<kind>commits|tags|release_notes)\.csv(?:\.gz)?$"
)
COLUMNS = {
    "commits": (
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
    ),
    "tags": ("tag", "tag_time", "annotated", "message"),
    "release_notes": ("version", "heading_line", "body"),
}
VERSION = re.compile(r"\d+(?:\.\d+)+")
MAX_BODY = 20_000
ROCM_TOPIC_FLAG = "touches_rocm"


@dataclass
class HistoryIngestResult:
    """What `ingest_history` read and changed, per repository."""

    repo: str
    commits_read: int = 0
    tags_read: int = 0
    version_tags: int = 0
    notes_matched: int = 0
    notes_unmatched: int = 0
    commits: UpsertResult = field(default_factory=UpsertResult)
    releases: UpsertResult = field(default_factory=UpsertResult)


def find_exports(paths: Iterable[Path | str]) -> dict[str, dict[str, Path]]:
    """Export files under `paths` (directories or files), grouped by repository and kind.

    InputError when a path does not exist, a named file is not an export file, no export is
    found, or a repository has tags or notes but no commits file.
    """
    found: dict[str, dict[str, Path]] = {}
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if FILE_NAME.match(p.name))
        elif path.is_file():
            if not FILE_NAME.match(path.name):
                raise InputError(
                    f"{path}: not a history export file (expected "
                    "<owner>__<name>.{commits,tags,release_notes}.csv[.gz])"
                )
            files = [path]
        else:
            raise InputError(f"{path}: no such file or directory")
        for file in files:
            m = FILE_NAME.match(file.name)
            assert m is not None  # files holds only names FILE_NAME matched above
            found.setdefault(f"{m['owner']}/{m['name']}", {})[m["kind"]] = file
    if not found:
        raise InputError(f"no history export files in {', '.join(map(str, paths))}")
    for repo, kinds in found.items():
        if "commits" not in kinds:
            raise InputError(f"{repo}: {sorted(kinds.values())[0]} has no matching commits file")
    return dict(sorted(found.items()))


def ingest_history(
    store: Store, paths: Iterable[Path | str], settings: Settings
) -> list[HistoryIngestResult]:
    """Load every repository's export found under `paths`; one transaction per repository."""
    matcher = TopicMatcher.from_topics(settings.topics)
    version_tag = re.compile(settings.version_tag_pattern)
    results = []
    for repo, files in find_exports(paths).items():
        repo = settings.canonical(repo)
        result = HistoryIngestResult(repo=repo)
        commits = read_commits(files["commits"], repo, matcher)
        releases = read_releases(
            files.get("tags"), files.get("release_notes"), repo, version_tag, result
        )
        result.commits_read = len(commits)
        with store.load(SOURCE, f"{repo} {files['commits'].parent.resolve()}") as load:
            load.rows_read = len(commits) + result.tags_read
            commits = without_richer_rows(store, "commits", "sha", repo, SOURCE, commits)
            if not commits.empty:
                result.commits = store.upsert("commits", commits)
            releases = without_richer_rows(store, "releases", "tag", repo, SOURCE, releases)
            if not releases.empty:
                result.releases = store.upsert("releases", releases)
            ensure_repo_row(store, settings, repo, None)
            load.add(result.commits)
            load.add(result.releases)
            load.message = (
                f"{result.commits_read} commits, {result.version_tags} version "
                f"tags, {result.notes_matched} release-note sections from history"
            )
        results.append(result)
    return results


def _read_csv(path: Path, kind: str) -> pd.DataFrame:
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, compression="infer")
    except (OSError, EOFError, zlib.error, ValueError, pd.errors.ParserError) as exc:
        # (UnicodeDecodeError is a ValueError; a cut-short gzip stream raises EOFError)
        raise InputError(f"{path}: cannot read as CSV: {str(exc).splitlines()[0]}") from exc
    missing = [c for c in COLUMNS[kind] if c not in frame.columns]
    if missing:
        raise InputError(f"{path}: missing column(s) {', '.join(missing)}")
    return frame


def _times(frame: pd.DataFrame, column: str, path: Path) -> pd.Series:
    parsed = pd.to_datetime(frame[column], utc=True, errors="coerce", format="ISO8601")
    bad = parsed.isna()
    if bad.any():
        row = int(bad.to_numpy().nonzero()[0][0])
        raise InputError(
            f"{path}: row {row + 2}: {column} {frame[column].iloc[row]!r} is not an ISO 8601 time"
        )
    return parsed.dt.tz_localize(None)


def _ints(frame: pd.DataFrame, column: str, path: Path) -> pd.Series:
    parsed = pd.to_numeric(frame[column].replace("", None), errors="coerce")
    bad = parsed.isna() & frame[column].ne("")
    if bad.any():
        row = int(bad.to_numpy().nonzero()[0][0])
        raise InputError(
            f"{path}: row {row + 2}: {column} {frame[column].iloc[row]!r} is not an integer"
        )
    return parsed.astype("Int64")


def read_commits(path: Path, repo: str, matcher: TopicMatcher) -> pd.DataFrame:
    """The commits file at `path` as `commits` rows (source 'history')."""
    raw = _read_csv(path, "commits")
    if raw["sha"].duplicated().any():
        sha = raw.loc[raw["sha"].duplicated(), "sha"].iloc[0]
        raise InputError(f"{path}: commit {sha} appears twice")
    export_flag = _ints(raw, "touches_rocm", path).fillna(0).astype(bool)
    topics, flags = [], []
    rocm_topic = next(
        (name for name, _, column in matcher.topics if column == ROCM_TOPIC_FLAG), None
    )
    for subject, exported in zip(raw["subject"], export_flag, strict=True):
        matched = matcher.match(subject)
        if exported and rocm_topic and rocm_topic not in matched:
            matched = [*matched, rocm_topic]  # a path-only match the export saw and we cannot
        topics.append(matched)
        flags.append(matcher.flags(matched))
    frame = pd.DataFrame(
        {
            "repo": repo,
            "sha": raw["sha"],
            "authored_at": _times(raw, "author_time", path),
            "committed_at": _times(raw, "commit_time", path),
            "author_id": raw["author_id"].replace("", None),
            "subject": raw["subject"],
            "parents": _ints(raw, "parents", path).astype("Int32"),
            "is_mainline": _optional_flag(raw, "first_parent", path),
            "author_is_bot": _optional_flag(raw, "author_is_bot", path),
            "files_changed": _ints(raw, "files_changed", path).astype("Int32"),
            "insertions": _ints(raw, "insertions", path).astype("Int32"),
            "deletions": _ints(raw, "deletions", path).astype("Int32"),
            "topics": topics,
            "source": SOURCE,
        }
    )
    flag_frame = pd.DataFrame(flags, index=frame.index)
    for column in flag_frame.columns:
        frame[column] = flag_frame[column].astype(bool)
    return frame


def _optional_flag(raw: pd.DataFrame, column: str, path: Path) -> pd.Series:
    """A 0/1 column as booleans, NULL where the export lacks it (it is an extra column)."""
    if column not in raw:
        return pd.Series(pd.NA, index=raw.index, dtype="boolean")
    return _ints(raw, column, path).astype("boolean")


def read_releases(
    tags_path: Path | None,
    notes_path: Path | None,
    repo: str,
    version_tag: re.Pattern[str],
    result: HistoryIngestResult,
) -> pd.DataFrame:
    """Version tags as `releases` rows, with matching release-note sections in their body."""
    if tags_path is None:
        if notes_path is not None:
            result.notes_unmatched = len(_read_csv(notes_path, "release_notes"))
        return pd.DataFrame()
    tags = _read_csv(tags_path, "tags")
    result.tags_read = len(tags)
    tags["published_at"] = _times(tags, "tag_time", tags_path)
    keep = [bool(version_tag.search(t)) for t in tags["tag"]]
    tags = tags.loc[pd.Series(keep, index=tags.index, dtype=bool)]
    tags = tags.drop_duplicates("tag", keep="last").reset_index(drop=True)
    result.version_tags = len(tags)
    bodies = [
        m.strip() if a == "1" else ""
        for m, a in zip(tags["message"], tags["annotated"], strict=True)
    ]
    if notes_path is not None:
        by_version: dict[str, list[int]] = {}
        for i, tag in enumerate(tags["tag"]):
            m = VERSION.search(tag)
            if m:
                by_version.setdefault(m.group(0), []).append(i)
        notes = _read_csv(notes_path, "release_notes")
        for heading, body in zip(notes["heading_line"], notes["body"], strict=True):
            hits = sorted({i for v in VERSION.findall(heading) for i in by_version.get(v, [])})
            if not hits:
                result.notes_unmatched += 1
                continue
            result.notes_matched += 1
            for i in hits:
                section = f"{heading.strip()}\n{body.strip()}".strip()
                bodies[i] = f"{bodies[i]}\n\n{section}".strip() if bodies[i] else section
    return pd.DataFrame(
        {
            "repo": repo,
            "tag": tags["tag"],
            "name": tags["tag"],
            "published_at": tags["published_at"],
            "is_prerelease": tags["tag"].map(lambda t: bool(PRERELEASE.search(t))),
            "body": [b[:MAX_BODY] or None for b in bodies],
            "url": pd.Series([None] * len(tags), dtype="string"),
            "source": SOURCE,
        }
    )
