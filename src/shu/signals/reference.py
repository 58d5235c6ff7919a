"""A straightforward pandas implementation of the star-signal definitions, used as the reference.

It is deliberately plain (dense daily grid per repository, `groupby().shift()` and
`groupby().rolling()`), slow on the full dataset, and independent of the SQL: tests check that
`star_signals` equals it, and `benchmarks/bench_signals.py` times the SQL against it.

Definitions (shu.schema.signals): stars(t) = latest observation at or before t; a day is fresh
when that observation is at most 7 days old; a w-day window [t-w, t] is defined when all its days
are fresh (w = 7, 28, 90; `gap` flags only the 7- and 28-day windows and their accelerations);
z-scores against the values of the trailing 365 days (t-364..t) with >= 28 values.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from shu.signals.lifecycle import lifecycle_phase

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
            out[f"velocity_{w}d"] = v.where(age >= w)
            out[f"acceleration_{w}d"] = out[f"velocity_{w}d"] - out[f"velocity_{w}d"].shift(w)
            r = out[f"velocity_{w}d"].rolling(Z_WINDOW_DAYS, min_periods=1)
            mean, std, count = r.mean(), r.std(), r.count()
            z = (out[f"velocity_{w}d"] - mean) / std
            out[f"velocity_{w}d_z"] = z.where((count >= Z_MIN_VALUES) & (std > NO_SPREAD))
        rocm_28 = pd.Series(rocm - pd.Series(rocm).shift(28).to_numpy())
        out["rocm_commits_28d"] = rocm_28.where(age >= 28).to_numpy()
        total_28 = out["velocity_28d"] * 28
        out["rocm_share_28d"] = (out["rocm_commits_28d"] / total_28).where(total_28 > 0)
        out["gap"] = False
        frames.append(out)
    return pd.concat(frames, ignore_index=True)
