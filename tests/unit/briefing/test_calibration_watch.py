"""The calibration watch: bands off by more than their interval allows get a line saying what
shu does about it; the guard's line; receipts that resolve; the plain-data form."""

from __future__ import annotations

import json
import re
from datetime import date, timedelta

import pandas as pd

from shu.briefing.sections.calibration_watch import (
    WATCH_DAYS,
    calibration_watch,
    level_move,
    watch_section,
)
from shu.receipts import ReceiptBook, resolve
from shu.settings import get_settings
from shu.signals import refresh_signals

DAY = date(2026, 2, 28)


def _forecasts(store, rows: list[dict]) -> None:
    frame = pd.DataFrame(rows)
    frame["origin"] = [
        d - timedelta(days=int(h))
        for d, h in zip(frame["resolves_on"], frame["horizon_days"], strict=True)
    ]
    frame["model_version"] = "v1"
    store.upsert("forecasts", frame.drop(columns=["outcome", "held_80"], errors="ignore"))
    store.upsert("forecast_resolutions", frame[["forecast_id", "outcome"]])


def _fill(store) -> None:
    rows = []
    for i in range(300):  # high band: says 0.90, right 60% of the time
        yes = i % 10 < 6
        rows.append(
            {
                "forecast_id": f"h{i}",
                "repo": "a/b",
                "template": "star_velocity_up",
                "horizon_days": 30,
                "probability": 0.9,
                "threshold": 1.0,
                "resolves_on": DAY - timedelta(days=int(i % 50)),
                "outcome": "yes" if yes else "no",
            }
        )
    for i in range(200):  # low band: says 0.55, right 55%
        rows.append(
            {
                "forecast_id": f"l{i}",
                "repo": "a/b",
                "template": "star_velocity_up",
                "horizon_days": 30,
                "probability": 0.55,
                "threshold": 1.0,
                "resolves_on": DAY - timedelta(days=int(i % 50)),
                "outcome": "yes" if i % 20 < 11 else "no",
            }
        )
    rows.append(
        {
            "forecast_id": "old",
            "repo": "a/b",
            "template": "star_velocity_up",
            "horizon_days": 30,
            "probability": 0.9,
            "threshold": 1.0,
            "resolves_on": DAY - timedelta(days=WATCH_DAYS),
            "outcome": "no",
        }
    )
    _forecasts(store, rows)
    intervals = []
    for i in range(200):  # >= 20 stars/day: the 80% interval held half the time
        intervals.append(
            {
                "forecast_id": f"i{i}",
                "repo": "a/b",
                "template": "star_velocity_interval",
                "horizon_days": 30,
                "probability": 0.8,
                "threshold": 40.0 if i < 100 else 0.5,
                "resolves_on": DAY - timedelta(days=int(i % 40)),
                "outcome": "yes",
                "held_80": (i % 2 == 0) if i < 100 else i % 5 != 0,
            }
        )
    _forecasts(store, intervals)
    store.upsert(
        "interval_resolutions",
        pd.DataFrame(
            [{"forecast_id": r["forecast_id"], "held_80": r["held_80"]} for r in intervals]
        ),
    )


def test_off_bands_get_a_line_and_the_plain_data_holds_every_figure(store):
    _fill(store)
    watch = calibration_watch(store, DAY)
    high = next(b for b in watch["yes_no"] if b["band"] == "high")
    low = next(b for b in watch["yes_no"] if b["band"] == "low")
    assert high["n"] == 300 and high["off"] and high["ci_high"] < 0.9  # "old" is outside
    assert low["n"] == 200 and not low["off"]
    top = next(b for b in watch["intervals"] if b["band"] == ">=20")
    small = next(b for b in watch["intervals"] if b["band"] == "<1")
    assert (top["n"], top["observed"], top["off"]) == (100, 0.5, True)
    assert (small["n"], small["observed"], small["off"]) == (100, 0.8, False)
    assert watch["guard_line"] is None and watch["regime"] is None
    lines = watch["lines"]
    assert len(lines) == 2
    assert lines[0].startswith("Answers 80% sure or more came true 6") and "more sure" in lines[0]
    assert "next `shu train`" in lines[0]
    assert "gaining ≥ 20 stars/day held 50%" in lines[1] and "too narrow" in lines[1]
    assert "no correction stored yet" in lines[1]


