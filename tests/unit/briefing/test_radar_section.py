"""The "Breaking out" section: why it is empty when it is (no repository to scan, no breakout
forecaster, none issued yet), and the topic filter that keeps the repositories a framework
analyst follows, saying how many it left out and how to widen it."""

from __future__ import annotations

import json
import re
from datetime import date, timedelta

import pandas as pd
from support.forecast_data import breakout_forecasts

from shu.briefing.compose import compose_briefing


def _radar(store, settings, day) -> str:
    text = compose_briefing(store, day, settings).path.read_text(encoding="utf-8")
    return text.split("## Breaking out", 1)[1].split("\n## ", 1)[0]


def _add_untracked(store, day, repos: dict[str, float]) -> None:
    """Star counts and a breakout forecast of `day` for each untracked repository."""
    store.upsert(
        "stars_daily",
        pd.DataFrame([{"repo": r, "day": day, "stars": 900, "source": "test"} for r in repos]),
    )
    store.upsert("forecasts", breakout_forecasts(day, repos))


def _card_with_radar(settings) -> None:
    path = settings.models_dir / "forecaster.json"
    card = json.loads(path.read_text())
    card["models"]["star_breakout/30"] = {"fit_base_rate": 0.01}
    path.write_text(json.dumps(card))


def test_no_untracked_repository_says_so_and_how_to_get_some(filled, settings, day) -> None:
    radar = _radar(filled, settings, day)
    assert "no repository besides the tracked ones" in radar
    assert "nothing for the radar to scan" in radar
    assert "`ranking_files`" in radar and "`shu ingest ranking PATH`" in radar
    assert "breakout forecaster" not in radar  # the model is not what is missing


def test_no_breakout_forecaster_only_when_the_model_has_none(filled, settings, day) -> None:
    filled.upsert(
        "stars_daily",
        pd.DataFrame([{"repo": "other/llm-serve", "day": day, "stars": 5, "source": "test"}]),
    )
    radar = _radar(filled, settings, day)  # the sample's model card has no star_breakout model
    assert "has no breakout forecaster" in radar and "shu train --template star_breakout" in radar
    _card_with_radar(settings)
    radar = _radar(filled, settings, day)
    assert "breakout forecaster" not in radar
    assert "counts of 1 repository besides the tracked ones, but no breakout forecast" in radar
    assert "run `shu forecast`" in radar


def test_topic_filter_keeps_ml_repositories_and_says_what_it_left_out(
    filled, settings, day
) -> None:
    _add_untracked(
        filled,
        day,
        {
            "lewagon/setup": 0.5,
            "ytdl-org/youtube-dl": 0.4,
            "deepseek-ai/DeepSeek-V3": 0.3,
            "huggingface/transformers": 0.2,
            "acme/platform": 0.9,  # tracked: never on the radar
        },
    )
    radar = _radar(filled, settings, day)
    table = [line for line in radar.splitlines() if line.startswith("| [")]
    assert [line.split("]")[0] for line in table] == [
        "| [deepseek-ai/DeepSeek-V3",
        "| [huggingface/transformers",
    ]
    # the body says in one line what it lists and how many of the most likely it left out;
    # the appendix names them and how to widen the list
    assert (
        "Listed: the 2 of 4 untracked repositories whose name carries an ML-framework word; "
        "2 of the 6 most likely of all 4 are not among them (named in the appendix" in radar
    )
    assert "lewagon" not in radar and "`radar_keywords" not in radar
    page = (settings.reports_dir / f"{day}.md").read_text(encoding="utf-8")
    filt = page.split("### The radar's filter", 1)[1].split("\n### ", 1)[0]
    assert "the store has no descriptions of them" in filt
    assert "2 of the 4 untracked ones forecast" in filt
    assert (
        "2 left out, 2 of them among the 6 most likely "
        "([lewagon/setup](https://github.com/lewagon/setup), "
        "[ytdl-org/youtube-dl](https://github.com/ytdl-org/youtube-dl))" in filt
    )
    assert "`radar_keywords = []`" in filt
    before = page.split("## Breaking out", 1)[0]  # At a glance shows the radar as filtered
    assert "lewagon" not in before and "youtube-dl" not in before
    assert "Top of the breakout radar: [deepseek-ai/DeepSeek-V3]" in before
    # the number it names is the bar, said as such, for the pace on the day; its chance as the
    # table gives it (one decimal)
    assert re.search(
        r"DeepSeek-V3\), a \d+\.\d% chance \[R\d+\] that its 28-day pace on \d+ \w+ \d{4} is "
        r"at least [\d.,]+ stars/day \(the breakout bar\)",
        before,
    ), before
    assert "%" in radar and re.search(r"\| \d+\.\d% \[R\d+\] \|", radar)
    doc = json.loads((settings.reports_dir / f"{day}.json").read_text())
    assert doc["radar_filter"]["left_out"] == 2
    assert doc["radar_filter"]["left_out_of_top"] == ["lewagon/setup", "ytdl-org/youtube-dl"]

    # a description in the store counts too
    filled.upsert(
        "repos",
        pd.DataFrame(
            [{"repo": "lewagon/setup", "description": "Notebooks for a machine learning course"}]
        ),
    )
    radar = _radar(filled, settings, day)
    assert "| [lewagon/setup]" in radar and "whose name or description carries" in radar
    assert "the 3 of 4 untracked repositories" in radar

    # an empty list turns the filter off
    every = settings.model_copy(update={"radar_keywords": []})
    radar = _radar(filled, every, day)
    assert "| [ytdl-org/youtube-dl]" in radar and "radar_keywords" not in radar


