"""A made-up market for the radar's tests: repositories at a steady pace each, some of which break
out now and then; the tracked one's counts run 10 days past the others'."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pandas as pd

from shu.testing.demo_sample import surging_rate

START = date(2023, 1, 1)
DAYS = 520
TRACKED = "mark/et-00"


def market(n_repos: int = 40, seed: int = 3) -> pd.DataFrame:
    """Daily stars of `n_repos` repositories: a steady pace each, and now and then (about one
    60-day window in six) a surge to 4-8 times that pace for 25-45 days, announced by a few
    days of a faster start; the last 10 days of the tracked one are newer than the others'."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(n_repos):
        rate = surging_rate(rng, DAYS, rng.uniform(2, 12), 0.3)
        stars = 1000 + np.cumsum(rng.poisson(rate))
        repo = f"mark/et-{r:02d}"
        last = DAYS if repo == TRACKED else DAYS - 10
        rows += [
            (repo, START + timedelta(days=i), int(stars[i]), 100 + i // 3) for i in range(last)
        ]
    return pd.DataFrame(rows, columns=["repo", "day", "stars", "forks"])
