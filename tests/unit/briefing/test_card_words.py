"""Cards in an analyst's words: every model feature has a plain statement with its number, no
identifier reaches a card, and a card fits a screen."""

from __future__ import annotations

import json
import math
import re
from datetime import timedelta

from shu.briefing.compose import compose_briefing
from shu.briefing.sections.cards import MAX_WORDS
from shu.briefing.text import word_count
from shu.forecast.features import feature_names
from shu.forecast.features.words import statement
from shu.forecast.questions.registry import TEMPLATES
from shu.receipts import resolve, stored_receipts

FLAGS = {"phase_emerging", "phase_expansion", "phase_decline", "ever_rocm"}


def _features() -> list[tuple[str, str]]:
    out = []
    for template in TEMPLATES:
        names = feature_names(template)
        out += [(template, name) for name in names]
    return out


def test_every_feature_the_models_use_reads_as_a_statement():
    features = _features()
    assert len(features) > 300  # every template's features, ROCm's included
    for template, name in features:
        for value in (0.0, 0.37, 1.8, -0.6, 12.0):
            text = statement(name, value, template)
            assert text, (template, name)
            assert "_" not in text and name not in text  # never the identifier
            assert text[0] == text[0].upper()
            if name not in FLAGS:
                assert re.search(r"\d", text), (name, text)


def test_statements_give_the_number_the_feature_encodes():
    assert statement("rel_velocity_7d", 1.3, "star_velocity_up") == (
        "The last 7 days ran 30% above the 28-day pace"
    )
    assert statement("rel_velocity_7d", 0.75, "star_velocity_up") == (
        "The last 7 days ran 25% below the 28-day pace"
    )
    assert statement("log_stars", math.log1p(12345), "star_gain") == "It has 12,345 stars"
    assert statement("slog_velocity_28d", -math.log1p(3.5), "star_gain") == (
        "It lost 3.5 stars a day over the last 28 days"
    )
    assert statement("velocity_change_91d", 0.25, "star_gain") == (
        "91 days ago the 28-day pace was 75% of today's"
    )
    assert statement("share_90d", 0.034, "rocm_share_reach") == (
        "3.4% of its mainline commits in 90 days touched ROCm"
    )
    # the same name reads by what the ROCm templates measure with it
    assert "commit history" in statement("history_years", 2.0, "rocm_share_reach")
    assert "star history" in statement("history_years", 2.0, "star_gain")
    assert statement("not_a_feature", 1.0, "star_gain") is None
    assert statement("log_stars", None, "star_gain") is None


def _cards(markdown: str) -> list[str]:
    body = markdown.split("## Forecasts", 1)[1].split("\n## ", 1)[0]
    return [c for c in re.split(r"\n(?=### )", body) if c.startswith("### [")]


def test_a_body_card_is_its_question_its_range_and_how_sure(filled, settings, day):
    """In the body a card is three lines (the question with its answer against the usual rate,
    the pace expected with its 80% range where one is issued, how sure) between its heading and
    its receipts, which link to its reasons and chart in the appendix."""
    text = compose_briefing(filled, day, settings).path.read_text()
    cards = _cards(text)
    assert len(cards) == 3
    for card in cards:
        assert word_count(card) <= MAX_WORDS, card
        heading, *lines, footer = [p for p in card.strip().split("\n\n") if p]
        assert heading.startswith("### [") and footer.startswith("*Receipts R")
        assert "[why, and its chart](#more-on-each-card)" in footer
        assert lines[0].startswith("**Will ") and "for such questions)" in lines[0]
        assert lines[-1].startswith("**How sure:** ") and len(lines) <= 3
        assert all(line.startswith("28-day pace expected then: ") for line in lines[1:-1])
        assert "![" not in card and "\n- " not in card  # no chart, no bullets
    more = text.split("### More on each card", 1)[1].split("\n### ", 1)[0]
    assert more.count("![") == 3  # each card's chart is in its details
    for why in [line for line in more.splitlines() if "**Why more likely than usual (" in line]:
        assert "pace" in why and not re.search(r"\b[a-z]+_[a-z0-9_]+\b", why)
        assert "log-odds" not in why and "typical value" not in why


def test_the_confidence_word_claims_no_more_than_the_record_shows():
    """The word is the lower of the answer's own band, the backtest's hit rate and, from
    `RECORD_ENOUGH` answers, the upper end of this store's record's 95% interval; a rate of 50%
    or less is no skill at all."""
    from shu.briefing.card.earned import NO_SKILL, RECORD_ENOUGH, earned_word

    # the example's keras card: 86% no, 87% in the backtest, 29 of 46 in the store (49-75%)
    assert earned_word(0.14, 0.87, (29, 46)) == "medium"
    # too few answers in the store to weigh: the backtest's word stands
    assert earned_word(0.14, 0.87, (1, RECORD_ENOUGH - 1)) == "high"
    # a backtest worse than the answer's band lowers it; a better one never raises it
    assert earned_word(0.84, 0.72, (0, 0)) == "medium"
    assert earned_word(0.55, 0.95, (300, 300)) == "low"
    # a record no better than a coin's: no skill (the ROCm share card's 48%)
    assert earned_word(0.48, 0.48, (0, 0)) == NO_SKILL
    assert earned_word(0.85, 0.90, (10, 40)) == NO_SKILL  # 14-41%: at best no better than a coin
    assert earned_word(0.72, None, (0, 0)) == "medium"  # no record at all: the answer's own