def _series(repo: str, day, days: int) -> pd.DataFrame:
    """`days` days of star counts for `repo` to `day`, growing faster lately."""
    return pd.DataFrame(
        [
            {
                "repo": repo,
                "day": day - timedelta(days=i),
                "stars": round(5000 - 12 * i + 0.04 * i * i),
                "source": "t",
            }
            for i in range(days)
        ]
    )


def test_reasons_leave_out_the_store_wide_and_a_short_record_says_so(filled, settings, day):
    """A reason about the whole store (its median repository's pace, how many untracked
    repositories accelerate) is the same for every row: not shown as a repository's reason,
    only said to be the store's where no reason of its own lifts the chance; and a repository
    whose star data began lately says since when, with its receipt."""
    from shu.receipts import resolve, stored_receipts
    from shu.signals import refresh_signals

    filled.upsert("stars_daily", _series("deep/llm-new", day, 20))
    filled.upsert("stars_daily", _series("deep/llm-old", day, 200))
    refresh_signals(filled, full=True, settings=settings)
    _card_with_radar(settings)
    _add_untracked(filled, day, {"deep/llm-new": 0.4, "deep/llm-old": 0.3})
    drivers = [
        {"feature": "market_velocity_z", "value": 1.0, "sign": "+", "contribution": 0.5},
        {"feature": "category_accelerating_share", "value": 0.5, "sign": "+", "contribution": 0.4},
        {"feature": "rel_velocity_7d", "value": 1.0, "sign": "+", "contribution": 0.1},
    ]
    filled.con.execute(
        "UPDATE forecasts SET drivers = ? WHERE template = 'star_breakout'", [json.dumps(drivers)]
    )
    result = compose_briefing(filled, day, settings)
    radar = result.path.read_text(encoding="utf-8").split("## Breaking out", 1)[1]
    rows = {
        line.split("]")[0].removeprefix("| ["): line
        for line in radar.split("\n## ", 1)[0].splitlines()
        if line.startswith("| [")
    }
    assert "across the store" not in radar and "repositories are accelerating" not in radar
    # deep/llm-new's own reason has no data behind it: what lifts it is the store's, said so
    assert re.search(
        r"\| only what the whole store or its peers did, nothing of its own \[R\d+\] \|$",
        rows["deep/llm-new"],
    ), rows["deep/llm-new"]
    assert "| the last 7 days ran " in rows["deep/llm-old"]
    # the JSON keeps every driver, marked
    doc = json.loads(result.path.with_suffix(".json").read_text())
    kept = {e["repo"]: e["drivers"] for e in doc["radar"]}
    assert [d["store_wide"] for d in kept["deep/llm-old"]] == [True, True, False]
    # 20 days of data: since when, with a receipt that resolves; 200 days: nothing said
    assert re.search(
        r"\[deep/llm-new\]\([^)]*\) \(in the store's data since 9 Feb 2026 \[R\d+\]\) \|",
        rows["deep/llm-new"],
    )
    assert "in the store's data since" not in rows["deep/llm-old"]
    receipts = stored_receipts(filled, result.briefing_id)
    assert any("first day with star data" in r.label for r in receipts)
    assert [resolve(filled, r) for r in receipts] == [None] * len(receipts)


def test_heading_says_ml_when_the_topic_filter_is_on(filled, settings, day) -> None:
    """The sentence over the table says what it lists: the ML repositories when the keyword
    filter keeps only those, any repository when `radar_keywords = []` turns it off."""
    _add_untracked(
        filled, day, {"lewagon/setup": 0.5, "deepseek-ai/DeepSeek-V3": 0.3, "x/llm-serve": 0.2}
    )
    radar = _radar(filled, settings, day)
    assert "The 2 ML repositories outside the tracked list most likely to break out by" in radar
    every = settings.model_copy(update={"radar_keywords": []})
    radar = _radar(filled, every, day)
    assert "The 3 repositories outside the tracked list most likely to break out by" in radar
    assert "ML" not in radar


