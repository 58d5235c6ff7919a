"""Evaluation: would an ecosystem ROCm question have skill? Prints its walk-forward Brier skill.

The question, asked every day t: among the repositories the ROCm ecosystem index counts on both
t and t+H (their histories cover both 90-day windows), will more of them have ROCm commits in
the 90 days to t+H than in the 90 days to t? Repositories whose history ends before t+H are left
out of both counts (a copy that ends is not a repository that stopped); a day with fewer than 5
such repositories asks nothing. Features, as of t from the view `rocm_index` only: the share of
counted repositories with ROCm work, its change over 90 days, the share that did ROCm work once
but not in the last 90 days, the share of commits touching ROCm and its change over 90 days,
first-time adopters of the last year per counted repository.

Scored with the ROCm backtest's walk-forward (`rocm_backtest`: refit every 8 weeks, a 182-day
calibration block after the fitting block, purged by the horizon, logistic estimator; Brier
skill against the trailing year's base rate with a 95% block-bootstrap interval, blocks of one
calendar month). One series: successive days share most of their windows, so the interval is,
if anything, too narrow.

Usage:
  .venv/bin/python benchmarks/bench_rocm_ecosystem_question.py --store /tmp/i31/history.duckdb
(a store with the 38 histories: `shu ingest history ../shared/data/history --db STORE` then
`shu signals --db STORE`).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

from shu.forecast import rocm, rocm_backtest

FEATURES = [
    "active_share",
    "active_share_change_90d",
    "dormant_share",
    "rocm_share_90d",
    "rocm_share_change_90d",
    "adopters_365d_share",
]
MIN_REPOS = 5


class EcosystemExamples(rocm.RocmExamples):
    """The ecosystem question's resolved examples, with its own feature list."""

    @property
    def features(self) -> list[str]:
        return FEATURES


def examples(con: duckdb.DuckDBPyConnection, horizon: int) -> EcosystemExamples:
    """One resolved question per index day whose t+H is also an index day."""
    rows = con.execute(
        "SELECT repo, day, rocm_commits_90d > 0 AS active FROM rocm_index_repos"
    ).df()
    rows["day"] = pd.to_datetime(rows["day"])
    active = rows.pivot(index="day", columns="repo", values="active")
    index = con.execute("SELECT * FROM rocm_index ORDER BY day").df()
    index["day"] = pd.to_datetime(index["day"])
    index = index.set_index("day")
    out = []
    for t in active.index:
        later = t + pd.Timedelta(days=horizon)
        if later not in active.index:
            continue
        now, then = active.loc[t], active.loc[later]
        both = now.notna() & then.notna()
        if both.sum() < MIN_REPOS:
            continue
        n_now, n_then = int(now[both].astype(bool).sum()), int(then[both].astype(bool).sum())
        out.append((t, int(both.sum()), n_now, n_then))
    q = pd.DataFrame(out, columns=["origin", "repos_both", "active_now", "active_later"])
    q = q.set_index("origin")
    ago = q.index - pd.Timedelta(days=90)
    i = index.reindex(q.index)
    i90 = index.reindex(ago)
    q["active_share"] = (i["repos_rocm_90d"] / i["repos"]).to_numpy()
    q["active_share_change_90d"] = (
        q["active_share"] - (i90["repos_rocm_90d"] / i90["repos"]).to_numpy()
    )
    q["dormant_share"] = ((i["repos_ever_rocm"] - i["repos_rocm_90d"]) / i["repos"]).to_numpy()
    q["rocm_share_90d"] = i["rocm_share_90d"].to_numpy()
    q["rocm_share_change_90d"] = q["rocm_share_90d"] - i90["rocm_share_90d"].to_numpy()
    q["adopters_365d_share"] = (i["adopters_365d"] / i["repos"]).to_numpy()
    q = q.reset_index()
    q["repo"] = "ecosystem"
    q["label"] = (q["active_later"] > q["active_now"]).astype(np.int8)
    q["outcome"] = np.where(q["label"] == 1, "yes", "no")
    q["observed_value"] = (q["active_later"] - q["active_now"]).astype(float)
    q["threshold"] = 0.0
    q["bucket"] = 0
    q["known_on"] = q["origin"] + pd.Timedelta(days=horizon)
    q["acceleration_28d"] = np.nan
    q["velocity_28d"] = np.nan
    return EcosystemExamples("rocm_ecosystem_up", horizon, q, 0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=Path("/tmp/i31/history.duckdb"))
    args = parser.parse_args()
    if not args.store.exists():
        print(f"skipped: no store at {args.store} (see the usage in this file's docstring)")
        return 0
    con = duckdb.connect(str(args.store), read_only=True)
    for horizon in (30, 90):
        t0 = time.perf_counter()
        ex = examples(con, horizon)
        result = rocm_backtest._score(con, ex, rocm_backtest.DEFAULT, log=lambda *_: None)
        m = result.metrics
        if not m.get("n"):
            print(f"ecosystem/{horizon}: not scored -- {m.get('status')}")
            continue
        ci = m["ci95"]["bss_climatology"]
        print(
            f"ecosystem/{horizon}: n={m['n']:,} yes={m['n_yes']:,} base={m['base_rate']:.3f} "
            f"BSS_clim={m['bss_climatology']:.3f} [{ci['low']:.3f}, {ci['high']:.3f}] "
            f"ECE={m['ece']:.3f} ({time.perf_counter() - t0:.1f} s)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