def test_word_count_counts_what_a_reader_reads():
    markdown = (
        "### [a/b](https://github.com/a/b) · star velocity\n\n"
        "**Will it?** 30% yes [R1, R2].\n\n![a chart of many words](x.png)\n\n"
        "```\ncode block words\n```\n\n- one `two` 3.5 — four\n"
    )
    # a/b, star, velocity, Will, it?, yes, one, two, four (numbers, dashes, receipts, the
    # image's words, the code block and the link's address are not read as words)
    assert word_count(markdown) == 9


def _set_drivers(store, drivers: list[tuple[str, float, float]]) -> None:
    """Today's forecasts store these drivers (feature, contribution, value) and their values."""
    rows = store.con.execute(
        "SELECT forecast_id, features FROM forecasts WHERE forecast_id LIKE '%-0'"
    ).fetchall()
    for fid, features in rows:
        values = {**json.loads(features), **{name: value for name, _, value in drivers}}
        stored = [
            {"feature": n, "value": v, "sign": "+" if c > 0 else "-", "contribution": c}
            for n, c, v in drivers
        ]
        store.con.execute(
            "UPDATE forecasts SET features = ?, drivers = ? WHERE forecast_id = ?",
            [json.dumps(values), json.dumps(stored), fid],
        )


def test_reasons_say_their_days_and_numbers_and_how_the_model_reads_them(filled, settings, day):
    _set_drivers(
        filled,
        [
            ("rel_velocity_7d_lag21", 0.25, 1.32),
            ("max_day_share_28d", 0.2, 0.05),
            ("velocity_28d_z", 0.15, -0.6),
            ("rel_acceleration_28d", 0.1, 0.3),
        ],
    )
    result = compose_briefing(filled, day, settings)
    text = result.path.read_text()
    # a past week says which days it covers (28 Feb 2026 less 27..21 days) and when they are out
    # of the 28-day pace
    assert (
        text.count(
            "The week of 1–7 Feb 2026 (out of the 28-day window by 7 Mar 2026) ran 32% above the "
            "28-day pace [R"
        )
        == 3
    )
    # the busiest day says which day and how many stars, each with its receipt
    busiest = re.findall(
        r"[Ii]ts busiest of the last 28 days, (\d+ \w+ 2026), brought (\d+) stars: 5% of the 28 "
        r"days' stars \[R\d+, R\d+, R\d+\]",
        text,
    )
    assert len(busiest) == 3
    # a rise of the pace says from what to what
    v = filled.con.execute(
        "SELECT day, velocity_28d FROM star_signals WHERE repo = 'acme/platform' AND day IN (?, ?) "
        "ORDER BY day",
        [day - timedelta(days=28), day],
    ).fetchall()
    assert f"rose from {v[0][1]:,.1f} to {v[1][1]:,.1f} stars/day in 28 days, by 30%" in text
    # a reason that reads the other way on its own (a pace below its year's mean under "Why
    # higher") says how the model reads it
    assert (
        text.count("The 28-day pace is 0.6 standard deviations below its mean of the past year [R")
        == 3
    )
    # each reason says the answer had it been typical, in words that need no key above the cards
    assert (
        len(
            re.findall(
                r", read as likely to recover — \d+% had it been typical\.",
                text,
            )
        )
        == 3
    )
    forecasts = text[text.index("## Forecasts") : text.index("## Appendix")]
    assert "without it: " not in forecasts and "after a reason is the answer" not in forecasts
    receipts = stored_receipts(filled, result.briefing_id)
    assert [resolve(filled, r) for r in receipts] == [None] * len(receipts)


def test_a_reason_reading_the_other_way_is_explained_or_set_aside():
    from shu.briefing.card.why import Reason, _as_the_model_reads, reads_against
    from shu.forecast.features.words import reads_up
    from shu.safe_markdown import Md

    f = {"template": "star_velocity_up"}
    low = Reason(Md("low [R1]"), 0.3, 0.4, "velocity_28d_z", reads_up("velocity_28d_z", -0.6))
    decline = Reason(Md("decline [R2]"), 0.2, 0.5, "phase_decline", reads_up("phase_decline", 1))
    plain = Reason(Md("size [R3]"), 0.1, 0.5, "log_stars", reads_up("log_stars", 9.0))
    assert [reads_against(f, r, 1.0) for r in (low, decline, plain)] == [True, True, False]
    assert not reads_against(f, low, -1.0)  # under "Why lower" a low pace reads with it
    # "yes" is a fall of the pace: the reading turns over
    assert not reads_against({"template": "star_accel_fall"}, low, 1.0)
    kept, aside = _as_the_model_reads(f, [low, decline, plain], 1.0)
    assert [str(r.text) for r in kept] == [
        "low [R1], read as likely to recover",
        "size [R3]",
    ]
    assert aside == [decline]