def test_a_reason_s_percent_agrees_with_the_two_paces_it_shows() -> None:
    """A reason comparing two paces says the % a reader gets from the figures it shows: 20.1
    against 13.5 is 49% above (the unrounded 20.14 against 13.46 would say 50%)."""
    from shu.forecast.radar.statements import _Facts, _quarter, _week

    row = {
        "repo": "a/b",
        "origin": date(2026, 2, 28),
        "velocity_7d": 20.14,
        "velocity_28d": 13.46,
        "velocity_90d": 9.04,
        "threshold": 30.0,
    }
    facts = _Facts(None, row)  # type: ignore[arg-type]  # reads the row only, no store
    week = _week(facts)
    assert week is not None and week[0] == (
        "the last 7 days ran 49% above the 28-day pace (20.1 against 13.5 stars/day)"
    )
    quarter = _quarter(facts)  # 13.5 against 9.0: 50% (unrounded: 48.9%, 49%)
    assert quarter is not None and quarter[0].startswith("the 28-day pace is 50% above the 90-day")


def _one_row(filled, settings, day, drivers: list[dict]) -> str:
    """The radar row of a slowing repository whose breakout forecast has `drivers`."""
    from shu.signals import refresh_signals

    slowing = _series("deep/llm-slow", day, 200)
    slowing["stars"] = [round(5000 - 12 * i - 0.04 * i * i) for i in range(200)]  # slowing
    filled.upsert("stars_daily", slowing)
    refresh_signals(filled, full=True, settings=settings)
    _card_with_radar(settings)
    _add_untracked(filled, day, {"deep/llm-slow": 0.4})
    filled.con.execute(
        "UPDATE forecasts SET drivers = ? WHERE template = 'star_breakout'", [json.dumps(drivers)]
    )
    result = compose_briefing(filled, day, settings)
    radar = result.path.read_text(encoding="utf-8").split("## Breaking out", 1)[1]
    (row,) = [line for line in radar.splitlines() if line.startswith("| [deep/llm-slow]")]
    return row


def _lift(row: str) -> str:
    return row.rstrip(" |").rsplit(" | ", 1)[1]


def test_the_strongest_reason_for_is_shown_as_what_it_is(filled, settings, day):
    """The last column is the repository's own driver the model counts most towards a
    breakout, even one that reads the other way on its own (the last 7 days below the 28-day
    pace), stated as the fact it is, with receipts, in at most 15 words; the store-wide one
    before it is not the repository's."""
    row = _one_row(
        filled,
        settings,
        day,
        [
            {"feature": "market_velocity_z", "value": 1.0, "sign": "+", "contribution": 0.5},
            {"feature": "velocity_28d_z", "value": -0.5, "sign": "-", "contribution": -0.3},
            {"feature": "rel_velocity_7d", "value": 0.9, "sign": "+", "contribution": 0.1},
        ],
    )
    lift = _lift(row)
    assert re.fullmatch(
        r"the last 7 days ran \d+% below the 28-day pace \([\d.,]+ against [\d.,]+ "
        r"stars/day\) \[R\d+, R\d+\]",
        lift,
    ), row
    assert len(re.sub(r"\[R[\d, R]+\]", "", lift).split()) <= 15


def test_a_row_with_no_reason_for_a_breakout_says_what_lowers_it_most(filled, settings, day):
    """Where every driver lowers the chance, the row says nothing lifts it and names the one
    lowering it most, with its receipts; never 'no single reason stands out'."""
    row = _one_row(
        filled,
        settings,
        day,
        [
            {"feature": "rel_velocity_7d", "value": 0.9, "sign": "-", "contribution": -0.4},
            {"feature": "market_velocity_z", "value": 1.0, "sign": "-", "contribution": -0.2},
        ],
    )
    assert "no single reason stands out" not in row
    assert re.fullmatch(
        r"nothing lifts it; most against it: the last 7 days ran \d+% below the 28-day pace "
        r"\([\d.,]+ against [\d.,]+ stars/day\) \[R\d+, R\d+\]",
        _lift(row),
    ), row


