"""A small store filled directly (signals, forecasts, resolutions, corpus, probe) for briefings."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta

import numpy as np
import pandas as pd
import pytest

from shu.settings import TrackedRepo, load_settings

DAY = date(2026, 2, 28)
REPOS = {
    "acme/platform": "platform",
    "acme/other-platform": "platform",
    "acme/runtime": "inference-runtime",
}
HOSTILE = "<script>alert(1)</script> [x](javascript:alert(1))"


# The model card the sample's forecasts were issued by: a walk-forward backtest whose Brier skill
# interval lies above zero for star_accel_reach at 30 days (no band hit rates recorded).
MODEL_CARD = {
    "version": "test-1",
    "models": {"star_accel_reach/30": {"fit_base_rate": 0.45}},
    "backtest": {
        "slices": {
            "star_accel_reach/30": {
                "n": 1000,
                "ci95": {
                    "bss_climatology": {"value": 0.3, "low": 0.2, "high": 0.4},
                    "bss_persistence": {"value": 0.25, "low": 0.15, "high": 0.35},
                },
            }
        }
    },
}
BASE_RATE = 0.45


@pytest.fixture
def settings(tmp_path):
    models = tmp_path / "models"
    models.mkdir()
    (models / "forecaster.json").write_text(json.dumps(MODEL_CARD))
    return load_settings(
        repos=[TrackedRepo(repo=r, category=c) for r, c in REPOS.items()],
        reports_dir=tmp_path / "reports",
        models_dir=models,
    )


def _stars(repo: str, slope: float, curve: float) -> pd.DataFrame:
    days = [DAY - timedelta(days=i) for i in range(200)][::-1]
    t = np.arange(200, dtype=float)
    stars = (1000 + slope * t + curve * t * t).round().astype(int)
    return pd.DataFrame({"repo": repo, "day": days, "stars": stars, "source": "test"})


def fill_store(store, settings) -> None:
    """Write the sample into the raw tables, compute the real signals, add forecasts etc."""
    from shu.signals import refresh_signals

    stars = pd.concat(
        [
            _stars("acme/platform", 5, 0.02),
            _stars("acme/other-platform", 3, 0.01),
            _stars("acme/runtime", 8, -0.01),
        ]
    )
    # acme/runtime's last five days were never observed: stale.
    store.upsert(
        "stars_daily",
        stars[~((stars.repo == "acme/runtime") & (stars.day > DAY - timedelta(days=5)))],
    )
    commits = []
    for i in range(40):
        rocm = i % 5 == 0
        commits.append(
            {
                "repo": "acme/platform",
                "sha": f"{i:040x}",
                "committed_at": datetime(2026, 2, 1) + timedelta(hours=12 * i),
                "subject": ("[ROCm] enable hipblaslt path" if rocm else f"fix thing {i}"),
                "topics": ["rocm-adoption"] if rocm else [],
                "touches_rocm": rocm,
                "source": "git",
            }
        )
    store.upsert("commits", pd.DataFrame(commits))
    store.upsert(
        "releases",
        pd.DataFrame(
            [
                {
                    "repo": "acme/platform",
                    "tag": "v2.3.0",
                    "name": "v2.3.0",
                    "published_at": datetime(2026, 2, 10, 12),
                    "is_prerelease": False,
                    "body": "Highlights. Adds ROCm 6.4 support for MI300 GPUs. " + HOSTILE,
                    "source": "git",
                },
                {
                    "repo": "acme/runtime",
                    "tag": "v0.9.0",
                    "name": "v0.9.0",
                    "published_at": datetime(2026, 1, 3, 12),
                    "is_prerelease": False,
                    "body": "Faster GGUF loading.",
                    "source": "git",
                },
            ]
        ),
    )
    store.upsert(
        "documents",
        pd.DataFrame(
            [
                {
                    "doc_id": "n1",
                    "location": "docs/notes/rocm.md",
                    "title": "ROCm note " + HOSTILE,
                    "published_on": date(2026, 1, 20),
                    "content_hash": "a",
                    "format": "markdown",
                    "text": "x",
                },
                {
                    "doc_id": "n2",
                    "location": "https://example.com/platform",
                    "title": "Platform note",
                    "published_on": date(2026, 2, 1),
                    "content_hash": "b",
                    "format": "markdown",
                    "text": "y",
                },
            ]
        ),
    )
    store.upsert(
        "passages",
        pd.DataFrame(
            [
                {
                    "doc_id": "n1",
                    "passage_no": 0,
                    "text": "ROCm is AMD's open GPU software stack. "
                    "The platform project builds ROCm wheels for MI300. " + HOSTILE,
                },
                {
                    "doc_id": "n2",
                    "passage_no": 0,
                    "text": "The platform framework ships ROCm and CUDA "
                    "builds. Adoption of ROCm grew as MI300 supply improved.",
                },
            ]
        ),
    )
    refresh_signals(store, full=True, settings=settings)
    signals = store.con.execute("SELECT * FROM star_signals").df()
    signals["day"] = pd.to_datetime(signals["day"]).dt.date
    forecasts, resolutions = [], []
    for repo in REPOS:
        for k, (origin, p) in enumerate(
            [(DAY, 0.72), (DAY - timedelta(days=40), 0.85), (DAY - timedelta(days=50), 0.3)]
        ):
            fid = f"{repo}-{k}"
            row = signals[(signals.repo == repo) & (signals.day == origin)].iloc[0]
            forecasts.append(
                {
                    "forecast_id": fid,
                    "repo": repo,
                    "template": "star_accel_reach",
                    "origin": origin,
                    "horizon_days": 30,
                    "resolves_on": origin + timedelta(days=30),
                    "threshold": 0.5,
                    "question": "q",
                    "probability": p,
                    "confidence": "high" if max(p, 1 - p) >= 0.8 else "medium",
                    "model_version": "test-1",
                    "features": json.dumps(features(row)),
                    "drivers": json.dumps(
                        [
                            {
                                "feature": name,
                                "value": features(row)[name],
                                "sign": "+" if contribution > 0 else "-",
                                "contribution": contribution,
                            }
                            for name, contribution in DRIVERS
                        ]
                    ),
                    "receipts": "[]",
                    "issued_at": datetime(2026, 2, 28, 6),
                    "base_rate": BASE_RATE,
                    "base_rate_n": 1000,
                }
            )
            if origin < DAY:
                resolutions.append(
                    {
                        "forecast_id": fid,
                        "outcome": "yes" if k == 1 else "no",
                        "observed_value": 0.7,
                        "detail": "",
                        "resolved_at": datetime(2026, 2, 27, 6),
                    }
                )
    store.upsert("forecasts", pd.DataFrame(forecasts))
    store.upsert("forecast_resolutions", pd.DataFrame(resolutions))
    store.upsert(
        "probe_runs",
        pd.DataFrame(
            [
                {
                    "run_id": "run1",
                    "host": "h",
                    "backend": "cpu",
                    "device_name": "Test CPU",
                    "started_at": datetime(2026, 2, 27, 5),
                    "suite": "quick",
                    "suite_version": "1",
                    "torch_version": "2.13.0",
                    "geomean_speedup": 1.31,
                    "geomean_speedup_clipped": 1.35,
                    "pass_rate": 1.0,
                    "raw_json": "{}",
                }
            ]
        ),
    )
    store.upsert(
        "probe_results",
        pd.DataFrame(
            [
                {
                    "run_id": "run1",
                    "kernel": "softmax",
                    "is_valid": True,
                    "eager_ms": 1.2,
                    "compiled_ms": 0.8,
                    "speedup": 1.5,
                    "detail": "{}",
                }
            ]
        ),
    )


# The drivers every filled forecast stores (feature, contribution in log-odds). The first two are
# about the whole store and what the base rate is taken within: counted, never shown as a card's
# reasons.
DRIVERS = (
    ("market_velocity_z", 0.3),
    ("gap_rel_sd", 0.2),
    ("rel_velocity_7d", 0.12),
    ("slog_velocity_28d", -0.03),
)


def features(row) -> dict[str, float]:
    """Model features of a star_signals row: two by their definitions (forecast/features), and
    the store's median repository's pace and the threshold's distance (fixed values)."""
    return {
        "market_velocity_z": -0.6,
        "gap_rel_sd": 1.2,
        "rel_velocity_7d": round(row.velocity_7d / max(abs(row.velocity_28d), 0.5), 6),
        "slog_velocity_28d": round(
            float(np.sign(row.velocity_28d) * np.log1p(abs(row.velocity_28d))), 6
        ),
    }


@pytest.fixture
def day() -> date:
    return DAY


@pytest.fixture
def filled(store, settings):
    fill_store(store, settings)
    return store
