"""Synthetic star_signals for the forecast tests: rows written from known star series by the
documented definitions, so a test knows the answers its forecasts should reach.

Shared by tests/unit/forecast and the forecast tests in tests/integration: both folders'
conftest.py import the fixtures `synthetic` and `synthetic_store` from here, and test modules
import the helpers as `support.forecast_data`."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from shu.signals.lifecycle import lifecycle_phase
from shu.signals.star_days import refresh_star_days
from shu.store import Store

FIRST_DAY = date(2023, 1, 1)
N_DAYS = 420


def signals_from_stars(repo: str, stars: np.ndarray, first: date = FIRST_DAY) -> pd.DataFrame:
    """star_signals rows for a gap-free daily series, by the documented definitions."""
    s = pd.Series(stars, dtype="float64")
    v7 = (s - s.shift(7)) / 7
    v28 = (s - s.shift(28)) / 28
    roll = v28.rolling(365, min_periods=2)
    roll7 = v7.rolling(365, min_periods=2)
    a28 = v28 - v28.shift(28)
    phases = [
        lifecycle_phase(
            float(n), None if np.isnan(v) else float(v), None if np.isnan(a) else float(a)
        )
        for n, v, a in zip(s, v28, a28, strict=True)
    ]
    return pd.DataFrame(
        {
            "repo": repo,
            "day": [first + timedelta(days=i) for i in range(len(s))],
            "stars": s.astype("int64"),
            "velocity_7d": v7,
            "velocity_28d": v28,
            "velocity_90d": (s - s.shift(90)) / 90,
            "acceleration_7d": v7 - v7.shift(7),
            "acceleration_28d": a28,
            "velocity_7d_z": (v7 - roll7.mean()) / roll7.std(),
            "velocity_28d_z": (v28 - roll.mean()) / roll.std(),
            "gap": False,
            "lifecycle_phase": phases,
        }
    )


def synthetic_signals(n_repos: int = 24, n_days: int = N_DAYS, seed: int = 7) -> pd.DataFrame:
    """Star series whose daily gains follow a mean-reverting random walk (seeded)."""
    rng = np.random.default_rng(seed)
    frames = []
    for r in range(n_repos):
        level = rng.uniform(2, 40)
        rate, rates = level, []
        for _ in range(n_days):
            rate = max(0.0, rate + 0.05 * (level - rate) + rng.normal(0, level * 0.08))
            rates.append(rate)
        stars = np.floor(1000 + np.cumsum(rng.poisson(np.array(rates))))
        frames.append(signals_from_stars(f"org{r:02d}/repo{r:02d}", stars))
    return pd.concat(frames, ignore_index=True)


def labelled_frame(n: int, seed: int) -> pd.DataFrame:
    """`n` rows of three normal features (every ninth `b` missing) and a noisy yes/no label that
    follows `a`: data for fitting the estimators."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3))
    x[::9, 1] = np.nan
    y = (x[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "c": x[:, 2], "label": y})


@pytest.fixture
def synthetic() -> pd.DataFrame:
    """The synthetic star_signals frame (the known answers)."""
    return synthetic_signals()


@pytest.fixture
def synthetic_store(store: Store, synthetic: pd.DataFrame) -> Store:
    """The `store` fixture filled with the synthetic star_signals."""
    store.upsert("star_signals", synthetic)
    refresh_star_days(store)
    return store


