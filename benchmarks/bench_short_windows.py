"""Evaluation: how the issue's targets set on a short window of origins (the PIT on the
walk-forward's last 12 months, the radar's top on 32 origins) vary for forecasts that hold them
over the whole walk-forward, and whether an online recalibration of the distribution brings the
PIT inside on the window.

Reads a cache written by `bench_distribution.py` (the whole walk-forward) and, for the origins
from --since on (default 2025-02-05: the walk-forward's last 12 months), prints:

1. per velocity band, the randomised PIT deciles of F on the window, each with a 95% interval
   from a bootstrap over the window's origin months (outcomes of one month share the market's
   moves, so the month is the unit that varies);
2. per origin month of the window, per band, the share of outcomes below F's 10% point and
   above its 90% point;
3. over the whole walk-forward, every run of as many consecutive origins as the window holds
   (one every 4 origins): how many keep every decile of every band within 0.08-0.12 (what the
   window is held to), while the whole walk-forward does;
4. an online recalibration of F itself, tried for it: per band, adaptive conformal levels
   (the quantile-tracking update of `calibration.conformal`, on F's randomised PIT of the
   questions resolved by each origin) applied to F, so the yes/no answers read from F move too;
   for each step size, the PIT deciles' range per band and the Brier skill of
   star_velocity_up/30 and star_velocity_level/30 (against climatology; per band against the
   band's own) on the window and on the whole walk-forward;
5. the radar (star_breakout/30): each origin's top 10 / top 20 mean stated probability minus
   the rate that came true, averaged over every run of --radar-origins consecutive origins of
   the whole walk-forward: how many runs keep it within 0.02 (the issue's target on its 32
   origins), its 5th-95th percentiles over runs, and the last run;
6. an online tail factor for the radar, tried for the window: at each origin, the breakout
   model's unshrunk answers above the knee (the top 5% of the answers resolved in the last
   --tail-weeks weeks, 30 days old at least) are shrunk by (came true - knee) / (said - knee)
   over those resolved answers, capped at 1 or 1.5; per variant, Brier skill (whole, and the
   last --radar-origins origins against their own rate) and item 5's figures, against the
   shipped per-refit factor and no shrink.

Usage:
  .venv/bin/python benchmarks/bench_short_windows.py --cache /tmp/shu-bench/distribution-all
      [--since 2025-02-05] [--steps 0.02 0.05 0.15] [--radar-origins 32]
      [--tail-weeks 13 26 52]
"""

from __future__ import annotations

import argparse
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd
from bench_distribution import pit_parts

from shu.forecast.evaluation.scoring import brier, skill_score
from shu.forecast.models.tail import TAIL_SHARE

BANDS = ("<1", "1-5", "5-20", ">=20")
HORIZON = pd.Timedelta(days=30)
LO, HI = 0.08, 0.12  # the bounds every PIT decile is held to
SEVEN = np.asarray([0.025, 0.1, 0.25, 0.5, 0.75, 0.9, 0.975])  # levels the recalibration moves


def deciles(pit: np.ndarray) -> np.ndarray:
    """The share of `pit` in each tenth of [0, 1]."""
    return np.histogram(np.clip(pit, 0, 1 - 1e-12), bins=10, range=(0, 1))[0] / max(len(pit), 1)


def load(cache: Path) -> pd.DataFrame:
    """One row per interval forecast: origin, band, outcome, F's P(V < y) and P(V <= y), and
    its randomised PIT (the same draw as `bench_distribution.py`)."""
    from shu.forecast.models.interval import DIST_LEVELS, velocity_band

    iv = pd.read_parquet(cache / "star_velocity_interval.parquet")
    fq = iv[[f"d{a}" for a in DIST_LEVELS]].to_numpy()
    observed = iv["observed_value"].to_numpy(dtype=float)
    hi, lo, u = pit_parts(DIST_LEVELS, fq, list(iv["anchor_x"]), list(iv["anchor_cdf"]), observed)
    return pd.DataFrame(
        {
            "origin": pd.to_datetime(iv["origin"]),
            "band": velocity_band(iv["velocity_28d"].to_numpy()),
            "lo": lo,
            "hi": hi,
            "u": u,
            "pit": lo + u * (hi - lo),
        }
    )


