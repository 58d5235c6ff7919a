"""Synthetic star_signals for the forecast tests: rows written from known star series by the
documented definitions, so a test knows the answers its forecasts should reach.

Shared by tests/unit/forecast and the forecast tests in tests/integration: both folders'
conftest.py import the fixtures `synthetic` and `synthetic_store` from here, and test modules
import the helpers as `support.forecast_data`."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest

from shu.signals.lifecycle import lifecycle_phase
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
    return store