def backtest_bound_case(store: Store, origin_index: int = 180) -> dict:
    """A store with two repositories growing 3 stars a day and, as a backtest holds them before
    reading from the one distribution (`one_distribution.read_from_distribution`, `hold_to_bounds`),
    hand-built predictions on one origin t: the interval's distribution of V(t+H) normal around
    3 stars/day (sd 0.5) for "a/one" only, and per (template, horizon) the questions asked with
    the models' own answers. Returns the origin, the store's rows and a `walked(horizon)` that
    builds fresh `Walked` frames (so a test can run the steps again on the same inputs)."""
    from scipy.stats import norm

    from shu.forecast.evaluation.one_distribution import DIST_COLUMNS
    from shu.forecast.evaluation.walk_forward import Walked
    from shu.forecast.models.interval import DIST_LEVELS, QUANTILES

    stars = 100 + 3 * np.arange(220, dtype=float)
    rows = pd.concat([signals_from_stars(r, stars) for r in ("a/one", "b/two")], ignore_index=True)
    store.upsert("star_signals", rows)
    refresh_star_days(store)
    origin = pd.Timestamp(FIRST_DAY + timedelta(days=origin_index))
    q = 3.0 + 0.5 * norm.ppf(np.asarray(DIST_LEVELS, dtype=float))
    at = np.searchsorted(DIST_LEVELS, QUANTILES)
    questions = {  # (template, horizon): [(repo, threshold, the model's answer)]
        ("star_gain", 7): [("a/one", 20.0, 0.3), ("b/two", 20.0, 0.3)],
        ("star_accel_fall", 7): [("a/one", 0.0, 0.01)],  # F gives V <= 0 + V(t-21) = 3 ~ 1/2
        ("star_accel_reach", 7): [("a/one", 0.0, 0.9)],  # above its bound: kept
        ("star_gain", 30): [("a/one", 100.0, 0.05)],  # F gives V >= 100/28 about 0.13
        ("star_accel_reach", 30): [("a/one", 0.0, 0.01)],  # no bound beyond 28 days
    }

    def walked(horizon: int) -> list[Walked]:
        iv = pd.concat(
            [
                pd.DataFrame({"repo": ["a/one"], "origin": [origin]}),
                pd.DataFrame(q[None, :], columns=DIST_COLUMNS),
                pd.DataFrame(q[None, at], columns=[f"q{a}" for a in QUANTILES]),
            ],
            axis=1,
        )
        out = [Walked("star_velocity_interval", horizon, iv, [], 0, 0, interval=True)]
        for (template, h), asked in questions.items():
            if h != horizon:
                continue
            pred = pd.DataFrame(asked, columns=["repo", "threshold", "probability"])
            pred.insert(1, "origin", origin)
            pred["label"] = 1.0
            pred["climatology"] = 0.5
            out.append(Walked(template, horizon, pred, [], 0, 0))
        return out

    return {"origin": origin, "stars": stars, "rows": rows, "walked": walked}


def breakout_forecasts(day: date, probabilities: dict[str, float]) -> pd.DataFrame:
    """`forecasts` rows of the radar (star_breakout, 30 days, bar 10 stars/day) issued on
    `day` (so resolving 30 days on), one per repository with its probability."""
    return pd.DataFrame(
        [
            {
                "forecast_id": f"b-{repo}",
                "repo": repo,
                "template": "star_breakout",
                "origin": day,
                "horizon_days": 30,
                "resolves_on": day + timedelta(days=30),
                "threshold": 10.0,
                "question": "q",
                "probability": p,
                "confidence": "low",
                "model_version": "test-1",
                "features": "{}",
                "drivers": "[]",
                "receipts": "[]",
                "issued_at": datetime(2026, 2, 28, 6),
            }
            for repo, p in probabilities.items()
        ]
    )


def history_store(path: Path) -> None:
    """Commits and releases (no star counts) of 12 repositories over five years; the first four
    mention ROCm in most release notes, the others rarely (a pattern a model can learn)."""
    from shu.store import open_store

    rng = np.random.default_rng(3)
    t0 = pd.Timestamp("2019-01-07 10:00")
    commits, releases = [], []
    for r in range(12):
        repo = f"hist/repo{r:02d}"
        for week in range(260):
            for k in range(3):
                commits.append(
                    {
                        "repo": repo,
                        "sha": f"{repo}-{week}-{k}",
                        "committed_at": t0 + pd.Timedelta(days=7 * week + 2 * k),
                        "subject": "work",
                        "parents": 1,
                        "is_mainline": True,
                        "touches_rocm": bool(r < 4 and rng.random() < 0.2),
                        "source": "history",
                    }
                )
        for n, day in enumerate(range(0, 7 * 260, 14)):
            mention = rng.random() < (0.7 if r < 4 else 0.05)
            releases.append(
                {
                    "repo": repo,
                    "tag": f"v{n}",
                    "name": f"v{n}",
                    "source": "history",
                    "body": "Adds ROCm 6 support" if mention else "Bug fixes",
                    "published_at": t0 + pd.Timedelta(days=day),
                }
            )
    with open_store(path) as store:
        store.upsert("commits", pd.DataFrame(commits))
        store.upsert("releases", pd.DataFrame(releases))