def bootstrap(window: pd.DataFrame, reps: int = 2000) -> None:
    """Item 1: deciles per band with a 95% interval over resampled origin months."""
    month = window["origin"].dt.strftime("%Y-%m").to_numpy()
    months = np.unique(month)
    rng = np.random.default_rng(0)
    print(
        f"\n== 1. randomised PIT deciles on the window, 95% interval over its {len(months)} "
        "origin months =="
    )
    for k, name in enumerate(BANDS):
        mine = window["band"].to_numpy() == k
        pit, mon = window["pit"].to_numpy()[mine], month[mine]
        counts = np.array([np.histogram(pit[mon == m], bins=10, range=(0, 1))[0] for m in months])
        draws = rng.integers(0, len(months), size=(reps, len(months)))
        picked = counts[draws].sum(axis=1)
        shares = picked / picked.sum(axis=1, keepdims=True)
        low, high = np.percentile(shares, [2.5, 97.5], axis=0)
        point = deciles(pit)
        cells = " ".join(
            f"{p:.3f}[{a:.3f},{b:.3f}]" for p, a, b in zip(point, low, high, strict=True)
        )
        print(f"  {name:>5} (n {mine.sum():,}): {cells}")


def by_month(window: pd.DataFrame) -> None:
    """Item 2: the two outer deciles per origin month and band."""
    print("\n== 2. per origin month: share below F's 10% point / above its 90% point, per band ==")
    frame = window.assign(month=window["origin"].dt.strftime("%Y-%m"))
    print("  month    origins " + " ".join(f"{b:>13}" for b in BANDS))
    for m, g in frame.groupby("month"):
        cells = []
        for k in range(len(BANDS)):
            p = g["pit"].to_numpy()[g["band"].to_numpy() == k]
            cells.append(f"{np.mean(p < 0.1):.3f}/{np.mean(p >= 0.9):.3f}" if len(p) else "-")
        print(f"  {m}  {g['origin'].nunique():>7} " + " ".join(f"{c:>13}" for c in cells))


def worst_miss(frame: pd.DataFrame) -> float:
    """How far the worst PIT decile of any band is outside LO-HI (negative: inside by that)."""
    miss = -1.0
    for k in range(len(BANDS)):
        d = deciles(frame["pit"].to_numpy()[frame["band"].to_numpy() == k])
        miss = max(miss, d.max() - HI, LO - d.min())
    return miss


def runs(whole: pd.DataFrame, window: pd.DataFrame) -> None:
    """Item 3: runs of as many consecutive origins as `window` over the whole walk-forward."""
    length = window["origin"].nunique()
    origins = np.sort(whole["origin"].unique())
    worst = np.array(
        [
            worst_miss(whole[whole["origin"].isin(origins[s : s + length])])
            for s in range(0, len(origins) - length + 1, 4)
        ]
    )
    mine = worst_miss(window)
    print(
        f"\n== 3. runs of {length} consecutive origins over the whole walk-forward "
        f"({len(origins)} origins) ==\n  {np.sum(worst <= 0)} of {len(worst)} keep every decile "
        f"of every band within {LO}-{HI}; the worst decile of a run misses by a median of "
        f"{np.median(worst):+.3f} (negative: inside by that much); the window's {mine:+.3f} "
        f"is reached or passed by {np.mean(worst >= mine):.0%} of runs"
    )