def test_level_move_says_shifted_only_when_both_ends_move_the_same_way():
    assert level_move(0.118, 0.92) == "shifted them up to correct a bias"
    assert level_move(0.05, 0.85) == "shifted them down to correct a bias"
    # shifted: its levels' spread is not its width in stars/day, so no narrower/wider
    assert level_move(0.13, 0.98) == "shifted them up to correct a bias"
    assert level_move(0.3, 0.95) == "shifted them up to correct a bias"
    assert level_move(0.04, 0.96) == "made them wider"
    assert level_move(0.12, 0.88) == "made them narrower"
    assert level_move(0.1, 0.95) == "made them wider"
    assert level_move(0.1, 0.9) == "kept them"


def test_lines_say_what_the_guard_and_the_online_levels_do(store, tmp_path):
    _fill(store)
    store.upsert(
        "market_regime",
        pd.DataFrame(
            [
                {
                    "day": DAY,
                    "share_falling_7d": 0.088,
                    "usual_share_falling_7d": 0.051,
                    "distance": 4.9,
                    "n_repos": 3449,
                }
            ]
        ),
    )
    levels = [0.01, 0.04, 0.2, 0.5, 0.8, 0.96, 0.99]
    store.upsert(
        "forecast_calibration",
        pd.DataFrame(
            [
                {
                    "origin": DAY,
                    "model_version": "v1",
                    "template": "star_velocity_interval",
                    "horizon_days": 30,
                    "band": ">=20",
                    "widen": 1.03,
                    "levels": levels,
                    "resolved_through": DAY,
                }
            ]
        ),
    )
    watch = calibration_watch(store, DAY)
    assert watch["guard_line"] == (
        "On an average day this week 8.8% of repositories lost stars, against 5.1% usually (the "
        "median week of the 2 years to 31 Jan 2026): the yes/no forecasts of repositories losing "
        "stars are held closer to how often such questions usually come true, and 80% ranges are "
        "3% wider; breakout "
        "forecasts are left as the model gave them."
    )
    assert "many more repositories than usual are losing stars this week" in watch["lines"][0]
    # the correction in plain words: the levels it reads (percentiles of past errors) are not
    assert "percentiles" not in watch["lines"][1]
    assert "too narrow; shu made them wider, as the questions resolved through" in watch["lines"][1]
    # both ends moved up, the width kept: a bias corrected, not a range too narrow
    store.con.execute(
        "UPDATE forecast_calibration SET levels = [0.01, 0.118, 0.2, 0.5, 0.8, 0.92, 0.99]"
    )
    line = calibration_watch(store, DAY)["lines"][1]
    assert "too narrow" not in line and "too wide" not in line
    assert "n = 100); shu shifted them up to correct a bias, as the questions resolved" in line
    book = ReceiptBook()
    section = watch_section(store, book, DAY, tmp_path)
    assert (tmp_path / section["chart"]).stat().st_size > 5000
    assert len(section["lines"]) == 2
    assert [resolve(store, r) for r in book.receipts] == [None] * len(book.receipts)


def _regime(store, day) -> None:
    store.upsert(
        "market_regime",
        pd.DataFrame(
            [
                {
                    "day": day,
                    "share_falling_7d": 0.088,
                    "usual_share_falling_7d": 0.051,
                    "distance": 4.9,
                    "n_repos": 3449,
                }
            ]
        ),
    )


def _guard_held(filled, day) -> None:
    """The guard held acme/runtime's answer (a repository losing stars) towards its base rate."""
    row = {
        "origin": str(day),
        "model_version": "test-1",
        "template": "star_accel_reach",
        "horizon_days": 30,
        "band": "all",
    }
    filled.upsert(
        "forecast_calibration",
        pd.DataFrame([{**row, "origin": day, "regime_distance": 4.9, "shrink": 0.8}]),
    )
    state = {"row": row, "regime_distance": 4.9, "shrink": 0.8, "base_rate": 0.45}
    filled.con.execute(
        "UPDATE forecasts SET calibration = ? WHERE forecast_id = 'acme/runtime-0'",
        [json.dumps({**state, "applies": True})],
    )
    filled.con.execute(
        "UPDATE forecasts SET calibration = ? WHERE forecast_id = 'acme/platform-0'",
        [json.dumps({**state, "applies": False})],
    )


