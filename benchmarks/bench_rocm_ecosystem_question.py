"""Evaluation: would an ecosystem ROCm question have skill? Prints its walk-forward Brier skill.

The question, asked every day t: among the repositories the ROCm ecosystem index counts on both
t and t+H (their histories cover both 90-day windows), will more of them have ROCm commits in
the 90 days to t+H than in the 90 days to t? Repositories whose history ends before t+H are left
out of both counts (a copy that ends is not a repository that stopped); a day with fewer than 5
such repositories asks nothing. Features, as of t from the view `rocm_index` only: the share of
counted repositories with ROCm work, its change over 90 days, the share that did ROCm work once
but not in the last 90 days, the share of commits touching ROCm and its change over 90 days,
first-time adopters of the last year per counted repository.

Scored like the ROCm backtest (`evaluation.rocm_backtest`): refit every 8 weeks on the
fitting/calibration split `shu train` uses (a 182-day calibration block after the fitting block,
purged by the horizon), logistic estimator with sigmoid calibration; Brier skill against the
trailing year's base rate with a 95% block-bootstrap interval, blocks of one calendar month. One
series: successive days share most of their windows, so the interval is, if anything, too
narrow.

`--without-amd` asks the same question with AMD's own ROCm repositories left out of it and of
the features (the index's `third_party_*` columns).

Usage:
  .venv/bin/python benchmarks/bench_rocm_ecosystem_question.py --store /tmp/i31/history.duckdb
      [--without-amd]
(a store with the 38 histories: `shu ingest history ../shared/data/history --db STORE` then
`shu signals --db STORE`).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

from shu.forecast.base_rates import climatology
from shu.forecast.evaluation.rocm_backtest import DEFAULT, MIN_CAL_ROWS, MIN_FIT_ROWS
from shu.forecast.evaluation.scoring import summarize
from shu.forecast.evaluation.walk_forward import refit_blocks
from shu.forecast.features.examples import Examples
from shu.forecast.models.estimator import make_estimator, model_matrix
from shu.forecast.models.platt import calibrate

FEATURES = [
    "active_share",
    "active_share_change_90d",
    "dormant_share",
    "rocm_share_90d",
    "rocm_share_change_90d",
    "adopters_365d_share",
]
MIN_REPOS = 5


def examples(
    con: duckdb.DuckDBPyConnection, horizon: int, without_amd: bool = False
) -> pd.DataFrame:
    """One resolved question per index day whose t+H is also an index day; `without_amd`:
    AMD's own ROCm repositories are left out of the question and of the features."""
    rows = con.execute(
        "SELECT repo, day, rocm_commits_90d > 0 AS active FROM rocm_index_repos"
        + (" WHERE NOT amd_own" if without_amd else "")
    ).df()
    rows["day"] = pd.to_datetime(rows["day"])
    active = rows.pivot(index="day", columns="repo", values="active")
    index = con.execute("SELECT * FROM rocm_index ORDER BY day").df()
    index["day"] = pd.to_datetime(index["day"])
    if without_amd:
        amd = con.execute(
            "SELECT day, count(*) FILTER (WHERE first_rocm_day IS NOT NULL) AS amd_ever "
            "FROM rocm_index_repos WHERE amd_own GROUP BY day"
        ).df()
        amd["day"] = pd.to_datetime(amd["day"])
        index = index.merge(amd, on="day", how="left").fillna({"amd_ever": 0})
        index["repos_ever_rocm"] = index["repos_ever_rocm"] - index["amd_ever"]
        index["repos"] = index["repos"] - index["amd_repos"]
        index["repos_rocm_90d"] = index["third_party_repos_rocm_90d"]
        index["rocm_share_90d"] = index["third_party_rocm_share_90d"]
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
    return q


def walk_forward(ex: pd.DataFrame, horizon: int) -> pd.DataFrame:
    """Each origin from DEFAULT.start on, predicted by the model of its 8-week refit block (the
    backtest's one walk-forward loop, `walk_forward.refit_blocks`, over the rows with every
    feature)."""
    config = replace(DEFAULT, end=pd.Timestamp(ex["origin"].max()).date())
    rows = Examples("ecosystem", horizon, ex.dropna(subset=FEATURES), 0)
    out = []
    for block in refit_blocks(rows, config):
        fit, cal, test = block.fit, block.cal, block.test
        if (
            len(fit) >= MIN_FIT_ROWS
            and len(cal) >= MIN_CAL_ROWS
            and fit["label"].nunique() == 2
            and cal["label"].nunique() == 2
        ):
            est = make_estimator("logistic", DEFAULT.seed)
            est.fit(model_matrix(fit, FEATURES), fit["label"].to_numpy())
            model = calibrate(
                est,
                model_matrix(cal, FEATURES),
                cal["label"].to_numpy(),
                DEFAULT.calibration_method,
            )
            test = test.copy()
            test["probability"] = model.predict_proba(model_matrix(test, FEATURES))[:, 1]
            out.append(test)
    return pd.concat(out, ignore_index=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=Path("/tmp/i31/history.duckdb"))
    parser.add_argument(
        "--without-amd",
        action="store_true",
        help="leave AMD's own ROCm repositories out of the question and the features",
    )
    args = parser.parse_args()
    if not args.store.exists():
        print(f"skipped: no store at {args.store} (see the usage in this file's docstring)")
        return 0
    con = duckdb.connect(str(args.store), read_only=True)
    for horizon in (30, 90):
        t0 = time.perf_counter()
        ex = examples(con, horizon, args.without_amd)
        pred = walk_forward(ex, horizon)
        clim = climatology(ex, pred)
        blocks = pred["origin"].dt.strftime("%Y-%m").to_numpy()
        labels = pred["label"].to_numpy()
        m = summarize(labels, pred["probability"].to_numpy(), clim, clim, blocks, n_boot=300)
        ci = m["ci95"]["bss_climatology"]
        print(
            f"ecosystem{'-without-amd' if args.without_amd else ''}/{horizon}: "
            f"n={m['n']:,} yes={int(labels.sum()):,} "
            f"base={m['base_rate']:.3f} "
            f"BSS_clim={m['bss_climatology']:.3f} [{ci['low']:.3f}, {ci['high']:.3f}] "
            f"ECE={m['ece']:.3f} ({time.perf_counter() - t0:.1f} s)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
