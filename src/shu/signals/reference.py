"""A straightforward pandas implementation of the signal definitions, used as the reference.

It is deliberately plain (dense daily grid per repository, `groupby().shift()` and
`groupby().rolling()`), slow on the full dataset, and independent of the SQL: tests check that
`star_signals` equals it, and `benchmarks/bench_signals.py` times the SQL against it.

Definitions (shu.schema.signals): stars(t) = latest observation at or before t; a day is fresh
when that observation is at most 7 days old; a w-day window [t-w, t] is defined when all its days
are fresh (w = 7, 28, 90; `gap` flags only the 7- and 28-day windows and their accelerations);
z-scores against the values of the trailing 365 days (t-364..t) with >= 28 values. The commit
signals and the ROCm ecosystem index's rows (`commit_signals_reference`, `rocm_index_reference`)
follow the same plan over commits (shu.schema.signals, shu.schema.rocm_index).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from shu.settings_tables import ROCM_PATTERN
from shu.signals.lifecycle import lifecycle_phase
from shu.signals.rocm_index import amd_own

FRESH_DAYS = 7
Z_WINDOW_DAYS = 365
# pandas' rolling std leaves a residue (seen up to ~1e-6) on windows of identical values that
# follow different ones, where the exact spread is 0 (no z-score). Velocities are multiples of
# 1/w, so a real spread over <= 365 values is at least (1/28)/sqrt(365) ~ 0.0019: anything under
# this threshold counts as none.
NO_SPREAD = 1e-4
Z_MIN_VALUES = 28
WINDOWS = (7, 28)


def star_signals_reference(
    stars_daily: pd.DataFrame, max_day: pd.Timestamp | None = None
) -> pd.DataFrame:
    """star_signals computed with pandas from (repo, day, stars) observations.

    Args:
        stars_daily: one row per observed (repo, day) with columns repo, day, stars.
        max_day: newest day of the dataset (grids never extend past it); default its max.
    """
    obs = stars_daily[["repo", "day", "stars"]].dropna(subset=["stars"]).copy()
    obs["day"] = pd.to_datetime(obs["day"])
    obs = obs.sort_values(["repo", "day"], kind="stable").reset_index(drop=True)
    max_day = pd.Timestamp(max_day) if max_day is not None else obs["day"].max()

    # dense daily grid per repository: first observation .. min(last + 7, max_day)
    bounds = obs.groupby("repo")["day"].agg(["min", "max"])
    ends = np.minimum(bounds["max"] + pd.Timedelta(days=FRESH_DAYS), max_day)
    lengths = ((ends - bounds["min"]).dt.days + 1).to_numpy()
    repos = np.repeat(bounds.index.to_numpy(), lengths)
    offsets = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    days = np.repeat(bounds["min"].to_numpy(), lengths) + offsets.astype("timedelta64[D]")
    grid = pd.DataFrame({"repo": repos, "day": days})

    # stars ASOF the day, and how old that observation is
    observed = obs.rename(columns={"day": "observed_on"})
    grid = pd.merge_asof(
        grid.sort_values("day"),
        observed.sort_values("observed_on"),
        left_on="day",
        right_on="observed_on",
        by="repo",
        direction="backward",
    )
    grid = grid.sort_values(["repo", "day"]).reset_index(drop=True)
    grid["stars_age_days"] = (grid["day"] - grid["observed_on"]).dt.days
    grid["fresh"] = grid["stars_age_days"] <= FRESH_DAYS
    grid["stars"] = grid["stars"].where(grid["fresh"]).astype(float)
    grid["position"] = grid.groupby("repo").cumcount()
    by_repo = grid.groupby("repo", sort=False)

    def all_fresh(span: int) -> pd.Series:
        """True where every day in [t-span, t] is fresh."""
        fresh_days = by_repo["fresh"].rolling(span + 1).sum().reset_index(level=0, drop=True)
        return fresh_days.sort_index() == span + 1

    gap = pd.Series(False, index=grid.index)
    for w in WINDOWS:
        ok = all_fresh(w)
        stars_w = by_repo["stars"].shift(w)
        grid[f"velocity_{w}d"] = ((grid["stars"] - stars_w) / w).where(ok)
        grid[f"acceleration_{w}d"] = grid[f"velocity_{w}d"] - by_repo[f"velocity_{w}d"].shift(w)
        for span in (w, 2 * w):
            gap |= (grid["position"] >= span) & ~all_fresh(span)
        rolling = by_repo[f"velocity_{w}d"].rolling(Z_WINDOW_DAYS, min_periods=1)
        mean = rolling.mean().reset_index(level=0, drop=True).sort_index()
        std = rolling.std().reset_index(level=0, drop=True).sort_index()
        count = rolling.count().reset_index(level=0, drop=True).sort_index()
        z = (grid[f"velocity_{w}d"] - mean) / std
        grid[f"velocity_{w}d_z"] = z.where((count >= Z_MIN_VALUES) & (std > NO_SPREAD))
    grid["velocity_90d"] = ((grid["stars"] - by_repo["stars"].shift(90)) / 90).where(all_fresh(90))
    grid["gap"] = gap
    out = grid[grid["fresh"]].copy()
    out["lifecycle_phase"] = [
        lifecycle_phase(s, v, a)
        for s, v, a in zip(out["stars"], out["velocity_28d"], out["acceleration_28d"], strict=True)
    ]
    return out[
        [
            "repo",
            "day",
            "stars",
            "stars_age_days",
            "velocity_7d",
            "velocity_28d",
            "velocity_90d",
            "acceleration_7d",
            "acceleration_28d",
            "velocity_7d_z",
            "velocity_28d_z",
            "gap",
            "lifecycle_phase",
        ]
    ].reset_index(drop=True)


def commit_signals_reference(commits: pd.DataFrame) -> pd.DataFrame:
    """commit_signals computed with pandas from `commits` rows (repo, committed_at, parents,
    is_mainline, touches_rocm): same counting rule, grid and windows as the SQL."""
    df = commits.dropna(subset=["committed_at"]).copy()
    knows = df.groupby("repo")["is_mainline"].transform(lambda s: s.notna().any())
    mainline = df["is_mainline"].astype("boolean").fillna(False).astype(bool)
    non_merge = df["parents"].fillna(1) <= 1
    newest = df.groupby("repo")["committed_at"].max().dt.normalize()
    df = df[np.where(knows, mainline, non_merge)]
    df["day"] = df["committed_at"].dt.normalize()
    df["rocm"] = df["touches_rocm"].astype("boolean").fillna(False).astype(int)
    frames = []
    for repo, g in df.groupby("repo"):
        days = pd.date_range(g["day"].min(), newest[repo], freq="D")
        daily = g.groupby("day").agg(commits_day=("rocm", "size"), rocm_day=("rocm", "sum"))
        daily = daily.reindex(days, fill_value=0)
        out = pd.DataFrame({"repo": repo, "day": days})
        out["commits_day"] = daily["commits_day"].to_numpy()
        out["commits"] = out["commits_day"].cumsum()
        rocm = daily["rocm_day"].cumsum().to_numpy()
        age = np.arange(len(out))
        for w in WINDOWS:
            v = (out["commits"] - out["commits"].shift(w)) / w
            out[f"commit_velocity_{w}d"] = v.where(age >= w)
            out[f"commit_acceleration_{w}d"] = out[f"commit_velocity_{w}d"] - out[
                f"commit_velocity_{w}d"
            ].shift(w)
            r = out[f"commit_velocity_{w}d"].rolling(Z_WINDOW_DAYS, min_periods=1)
            mean, std, count = r.mean(), r.std(), r.count()
            z = (out[f"commit_velocity_{w}d"] - mean) / std
            out[f"commit_velocity_{w}d_z"] = z.where((count >= Z_MIN_VALUES) & (std > NO_SPREAD))
        rocm_28 = pd.Series(rocm - pd.Series(rocm).shift(28).to_numpy())
        out["rocm_commits_28d"] = rocm_28.where(age >= 28).to_numpy()
        total_28 = out["commit_velocity_28d"] * 28
        out["rocm_share_28d"] = (out["rocm_commits_28d"] / total_28).where(total_28 > 0)
        out["gap"] = False
        frames.append(out)
    return pd.concat(frames, ignore_index=True)


ROCM_INDEX_WINDOW = 90
YEAR_DAYS = 365


def once_across_repos(counted: pd.DataFrame) -> pd.DataFrame:
    """Counted commits with each one copied across repositories kept once, where it landed
    first (committed_at, then the repository's name): the same sha, or the same author_id,
    authored_at and subject (where all three are known), as `commits.COUNTED_ONCE_SQL`."""
    df = counted.sort_values(["committed_at", "repo"], kind="stable").copy()
    keep = df.groupby("sha")["repo"].transform("first") == df["repo"]
    keys = [c for c in ("author_id", "authored_at", "subject") if c in df.columns]
    if len(keys) == 3:
        known = df[keys].notna().all(axis=1)
        first = df[known].groupby(keys)["repo"].transform("first")
        keep &= ~known | (first.reindex(df.index) == df["repo"])
    return df[keep].copy()


def rocm_index_reference(
    commits: pd.DataFrame, releases: pd.DataFrame | None = None
) -> pd.DataFrame:
    """rocm_index_repos computed with pandas from `commits` rows (repo, sha, committed_at,
    parents, is_mainline, author_is_bot, touches_rocm) and `releases` rows (repo, name, body,
    published_at; author_id, authored_at and subject where known): the counting rule of
    commit_signals with copies across repositories counted once (`once_across_repos`), a row per
    day whose 90-day window the repository's history covers, first ROCm commit and first-time
    adoption as in the SQL."""
    df = commits.dropna(subset=["committed_at"]).copy()
    knows = df.groupby("repo")["is_mainline"].transform(lambda s: s.notna().any())
    mainline = df["is_mainline"].astype("boolean").fillna(False).astype(bool)
    non_merge = df["parents"].fillna(1) <= 1
    newest = df.groupby("repo")["committed_at"].max().dt.normalize()
    df = once_across_repos(df[np.where(knows, mainline, non_merge)])
    df["day"] = df["committed_at"].dt.normalize()
    df["rocm"] = df["touches_rocm"].astype("boolean").fillna(False).astype(bool)
    df["human"] = ~df["author_is_bot"].astype("boolean").fillna(False).astype(bool)
    pattern = re.compile(ROCM_PATTERN, re.IGNORECASE)
    rocm_release_days: dict[str, pd.Series] = {}
    if releases is not None and len(releases):
        rel = releases.dropna(subset=["published_at"]).copy()
        text = rel["name"].fillna("") + "\n" + rel["body"].fillna("")
        rel = rel[[bool(pattern.search(t)) for t in text]]
        rel["day"] = pd.to_datetime(rel["published_at"]).dt.normalize()
        rocm_release_days = {r: g.groupby("day").size() for r, g in rel.groupby("repo")}
    frames = []
    w = ROCM_INDEX_WINDOW
    for repo, g in df.groupby("repo"):
        first_day = g["day"].min()
        days = pd.date_range(first_day, newest[repo], freq="D")
        g = g.assign(
            rocm_i=g["rocm"].astype(int),
            human_i=g["human"].astype(int),
            human_rocm_i=(g["rocm"] & g["human"]).astype(int),
        )
        daily = g.groupby("day")[["rocm_i", "human_i", "human_rocm_i"]].sum()
        daily["n"] = g.groupby("day").size()
        daily = daily.reindex(days, fill_value=0)
        out = pd.DataFrame({"repo": repo, "day": days})
        for column, source in (
            ("commits_90d", "n"),
            ("rocm_commits_90d", "rocm_i"),
            ("nonbot_commits_90d", "human_i"),
            ("nonbot_rocm_commits_90d", "human_rocm_i"),
        ):
            out[column] = daily[source].rolling(w, min_periods=1).sum().to_numpy().astype(int)
        releases_day = rocm_release_days.get(repo, pd.Series(dtype=int)).reindex(days).fillna(0)
        out["rocm_releases_365d"] = (
            releases_day.rolling(YEAR_DAYS, min_periods=1).sum().to_numpy().astype(int)
        )
        rocm_rows = g[g["rocm"]].sort_values(["committed_at", "sha"])
        first_rocm = rocm_rows["day"].iloc[0] if len(rocm_rows) else None
        landed = out["day"] >= first_rocm if first_rocm is not None else out["day"] < first_day
        out["first_rocm_day"] = pd.Series(first_rocm, index=out.index).where(landed)
        out["first_rocm_sha"] = pd.Series(
            rocm_rows["sha"].iloc[0] if len(rocm_rows) else None, index=out.index, dtype=object
        ).where(landed)
        adopted = first_rocm is not None and first_rocm >= first_day + pd.Timedelta(days=w - 1)
        out["first_time_adopter"] = landed & adopted
        out["amd_own"] = amd_own(str(repo))
        frames.append(out[out["day"] >= first_day + pd.Timedelta(days=w - 1)])
    if not frames:
        return pd.DataFrame()
    return pd.concat(frames, ignore_index=True)


def rocm_index_from_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """The view rocm_index computed with pandas from rocm_index_repos rows."""
    r = rows.assign(
        rocm_90d=rows["rocm_commits_90d"] > 0,
        ever=rows["first_rocm_day"].notna(),
        release=rows["rocm_releases_365d"] > 0,
        adopted_90d=rows["first_time_adopter"].astype(bool)
        & (rows["first_rocm_day"] > rows["day"] - pd.Timedelta(days=ROCM_INDEX_WINDOW)),
        adopted_365d=rows["first_time_adopter"].astype(bool)
        & (rows["first_rocm_day"] > rows["day"] - pd.Timedelta(days=YEAR_DAYS)),
    )
    out = r.groupby("day").agg(
        repos=("repo", "size"),
        repos_rocm_90d=("rocm_90d", "sum"),
        repos_ever_rocm=("ever", "sum"),
        commits_90d=("commits_90d", "sum"),
        rocm_commits_90d=("rocm_commits_90d", "sum"),
        nonbot_commits_90d=("nonbot_commits_90d", "sum"),
        nonbot_rocm_commits_90d=("nonbot_rocm_commits_90d", "sum"),
        repos_rocm_release_365d=("release", "sum"),
        adopters_90d=("adopted_90d", "sum"),
        adopters_365d=("adopted_365d", "sum"),
        amd_repos=("amd_own", "sum"),
    )
    third = r[~r["amd_own"].astype(bool)].groupby("day")
    out["third_party_repos_rocm_90d"] = third["rocm_90d"].sum().reindex(out.index).fillna(0)
    out["third_party_commits_90d"] = third["commits_90d"].sum().reindex(out.index).fillna(0)
    out["third_party_rocm_commits_90d"] = (
        third["rocm_commits_90d"].sum().reindex(out.index).fillna(0)
    )
    out["third_party_rocm_share_90d"] = out["third_party_rocm_commits_90d"] / out[
        "third_party_commits_90d"
    ].where(out["third_party_commits_90d"] > 0)
    out["rocm_share_90d"] = out["rocm_commits_90d"] / out["commits_90d"].where(
        out["commits_90d"] > 0
    )
    out["nonbot_rocm_share_90d"] = out["nonbot_rocm_commits_90d"] / out["nonbot_commits_90d"].where(
        out["nonbot_commits_90d"] > 0
    )
    return out.reset_index()