def test_the_mass_loss_day_is_named_once_after_the_body(filled, settings, day):
    from shu.briefing.compose import compose_briefing
    from shu.receipts import stored_receipts

    # 6 of the 23 repositories (20 of the crowd, 3 tracked) lost stars on 14 Feb 2026
    _crowd(filled, day - timedelta(days=14), losers=6)
    _regime(filled, day)
    _guard_held(filled, day)
    result = compose_briefing(filled, day, settings)
    text = result.path.read_text()
    body, appendix = text.split("\n## Appendix\n")
    # At a glance says nothing of shu's regime guard (bookkeeping, after the body)
    assert "lost stars" not in body.split("## What moved")[0]
    # one sentence in the calibration watch, one baseline: the day against the usual share
    watch = appendix[
        appendix.index("### Calibration watch\n") : appendix.index("### Calibration watch in full")
    ]
    assert re.search(
        r"On 14 Feb 2026, 26% of the store's repositories lost stars in one day \[R\d+\], 5 times "
        r"the 5\.1% usual \(the median week of the 2 years to 31 Jan 2026\) \[R\d+\]\.",
        watch,
    ), watch
    assert text.count("in one day") == 1
    assert "the median day in the year before" not in text
    receipts = stored_receipts(filled, result.briefing_id)
    assert [resolve(filled, r) for r in receipts] == [None] * len(receipts)


def test_the_regime_line_only_where_the_guard_changed_a_shown_forecast(filled, settings, day):
    from shu.briefing.compose import compose_briefing
    from shu.receipts import stored_receipts

    _regime(filled, day)
    text = compose_briefing(filled, day, settings).path.read_text()
    # On, but it changed none of the forecasts the cards show: no line anywhere.
    assert "**Many repositories losing stars.**" not in text
    assert "lost stars" not in text.split("## What moved")[0]
    # The guard held acme/runtime's answer (a repository losing stars) towards its base rate.
    _guard_held(filled, day)
    result = compose_briefing(filled, day, settings)
    text = result.path.read_text()
    body, appendix = text.split("\n## Appendix\n")
    # bookkeeping: after the body, above every forecast issued today
    (line,) = [
        x for x in appendix.splitlines() if x.startswith("**Many repositories losing stars.**")
    ]
    assert appendix.index(line) > appendix.index("### Every forecast issued")
    # the usual share has its own receipt (the market_regime row) and says over what period
    receipt = re.search(r"\(the median week of the 2 years to 31 Jan 2026\) (\[R\d+, R\d+\])", line)
    assert receipt, line
    receipt = receipt.group(1)
    assert line == (
        "**Many repositories losing stars.** On an average day this week 8.8% of repositories "
        "lost stars, against "
        f"5.1% usually (the median week of the 2 years to 31 Jan 2026) {receipt}; so shu held the "
        "answers on the cards of [acme/runtime](https://github.com/acme/runtime) closer to how "
        "often such questions usually come true."
    )
    assert text.count("Many repositories losing stars.") == 1
    assert "lost stars" not in body.split("## What moved")[0]  # nothing of it at a glance
    receipts = stored_receipts(filled, result.briefing_id)
    regime = [r for r in receipts if r.table == "market_regime"]
    assert {r.column for r in regime} == {"share_falling_7d", "usual_share_falling_7d"}
    assert [resolve(filled, r) for r in receipts] == [None] * len(receipts)


def _radar(briefing: str) -> str:
    """The "Breaking out" section of a briefing's markdown."""
    return briefing.split("## Breaking out", 1)[1].split("\n## ", 1)[0]


def test_the_radar_has_no_regime_line_the_guard_leaves_breakouts_alone(filled, settings, day):
    from shu.briefing.compose import compose_briefing

    filled.upsert(
        "star_signals",
        pd.DataFrame(
            [
                {
                    "repo": "rising/llm-star",
                    "day": day,
                    "stars": 900,
                    "velocity_28d": 12.5,
                    "gap": False,
                }
            ]
        ),
    )
    filled.upsert(
        "forecasts",
        pd.DataFrame(
            [
                {
                    "forecast_id": "b-rising",
                    "repo": "rising/llm-star",
                    "template": "star_breakout",
                    "origin": day,
                    "horizon_days": 30,
                    "resolves_on": day + timedelta(days=30),
                    "threshold": 25.0,
                    "question": "q",
                    "probability": 0.31,
                    "confidence": "low",
                    "model_version": "test-1",
                    "features": "{}",
                    "drivers": "[]",
                    "receipts": "[]",
                    "issued_at": pd.Timestamp(day),
                }
            ]
        ),
    )
    calm = _radar(compose_briefing(filled, day, settings).path.read_text())
    assert "| [rising/llm-star](https://github.com/rising/llm-star)" in calm
    _regime(filled, day)
    radar = _radar(compose_briefing(filled, day, settings).path.read_text())
    assert "| [rising/llm-star](https://github.com/rising/llm-star)" in radar
    assert "Many repositories losing stars" not in calm + radar


