"""Generates hourly GH Archive files (`YYYY-MM-DD-H.json.gz`) in the real public event schema.

Every line is one event with GH Archive's top-level keys (`id`, `type`, `actor`, `repo{id,name,
url}`, `payload`, `public`, `created_at`, and `org` on organisation repositories), with the
common event types in roughly the archive's mix (push, create branch/tag, watch, pull request,
issues, comments, delete, fork, release published/created, …), raw UTF-8 text in titles and
release bodies, and optionally a truncated file. The truth (stars, pushes, tags, published
releases per repository and day) is counted while writing, so tests compare against it.

Fast path for benchmark volumes: events are rendered from per-type %-templates with
pre-serialised repository/actor fragments, written as bytes through gzip level 1, one hour per
process when `processes > 1` (4M events a day in well under a minute on two cores).
"""

from __future__ import annotations

import gzip
import json
import random
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path

# (type, weight) close to GH Archive's 2025 mix; CreateEvent is split into branch and tag.
EVENT_MIX = (
    ("PushEvent", 46),
    ("CreateEvent:branch", 8),
    ("CreateEvent:tag", 2),
    ("WatchEvent", 11),
    ("PullRequestEvent", 9),
    ("IssueCommentEvent", 7),
    ("IssuesEvent", 4),
    ("DeleteEvent", 4),
    ("PullRequestReviewEvent", 3),
    ("ForkEvent", 2),
    ("ReleaseEvent:published", 1),
    ("ReleaseEvent:created", 1),
    ("GollumEvent", 1),
    ("MemberEvent", 1),
)
UNICODE_WORDS = ("naïve", "Größe", "日本語", "emoji 🚀", "Ελληνικά", "ещё", "ä\u00a0b", '中文 "q"')


@dataclass
class Truth:
    """What the generated events say, per (repo, day): the counts an ingest must reproduce."""

    stars: Counter = field(default_factory=Counter)
    pushes: Counter = field(default_factory=Counter)
    tags: Counter = field(default_factory=Counter)
    releases: Counter = field(default_factory=Counter)
    tag_names: set = field(default_factory=set)
    release_tags: set = field(default_factory=set)
    events: int = 0

    def merge(self, other: Truth) -> None:
        for name in ("stars", "pushes", "tags", "releases"):
            getattr(self, name).update(getattr(other, name))
        self.tag_names |= other.tag_names
        self.release_tags |= other.release_tags
        self.events += other.events