def _map(p: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """The recalibrated CDF value of F's `p`: F's quantile at each tracked level is issued as
    the nominal level's, linear between them."""
    return np.interp(p, np.r_[0.0, np.maximum.accumulate(levels), 1.0], np.r_[0.0, SEVEN, 1.0])


def track(whole: pd.DataFrame, step: float) -> dict[pd.Timestamp, np.ndarray]:
    """Per origin, the levels (band x SEVEN) an online recalibration of F issues, updated from
    the PIT of every question resolved by that origin (30 days after its own)."""
    levels = np.tile(SEVEN, (len(BANDS), 1))
    resolved = whole["origin"] + HORIZON
    read_through = pd.Timestamp.min
    out = {}
    for origin in np.sort(whole["origin"].unique()):
        fresh = whole[(resolved <= origin) & (resolved > read_through)]
        if len(fresh):
            read_through = (fresh["origin"] + HORIZON).max()
            for k in range(len(BANDS)):
                p = fresh["pit"].to_numpy()[fresh["band"].to_numpy() == k]
                if len(p) >= 20:
                    below = (p[:, None] <= levels[k][None, :]).mean(axis=0)
                    levels[k] = np.clip(levels[k] - step * (below - SEVEN), 0.001, 0.999)
        out[pd.Timestamp(origin)] = levels.copy()
    return out


def recalibrated(frame: pd.DataFrame, levels: dict, column: str | None = None) -> np.ndarray:
    """The randomised PIT after the recalibration (column None), or 1 - the recalibrated
    CDF at 1 - `column` (a yes/no answer P(V > x) read from F)."""
    out = np.empty(len(frame))
    band = frame["band"].to_numpy()
    for origin, idx in frame.groupby("origin").indices.items():
        for k in range(len(BANDS)):
            i = idx[band[idx] == k]
            if not len(i):
                continue
            at = levels[pd.Timestamp(origin)][k]
            if column is None:
                lo = _map(frame["lo"].to_numpy()[i], at)
                hi = _map(frame["hi"].to_numpy()[i], at)
                out[i] = lo + frame["u"].to_numpy()[i] * (hi - lo)
            else:
                out[i] = 1 - _map(1 - frame[column].to_numpy()[i], at)
    return out


def _rate_brier(y: np.ndarray) -> float:
    """The Brier score of forecasting the sample's own rate of yes for every question."""
    return brier(y, np.full_like(y, y.mean()))


def skill(p: np.ndarray, asked: pd.DataFrame) -> str:
    """Brier skill against climatology, then per band against the band's own rate."""
    y = asked["label"].to_numpy(dtype=float)
    clim = asked["climatology"].to_numpy(dtype=float)
    text = f"{skill_score(brier(y, p), brier(y, clim)):.4f} ("
    band = asked["band"].to_numpy()
    per = []
    for k in range(len(BANDS)):
        s = band == k
        per.append(f"{skill_score(brier(y[s], p[s]), _rate_brier(y[s])):.4f}")
    return text + " / ".join(per) + ")"


def online(whole: pd.DataFrame, cache: Path, since: pd.Timestamp, steps: list[float]) -> None:
    """Item 4: the online recalibration of F at each step, against F as it is (step 0)."""
    from shu.forecast.models.interval import velocity_band

    asked = {}
    for t in ("star_velocity_up", "star_velocity_level"):
        p = pd.read_parquet(
            cache / f"{t}.parquet",
            columns=["origin", "velocity_28d", "label", "probability", "climatology"],
        )
        p["origin"] = pd.to_datetime(p["origin"])
        p["band"] = velocity_band(p["velocity_28d"].to_numpy())
        asked[t] = p
    print(
        "\n== 4. online recalibration of F per band (adaptive conformal levels on F's own PIT) "
        "==\n  PIT decile range per band <1 / 1-5 / 5-20 / >=20; Brier skill vs climatology "
        "(per band vs the band's own rate)"
    )
    for step in [0.0, *steps]:
        levels = track(whole, step)
        for label, frame in (
            ("window", whole[whole["origin"] >= since].reset_index(drop=True)),
            ("whole ", whole),
        ):
            pit = frame["pit"].to_numpy() if step == 0 else recalibrated(frame, levels)
            ranges = " / ".join(
                f"{d.min():.3f}-{d.max():.3f}"
                for d in (deciles(pit[frame["band"].to_numpy() == k]) for k in range(len(BANDS)))
            )
            line = f"  step {step:<4} {label}: PIT {ranges}"
            for t, p in asked.items():
                sub = p[p["origin"] >= since] if label == "window" else p
                sub = sub.reset_index(drop=True)
                q = (
                    sub["probability"].to_numpy()
                    if step == 0
                    else recalibrated(sub, levels, "probability")
                )
                line += f"\n      {t}: {skill(q, sub)}"
            print(line)


def radar(cache: Path, length: int) -> None:
    """Item 5: the top of the radar's ranking over runs of `length` consecutive origins."""
    b = pd.read_parquet(
        cache / "star_breakout.parquet", columns=["repo", "origin", "probability", "label"]
    )
    print(
        f"\n== 5. the radar's top: said minus came true, over runs of {length} "
        "consecutive origins =="
    )
    for k in (10, 20):
        gap = _top_gaps(b, "probability", k)
        runs = np.array([gap[s : s + length].mean() for s in range(len(gap) - length + 1)])
        low, high = np.percentile(runs, [5, 95])
        print(
            f"  top {k}: whole walk-forward {gap.mean():+.3f} over {len(gap)} origins; "
            f"{np.mean(np.abs(runs) <= 0.02):.0%} of {len(runs)} runs within 0.02; "
            f"5th-95th percentile {low:+.3f} to {high:+.3f}; the last run {runs[-1]:+.3f}"
        )


def _top_gaps(b: pd.DataFrame, column: str, k: int) -> np.ndarray:
    """Per origin (in order), the mean of `column` over its top `k` minus their outcome rate."""
    top = b.sort_values([column, "repo"], ascending=[False, True]).groupby("origin").head(k)
    per = top.groupby("origin").agg(said=(column, "mean"), seen=("label", "mean"))
    return (per["said"] - per["seen"]).sort_index().to_numpy()


def online_tail(b: pd.DataFrame, weeks: int, cap: float) -> np.ndarray:
    """Item 6: the radar's answers with a tail factor tracked from resolved answers."""
    out = b["probability_untailed"].to_numpy(dtype=float).copy()
    resolved = b["origin"] + HORIZON
    at = b.groupby("origin").indices
    for origin in np.sort(b["origin"].unique()):
        past = b[(resolved <= origin) & (resolved > origin - pd.Timedelta(weeks=weeks))]
        if len(past) < 1000:
            continue
        knee = np.quantile(past["probability_untailed"], 1 - TAIL_SHARE)
        top = past[past["probability_untailed"] > knee]
        said, seen = top["probability_untailed"].mean(), top["label"].mean()
        factor = np.clip((seen - knee) / (said - knee), 0, cap) if said > knee else 1.0
        i = at[origin]
        out[i] = np.where(out[i] > knee, knee + factor * (out[i] - knee), out[i])
    return out


def radar_online(cache: Path, length: int, weeks: list[int]) -> None:
    """Item 6 against the shipped factor and no shrink."""
    b = pd.read_parquet(
        cache / "star_breakout.parquet",
        columns=["repo", "origin", "probability", "probability_untailed", "label"],
    )
    b["origin"] = pd.to_datetime(b["origin"])
    y = b["label"].to_numpy(dtype=float)
    last = (b["origin"] >= np.sort(b["origin"].unique())[-length]).to_numpy()
    print(
        f"\n== 6. the radar with an online tail factor: Brier skill whole / last {length} "
        f"origins; top 10 and top 20 said minus came true, whole / last {length} / share of "
        f"runs of {length} within 0.02 =="
    )
    variants = [
        ("shipped (each refit's factor)", b["probability"].to_numpy(dtype=float)),
        ("no shrink", b["probability_untailed"].to_numpy(dtype=float)),
    ] + [
        (f"online, {w} weeks, cap {cap}", online_tail(b, w, cap))
        for w in weeks
        for cap in (1.0, 1.5)
    ]
    for name, p in variants:
        whole = skill_score(brier(y, p), _rate_brier(y))
        recent = skill_score(brier(y[last], p[last]), _rate_brier(y[last]))
        line = f"  {name:<30} {whole:.4f} / {recent:.4f}"
        for k in (10, 20):
            gap = _top_gaps(b.assign(p=p), "p", k)
            runs = np.array([gap[s : s + length].mean() for s in range(len(gap) - length + 1)])
            line += (
                f"; top {k} {gap.mean():+.3f} / {gap[-length:].mean():+.3f} / "
                f"{np.mean(np.abs(runs) <= 0.02):.0%}"
            )
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, required=True, help="bench_distribution.py's cache")
    parser.add_argument("--since", type=date.fromisoformat, default=date(2025, 2, 5))
    parser.add_argument("--steps", type=float, nargs="*", default=[0.02, 0.05, 0.15])
    parser.add_argument("--radar-origins", type=int, default=32)
    parser.add_argument("--tail-weeks", type=int, nargs="*", default=[13, 26, 52])
    args = parser.parse_args()
    whole = load(args.cache)
    since = pd.Timestamp(args.since)
    window = whole[whole["origin"] >= since].reset_index(drop=True)
    print(
        f"window: {window['origin'].nunique()} origins from {since.date()} "
        f"({len(window):,} outcomes); whole walk-forward {whole['origin'].nunique()} origins"
    )
    bootstrap(window)
    by_month(window)
    runs(whole, window)
    online(whole, args.cache, since, args.steps)
    radar(args.cache, args.radar_origins)
    radar_online(args.cache, args.radar_origins, args.tail_weeks)


if __name__ == "__main__":
    main()
