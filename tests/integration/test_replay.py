"""`shu replay` on a small generated store: forecasts issued and resolved day by day as they
would have been, models fitted only on what was known before each refit, replayed rows marked."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from shu.briefing.sections.track import track_record
from shu.errors import InputError
from shu.forecast.live.replay import REPLAY_PREFIX, refit_days, replay
from shu.forecast.models.split import TrainingConfig
from shu.settings import TrackedRepo, load_settings
from shu.signals.star_days import refresh_star_days
from shu.store import open_store

TEMPLATES = ("star_velocity_up", "star_velocity_interval")
CONFIG = TrainingConfig(cal_days=56, train_days=400)


def _run(store, settings, start, end):
    return replay(store, start, end, settings, TEMPLATES, (7,), CONFIG, log=lambda _m: None)


def _rows(store, end):
    return store.con.execute(
        """
        SELECT f.forecast_id, f.repo, f.origin, f.probability, f.model_version, r.outcome,
               r.observed_value, i.lower_80, i.upper_80, f.calibration
        FROM forecasts f LEFT JOIN forecast_resolutions r USING (forecast_id)
        LEFT JOIN forecast_intervals i USING (forecast_id)
        WHERE f.origin <= ? ORDER BY f.forecast_id""",
        [end],
    ).fetchall()


def _states(store):
    return store.con.execute("SELECT * FROM forecast_calibration ORDER BY ALL").fetchall()


def test_refit_days_are_the_start_and_each_first_of_month():
    assert refit_days(date(2024, 1, 20), date(2024, 3, 1)) == [
        date(2024, 1, 20),
        date(2024, 2, 1),
        date(2024, 3, 1),
    ]
    assert refit_days(date(2024, 12, 5), date(2025, 1, 1)) == [date(2024, 12, 5), date(2025, 1, 1)]


def test_replay_matches_a_store_that_ends_on_the_last_replayed_day(
    synthetic_store, synthetic, tmp_path
):
    last = synthetic["day"].max()
    end = last - timedelta(days=20)
    start = date(end.year, end.month, 1) - timedelta(days=10)
    repos = sorted(synthetic["repo"].unique())[:6]
    settings = load_settings(
        repos=[TrackedRepo(repo=r, category="test") for r in repos], models_dir=tmp_path / "models"
    )
    result = _run(synthetic_store, settings, start, end)
    n_days = (end - start).days + 1
    assert result.refit_days == [start, date(end.year, end.month, 1)]
    assert result.issued == n_days * len(repos) * len(TEMPLATES)
    # every model was fitted only on outcomes known the day before its refit
    for day, version in zip(result.refit_days, result.versions, strict=True):
        assert version.startswith(f"{REPLAY_PREFIX}{day - timedelta(days=1)}-")
    rows = _rows(synthetic_store, end)
    assert all(r[4].startswith(REPLAY_PREFIX) for r in rows)
    for _fid, _repo, origin, _p, version, outcome, *_ in rows:
        trained_through = date.fromisoformat(version[len(REPLAY_PREFIX) :][:10])
        assert trained_through < origin
        resolved_by_end = origin + timedelta(days=7) <= end
        assert (outcome is not None) == resolved_by_end
    assert synthetic_store.con.execute(
        "SELECT forecasts_issued, day_from, day_to FROM replay_runs"
    ).fetchall() == [(result.issued, start, end)]

    # the online conformal levels were carried day to day and read resolved questions
    states = _states(synthetic_store)
    assert {s[2] for s in states} == set(TEMPLATES)
    # (n_resolved, resolved_through: the third and fourth columns from the end)
    assert max(s[-3] or 0 for s in states if s[2] == "star_velocity_interval") > 0
    assert all(s[-4] is None or s[-4] <= s[0] for s in states)  # resolved_through <= origin

    # The same replay on a store holding only what was known on `end` gives the same rows
    # and calibration states: nothing after the day being replayed was read.
    with open_store(tmp_path / "truncated.duckdb") as past:
        past.upsert("star_signals", synthetic[synthetic["day"] <= end])
        refresh_star_days(past)
        _run(past, settings, start, end)
        assert _rows(past, end) == rows
        assert _states(past) == states

    # The briefing's track record on `end` is this replay's, and says so.
    track = track_record(synthetic_store, end, 90)
    scored = sum(1 for r in rows if r[5] in ("yes", "no"))
    scored -= sum(1 for r in rows if r[5] in ("yes", "no") and r[7] is not None)  # intervals
    assert track.n == scored > 0 and track.n_replayed == sum(1 for r in rows if r[5])
    assert track.since_last and all(r["replayed"] for r in track.since_last)

    again = _run(synthetic_store, settings, start, end)
    assert again.issued == 0 and sum(again.resolved.values()) == 0


def test_replay_rejects_bad_ranges(synthetic_store, synthetic):
    last = synthetic["day"].max()
    with pytest.raises(InputError, match="before --from"):
        _run(synthetic_store, load_settings(), last, last - timedelta(days=1))
    with pytest.raises(InputError, match="after the last day with star data"):
        _run(synthetic_store, load_settings(), last, last + timedelta(days=1))


def _counts(store):
    return {
        t: store.con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
        for t in ("forecasts", "forecast_resolutions", "forecast_intervals")
    }


def test_a_rerun_over_overlapping_days_issues_nothing_new(synthetic_store, synthetic, tmp_path):
    """Another start day refits on another day, so the models get other versions; the questions
    already replayed on a day are still not issued a second time."""
    end = synthetic["day"].max() - timedelta(days=20)
    start = date(end.year, end.month, 1) - timedelta(days=6)
    repos = sorted(synthetic["repo"].unique())[:4]
    settings = load_settings(
        repos=[TrackedRepo(repo=r, category="test") for r in repos], models_dir=tmp_path / "models"
    )
    templates = (*TEMPLATES, "star_velocity_interval")

    def run(first, names):
        return replay(
            synthetic_store, first, end, settings, names, (7,), CONFIG, log=lambda _m: None
        )

    first = run(start, templates)
    before = _counts(synthetic_store)
    assert first.issued and all(before.values())
    shifted = run(start + timedelta(days=3), templates)
    assert shifted.versions[0] not in first.versions  # a refit on another day: a new version
    fewer = run(start + timedelta(days=1), TEMPLATES)
    assert shifted.issued == fewer.issued == 0
    assert _counts(synthetic_store) == before
    assert synthetic_store.con.execute("SELECT count(*) FROM replay_runs").fetchone()[0] == 3


def test_every_n_days_issues_on_those_origins_only(synthetic_store, synthetic, tmp_path):
    end = synthetic["day"].max() - timedelta(days=20)
    start = end - timedelta(days=20)
    repos = sorted(synthetic["repo"].unique())[:3]
    settings = load_settings(
        repos=[TrackedRepo(repo=r, category="test") for r in repos], models_dir=tmp_path / "models"
    )
    with pytest.raises(InputError, match="--every 0"):
        replay(
            synthetic_store,
            start,
            end,
            settings,
            TEMPLATES,
            (7,),
            CONFIG,
            log=lambda _m: None,
            every_days=0,
        )
    result = replay(
        synthetic_store,
        start,
        end,
        settings,
        TEMPLATES,
        (7,),
        CONFIG,
        log=lambda _m: None,
        every_days=7,
    )
    origins = {
        r[0]
        for r in synthetic_store.con.execute("SELECT DISTINCT origin FROM forecasts").fetchall()
    }
    assert result.issued and origins == {start + timedelta(days=d) for d in (0, 7, 14)}
    assert result.resolved["yes"] + result.resolved["no"] > 0  # resolved on the days between