def repo_names(n: int, seed: int = 0) -> list[str]:
    """`n` distinct repository names; a few carry dots, dashes or non-ASCII-free odd cases."""
    rng = random.Random(seed)
    owners = [f"org{i}" if i % 3 else f"user-{i}.x" for i in range(max(1, n // 4))]
    return [f"{rng.choice(owners)}/repo_{i}{'.js' if i % 7 == 0 else ''}" for i in range(n)]


def _fragment(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _templates() -> dict[str, str]:
    """Per-type line templates with %(...)s slots; JSON-escaped text is pre-rendered."""
    head = '{"id":"%(id)s","type":"%(type)s","actor":%(actor)s,"repo":%(repo)s,"payload":'
    tail = ',"public":true,"created_at":"%(ts)s"%(org)s}\n'
    payloads = {
        "PushEvent": '{"repository_id":%(rid)s,"push_id":%(id)s,"ref":"refs/heads/main",'
        '"head":"%(sha)s","before":"%(sha)s"}',
        "CreateEvent:branch": '{"ref":"feature-%(n)s","ref_type":"branch","full_ref":'
        '"refs/heads/feature-%(n)s","master_branch":"main",'
        '"description":%(text)s,"pusher_type":"user"}',
        "CreateEvent:tag": '{"ref":"v%(n)s.0","ref_type":"tag","full_ref":"refs/tags/v%(n)s.0",'
        '"master_branch":"main","description":null,"pusher_type":"user"}',
        "WatchEvent": '{"action":"started"}',
        "PullRequestEvent": '{"action":"opened","number":%(n)s,"pull_request":{"url":'
        '"https://api.github.com/repos/x/pulls/%(n)s","id":%(id)s,"number":'
        '%(n)s,"state":"open","title":%(text)s,"body":%(text)s,"head":{'
        '"ref":"f","sha":"%(sha)s"},"base":{"ref":"main","sha":"%(sha)s"}}}',
        "IssueCommentEvent": '{"action":"created","issue":{"number":%(n)s,"title":%(text)s},'
        '"comment":{"id":%(id)s,"body":%(text)s}}',
        "IssuesEvent": '{"action":"opened","issue":{"number":%(n)s,"title":%(text)s,"body":'
        '%(text)s,"labels":[{"name":"bug"}]}}',
        "DeleteEvent": '{"ref":"feature-%(n)s","ref_type":"branch","full_ref":'
        '"refs/heads/feature-%(n)s","pusher_type":"user"}',
        "PullRequestReviewEvent": '{"action":"created","review":{"id":%(id)s,"state":'
        '"approved","body":%(text)s},"pull_request":{"number":%(n)s}}',
        "ForkEvent": '{"forkee":{"id":%(id)s,"full_name":"someone/fork-%(n)s","private":false}}',
        "ReleaseEvent:published": '{"action":"published","release":{"id":%(id)s,"tag_name":'
        '"v%(n)s.0","name":%(text)s,"body":%(text)s,"draft":false,'
        '"prerelease":%(pre)s,"created_at":"%(ts)s","published_at":'
        '"%(ts)s","html_url":"https://github.com/%(name)s/releases/'
        'tag/v%(n)s.0","assets":[]}}',
        "ReleaseEvent:created": '{"action":"created","release":{"id":%(id)s,"tag_name":'
        '"draft-%(n)s","name":null,"body":null,"draft":true,'
        '"prerelease":false,"published_at":null}}',
        "GollumEvent": '{"pages":[{"page_name":"Home","action":"edited"}]}',
        "MemberEvent": '{"action":"added","member":{"login":"m%(n)s"}}',
    }
    return {k: head.replace("%(type)s", k.split(":")[0]) + p + tail for k, p in payloads.items()}


def write_hour(
    path: Path,
    hour: datetime,
    n_events: int,
    repos: list[str],
    seed: int,
    truncate: bool = False,
    count_truth: bool = True,
) -> Truth:
    """Write one hourly file of `n_events` events (a truncated gzip stream when `truncate`)."""
    rng = random.Random(seed)
    templates = _templates()
    kinds = rng.choices([k for k, _ in EVENT_MIX], [w for _, w in EVENT_MIX], k=n_events)
    # Popularity is heavy-tailed, as on GitHub: a few repositories get most events.
    weights = [1.0 / (i + 1) ** 1.1 for i in range(len(repos))]
    picks = rng.choices(range(len(repos)), weights, k=n_events)
    repo_frag = [
        _fragment({"id": 1000 + i, "name": r, "url": f"https://api.github.com/repos/{r}"})
        for i, r in enumerate(repos)
    ]
    org_frag = [
        ""
        if "user-" in r
        else ',"org":' + _fragment({"id": 7, "login": r.split("/")[0], "avatar_url": ""})
        for r in repos
    ]
    texts = [_fragment(f"{w} — fix #{i}") for i, w in enumerate(UNICODE_WORDS)]
    actors = [
        _fragment(
            {
                "id": i,
                "login": f"dev{i}",
                "display_login": f"dev{i}",
                "url": f"https://api.github.com/users/dev{i}",
            }
        )
        for i in range(97)
    ]
    day = hour.date()
    truth = Truth(events=n_events)
    base_id = int(hour.timestamp()) * 10_000_000
    stamps = [f"{hour:%Y-%m-%dT%H}:{sec // 60:02d}:{sec % 60:02d}Z" for sec in range(3600)]
    shas = [f"{rng.getrandbits(160):040x}" for _ in range(1009)]
    lines: list[str] = []
    for i, (kind, ri) in enumerate(zip(kinds, picks, strict=True)):
        n = i % 50
        lines.append(
            templates[kind]
            % {
                "id": base_id + i,
                "actor": actors[i % 97],
                "repo": repo_frag[ri],
                "ts": stamps[i * 3600 // n_events],
                "org": org_frag[ri],
                "rid": 1000 + ri,
                "sha": shas[i % 1009],
                "n": n,
                "text": texts[i % len(texts)],
                "pre": "true" if n % 5 == 0 else "false",
                "name": repos[ri],
            }
        )
        if count_truth:
            key = (repos[ri], day)
            if kind == "WatchEvent":
                truth.stars[key] += 1
            elif kind == "PushEvent":
                truth.pushes[key] += 1
            elif kind == "CreateEvent:tag":
                truth.tags[key] += 1
                truth.tag_names.add((repos[ri], f"v{n}.0"))
            elif kind == "ReleaseEvent:published":
                truth.releases[key] += 1
                truth.release_tags.add((repos[ri], f"v{n}.0"))
    data = gzip.compress("".join(lines).encode("utf-8"), compresslevel=1)
    path.write_bytes(data[: len(data) // 2] if truncate else data)
    return truth


def hour_file(directory: Path, hour: datetime) -> Path:
    """GH Archive's name for an hour: YYYY-MM-DD-H.json.gz (hour not zero-padded)."""
    return directory / f"{hour:%Y-%m-%d}-{hour.hour}.json.gz"


def _write_hour_job(args: tuple) -> Truth:
    return write_hour(*args)


def generate_days(
    directory: Path,
    first: date,
    days: int = 1,
    events_per_day: int = 2400,
    n_repos: int = 200,
    seed: int = 0,
    processes: int = 1,
    count_truth: bool = True,
) -> tuple[list[Path], Truth]:
    """Write 24 hourly files per day for `days` days from `first`; returns the paths and truth."""
    directory.mkdir(parents=True, exist_ok=True)
    repos = repo_names(n_repos, seed)
    jobs = []
    for d in range(days):
        for h in range(24):
            hour = datetime(first.year, first.month, first.day) + timedelta(days=d, hours=h)
            jobs.append(
                (
                    hour_file(directory, hour),
                    hour,
                    events_per_day // 24,
                    repos,
                    seed * 100_003 + d * 24 + h,
                    False,
                    count_truth,
                )
            )
    truth = Truth()
    if processes > 1:
        with ProcessPoolExecutor(processes) as pool:
            for part in pool.map(_write_hour_job, jobs):
                truth.merge(part)
    else:
        for job in jobs:
            truth.merge(_write_hour_job(job))
    return [job[0] for job in jobs], truth