def _crowd(store, loss_day: date, losers: int) -> None:
    """20 repositories over 420 days to DAY: one of them loses a star each day (5%), and
    `losers` of them on `loss_day`; the signals and their facts refreshed."""
    rows = []
    for r in range(20):
        stars = 1000
        for i in range(420, -1, -1):
            d = DAY - timedelta(days=i)
            down = (i + r) % 20 == 0 if d != loss_day else r < losers
            stars += -1 if down else 3
            rows.append({"repo": f"crowd/r{r}", "day": d, "stars": stars, "source": "test"})
    store.upsert("stars_daily", pd.DataFrame(rows))
    refresh_signals(
        store, settings=get_settings()
    )  # the loss shares are the facts layer's, computed by `shu signals`


def _usual(store, share: float) -> None:
    """The regime guard's row for DAY with `share` as its usual daily share losing stars."""
    store.upsert(
        "market_regime",
        pd.DataFrame(
            [
                {
                    "day": DAY,
                    "share_falling_7d": 0.088,
                    "usual_share_falling_7d": share,
                    "distance": 4.9,
                    "n_repos": 3449,
                }
            ]
        ),
    )


def test_a_day_of_mass_loss_is_named_against_the_guards_usual_share(store):
    from shu.briefing.sections.calibration_watch import mass_loss_day, mass_loss_sentence

    _crowd(store, DAY - timedelta(days=14), losers=6)
    # without the regime guard's usual share there is no baseline: nothing named
    assert mass_loss_day(store, DAY) is None
    # one baseline for the note: the guard's usual share (6.0%), not the median day's (5.0%)
    _usual(store, 0.06)
    loss = mass_loss_day(store, DAY)
    assert loss == {"day": "2026-02-14", "share": 0.3, "usual": 0.06, "regime_day": "2026-02-28"}
    book = ReceiptBook()
    text = mass_loss_sentence(book, DAY, loss)
    assert text == (
        "On 14 Feb 2026, 30% of the store's repositories lost stars in one day [R1], 5 times "
        "the 6.0% usual (the median week of the 2 years to 31 Jan 2026) [R2]."
    )
    assert [r.table for r in book.receipts] == ["market_days", "market_regime"]  # its row
    assert [resolve(store, r) for r in book.receipts] == [None, None]
    # twice the usual share is no mass loss; nor is a day outside the 28 the guard reads
    store.con.execute("DELETE FROM stars_daily")
    _crowd(store, DAY - timedelta(days=14), losers=2)
    assert mass_loss_day(store, DAY) is None
    store.con.execute("DELETE FROM stars_daily")
    _crowd(store, DAY - timedelta(days=30), losers=6)
    assert mass_loss_day(store, DAY) is None


def test_the_regime_is_said_in_plain_words():
    from shu.briefing.card.calibration_state import regime_words

    assert regime_words(4.9) == (
        "many more repositories than usual were losing stars (4.9 on the regime guard's scale, "
        "where 0 is usual and the guard acts from 3)"
    )
    assert regime_words(0.4).startswith("about as many repositories as usual were losing stars")
    assert regime_words(-3.5).startswith("fewer repositories than usual were losing stars")
    assert "could not be told" in regime_words(None)
    assert not any("standard deviation" in regime_words(d) for d in (4.9, 0.4, -3.5, None))


def test_ranges_treated_alike_share_one_line():
    """Two sizes of repository whose 80% ranges shu shifted the same way are one line: the
    treatment is said once, each size keeps its own figures."""
    from shu.briefing.sections.calibration_watch import _action_lines

    def band(name: str, observed: float, n: int) -> dict:
        return {"band": name, "off": True, "observed": observed, "ci_low": observed - 0.1,
                "ci_high": observed + 0.05, "n": n}  # fmt: skip

    shifted = (0.025, 0.118, 0.25, 0.5, 0.75, 0.92, 0.975)
    watch = {
        "regime": None,
        "yes_no": [],
        "intervals": [band("5-20", 0.95, 43), band(">=20", 0.64, 129), band("1-5", 0.5, 40)],
        "interval_levels": {
            "bands": {"5-20": shifted, ">=20": shifted},
            "resolved_through": date(2026, 2, 26),
        },
    }
    shared, alone = _action_lines(watch)
    assert shared.startswith("80% ranges of repositories gaining 5–20 and ≥ 20 stars/day held ")
    assert "95% of the time" in shared and "64% of the time" in shared
    assert shared.count("shifted them up") == 1 and "26 Feb 2026" in shared
    assert "1–5 stars/day held 50%" in alone and "no correction stored yet" in alone
