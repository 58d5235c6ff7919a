"""Local git source: commits and version tags from a clone, with no network.

`ingest_git(store, path, repo)` reads the history reachable from the clone's HEAD with
`git log --numstat --diff-merges=first-parent` (the same derivation as the shared histories in
../shared/data/history: merges' file stats against the first parent, author e-mail hashed and
never stored, `is_mainline` from `git rev-list --first-parent`), and every tag whose name
matches `settings.version_tag_pattern`, into `commits` and `releases` (source 'git'). Commit
rows are complete here (files changed, insertions, deletions, paths for topic matching), so they
replace thinner API rows for the same SHA; releases already loaded from the GitHub API keep
their richer notes. One load, one transaction: a re-run changes nothing.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from shu.errors import InputError
from shu.settings import Settings
from shu.sources.authors import author_id, looks_like_bot
from shu.sources.topic_match import TopicMatcher
from shu.store import Store, UpsertResult, utcnow

SOURCE = "git"
RECORD = "\x00\x1e\x1fCOMMIT\x1f\x1e\x00"
LOG_FORMAT = "%x00%x1e%x1fCOMMIT%x1f%x1e%x00%H%x00%at%x00%ct%x00%ae%x00%an%x00%P%x00%B%x00E"
TAG_FORMAT = (
    "%(refname:strip=2)%00%(objecttype)%00%(objectname)%00%(*objecttype)%00"
    "%(*objectname)%00%(taggerdate:unix)%00%(committerdate:unix)%00"
    "%(*committerdate:unix)%00%(contents:subject)%0a%0a%(contents:body)%00%1e"
)
PRERELEASE = re.compile(r"rc\d*|alpha|beta|dev|pre(?:view)?|nightly", re.IGNORECASE)
MAX_TAG_MESSAGE = 20_000
REPO_NAME = re.compile(r"^[\w.-]+/[\w.-]+$")


@dataclass
class GitIngestResult:
    """What `ingest_git` read and changed."""

    repo: str
    commits_read: int = 0
    tags_read: int = 0
    commits: UpsertResult = field(default_factory=UpsertResult)
    releases: UpsertResult = field(default_factory=UpsertResult)


def ingest_git(store: Store, path: Path | str, repo: str, settings: Settings) -> GitIngestResult:
    """Load commits reachable from HEAD and version tags of the clone at `path` as `repo`.

    Raises InputError naming the path when it is not a git repository, has no commits, or git
    fails; nothing is written then.
    """
    if not REPO_NAME.match(repo):
        raise InputError(f"--repo {repo!r}: expected 'owner/name'")
    repo = settings.canonical(repo)
    path = Path(path)
    if not path.is_dir():
        raise InputError(f"{path}: no such directory")
    _git(path, "rev-parse", "--git-dir")
    head = _git(path, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", missing_ok=True)
    if not head.strip():
        raise InputError(f"{path}: the clone has no commits (HEAD does not resolve)")
    result = GitIngestResult(repo=repo)
    matcher = TopicMatcher.from_topics(settings.topics)
    commits = read_commits(path, head.strip(), repo, matcher)
    releases = read_version_tags(path, repo, re.compile(settings.version_tag_pattern))
    result.commits_read, result.tags_read = len(commits), len(releases)
    with store.load(SOURCE, f"{repo} {path.resolve()}") as load:
        load.rows_read = len(commits) + len(releases)
        if not commits.empty:
            result.commits = store.upsert("commits", commits)
        releases = without_richer_rows(store, "releases", "tag", repo, SOURCE, releases)
        if not releases.empty:
            result.releases = store.upsert("releases", releases)
        ensure_repo_row(store, settings, repo, _branch(path))
        load.add(result.commits)
        load.add(result.releases)
        load.message = f"{len(commits)} commits, {len(releases)} version tags from {path.name}"
    return result


def read_commits(path: Path, head: str, repo: str, matcher: TopicMatcher) -> pd.DataFrame:
    """Every commit reachable from `head` as `commits` rows (source 'git')."""
    out = _git(
        path,
        "-c",
        "core.quotepath=true",
        "log",
        head,
        f"--format={LOG_FORMAT}",
        "--numstat",
        "--diff-merges=first-parent",
        "--",
    )
    mainline = set(_git(path, "rev-list", "--first-parent", head).split())
    rows = []
    for chunk in out.split(RECORD)[1:]:
        fields = chunk.split("\x00", 6)
        if len(fields) != 7:
            raise InputError(f"{path}: unexpected `git log` output near {chunk[:60]!r}")
        sha, at, ct, email, name, parents, rest = fields
        message, _, numstat = rest.partition("\x00E")
        files = insertions = deletions = 0
        paths = []
        for line in numstat.strip("\n").splitlines():
            parts = line.split("\t", 2)
            if len(parts) != 3:
                continue
            files += 1
            insertions += int(parts[0]) if parts[0].isdigit() else 0
            deletions += int(parts[1]) if parts[1].isdigit() else 0
            paths.append(parts[2])
        subject = message.split("\n", 1)[0].strip()
        topics = matcher.match(subject, *paths)
        rows.append(
            {
                "repo": repo,
                "sha": sha,
                "authored_at": _epoch(at),
                "committed_at": _epoch(ct),
                "author_id": author_id(email),
                "subject": subject,
                "parents": len(parents.split()),
                "is_mainline": sha in mainline,
                "author_is_bot": looks_like_bot(name, email),
                "files_changed": files,
                "insertions": insertions,
                "deletions": deletions,
                "topics": topics,
                **matcher.flags(topics),
                "source": SOURCE,
            }
        )
    return pd.DataFrame(rows)


def read_version_tags(path: Path, repo: str, version: re.Pattern[str]) -> pd.DataFrame:
    """Tags whose name matches `version` and that peel to a commit, as `releases` rows."""
    out = _git(path, "for-each-ref", "refs/tags", f"--format={TAG_FORMAT}")
    rows = []
    for record in out.split("\x00\x1e"):
        fields = record.lstrip("\n").split("\x00")
        if len(fields) != 9:
            continue
        tag, kind, _, peeled_kind, _, tagger_time, commit_time, peeled_time, message = fields
        if not version.search(tag):
            continue
        annotated = kind == "tag"
        if annotated and peeled_kind != "commit":
            continue
        when = (
            tagger_time
            if annotated and tagger_time
            else (peeled_time if annotated else commit_time)
        )
        if not when:
            continue
        body = message.strip() if annotated else ""
        rows.append(
            {
                "repo": repo,
                "tag": tag,
                "name": tag,
                "published_at": _epoch(when),
                "is_prerelease": bool(PRERELEASE.search(tag)),
                "body": body[:MAX_TAG_MESSAGE] or None,
                "url": None,
                "source": SOURCE,
            }
        )
    frame = pd.DataFrame(rows)
    if not frame.empty:
        frame["url"] = frame["url"].astype("string")
    return frame


def without_richer_rows(
    store: Store, table: str, key: str, repo: str, source: str, frame: pd.DataFrame
) -> pd.DataFrame:
    """`frame` less the rows whose `key` the store already holds for `repo` from another
    source (the API's rows are richer than a clone's or an export's, so they are kept)."""
    if frame.empty:
        return frame
    held = {
        r[0]
        for r in store.con.execute(
            f"SELECT {key} FROM {table} WHERE repo = ? AND source <> ?", [repo, source]
        ).fetchall()
    }
    return frame[~frame[key].isin(held)]


def ensure_repo_row(store: Store, settings: Settings, repo: str, branch: str | None) -> None:
    """Add a `repos` row for `repo` (category from settings) unless it has one."""
    exists = store.con.execute("SELECT count(*) FROM repos WHERE repo = ?", [repo]).fetchall()
    if exists[0][0]:
        return
    category = settings.category_of(repo)
    store.upsert(
        "repos",
        pd.DataFrame(
            [
                {
                    "repo": repo,
                    "category": category,
                    "is_tracked": category is not None,
                    "default_branch": branch,
                    "updated_at": utcnow(),
                }
            ]
        ),
    )


def _branch(path: Path) -> str | None:
    name = _git(path, "symbolic-ref", "--short", "--quiet", "HEAD", missing_ok=True).strip()
    return name or None


def _git(path: Path, *args: str, missing_ok: bool = False) -> str:
    try:
        done = subprocess.run(["git", "-C", str(path), *args], capture_output=True, check=False)
    except FileNotFoundError as exc:
        raise InputError("git is not installed (needed by `shu ingest git`)") from exc
    if done.returncode != 0:
        if missing_ok:
            return ""
        first = (done.stderr.decode("utf-8", "replace").strip().splitlines() or ["failed"])[0]
        command = next(a for a in args if not a.startswith("-") and "=" not in a)
        raise InputError(f"{path}: git {command} failed: {first}")
    return done.stdout.decode("utf-8", "replace")


def _epoch(text: str) -> datetime:
    return datetime.fromtimestamp(int(text), UTC).replace(tzinfo=None)
