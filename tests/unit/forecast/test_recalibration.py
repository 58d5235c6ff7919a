"""Online recalibration: the regime guard, adaptive conformal levels pulled back to nominal, and
no update reading an outcome resolved after the origin it serves (unit and walk-forward)."""

from __future__ import annotations

from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest

from shu.forecast.calibration import conformal, guard
from shu.forecast.evaluation.slice_scores import score_interval
from shu.forecast.evaluation.star_backtest import walk_forward_interval
from shu.forecast.evaluation.walk_forward import BacktestConfig
from shu.forecast.features.examples import base_frame, build_examples, weekly_grid
from shu.forecast.models import interval


def _stream(n: int, seed: int, wide_top: float = 1.0) -> pd.DataFrame:
    """Changes whose spread grows with the velocity band; `wide_top` widens the >= 20 band."""
    rng = np.random.default_rng(seed)
    velocity = rng.choice([0.5, 3.0, 10.0, 40.0], size=n)
    spread = np.where(velocity >= 20, wide_top, 1.0)
    observed = velocity + interval.scale_of(velocity) * 0.2 * spread * rng.normal(size=n)
    return pd.DataFrame(
        {
            "repo": [f"o/r{seed}-{i}" for i in range(n)],
            "origin": pd.Timestamp("2025-01-01"),
            "noise": rng.normal(size=n),
            "velocity_28d": velocity,
            "observed_value": observed,
        }
    )


def _coverage_80(fc, frame, levels=None, widen=1.0) -> pd.Series:
    q = fc.quantiles(frame, levels, widen)
    inside = (frame["observed_value"] >= q[:, 1]) & (frame["observed_value"] <= q[:, 5])
    return inside.groupby(interval.velocity_band(frame["velocity_28d"])).mean()


def test_pit_says_where_the_observed_value_falls_among_the_quantiles():
    """(The observed value spread over its lattice cell, as the model reads it.)"""
    fc = interval.fit_interval(30, ["noise"], _stream(4000, 1), _stream(4000, 2))
    test = _stream(2000, 3)
    spread = test["observed_value"].to_numpy() - interval.LATTICE * interval.lattice_fraction(test)
    for widen in (1.0, 1.3):
        q = fc.quantiles(test, widen=widen)
        pit = fc.pit(test, widen)
        for k, level in enumerate(interval.QUANTILES):
            below = spread <= q[:, k]
            agree = below == (pit <= level + 1e-9)
            assert agree.mean() > 0.995, (widen, level)


def test_a_shifted_stream_is_pulled_back_to_nominal_coverage():
    fc = interval.fit_interval(30, ["noise"], _stream(4000, 1), _stream(4000, 2))
    shifted = _stream(8000, 9, wide_top=1.8)  # the >= 20 band became 80% more volatile
    before = _coverage_80(fc, shifted)
    assert before[3] < 0.65 and before[:3].between(0.76, 0.84).all()
    state = conformal.initial_state(interval.TEMPLATE, 30)
    day = pd.Timestamp("2026-03-01")
    for week in range(80):  # weekly batches of newly resolved questions
        batch = _stream(1200, 100 + week, wide_top=1.8)
        day += pd.Timedelta(days=7)
        state = conformal.update(
            state,
            pd.DataFrame(
                {
                    "known_on": day,
                    "band": interval.velocity_band(batch["velocity_28d"]),
                    "pit": fc.pit(batch),
                }
            ),
            day,
        )
    after = _coverage_80(fc, shifted, state.levels)
    assert after.between(0.77, 0.83).all(), after
    assert state.levels[3, 1] < 0.05 and state.levels[3, 5] > 0.95  # widened at the top band
    np.testing.assert_allclose(state.levels[0], interval.QUANTILES, atol=0.03)  # others kept


def test_update_refuses_an_outcome_resolved_after_its_origin_and_reads_each_once():
    state = conformal.initial_state(interval.TEMPLATE, 30)
    batch = pd.DataFrame(
        {
            "known_on": pd.to_datetime(["2026-03-01", "2026-03-09"]),
            "band": [0, 0],
            "pit": [0.5, 0.5],
        }
    )
    with pytest.raises(ValueError, match="resolved as late as 2026-03-09"):
        conformal.update(state, batch, date(2026, 3, 8))
    first = conformal.update(state, batch, date(2026, 3, 9))
    again = conformal.update(first, batch, date(2026, 3, 16))
    assert (first.n_resolved, again.n_resolved) == (2, 2)  # nothing read twice
    np.testing.assert_array_equal(first.levels, again.levels)


