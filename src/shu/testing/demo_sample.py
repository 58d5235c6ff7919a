"""The synthetic demo sample: clearly labelled generated data that drives the whole chain offline.

`synthetic_sample(end, seed)` builds, deterministically from `seed`:

- six repositories under the `synthetic-demo/` owner in three categories, each with about two
  years of daily star counts (a smooth random velocity with release bumps, and for those in
  `BURSTS` a few days of unusual attention), commits on most days
  (some subjects mention ROCm, TPU, torch.compile or quantization, per repository profile) and a
  release every four to seven weeks whose notes mention the same topics;
- 48 untracked repositories (`synthetic-demo/radar-NN`) with daily star counts only, a steady
  pace each and now and then a surge, delivered as daily ranking files
  (`github-ranking-YYYY-MM-DD.csv`, the format `shu ingest ranking` reads) so the breakout radar
  has a market to scan;
- short notes (markdown with a title and a date) written here, each saying it is synthetic;
- one probe result in the probe's JSON format, marked synthetic in its host and device names.

`shu demo` (`shu.demo`) serves the repositories through `shu.testing.github_server` so the real
GitHub client and the real daily flow run on them; tests use the sample the same way. Nothing
here describes a real project.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from shu.repos import SYNTHETIC_MARK
from shu.settings import TrackedRepo
from shu.testing.github_server import CommitRecord, ReleaseRecord, RepoRecord

OWNER = "synthetic-demo"
HISTORY_DAYS = 760
SEED = 20260221
# Share of releases whose notes mention the repository's topic (ROCm repositories mention it in
# most releases, so the demo's `rocm_release_mention` model has a pattern to learn).
RELEASE_MENTION_RATE = {"rocm": 0.8}

N_UNTRACKED = 48
# Each untracked repository surges (4-8 times its pace for 25-45 days, after a few days at twice
# it) with this chance per window of 40-80 days, so the radar has breakouts to learn and find.
SURGE_CHANCE = 0.3

# A burst of attention (e.g. a front-page link) some repositories had, so the demo's briefing
# tells a burst leaving the 28-day window apart from a slowdown: name -> (days before the end of
# the sample of its first day, its length in days, its pace as a multiple of the usual).
BURSTS = {"gradflow": (45, 4, 8.0)}

# name, category, base stars/day, topic mentioned most in its commits and notes
PROFILES = (
    ("tensorforge", "platform", 40.0, "rocm"),
    ("gradflow", "platform", 22.0, "tpu"),
    ("llamabox", "inference-runtime", 65.0, "quant"),
    ("servelite", "inference-runtime", 12.0, "rocm"),
    ("kernelsmith", "compiler", 9.0, "compile"),
    ("fusekit", "compiler", 5.0, "compile"),
)
TOPIC_SUBJECTS = {
    "rocm": (
        "[ROCm] enable fused attention on gfx942",
        "hipify the sparse kernels",
        "ROCm CI: add MI300 runners",
        "fix HIP stream sync on AMD GPUs",
    ),
    "tpu": (
        "TPU: shard embeddings across cores",
        "XLA: lower scatter to PJRT",
        "add TPU v5 smoke tests",
    ),
    "quant": (
        "add GGUF Q4_K loader",
        "int8 weight-only quantization for linear layers",
        "fp8 KV cache",
    ),
    "compile": (
        "inductor: fuse layernorm into matmul epilogue",
        "torch.compile: cut recompiles on dynamic shapes",
        "triton autotune cache",
    ),
}
PLAIN_SUBJECTS = (
    "fix flaky test in data loader",
    "docs: clarify install steps",
    "refactor config parsing",
    "bump dependency pins",
    "speed up CLI start-up",
    "add retries to downloader",
    "improve error message for bad shapes",
    "clean up logging",
)
NOTE_TEMPLATES = {
    "rocm": (
        "{name} ships ROCm builds",
        "ROCm is AMD's open software stack for GPU computing; it plays the role CUDA plays "
        "on NVIDIA hardware. The synthetic project {name} started publishing ROCm wheels "
        "this quarter. Users asked for ROCm support because AMD Instinct accelerators were "
        "easier to buy than NVIDIA parts. The {name} maintainers now run ROCm CI on MI300 "
        "machines for every release.",
    ),
    "tpu": (
        "{name} adds TPU support",
        "A TPU is Google's tensor processing unit, reached through the XLA compiler and the "
        "PJRT runtime. The synthetic project {name} added TPU support so training jobs can "
        "move between GPU and TPU pools. TPU support mattered to {name} users who rent "
        "capacity from Google Cloud.",
    ),
    "quant": (
        "{name} leans on quantization",
        "Quantization stores weights in fewer bits (int8, 4-bit GGUF formats) so large "
        "models fit on laptops. The synthetic project {name} made quantized models its "
        "default download. Quantization mattered to {name} because most of its users run "
        "models locally.",
    ),
    "compile": (
        "{name} and torch.compile",
        "torch.compile captures PyTorch programs into graphs that TorchInductor turns "
        "into fused Triton kernels. The synthetic project {name} builds on torch.compile "
        "to fuse memory-bound operations. Compiler uplift mattered to {name} because "
        "fused kernels cut memory traffic. On a CPU, torch.compile makes softmax about "
        "1.8x faster than eager. Compiled naive attention runs within 10% of SDPA on a "
        "CPU. On a CPU, LayerNorm followed by GELU runs 2x faster than eager once "
        "compiled.",
    ),
}


@dataclass
class DemoSample:
    """Everything `shu demo` serves and ingests."""

    end: date
    repos: list[RepoRecord]
    tracked: list[TrackedRepo]
    notes: dict[str, str]
    probe: dict
    untracked: dict[str, list[tuple[date, int, int]]] = field(default_factory=dict)

    def write_ranking(self, path: Path, first: date, last: date) -> Path:
        """The untracked repositories' counts of days first..last as a long ranking table
        (day, repo, stars, forks, open_issues), for `shu ingest ranking`."""
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = ["day,repo,stars,forks,open_issues"] + [
            f"{day},{repo},{stars},{forks},{stars // 40}"
            for repo, counts in sorted(self.untracked.items())
            for day, stars, forks in counts
            if first <= day <= last
        ]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    def write_daily_ranking(self, directory: Path, day: date) -> Path:
        """The untracked repositories' counts of `day` as a daily ranking file
        (`github-ranking-YYYY-MM-DD.csv`, EvanLi/Github-Ranking's columns)."""
        from shu.sources.ranking import RAW_COLUMNS

        directory.mkdir(parents=True, exist_ok=True)
        rows = [",".join(RAW_COLUMNS)]
        for rank, (repo, counts) in enumerate(sorted(self.untracked.items()), start=1):
            for d, stars, forks in counts:
                if d == day:
                    owner, name = repo.split("/")
                    rows.append(
                        f"{rank},top-100-stars,{name},{stars},{forks},Python,"
                        f"https://github.com/{repo},{owner},{stars // 40},"
                        f"{day}T00:00:00Z,SYNTHETIC demo repository (untracked)"
                    )
        path = directory / f"github-ranking-{day}.csv"
        path.write_text("\n".join(rows) + "\n", encoding="utf-8")
        return path

    def write_notes(self, directory: Path) -> list[Path]:
        """Write the notes as markdown files; returns their paths."""
        directory.mkdir(parents=True, exist_ok=True)
        paths = []
        for name, text in sorted(self.notes.items()):
            path = directory / name
            path.write_text(text, encoding="utf-8")
            paths.append(path)
        return paths


def synthetic_sample(end: date, seed: int = SEED) -> DemoSample:
    """The demo sample ending on `end` (deterministic for a given end and seed)."""
    rng = np.random.default_rng(seed)
    repos, tracked, notes = [], [], {}
    for i, (name, category, base, topic) in enumerate(PROFILES):
        full = f"{OWNER}/{name}"
        start = end - timedelta(days=HISTORY_DAYS - 1)
        releases = _releases(rng, name, topic, start, end)
        stars = _stars(rng, base, start, releases, BURSTS.get(name))
        repos.append(
            RepoRecord(
                full_name=full,
                repo_id=900_000 + i,
                created_at=datetime.combine(start - timedelta(days=400), datetime.min.time()),
                star_counts=[(start + timedelta(days=d), int(s)) for d, s in enumerate(stars)],
                default_branch="main",
                forks=int(stars[-1] // 9),
                open_issues=int(40 + base * 3),
                watchers=int(base * 5),
                description=f"SYNTHETIC demo repository ({category}) {SYNTHETIC_MARK}",
                language="Python",
                commits=_commits(rng, i, name, topic, start, end),
                releases=releases,
            )
        )
        tracked.append(TrackedRepo(repo=full, category=category))
        title, body = NOTE_TEMPLATES[topic]
        published = end - timedelta(days=int(rng.integers(5, 60)))
        notes[f"{name}.md"] = (
            f'---\ntitle: "Synthetic note: {title.format(name=name)}"\n'
            f"date: {published.isoformat()}\n---\n\n"
            f"This note is SYNTHETIC, generated by `shu demo`; it describes no real project.\n\n"
            f"{body.format(name=name)}\n"
        )
    return DemoSample(end, repos, tracked, notes, _probe(end), _untracked(seed, end))


def surging_rate(
    rng: np.random.Generator, days: int, pace: float, surge_chance: float
) -> np.ndarray:
    """A daily star rate at a steady `pace` that now and then (each 40-80 days, with probability
    `surge_chance`) surges to 4-8 times the pace for 25-45 days, announced by 4 days at twice
    it: what the breakout radar is asked to see coming."""
    rate = np.full(days, pace)
    day = int(rng.integers(0, 60))
    while day < days:
        if rng.random() < surge_chance:
            length = int(rng.integers(25, 45))
            rate[day : day + 4] *= 2
            rate[day + 4 : day + length] *= rng.uniform(4, 8)
            day += length
        day += int(rng.integers(40, 80))
    return rate


def _untracked(seed: int, end: date) -> dict[str, list[tuple[date, int, int]]]:
    """Daily (day, stars, forks) of the untracked repositories (their own random stream, so
    the tracked ones do not change with them)."""
    rng = np.random.default_rng(seed + 1)
    start = end - timedelta(days=HISTORY_DAYS - 1)
    out = {}
    for k in range(N_UNTRACKED):
        rate = surging_rate(rng, HISTORY_DAYS, rng.uniform(1.5, 15.0), SURGE_CHANCE)
        stars = 2000 + np.cumsum(rng.poisson(rate))
        out[f"{OWNER}/radar-{k:02d}"] = [
            (start + timedelta(days=i), int(s), int(s // 12)) for i, s in enumerate(stars)
        ]
    return out


def _releases(
    rng: np.random.Generator, name: str, topic: str, start: date, end: date
) -> list[ReleaseRecord]:
    out, day, minor = [], start + timedelta(days=int(rng.integers(5, 30))), 0
    while day <= end:
        minor += 1
        mention = rng.random() < RELEASE_MENTION_RATE.get(topic, 0.5)
        highlight = rng.choice(TOPIC_SUBJECTS[topic]) if mention else rng.choice(PLAIN_SUBJECTS)
        out.append(
            ReleaseRecord(
                tag=f"v1.{minor}.0",
                name=f"{name} 1.{minor}.0",
                published_at=datetime.combine(day, datetime.min.time()) + timedelta(hours=15),
                body=f"Synthetic release notes. Highlights: {highlight}. Bug fixes and docs.",
                prerelease=False,
            )
        )
        day += timedelta(days=int(rng.integers(28, 50)))
    return out


def _stars(
    rng: np.random.Generator,
    base: float,
    start: date,
    releases: list[ReleaseRecord],
    burst: tuple[int, int, float] | None = None,
) -> np.ndarray:
    n = HISTORY_DAYS
    # A slow random walk in log-velocity, smoothed, with bumps after releases.
    walk = np.cumsum(rng.normal(0, 0.035, n))
    smooth = np.convolve(walk, np.ones(21) / 21, mode="same")
    velocity = base * np.exp(smooth - smooth.mean())
    for r in releases:
        d = (r.published_at.date() - start).days
        if 0 <= d < n:
            bump = np.exp(-np.arange(n - d) / 10.0) * base * rng.uniform(0.3, 1.5)
            velocity[d:] += bump
    if burst is not None:
        before_end, length, times = burst
        first = n - before_end
        velocity[first : first + length] *= times
    daily = rng.poisson(np.clip(velocity, 0.1, None))
    return 500 + np.cumsum(daily)


def _commits(
    rng: np.random.Generator, index: int, name: str, topic: str, start: date, end: date
) -> list[CommitRecord]:
    out: list[CommitRecord] = []
    day, k = start, 0
    while day <= end:
        for _ in range(int(rng.poisson(1.6))):
            at = datetime.combine(day, datetime.min.time()) + timedelta(
                minutes=int(rng.integers(0, 1440))
            )
            subject = (
                rng.choice(TOPIC_SUBJECTS[topic])
                if rng.random() < 0.08
                else rng.choice(PLAIN_SUBJECTS)
            )
            author = int(rng.integers(0, 12))
            sha = f"{index:02x}{k:038x}"
            out.append(
                CommitRecord(
                    sha=sha,
                    authored_at=at - timedelta(hours=1),
                    committed_at=at,
                    author_name=f"Synthetic Dev {author}",
                    author_email=f"dev{author}@{name}.invalid",
                    message=f"{subject}\n\nSynthetic commit {k}.",
                    parents=[out[-1].sha] if out else [],
                    author_login=f"synthetic-dev-{author}",
                )
            )
            k += 1
        day += timedelta(days=1)
    return out


def _probe(end: date) -> dict:
    """A probe document in the probe's JSON format (FORMAT_VERSION), marked synthetic."""
    from shu.probe import FORMAT_VERSION

    started = datetime.combine(end, datetime.min.time()) + timedelta(hours=5)
    kernels = [
        ("layernorm_gelu", "memory-bound fusion", 0.92, 0.61),
        ("softmax", "memory-bound fusion", 0.55, 0.31),
        ("gemm_bias_relu", "gemm+epilogue", 2.10, 1.95),
        ("sdpa", "attention", 1.40, 1.52),
        ("naive_attention", "attention", 3.30, 1.62),
        ("transformer_block", "transformer block", 6.8, 4.9),
    ]
    results: list[dict[str, Any]] = []
    for kernel, category, eager_ms, compiled_ms in kernels:
        results.append(
            {
                "kernel": kernel,
                "category": category,
                "shape": "synthetic",
                "dtype": "float32",
                "is_valid": True,
                "invalid_reason": None,
                "correct": True,
                "rel_error": 1e-6,
                "tolerance": 1e-4,
                "recompiles": 0,
                "graph_breaks": 0,
                "compile_s": 4.0,
                "timer": "synthetic",
                "eager": {
                    "median_ms": eager_ms,
                    "p20_ms": eager_ms * 0.98,
                    "p80_ms": eager_ms * 1.02,
                    "cv": 0.01,
                    "repeats": 30,
                },
                "compiled": {
                    "median_ms": compiled_ms,
                    "p20_ms": compiled_ms * 0.98,
                    "p80_ms": compiled_ms * 1.02,
                    "cv": 0.01,
                    "repeats": 30,
                },
                "speedup": eager_ms / compiled_ms,
                "speedup_unchecked": eager_ms / compiled_ms,
            }
        )
    speedups = [r["speedup"] for r in results]
    return {
        "format_version": FORMAT_VERSION,
        "run_id": f"synthetic-demo-{end:%Y%m%d}",
        "started_at": started.isoformat() + "+00:00",
        "finished_at": (started + timedelta(minutes=2)).isoformat() + "+00:00",
        "wall_s": 120.0,
        "suite": "quick",
        "suite_version": "synthetic",
        "settings": {"dtype": "float32"},
        "environment": {
            "host": "synthetic-demo-host",
            "backend": "cpu",
            "device_name": "SYNTHETIC demo CPU",
            "torch_version": "synthetic",
        },
        "compile_cache": {"state": "cold"},
        "ceilings": {"copy_gbps": 20.0, "matmul_tflops": 1.0, "matmul_dtype": "float32"},
        "results": results,
        "summary": {
            "n_kernels": len(results),
            "n_valid": len(results),
            "pass_rate": 1.0,
            "geomean_speedup": float(np.exp(np.mean(np.log(speedups)))),
            "geomean_speedup_clipped": float(np.exp(np.mean(np.log(np.maximum(speedups, 1.0))))),
        },
    }


def as_of(repo: RepoRecord, day: date) -> RepoRecord:
    """The repository as GitHub would have shown it on `day` (later stars, commits, releases
    removed)."""
    cutoff = datetime.combine(day + timedelta(days=1), datetime.min.time())
    return replace(
        repo,
        star_counts=[(d, n) for d, n in repo.star_counts if d <= day],
        commits=[c for c in repo.commits if c.committed_at < cutoff],
        releases=[r for r in repo.releases if r.published_at < cutoff],
    )