def test_a_size_or_3_day_reason_is_said_in_a_few_words(filled, settings, day):
    """A repository's size lifting its chance is said as what it is; the last 3 days against
    the bar say only the pace (the bar is its own column); where the pace itself lifts it most
    (the same on most rows), the next of its own reasons follows, its figures in brackets left
    out."""
    size = _lift(
        _one_row(
            filled,
            settings,
            day,
            [{"feature": "log_stars", "value": 8.5, "sign": "+", "contribution": 0.2}],
        )
    )
    assert re.fullmatch(r"its size, [\d,]+ stars in all \[R\d+\]", size), size
    days3 = _lift(
        _one_row(
            filled,
            settings,
            day,
            [
                {
                    "feature": "log_velocity_3d_vs_bar",
                    "value": -0.5,
                    "sign": "+",
                    "contribution": 0.2,
                }
            ],
        )
    )
    assert re.fullmatch(r"the last 3 days at [\d.,]+ stars/day \[R\d+, R\d+, R\d+\]", days3), days3
    pace = _lift(
        _one_row(
            filled,
            settings,
            day,
            [
                {"feature": "slog_velocity_28d", "value": 2.0, "sign": "+", "contribution": 0.4},
                {"feature": "market_velocity_z", "value": 1.0, "sign": "+", "contribution": 0.3},
                {"feature": "rel_velocity_7d", "value": 0.9, "sign": "+", "contribution": 0.1},
            ],
        )
    )
    assert re.fullmatch(
        # the pace's figure is in its own column: "its pace", then the next reason
        r"its pace \[R\d+, R\d+\]; then the last 7 days ran \d+% below "
        r"the 28-day pace \[R\d+, R\d+\]",
        pace,
    ), pace


def test_the_radar_says_how_far_to_trust_its_chances(filled, settings, day) -> None:
    """Below the table: how often the backtest's top 10 broke out against momentum's (from the
    model card of the model that issued them) and which way the online tail factor moved the
    chances; neither is said when neither is stored."""
    _add_untracked(filled, day, {"deepseek-ai/DeepSeek-V3": 0.3})
    assert "How far to trust" not in _radar(filled, settings, day)

    path = settings.models_dir / "forecaster.json"
    card = json.loads(path.read_text())
    card["version"] = "test-1"  # the radar forecasts' model
    ranking = {
        name: {"precision_at_10": {"mean": mean, "low": mean - 0.01, "high": mean + 0.01}}
        for name, mean in (("model", 0.091), ("momentum", 0.041))
    }
    slices = card.setdefault("backtest", {}).setdefault("slices", {})
    slices["star_breakout/30"] = {"ranking": {"n_origins": 255, **ranking}}
    path.write_text(json.dumps(card))
    filled.upsert(
        "forecast_calibration",
        pd.DataFrame(
            [
                {
                    "origin": day,
                    "model_version": "test-1",
                    "template": "star_breakout",
                    "horizon_days": 30,
                    "band": "all",
                    "tail_factor": 1.41,
                    "n_resolved": 160,
                }
            ]
        ),
    )
    radar = _radar(filled, settings, day)
    line = next(x for x in radar.splitlines() if x.startswith("How far to trust"))
    assert re.search(
        r"in the backtest \(255 weekly days\) 9% \[R\d+\] of its top 10 broke out, "
        r"against 4% \[R\d+\] of the 10 whose last week most outran their 28-day pace",
        line,
    ), line
    assert "how its top 20 of the last 8 resolved weeks came out; today's are raised" in line
    assert re.search(
        r"\(tail factor 1\.41 \[R\d+\]\), as those weeks' top broke out more often", line
    )

    # a card of another model: its backtest is not this radar's; a factor below 1 lowers
    card["version"] = "other"
    path.write_text(json.dumps(card))
    filled.con.execute("UPDATE forecast_calibration SET tail_factor = 0.6")
    line = next(x for x in _radar(filled, settings, day).splitlines() if "How far" in x)
    assert line.startswith("How far to trust these chances: chances are tuned weekly")
    assert "backtest" not in line and "today's are lowered" in line
    # fewer resolved weeks than the online factor needs: the calibration weeks' factor
    filled.con.execute("UPDATE forecast_calibration SET n_resolved = 40")
    line = next(x for x in _radar(filled, settings, day).splitlines() if "How far" in x)
    assert "scaled to what came true of the model's top in the weeks it was calibrated" in line


def test_the_bar_says_what_set_it_when_it_is_not_twice_the_28_day_pace() -> None:
    from types import SimpleNamespace
    from typing import cast

    from shu.briefing.sections.radar import _bar
    from shu.forecast.radar.entries import RadarEntry

    def cell(v28: float | None, bar: float) -> str:
        # _bar reads only the two fields; the rest of an entry does not bear on the cell
        return str(_bar(cast(RadarEntry, SimpleNamespace(velocity_28d=v28, bar=bar))))

    assert cell(13.5, 29.7) == "29.7 (twice its 90-day pace)"  # it has slowed
    assert cell(15.6, 31.2) == "31.2 (twice its pace now)"
    assert cell(3.0, 10.0) == "10.0 (the minimum)"
    assert cell(None, 10.0) == "10.0 (the minimum)"
    assert cell(4.0, 15.2) == "15.2 (twice its 90-day pace)"
