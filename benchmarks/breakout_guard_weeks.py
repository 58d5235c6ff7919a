"""Evaluation: the breakout radar in the weeks the regime guard is on, against the other weeks.

Reads the predictions of a `star_breakout` walk-forward (`shu backtest --template star_breakout
--predictions PATH`) and the store it ran on (for each origin's regime distance), and prints for
guard-on and guard-off origins: Brier skill against the base rate known at the origin (outcomes
of origins 30-395 days before), how often the top 1/10/20/50 of each origin came true against
what they said, and, for guard-on origins, the Brier skill if every breakout forecast were held
towards that base rate by the guard's shrink (or by 0.5). The issue-19 finding that breakout
forecasts are not held back by the guard comes from this script (docs/forecast/method.md).

    .venv/bin/shu backtest --from 2020-01-01 --to 2026-01-15 --horizon 30 \\
        --template star_breakout --json --predictions /tmp/breakout.parquet --db STORE
    .venv/bin/python benchmarks/breakout_guard_weeks.py /tmp/breakout.parquet STORE
"""

from __future__ import annotations

import argparse
from datetime import timedelta
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
from scipy.special import expit, logit

from shu.forecast.calibration import guard as regime_guard
from shu.forecast.features.regime import regime_frame


def with_regime(pred: pd.DataFrame, store: Path) -> pd.DataFrame:
    """The resolved predictions with each origin's guard shrink and the base rate known then."""
    pred = pred[pred.outcome.notna()].copy()
    pred["origin"] = pd.to_datetime(pred["origin"])
    con = duckdb.connect(str(store), read_only=True)
    regime = regime_frame(con, sorted(pred.origin.dt.date.unique()))
    con.close()
    regime["origin"] = pd.to_datetime(regime["origin"])
    regime["shrink"] = [regime_guard.guard(d).shrink for d in regime["distance"]]
    pred = pred.merge(regime[["origin", "shrink"]], on="origin", how="left")
    per_origin = pred.groupby("origin").outcome.agg(["sum", "count"])
    base = {}
    for origin in per_origin.index:
        known = per_origin[
            (per_origin.index <= origin - timedelta(days=30))
            & (per_origin.index > origin - timedelta(days=395))
        ]
        base[origin] = known["sum"].sum() / known["count"].sum() if len(known) else np.nan
    pred["base_rate"] = pred.origin.map(base)
    return pred[pred.base_rate.notna()]


def report(name: str, d: pd.DataFrame) -> None:
    d = d.assign(rank=d.groupby("origin").probability.rank(ascending=False, method="first"))
    brier = ((d.probability - d.outcome) ** 2).mean()
    base = ((d.base_rate - d.outcome) ** 2).mean()
    print(
        f"{name}: {d.origin.nunique()} origins, n {len(d):,}, base rate {d.outcome.mean():.4f}, "
        f"Brier skill vs the base rate known then {1 - brier / base:+.4f}, "
        f"highest p {d.probability.max():.3f}"
    )
    for k in (1, 10, 20, 50):
        top = d[d["rank"] <= k]
        print(
            f"  top {k} of each origin: said {top.probability.mean():.3f}, "
            f"came true {top.outcome.mean():.3f}"
        )
    high = d[d.probability >= 0.2]
    if len(high):
        print(
            f"  p >= 0.2: n {len(high)}, said {high.probability.mean():.3f}, "
            f"came true {high.outcome.mean():.3f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("predictions", type=Path)
    parser.add_argument("store", type=Path)
    args = parser.parse_args()
    pred = with_regime(pd.read_parquet(args.predictions), args.store)
    on = pred[pred.shrink < 1]
    report("guard off", pred[pred.shrink >= 1])
    report("guard on", on)
    p = np.clip(on.probability.to_numpy(), 1e-6, 1 - 1e-6)
    b = np.clip(on.base_rate.to_numpy(), 1e-4, 1 - 1e-4)
    base = ((on.base_rate - on.outcome) ** 2).mean()
    for label, tau in (("the guard's shrink", on.shrink.to_numpy()), ("0.5", 0.5)):
        held = expit(logit(b) + tau * (logit(p) - logit(b)))
        print(
            f"  guard on, every breakout forecast held towards the base rate by {label}: "
            f"Brier skill {1 - ((held - on.outcome) ** 2).mean() / base:+.4f}"
        )


if __name__ == "__main__":
    main()