def test_guard_is_off_inside_the_history_and_acts_on_repositories_losing_stars():
    assert not guard.guard(None).on and not guard.guard(2.9).on
    half, full = guard.guard(4.5), guard.guard(9.0)
    assert half.shrink == pytest.approx(1 - (1 - guard.SHRINK_AT_FULL) / 2)
    assert (full.shrink, full.widen) == (guard.SHRINK_AT_FULL, guard.WIDEN_AT_FULL)
    p = np.array([0.9, 0.9, 0.1, 0.9])
    moved = guard.shrink_probabilities(
        p, np.array([0.4, 0.4, 0.4, np.nan]), np.array([-1.0, 2.0, 0.0, -1.0]), 0.5
    )
    assert moved[0] == pytest.approx(
        1 / (1 + np.exp(-(np.log(0.4 / 0.6) + 0.5 * (np.log(9) - np.log(0.4 / 0.6)))))
    )
    assert moved[1] == 0.9 and moved[3] == 0.9  # gaining stars; no base rate: unchanged
    assert 0.1 < moved[2] < 0.4  # zero velocity counts as losing: pulled up towards 0.4


def test_a_purge_shrinks_the_answers_of_repositories_losing_stars():
    assert not guard.guard(None, guard.PURGE_FROM).on  # the usual share of removals: off
    week = guard.guard(None, (guard.PURGE_FROM + guard.PURGE_FULL) / 2)
    assert week.shrink == pytest.approx(1 - (1 - guard.SHRINK_AT_PURGE) / 2)
    assert week.widen == 1.0 and week.loss_ratio == pytest.approx(2.0)
    # the stronger of the two rules: a purge inside the distance's usual range, and the reverse
    both = guard.guard(9.0, guard.PURGE_FULL * 2)
    assert both.shrink == min(guard.SHRINK_AT_FULL, guard.SHRINK_AT_PURGE)
    assert guard.guard(9.0, 1.0).shrink == guard.SHRINK_AT_FULL
    assert guard.guard(float("nan"), float("nan")) == guard.Guard(None, 1.0, 1.0, None)


def test_walk_forward_reads_no_outcome_resolved_after_the_origin(synthetic_store):
    """Rewriting every outcome resolved after a day changes no interval issued by that day:
    neither the refit nor the online levels read it."""
    con = synthetic_store.con
    last = con.execute("SELECT max(day) FROM star_signals").fetchall()[0][0]
    first = con.execute("SELECT min(day) FROM star_signals").fetchall()[0][0]
    start = date(2023, 10, 1)
    grid = weekly_grid(start, first + timedelta(days=56), last)
    examples = build_examples(con, base_frame(con, grid), interval.TEMPLATE, 7, last)
    config = BacktestConfig(
        start=start, end=last, horizons=(7,), cal_days=56, train_days=300, refit_weeks=4, n_boot=10
    )
    regime = pd.DataFrame(columns=["distance", "loss_share_ratio_7d"], dtype=float)
    plain = score_interval(
        walk_forward_interval(con, examples, config, regime, lambda _m: None), config
    )
    cut = pd.Timestamp(start) + pd.Timedelta(days=60)
    ex = examples.frame
    later = ex["known_on"] > cut
    ex.loc[later, "observed_value"] = ex.loc[later, "observed_value"] * 7.0 + 50.0
    poisoned = walk_forward_interval(con, examples, config, regime, lambda _m: None)
    cols = [f"q{q}" for q in interval.QUANTILES]
    early = plain.predictions["origin"] <= cut
    assert early.sum() > 50 and plain.metrics["online"]["questions_read"] > 0
    pd.testing.assert_frame_equal(
        plain.predictions.loc[early, cols], poisoned.pred.loc[early, cols]
    )
    assert not np.allclose(plain.predictions.loc[~early, cols], poisoned.pred.loc[~early, cols])


def test_a_batch_without_resolved_questions_still_compares_by_day(store):
    """No resolved question yet (a new horizon, a short store): the warm-up reads an empty
    batch and must be able to filter it by day like a full one."""
    from datetime import date

    import pandas as pd

    from shu.forecast.calibration.state_store import resolved_batch

    batch = resolved_batch(store, None, [], date(2026, 2, 28))
    assert batch.empty and list(batch.columns) == ["known_on", "band", "pit"]
    assert (batch["known_on"] <= pd.Timestamp(date(2026, 2, 28))).sum() == 0
